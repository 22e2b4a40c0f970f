package pgidpgx

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/pgid/pgid/objectidtype"
	"github.com/pgid/pgid/typeid"
	"github.com/pgid/pgid/ulidtype"
)

// The ID types' encodings through a map Register changed. Their tests
// without Register, the types' own pgx interfaces, are in ulidtype and
// objectidtype (pgx_test.go); these are the same cases with it.

func formatName(f int16) string {
	if f == pgtype.BinaryFormatCode {
		return "binary"
	}
	return "text"
}

func ptr[T any](v T) *T { return &v }

// registered returns a new map that Register changed.
func registered() *pgtype.Map {
	m := pgtype.NewMap()
	Register(m)
	return m
}

// After Register, ULIDs encode as without it, and slices of them also
// with OID 0 (QueryExecModeExec, SimpleProtocol), as uuid[] text.
func TestRegisterULIDEncode(t *testing.T) {
	m := registered()
	u := vecULID
	for _, tt := range []struct {
		oid    uint32
		format int16
		value  any
		want   []byte // nil means SQL NULL
	}{
		{pgtype.UUIDOID, pgtype.BinaryFormatCode, u, u[:]},
		{pgtype.UUIDOID, pgtype.TextFormatCode, u, []byte(vecULIDText)},
		{pgtype.UUIDOID, pgtype.BinaryFormatCode, &u, u[:]},
		{pgtype.UUIDOID, pgtype.BinaryFormatCode, (*ulidtype.ULID)(nil), nil},
		{pgtype.UUIDOID, pgtype.BinaryFormatCode, ulidtype.NullULID{ULID: u, Valid: true}, u[:]},
		{pgtype.UUIDOID, pgtype.TextFormatCode, ulidtype.NullULID{ULID: u, Valid: true}, []byte(vecULIDText)},
		{pgtype.UUIDOID, pgtype.BinaryFormatCode, ulidtype.NullULID{ULID: u}, nil},
		{pgtype.UUIDOID, pgtype.BinaryFormatCode, ulidtype.ULID{}, make([]byte, 16)}, // the nil ID is not NULL
		{pgtype.UUIDArrayOID, pgtype.TextFormatCode, []ulidtype.ULID{u, {}}, []byte("{" + vecULIDText + ",00000000-0000-0000-0000-000000000000}")},
		{pgtype.UUIDArrayOID, pgtype.TextFormatCode, []ulidtype.NullULID{{ULID: u, Valid: true}, {}}, []byte("{" + vecULIDText + ",NULL}")},
		{0, pgtype.TextFormatCode, u, []byte(vecULIDText)},
		{0, pgtype.TextFormatCode, &u, []byte(vecULIDText)},
		{0, pgtype.TextFormatCode, ulidtype.NullULID{}, nil},
		{0, pgtype.TextFormatCode, []ulidtype.ULID{u, u}, []byte("{" + vecULIDText + "," + vecULIDText + "}")},
	} {
		got, err := m.Encode(tt.oid, tt.format, tt.value, nil)
		if err != nil {
			t.Errorf("Encode(%d, %d, %#v): %v", tt.oid, tt.format, tt.value, err)
			continue
		}
		if !bytes.Equal(got, tt.want) || (got == nil) != (tt.want == nil) {
			t.Errorf("Encode(%d, %d, %T) = %q, want %q", tt.oid, tt.format, tt.value, got, tt.want)
		}
	}
	// Binary uuid[] holds the raw bytes of each element.
	got, err := m.Encode(pgtype.UUIDArrayOID, pgtype.BinaryFormatCode, []ulidtype.ULID{u}, nil)
	if err != nil || !bytes.HasSuffix(got, append([]byte{0, 0, 0, 16}, u[:]...)) {
		t.Errorf("binary uuid[] = %x, %v", got, err)
	}
}

// After Register, every ObjectID value type encodes into bytea, OID 0 and
// an unloaded domain's OID as the bytea it is, and their nil forms as NULL.
func TestRegisterObjectIDEncode(t *testing.T) {
	m := registered()
	for _, oid := range []uint32{pgtype.ByteaOID, 0, domainOID} {
		for _, f := range []int16{pgtype.BinaryFormatCode, pgtype.TextFormatCode} {
			for _, v := range []any{vecOID, &vecOID, objectidtype.NullObjectID{ObjectID: vecOID, Valid: true}, objectidtype.ShortID(vecOID), ptr(objectidtype.ShortID(vecOID))} {
				buf, err := m.Encode(oid, f, v, nil)
				if err != nil || !bytes.Equal(buf, wire(f)) {
					t.Errorf("oid=%d %s %T: encoded %q, %v; want %q", oid, formatName(f), v, buf, err, wire(f))
				}
			}
			for _, v := range []any{(*objectidtype.ObjectID)(nil), objectidtype.NullObjectID{}, (*objectidtype.NullObjectID)(nil), (*objectidtype.ShortID)(nil)} {
				buf, err := m.Encode(oid, f, v, nil)
				if err != nil || buf != nil {
					t.Errorf("oid=%d %s %T: Encode = %q, %v; want NULL", oid, formatName(f), v, buf, err)
				}
			}
		}
	}
}

// After Register, the parameters of one query, built as each QueryExecMode
// builds them, still reach the server as bytea: 12 raw bytes in binary, \x
// hex in text, never the bare String form.
func TestRegisterObjectIDQueryExecModes(t *testing.T) {
	m := registered()
	args := []any{vecOID, &vecOID, objectidtype.NullObjectID{ObjectID: vecOID, Valid: true}}
	check := func(name string, eqb *pgx.ExtendedQueryBuilder) {
		t.Helper()
		for i, v := range eqb.ParamValues {
			f := eqb.ParamFormats[i]
			if !bytes.Equal(v, wire(f)) {
				t.Errorf("%s: param %d (%s) = %q, want %q", name, i, formatName(f), v, wire(f))
			}
			if strings.Contains(string(v), vecOID.Hex()) && !strings.HasPrefix(string(v), `\x`) {
				t.Errorf("%s: param %d leaks the String form", name, i)
			}
		}
	}
	// CacheStatement, CacheDescribe and DescribeExec know the parameter
	// OIDs from the server: bytea, or a domain's OID.
	for _, oid := range []uint32{pgtype.ByteaOID, domainOID} {
		sd := &pgconn.StatementDescription{ParamOIDs: []uint32{oid, oid, oid}}
		var eqb pgx.ExtendedQueryBuilder
		if err := eqb.Build(m, sd, args); err != nil {
			t.Fatalf("described oid=%d: %v", oid, err)
		}
		check(fmt.Sprintf("described oid=%d", oid), &eqb)
	}
	// Exec sends text with OID 0.
	var eqb pgx.ExtendedQueryBuilder
	if err := eqb.Build(m, nil, args); err != nil {
		t.Fatalf("exec: %v", err)
	}
	check("exec", &eqb)
	// The simple protocol encodes each argument as text with OID 0.
	for _, a := range args {
		buf, err := m.Encode(0, pgtype.TextFormatCode, a, []byte{})
		if err != nil || !bytes.Equal(buf, wire(pgtype.TextFormatCode)) {
			t.Errorf("simple protocol %T: %q, %v", a, buf, err)
		}
	}
}

// After Register, []ObjectID encodes as bytea[] also with OID 0 and an
// unloaded domain array's OID, and scans back into []ObjectID and
// []NullObjectID; a NULL element scans into []NullObjectID only.
func TestRegisterObjectIDArray(t *testing.T) {
	m := registered()
	ids := []objectidtype.ObjectID{vecOID, {}, objectidtype.MustParse("ffffffffffffffffffffffff")}
	for _, oid := range []uint32{pgtype.ByteaArrayOID, 0, domainOID + 1} {
		for _, f := range []int16{pgtype.BinaryFormatCode, pgtype.TextFormatCode} {
			name := fmt.Sprintf("oid=%d %s", oid, formatName(f))
			buf, err := m.Encode(oid, f, ids, nil)
			if err != nil {
				t.Errorf("%s: Encode: %v", name, err)
				continue
			}
			if f == pgtype.TextFormatCode {
				want := `{"\\x` + vecOID.Hex() + `","\\x000000000000000000000000","\\xffffffffffffffffffffffff"}`
				if string(buf) != want {
					t.Errorf("%s: %s, want %s", name, buf, want)
				}
			}
			var got []objectidtype.ObjectID
			if err := m.Scan(pgtype.ByteaArrayOID, f, buf, &got); err != nil || len(got) != 3 || got[0] != ids[0] || got[1] != ids[1] || got[2] != ids[2] {
				t.Errorf("%s: Scan = %v, %v", name, got, err)
			}
			var nulls []objectidtype.NullObjectID
			if err := m.Scan(pgtype.ByteaArrayOID, f, buf, &nulls); err != nil || len(nulls) != 3 || nulls[0] != (objectidtype.NullObjectID{ObjectID: vecOID, Valid: true}) {
				t.Errorf("%s: Scan []NullObjectID = %v, %v", name, nulls, err)
			}
		}
	}
	buf, err := m.Encode(pgtype.ByteaArrayOID, pgtype.BinaryFormatCode, []objectidtype.NullObjectID{{ObjectID: vecOID, Valid: true}, {}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var nulls []objectidtype.NullObjectID
	if err := m.Scan(pgtype.ByteaArrayOID, pgtype.BinaryFormatCode, buf, &nulls); err != nil || len(nulls) != 2 || nulls[1].Valid {
		t.Errorf("[]NullObjectID with NULL: %v, %v", nulls, err)
	}
	var plain []objectidtype.ObjectID
	if err := m.Scan(pgtype.ByteaArrayOID, pgtype.BinaryFormatCode, buf, &plain); !errors.Is(err, objectidtype.ErrNull) {
		t.Errorf("NULL element into []ObjectID: %v", err)
	}
}

var sinkEncoded []byte

// BenchmarkObjectIDByteaEncode encodes an ObjectID into a bytea parameter
// through pgx's own bytea codec (BytesValue: one 12-byte allocation) and
// through the one Register installs (none).
func BenchmarkObjectIDByteaEncode(b *testing.B) {
	for _, register := range []bool{false, true} {
		name := "ByteaCodec"
		m := pgtype.NewMap()
		if register {
			name = "Register"
			Register(m)
		}
		b.Run(name, func(b *testing.B) {
			var v any = vecOID
			plan := m.PlanEncode(pgtype.ByteaOID, pgtype.BinaryFormatCode, v)
			buf := make([]byte, 0, 64)
			b.ReportAllocs()
			for b.Loop() {
				buf, _ = plan.Encode(v, buf[:0])
			}
			sinkEncoded = buf
		})
	}
}

type tidPrefix struct{}

func (tidPrefix) Prefix() string { return "user" }

// After Register, a ULID or TypeID bound to a bytea parameter (bytea,
// pgid.objectid as LoadTypes registers it, their array elements) is still
// refused in both formats by their BytesValue: Register's bytea codecs hand
// them to pgx's. Before, pgx stored the 36 characters of the UUID text as 36
// bytes (or pgid.objectid's CHECK failed). NULL stays NULL.
func TestRegisterNotBytea(t *testing.T) {
	m := registered()
	dom := &pgtype.Type{Name: "objectid", OID: domainOID, Codec: objectIDCodec{}}
	m.RegisterType(dom)
	m.RegisterType(&pgtype.Type{Name: "_objectid", OID: domainOID + 1, Codec: &pgtype.ArrayCodec{ElementType: dom}})
	u := vecULID
	tid := typeid.FromULID[tidPrefix](u)
	for _, oid := range []uint32{pgtype.ByteaOID, domainOID} {
		for _, f := range formats {
			for _, v := range []any{
				u, &u, ulidtype.NullULID{ULID: u, Valid: true}, ptr(ulidtype.NullULID{ULID: u, Valid: true}),
				tid, &tid, typeid.NullID[tidPrefix]{ID: tid, Valid: true}, tid.Any(), ulidtype.ULID{},
			} {
				name := fmt.Sprintf("oid=%d %s %T", oid, formatName(f), v)
				buf, err := m.Encode(oid, f, v, nil)
				if !errors.Is(err, ulidtype.ErrNotBytea) || buf != nil {
					t.Errorf("%s: encoded %q, %v; want an error wrapping ulidtype.ErrNotBytea", name, buf, err)
				} else if !strings.Contains(err.Error(), "store it in uuid or pgid.ulid") {
					t.Errorf("%s: %v does not name uuid or pgid.ulid", name, err)
				}
			}
			for _, v := range []any{(*ulidtype.ULID)(nil), ulidtype.NullULID{}, (*typeid.ID[tidPrefix])(nil), typeid.NullID[tidPrefix]{}} {
				if buf, err := m.Encode(oid, f, v, nil); err != nil || buf != nil {
					t.Errorf("oid=%d %s %T: encoded %q, %v; want NULL", oid, formatName(f), v, buf, err)
				}
			}
		}
	}
	for _, oid := range []uint32{pgtype.ByteaArrayOID, domainOID + 1} {
		for _, f := range formats {
			for _, v := range []any{[]ulidtype.ULID{u}, []*ulidtype.ULID{&u}, []typeid.ID[tidPrefix]{tid}} {
				if buf, err := m.Encode(oid, f, v, nil); !errors.Is(err, ulidtype.ErrNotBytea) {
					t.Errorf("oid=%d %s %T: encoded %q, %v; want an error wrapping ulidtype.ErrNotBytea", oid, formatName(f), v, buf, err)
				}
			}
		}
	}
	// What stays: raw bytes, and ObjectIDs.
	for _, v := range []any{u.Bytes(), tid.Bytes(), vecOID} {
		if _, err := m.Encode(pgtype.ByteaOID, pgtype.BinaryFormatCode, v, nil); err != nil {
			t.Errorf("%T into bytea: %v", v, err)
		}
	}
}

// After Register the IDs' binary encodes allocate nothing (ObjectID's
// UUIDValue and ULID's BytesValue, which refuse, are not on these paths).
func TestRegisterEncodeAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts need a normal build")
	}
	m := registered()
	buf := make([]byte, 0, 64)
	for _, tt := range []struct {
		oid uint32
		v   any
	}{
		{pgtype.ByteaOID, vecOID},
		{pgtype.ByteaOID, objectidtype.NullObjectID{ObjectID: vecOID, Valid: true}},
		{pgtype.UUIDOID, vecULID},
		{pgtype.UUIDOID, typeid.FromULID[tidPrefix](vecULID)},
	} {
		plan := m.PlanEncode(tt.oid, pgtype.BinaryFormatCode, tt.v)
		if n := testing.AllocsPerRun(100, func() { buf, _ = plan.Encode(tt.v, buf[:0]) }); n != 0 {
			t.Errorf("%T into OID %d: %v allocations, want 0", tt.v, tt.oid, n)
		}
	}
}
