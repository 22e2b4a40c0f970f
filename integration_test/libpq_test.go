package integration_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/lib/pq"

	"github.com/pgid/pgid/migrations"
	"github.com/pgid/pgid/objectidtype"
	"github.com/pgid/pgid/partition"
	"github.com/pgid/pgid/tail"
	"github.com/pgid/pgid/ulidtype"
)

func openLibPQ(t *testing.T, dsn string) *sql.DB {
	t.Helper()
	sdb, err := sql.Open("postgres", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sdb.Close() })
	if err := sdb.Ping(); err != nil {
		t.Fatalf("lib/pq: %v", err)
	}
	return sdb
}

// lib/pq. By default it sends parameters as text, which is right for uuid,
// pgid.ulid and plain bytea (it knows bytea's OID and hex-encodes []byte),
// but not for a bytea domain: see TestLibPQByteaDomain.
func TestLibPQ(t *testing.T) {
	t.Parallel()
	dsn := newDB(t, true)
	sdb := openLibPQ(t, dsn)
	if _, err := sdb.Exec(driverTables); err != nil {
		t.Fatal(err)
	}
	d := sqlDB{sdb}
	t.Run("roundtrip", func(t *testing.T) { checkRoundTrips(t, d, "plain") })

	// binary_parameters=yes sends []byte in binary: every table works.
	bin := sqlDB{openLibPQ(t, withParam(dsn, "binary_parameters", "yes"))}
	t.Run("binary_parameters/roundtrip", func(t *testing.T) { checkRoundTrips(t, bin, tables...) })

	t.Run("arrays", func(t *testing.T) {
		ctx := context.Background()
		for _, table := range tables {
			us := []ulidtype.ULID{ulidtype.New(), ulidtype.New(), ulidtype.New()}
			os := []objectidtype.ObjectID{specialObjectIDs[2], specialObjectIDs[5], specialObjectIDs[6]}
			group := nextKey()
			for i := range us {
				if err := bin.exec(ctx, "INSERT INTO "+table+" (k, u, o) VALUES ($1, $2, $3)", group*1000+int64(i), us[i], os[i]); err != nil {
					t.Fatal(err)
				}
			}
			// pq.Array uses each ULID's Value (the UUID text); bytea arrays
			// need pq.ByteaArray, which hex-encodes (pq.Array would put the
			// raw bytes into the array literal).
			var n int
			err := sdb.QueryRow("SELECT count(*) FROM "+table+" WHERE u = ANY($1) AND o = ANY($2)",
				pq.Array([]ulidtype.ULID{us[0], us[2]}), pq.ByteaArray{os[0][:], os[2][:]}).Scan(&n)
			if err != nil || n != 2 {
				t.Fatalf("%s: = ANY($1): %d rows, %v; want 2", table, n, err)
			}
			var gotU []ulidtype.ULID
			var gotO pq.ByteaArray
			err = sdb.QueryRow("SELECT array_agg(u ORDER BY k), array_agg(o ORDER BY k) FROM "+table+" WHERE k / 1000 = $1", group).
				Scan(pq.Array(&gotU), &gotO)
			if err != nil {
				t.Fatalf("%s: array_agg: %v", table, err)
			}
			if fmt.Sprint(gotU) != fmt.Sprint(us) || len(gotO) != len(os) {
				t.Fatalf("%s: array_agg: %v, %d ObjectIds", table, gotU, len(gotO))
			}
			for i, b := range gotO {
				if o, err := objectidtype.FromBytes(b); err != nil || o != os[i] {
					t.Fatalf("%s: array_agg ObjectId %d: %x, %v; want %s", table, i, b, err, os[i])
				}
			}
		}
	})

	// Driver fact: uuid results reach Scan as a 36-character []byte (not a
	// string, not 16 bytes); ULID.Scan takes it.
	t.Run("uuid_result_type", func(t *testing.T) {
		u := ulidtype.New()
		for _, table := range tables {
			k := nextKey()
			if err := d.exec(context.Background(), "INSERT INTO "+table+" (k, u) VALUES ($1, $2)", k, u); err != nil {
				t.Fatal(err)
			}
			var raw any
			if err := sdb.QueryRow("SELECT u FROM "+table+" WHERE k = $1", k).Scan(&raw); err != nil {
				t.Fatal(err)
			}
			if b, ok := raw.([]byte); !ok || string(b) != u.UUIDString() {
				t.Errorf("%s: uuid reached Scan as %T %q, want []byte %q", table, raw, raw, u.UUIDString())
			}
		}
	})
}

// libpqObjectIDs returns the ObjectIds the lib/pq domain test sends: the
// special ones; every position holding each byte that text input treats
// specially (0x5C backslash, 0x27 quote, 0x22, 0x00), in an otherwise
// printable ASCII ID and in a random one; every position holding each of the
// pairs 5C 78 (a "\x" hex prefix), 5C 5C, 5C 30 (an octal escape), 5C 27,
// 27 27 and 5C 00; a few whole-ID escapes (hex, octal, all backslashes, all
// quotes); and random IDs up to n in all.
func libpqObjectIDs(n int) []objectidtype.ObjectID {
	ids := append([]objectidtype.ObjectID(nil), specialObjectIDs...)
	ascii := objectidtype.MustParse("4142434445464748494a4b4c") // "ABCDEFGHIJKL"
	var random objectidtype.ObjectID
	rand.Read(random[:])
	for _, base := range []objectidtype.ObjectID{ascii, random} {
		for pos := range base {
			for _, b := range []byte{0x5C, 0x27, 0x22, 0x00} {
				o := base
				o[pos] = b
				ids = append(ids, o)
			}
			if pos == len(base)-1 {
				continue
			}
			for _, pair := range [][2]byte{{0x5C, 'x'}, {0x5C, 0x5C}, {0x5C, '0'}, {0x5C, 0x27}, {0x27, 0x27}, {0x5C, 0x00}} {
				o := base
				o[pos], o[pos+1] = pair[0], pair[1]
				ids = append(ids, o)
			}
		}
	}
	for _, s := range []string{`\x4e7020cb7c`, `\x4E7020CB7C`, `\101BCDEFGH`, `AB\\CDEFGHIJ`, `\\\\\\\\\\\\`, `''''''''''''`} {
		var o objectidtype.ObjectID
		copy(o[:], s)
		ids = append(ids, o)
	}
	for len(ids) < n {
		var o objectidtype.ObjectID
		rand.Read(o[:])
		ids = append(ids, o)
	}
	return ids
}

// lib/pq binds a []byte to a bytea *domain* parameter as raw text (it only
// hex-encodes for bytea's own OID). The result is always an error, never a
// wrong stored value: 0x00 is not valid text and invalid UTF-8 is rejected
// (22021); a backslash starts an escape that is either malformed (22P02, or
// 22023 for a bad hex digit after "\x") or shorter than what it stands for,
// so the value comes out short and the domain's 12-byte CHECK rejects it
// (23514). Exactly the IDs that are valid UTF-8 without 0x00 or a backslash
// are stored, and those unchanged. Checked on about 4,000 IDs, inserted one
// by one in autocommit (a failed statement would abort a transaction). The
// safe ways, a ::bytea cast on the parameter or binary_parameters=yes, store
// all of them exactly.
func TestLibPQByteaDomain(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dsn := newDB(t, true)
	sdb := openLibPQ(t, dsn)
	if _, err := sdb.Exec(driverTables); err != nil {
		t.Fatal(err)
	}
	ids := libpqObjectIDs(4000)

	// readBack returns the hex of the ObjectId stored at each key in keys.
	readBack := func(keys []int64) map[int64]string {
		rows, err := sdb.QueryContext(ctx, "SELECT k, encode(o, 'hex') FROM dom WHERE k = ANY($1)", pq.Array(keys))
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		got := map[int64]string{}
		for rows.Next() {
			var k int64
			var h string
			if err := rows.Scan(&k, &h); err != nil {
				t.Fatal(err)
			}
			got[k] = h
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		return got
	}

	// The trap: no cast, text parameters.
	keys := make([]int64, len(ids))
	errs := make([]error, len(ids))
	for i, o := range ids {
		keys[i] = nextKey()
		_, errs[i] = sdb.ExecContext(ctx, "INSERT INTO dom (k, o) VALUES ($1, $2)", keys[i], o)
	}
	got := readBack(keys)
	states := map[string]int{}
	examples := map[string]string{} // the first refusal of each SQLSTATE
	wrong := 0
	for i, o := range ids {
		h, ok := got[keys[i]]
		switch {
		case errs[i] != nil && !ok:
			st := libpqState(errs[i])
			if states[st]++; states[st] == 1 {
				examples[st] = fmt.Sprintf("%s: %v", o, errs[i])
			}
		case errs[i] == nil && ok && h == o.Hex():
			states["stored exactly"]++
		default:
			if wrong++; wrong <= 10 {
				t.Errorf("%s (%q): insert error %v, stored %q (%v): a wrong value got through", o, o[:], errs[i], h, ok)
			}
		}
		if plainText := utf8.Valid(o[:]) && !bytes.ContainsAny(o[:], "\\\x00"); plainText != (errs[i] == nil) {
			t.Errorf("%s (%q): insert error %v; want an error exactly when the bytes are not UTF-8 text free of 0x00 and backslashes", o, o[:], errs[i])
		}
	}
	if wrong > 0 {
		t.Errorf("%d of %d ObjectIds were stored wrongly", wrong, len(ids))
	}
	t.Logf("lib/pq, []byte into pgid.objectid, text parameters, %d ObjectIds: %v", len(ids), states)
	for st, e := range examples {
		t.Logf("  %s, e.g. %s", st, e)
	}
	// 0x00 bytes and invalid UTF-8: invalid_byte_sequence_for_encoding
	// (22021); a "\000" escape and a "\x" prefix shorten the value:
	// check_violation (23514).
	if states["22021"] == 0 || states["23514"] == 0 {
		t.Errorf("want both 22021 (0x00, invalid UTF-8) and 23514 (escapes caught by the CHECK) among the refusals: %v", states)
	}
	if states["stored exactly"] == 0 {
		t.Errorf("the plain-ASCII ObjectIds should pass unchanged: %v", states)
	}

	// Safe: a ::bytea cast makes the parameter bytea, which lib/pq
	// hex-encodes; binary_parameters=yes sends the bytes in binary. Nothing
	// fails here, so each way runs in one transaction.
	bin := openLibPQ(t, withParam(dsn, "binary_parameters", "yes"))
	for _, c := range []struct {
		name string
		db   *sql.DB
		sql  string
	}{
		{"cast", sdb, "INSERT INTO dom (k, o) VALUES ($1, $2::bytea)"},
		{"binary_parameters", bin, "INSERT INTO dom (k, o) VALUES ($1, $2)"},
	} {
		tx, err := c.db.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		stmt, err := tx.PrepareContext(ctx, c.sql)
		if err != nil {
			t.Fatal(err)
		}
		for i, o := range ids {
			keys[i] = nextKey()
			if _, err := stmt.ExecContext(ctx, keys[i], o); err != nil {
				t.Fatalf("%s: %s: %v", c.name, o, err)
			}
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		got := readBack(keys)
		for i, o := range ids {
			if got[keys[i]] != o.Hex() {
				t.Fatalf("%s: stored %q, want %s", c.name, got[keys[i]], o.Hex())
			}
		}
	}
}

func libpqState(err error) string {
	if e, ok := err.(*pq.Error); ok {
		return string(e.Code)
	}
	if s := sqlState(err); s != "" {
		return s
	}
	return "client error"
}

// hexStringValuer is what ObjectID.Value must not do: return text.
type hexStringValuer objectidtype.ObjectID

func (h hexStringValuer) Value() (driver.Value, error) {
	return `\x` + objectidtype.ObjectID(h).Hex(), nil
}

// Driver fact: lib/pq stores a string bound to a plain bytea parameter as
// its literal characters, so a Value() returning `\x4e70…` stores 26 bytes.
// ObjectID.Value returns the raw bytes and stores 12.
func TestLibPQStringIntoBytea(t *testing.T) {
	t.Parallel()
	sdb := openLibPQ(t, newDB(t, true))
	if _, err := sdb.Exec(driverTables); err != nil {
		t.Fatal(err)
	}
	o := objectidtype.MustParse("4e7020cb7cac81af7136236b")
	for _, c := range []struct {
		v    any
		want int
	}{{hexStringValuer(o), 26}, {o, 12}} {
		var n int
		if err := sdb.QueryRow("INSERT INTO plain (k, o) VALUES ($1, $2) RETURNING octet_length(o)", nextKey(), c.v).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != c.want {
			t.Errorf("%T into bytea with lib/pq: %d bytes stored, want %d", c.v, n, c.want)
		}
	}
}

// migrations, partition and tail need pgx's database/sql driver: a *sql.DB
// of lib/pq is refused with each package's error, naming pgx's driver. (The
// packages' own tests check the same with a stand-in driver, pgtest's
// ForeignDriver.)
func TestLibPQRefused(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dsn := newDB(t, true)
	mustExec(t, connect(t, dsn, pgx.QueryExecModeCacheStatement), "CREATE TABLE dbs (id pgid.objectid PRIMARY KEY) PARTITION BY RANGE (id)")
	pq := openLibPQ(t, dsn)
	if err := migrations.Up(ctx, pq); !errors.Is(err, migrations.ErrConn) || !strings.Contains(err.Error(), "pgx/v5/stdlib") {
		t.Errorf("Up through lib/pq: %v, want ErrConn naming pgx's driver", err)
	}
	if _, err := partition.List(ctx, pq, "dbs"); !errors.Is(err, partition.ErrPlan) || !strings.Contains(err.Error(), "needs pgx's driver") {
		t.Errorf("List over lib/pq: %v, want ErrPlan", err)
	}
	if err := tail.Disable(ctx, pq, "dbs"); err == nil || !strings.Contains(err.Error(), "pgx/v5/stdlib") {
		t.Errorf("tail.Disable over lib/pq: %v, want an error naming pgx's driver", err)
	}
}
