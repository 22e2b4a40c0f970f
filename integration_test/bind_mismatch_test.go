package integration_test

import (
	"context"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/pgid/pgid/objectidtype"
	"github.com/pgid/pgid/pgidpgx"
	"github.com/pgid/pgid/typeid"
	"github.com/pgid/pgid/ulidtype"
)

// An ID bound where PostgreSQL expects the other kind (issue 35). pgx v5.12
// stored an ObjectID bound to a uuid parameter as its 12 bytes and 4 zero
// bytes: through ObjectID.Value, whose []byte pgx's uuid codec copies into
// 16 bytes whatever its length (byteSliceWrapper.UUIDValue). It did so in
// the three modes that describe the statement and CopyFrom, through
// pgx.Conn, pgxpool and database/sql, and with pgidpgx.AfterConnect also for
// pgid.ulid and pgid.ulid[]. A ULID or TypeID bound to bytea stored the 36
// characters of its UUID text as 36 bytes. Each case here must fail and
// store nothing.

// bindPath is one way of binding a parameter.
type bindPath struct {
	name       string
	registered bool // pgidpgx.AfterConnect ran on the connection
	describes  bool // pgx knows the parameter's OID (the modes that describe)
	copy       bool // CopyFrom: binary only, no text fallback
	libpq      bool
	exec       func(ctx context.Context, table string, v any) error
}

// bindPaths returns every path of the matrix against dsn.
func bindPaths(t *testing.T, dsn string) []bindPath {
	ctx := context.Background()
	insert := func(table string) string { return "INSERT INTO " + table + " (v) VALUES ($1)" }
	var paths []bindPath
	for _, reg := range []bool{false, true} {
		suffix := ""
		if reg {
			suffix = "+AfterConnect"
		}
		for _, mode := range allModes {
			conn := connect(t, dsn, mode)
			if reg {
				if err := pgidpgx.AfterConnect(ctx, conn); err != nil {
					t.Fatal(err)
				}
			}
			paths = append(paths, bindPath{
				name: "pgx.Conn/" + modeName(mode) + suffix, registered: reg,
				describes: mode != pgx.QueryExecModeExec && mode != pgx.QueryExecModeSimpleProtocol,
				exec: func(ctx context.Context, table string, v any) error {
					_, err := conn.Exec(ctx, insert(table), v)
					return err
				},
			})
			if mode == pgx.QueryExecModeCacheStatement {
				paths = append(paths, bindPath{
					name: "pgx.Conn/CopyFrom" + suffix, registered: reg, describes: true, copy: true,
					exec: func(ctx context.Context, table string, v any) error {
						_, err := conn.CopyFrom(ctx, pgx.Identifier{table}, []string{"v"}, pgx.CopyFromRows([][]any{{v}}))
						return err
					},
				})
			}
		}
		for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeCacheStatement, pgx.QueryExecModeSimpleProtocol} {
			cfg, err := pgxpool.ParseConfig(dsn)
			if err != nil {
				t.Fatal(err)
			}
			cfg.ConnConfig.DefaultQueryExecMode = mode
			if reg {
				cfg.AfterConnect = pgidpgx.AfterConnect
			}
			pool, err := pgxpool.NewWithConfig(ctx, cfg)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(pool.Close)
			paths = append(paths, bindPath{
				name: "pgxpool/" + modeName(mode) + suffix, registered: reg, describes: mode == pgx.QueryExecModeCacheStatement,
				exec: func(ctx context.Context, table string, v any) error {
					_, err := pool.Exec(ctx, insert(table), v)
					return err
				},
			})
		}
		cfg, err := pgx.ParseConfig(dsn)
		if err != nil {
			t.Fatal(err)
		}
		var opts []stdlib.OptionOpenDB
		if reg {
			opts = append(opts, stdlib.OptionAfterConnect(pgidpgx.AfterConnect))
		}
		sdb := stdlib.OpenDB(*cfg, opts...)
		t.Cleanup(func() { sdb.Close() })
		paths = append(paths, bindPath{name: "database/sql+pgx" + suffix, registered: reg, describes: true, exec: sqlExec(sdb, insert)})
	}
	for _, d := range []string{dsn, withParam(dsn, "binary_parameters", "yes")} {
		name := "lib/pq"
		if d != dsn {
			name += "/binary_parameters"
		}
		paths = append(paths, bindPath{name: name, libpq: true, exec: sqlExec(openLibPQ(t, d), insert)})
	}
	return paths
}

func sqlExec(db *sql.DB, insert func(string) string) func(context.Context, string, any) error {
	return func(ctx context.Context, table string, v any) error {
		_, err := db.ExecContext(ctx, insert(table), v)
		return err
	}
}

// bindCase is a value bound to the v column of table.
type bindCase struct {
	table string
	value any
}

func (c bindCase) String() string { return fmt.Sprintf("%T into %s", c.value, c.table) }

// bindTables are the tables of the cases, each with one column v.
var bindTables = map[string]string{
	"bm_uuid": "uuid", "bm_ulid": "pgid.ulid", "bm_uuids": "uuid[]", "bm_ulids": "pgid.ulid[]",
	"bm_bytea": "bytea", "bm_objectid": "pgid.objectid", "bm_byteas": "bytea[]", "bm_objectids": "pgid.objectid[]",
}

type bmUser struct{}

func (bmUser) Prefix() string { return "user" }

// errorLabel names err for the failure messages and the log: "pgid" for
// the sentinel, else the SQLSTATE, then " pgid" if the message holds the
// sentinel's (pgx hands CopyFrom's encoding errors to the server in a
// CopyFail message, which returns SQLSTATE 57014 with that text), else
// "client" and the error.
func errorLabel(err, sentinel error) string {
	switch {
	case err == nil:
		return "no error"
	case errors.Is(err, sentinel):
		return "pgid"
	}
	s := libpqState(err)
	if s == "client error" {
		return "client: " + err.Error()
	}
	if strings.Contains(err.Error(), sentinel.Error()) {
		s += " pgid"
	}
	return s
}

// checkRefused binds each case on each path: it must fail with an error
// allowed(p, label) accepts, and leave the table empty.
func checkRefused(t *testing.T, setup *pgx.Conn, paths []bindPath, cases []bindCase, sentinel error, skip func(bindPath, bindCase) bool, allowed func(bindPath, bindCase, string) bool) {
	ctx := context.Background()
	for _, p := range paths {
		for _, c := range cases {
			if skip(p, c) {
				continue
			}
			mustExec(t, setup, "TRUNCATE "+c.table)
			err := p.exec(ctx, c.table, c.value)
			var n int
			if err := setup.QueryRow(ctx, "SELECT count(*) FROM "+c.table).Scan(&n); err != nil {
				t.Fatal(err)
			}
			label := errorLabel(err, sentinel)
			if n != 0 {
				var got string
				setup.QueryRow(ctx, "SELECT v::text FROM "+c.table).Scan(&got)
				t.Errorf("%s: %v stored %d row(s), v = %s (error: %s)", p.name, c, n, got, label)
			}
			if err == nil || !allowed(p, c, label) {
				t.Errorf("%s: %v: error %s: %v", p.name, c, label, err)
			} else if testing.Verbose() {
				t.Logf("%s: %v: %s", p.name, c, label)
			}
		}
	}
}

func TestBindMismatch(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dsn := newDB(t, true)
	setup := connect(t, dsn, pgx.QueryExecModeCacheStatement)
	for name, typ := range bindTables {
		mustExec(t, setup, "CREATE TABLE "+name+" (v "+typ+")")
	}
	paths := bindPaths(t, dsn)
	o := objectidtype.MustParse("6b0a3b4e60577a71b5aff139") // the ObjectID of the report
	u := ulidtype.MustParse("01GFGGMBFGB5WKXBN7S84ATRDG")
	tid := typeid.FromULID[bmUser](u)

	// The paths store what they should: the harness can see a row. Bytes()
	// is the way to keep a ULID's 16 bytes in a bytea.
	for _, p := range paths {
		for _, c := range []struct {
			bindCase
			want string
		}{
			{bindCase{"bm_bytea", o}, `\x` + o.Hex()},
			{bindCase{"bm_uuid", u}, u.UUIDString()},
			{bindCase{"bm_uuid", tid}, u.UUIDString()},
			{bindCase{"bm_bytea", u.Bytes()}, `\x` + hex.EncodeToString(u[:])},
			// Slices into the arrays of their kind, domains included.
			{bindCase{"bm_uuids", ulidtype.Slice{u}}, "{" + u.UUIDString() + "}"},
			{bindCase{"bm_ulids", ulidtype.NullSlice{{ULID: u, Valid: true}, {}}}, "{" + u.UUIDString() + ",NULL}"},
			{bindCase{"bm_uuids", typeid.Slice[bmUser]{tid}}, "{" + u.UUIDString() + "}"},
			{bindCase{"bm_ulids", typeid.NullSlice[bmUser]{{}, {ID: tid, Valid: true}}}, "{NULL," + u.UUIDString() + "}"},
			{bindCase{"bm_byteas", objectidtype.Slice{o}}, `{"\\x` + o.Hex() + `"}`},
			{bindCase{"bm_objectids", objectidtype.NullSlice{{ObjectID: o, Valid: true}, {}}}, `{"\\x` + o.Hex() + `",NULL}`},
			{bindCase{"bm_objectids", objectidtype.Slice{}}, "{}"},
			{bindCase{"bm_uuids", ulidtype.Slice(nil)}, ""},
		} {
			if p.copy && !p.registered && (c.table == "bm_ulids" || c.table == "bm_objectids") {
				// CopyFrom cannot write a domain array pgx has not
				// loaded: it sends the array's text as binary, which
				// PostgreSQL refuses (54000 or 08P01). Nothing is stored.
				continue
			}
			mustExec(t, setup, "TRUNCATE "+c.table)
			if err := p.exec(ctx, c.table, c.value); err != nil {
				t.Errorf("%s: %v: %v", p.name, c.bindCase, err)
				continue
			}
			var ok bool
			if err := setup.QueryRow(ctx, "SELECT coalesce(v::text, '') = $1 FROM "+c.table, c.want).Scan(&ok); err != nil || !ok {
				t.Errorf("%s: %v: not stored as %s (%v)", p.name, c.bindCase, c.want, err)
			}
		}
	}

	t.Run("ObjectID into uuid", func(t *testing.T) {
		var cases []bindCase
		for _, table := range []string{"bm_uuid", "bm_ulid"} {
			for _, v := range []any{o, &o, objectidtype.NullObjectID{ObjectID: o, Valid: true}, objectidtype.ShortID(o)} {
				cases = append(cases, bindCase{table, v})
			}
		}
		for _, table := range []string{"bm_uuids", "bm_ulids"} {
			for _, v := range []any{[]objectidtype.ObjectID{o}, objectidtype.Slice{o}, []*objectidtype.ObjectID{&o}, []objectidtype.NullObjectID{{ObjectID: o, Valid: true}}} {
				cases = append(cases, bindCase{table, v})
			}
		}
		checkRefused(t, setup, paths, cases, objectidtype.ErrNotUUID,
			func(bindPath, bindCase) bool { return false },
			func(p bindPath, c bindCase, label string) bool {
				_, isSlice := c.value.(objectidtype.Slice)
				// pgx has no type for a plain slice without Register
				// where it does not know the parameter's type
				// (QueryExecModeExec, SimpleProtocol), nor for a domain
				// array it has not loaded.
				untyped := !p.registered && !isSlice && (c.table == "bm_ulids" || !p.describes && c.table == "bm_uuids")
				switch {
				case p.copy && (isSlice || untyped):
					// objectidtype.Slice is a driver.Valuer whose
					// array text pgx sends as it is.
					return label != "no error"
				case p.copy:
					return label == "57014 pgid"
				case p.libpq:
					// Text parameters: the raw bytes are no UTF-8, or
					// the Slice's \x elements no uuid; binary ones: 12
					// bytes are too short for a uuid.
					return label == "22021" || label == "22P02" || label == "08P01"
				case untyped:
					return strings.HasPrefix(label, "client: ")
				}
				// pgx retries a parameter that fails in binary format in
				// text format, where an ObjectID is `\x` and 24 hex
				// digits, which PostgreSQL refuses for a uuid.
				return label == "22P02"
			})
	})

	t.Run("ULID into bytea", func(t *testing.T) {
		// Refused where pgx knows the parameter is a bytea, and by
		// CopyFrom; pgid.objectid refuses every other path by its CHECK.
		// (A plain bytea parameter of unknown type, in QueryExecModeExec,
		// SimpleProtocol or lib/pq, gets the UUID text: PostgreSQL stores
		// its 36 characters.)
		var cases []bindCase
		for _, table := range []string{"bm_bytea", "bm_objectid"} {
			for _, v := range []any{u, &u, ulidtype.NullULID{ULID: u, Valid: true}, tid, &tid, typeid.NullID[bmUser]{ID: tid, Valid: true}, tid.Any()} {
				cases = append(cases, bindCase{table, v})
			}
		}
		for _, table := range []string{"bm_byteas", "bm_objectids"} {
			for _, v := range []any{[]ulidtype.ULID{u}, []*ulidtype.ULID{&u}, []typeid.ID[bmUser]{tid}} {
				cases = append(cases, bindCase{table, v})
			}
		}
		checkRefused(t, setup, paths, cases, ulidtype.ErrNotBytea,
			func(p bindPath, c bindCase) bool {
				return !p.describes && c.table != "bm_objectid"
			},
			func(p bindPath, c bindCase, label string) bool {
				// pgx does not know pgid.objectid[] before LoadTypes.
				untyped := !p.registered && c.table == "bm_objectids"
				switch {
				case p.copy && untyped:
					return label == "57014"
				case p.copy:
					return label == "57014 pgid"
				case !p.describes || !p.registered && c.table == "bm_objectid":
					// The UUID text reaches pgid.objectid's CHECK
					// (octet_length = 12).
					return label == "23514"
				case untyped:
					return strings.HasPrefix(label, "client: ")
				}
				return label == "pgid"
			})
	})

	t.Run("Slices", func(t *testing.T) {
		// Every Slice and NullSlice type into the scalar kinds and into the
		// arrays of the other kind. Where pgx knows the parameter's type
		// (the modes that describe, CopyFrom, with the domains loaded for
		// pgid.ulid and pgid.objectid), pgid refuses: a slice bound to one
		// uuid or bytea wraps ErrScalarParameter (and ErrNotUUID or
		// ErrNotBytea for the other kind), an array of the other kind
		// its elements' ErrNotUUID or ErrNotBytea.
		//
		// Where the client cannot know the type (QueryExecModeExec,
		// SimpleProtocol, lib/pq, a domain pgx has not loaded), the slice
		// goes as its Value, the array's text, and PostgreSQL decides:
		// these are skipped below because PostgreSQL accepts them.
		//   - A ULID or TypeID slice of one element into uuid or pgid.ulid
		//     stores that element (uuid_in takes "{…}"); none or two
		//     elements are refused (22P02).
		//   - An ObjectID, ULID or TypeID slice into a plain bytea stores
		//     the array's text as bytes, and a ULID or TypeID slice into
		//     bytea[] stores each element's 36 characters. pgid.objectid
		//     and pgid.objectid[] refuse these by their CHECK (23514).
		type sliceGroup struct {
			name     string
			sentinel error
			tables   []string
			values   []any
		}
		ulidSlices := []any{ulidtype.Slice{u}, ulidtype.NullSlice{{ULID: u, Valid: true}}, typeid.Slice[bmUser]{tid}, typeid.NullSlice[bmUser]{{ID: tid, Valid: true}}}
		ulidArrays := []any{ulidtype.Slice{u}, ulidtype.NullSlice{{ULID: u, Valid: true}, {}}, typeid.Slice[bmUser]{tid}, typeid.NullSlice[bmUser]{{}, {ID: tid, Valid: true}}}
		oidSlices := []any{objectidtype.Slice{o}, objectidtype.NullSlice{{ObjectID: o, Valid: true}}}
		oidArrays := []any{objectidtype.Slice{o}, objectidtype.NullSlice{{ObjectID: o, Valid: true}, {}}}
		for _, g := range []sliceGroup{
			{"ULID slice into one uuid", ulidtype.ErrScalarParameter, []string{"bm_uuid", "bm_ulid"}, ulidSlices},
			{"ULID slice into bytea", ulidtype.ErrNotBytea, []string{"bm_bytea", "bm_objectid", "bm_byteas", "bm_objectids"}, ulidArrays},
			{"ObjectID slice into one bytea", objectidtype.ErrScalarParameter, []string{"bm_bytea", "bm_objectid"}, oidSlices},
			{"ObjectID slice into uuid", objectidtype.ErrNotUUID, []string{"bm_uuid", "bm_ulid", "bm_uuids", "bm_ulids"}, oidArrays},
		} {
			t.Run(g.name, func(t *testing.T) {
				var cases []bindCase
				for _, table := range g.tables {
					for _, v := range g.values {
						cases = append(cases, bindCase{table, v})
					}
				}
				_, ulids := g.values[0].(ulidtype.Slice)
				checkRefused(t, setup, paths, cases, g.sentinel,
					func(p bindPath, c bindCase) bool {
						if knowsType(p, c.table) {
							return false
						}
						switch c.table {
						case "bm_uuid", "bm_ulid":
							return ulids
						case "bm_bytea", "bm_byteas":
							return true
						}
						return false
					},
					func(p bindPath, c bindCase, label string) bool {
						switch {
						case !knowsType(p, c.table):
							// PostgreSQL's refusal: the ObjectID's `\x` text
							// is no uuid (22P02), the CHECK of
							// pgid.objectid (23514); or, in CopyFrom,
							// any error.
							return label != "no error"
						case p.copy:
							return label == "57014 pgid"
						case g.sentinel == objectidtype.ErrNotUUID && strings.HasSuffix(c.table, "s"):
							// Elements: pgx retries in text format,
							// where an ObjectID is `\x` and 24 hex digits
							// (as for a single ObjectID above).
							return label == "22P02"
						}
						return label == "pgid"
					})
			})
		}
	})
}

// knowsType reports whether pgx knows the type of a parameter of table's
// column v on path p: it describes the statement, and the column's type is
// a base type or a domain that pgidpgx.AfterConnect loaded.
func knowsType(p bindPath, table string) bool {
	if p.libpq || !p.describes {
		return false
	}
	switch table {
	case "bm_uuid", "bm_uuids", "bm_bytea", "bm_byteas":
		return true
	}
	return p.registered
}
