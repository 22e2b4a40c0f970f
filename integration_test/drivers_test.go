package integration_test

import (
	"context"
	"crypto/md5"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/pgid/pgid/objectidtype"
	"github.com/pgid/pgid/pgidpgx"
	"github.com/pgid/pgid/ulidtype"
)

// The tables every driver test writes to: plain base types and the pgid
// domains, with an int key so IDs can be NULL.
const driverTables = `
	CREATE TABLE plain (k int PRIMARY KEY, u uuid, o bytea);
	CREATE TABLE dom (k int PRIMARY KEY, u pgid.ulid, o pgid.objectid);`

var tables = []string{"plain", "dom"}

// specialObjectIDs hold the bytes that break text encodings of bytea: 0x00,
// 0x5C (backslash, also as "\x" and "\000" prefixes), 0x27 (quote), 0x22,
// invalid UTF-8.
var specialObjectIDs = []objectidtype.ObjectID{
	objectidtype.MustParse("000000000000000000000000"),
	objectidtype.MustParse("4e7020cb7c0081af7136236b"),
	objectidtype.MustParse("4e7020cb7c5c81af7136236b"),
	objectidtype.MustParse("4e7020cb5c3030307136236b"),
	objectidtype.MustParse("5c784e7020cb7c2781af7136"),
	objectidtype.MustParse("4e7020cb7c2781af7136236b"),
	objectidtype.MustParse("27275c5c00002222ffff8080"),
	objectidtype.MustParse("4142434445464748494a4b4c"),
	objectidtype.MustParse("ffffffffffffffffffffffff"),
	// Valid UTF-8 text, so only the backslash matters to a text encoding:
	// "AB\000CDEFGH", "\x4e7020cb7c", "A\\BCDEFGHIJ", "A\BCDEFGHIJK",
	// "it's 'quoted'".
	objectidtype.MustParse("41425c303030434445464748"),
	objectidtype.MustParse("5c7834653730323063623763"),
	objectidtype.MustParse("415c5c424344454647484950"),
	objectidtype.MustParse("415c42434445464748494a4b"),
	objectidtype.MustParse("69742773202771756f746564"),
}

var specialULIDs = []ulidtype.ULID{
	{},
	ulidtype.MustParse("7ZZZZZZZZZZZZZZZZZZZZZZZZZ"),
	ulidtype.MustParse("01ARZ3NDEKTSV4RRFFQ69G5FAV"),
}

// db is what the shared checks need from a driver: pgx.Conn, pgxpool.Pool
// and database/sql.DB (over pgx stdlib or lib/pq) adapt to it.
type db interface {
	exec(ctx context.Context, sql string, args ...any) error
	queryRow(ctx context.Context, sql string, args ...any) interface{ Scan(...any) error }
}

type pgxQuerier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

type pgxDB struct{ q pgxQuerier }

func (d pgxDB) exec(ctx context.Context, sql string, args ...any) error {
	_, err := d.q.Exec(ctx, sql, args...)
	return err
}

func (d pgxDB) queryRow(ctx context.Context, sql string, args ...any) interface{ Scan(...any) error } {
	return d.q.QueryRow(ctx, sql, args...)
}

type sqlDB struct{ *sql.DB }

func (d sqlDB) exec(ctx context.Context, sql string, args ...any) error {
	_, err := d.ExecContext(ctx, sql, args...)
	return err
}

func (d sqlDB) queryRow(ctx context.Context, sql string, args ...any) interface{ Scan(...any) error } {
	return d.QueryRowContext(ctx, sql, args...)
}

var rowKey atomic.Int64

func nextKey() int64 { return rowKey.Add(1) }

// stored returns what the database holds in row k of table: u as UUID text,
// o as hex, "NULL" for NULL. It reads text, so it shows what was stored
// independently of how the driver scans.
func stored(t *testing.T, d db, table string, k int64) (u, o string) {
	t.Helper()
	err := d.queryRow(context.Background(),
		"SELECT coalesce(u::text, 'NULL'), coalesce(encode(o, 'hex'), 'NULL') FROM "+table+" WHERE k = $1", k).Scan(&u, &o)
	if err != nil {
		t.Fatalf("read back row %d of %s: %v", k, table, err)
	}
	return u, o
}

// checkRoundTrips runs the operations every driver must support on both
// tables: insert and select, RETURNING, NULL through pointers, NullULID /
// NullObjectID, sql.Null[T], plain T refusing NULL, and the special bytes.
func checkRoundTrips(t *testing.T, d db, tables ...string) {
	ctx := context.Background()
	for _, table := range tables {
		t.Run(table, func(t *testing.T) {
			ins := "INSERT INTO " + table + " (k, u, o) VALUES ($1, $2, $3)"
			sel := "SELECT u, o FROM " + table + " WHERE k = $1"

			// Insert and select, with every special ObjectId and ULID.
			for i, o := range specialObjectIDs {
				u := ulidtype.New()
				if i < len(specialULIDs) {
					u = specialULIDs[i]
				}
				k := nextKey()
				if err := d.exec(ctx, ins, k, u, o); err != nil {
					t.Fatalf("insert %s, %s: %v", u, o, err)
				}
				if su, so := stored(t, d, table, k); su != u.UUIDString() || so != o.Hex() {
					t.Fatalf("stored %s, %s; want %s, %s", su, so, u.UUIDString(), o.Hex())
				}
				var gu ulidtype.ULID
				var gotO objectidtype.ObjectID
				if err := d.queryRow(ctx, sel, k).Scan(&gu, &gotO); err != nil {
					t.Fatalf("select: %v", err)
				}
				if gu != u || gotO != o {
					t.Fatalf("select: %s, %s; want %s, %s", gu, gotO, u, o)
				}
				// The ID as a parameter of a WHERE clause finds the row.
				var n int
				if err := d.queryRow(ctx, "SELECT count(*) FROM "+table+" WHERE u = $1 AND o = $2 AND k = $3", u, o, k).Scan(&n); err != nil || n != 1 {
					t.Fatalf("WHERE u = $1 AND o = $2 (%s, %s): %d rows, %v", u, o, n, err)
				}
			}

			// RETURNING.
			u, o := ulidtype.New(), objectidtype.New()
			var ru ulidtype.ULID
			var ro objectidtype.ObjectID
			if err := d.queryRow(ctx, ins+" RETURNING u, o", nextKey(), u, o).Scan(&ru, &ro); err != nil || ru != u || ro != o {
				t.Fatalf("RETURNING: %s, %s, %v; want %s, %s", ru, ro, err, u, o)
			}

			// NULL through pointers.
			k := nextKey()
			if err := d.exec(ctx, ins, k, (*ulidtype.ULID)(nil), (*objectidtype.ObjectID)(nil)); err != nil {
				t.Fatalf("insert nil pointers: %v", err)
			}
			if su, so := stored(t, d, table, k); su != "NULL" || so != "NULL" {
				t.Fatalf("nil pointers stored %s, %s", su, so)
			}
			pu, po := &ulidtype.ULID{1}, &objectidtype.ObjectID{1}
			if err := d.queryRow(ctx, sel, k).Scan(&pu, &po); err != nil || pu != nil || po != nil {
				t.Fatalf("NULL into pointers: %v, %v, %v", pu, po, err)
			}
			var plainU ulidtype.ULID
			err := d.queryRow(ctx, "SELECT u FROM "+table+" WHERE k = $1", k).Scan(&plainU)
			if !errors.Is(err, ulidtype.ErrNull) {
				t.Errorf("NULL into ULID: %v, want ErrNull", err)
			}
			var plainO objectidtype.ObjectID
			err = d.queryRow(ctx, "SELECT o FROM "+table+" WHERE k = $1", k).Scan(&plainO)
			if !errors.Is(err, objectidtype.ErrNull) {
				t.Errorf("NULL into ObjectID: %v, want ErrNull", err)
			}
			k = nextKey()
			if err := d.exec(ctx, ins, k, &u, &o); err != nil {
				t.Fatalf("insert pointers: %v", err)
			}
			if err := d.queryRow(ctx, sel, k).Scan(&pu, &po); err != nil || pu == nil || po == nil || *pu != u || *po != o {
				t.Fatalf("pointers: %v, %v, %v; want %s, %s", pu, po, err, u, o)
			}

			// NullULID / NullObjectID.
			for _, valid := range []bool{false, true} {
				k := nextKey()
				nu := ulidtype.NullULID{ULID: u, Valid: valid}
				no := objectidtype.NullObjectID{ObjectID: o, Valid: valid}
				if err := d.exec(ctx, ins, k, nu, no); err != nil {
					t.Fatalf("insert Null types (valid %v): %v", valid, err)
				}
				wantU, wantO := "NULL", "NULL"
				if valid {
					wantU, wantO = u.UUIDString(), o.Hex()
				}
				if su, so := stored(t, d, table, k); su != wantU || so != wantO {
					t.Fatalf("Null types (valid %v) stored %s, %s", valid, su, so)
				}
				gu := ulidtype.NullULID{ULID: ulidtype.ULID{9}, Valid: !valid}
				gotO := objectidtype.NullObjectID{ObjectID: objectidtype.ObjectID{9}, Valid: !valid}
				if err := d.queryRow(ctx, sel, k).Scan(&gu, &gotO); err != nil {
					t.Fatalf("scan Null types: %v", err)
				}
				if gu.Valid != valid || gotO.Valid != valid || valid && (gu.ULID != u || gotO.ObjectID != o) {
					t.Fatalf("Null types (valid %v): %+v, %+v", valid, gu, gotO)
				}
			}

			// sql.Null[T].
			for _, valid := range []bool{false, true} {
				k := nextKey()
				nu := sql.Null[ulidtype.ULID]{V: u, Valid: valid}
				no := sql.Null[objectidtype.ObjectID]{V: o, Valid: valid}
				if err := d.exec(ctx, ins, k, nu, no); err != nil {
					t.Fatalf("insert sql.Null (valid %v): %v", valid, err)
				}
				wantU, wantO := "NULL", "NULL"
				if valid {
					wantU, wantO = u.UUIDString(), o.Hex()
				}
				if su, so := stored(t, d, table, k); su != wantU || so != wantO {
					t.Fatalf("sql.Null (valid %v) stored %s, %s", valid, su, so)
				}
				var gu sql.Null[ulidtype.ULID]
				var gotO sql.Null[objectidtype.ObjectID]
				if err := d.queryRow(ctx, sel, k).Scan(&gu, &gotO); err != nil {
					t.Fatalf("scan sql.Null: %v", err)
				}
				if gu.Valid != valid || gotO.Valid != valid || valid && (gu.V != u || gotO.V != o) {
					t.Fatalf("sql.Null (valid %v): %+v, %+v", valid, gu, gotO)
				}
			}
		})
	}
}

// checkArrays checks = ANY($1) with slices and array_agg into slices with a
// pgx connection, pool or database/sql over pgx.
func checkArrays(t *testing.T, d db, scanArray func(dst any) any) {
	ctx := context.Background()
	for _, table := range tables {
		t.Run(table, func(t *testing.T) {
			us := []ulidtype.ULID{ulidtype.New(), ulidtype.New(), ulidtype.New()}
			os := append([]objectidtype.ObjectID{objectidtype.New()}, specialObjectIDs[1:3]...)
			group := nextKey()
			for i := range us {
				if err := d.exec(ctx, "INSERT INTO "+table+" (k, u, o) VALUES ($1, $2, $3)", group*1000+int64(i), us[i], os[i]); err != nil {
					t.Fatal(err)
				}
			}
			var n int
			if err := d.queryRow(ctx, "SELECT count(*) FROM "+table+" WHERE u = ANY($1) AND o = ANY($2)",
				[]ulidtype.ULID{us[0], us[2], ulidtype.New()}, []objectidtype.ObjectID{os[0], os[2], objectidtype.New()}).Scan(&n); err != nil || n != 2 {
				t.Fatalf("= ANY($1) with slices: %d rows, %v; want 2", n, err)
			}
			var gotU []ulidtype.ULID
			var gotO []objectidtype.ObjectID
			err := d.queryRow(ctx, "SELECT array_agg(u ORDER BY k), array_agg(o ORDER BY k) FROM "+table+" WHERE k / 1000 = $1", group).
				Scan(scanArray(&gotU), scanArray(&gotO))
			if err != nil {
				t.Fatalf("array_agg: %v", err)
			}
			if fmt.Sprint(gotU) != fmt.Sprint(us) || fmt.Sprint(gotO) != fmt.Sprint(os) {
				t.Fatalf("array_agg: %v %v; want %v %v", gotU, gotO, us, os)
			}
		})
	}
}

func identity(dst any) any { return dst }

var allModes = []pgx.QueryExecMode{
	pgx.QueryExecModeCacheStatement,
	pgx.QueryExecModeCacheDescribe,
	pgx.QueryExecModeDescribeExec,
	pgx.QueryExecModeExec,
	pgx.QueryExecModeSimpleProtocol,
}

func modeName(m pgx.QueryExecMode) string { return strings.ReplaceAll(m.String(), " ", "_") }

// pgx, each QueryExecMode, a connection set up with pgidpgx.AfterConnect.
func TestPgx(t *testing.T) {
	t.Parallel()
	dsn := newDB(t, true)
	setup := connect(t, dsn, pgx.QueryExecModeCacheStatement)
	if _, err := setup.Exec(context.Background(), driverTables); err != nil {
		t.Fatal(err)
	}
	for _, mode := range allModes {
		t.Run(modeName(mode), func(t *testing.T) {
			conn := connect(t, dsn, mode)
			if err := pgidpgx.AfterConnect(context.Background(), conn); err != nil {
				t.Fatal(err)
			}
			d := pgxDB{conn}
			t.Run("roundtrip", func(t *testing.T) { checkRoundTrips(t, d, tables...) })
			t.Run("arrays", func(t *testing.T) { checkArrays(t, d, identity) })
			t.Run("batch", func(t *testing.T) { checkBatch(t, conn) })
		})
	}
}

// checkBatch queues inserts and selects of both tables in one pgx.Batch.
func checkBatch(t *testing.T, conn *pgx.Conn) {
	ctx := context.Background()
	b := &pgx.Batch{}
	const n = 50
	us := make([]ulidtype.ULID, n)
	os := make([]objectidtype.ObjectID, n)
	group := nextKey()
	for i := range n {
		us[i], os[i] = ulidtype.New(), specialObjectIDs[i%len(specialObjectIDs)]
		for _, table := range tables {
			b.Queue("INSERT INTO "+table+" (k, u, o) VALUES ($1, $2, $3)", group*1000+int64(i), us[i], os[i])
		}
	}
	for _, table := range tables {
		b.Queue("SELECT u, o FROM "+table+" WHERE k / 1000 = $1 ORDER BY k", group)
	}
	br := conn.SendBatch(ctx, b)
	for range 2 * n {
		if _, err := br.Exec(); err != nil {
			t.Fatalf("batch insert: %v", err)
		}
	}
	for _, table := range tables {
		rows, err := br.Query()
		if err != nil {
			t.Fatal(err)
		}
		i := 0
		for rows.Next() {
			var u ulidtype.ULID
			var o objectidtype.ObjectID
			if err := rows.Scan(&u, &o); err != nil {
				t.Fatal(err)
			}
			if u != us[i] || o != os[i] {
				t.Fatalf("batch %s row %d: %s %s, want %s %s", table, i, u, o, us[i], os[i])
			}
			i++
		}
		if rows.Err() != nil || i != n {
			t.Fatalf("batch %s: %d rows, %v", table, i, rows.Err())
		}
	}
	if err := br.Close(); err != nil {
		t.Fatal(err)
	}
}

// pgxpool with pgidpgx.AfterConnect.
func TestPgxpool(t *testing.T) {
	t.Parallel()
	dsn := newDB(t, true)
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	cfg.AfterConnect = pgidpgx.AfterConnect
	cfg.MaxConns = 4
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	if _, err := pool.Exec(context.Background(), driverTables); err != nil {
		t.Fatal(err)
	}
	d := pgxDB{pool}
	t.Run("roundtrip", func(t *testing.T) { checkRoundTrips(t, d, tables...) })
	t.Run("arrays", func(t *testing.T) { checkArrays(t, d, identity) })
	t.Run("batch", func(t *testing.T) {
		conn, err := pool.Acquire(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Release()
		checkBatch(t, conn.Conn())
	})
}

// CopyFrom of 100,000 rows into plain and domain columns, on a connection
// with no registration at all: COPY is binary with the base types' OIDs.
func TestPgxCopyFrom(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	conn := connect(t, newDB(t, true), pgx.QueryExecModeCacheStatement)
	if _, err := conn.Exec(ctx, driverTables); err != nil {
		t.Fatal(err)
	}
	const n = 100_000
	us := make([]ulidtype.ULID, n)
	ulidtype.Fill(us)
	os := make([]objectidtype.ObjectID, n)
	objectidtype.Fill(os)
	copy(os, specialObjectIDs)
	var text strings.Builder
	for i := range n {
		fmt.Fprintf(&text, "%s %s,", us[i].UUIDString(), os[i].Hex())
	}
	want := md5.Sum([]byte(text.String()))
	for _, table := range tables {
		rows := make([][]any, n)
		for i := range rows {
			rows[i] = []any{i, us[i], os[i]}
		}
		got, err := conn.CopyFrom(ctx, pgx.Identifier{table}, []string{"k", "u", "o"}, pgx.CopyFromRows(rows))
		if err != nil || got != n {
			t.Fatalf("CopyFrom %s: %d rows, %v", table, got, err)
		}
		// What was stored, as text, hashed in SQL and in Go.
		var sum string
		if err := conn.QueryRow(ctx, "SELECT md5(string_agg(u::text || ' ' || encode(o, 'hex'), ',' ORDER BY k) || ',') FROM "+table).Scan(&sum); err != nil {
			t.Fatal(err)
		}
		if sum != hex.EncodeToString(want[:]) {
			t.Fatalf("CopyFrom %s: stored data differ from what was sent", table)
		}
		var distinct int
		if err := conn.QueryRow(ctx, "SELECT count(DISTINCT u) + count(DISTINCT o) FROM "+table).Scan(&distinct); err != nil || distinct != 2*n {
			t.Fatalf("CopyFrom %s: %d distinct IDs, %v", table, distinct, err)
		}
	}
}

// database/sql over pgx's stdlib, with AfterConnect for the domains.
func TestStdlib(t *testing.T) {
	t.Parallel()
	dsn := newDB(t, true)
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	sdb := stdlib.OpenDB(*cfg, stdlib.OptionAfterConnect(pgidpgx.AfterConnect))
	defer sdb.Close()
	if _, err := sdb.Exec(driverTables); err != nil {
		t.Fatal(err)
	}
	d := sqlDB{sdb}
	t.Run("roundtrip", func(t *testing.T) { checkRoundTrips(t, d, tables...) })
	// Array parameters pass through to pgx unchanged. Array results arrive
	// as text; a pgtype.Map's SQLScanner parses them into a slice once the
	// map knows the slice type (pgidpgx.Register), domain arrays included.
	m := pgtype.NewMap()
	pgidpgx.Register(m)
	t.Run("arrays", func(t *testing.T) { checkArrays(t, d, func(dst any) any { return m.SQLScanner(dst) }) })

	// Driver fact: uuid results reach Scan as a 36-character string, bytea as
	// the raw bytes, for plain and domain columns alike.
	u, o := ulidtype.New(), specialObjectIDs[6]
	for _, table := range tables {
		k := nextKey()
		if err := d.exec(context.Background(), "INSERT INTO "+table+" (k, u, o) VALUES ($1, $2, $3)", k, u, o); err != nil {
			t.Fatal(err)
		}
		var su, so any
		if err := sdb.QueryRow("SELECT u, o FROM "+table+" WHERE k = $1", k).Scan(&su, &so); err != nil {
			t.Fatal(err)
		}
		if s, ok := su.(string); !ok || s != u.UUIDString() {
			t.Errorf("%s: uuid reached Scan as %T %v, want the 36-character string", table, su, su)
		}
		if b, ok := so.([]byte); !ok || string(b) != string(o[:]) {
			t.Errorf("%s: bytea reached Scan as %T %v, want the 12 raw bytes", table, so, so)
		}
	}
}
