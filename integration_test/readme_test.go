package integration_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"log"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/pgid/pgid/migrations"
	"github.com/pgid/pgid/objectidtype"
	"github.com/pgid/pgid/opaque"
	"github.com/pgid/pgid/pgidpgx"
	"github.com/pgid/pgid/sqlc"
	"github.com/pgid/pgid/sqlc/pgxdb"
	"github.com/pgid/pgid/tail"
	"github.com/pgid/pgid/ulidtype"
)

// The Go blocks of the README and of the guides under docs/ are copies of
// code that compiles and runs: each block must stand, line for line
// (indentation aside), in this file, the other readme_*_test.go files,
// docs_test.go or the sqlc package it shows, and the functions there run
// the code against PostgreSQL. Change a block in the code first, then copy
// it to the Markdown file.

// TestReadmeGoBlocks fails when a Go block of README.md or docs/*.md is
// not in the code.
func TestReadmeGoBlocks(t *testing.T) {
	var readme []byte
	for _, name := range docFiles(t) {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		readme = append(readme, b...)
	}
	sources := []string{"readme_test.go", "readme_typeid_test.go", "readme_stduuid_test.go", "docs_test.go", "citus_test.go"}
	generated, err := filepath.Glob("../sqlc/pgxdb/*.go")
	if err != nil || len(generated) == 0 {
		t.Fatalf("sqlc/pgxdb: %v", err)
	}
	sources = append(sources, generated...)
	var code [][]string
	for _, name := range sources {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		code = append(code, codeLines(string(b)))
	}
	blocks := regexp.MustCompile("(?s)```go\n(.*?)```").FindAllStringSubmatch(string(readme), -1)
	if len(blocks) < 20 {
		t.Fatalf("%d Go blocks in README.md and docs/*.md; the test expects at least 20", len(blocks))
	}
	t.Logf("%d Go blocks of README.md and docs/*.md checked", len(blocks))
	for _, b := range blocks {
		want := codeLines(b[1])
		found := false
		for _, lines := range code {
			if containsRun(lines, want) {
				found = true
				break
			}
		}
		if !found {
			t.Errorf("Go block of README.md or docs/*.md not found in readme_*_test.go, docs_test.go, citus_test.go or sqlc/pgxdb (copy it from the code):\n%s", b[1])
		}
	}
}

// codeLines returns the non-blank lines of s without their indentation.
func codeLines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// containsRun reports whether want stands in lines as consecutive lines.
func containsRun(lines, want []string) bool {
	for i := 0; i+len(want) <= len(lines); i++ {
		j := 0
		for j < len(want) && lines[i+j] == want[j] {
			j++
		}
		if j == len(want) {
			return true
		}
	}
	return false
}

// readmeDB returns a migrated database with the README's events table.
func readmeDB(t *testing.T) string {
	t.Helper()
	dsn := newDB(t, true)
	conn := connect(t, dsn, pgx.QueryExecModeCacheStatement)
	if _, err := conn.Exec(context.Background(), "CREATE TABLE events (id pgid.ulid PRIMARY KEY, kind text NOT NULL)"); err != nil {
		t.Fatal(err)
	}
	return dsn
}

// Event is a row of the README's events table.
type Event struct {
	ID   ulidtype.ULID
	Kind string
}

// The first screen, on an empty database: a pool with AfterConnect, the
// migrations through it, the table, an insert and the last hour.
func TestReadmeFirstScreen(t *testing.T) {
	ctx := context.Background()
	t.Setenv("DATABASE_URL", newDB(t, false))

	// postgres://user:password@host:5432/database; empty, pgx would take libpq's defaults
	dsn := os.Getenv("DATABASE_URL")
	if dsn == "" {
		log.Fatal("DATABASE_URL is empty: which database should get schema pgid?")
	}
	cfg, err := pgxpool.ParseConfig(dsn)
	cfg.AfterConnect = pgidpgx.AfterConnect // IDs in binary; fine before migrations.Up too
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	err = migrations.Up(ctx, pool) // schema pgid (domains, functions); safe on every start
	st, err := migrations.ReadStatus(ctx, pool)
	log.Printf("schema pgid version %d in database %s on %s", st.Version, st.Database, st.Server)
	_, err = pool.Exec(ctx, "CREATE TABLE IF NOT EXISTS events (id pgid.ulid PRIMARY KEY, kind text NOT NULL)")

	id := ulidtype.New() // strictly increasing in the process, never fails
	_, err = pool.Exec(ctx, "INSERT INTO events (id, kind) VALUES ($1, $2)", id, "signup")

	since := ulidtype.Since(time.Now().Add(-time.Hour)) // the last hour, up to the newest row
	rows, err := pool.Query(ctx, "SELECT id, kind FROM events WHERE id >= $1 ORDER BY id", since)

	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	got, err := pgx.CollectRows(rows, pgx.RowToStructByPos[Event])
	if err != nil || len(got) != 1 || got[0].ID != id || got[0].Kind != "signup" {
		t.Fatalf("the last hour: %v, %v; want the row just inserted", got, err)
	}
	if st.Database != cfg.ConnConfig.Database || st.Version != migrations.Latest() || st.Server == "" {
		t.Errorf("the status it logs: version %d in database %q on %q; want %d in %q", st.Version, st.Database, st.Server, migrations.Latest(), cfg.ConnConfig.Database)
	}
}

// The pgx section's one line, and what it enables: a domain array.
func TestReadmePgxAfterConnect(t *testing.T) {
	ctx := context.Background()
	cfg, err := pgxpool.ParseConfig(readmeDB(t))
	if err != nil {
		t.Fatal(err)
	}
	cfg.AfterConnect = pgidpgx.AfterConnect // pgxpool; stdlib.OptionAfterConnect(pgidpgx.AfterConnect) for database/sql
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	ids := []ulidtype.ULID{ulidtype.New(), ulidtype.New()}
	var got []ulidtype.ULID
	if err := pool.QueryRow(ctx, "SELECT array_agg(x)::pgid.ulid[] FROM unnest($1::pgid.ulid[]) x", ids).Scan(&got); err != nil || len(got) != 2 || got[1] != ids[1] {
		t.Fatalf("domain array through the pool: %v, %v", got, err)
	}
}

// database/sql through pgx's stdlib, arrays included.
func TestReadmeDatabaseSQL(t *testing.T) {
	ctx := context.Background()
	t.Setenv("DATABASE_URL", readmeDB(t))
	want := ulidtype.New()
	if _, err := connect(t, os.Getenv("DATABASE_URL"), pgx.QueryExecModeExec).Exec(ctx, "INSERT INTO events VALUES ($1, 'x')", want); err != nil {
		t.Fatal(err)
	}

	cfg, err := pgx.ParseConfig(os.Getenv("DATABASE_URL"))
	db := stdlib.OpenDB(*cfg)
	var id ulidtype.ULID
	err = db.QueryRowContext(ctx, "SELECT id FROM events ORDER BY id DESC LIMIT 1").Scan(&id)

	var ids ulidtype.Slice // NullSlice if elements may be NULL; objectidtype.Slice for ObjectIDs
	err = db.QueryRowContext(ctx, "SELECT array_agg(id ORDER BY id) FROM events WHERE id = ANY($1)", ulidtype.Slice{id}).Scan(&ids)

	defer db.Close()
	if err != nil || id != want || len(ids) != 1 || ids[0] != want {
		t.Fatalf("database/sql: %s, %v, %v; want %s", id, ids, err, want)
	}
	var _ *sql.DB = db
}

// Migrations.
func TestReadmeMigrations(t *testing.T) {
	ctx := context.Background()
	dsn := newDB(t, false)

	conn, err := pgx.Connect(ctx, dsn) // or a *pgxpool.Pool, a *sql.DB of pgx's stdlib
	err = migrations.Up(ctx, conn)     // idempotent; recorded in pgid.schema_migrations

	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	v, err := migrations.Version(ctx, conn)
	var recorded int
	if err := conn.QueryRow(ctx, "SELECT max(version) FROM pgid.schema_migrations").Scan(&recorded); err != nil ||
		v != migrations.Latest() || recorded != v {
		t.Fatalf("version %d, recorded %d, %v; want %d", v, recorded, err, migrations.Latest())
	}
}

// Yesterday's rows by ID bounds, and keyset pagination over all rows.
func TestReadmeRangesAndPagination(t *testing.T) {
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, readmeDB(t))
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	// 250 rows yesterday and the day before, one every 10 minutes, and one now.
	start := time.Now().UTC().Truncate(24 * time.Hour).Add(-48 * time.Hour)
	var all []ulidtype.ULID
	for i := range 289 {
		at := start.Add(time.Duration(i) * 10 * time.Minute)
		all = append(all, ulidtype.NewGenerator(func() time.Time { return at }, nil).New())
	}
	all = append(all, ulidtype.New())
	for _, id := range all {
		if _, err := pool.Exec(ctx, "INSERT INTO events VALUES ($1, 'x')", id); err != nil {
			t.Fatal(err)
		}
	}

	// Rows created yesterday (UTC), by the primary key alone.
	day := time.Now().UTC().Truncate(24 * time.Hour).Add(-24 * time.Hour)
	lo, hi := ulidtype.Range(day, day.Add(24*time.Hour))
	rows, err := pool.Query(ctx, "SELECT id, kind FROM events WHERE id >= $1 AND id < $2 ORDER BY id", lo, hi)

	if err != nil {
		t.Fatal(err)
	}
	yesterday, err := pgx.CollectRows(rows, pgx.RowToStructByPos[Event])
	if err != nil || len(yesterday) != 144 || yesterday[0].ID != all[144] || yesterday[143].ID != all[287] {
		t.Fatalf("yesterday: %d rows, %v; want 144 from the 145th", len(yesterday), err)
	}

	var seen []ulidtype.ULID
	show := func(page []Event) {
		for _, e := range page {
			seen = append(seen, e.ID)
		}
	}

	cursor := ulidtype.MinAt(time.Now().Add(time.Minute)) // above every ID made so far
	for {
		rows, _ := pool.Query(ctx, "SELECT id, kind FROM events WHERE id < $1 ORDER BY id DESC LIMIT 100", cursor)
		page, err := pgx.CollectRows(rows, pgx.RowToStructByPos[Event])
		if err != nil || len(page) == 0 {
			break
		}
		show(page) // your code
		cursor = page[len(page)-1].ID
	}
	if len(seen) != len(all) {
		t.Fatalf("pagination saw %d rows, want %d", len(seen), len(all))
	}
	for i, id := range seen {
		if id != all[len(all)-1-i] {
			t.Fatalf("pagination row %d: %s, want %s", i, id, all[len(all)-1-i])
		}
	}
}

// The JSON forms.
func TestReadmeJSON(t *testing.T) {
	type Link struct {
		ID   objectidtype.ObjectID `json:"id"`   // "4e7020cb7cac81af7136236b"
		Code objectidtype.ShortID  `json:"code"` // "jD0wOTOIwqZNdydH", the same 12 bytes
		Last ulidtype.NullULID     `json:"last"` // null, or "01ARZ3NDEKTSV4RRFFQ69G5FAV"
	}
	o := objectidtype.MustParse("4e7020cb7cac81af7136236b")
	b, err := json.Marshal(Link{ID: o, Code: objectidtype.ShortID(o)})
	if want := `{"id":"4e7020cb7cac81af7136236b","code":"jD0wOTOIwqZNdydH","last":null}`; err != nil || string(b) != want {
		t.Fatalf("JSON %s, %v; want %s", b, err, want)
	}
	var back Link
	if err := json.Unmarshal([]byte(`{"id":"4e7020cb7cac81af7136236b","code":"jD0wOTOIwqZNdydH","last":"01ARZ3NDEKTSV4RRFFQ69G5FAV"}`), &back); err != nil ||
		back.ID != o || objectidtype.ObjectID(back.Code) != o || !back.Last.Valid || back.Last.ULID.String() != "01ARZ3NDEKTSV4RRFFQ69G5FAV" {
		t.Fatalf("back: %+v, %v", back, err)
	}
}

// The sqlc call the README shows.
func TestReadmeSqlc(t *testing.T) {
	ctx := context.Background()
	dsn := newDB(t, true)
	conn := connect(t, dsn, pgx.QueryExecModeCacheStatement)
	if _, err := conn.Exec(ctx, sqlc.Schema); err != nil {
		t.Fatal(err)
	}
	q := pgxdb.New(conn)
	from, to := time.Now().Add(-time.Hour), time.Now().Add(time.Hour)
	id := ulidtype.New()
	if _, err := q.CreateEvent(ctx, pgxdb.CreateEventParams{ID: id, Kind: "x"}); err != nil {
		t.Fatal(err)
	}

	lo, hi := ulidtype.Range(from, to)
	events, err := q.ListEventsInWindow(ctx, pgxdb.ListEventsInWindowParams{Lo: lo, Hi: hi})

	if err != nil || len(events) != 1 || events[0].ID != id {
		t.Fatalf("ListEventsInWindow: %v, %v", events, err)
	}
}

// TestReadmeOpaque runs the README's opaque-codes block: a code made in Go,
// read in Go, and the ID looked up with WHERE id = $1.
func TestReadmeOpaque(t *testing.T) {
	t.Setenv("PGID_OPAQUE_KEYS", "1:"+strings.Repeat("5a", 32)+"\n0:"+strings.Repeat("a5", 16))
	ctx := context.Background()
	conn := connect(t, newDB(t, true), pgx.QueryExecModeCacheStatement)
	if _, err := conn.Exec(ctx, "CREATE TABLE links (id pgid.objectid PRIMARY KEY, url text)"); err != nil {
		t.Fatal(err)
	}
	id, u := objectidtype.New(), ulidtype.New()
	wantID, wantU := id, u
	if _, err := conn.Exec(ctx, "INSERT INTO links VALUES ($1, 'https://example.com')", id); err != nil {
		t.Fatal(err)
	}

	// PGID_OPAQUE_KEYS: lines of "ID:hex", current key first (pgid new-key)
	cur, older, err := opaque.ParseKeys(os.Getenv("PGID_OPAQUE_KEYS"))
	codec, err := opaque.NewCodec(cur, older...)

	code := codec.ObjectIDCode(id) // 16 characters, Short()'s alphabet
	id, err = codec.OpenObjectID(code)
	ucode := codec.ULIDCode(u) // 26 Crockford characters
	u, err = codec.OpenULID(ucode)

	type link struct {
		Code opaque.PublicObjectID `json:"code"` // marshals as its code
	}
	b, err := json.Marshal(link{Code: codec.PublicObjectID(id)})

	if err != nil || len(older) != 1 || id != wantID || u != wantU {
		t.Fatalf("%v: %s %s", err, id, u)
	}
	var url string
	if err := conn.QueryRow(ctx, "SELECT url FROM links WHERE id = $1", id).Scan(&url); err != nil {
		t.Fatal(err)
	}
	if string(b) != `{"code":"`+code+`"}` || len(code) != 16 || len(ucode) != 26 {
		t.Errorf("JSON %s, code %q, ULID code %q", b, code, ucode)
	}
}

// The README's tailing block: three rows inserted, then delivered in order.
func TestReadmeTail(t *testing.T) {
	dsn := readmeDB(t)
	conn := connect(t, dsn, pgx.QueryExecModeCacheStatement)
	pool, err := pgxpool.New(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	var want []ulidtype.ULID
	for _, k := range []string{"signup", "login", "logout"} {
		id := ulidtype.New()
		if _, err := conn.Exec(context.Background(), "INSERT INTO events (id, kind) VALUES ($1, $2)", id, k); err != nil {
			t.Fatal(err)
		}
		want = append(want, id)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var saved ulidtype.ULID // the zero ID: from the first row
	var got []ulidtype.ULID
	handle := func(ctx context.Context, rows []tail.Row[ulidtype.ULID]) error {
		for _, r := range rows {
			got = append(got, r.ID)
		}
		if len(got) >= len(want) {
			cancel()
		}
		return nil
	}

	{
		err := tail.Enable(ctx, conn, "events", 2*time.Second) // once, as the table's owner

		tl, err := tail.New(pool, tail.Config[ulidtype.ULID]{Table: "events", After: saved})
		err = tl.Run(ctx, func(ctx context.Context, rows []tail.Row[ulidtype.ULID]) error {
			return handle(ctx, rows) // rows[i].ID, rows[i].JSON; save rows[len(rows)-1].ID
		})

		if !errors.Is(err, context.Canceled) || !slices.Equal(got, want) || tl.Cursor() != want[2] {
			t.Fatalf("Run: %v; got %v, want %v", err, got, want)
		}
	}
}
