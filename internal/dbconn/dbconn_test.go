package dbconn

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	_ "github.com/jackc/pgx/v5/stdlib" // registers the driver "pgx"
)

// dsn is the server the tests use: $DATABASE_URL, else the local one.
func dsn(t *testing.T) string {
	t.Helper()
	if s := os.Getenv("DATABASE_URL"); s != "" {
		return s
	}
	s := "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
	c, err := pgx.Connect(context.Background(), s)
	if err != nil {
		t.Skipf("no DATABASE_URL and no server at %s: %v", s, err)
	}
	c.Close(context.Background())
	return s
}

var errOwn = errors.New("own: invalid")

var caller = Caller{Name: "own", Err: errOwn}

// pid runs through Run and returns the backend pid of the connection f got.
func pid[D DB](t *testing.T, db D) int32 {
	t.Helper()
	var p int32
	err := Run(context.Background(), caller, db, func(c *pgx.Conn) error {
		return c.QueryRow(context.Background(), "SELECT pg_catalog.pg_backend_pid()").Scan(&p)
	})
	if err != nil || p == 0 {
		t.Fatalf("Run(%T): pid %d, %v", db, p, err)
	}
	return p
}

// Each kind of handle gives f a working connection: the *pgx.Conn itself,
// the same pooled one each time from a pool of one, the pgx connection
// under a *sql.Conn.
func TestRunEachKind(t *testing.T) {
	ctx := context.Background()
	url := dsn(t)
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if got, want := pid(t, conn), int32(conn.PgConn().PID()); got != want {
		t.Errorf("*pgx.Conn: f ran on pid %d, want the conn's own %d", got, want)
	}

	pool, err := pgxpool.New(ctx, url+"&pool_max_conns=1")
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	if a, b := pid(t, pool), pid(t, pool); a != b {
		t.Errorf("*pgxpool.Pool of one: pids %d then %d, want the connection released and reused", a, b)
	}
	if n := pool.Stat().AcquiredConns(); n != 0 {
		t.Errorf("*pgxpool.Pool: %d connections still acquired after Run", n)
	}

	db, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	pid(t, db)
	if n := db.Stats().InUse; n != 0 {
		t.Errorf("*sql.DB: %d connections in use after Run, want it given back", n)
	}
	db.SetMaxOpenConns(2)
	sc, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	var want int32
	if err := sc.QueryRowContext(ctx, "SELECT pg_catalog.pg_backend_pid()").Scan(&want); err != nil {
		t.Fatal(err)
	}
	if got := pid(t, sc); got != want {
		t.Errorf("*sql.Conn: f ran on pid %d, want the sql.Conn's %d", got, want)
	}

	// f's own error comes back unchanged, from every kind.
	boom := errors.New("boom")
	for _, err := range []error{
		Run(ctx, caller, conn, func(*pgx.Conn) error { return boom }),
		Run(ctx, caller, pool, func(*pgx.Conn) error { return boom }),
		Run(ctx, caller, db, func(*pgx.Conn) error { return boom }),
		Run(ctx, caller, sc, func(*pgx.Conn) error { return boom }),
	} {
		if err != boom {
			t.Errorf("f's error: %v, want it unchanged", err)
		}
	}
}

// A nil handle of each kind is refused with ErrConn and the caller's
// sentinel, naming the type, and f does not run.
func TestRunNil(t *testing.T) {
	ctx := context.Background()
	f := func(*pgx.Conn) error { t.Error("f ran on a nil handle"); return nil }
	for _, err := range []error{
		Run(ctx, caller, (*pgx.Conn)(nil), f),
		Run(ctx, caller, (*pgxpool.Pool)(nil), f),
		Run(ctx, caller, (*sql.DB)(nil), f),
		Run(ctx, caller, (*sql.Conn)(nil), f),
		Check(caller, (*pgxpool.Pool)(nil)),
	} {
		if !errors.Is(err, ErrConn) || !errors.Is(err, errOwn) || !strings.HasPrefix(err.Error(), "own: unusable connection: nil *") {
			t.Errorf("nil handle: %v, want ErrConn and the caller's sentinel, naming the type", err)
		}
	}
	if err := Run(ctx, Caller{Name: "x"}, (*pgx.Conn)(nil), f); !errors.Is(err, ErrConn) {
		t.Errorf("Caller without a sentinel: %v, want ErrConn", err)
	}
	if err := Check(caller, &pgx.Conn{}); err != nil {
		t.Errorf("Check of a non-nil handle: %v", err)
	}
}

// fakeDriver is a database/sql driver that is not pgx's.
type fakeDriver struct{}

type fakeConn struct{}

func (fakeDriver) Open(string) (driver.Conn, error)  { return fakeConn{}, nil }
func (fakeConn) Prepare(string) (driver.Stmt, error) { return nil, errors.New("no") }
func (fakeConn) Close() error                        { return nil }
func (fakeConn) Begin() (driver.Tx, error)           { return nil, errors.New("no") }

func init() { sql.Register("pgid-dbconn-fake", fakeDriver{}) }

// A database/sql handle over another driver is refused, naming the
// driver's connection type and pgx's stdlib, and f does not run.
func TestRunForeignDriver(t *testing.T) {
	ctx := context.Background()
	db, err := sql.Open("pgid-dbconn-fake", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	sc, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	f := func(*pgx.Conn) error { t.Error("f ran over a foreign driver"); return nil }
	for _, err := range []error{Run(ctx, caller, db, f), Run(ctx, caller, sc, f)} {
		if !errors.Is(err, ErrConn) || !errors.Is(err, errOwn) ||
			!strings.Contains(err.Error(), "dbconn.fakeConn") || !strings.Contains(err.Error(), "github.com/jackc/pgx/v5/stdlib") {
			t.Errorf("foreign driver: %v, want ErrConn naming the driver's type and pgx's stdlib", err)
		}
	}
}

// Idle passes a connection outside a transaction and refuses one inside
// (and one in a failed transaction), saying why.
func TestIdle(t *testing.T) {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn(t))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if err := caller.Idle(conn, "why"); err != nil {
		t.Fatalf("outside a transaction: %v", err)
	}
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	err = caller.Idle(conn, "each step commits its own")
	if !errors.Is(err, ErrConn) || !errors.Is(err, errOwn) || !strings.Contains(err.Error(), "in a transaction (status 'T'); each step commits its own") {
		t.Errorf("in a transaction: %v", err)
	}
	_, _ = tx.Exec(ctx, "SELECT 1/0")
	if err := caller.Idle(conn, "why"); !errors.Is(err, ErrConn) || !strings.Contains(err.Error(), "status 'E'") {
		t.Errorf("in a failed transaction: %v", err)
	}
}

// Map turns a server error with a mapped SQLSTATE into an *Error that
// matches the sentinel and unwraps to the *pgconn.PgError, with the
// sentinel's text, the server's message, DETAIL and HINT; with the
// caller's context when the server error came wrapped; others unchanged.
func TestMap(t *testing.T) {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn(t))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	_, raised := conn.Exec(ctx, `DO $$ BEGIN RAISE EXCEPTION 'table t is odd' USING ERRCODE = 'PGZ99', DETAIL = 'line 1'||chr(10)||'line 2', HINT = 'fix it'; END $$`)
	var pg *pgconn.PgError
	if !errors.As(raised, &pg) || pg.Code != "PGZ99" {
		t.Fatalf("raise: %v", raised)
	}
	states := States{}
	errOdd := states.New("PGZ99", "own: odd table")
	if states["PGZ99"] != errOdd || errOdd.Error() != "own: odd table" {
		t.Fatalf("States.New: %v, %v", states, errOdd)
	}

	err = Map(raised, states)
	var e *Error
	if !errors.As(err, &e) || e.Kind != errOdd || e.PG != pg || !errors.Is(err, errOdd) {
		t.Fatalf("Map: %#v, want an *Error of errOdd and the server's error", err)
	}
	if !errors.As(err, new(*pgconn.PgError)) {
		t.Errorf("Map: %v does not unwrap to the *pgconn.PgError", err)
	}
	if want := "own: odd table: table t is odd (detail: line 1; line 2) (hint: fix it)"; err.Error() != want {
		t.Errorf("Map: %q, want %q", err, want)
	}

	wrapped := fmt.Errorf("own: step 2: %w", raised)
	err = Map(wrapped, states)
	if !errors.Is(err, errOdd) || !errors.As(err, &pg) || !errors.Is(err, wrapped) ||
		err.Error() != "own: odd table: own: step 2: "+raised.Error() {
		t.Errorf("Map of a wrapped server error: %q, want the sentinel then the caller's context", err)
	}
	if again := Map(err, states); again != err {
		t.Errorf("Map of an error that matches the sentinel already: %v, want it unchanged", again)
	}
	if got := Map(raised, States{"42501": errOwn}); got != raised {
		t.Errorf("Map of an unmapped SQLSTATE: %v, want it unchanged", got)
	}
	if e := Match(raised, nil); e != nil {
		t.Errorf("Match with no states: %v", e)
	}
	plain := errors.New("not the server's")
	if got := Map(plain, states); got != plain {
		t.Errorf("Map of a non-server error: %v", got)
	}

	if got := WithDetail(raised).Error(); got != raised.Error()+" (detail: line 1; line 2) (hint: fix it)" {
		t.Errorf("WithDetail: %q", got)
	}
	if got := WithDetail(plain); got != plain {
		t.Errorf("WithDetail of a non-server error: %v", got)
	}
}

// Kind names round-trip as pgid's SQL writes them.
func TestKind(t *testing.T) {
	for _, c := range []struct {
		k         Kind
		name, sql string
	}{{AnyKind, "any", ""}, {ULID, "ulid", "uuid"}, {ObjectID, "objectid", "bytea"}} {
		if c.k.String() != c.name || c.k.SQLType() != c.sql {
			t.Errorf("%d: %q %q, want %q %q", c.k, c.k.String(), c.k.SQLType(), c.name, c.sql)
		}
		for _, s := range []string{c.name, strings.ToUpper(c.name)} {
			if k, ok := ParseKind(s); !ok || k != c.k {
				t.Errorf("ParseKind(%q) = %v, %v", s, k, ok)
			}
		}
	}
	for _, s := range []string{"", "auto"} {
		if k, ok := ParseKind(s); !ok || k != AnyKind {
			t.Errorf("ParseKind(%q) = %v, %v; want AnyKind", s, k, ok)
		}
	}
	if _, ok := ParseKind("uuid"); ok {
		t.Error("ParseKind(uuid) accepted")
	}
	if s := Kind(7).String(); s != "Kind(7)" {
		t.Errorf("Kind(7) = %q", s)
	}
}

// LockClass is "pgid" in ASCII, the classid pg_locks shows.
func TestLockClass(t *testing.T) {
	if LockClass != 1885825380 || string([]byte{LockClass >> 24, LockClass >> 16 & 0xff, LockClass >> 8 & 0xff, LockClass & 0xff}) != "pgid" {
		t.Errorf("LockClass = %d", LockClass)
	}
}
