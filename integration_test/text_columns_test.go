package integration_test

import (
	"context"
	"database/sql"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/pgid/pgid/objectidtype"
	"github.com/pgid/pgid/ulidtype"
)

// namedDB is one driver path: a pgx mode, pgx's stdlib or lib/pq.
type namedDB struct {
	name string
	db   db
}

// allPaths opens every driver path to dsn: pgx in its five modes, database/sql
// over pgx's stdlib, and lib/pq.
func allPaths(t *testing.T, dsn string) []namedDB {
	t.Helper()
	var paths []namedDB
	for _, mode := range allModes {
		paths = append(paths, namedDB{"pgx " + modeName(mode), pgxDB{connect(t, dsn, mode)}})
	}
	std, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { std.Close() })
	return append(paths, namedDB{"stdlib", sqlDB{std}}, namedDB{"lib/pq", sqlDB{openLibPQ(t, dsn)}})
}

// Issue 13 §4, issue 7 §5: text is text and bytea is 12 raw bytes, in every
// driver path. A text or varchar value is read only in a text form (24 hex
// digits, the short form, or a bytea's text `\x` and hex); 12 characters are
// never raw bytes. A bytea is read only as exactly 12 bytes; 24 bytes that
// spell hex are not an ID.
func TestScanTextAndBytea(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	o := objectidtype.MustParse("4e7020cb7cac81af7136236b")
	for _, p := range allPaths(t, newDB(t, true)) {
		t.Run(p.name, func(t *testing.T) {
			for _, c := range []struct {
				sql  string
				ok   bool
				want error
			}{
				{"SELECT 'hello world!'::text", false, objectidtype.ErrLength},
				{"SELECT 'hello world!'::varchar", false, objectidtype.ErrLength},
				{"SELECT 'hello world!'", false, objectidtype.ErrLength},
				{"SELECT 'abcdefghijklmnop'::text", true, nil}, // 16 short-form characters: a short form
				{"SELECT '" + o.Hex() + "'::text", true, nil},
				{"SELECT '" + o.Hex() + "'::varchar(24)", true, nil},
				{"SELECT '" + o.Short() + "'::text", true, nil},
				{"SELECT '\\x" + o.Hex() + "'::text", true, nil},
				{"SELECT '\\x" + o.Hex() + "'::bytea", true, nil},
				{"SELECT '\\x" + o.Hex() + "'::pgid.objectid", true, nil},
				{"SELECT convert_to('" + o.Hex() + "', 'UTF8')", false, objectidtype.ErrLength},   // a 24-byte bytea
				{"SELECT convert_to('" + o.Short() + "', 'UTF8')", false, objectidtype.ErrLength}, // a 16-byte bytea
				{"SELECT convert_to('hello world!', 'UTF8')", true, nil},                          // a 12-byte bytea is raw bytes
			} {
				want := o
				if c.sql == "SELECT convert_to('hello world!', 'UTF8')" {
					want = objectidtype.ObjectID([]byte("hello world!"))
				}
				if c.sql == "SELECT 'abcdefghijklmnop'::text" {
					want = objectidtype.MustParse("abcdefghijklmnop")
				}
				for _, dst := range []any{new(objectidtype.ObjectID), new(objectidtype.ShortID), new(objectidtype.NullObjectID)} {
					err := p.db.queryRow(ctx, c.sql).Scan(dst)
					var got objectidtype.ObjectID
					switch d := dst.(type) {
					case *objectidtype.ObjectID:
						got = *d
					case *objectidtype.ShortID:
						got = objectidtype.ObjectID(*d)
					case *objectidtype.NullObjectID:
						got = d.ObjectID
					}
					switch {
					case c.ok && (err != nil || got != want):
						t.Errorf("%s into %T: %v, %v; want %s", c.sql, dst, got, err, want)
					case !c.ok && (err == nil || !errors.Is(err, c.want)):
						t.Errorf("%s into %T: %v, %v; want an error wrapping %v", c.sql, dst, got, err, c.want)
					}
				}
			}
			// A ULID reads text as text too.
			var u ulidtype.ULID
			if err := p.db.queryRow(ctx, "SELECT 'hello world!1234'::text").Scan(&u); !errors.Is(err, ulidtype.ErrLength) {
				t.Errorf("16 characters of text into ULID: %v, %v; want ErrLength", u, err)
			}
		})
	}
}

// Issue 13 §4: an ObjectID or ShortID bound to a text or varchar parameter.
// Every pgx mode and pgx's stdlib send the bytea's text, `\x` and 24 hex
// digits (ObjectID.TextValue), which the column stores as those 26
// characters, the same text as o::text for a bytea, and which reads back as
// the ID. lib/pq sends Value's 12 raw bytes as text: invalid UTF-8 or 0x00 is
// refused (22021), and what the server does store is no text form, so it
// fails when read back; it is never read as a different ID. A ULID binds as
// its UUID text in every path.
func TestBindIntoTextColumns(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dsn := newDB(t, true)
	if _, err := connect(t, dsn, pgx.QueryExecModeCacheStatement).Exec(ctx,
		"CREATE TABLE tc (k int PRIMARY KEY, t text, v varchar(40), b bytea, d pgid.objectid, u text)"); err != nil {
		t.Fatal(err)
	}
	ids := []objectidtype.ObjectID{
		objectidtype.MustParse("4e7020cb7cac81af7136236b"), // not UTF-8
		objectidtype.MustParse("4142434445464748494a4b4c"), // "ABCDEFGHIJKL"
		objectidtype.MustParse("6b032f597e0944624d52ce91"), // UTF-8 with U+0391
	}
	u := ulidtype.MustParse("01ARZ3NDEKTSV4RRFFQ69G5FAV")
	for _, p := range allPaths(t, dsn) {
		t.Run(p.name, func(t *testing.T) {
			for _, o := range ids {
				for _, arg := range []any{o, objectidtype.ShortID(o), objectidtype.NullObjectID{ObjectID: o, Valid: true}} {
					k := nextKey()
					err := p.db.exec(ctx, "INSERT INTO tc (k, t, v, b, d, u) VALUES ($1, $2, $3, $4, $5, $6)", k, arg, arg, arg, arg, u)
					if p.name == "lib/pq" {
						checkLibPQText(t, p.db, k, o, err)
						continue
					}
					if err != nil {
						t.Fatalf("%T %s into text: %v", arg, o, err)
					}
					var tt, vv, bt, ut string
					if err := p.db.queryRow(ctx, "SELECT t, v, b::text, u FROM tc WHERE k = $1", k).Scan(&tt, &vv, &bt, &ut); err != nil {
						t.Fatal(err)
					}
					if want := `\x` + o.Hex(); tt != want || vv != want || bt != want {
						t.Errorf("%T %s: text %q, varchar %q, bytea::text %q; want %q in all", arg, o, tt, vv, bt, want)
					}
					if ut != u.UUIDString() {
						t.Errorf("ULID into text: %q, want %q", ut, u.UUIDString())
					}
					var ot, ov, ob, od objectidtype.ObjectID
					var ul ulidtype.ULID
					if err := p.db.queryRow(ctx, "SELECT t, v, b, d, u FROM tc WHERE k = $1", k).Scan(&ot, &ov, &ob, &od, &ul); err != nil || ot != o || ov != o || ob != o || od != o || ul != u {
						t.Errorf("%T %s read back: %s %s %s %s %s, %v", arg, o, ot, ov, ob, od, ul, err)
					}
				}
			}
		})
	}
}

// checkLibPQText checks what lib/pq made of an ObjectID bound to text
// columns: refused, or stored as raw text that does not read back as an ID.
func checkLibPQText(t *testing.T, d db, k int64, o objectidtype.ObjectID, err error) {
	t.Helper()
	if err != nil {
		if st := libpqState(err); st != "22021" {
			t.Errorf("lib/pq %s into text: %v; want 22021 or a value that does not read back", o, err)
		}
		return
	}
	var got objectidtype.ObjectID
	if err := d.queryRow(context.Background(), "SELECT t FROM tc WHERE k = $1", k).Scan(&got); !errors.Is(err, objectidtype.ErrLength) {
		t.Errorf("lib/pq %s stored as raw text, read back as %s, %v; want ErrLength", o, got, err)
	}
}
