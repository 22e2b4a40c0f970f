package integration_test

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/pgid/pgid/migrations"
	"github.com/pgid/pgid/objectidtype"
	"github.com/pgid/pgid/pgidpgx"
	"github.com/pgid/pgid/ulidtype"
)

// What pgx needs registered, mode by mode: what works with no registration,
// what needs pgidpgx.Register, and what only pgidpgx.LoadTypes provides.
func TestPgxRegistration(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dsn := newDB(t, true)
	setup := connect(t, dsn, pgx.QueryExecModeCacheStatement)
	if _, err := setup.Exec(ctx, driverTables); err != nil {
		t.Fatal(err)
	}
	u, o := ulidtype.New(), specialObjectIDs[6]
	for _, table := range tables {
		if _, err := setup.Exec(ctx, "INSERT INTO "+table+" (k, u, o) VALUES (0, $1, $2)", u, o); err != nil {
			t.Fatal(err)
		}
	}
	var domOIDs [4]uint32
	if err := setup.QueryRow(ctx, "SELECT 'pgid.ulid'::regtype::oid, 'pgid.objectid'::regtype::oid, 'pgid._ulid'::regtype::oid, 'pgid._objectid'::regtype::oid").
		Scan(&domOIDs[0], &domOIDs[1], &domOIDs[2], &domOIDs[3]); err != nil {
		t.Fatal(err)
	}

	for _, mode := range allModes {
		textMode := mode == pgx.QueryExecModeExec || mode == pgx.QueryExecModeSimpleProtocol
		t.Run(modeName(mode), func(t *testing.T) {
			// Scalars need no registration, domain or not: result columns of a
			// domain report the base type's OID, and a parameter pgx has no
			// type for falls back to the ID's driver.Valuer.
			bare := connect(t, dsn, mode)
			for _, table := range tables {
				k := nextKey()
				for _, o := range specialObjectIDs {
					if _, err := bare.Exec(ctx, "INSERT INTO "+table+" (k, u, o) VALUES ($1, $2, $3) ON CONFLICT (k) DO UPDATE SET o = excluded.o", k, u, o); err != nil {
						t.Fatalf("%s: insert without registration: %v", table, err)
					}
					if _, so := stored(t, pgxDB{setup}, table, k); so != o.Hex() {
						t.Fatalf("%s: without registration stored %s, want %s", table, so, o.Hex())
					}
				}
				rows, err := bare.Query(ctx, "SELECT u, o FROM "+table+" WHERE k = 0")
				if err != nil {
					t.Fatal(err)
				}
				fds := rows.FieldDescriptions()
				if fds[0].DataTypeOID != pgtype.UUIDOID || fds[1].DataTypeOID != pgtype.ByteaOID {
					t.Errorf("%s: result column OIDs %d, %d; want uuid %d, bytea %d", table, fds[0].DataTypeOID, fds[1].DataTypeOID, pgtype.UUIDOID, pgtype.ByteaOID)
				}
				var gotU ulidtype.ULID
				var gotO objectidtype.ObjectID
				_, err = pgx.ForEachRow(rows, []any{&gotU, &gotO}, func() error { return nil })
				if err != nil || gotU != u || gotO != o {
					t.Fatalf("%s: scan without registration: %s, %s, %v", table, gotU, gotO, err)
				}
			}
			// Until the domains are loaded, pgx sends domain parameters as text.
			if got := bare.TypeMap().FormatCodeForOID(domOIDs[0]); got != pgtype.TextFormatCode {
				t.Errorf("pgid.ulid format before LoadTypes: %d, want text", got)
			}

			// Slices: in Exec and SimpleProtocol modes parameters have OID 0 and
			// pgx cannot encode []ULID / []ObjectID until Register names their
			// PostgreSQL types. LoadTypes does not help there.
			anyQuery := "SELECT count(*) FROM dom WHERE u = ANY($1) AND o = ANY($2)"
			anyArgs := []any{[]ulidtype.ULID{u}, []objectidtype.ObjectID{o}}
			loaded := connect(t, dsn, mode)
			if err := pgidpgx.LoadTypes(ctx, loaded); err != nil {
				t.Fatal(err)
			}
			for name, c := range map[string]*pgx.Conn{"bare": bare, "LoadTypes": loaded} {
				var n int
				err := c.QueryRow(ctx, anyQuery, anyArgs...).Scan(&n)
				switch {
				case textMode && (err == nil || !strings.Contains(err.Error(), "OID 0")):
					t.Errorf("%s: = ANY([]ULID) in a text mode without Register: %v, want an OID 0 encode error", name, err)
				case !textMode && (err != nil || n != 1):
					t.Errorf("%s: = ANY([]ULID): %d, %v", name, n, err)
				}
			}
			registered := connect(t, dsn, mode)
			pgidpgx.Register(registered.TypeMap())
			var n int
			if err := registered.QueryRow(ctx, anyQuery, anyArgs...).Scan(&n); err != nil || n != 1 {
				t.Errorf("Register: = ANY([]ULID): %d, %v", n, err)
			}

			// array_agg of a domain column returns the domain's array type,
			// whose OID pgx does not know: a bare connection cannot scan it.
			// Of a base column, it works bare.
			var us []ulidtype.ULID
			var os []objectidtype.ObjectID
			aggQuery := "SELECT array_agg(u), array_agg(o) FROM %s WHERE k = 0"
			if err := bare.QueryRow(ctx, strings.Replace(aggQuery, "%s", "plain", 1)).Scan(&us, &os); err != nil || len(us) != 1 || us[0] != u || os[0] != o {
				t.Errorf("array_agg(plain) without registration: %v %v %v", us, os, err)
			}
			err := bare.QueryRow(ctx, strings.Replace(aggQuery, "%s", "dom", 1)).Scan(&us, &os)
			if err == nil || !strings.Contains(err.Error(), "unknown type") {
				t.Errorf("bare: array_agg(domain): %v, want an unknown type error", err)
			}
			// Register names *[]T's PostgreSQL type, which pgx uses for a
			// result of unknown OID: typed slices scan without LoadTypes.
			us, os = nil, nil
			if err := registered.QueryRow(ctx, strings.Replace(aggQuery, "%s", "dom", 1)).Scan(&us, &os); err != nil || len(us) != 1 || us[0] != u || os[0] != o {
				t.Errorf("Register: array_agg(domain): %v %v %v", us, os, err)
			}
			// Into any, only LoadTypes knows the domain array's OID.
			var anyU any
			err = registered.QueryRow(ctx, "SELECT array_agg(u) FROM dom WHERE k = 0").Scan(&anyU)
			if want := "{" + u.UUIDString() + "}"; err != nil || anyU != want {
				t.Errorf("Register: array_agg(domain) into any = %#v, %v; want the text %q", anyU, err, want)
			}
			us, os = nil, nil
			if err := loaded.QueryRow(ctx, strings.Replace(aggQuery, "%s", "dom", 1)).Scan(&us, &os); err != nil || len(us) != 1 || us[0] != u || os[0] != o {
				t.Errorf("array_agg(domain) after LoadTypes: %v %v %v", us, os, err)
			}
			// LoadTypes installs pgidpgx's codecs for the domains: domain
			// arrays scanned into any come back as []any of the ID types.
			var aggU, aggO any
			if err := loaded.QueryRow(ctx, strings.Replace(aggQuery, "%s", "dom", 1)).Scan(&aggU, &aggO); err != nil {
				t.Errorf("array_agg(domain) into any: %v", err)
			} else if gu, ok := aggU.([]any); !ok || len(gu) != 1 || gu[0] != u {
				t.Errorf("array_agg(pgid.ulid) into any = %#v, want []any{%v}", aggU, u)
			} else if gobj, ok := aggO.([]any); !ok || len(gobj) != 1 || gobj[0] != o {
				t.Errorf("array_agg(pgid.objectid) into any = %#v, want []any{%v}", aggO, o)
			}
			// After LoadTypes, domain parameters go binary.
			for _, oid := range domOIDs {
				if got := loaded.TypeMap().FormatCodeForOID(oid); got != pgtype.BinaryFormatCode {
					t.Errorf("OID %d format after LoadTypes: %d, want binary", oid, got)
				}
			}

			// Single domain values are not affected: their result columns
			// report the base type, so Rows.Values gives pgx's uuid and bytea
			// decodings even after AfterConnect. Only DecodeUUIDAsULID, which
			// changes every uuid, makes the ulid column a ULID.
			full := connect(t, dsn, mode)
			if err := pgidpgx.AfterConnect(ctx, full); err != nil {
				t.Fatal(err)
			}
			decoding := connect(t, dsn, mode)
			pgidpgx.DecodeUUIDAsULID(decoding.TypeMap())
			if err := pgidpgx.AfterConnect(ctx, decoding); err != nil {
				t.Fatal(err)
			}
			for name, c := range map[string]struct {
				conn  *pgx.Conn
				wantU any
			}{
				"AfterConnect":                  {full, [16]byte(u)},
				"DecodeUUIDAsULID+AfterConnect": {decoding, u},
			} {
				rows, err := c.conn.Query(ctx, "SELECT u, o FROM dom WHERE k = 0")
				if err != nil {
					t.Fatal(err)
				}
				vals, err := pgx.CollectExactlyOneRow(rows, func(r pgx.CollectableRow) ([]any, error) { return r.Values() })
				if err != nil {
					t.Fatalf("%s: Values: %v", name, err)
				}
				if b, ok := vals[1].([]byte); vals[0] != c.wantU || !ok || !bytes.Equal(b, o[:]) {
					t.Errorf("%s: Values of (pgid.ulid, pgid.objectid) = %T %v, %T %v; want %T, []uint8", name, vals[0], vals[0], vals[1], vals[1], c.wantU)
				}
			}
		})
	}
}

// hexStringer has a String method and no driver.Valuer: in the text modes pgx
// sends String() for it, so plain bytea silently stores the 24 ASCII
// characters. ObjectID (BytesValuer, Valuer) stores its 12 bytes in every mode.
type hexStringer [12]byte

func (h hexStringer) String() string { return hex.EncodeToString(h[:]) }

func TestPgxStringerLeak(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dsn := newDB(t, true)
	setup := connect(t, dsn, pgx.QueryExecModeCacheStatement)
	if _, err := setup.Exec(ctx, driverTables); err != nil {
		t.Fatal(err)
	}
	o := objectidtype.MustParse("4e7020cb7cac81af7136236b")
	for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeExec, pgx.QueryExecModeSimpleProtocol} {
		conn := connect(t, dsn, mode)
		for _, c := range []struct {
			v    any
			want int
		}{{hexStringer(o), 24}, {o, 12}} {
			var n int
			err := conn.QueryRow(ctx, "INSERT INTO plain (k, o) VALUES ($1, $2) RETURNING octet_length(o)", nextKey(), c.v).Scan(&n)
			if err != nil || n != c.want {
				t.Errorf("%v: %T into bytea: %d bytes stored, %v; want %d", mode, c.v, n, err, c.want)
			}
		}
	}
}

// retainer is a BytesScanner that keeps the slice it is given: the mistake
// ObjectID.ScanBytes must avoid, since pgx hands ScanBytes the driver's
// memory, which a scanner must copy. pgtype.DriverBytes keeps it on purpose.
type retainer struct{ b []byte }

func (r *retainer) ScanBytes(v []byte) error { r.b = v; return nil }

// Values scanned row by row are kept in slices and compared with what was
// inserted only after the rows are closed, when the driver has long reused
// the memory it read them into: ObjectID, NullObjectID and ShortID (through
// ScanBytes), []ObjectID (through pgx's array codec), a bytea into an any
// ([]byte, pgx's ByteaCodec) and, after LoadTypes, a pgid.objectid[] into an
// any ([]any of ObjectID, decoded by the codec LoadTypes installs), in the binary
// (CacheStatement) and the text (SimpleProtocol) formats. A retainer read in
// the same loop shows the premise, and what the checks would catch in a
// scanner that kept its slice: in binary, pgx hands ScanBytes slices of its
// read buffer, which later rows overwrite (asserted); in text, it decodes the
// hex into a fresh slice per value, so nothing is overwritten (logged only).
func TestPgxScanKeepsRows(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dsn := newDB(t, true)
	setup := connect(t, dsn, pgx.QueryExecModeCacheStatement)
	if _, err := setup.Exec(ctx, "CREATE TABLE scan_keep (k int PRIMARY KEY, o pgid.objectid NOT NULL)"); err != nil {
		t.Fatal(err)
	}
	const n = 20_000
	ids := randomObjectIDs(n)
	copy(ids[3:], specialObjectIDs)
	rows := make([][]any, n)
	for i, o := range ids {
		rows[i] = []any{i, o}
	}
	if _, err := setup.CopyFrom(ctx, pgx.Identifier{"scan_keep"}, []string{"k", "o"}, pgx.CopyFromRows(rows)); err != nil {
		t.Fatal(err)
	}

	for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeCacheStatement, pgx.QueryExecModeSimpleProtocol} {
		t.Run(modeName(mode), func(t *testing.T) {
			conn := connect(t, dsn, mode)
			if err := pgidpgx.LoadTypes(ctx, conn); err != nil {
				t.Fatal(err)
			}
			var (
				plain  = make([]objectidtype.ObjectID, n)
				nulls  = make([]objectidtype.NullObjectID, n)
				shorts = make([]objectidtype.ShortID, n)
				arrays = make([][]objectidtype.ObjectID, n)
				anys   = make([]any, n) // o: bytea to pgx, so []byte
				anyArr = make([]any, n) // ARRAY[o]: pgid.objectid[], so []any{ObjectID}
				kept   = make([]retainer, n)
			)
			r, err := conn.Query(ctx, "SELECT k, o, o, o, ARRAY[o, o], o, ARRAY[o], o FROM scan_keep ORDER BY k")
			if err != nil {
				t.Fatal(err)
			}
			i := 0
			for r.Next() {
				var k int
				if err := r.Scan(&k, &plain[i], &nulls[i], &shorts[i], &arrays[i], &anys[i], &anyArr[i], &kept[i]); err != nil {
					t.Fatalf("row %d: %v", i, err)
				}
				if k != i {
					t.Fatalf("row %d has k %d", i, k)
				}
				i++
			}
			r.Close()
			if err := r.Err(); err != nil || i != n {
				t.Fatalf("%d rows, %v", i, err)
			}
			// Another query through the same connection, to overwrite the
			// buffers once more.
			var sum int
			if err := conn.QueryRow(ctx, "SELECT sum(octet_length(o)) FROM scan_keep").Scan(&sum); err != nil || sum != 12*n {
				t.Fatalf("sum: %d, %v", sum, err)
			}

			bad, overwritten := 0, 0
			for i, want := range ids {
				b, _ := anys[i].([]byte)
				a, _ := anyArr[i].([]any)
				if plain[i] != want || !nulls[i].Valid || nulls[i].ObjectID != want || objectidtype.ObjectID(shorts[i]) != want ||
					len(arrays[i]) != 2 || arrays[i][0] != want || arrays[i][1] != want ||
					!bytes.Equal(b, want[:]) || len(a) != 1 || a[0] != want {
					if bad++; bad <= 5 {
						t.Errorf("row %d: kept %s, %v, %s, %v, %#v, %#v; inserted %s",
							i, plain[i], nulls[i], objectidtype.ObjectID(shorts[i]), arrays[i], anys[i], anyArr[i], want)
					}
				}
				if !bytes.Equal(kept[i].b, want[:]) {
					overwritten++
				}
			}
			if bad > 0 {
				t.Errorf("%d of %d rows kept a wrong value", bad, n)
			}
			t.Logf("%v: %d of %d slices kept from ScanBytes no longer hold their row", mode, overwritten, n)
			// The premise, in binary: the driver reuses its memory, so a
			// scanner that keeps the slice loses its rows.
			if mode == pgx.QueryExecModeCacheStatement && overwritten < n/2 {
				t.Errorf("binary format: only %d of %d retained ScanBytes slices were overwritten; the test no longer shows driver memory being reused", overwritten, n)
			}
		})
	}
}

// LoadTypes on a database without the migrations fails with
// ErrNotMigrated; AfterConnect connects (Register only), and migrations.Up
// on that pool replaces its connections, so new ones have the domains;
// Register alone still works there.
func TestPgidpgxBeforeMigrations(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dsn := newDB(t, false)
	conn := connect(t, dsn, pgx.QueryExecModeSimpleProtocol)
	err := pgidpgx.LoadTypes(ctx, conn)
	if !errors.Is(err, pgidpgx.ErrNotMigrated) || !strings.Contains(err.Error(), "migrations") {
		t.Fatalf("LoadTypes before migrations: %v, want ErrNotMigrated", err)
	}
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	cfg.AfterConnect = pgidpgx.AfterConnect
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	before, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatalf("pool with AfterConnect before migrations: %v", err)
	}
	if _, ok := before.Conn().TypeMap().TypeForName("pgid.ulid"); ok {
		t.Fatal("a connection made before the migrations has pgid.ulid")
	}
	// The connection works: a domain parameter goes in text.
	u0 := ulidtype.New()
	var back ulidtype.ULID
	if err := before.QueryRow(ctx, "SELECT $1::uuid", u0).Scan(&back); err != nil || back != u0 {
		t.Fatalf("before the migrations: %v, %v", back, err)
	}
	before.Release()
	if err := migrations.Up(ctx, pool); err != nil {
		t.Fatalf("migrations.Up on the AfterConnect pool: %v", err)
	}
	// The idle connection from before is gone: the pool's one has the domains.
	c, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	_, loaded := c.Conn().TypeMap().TypeForName("pgid.ulid")
	err = c.QueryRow(ctx, "SELECT $1::pgid.ulid", u0).Scan(&back)
	pid := c.Conn().PgConn().PID()
	c.Release() // before any Fatal: the deferred pool.Close waits for it
	if !loaded {
		t.Fatal("the connection after migrations.Up lacks pgid.ulid")
	}
	if err != nil || back != u0 {
		t.Fatalf("after the migrations: %v, %v", back, err)
	}
	// Nothing to do: the pool keeps its connection.
	if err := migrations.Up(ctx, pool); err != nil {
		t.Fatal(err)
	}
	if s := pool.Stat(); s.TotalConns() != 1 || s.IdleConns() != 1 {
		t.Fatalf("after migrations.Up with nothing to do: %d connections, %d idle; want the one", s.TotalConns(), s.IdleConns())
	}
	c, err = pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	same := c.Conn().PgConn().PID() == pid
	c.Release()
	if !same {
		t.Error("migrations.Up with nothing to apply replaced the pool's connection")
	}

	pgidpgx.Register(conn.TypeMap())
	var n int
	u := ulidtype.New()
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM unnest($1::uuid[]) x WHERE x = ANY($2)", []ulidtype.ULID{u}, []ulidtype.ULID{u}).Scan(&n); err != nil || n != 1 {
		t.Fatalf("Register alone, simple protocol: %d, %v", n, err)
	}
}
