package pgidpgx_test

import (
	"context"
	"database/sql"
	"fmt"
	"reflect"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/pgid/pgid/objectidtype"
	"github.com/pgid/pgid/pgidpgx"
	"github.com/pgid/pgid/ulidtype"
)

// Register names the PostgreSQL types of the Go types, for parameters and
// results of unknown OID. (Tests against a server are in integration_test.)
func TestRegister(t *testing.T) {
	m := pgtype.NewMap()
	pgidpgx.Register(m)
	type (
		U  = ulidtype.ULID
		NU = ulidtype.NullULID
		O  = objectidtype.ObjectID
		NO = objectidtype.NullObjectID
		S  = objectidtype.ShortID
	)
	for want, vs := range map[string][]any{
		"uuid":  {U{}, (*U)(nil), NU{}},
		"_uuid": {[]U(nil), []*U(nil), []NU(nil), []sql.Null[U](nil), (*[]U)(nil), (*[]*U)(nil), (*[]NU)(nil), (*[]sql.Null[U])(nil)},
		"bytea": {O{}, (*O)(nil), NO{}, S{}, (*S)(nil)},
		"_bytea": {
			[]O(nil), []*O(nil), []NO(nil), []sql.Null[O](nil), (*[]O)(nil), (*[]*O)(nil), (*[]NO)(nil), (*[]sql.Null[O])(nil),
			[]S(nil), []*S(nil), []sql.Null[S](nil), (*[]S)(nil), (*[]*S)(nil), (*[]sql.Null[S])(nil),
		},
	} {
		for _, v := range vs {
			typ, ok := m.TypeForValue(v)
			if !ok || typ.Name != want {
				t.Errorf("%T: %v %v, want %s", v, typ, ok, want)
			}
		}
	}
}

// After Register, ObjectIDs encode into plain bytea in binary format without
// allocating; in both formats they encode to the bytes pgx's own codec
// writes, and bytea still decodes into any as []byte.
func TestRegisterByteaEncoding(t *testing.T) {
	m := pgtype.NewMap()
	pgidpgx.Register(m)
	o := objectidtype.New()
	for _, v := range []any{o, &o, objectidtype.ShortID(o), objectidtype.NullObjectID{ObjectID: o, Valid: true}} {
		for _, f := range []int16{pgtype.BinaryFormatCode, pgtype.TextFormatCode} {
			want, err := pgtype.NewMap().Encode(pgtype.ByteaOID, f, v, nil)
			if err != nil {
				t.Fatal(err)
			}
			plan := m.PlanEncode(pgtype.ByteaOID, f, v)
			buf := make([]byte, 0, 32)
			if n := testing.AllocsPerRun(100, func() { buf, _ = plan.Encode(v, buf[:0]) }); n != 0 && f == pgtype.BinaryFormatCode {
				t.Errorf("format %d %T into bytea: %v allocations, want 0", f, v, n)
			}
			if string(buf) != string(want) {
				t.Errorf("format %d %T: encoded %q, pgx's codec %q", f, v, buf, want)
			}
		}
	}
	var a any
	if err := m.Scan(pgtype.ByteaOID, pgtype.BinaryFormatCode, []byte{1, 2}, &a); err != nil {
		t.Fatal(err)
	}
	if b, ok := a.([]byte); !ok || string(b) != "\x01\x02" {
		t.Errorf("bytea into any = %#v", a)
	}
}

// unknownOID stands for the OID of a pgid domain array pgx has not loaded,
// as array_agg(domain_col) returns it.
const unknownOID = 98765

// Arrays with NULL elements, of an OID pgx does not know (array_agg of a
// domain column, which pgx receives as text) and through SQLScanner, scan
// into every nullable slice type after Register, and into none before.
func TestRegisterNullableArrays(t *testing.T) {
	u := ulidtype.MustParse("01GFGGMBFGB5WKXBN7S84ATRDG")
	o := objectidtype.MustParse("4e7020cb7cac81af7136236b")
	uText := "{NULL," + u.UUIDString() + "}"
	oText := `{NULL,"\\x` + o.Hex() + `"}`
	for _, c := range []struct {
		text string
		dst  func() any     // a pointer to a fresh slice
		want func(any) bool // the slice holds NULL, then the ID
	}{
		{uText, func() any { return new([]*ulidtype.ULID) }, func(v any) bool {
			s := *v.(*[]*ulidtype.ULID)
			return len(s) == 2 && s[0] == nil && *s[1] == u
		}},
		{uText, func() any { return new([]ulidtype.NullULID) }, func(v any) bool {
			s := *v.(*[]ulidtype.NullULID)
			return len(s) == 2 && !s[0].Valid && s[1] == ulidtype.NullULID{ULID: u, Valid: true}
		}},
		{uText, func() any { return new([]sql.Null[ulidtype.ULID]) }, func(v any) bool {
			s := *v.(*[]sql.Null[ulidtype.ULID])
			return len(s) == 2 && !s[0].Valid && s[1] == sql.Null[ulidtype.ULID]{V: u, Valid: true}
		}},
		{oText, func() any { return new([]*objectidtype.ObjectID) }, func(v any) bool {
			s := *v.(*[]*objectidtype.ObjectID)
			return len(s) == 2 && s[0] == nil && *s[1] == o
		}},
		{oText, func() any { return new([]objectidtype.NullObjectID) }, func(v any) bool {
			s := *v.(*[]objectidtype.NullObjectID)
			return len(s) == 2 && !s[0].Valid && s[1] == objectidtype.NullObjectID{ObjectID: o, Valid: true}
		}},
		{oText, func() any { return new([]sql.Null[objectidtype.ObjectID]) }, func(v any) bool {
			s := *v.(*[]sql.Null[objectidtype.ObjectID])
			return len(s) == 2 && !s[0].Valid && s[1] == sql.Null[objectidtype.ObjectID]{V: o, Valid: true}
		}},
		{oText, func() any { return new([]*objectidtype.ShortID) }, func(v any) bool {
			s := *v.(*[]*objectidtype.ShortID)
			return len(s) == 2 && s[0] == nil && *s[1] == objectidtype.ShortID(o)
		}},
		{oText, func() any { return new([]sql.Null[objectidtype.ShortID]) }, func(v any) bool {
			s := *v.(*[]sql.Null[objectidtype.ShortID])
			return len(s) == 2 && !s[0].Valid && s[1] == sql.Null[objectidtype.ShortID]{V: objectidtype.ShortID(o), Valid: true}
		}},
	} {
		name := reflect.TypeOf(c.dst()).String()
		bare := pgtype.NewMap()
		if err := bare.Scan(unknownOID, pgtype.TextFormatCode, []byte(c.text), c.dst()); err == nil {
			t.Errorf("%s: scanned an unknown OID without Register; the test premise is gone", name)
		}
		m := pgtype.NewMap()
		pgidpgx.Register(m)
		dst := c.dst()
		if err := m.Scan(unknownOID, pgtype.TextFormatCode, []byte(c.text), dst); err != nil || !c.want(dst) {
			t.Errorf("%s: unknown OID: %v, %v", name, reflect.ValueOf(dst).Elem(), err)
		}
		dst = c.dst()
		if err := m.SQLScanner(dst).Scan(c.text); err != nil || !c.want(dst) {
			t.Errorf("%s: SQLScanner: %v, %v", name, reflect.ValueOf(dst).Elem(), err)
		}
		// And the same slices encode with OID 0 (QueryExecModeExec,
		// SimpleProtocol) as the array text.
		if buf, err := m.Encode(0, pgtype.TextFormatCode, reflect.ValueOf(dst).Elem().Interface(), nil); err != nil || string(buf) != c.text {
			t.Errorf("%s: OID 0 encode: %s, %v; want %s", name, buf, err, c.text)
		}
	}
}

func ExampleAfterConnect() {
	ctx := context.Background()
	cfg, err := pgxpool.ParseConfig("postgres://postgres@localhost:5432/app")
	if err != nil {
		panic(err)
	}
	// Register and LoadTypes on every pooled connection: slices in every
	// QueryExecMode, domain arrays scannable, domain parameters in binary,
	// ObjectIDs into bytea without allocating. Needs the pgid migrations.
	cfg.AfterConnect = pgidpgx.AfterConnect
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		panic(err)
	}
	defer pool.Close()
}

// Register on a map of its own, as database/sql programs use one with
// pgtype.Map.SQLScanner to scan arrays: pgid.ulid[] text arrives under an
// OID the map does not know, and Register names the target's type.
func ExampleRegister() {
	m := pgtype.NewMap()
	pgidpgx.Register(m)

	var ids []*ulidtype.ULID
	// rows.Scan(m.SQLScanner(&ids)) for "SELECT array_agg(parent) FROM ..."
	err := m.SQLScanner(&ids).Scan("{0183e10a-2df0-5979-3eae-a7ca08ad61b0,NULL}")
	fmt.Println(*ids[0], ids[1], err)

	// []ObjectID as a parameter with OID 0 (QueryExecModeExec,
	// QueryExecModeSimpleProtocol).
	buf, err := m.Encode(0, pgtype.TextFormatCode, []objectidtype.ObjectID{objectidtype.MustParse("4e7020cb7cac81af7136236b")}, nil)
	fmt.Println(string(buf), err)
	// Output:
	// 01GFGGMBFGB5WKXBN7S84ATRDG <nil> <nil>
	// {"\\x4e7020cb7cac81af7136236b"} <nil>
}

// Without DecodeUUIDAsULID a uuid scanned into an any is a [16]byte; with it,
// a ULID. Typed scans are the same either way.
func ExampleDecodeUUIDAsULID() {
	id := ulidtype.MustParse("01GFGGMBFGB5WKXBN7S84ATRDG")
	m := pgtype.NewMap() // with a connection: conn.TypeMap()
	var v any
	_ = m.Scan(pgtype.UUIDOID, pgtype.BinaryFormatCode, id[:], &v)
	fmt.Printf("%T\n", v)

	pgidpgx.DecodeUUIDAsULID(m)
	_ = m.Scan(pgtype.UUIDOID, pgtype.BinaryFormatCode, id[:], &v)
	fmt.Printf("%T %v\n", v, v)
	// Output:
	// [16]uint8
	// ulidtype.ULID 01GFGGMBFGB5WKXBN7S84ATRDG
}

// A pool whose connections also decode every uuid into an any as a ULID.
func ExampleDecodeUUIDAsULID_pool() {
	cfg, err := pgxpool.ParseConfig("postgres://postgres@localhost:5432/app")
	if err != nil {
		panic(err)
	}
	cfg.AfterConnect = func(ctx context.Context, conn *pgx.Conn) error {
		pgidpgx.DecodeUUIDAsULID(conn.TypeMap())
		return pgidpgx.AfterConnect(ctx, conn)
	}
	_ = cfg
}
