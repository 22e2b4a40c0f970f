package integration_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/pgid/pgid/pgidpgx"
	"github.com/pgid/pgid/typeid"
	"github.com/pgid/pgid/ulidtype"
)

type (
	tidUser   struct{}
	tidNone   struct{}
	tidSnake  struct{}
	tidLong   struct{}
	tidPrefix struct{}
)

func (tidUser) Prefix() string   { return "user" }
func (tidNone) Prefix() string   { return "" }
func (tidSnake) Prefix() string  { return "pre_fix" }
func (tidLong) Prefix() string   { return strings.Repeat("abcdefghi", 7) }
func (tidPrefix) Prefix() string { return "prefix" }

type userID = typeid.ID[tidUser]

// tidCase holds, for one prefix type, what Go makes of an ID and of a text.
type tidCase struct {
	prefix string
	text   func(u ulidtype.ULID) string
	parse  func(s string) (ulidtype.ULID, error)
}

func tidCaseFor[P typeid.Prefix]() tidCase {
	var p P
	return tidCase{
		prefix: p.Prefix(),
		text:   func(u ulidtype.ULID) string { return typeid.FromULID[P](u).String() },
		parse: func(s string) (ulidtype.ULID, error) {
			id, err := typeid.Parse[P](s)
			return id.ULID(), err
		},
	}
}

var tidCases = []tidCase{tidCaseFor[tidUser](), tidCaseFor[tidNone](), tidCaseFor[tidSnake](), tidCaseFor[tidLong](), tidCaseFor[tidPrefix]()}

// TestTypeIDFunctionsAgreeWithGo: pgid.typeid_text and pgid.typeid_uuid
// give what Go's typeid.ID String and Parse give on 10,000 random 128-bit
// values (any version) under five prefixes, the 63-character maximum among
// them.
func TestTypeIDFunctionsAgreeWithGo(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	conn := connect(t, newDB(t, true), pgx.QueryExecModeCacheStatement)
	ids := randomULIDs(agreeN)
	prefixes, texts := make([]string, len(ids)), make([]string, len(ids))
	for i, u := range ids {
		c := tidCases[i%len(tidCases)]
		prefixes[i], texts[i] = c.prefix, c.text(u)
	}
	rows, err := conn.Query(ctx, `
		SELECT pgid.typeid_text(p, u), pgid.typeid_uuid(s, p), pgid.typeid_uuid(pgid.typeid_text(p, u), p)
		FROM ROWS FROM (unnest($1::uuid[]), unnest($2::text[]), unnest($3::text[])) WITH ORDINALITY AS x(u, p, s, i)
		ORDER BY i`, ids, prefixes, texts)
	if err != nil {
		t.Fatal(err)
	}
	i := 0
	for rows.Next() {
		var text string
		var fromGo, roundTrip ulidtype.ULID
		if err := rows.Scan(&text, &fromGo, &roundTrip); err != nil {
			t.Fatal(err)
		}
		if text != texts[i] || fromGo != ids[i] || roundTrip != ids[i] {
			t.Fatalf("%s with prefix %q: SQL text %q (Go %q), SQL parses Go's text as %s, its own as %s",
				ids[i].UUIDString(), prefixes[i], text, texts[i], fromGo.UUIDString(), roundTrip.UUIDString())
		}
		i++
	}
	if err := rows.Err(); err != nil || i != len(ids) {
		t.Fatalf("%d rows, %v", i, err)
	}
}

// TestTypeIDBadTextInSQL: every text Go's typeid.Parse rejects,
// pgid.typeid_uuid rejects with SQLSTATE 22P02 and Go's message, which
// names the problem and its byte position: the specification's invalid
// vectors under two expected prefixes, and more.
func TestTypeIDBadTextInSQL(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	conn := connect(t, newDB(t, true), pgx.QueryExecModeCacheStatement)
	b, err := os.ReadFile("../typeid/testdata/spec/invalid.json")
	if err != nil {
		t.Fatal(err)
	}
	var spec []struct{ TypeID string }
	if err := json.Unmarshal(b, &spec); err != nil || len(spec) < 20 {
		t.Fatalf("%d invalid vectors, %v", len(spec), err)
	}
	inputs := []string{
		"order_01h455vb4pex5vsknk084sn02q", "user_01h455vb4pex5vsknk084sn02q", "01h455vb4pex5vsknk084sn02q",
		"user_01h455vb4pex5vsknk084sn0uq", "user_01H455VB4PEX5VSKNK084SN02Q", "user_81h455vb4pex5vsknk084sn02q",
		"user_01h455vb4pex5vsknk084sn02", "user__01h455vb4pex5vsknk084sn02q", "us3r_01h455vb4pex5vsknk084sn02q",
		"user_01h455vb4pex5vsknk084sn0\n2", "user_01h455vb4pex5vsknk084sn0\"2", "user_01h455vb4pex5vsknk084sn0'2",
		"user_01h455vb4pex5vsknk084sn0\\2", "usér_01h455vb4pex5vsknk084sn02q", "user_01h455vb4pex5vsknk084sn0é",
		strings.Repeat("x", 70) + "_01h455vb4pex5vsknk084sn02q", "_", "", "user_",
	}
	for _, v := range spec {
		inputs = append(inputs, v.TypeID)
	}
	rejected := 0
	for _, in := range inputs {
		for _, c := range []tidCase{tidCaseFor[tidPrefix](), tidCaseFor[tidNone](), tidCaseFor[tidUser]()} {
			want, goErr := c.parse(in)
			var got ulidtype.ULID
			sqlErr := conn.QueryRow(ctx, "SELECT pgid.typeid_uuid($1, $2)", in, c.prefix).Scan(&got)
			if goErr == nil {
				if sqlErr != nil || got != want {
					t.Errorf("typeid_uuid(%q, %q) = %s, %v; Go accepts it as %s", in, c.prefix, got.UUIDString(), sqlErr, want.UUIDString())
				}
				continue
			}
			rejected++
			msg := ""
			if sqlErr != nil {
				msg = strings.TrimSuffix(strings.TrimPrefix(sqlErr.Error(), "ERROR: "), " (SQLSTATE 22P02)")
			}
			if sqlState(sqlErr) != "22P02" || msg != goErr.Error() {
				t.Errorf("typeid_uuid(%q, %q):\n SQL %v\n Go  %v", in, c.prefix, sqlErr, goErr)
			}
		}
	}
	if rejected < 3*len(spec) {
		t.Fatalf("only %d rejections", rejected)
	}
	// A prefix that breaks the rules, in either function.
	for _, q := range []string{"SELECT pgid.typeid_text('User', gen_random_uuid())", "SELECT pgid.typeid_uuid('User_01h455vb4pex5vsknk084sn02q', 'User')",
		"SELECT pgid.typeid_text('a_', gen_random_uuid())", "SELECT pgid.typeid_text(repeat('a', 64), gen_random_uuid())"} {
		var out any
		err := conn.QueryRow(ctx, q).Scan(&out)
		if sqlState(err) != "22P02" || !strings.Contains(err.Error(), "the type's prefix") {
			t.Errorf("%s: %v", q, err)
		}
	}
}

// TestTypeIDDrivers: a typed ID goes into a pgid.ulid and a uuid column and
// comes back through pgx in every exec mode, pgx's stdlib and lib/pq; a
// TypeID text column scans into it too, and NULL into NullID.
func TestTypeIDDrivers(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dsn := newDB(t, true)
	setup := connect(t, dsn, pgx.QueryExecModeCacheStatement)
	mustExec(t, setup, `CREATE TABLE accounts (id pgid.ulid PRIMARY KEY, parent uuid, via text NOT NULL)`)
	check := func(what string, id userID, parent typeid.NullID[tidUser], scanned userID, scannedParent typeid.NullID[tidUser], text userID) {
		t.Helper()
		if scanned != id || scannedParent != parent || text != id {
			t.Errorf("%s: wrote %s (parent %v), read %s (parent %v), text %s", what, id, parent, scanned, scannedParent, text)
		}
	}
	const q = "SELECT id, parent, pgid.typeid_text('user', id) FROM accounts WHERE id = $1"
	for _, mode := range allModes {
		conn := connect(t, dsn, mode)
		id := typeid.New[tidUser]()
		parent := typeid.NullID[tidUser]{}
		if mode%2 == 0 {
			parent = typeid.NullID[tidUser]{ID: typeid.New[tidUser](), Valid: true}
		}
		if _, err := conn.Exec(ctx, "INSERT INTO accounts VALUES ($1, $2, $3)", id, parent, fmt.Sprint(mode)); err != nil {
			t.Fatalf("%v: %v", mode, err)
		}
		var got, text userID
		var gotParent typeid.NullID[tidUser]
		if err := conn.QueryRow(ctx, q, id).Scan(&got, &gotParent, &text); err != nil {
			t.Fatalf("%v: %v", mode, err)
		}
		check(mode.String(), id, parent, got, gotParent, text)
		var ptr *userID
		if err := conn.QueryRow(ctx, "SELECT parent FROM accounts WHERE id = $1", id).Scan(&ptr); err != nil || (ptr == nil) == parent.Valid {
			t.Errorf("%v: *ID scan of parent %v: %v, %v", mode, parent, ptr, err)
		}
		// Slices: binary modes need nothing; the text modes need
		// pgidpgx.RegisterTypeID, after which every mode works.
		textMode := mode == pgx.QueryExecModeExec || mode == pgx.QueryExecModeSimpleProtocol
		for _, registered := range []bool{false, true} {
			if registered {
				pgidpgx.RegisterTypeID[tidUser](conn.TypeMap())
			}
			var n int
			var back []userID
			err := conn.QueryRow(ctx, "SELECT count(*), array_agg(id::uuid) FROM accounts WHERE id = ANY($1)", []userID{id, parent.ID}).Scan(&n, &back)
			if textMode && !registered {
				if err == nil {
					t.Errorf("%v: []ID as a parameter worked without RegisterTypeID; docs/TYPEID.md says it fails", mode)
				}
				continue
			}
			// parent.ID is never a row's id: one row, id's.
			if err != nil || n != 1 || !slices.Equal(back, []userID{id}) {
				t.Errorf("%v (registered %v): = ANY([]ID): %d rows %v, %v", mode, registered, n, back, err)
			}
		}
	}
	for _, d := range []struct {
		name string
		db   *sql.DB
	}{{"pgx stdlib", openStdlibSqlc(t, dsn)}, {"lib/pq", openLibPQ(t, dsn)}} {
		for i := range 2 {
			id := typeid.New[tidUser]()
			parent := typeid.NullID[tidUser]{}
			if i == 0 {
				parent = typeid.NullID[tidUser]{ID: typeid.New[tidUser](), Valid: true}
			}
			if _, err := d.db.ExecContext(ctx, "INSERT INTO accounts VALUES ($1, $2, $3)", id, parent, d.name); err != nil {
				t.Fatalf("%s: %v", d.name, err)
			}
			var got, text userID
			var gotParent typeid.NullID[tidUser]
			if err := d.db.QueryRowContext(ctx, q, id).Scan(&got, &gotParent, &text); err != nil {
				t.Fatalf("%s: %v", d.name, err)
			}
			check(d.name, id, parent, got, gotParent, text)
			var sn sql.Null[userID]
			if err := d.db.QueryRowContext(ctx, "SELECT parent FROM accounts WHERE id = $1", id).Scan(&sn); err != nil || sn.Valid != parent.Valid || sn.V != parent.ID {
				t.Errorf("%s: sql.Null scan %v, %v; want %v", d.name, sn, err, parent)
			}
		}
	}
	// The other prefix is refused when a TypeID text column is scanned.
	var wrong typeid.ID[tidPrefix]
	err := setup.QueryRow(ctx, "SELECT pgid.typeid_text('user', id) FROM accounts LIMIT 1").Scan(&wrong)
	if err == nil || !strings.Contains(err.Error(), `prefix "user", want "prefix"`) {
		t.Errorf("scanning a user TypeID into another type: %v", err)
	}
	var n int
	if err := setup.QueryRow(ctx, "SELECT count(*) FROM accounts WHERE id >= $1 AND id < $2", typeid.Since[tidUser](typeid.New[tidUser]().Timestamp().Add(-60e9)), typeid.New[tidUser]()).Scan(&n); err != nil || n != len(allModes)+4 {
		t.Errorf("range by typed bounds: %d rows, %v; want %d", n, err, len(allModes)+4)
	}
}

// checkTypeIDFunctions calls 007's functions for TestSearchPathHijack: a
// round trip of 300 random IDs under two prefixes, and the error path. Its
// SQL names only pg_catalog types and no operators.
func checkTypeIDFunctions(t *testing.T, conn *pgx.Conn, path string) {
	t.Helper()
	ctx := context.Background()
	ids := randomULIDs(300)
	prefixes, texts := make([]string, len(ids)), make([]string, len(ids))
	for i, u := range ids {
		c := tidCases[i%2]
		prefixes[i], texts[i] = c.prefix, c.text(u)
	}
	rows, err := conn.Query(ctx, `
		SELECT pgid.typeid_text(p, u), pgid.typeid_uuid(s, p)
		FROM ROWS FROM (pg_catalog.unnest($1::pg_catalog.uuid[]), pg_catalog.unnest($2::pg_catalog.text[]), pg_catalog.unnest($3::pg_catalog.text[]))
		     WITH ORDINALITY AS x(u, p, s, i)
		ORDER BY i`, ids, prefixes, texts)
	if err != nil {
		t.Fatalf("search_path %s: %v", path, err)
	}
	i := 0
	for rows.Next() {
		var text string
		var u ulidtype.ULID
		if err := rows.Scan(&text, &u); err != nil {
			t.Fatal(err)
		}
		if text != texts[i] || u != ids[i] {
			t.Errorf("search_path %s: %s: SQL %q %s, Go %q", path, ids[i].UUIDString(), text, u.UUIDString(), texts[i])
		}
		i++
	}
	if err := rows.Err(); err != nil || i != len(ids) {
		t.Fatalf("search_path %s: %d rows, %v", path, i, err)
	}
	for _, c := range []struct{ in, want string }{
		{"order_01h455vb4pex5vsknk084sn02q", `prefix "order", want "user"`},
		{"user_01h455vb4pex5vsknk084sn0\n2", `invalid character '\n' at position 29`},
		{"uSer_01h455vb4pex5vsknk084sn02q", `invalid character 'S' at position 1 in the prefix`},
	} {
		var out any
		err := conn.QueryRow(ctx, "SELECT pgid.typeid_uuid($1, 'user')", c.in).Scan(&out)
		if sqlState(err) != "22P02" || !strings.Contains(err.Error(), c.want) {
			t.Errorf("search_path %s: typeid_uuid(%q): %v, want 22P02 saying %q", path, c.in, err, c.want)
		}
	}
}

// TestTypeIDTextColumnToUUID: a table that kept TypeIDs as text (jetify's
// default) moves to uuid in place with pgid.typeid_uuid, as docs/TYPEID.md
// shows, and pgid.typeid_text gives the old text back; a row of another
// prefix stops the ALTER with 22P02 and changes nothing.
func TestTypeIDTextColumnToUUID(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	conn := connect(t, newDB(t, true), pgx.QueryExecModeCacheStatement)
	ids := make([]string, 100)
	for i := range ids {
		ids[i] = typeid.New[tidUser]().String()
	}
	mustExec(t, conn, "CREATE TABLE old_users (id text PRIMARY KEY, name text)")
	if _, err := conn.Exec(ctx, "INSERT INTO old_users SELECT unnest($1::text[]), 'x'", ids); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, "INSERT INTO old_users VALUES ($1, 'bad')", "order_"+typeid.New[tidUser]().Suffix()); err != nil {
		t.Fatal(err)
	}
	const alter = "ALTER TABLE old_users ALTER COLUMN id TYPE uuid USING pgid.typeid_uuid(id, 'user')"
	if _, err := conn.Exec(ctx, alter); sqlState(err) != "22P02" || !strings.Contains(err.Error(), `prefix "order", want "user"`) {
		t.Fatalf("ALTER with an order's ID among the users: %v", err)
	}
	mustExec(t, conn, "DELETE FROM old_users WHERE name = 'bad'")
	mustExec(t, conn, alter)
	rows, err := conn.Query(ctx, "SELECT id, pgid.typeid_text('user', id) FROM old_users ORDER BY id")
	if err != nil {
		t.Fatal(err)
	}
	i := 0
	for rows.Next() {
		var id userID
		var text string
		if err := rows.Scan(&id, &text); err != nil {
			t.Fatal(err)
		}
		if id.String() != ids[i] || text != ids[i] {
			t.Fatalf("row %d: %s / %s, want %s", i, id, text, ids[i])
		}
		i++
	}
	if rows.Err() != nil || i != len(ids) {
		t.Fatalf("%d rows, %v", i, rows.Err())
	}
}

// TestTypeIDAnyAndSlices: an AnyID, whose prefix comes from run time, goes
// into a uuid column as its UUID and comes back with the prefix the caller
// set; a TypeID text column scans into it with the text's prefix, and
// FromAny refuses another type's. typeid.Slice and NullSlice bind to
// = ANY($1) and scan array_agg and uuid[] columns with NULL elements. Each
// through pgx in every exec mode, pgx's stdlib and lib/pq.
func TestTypeIDAnyAndSlices(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dsn := newDB(t, true)
	setup := connect(t, dsn, pgx.QueryExecModeCacheStatement)
	mustExec(t, setup, `CREATE TABLE things (k text PRIMARY KEY, id uuid NOT NULL, refs pgid.ulid[], via text NOT NULL)`)
	prefix := "order" // from configuration, say
	type querier interface {
		exec(sql string, args ...any) error
		row(sql string, args ...any) func(dest ...any) error
	}
	run := func(name string, q querier) {
		t.Helper()
		id, err := typeid.NewAny(prefix)
		if err != nil {
			t.Fatal(err)
		}
		refs := typeid.NullSlice[tidUser]{{ID: typeid.New[tidUser](), Valid: true}, {}, {ID: typeid.New[tidUser](), Valid: true}}
		if err := q.exec("INSERT INTO things VALUES ($1, $2, $3, pgid.typeid_text($4, $2::uuid))", name, id, refs, prefix); err != nil {
			t.Fatalf("%s: insert: %v", name, err)
		}
		got, err := typeid.AnyFromUUID(prefix, uuid.Nil) // the prefix the column does not hold
		if err != nil {
			t.Fatal(err)
		}
		var fromText typeid.AnyID // takes the text's prefix
		var gotRefs typeid.NullSlice[tidUser]
		if err := q.row("SELECT id, via, refs FROM things WHERE k = $1", name)(&got, &fromText, &gotRefs); err != nil {
			t.Fatalf("%s: select: %v", name, err)
		}
		if got != id || fromText != id || !slices.Equal(gotRefs, refs) {
			t.Errorf("%s: wrote %v %v, read %v, text %v, refs %v", name, id, refs, got, fromText, gotRefs)
		}
		if _, err := typeid.FromAny[tidUser](got); err == nil || !strings.Contains(err.Error(), `prefix "order", want "user"`) {
			t.Errorf("%s: FromAny of an order as a user: %v", name, err)
		}
		// A Slice to = ANY($1), array_agg back into a Slice; a NULL element
		// refused by a Slice.
		users := typeid.Slice[tidUser]{refs[2].ID, typeid.New[tidUser](), refs[0].ID}
		var n int
		var agg typeid.Slice[tidUser]
		if err := q.row("SELECT count(*), array_agg(r ORDER BY r) FROM things, unnest(refs) AS r WHERE k = $1 AND r = ANY($2)", name, users)(&n, &agg); err != nil ||
			n != 2 || !slices.Equal(agg, typeid.Slice[tidUser]{refs[0].ID, refs[2].ID}) {
			t.Errorf("%s: = ANY(Slice): %d %v, %v", name, n, agg, err)
		}
		var plain typeid.Slice[tidUser]
		if err := q.row("SELECT refs FROM things WHERE k = $1", name)(&plain); !errors.Is(err, typeid.ErrNull) {
			t.Errorf("%s: a NULL element into a Slice: %v, %v", name, plain, err)
		}
	}
	for _, mode := range allModes {
		conn := connect(t, dsn, mode)
		run("pgx/"+modeName(mode), tidPgx{ctx, conn})
	}
	for _, d := range []struct {
		name string
		db   *sql.DB
	}{{"pgx stdlib", openStdlibSqlc(t, dsn)}, {"lib/pq", openLibPQ(t, dsn)}} {
		run(d.name, tidSQL{ctx, d.db})
	}
}

type tidPgx struct {
	ctx  context.Context
	conn *pgx.Conn
}

func (q tidPgx) exec(sql string, args ...any) error {
	_, err := q.conn.Exec(q.ctx, sql, args...)
	return err
}

func (q tidPgx) row(sql string, args ...any) func(dest ...any) error {
	return q.conn.QueryRow(q.ctx, sql, args...).Scan
}

type tidSQL struct {
	ctx context.Context
	db  *sql.DB
}

func (q tidSQL) exec(sql string, args ...any) error {
	_, err := q.db.ExecContext(q.ctx, sql, args...)
	return err
}

func (q tidSQL) row(sql string, args ...any) func(dest ...any) error {
	return q.db.QueryRowContext(q.ctx, sql, args...).Scan
}
