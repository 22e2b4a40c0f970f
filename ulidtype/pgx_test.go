package ulidtype

import (
	"bytes"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5/pgtype"
)

// Compile-time checks of the interfaces pgx's uuid codec uses.
var (
	_ pgtype.UUIDScanner               = (*ULID)(nil)
	_ pgtype.UUIDValuer                = ULID{}
	_ pgtype.SkipUnderlyingTypePlanner = ULID{}
	_ pgtype.UUIDScanner               = (*NullULID)(nil)
	_ pgtype.UUIDValuer                = NullULID{}
	_ pgtype.SkipUnderlyingTypePlanner = NullULID{}
	_ pgtype.BytesValuer               = ULID{}
	_ pgtype.BytesValuer               = NullULID{}
)

// A ULID bound to a bytea parameter (bytea, a bytea[] element, a domain over
// bytea whose codec is pgx's bytea codec) is refused in both formats, with
// pgx's own codecs; before, pgx fell back to Value, the UUID text, which
// PostgreSQL stored as 36 bytes. NULL stays NULL; uuid is unaffected.
func TestPgxEncodeNotBytea(t *testing.T) {
	const domainOID = 98765
	m := pgtype.NewMap()
	m.RegisterType(&pgtype.Type{Name: "objectid", OID: domainOID, Codec: pgtype.ByteaCodec{}})
	u := vecULID
	for _, f := range []int16{pgtype.BinaryFormatCode, pgtype.TextFormatCode} {
		for _, tt := range []struct {
			oid uint32
			v   any
		}{
			{pgtype.ByteaOID, u}, {pgtype.ByteaOID, &u}, {pgtype.ByteaOID, NullULID{u, true}}, {pgtype.ByteaOID, ULID{}},
			{domainOID, u}, {pgtype.ByteaArrayOID, []ULID{u}}, {pgtype.ByteaArrayOID, []NullULID{{u, true}}},
		} {
			buf, err := m.Encode(tt.oid, f, tt.v, nil)
			if !errors.Is(err, ErrNotBytea) || buf != nil {
				t.Errorf("oid=%d format %d %T: encoded %q, %v; want an error wrapping ErrNotBytea", tt.oid, f, tt.v, buf, err)
			}
		}
		for _, v := range []any{NullULID{}, (*ULID)(nil)} {
			if buf, err := m.Encode(pgtype.ByteaOID, f, v, nil); err != nil || buf != nil {
				t.Errorf("format %d %T NULL into bytea: %q, %v; want NULL", f, v, buf, err)
			}
		}
	}
	want := "ulidtype: a ULID or TypeID is not a bytea: 01GFGGMBFGB5WKXBN7S84ATRDG is 16 bytes; store it in uuid or pgid.ulid, not in bytea or pgid.objectid (bind Bytes() for the raw 16 bytes)"
	if _, err := u.BytesValue(); err == nil || err.Error() != want {
		t.Errorf("BytesValue: %v, want %s", err, want)
	}
}

const vecText = "0183e10a-2df0-5979-3eae-a7ca08ad61b0"

var vecULID = MustParse("01GFGGMBFGB5WKXBN7S84ATRDG")

// TestPgxEncode encodes through pgx's own uuid codec, with no
// registration: the interfaces ULID and NullULID implement. The same cases
// after pgidpgx.Register are pgidpgx's TestRegisterULIDEncode.
func TestPgxEncode(t *testing.T) {
	u := vecULID
	m := pgtype.NewMap()
	tests := []struct {
		oid    uint32
		format int16
		value  any
		want   []byte // nil means SQL NULL
	}{
		{pgtype.UUIDOID, pgtype.BinaryFormatCode, u, u[:]},
		{pgtype.UUIDOID, pgtype.TextFormatCode, u, []byte(vecText)},
		{pgtype.UUIDOID, pgtype.BinaryFormatCode, &u, u[:]},
		{pgtype.UUIDOID, pgtype.BinaryFormatCode, (*ULID)(nil), nil},
		{pgtype.UUIDOID, pgtype.BinaryFormatCode, NullULID{ULID: u, Valid: true}, u[:]},
		{pgtype.UUIDOID, pgtype.TextFormatCode, NullULID{ULID: u, Valid: true}, []byte(vecText)},
		{pgtype.UUIDOID, pgtype.BinaryFormatCode, NullULID{ULID: u}, nil},
		{pgtype.UUIDOID, pgtype.BinaryFormatCode, ULID{}, make([]byte, 16)}, // the nil ID is not NULL
		{pgtype.UUIDArrayOID, pgtype.TextFormatCode, []ULID{u, {}}, []byte("{" + vecText + ",00000000-0000-0000-0000-000000000000}")},
		{pgtype.UUIDArrayOID, pgtype.TextFormatCode, []NullULID{{ULID: u, Valid: true}, {}}, []byte("{" + vecText + ",NULL}")},
		// OID 0: the text modes (QueryExecModeExec, SimpleProtocol) and
		// parameters of unloaded domain types. The driver.Valuer path
		// gives the UUID text even without pgidpgx.Register.
		{0, pgtype.TextFormatCode, u, []byte(vecText)},
		{0, pgtype.TextFormatCode, &u, []byte(vecText)},
		{0, pgtype.TextFormatCode, NullULID{}, nil},
	}
	for _, tt := range tests {
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
	got, err := m.Encode(pgtype.UUIDArrayOID, pgtype.BinaryFormatCode, []ULID{u}, nil)
	if err != nil || !bytes.HasSuffix(got, append([]byte{0, 0, 0, 16}, u[:]...)) {
		t.Errorf("binary uuid[] = %x, %v", got, err)
	}
	// Slices with OID 0 need pgidpgx.Register to be known as uuid[].
	got, err = m.Encode(0, pgtype.TextFormatCode, []ULID{u, u}, nil)
	if err == nil {
		t.Errorf("unregistered []ULID with OID 0 encoded as %q; expected pgx to need pgidpgx.Register", got)
	}
}

func TestPgxScan(t *testing.T) {
	m := pgtype.NewMap()
	u := vecULID
	for _, src := range []struct {
		format int16
		data   []byte
	}{
		{pgtype.BinaryFormatCode, u[:]},
		{pgtype.TextFormatCode, []byte(vecText)},
	} {
		var v ULID
		if err := m.Scan(pgtype.UUIDOID, src.format, src.data, &v); err != nil || v != u {
			t.Errorf("format %d: scan ULID = %v, %v", src.format, v, err)
		}
		var p *ULID
		if err := m.Scan(pgtype.UUIDOID, src.format, src.data, &p); err != nil || p == nil || *p != u {
			t.Errorf("format %d: scan *ULID = %v, %v", src.format, p, err)
		}
		var n NullULID
		if err := m.Scan(pgtype.UUIDOID, src.format, src.data, &n); err != nil || !n.Valid || n.ULID != u {
			t.Errorf("format %d: scan NullULID = %+v, %v", src.format, n, err)
		}
		// NULL: an error for ULID, nil for *ULID, invalid for NullULID.
		v = u
		if err := m.Scan(pgtype.UUIDOID, src.format, nil, &v); !errors.Is(err, ErrNull) || v != u {
			t.Errorf("format %d: scan NULL into ULID = %v, value %v", src.format, err, v)
		}
		p = &v
		if err := m.Scan(pgtype.UUIDOID, src.format, nil, &p); err != nil || p != nil {
			t.Errorf("format %d: scan NULL into *ULID = %v, %v", src.format, p, err)
		}
		if err := m.Scan(pgtype.UUIDOID, src.format, nil, &n); err != nil || n.Valid {
			t.Errorf("format %d: scan NULL into NullULID = %+v, %v", src.format, n, err)
		}
	}
	// uuid[] into []ULID and []NullULID.
	arr, err := m.Encode(pgtype.UUIDArrayOID, pgtype.BinaryFormatCode, []NullULID{{ULID: u, Valid: true}, {}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var ns []NullULID
	if err := m.Scan(pgtype.UUIDArrayOID, pgtype.BinaryFormatCode, arr, &ns); err != nil || len(ns) != 2 || ns[0].ULID != u || !ns[0].Valid || ns[1].Valid {
		t.Errorf("scan uuid[] into []NullULID = %+v, %v", ns, err)
	}
	var us []ULID
	if err := m.Scan(pgtype.UUIDArrayOID, pgtype.BinaryFormatCode, arr, &us); !errors.Is(err, ErrNull) {
		t.Errorf("scan uuid[] with NULL into []ULID = %v, want ErrNull", err)
	}
	for _, format := range []int16{pgtype.BinaryFormatCode, pgtype.TextFormatCode} {
		arr, err := m.Encode(pgtype.UUIDArrayOID, format, []ULID{u, {}, u}, nil)
		if err != nil {
			t.Fatal(err)
		}
		var us []ULID
		if err := m.Scan(pgtype.UUIDArrayOID, format, arr, &us); err != nil || len(us) != 3 || us[0] != u || !us[1].IsZero() || us[2] != u {
			t.Errorf("format %d: scan uuid[] into []ULID = %v, %v", format, us, err)
		}
	}
	// A bad text value is an error, not a zero ULID.
	var v ULID
	if err := m.Scan(pgtype.UUIDOID, pgtype.TextFormatCode, []byte("not-a-uuid"), &v); err == nil {
		t.Error("scanning bad uuid text succeeded")
	}
}

func TestPgxAllocs(t *testing.T) {
	m := pgtype.NewMap()
	u := vecULID
	var dst ULID
	scan := m.PlanScan(pgtype.UUIDOID, pgtype.BinaryFormatCode, &dst)
	if n := testing.AllocsPerRun(100, func() { _ = scan.Scan(u[:], &dst) }); n != 0 {
		t.Errorf("binary scan: %v allocs, want 0", n)
	}
	var arg any = u // pgx receives arguments as any already
	enc := m.PlanEncode(pgtype.UUIDOID, pgtype.BinaryFormatCode, arg)
	buf := make([]byte, 0, 64)
	if n := testing.AllocsPerRun(100, func() { _, _ = enc.Encode(arg, buf[:0]) }); n != 0 {
		t.Errorf("binary encode: %v allocs, want 0", n)
	}
	if dst != u {
		t.Fatalf("scanned %v", dst)
	}
}
