package objectidtype

import (
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
)

// Compile-time checks of the pgx interfaces.
var (
	_ pgtype.BytesScanner              = (*ObjectID)(nil)
	_ pgtype.BytesValuer               = ObjectID{}
	_ pgtype.SkipUnderlyingTypePlanner = ObjectID{}
	_ pgtype.BytesScanner              = (*NullObjectID)(nil)
	_ pgtype.BytesValuer               = NullObjectID{}
	_ pgtype.SkipUnderlyingTypePlanner = NullObjectID{}
	_ pgtype.BytesScanner              = (*ShortID)(nil)
	_ pgtype.BytesValuer               = ShortID{}
	_ pgtype.TextScanner               = (*ObjectID)(nil)
	_ pgtype.TextValuer                = ObjectID{}
	_ pgtype.TextScanner               = (*NullObjectID)(nil)
	_ pgtype.TextValuer                = NullObjectID{}
	_ pgtype.TextScanner               = (*ShortID)(nil)
	_ pgtype.TextValuer                = ShortID{}
	_ pgtype.UUIDValuer                = ObjectID{}
	_ pgtype.UUIDValuer                = NullObjectID{}
	_ pgtype.UUIDValuer                = ShortID{}
)

// seedText is the bytea text format of the seed ID.
const seedText = `\x` + seedHex

// domainOID stands for the OID of a pgid.objectid domain that pgx has not
// loaded.
const domainOID = 98765

func formatName(f int16) string {
	if f == pgtype.BinaryFormatCode {
		return "binary"
	}
	return "text"
}

// wantWire returns what a bytea parameter of the seed ID must look like in
// format f.
func wantWire(f int16) string {
	if f == pgtype.BinaryFormatCode {
		return string(seedBytes[:])
	}
	return seedText
}

// The pgx tests here use pgx's own codecs, with no registration: the
// interfaces the ID types implement. The same cases after pgidpgx.Register
// are in pgidpgx (TestRegisterObjectID*).

func TestPgxEncode(t *testing.T) {
	m := pgtype.NewMap()
	for _, oid := range []uint32{pgtype.ByteaOID, 0, domainOID} {
		for _, f := range []int16{pgtype.BinaryFormatCode, pgtype.TextFormatCode} {
			for _, v := range []any{seedBytes, &seedBytes, NullObjectID{seedBytes, true}, ShortID(seedBytes), ptr(ShortID(seedBytes))} {
				name := fmt.Sprintf("oid=%d %s %T", oid, formatName(f), v)
				buf, err := m.Encode(oid, f, v, nil)
				if err != nil {
					t.Errorf("%s: %v", name, err)
					continue
				}
				if string(buf) != wantWire(f) {
					t.Errorf("%s: encoded %q, want %q", name, buf, wantWire(f))
				}
			}
		}
	}
}

func ptr[T any](v T) *T { return &v }

// An ObjectID bound to a uuid parameter (uuid, a uuid[] element, a domain
// over uuid whose codec is pgx's uuid codec) is refused in binary format;
// without UUIDValue pgx stored its 12 bytes padded with 4 zero bytes. NULL
// stays NULL. (In text format pgx sends TextValue first, `\x` and 24 hex
// digits, which PostgreSQL refuses for a uuid; integration_test checks it.)
func TestPgxEncodeNotUUID(t *testing.T) {
	m := pgtype.NewMap()
	m.RegisterType(&pgtype.Type{Name: "ulid", OID: domainOID, Codec: pgtype.UUIDCodec{}})
	for _, tt := range []struct {
		oid uint32
		v   any
	}{
		{pgtype.UUIDOID, seedBytes},
		{pgtype.UUIDOID, &seedBytes},
		{pgtype.UUIDOID, NullObjectID{seedBytes, true}},
		{pgtype.UUIDOID, ShortID(seedBytes)},
		{pgtype.UUIDOID, ptr(ShortID(seedBytes))},
		{pgtype.UUIDOID, ObjectID{}},
		{domainOID, seedBytes},
		{pgtype.UUIDArrayOID, []ObjectID{seedBytes}},
		{pgtype.UUIDArrayOID, []*ObjectID{&seedBytes}},
		{pgtype.UUIDArrayOID, []NullObjectID{{seedBytes, true}}},
	} {
		buf, err := m.Encode(tt.oid, pgtype.BinaryFormatCode, tt.v, nil)
		if !errors.Is(err, ErrNotUUID) || buf != nil {
			t.Errorf("oid=%d %T: encoded %x, %v; want an error wrapping ErrNotUUID", tt.oid, tt.v, buf, err)
			continue
		}
		if !strings.Contains(err.Error(), "bytea or pgid.objectid") {
			t.Errorf("oid=%d %T: %v does not name bytea or pgid.objectid", tt.oid, tt.v, err)
		}
	}
	for _, v := range []any{NullObjectID{}, (*ObjectID)(nil)} {
		if buf, err := m.Encode(pgtype.UUIDOID, pgtype.BinaryFormatCode, v, nil); err != nil || buf != nil {
			t.Errorf("%T NULL into uuid: %x, %v; want NULL", v, buf, err)
		}
	}
	want := "objectidtype: an ObjectID is not a uuid: " + seedHex + " is 12 bytes; store ObjectIDs in bytea or pgid.objectid, not in uuid, pgid.ulid or a TypeID column"
	if _, err := seedBytes.UUIDValue(); err == nil || err.Error() != want {
		t.Errorf("UUIDValue: %v, want %s", err, want)
	}
}

func TestPgxEncodeNull(t *testing.T) {
	m := pgtype.NewMap()
	for _, oid := range []uint32{pgtype.ByteaOID, 0, domainOID} {
		for _, f := range []int16{pgtype.BinaryFormatCode, pgtype.TextFormatCode} {
			for _, v := range []any{(*ObjectID)(nil), NullObjectID{}, (*NullObjectID)(nil), (*ShortID)(nil)} {
				buf, err := m.Encode(oid, f, v, nil)
				if err != nil || buf != nil {
					t.Errorf("oid=%d %s %T: Encode = %q, %v; want NULL", oid, formatName(f), v, buf, err)
				}
			}
		}
	}
}

// TestPgxQueryExecModes builds the parameters of one query as each
// QueryExecMode does, and checks that the ID always reaches the server as
// bytea: 12 raw bytes in binary, \x hex in text, never the bare String form.
func TestPgxQueryExecModes(t *testing.T) {
	args := []any{seedBytes, &seedBytes, NullObjectID{seedBytes, true}}
	m := pgtype.NewMap()
	// CacheStatement, CacheDescribe and DescribeExec know the parameter
	// OIDs from the server: bytea, or a domain's OID.
	for _, oid := range []uint32{pgtype.ByteaOID, domainOID} {
		sd := &pgconn.StatementDescription{ParamOIDs: []uint32{oid, oid, oid}}
		var eqb pgx.ExtendedQueryBuilder
		if err := eqb.Build(m, sd, args); err != nil {
			t.Fatalf("described oid=%d: %v", oid, err)
		}
		checkParams(t, fmt.Sprintf("described oid=%d", oid), &eqb)
	}
	// Exec sends text with OID 0.
	var eqb pgx.ExtendedQueryBuilder
	if err := eqb.Build(m, nil, args); err != nil {
		t.Fatalf("exec: %v", err)
	}
	checkParams(t, "exec", &eqb)
	// The simple protocol encodes each argument as text with OID 0 and
	// quotes the result into the SQL.
	for _, a := range args {
		buf, err := m.Encode(0, pgtype.TextFormatCode, a, []byte{})
		if err != nil || string(buf) != seedText {
			t.Errorf("simple protocol %T: %q, %v", a, buf, err)
		}
	}
}

func checkParams(t *testing.T, name string, eqb *pgx.ExtendedQueryBuilder) {
	t.Helper()
	for i, v := range eqb.ParamValues {
		f := eqb.ParamFormats[i]
		if string(v) != wantWire(f) {
			t.Errorf("%s: param %d (%s) = %q, want %q", name, i, formatName(f), v, wantWire(f))
		}
		if strings.Contains(string(v), seedHex) && !strings.HasPrefix(string(v), `\x`) {
			t.Errorf("%s: param %d leaks the String form", name, i)
		}
	}
}

func TestPgxScan(t *testing.T) {
	m := pgtype.NewMap()
	for _, oid := range []uint32{pgtype.ByteaOID, pgtype.TextOID} {
		srcs := map[int16][]byte{pgtype.BinaryFormatCode: seedBytes[:], pgtype.TextFormatCode: []byte(seedText)}
		if oid == pgtype.TextOID {
			// A text column, such as the result of a hex conversion in SQL:
			// pgx asks for text columns in text format and hands them to
			// ScanText. (Binary format, which only an explicit
			// QueryResultFormats asks for, goes to ScanBytes: see
			// TestPgxScanTextColumns.)
			srcs = map[int16][]byte{pgtype.TextFormatCode: []byte(seedShort)}
		}
		for f, src := range srcs {
			name := fmt.Sprintf("oid=%d %s", oid, formatName(f))
			var o ObjectID
			if err := m.Scan(oid, f, src, &o); err != nil || o != seedBytes {
				t.Errorf("%s: ObjectID = %v, %v", name, o, err)
			}
			var p *ObjectID
			if err := m.Scan(oid, f, src, &p); err != nil || p == nil || *p != seedBytes {
				t.Errorf("%s: *ObjectID = %v, %v", name, p, err)
			}
			var n NullObjectID
			if err := m.Scan(oid, f, src, &n); err != nil || n != (NullObjectID{seedBytes, true}) {
				t.Errorf("%s: NullObjectID = %v, %v", name, n, err)
			}
			var s ShortID
			if err := m.Scan(oid, f, src, &s); err != nil || ObjectID(s) != seedBytes {
				t.Errorf("%s: ShortID = %v, %v", name, s, err)
			}
			var sn sql.Null[ObjectID]
			if err := m.Scan(oid, f, src, &sn); err != nil || !sn.Valid || sn.V != seedBytes {
				t.Errorf("%s: sql.Null[ObjectID] = %+v, %v", name, sn, err)
			}
		}
	}
}

func TestPgxScanNull(t *testing.T) {
	m := pgtype.NewMap()
	for _, f := range []int16{pgtype.BinaryFormatCode, pgtype.TextFormatCode} {
		o := seedBytes
		if err := m.Scan(pgtype.ByteaOID, f, nil, &o); !errors.Is(err, ErrNull) || o != seedBytes {
			t.Errorf("%s: NULL into ObjectID = %v, value %v", formatName(f), err, o)
		}
		p := &seedBytes
		if err := m.Scan(pgtype.ByteaOID, f, nil, &p); err != nil || p != nil {
			t.Errorf("%s: NULL into *ObjectID = %v, %v", formatName(f), p, err)
		}
		n := NullObjectID{seedBytes, true}
		if err := m.Scan(pgtype.ByteaOID, f, nil, &n); err != nil || n != (NullObjectID{}) {
			t.Errorf("%s: NULL into NullObjectID = %v, %v", formatName(f), n, err)
		}
		sn := sql.Null[ObjectID]{V: seedBytes, Valid: true}
		if err := m.Scan(pgtype.ByteaOID, f, nil, &sn); err != nil || sn.Valid {
			t.Errorf("%s: NULL into sql.Null[ObjectID] = %+v, %v", formatName(f), sn, err)
		}
	}
}

func TestPgxScanErrors(t *testing.T) {
	m := pgtype.NewMap()
	tests := []struct {
		f   int16
		src string
		err error
	}{
		{pgtype.BinaryFormatCode, "", ErrLength},
		{pgtype.BinaryFormatCode, "\x4e\x70", ErrLength},
		{pgtype.BinaryFormatCode, string(seedBytes[:]) + "\x00", ErrLength},
		{pgtype.BinaryFormatCode, "\\x" + seedHex, ErrLength},
		{pgtype.TextFormatCode, `\x`, ErrLength},
		{pgtype.TextFormatCode, `\x4e70`, ErrLength},
		{pgtype.TextFormatCode, `\x` + seedHex + `00`, ErrLength},
	}
	for _, tt := range tests {
		o := seedBytes
		if err := m.Scan(pgtype.ByteaOID, tt.f, []byte(tt.src), &o); !errors.Is(err, tt.err) || o != seedBytes {
			t.Errorf("%s %q: %v, value %v; want %v", formatName(tt.f), tt.src, err, o, tt.err)
		}
		n := NullObjectID{seedBytes, true}
		if err := m.Scan(pgtype.ByteaOID, tt.f, []byte(tt.src), &n); !errors.Is(err, tt.err) || n != (NullObjectID{seedBytes, true}) {
			t.Errorf("NullObjectID %s %q: %v, value %v", formatName(tt.f), tt.src, err, n)
		}
	}
}

// Issue 13 §4: text is text. pgx hands every value that arrives in text
// format to ScanText, whatever its type: text and varchar columns take the
// text forms only, never 12 characters as raw bytes. A bytea arrives in text
// format only as `\x` hex (QueryExecModeExec, QueryExecModeSimpleProtocol),
// and in binary format as the raw bytes, which must be exactly 12 (issue 7
// §5).
func TestPgxScanTextColumns(t *testing.T) {
	m := pgtype.NewMap()
	const tf, bf int16 = pgtype.TextFormatCode, pgtype.BinaryFormatCode
	tests := []struct {
		oid uint32
		f   int16
		src string
		err error // nil: seedBytes
	}{
		{pgtype.TextOID, tf, seedHex, nil},
		{pgtype.TextOID, tf, strings.ToUpper(seedHex), nil},
		{pgtype.TextOID, tf, seedShort, nil},
		{pgtype.TextOID, tf, `\x` + seedHex, nil}, // what pgx writes to a text column
		{pgtype.VarcharOID, tf, seedShort, nil},
		{pgtype.TextOID, tf, "hello world!", ErrLength},
		{pgtype.VarcharOID, tf, "hello world!", ErrLength},
		{pgtype.TextOID, tf, string(seedBytes[:]), ErrLength},
		{pgtype.TextOID, tf, "", ErrLength},
		{pgtype.ByteaOID, tf, `\x` + seedHex, nil},
		{pgtype.ByteaOID, bf, string(seedBytes[:]), nil},
		{pgtype.ByteaOID, bf, seedHex, ErrLength},
		{pgtype.ByteaOID, bf, seedShort, ErrLength},
		{pgtype.ByteaOID, tf, `\x` + hex.EncodeToString([]byte(seedHex)), ErrLength},
		{pgtype.ByteaOID, tf, `\x` + hex.EncodeToString([]byte(seedShort)), ErrLength},
		{pgtype.Int4OID, tf, "42", ErrLength},
		// The one way left: text asked for in binary format goes to
		// ScanBytes, where 12 bytes are raw bytes.
		{pgtype.TextOID, bf, "hello world!", nil},
	}
	for _, tt := range tests {
		name := fmt.Sprintf("oid=%d %s %q", tt.oid, formatName(tt.f), tt.src)
		want := seedBytes
		if tt.err == nil && tt.src == "hello world!" {
			want = ObjectID([]byte("hello world!"))
		}
		o, s, n := seedBytes, ShortID(seedBytes), NullObjectID{seedBytes, true}
		if tt.err == nil {
			o, s, n = ObjectID{}, ShortID{}, NullObjectID{}
		}
		errO := m.Scan(tt.oid, tt.f, []byte(tt.src), &o)
		errS := m.Scan(tt.oid, tt.f, []byte(tt.src), &s)
		errN := m.Scan(tt.oid, tt.f, []byte(tt.src), &n)
		for _, c := range []struct {
			err error
			got ObjectID
		}{{errO, o}, {errS, ObjectID(s)}, {errN, n.ObjectID}} {
			if tt.err == nil && (c.err != nil || c.got != want) || tt.err != nil && (!errors.Is(c.err, tt.err) || c.got != seedBytes) {
				t.Errorf("%s: %v, %v; want %v", name, c.got, c.err, tt.err)
			}
		}
	}
	// NULL in text format.
	o := seedBytes
	if err := m.Scan(pgtype.TextOID, tf, nil, &o); !errors.Is(err, ErrNull) || o != seedBytes {
		t.Errorf("NULL text into ObjectID: %v, %v", err, o)
	}
	n := NullObjectID{seedBytes, true}
	if err := m.Scan(pgtype.TextOID, tf, nil, &n); err != nil || n.Valid {
		t.Errorf("NULL text into NullObjectID: %v, %v", err, n)
	}
	s := ShortID(seedBytes)
	if err := m.Scan(pgtype.TextOID, tf, nil, &s); !errors.Is(err, ErrNull) || !strings.Contains(err.Error(), "*ShortID") {
		t.Errorf("NULL text into ShortID: %v", err)
	}
}

// An ObjectID parameter in text format is the bytea's text, `\x` and hex,
// whatever the parameter's type: pgx tries TextValuer before any codec.
func TestPgxTextValue(t *testing.T) {
	m := pgtype.NewMap()
	want := `\x` + seedHex
	for _, oid := range []uint32{pgtype.TextOID, pgtype.VarcharOID, pgtype.ByteaOID, 0} {
		for _, v := range []any{seedBytes, &seedBytes, ShortID(seedBytes), NullObjectID{seedBytes, true}} {
			buf, err := m.Encode(oid, pgtype.TextFormatCode, v, nil)
			if err != nil || string(buf) != want {
				t.Errorf("oid=%d %T: %q, %v; want %q", oid, v, buf, err, want)
			}
		}
		for _, v := range []any{NullObjectID{}, (*ObjectID)(nil), (*ShortID)(nil)} {
			buf, err := m.Encode(oid, pgtype.TextFormatCode, v, nil)
			if err != nil || buf != nil {
				t.Errorf("oid=%d %T: %q, %v; want NULL", oid, v, buf, err)
			}
		}
	}
}

func TestPgxArray(t *testing.T) {
	ids := []ObjectID{seedBytes, {}, MustParse("ffffffffffffffffffffffff")}
	m := pgtype.NewMap()
	for _, f := range []int16{pgtype.BinaryFormatCode, pgtype.TextFormatCode} {
		name := formatName(f)
		buf, err := m.Encode(pgtype.ByteaArrayOID, f, ids, nil)
		if err != nil {
			t.Errorf("%s: Encode: %v", name, err)
			continue
		}
		if f == pgtype.TextFormatCode {
			want := `{"\\x` + seedHex + `","\\x000000000000000000000000","\\xffffffffffffffffffffffff"}`
			if string(buf) != want {
				t.Errorf("%s: %s, want %s", name, buf, want)
			}
		}
		var got []ObjectID
		if err := m.Scan(pgtype.ByteaArrayOID, f, buf, &got); err != nil || len(got) != 3 || got[0] != ids[0] || got[1] != ids[1] || got[2] != ids[2] {
			t.Errorf("%s: Scan = %v, %v", name, got, err)
		}
		var nulls []NullObjectID
		if err := m.Scan(pgtype.ByteaArrayOID, f, buf, &nulls); err != nil || len(nulls) != 3 || nulls[0] != (NullObjectID{seedBytes, true}) {
			t.Errorf("%s: Scan []NullObjectID = %v, %v", name, nulls, err)
		}
	}
	// Without pgidpgx.Register, pgx does not know []ObjectID as bytea[]
	// with OID 0 (QueryExecModeExec, SimpleProtocol).
	if buf, err := m.Encode(0, pgtype.TextFormatCode, ids, nil); err == nil {
		t.Errorf("unregistered []ObjectID with OID 0 encoded as %q; expected pgx to need pgidpgx.Register", buf)
	}
	// NULL elements: into []NullObjectID fine, into []ObjectID an error.
	buf, err := m.Encode(pgtype.ByteaArrayOID, pgtype.BinaryFormatCode, []NullObjectID{{seedBytes, true}, {}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var nulls []NullObjectID
	if err := m.Scan(pgtype.ByteaArrayOID, pgtype.BinaryFormatCode, buf, &nulls); err != nil || len(nulls) != 2 || nulls[1].Valid {
		t.Errorf("[]NullObjectID with NULL: %v, %v", nulls, err)
	}
	var plain []ObjectID
	if err := m.Scan(pgtype.ByteaArrayOID, pgtype.BinaryFormatCode, buf, &plain); !errors.Is(err, ErrNull) {
		t.Errorf("NULL element into []ObjectID: %v", err)
	}
}

func TestPgxAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts need a normal build")
	}
	m := pgtype.NewMap()
	var o ObjectID
	scan := m.PlanScan(pgtype.ByteaOID, pgtype.BinaryFormatCode, &o)
	src := seedBytes[:]
	if n := testing.AllocsPerRun(100, func() { _ = scan.Scan(src, &o) }); n != 0 {
		t.Errorf("binary scan: %v allocations, want 0", n)
	}
	var v any = seedBytes
	enc := m.PlanEncode(pgtype.ByteaOID, pgtype.BinaryFormatCode, v)
	buf := make([]byte, 0, 64)
	// BytesValue returns a slice of its value receiver, which must move to
	// the heap: one 12-byte allocation per encoded value.
	if n := testing.AllocsPerRun(100, func() { buf, _ = enc.Encode(v, buf[:0]) }); n > 1 {
		t.Errorf("binary encode: %v allocations, want at most 1", n)
	}
	var null any = NullObjectID{}
	encNull := m.PlanEncode(pgtype.ByteaOID, pgtype.BinaryFormatCode, null)
	if n := testing.AllocsPerRun(100, func() { _, _ = encNull.Encode(null, buf[:0]) }); n != 0 {
		t.Errorf("NULL encode: %v allocations, want 0", n)
	}
}
