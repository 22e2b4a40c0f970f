package integration_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/pgid/pgid/objectidtype"
	"github.com/pgid/pgid/pgidpgx"
	"github.com/pgid/pgid/ulidtype"
)

// nullableSlice is a slice type whose elements can hold NULL.
type nullableSlice struct {
	col  string             // "u" (ULID) or "o" (ObjectID) column
	dst  func() any         // a pointer to a fresh, empty slice
	text func(any) []string // the slice behind the pointer, NULL as "NULL"
	from func([]*[16]byte, []*[12]byte) any
}

// texts returns the elements of s as text, "NULL" where str reports none.
func texts[T any](s []T, str func(T) (string, bool)) []string {
	out := make([]string, len(s))
	for i, v := range s {
		var ok bool
		if out[i], ok = str(v); !ok {
			out[i] = "NULL"
		}
	}
	return out
}

// build makes a slice of T from ids, nil meaning NULL.
func build[T, ID any](ids []*ID, mk func(*ID) T) []T {
	out := make([]T, len(ids))
	for i, id := range ids {
		out[i] = mk(id)
	}
	return out
}

// nullableSlices are the slice types of both ID types that hold NULL
// elements, each registered by pgidpgx.Register.
var nullableSlices = map[string]nullableSlice{
	"[]*ULID": {"u", func() any { return new([]*ulidtype.ULID) },
		func(d any) []string {
			return texts(*d.(*[]*ulidtype.ULID), func(v *ulidtype.ULID) (string, bool) { return fmt.Sprint(v), v != nil })
		},
		func(us []*[16]byte, _ []*[12]byte) any {
			return build(us, func(b *[16]byte) *ulidtype.ULID { return (*ulidtype.ULID)(b) })
		}},
	"[]NullULID": {"u", func() any { return new([]ulidtype.NullULID) },
		func(d any) []string {
			return texts(*d.(*[]ulidtype.NullULID), func(v ulidtype.NullULID) (string, bool) { return v.ULID.String(), v.Valid })
		},
		func(us []*[16]byte, _ []*[12]byte) any {
			return build(us, func(b *[16]byte) ulidtype.NullULID {
				if b == nil {
					return ulidtype.NullULID{}
				}
				return ulidtype.NullULID{ULID: *b, Valid: true}
			})
		}},
	"[]sql.Null[ULID]": {"u", func() any { return new([]sql.Null[ulidtype.ULID]) },
		func(d any) []string {
			return texts(*d.(*[]sql.Null[ulidtype.ULID]), func(v sql.Null[ulidtype.ULID]) (string, bool) { return v.V.String(), v.Valid })
		},
		func(us []*[16]byte, _ []*[12]byte) any {
			return build(us, func(b *[16]byte) sql.Null[ulidtype.ULID] {
				if b == nil {
					return sql.Null[ulidtype.ULID]{}
				}
				return sql.Null[ulidtype.ULID]{V: *b, Valid: true}
			})
		}},
	"[]*ObjectID": {"o", func() any { return new([]*objectidtype.ObjectID) },
		func(d any) []string {
			return texts(*d.(*[]*objectidtype.ObjectID), func(v *objectidtype.ObjectID) (string, bool) { return fmt.Sprint(v), v != nil })
		},
		func(_ []*[16]byte, os []*[12]byte) any {
			return build(os, func(b *[12]byte) *objectidtype.ObjectID { return (*objectidtype.ObjectID)(b) })
		}},
	"[]NullObjectID": {"o", func() any { return new([]objectidtype.NullObjectID) },
		func(d any) []string {
			return texts(*d.(*[]objectidtype.NullObjectID), func(v objectidtype.NullObjectID) (string, bool) { return v.ObjectID.String(), v.Valid })
		},
		func(_ []*[16]byte, os []*[12]byte) any {
			return build(os, func(b *[12]byte) objectidtype.NullObjectID {
				if b == nil {
					return objectidtype.NullObjectID{}
				}
				return objectidtype.NullObjectID{ObjectID: *b, Valid: true}
			})
		}},
	"[]sql.Null[ObjectID]": {"o", func() any { return new([]sql.Null[objectidtype.ObjectID]) },
		func(d any) []string {
			return texts(*d.(*[]sql.Null[objectidtype.ObjectID]), func(v sql.Null[objectidtype.ObjectID]) (string, bool) { return v.V.String(), v.Valid })
		},
		func(_ []*[16]byte, os []*[12]byte) any {
			return build(os, func(b *[12]byte) sql.Null[objectidtype.ObjectID] {
				if b == nil {
					return sql.Null[objectidtype.ObjectID]{}
				}
				return sql.Null[objectidtype.ObjectID]{V: *b, Valid: true}
			})
		}},
	"[]*ShortID": {"o", func() any { return new([]*objectidtype.ShortID) },
		func(d any) []string {
			return texts(*d.(*[]*objectidtype.ShortID), func(v *objectidtype.ShortID) (string, bool) {
				if v == nil {
					return "", false
				}
				return objectidtype.ObjectID(*v).String(), true
			})
		},
		func(_ []*[16]byte, os []*[12]byte) any {
			return build(os, func(b *[12]byte) *objectidtype.ShortID { return (*objectidtype.ShortID)(b) })
		}},
	"[]sql.Null[ShortID]": {"o", func() any { return new([]sql.Null[objectidtype.ShortID]) },
		func(d any) []string {
			return texts(*d.(*[]sql.Null[objectidtype.ShortID]), func(v sql.Null[objectidtype.ShortID]) (string, bool) {
				return objectidtype.ObjectID(v.V).String(), v.Valid
			})
		},
		func(_ []*[16]byte, os []*[12]byte) any {
			return build(os, func(b *[12]byte) sql.Null[objectidtype.ShortID] {
				if b == nil {
					return sql.Null[objectidtype.ShortID]{}
				}
				return sql.Null[objectidtype.ShortID]{V: objectidtype.ShortID(*b), Valid: true}
			})
		}},
}

// nullsQuery aggregates the u or o column of a LEFT JOIN with one missing
// row: the array holds a NULL element, and of the dom table its type is the
// domain's array type (pgid._ulid, pgid._objectid), which pgx does not know
// before LoadTypes.
const nullsQuery = `SELECT array_agg(t.%s ORDER BY p.i) FROM unnest($1::int8[]) WITH ORDINALITY p(k, i) LEFT JOIN %s t ON t.k = p.k`

// insertWithGap inserts two rows into each table and returns the keys to
// aggregate (the middle one missing) and the text of the IDs the arrays must
// hold per column.
func insertWithGap(t *testing.T, conn *pgx.Conn) (keys []int64, want map[string][]string, us []*[16]byte, os []*[12]byte) {
	t.Helper()
	u1, u3 := ulidtype.New(), ulidtype.New()
	o1, o3 := specialObjectIDs[4], specialObjectIDs[6]
	keys = []int64{nextKey(), nextKey(), nextKey()}
	for _, table := range tables {
		for i, k := range []int64{keys[0], keys[2]} {
			u, o := []ulidtype.ULID{u1, u3}[i], []objectidtype.ObjectID{o1, o3}[i]
			if _, err := conn.Exec(context.Background(), "INSERT INTO "+table+" (k, u, o) VALUES ($1, $2, $3)", k, u, o); err != nil {
				t.Fatal(err)
			}
		}
	}
	want = map[string][]string{"u": {u1.String(), "NULL", u3.String()}, "o": {o1.String(), "NULL", o3.String()}}
	return keys, want, []*[16]byte{(*[16]byte)(&u1), nil, (*[16]byte)(&u3)}, []*[12]byte{(*[12]byte)(&o1), nil, (*[12]byte)(&o3)}
}

// Arrays with NULL elements (array_agg over a LEFT JOIN) scan into every
// nullable slice type, and go in as parameters, in all five exec modes,
// after pgidpgx.Register alone and after pgidpgx.AfterConnect; of a domain
// column, a bare connection cannot scan them. Non-null slices ([]ULID,
// []ObjectID) reject the NULL element with ErrNull.
func TestNullableArrays(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dsn := newDB(t, true)
	setup := connect(t, dsn, pgx.QueryExecModeCacheStatement)
	if _, err := setup.Exec(ctx, driverTables); err != nil {
		t.Fatal(err)
	}
	keys, want, us, os := insertWithGap(t, setup)
	setups := map[string]func(*pgx.Conn) error{
		"Register":     func(c *pgx.Conn) error { pgidpgx.Register(c.TypeMap()); return nil },
		"AfterConnect": func(c *pgx.Conn) error { return pgidpgx.AfterConnect(ctx, c) },
	}
	for _, mode := range allModes {
		t.Run(modeName(mode), func(t *testing.T) {
			bare := connect(t, dsn, mode)
			for name, ns := range nullableSlices {
				err := bare.QueryRow(ctx, fmt.Sprintf(nullsQuery, ns.col, "dom"), keys).Scan(ns.dst())
				if err == nil || !strings.Contains(err.Error(), "unknown type") {
					t.Errorf("bare: array_agg(domain) into %s: %v, want an unknown type error", name, err)
				}
			}
			for setupName, apply := range setups {
				conn := connect(t, dsn, mode)
				if err := apply(conn); err != nil {
					t.Fatal(err)
				}
				for name, ns := range nullableSlices {
					for _, table := range tables {
						dst := ns.dst()
						err := conn.QueryRow(ctx, fmt.Sprintf(nullsQuery, ns.col, table), keys).Scan(dst)
						if got := ns.text(dst); err != nil || !slices.Equal(got, want[ns.col]) {
							t.Errorf("%s: array_agg(%s.%s) into %s: %v, %v; want %v", setupName, table, ns.col, name, got, err, want[ns.col])
						}
					}
					// The same slice as a parameter, back through the domain
					// array type.
					dst := ns.dst()
					domain := map[string]string{"u": "pgid.ulid", "o": "pgid.objectid"}[ns.col]
					err := conn.QueryRow(ctx, "SELECT $1::"+domain+"[]", ns.from(us, os)).Scan(dst)
					if got := ns.text(dst); err != nil || !slices.Equal(got, want[ns.col]) {
						t.Errorf("%s: %s as a %s[] parameter: %v, %v; want %v", setupName, name, domain, got, err, want[ns.col])
					}
				}
				var plainU []ulidtype.ULID
				err := conn.QueryRow(ctx, fmt.Sprintf(nullsQuery, "u", "dom"), keys).Scan(&plainU)
				if !errors.Is(err, ulidtype.ErrNull) {
					t.Errorf("%s: NULL element into []ULID: %v, want ErrNull", setupName, err)
				}
				var plainO []objectidtype.ObjectID
				err = conn.QueryRow(ctx, fmt.Sprintf(nullsQuery, "o", "dom"), keys).Scan(&plainO)
				if !errors.Is(err, objectidtype.ErrNull) {
					t.Errorf("%s: NULL element into []ObjectID: %v, want ErrNull", setupName, err)
				}
			}
		})
	}
}

// database/sql over pgx's stdlib: arrays arrive as text and scan through
// pgtype.Map.SQLScanner into every nullable slice type once the map has
// pgidpgx.Register, with or without AfterConnect on the connections, in all
// five exec modes. A map without Register cannot find their type.
func TestNullableArraysSQLScanner(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dsn := newDB(t, true)
	setup := connect(t, dsn, pgx.QueryExecModeCacheStatement)
	if _, err := setup.Exec(ctx, driverTables); err != nil {
		t.Fatal(err)
	}
	keys, want, _, _ := insertWithGap(t, setup)
	m := pgtype.NewMap()
	pgidpgx.Register(m)
	bareMap := pgtype.NewMap()
	for _, mode := range allModes {
		for _, afterConnect := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/AfterConnect=%v", modeName(mode), afterConnect), func(t *testing.T) {
				cfg, err := pgx.ParseConfig(dsn)
				if err != nil {
					t.Fatal(err)
				}
				cfg.DefaultQueryExecMode = mode
				var opts []stdlib.OptionOpenDB
				if afterConnect {
					opts = append(opts, stdlib.OptionAfterConnect(pgidpgx.AfterConnect))
				}
				sdb := stdlib.OpenDB(*cfg, opts...)
				defer sdb.Close()
				for name, ns := range nullableSlices {
					for _, table := range tables {
						query := fmt.Sprintf(nullsQuery, ns.col, table)
						dst := ns.dst()
						err := sdb.QueryRowContext(ctx, query, keys).Scan(m.SQLScanner(dst))
						if got := ns.text(dst); err != nil || !slices.Equal(got, want[ns.col]) {
							t.Errorf("%s.%s into %s: %v, %v; want %v", table, ns.col, name, got, err, want[ns.col])
						}
						err = sdb.QueryRowContext(ctx, query, keys).Scan(bareMap.SQLScanner(ns.dst()))
						if err == nil || !strings.Contains(err.Error(), "cannot find registered type") {
							t.Errorf("%s.%s into %s without Register: %v, want a cannot find registered type error", table, ns.col, name, err)
						}
					}
				}
			})
		}
	}
}
