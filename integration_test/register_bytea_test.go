package integration_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/pgid/pgid/objectidtype"
	"github.com/pgid/pgid/pgidpgx"
)

// blob is a named []byte, as applications declare them.
type blob []byte

// byteaBehaviour records what a connection does with bytea values that are
// not ObjectIDs: parameters of every []byte flavour in every exec mode, as
// scalars and arrays, results into []byte, any and DriverBytes, Values,
// CopyFrom and SQLScanner.
func byteaBehaviour(t *testing.T, dsn string, register bool) map[string]string {
	ctx := context.Background()
	out := map[string]string{}
	rec := func(k string, v any, err error) { out[k] = fmt.Sprintf("%#v / %v", v, err) }
	args := map[string]any{
		"bytes": []byte{0, 1, '\\', '\'', 0xff}, "nil": []byte(nil), "empty": []byte{},
		"blob": blob{1, 2}, "raw": json.RawMessage(`{"a":1}`), "string": `\x0102`,
	}
	arrays := map[string]any{"[][]byte": [][]byte{{1}, nil, {}}, "[]blob": []blob{{1}, nil}}
	for _, mode := range allModes {
		conn := connect(t, dsn, mode)
		if register {
			pgidpgx.Register(conn.TypeMap())
		}
		for name, a := range args {
			var got []byte
			err := conn.QueryRow(ctx, "SELECT $1::bytea", a).Scan(&got)
			rec(fmt.Sprint(mode, " scalar ", name), got, err)
			var v any
			err = conn.QueryRow(ctx, "SELECT $1::bytea", a).Scan(&v)
			rec(fmt.Sprint(mode, " any ", name), v, err)
			var n int
			var isNull bool
			err = conn.QueryRow(ctx, "SELECT coalesce(octet_length($1::bytea), -1), $1::bytea IS NULL", a).Scan(&n, &isNull)
			rec(fmt.Sprint(mode, " length ", name), [2]any{n, isNull}, err)
		}
		for name, a := range arrays {
			var got [][]byte
			err := conn.QueryRow(ctx, "SELECT $1::bytea[]", a).Scan(&got)
			rec(fmt.Sprint(mode, " array ", name), got, err)
			var v any
			err = conn.QueryRow(ctx, "SELECT $1::bytea[]", a).Scan(&v)
			rec(fmt.Sprint(mode, " array any ", name), v, err)
		}
		var d pgtype.DriverBytes
		err := conn.QueryRow(ctx, `SELECT '\x0001'::bytea`).Scan(&d)
		rec(fmt.Sprint(mode, " DriverBytes"), []byte(d), err)
		rows, err := conn.Query(ctx, `SELECT '\x01'::bytea, NULL::bytea, ARRAY['\x02'::bytea]`)
		if err != nil {
			t.Fatal(err)
		}
		rows.Next()
		vals, err := rows.Values()
		rows.Close()
		rec(fmt.Sprint(mode, " Values"), vals, err)
		var s string
		err = conn.QueryRow(ctx, "SELECT pg_typeof($1)::text || ':' || $1::text", []byte("ab")).Scan(&s)
		rec(fmt.Sprint(mode, " untyped []byte"), s, err)
	}
	conn := connect(t, dsn, pgx.QueryExecModeCacheStatement)
	if register {
		pgidpgx.Register(conn.TypeMap())
	}
	if _, err := conn.Exec(ctx, "CREATE TEMP TABLE b (b bytea, a bytea[])"); err != nil {
		t.Fatal(err)
	}
	_, err := conn.CopyFrom(ctx, pgx.Identifier{"b"}, []string{"b", "a"}, pgx.CopyFromRows([][]any{
		{[]byte{1}, [][]byte{{2}}}, {nil, nil}, {[]byte(nil), [][]byte{nil}}, {blob{9}, nil},
	}))
	rec("CopyFrom", nil, err)
	var s string
	err = conn.QueryRow(ctx, "SELECT string_agg(coalesce(encode(b, 'hex'), 'NULL') || '|' || coalesce(a::text, 'NULL'), ',' ORDER BY b) FROM b").Scan(&s)
	rec("CopyFrom stored", s, err)
	var bb [][]byte
	err = conn.TypeMap().SQLScanner(&bb).Scan(`{"\\x01",NULL}`)
	rec("SQLScanner", bb, err)
	return out
}

// pgidpgx.Register replaces the connection's bytea codec (to encode
// ObjectIDs without allocating): everything that is not an ObjectID must
// behave exactly as with pgx's own codec.
func TestRegisterKeepsBytea(t *testing.T) {
	dsn := newDB(t, false)
	plain := byteaBehaviour(t, dsn, false)
	registered := byteaBehaviour(t, dsn, true)
	if len(plain) < 100 {
		t.Fatalf("only %d observations", len(plain))
	}
	for k, v := range plain {
		if registered[k] != v {
			t.Errorf("%s:\n  pgx:      %s\n  Register: %s", k, v, registered[k])
		}
	}
	// And the ObjectID flavours go in as their 12 bytes in every mode.
	o := objectidtype.MustParse("4e7020cb7cac81af7136236b")
	for _, mode := range allModes {
		conn := connect(t, dsn, mode)
		pgidpgx.Register(conn.TypeMap())
		for _, a := range []any{o, &o, objectidtype.ShortID(o), objectidtype.NullObjectID{ObjectID: o, Valid: true}} {
			var hex string
			if err := conn.QueryRow(context.Background(), "SELECT encode($1::bytea, 'hex')", a).Scan(&hex); err != nil || hex != o.String() {
				t.Errorf("%v %T: stored %s, %v", mode, a, hex, err)
			}
		}
		var n int
		arr := []*objectidtype.ObjectID{&o, nil}
		if err := conn.QueryRow(context.Background(), "SELECT cardinality($1::bytea[])", arr).Scan(&n); err != nil || n != 2 {
			t.Errorf("%v []*ObjectID: %d, %v", mode, n, err)
		}
	}
}
