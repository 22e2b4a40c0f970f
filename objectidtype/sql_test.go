package objectidtype

import (
	"bytes"
	"database/sql"
	"database/sql/driver"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

// Compile-time checks of the interfaces ObjectID serves.
var (
	_ sql.Scanner   = (*ObjectID)(nil)
	_ driver.Valuer = ObjectID{}
	_ sql.Scanner   = (*NullObjectID)(nil)
	_ driver.Valuer = NullObjectID{}
	_ sql.Scanner   = (*ShortID)(nil)
	_ driver.Valuer = ShortID{}
)

func TestScan(t *testing.T) {
	tests := []struct {
		name string
		src  any
	}{
		{"raw bytes", seedBytes[:]},
		{"hex string", seedHex},
		{"upper hex string", strings.ToUpper(seedHex)},
		{"short string", seedShort},
		{"bytea text string", `\x` + seedHex},
		{"bytea text string, upper-case hex", `\x` + strings.ToUpper(seedHex)},
	}
	for _, tt := range tests {
		var o ObjectID
		if err := o.Scan(tt.src); err != nil || o != seedBytes {
			t.Errorf("%s: Scan = %v, %v", tt.name, o, err)
		}
	}
}

func TestScanCopies(t *testing.T) {
	b := bytes.Clone(seedBytes[:])
	var o ObjectID
	if err := o.Scan(b); err != nil {
		t.Fatal(err)
	}
	b[0] = 0
	if o != seedBytes {
		t.Fatal("Scan kept the driver's bytes")
	}
}

func TestScanErrors(t *testing.T) {
	tests := []struct {
		src  any
		err  error
		text string // part of the message
	}{
		{nil, ErrNull, "objectidtype: NULL into ObjectID: use NullObjectID, sql.Null[ObjectID] or *ObjectID for a nullable column"},
		{[]byte(nil), ErrNull, "objectidtype: NULL into ObjectID: use NullObjectID"},
		{[]byte{}, ErrLength, `objectidtype: parse "": invalid length 0, want the 12 raw bytes of a bytea (text forms are read from text, not bytea)`},
		{make([]byte, 11), ErrLength, "invalid length 11"},
		{make([]byte, 13), ErrLength, "invalid length 13"},
		{make([]byte, 26), ErrLength, "invalid length 26"},
		// A []byte is a bytea: text in it is not read (issue 7 §5).
		{[]byte(`\x` + seedHex), ErrLength, "invalid length 26, want the 12 raw bytes"},
		{[]byte(seedHex), ErrLength, "invalid length 24, want the 12 raw bytes"},
		{[]byte(seedShort), ErrLength, "invalid length 16, want the 12 raw bytes"},
		{"", ErrLength, `objectidtype: parse "": invalid length 0, want 24 (hex), 16 (short form) or 26 (\x and hex, a bytea's text)`},
		{string(seedBytes[:]), ErrLength, "invalid length 12"}, // raw bytes as a string are not a text form
		{"hello world!", ErrLength, `objectidtype: parse "hello world!": invalid length 12, want 24 (hex), 16 (short form) or 26`},
		{`\x` + seedHex[:23] + "g", ErrCharacter, `objectidtype: parse "\\x4e7020cb7cac81af7136236g": invalid character 'g' at position 25, want a bytea's hex text (\x and 24 hex digits)`},
		{`\X` + seedHex, ErrCharacter, `invalid character 'X' at position 1, want a bytea's hex text (\x and 24 hex digits)`},
		{`/x` + seedHex, ErrCharacter, `invalid character '/' at position 0`},
		{"4e7020cb7cac81af7136236g", ErrCharacter, "position 23"},
		{strings.Repeat("\x00", 24), ErrCharacter, "position 0"},
		{42, ErrScanType, "cannot scan int into ObjectID"},
		{int64(42), ErrScanType, "int64"},
		{time.Time{}, ErrScanType, "time.Time"},
		{seedBytes, ErrScanType, "objectidtype.ObjectID"},
		{&seedBytes, ErrScanType, "*objectidtype.ObjectID"},
		{true, ErrScanType, "bool"},
	}
	for _, tt := range tests {
		o := seedBytes
		err := o.Scan(tt.src)
		if !errors.Is(err, tt.err) || !strings.Contains(err.Error(), tt.text) {
			t.Errorf("Scan(%#v) = %v, want %v containing %q", tt.src, err, tt.err, tt.text)
		}
		if o != seedBytes {
			t.Errorf("Scan(%#v) changed the value to %v", tt.src, o)
		}
		// NullObjectID reports the same errors, except for NULL.
		if tt.err != ErrNull {
			n := NullObjectID{ObjectID: seedBytes, Valid: true}
			if err := n.Scan(tt.src); !errors.Is(err, tt.err) || n != (NullObjectID{seedBytes, true}) {
				t.Errorf("NullObjectID.Scan(%#v) = %v, value %v", tt.src, err, n)
			}
		}
	}
}

func TestValue(t *testing.T) {
	v, err := seedBytes.Value()
	b, ok := v.([]byte)
	if err != nil || !ok || !bytes.Equal(b, seedBytes[:]) {
		t.Fatalf("Value() = %#v, %v; want the 12 raw bytes", v, err)
	}
	if !driver.IsValue(v) {
		t.Fatalf("Value() %T is not a driver.Value", v)
	}
	// What database/sql does with an argument.
	conv, err := driver.DefaultParameterConverter.ConvertValue(seedBytes)
	if err != nil || !bytes.Equal(conv.([]byte), seedBytes[:]) {
		t.Fatalf("DefaultParameterConverter = %#v, %v", conv, err)
	}
	var o ObjectID
	if err := o.Scan(v); err != nil || o != seedBytes {
		t.Fatalf("Scan(Value()) = %v, %v", o, err)
	}
	sv, err := ShortID(seedBytes).Value()
	if err != nil || !bytes.Equal(sv.([]byte), seedBytes[:]) {
		t.Fatalf("ShortID.Value() = %#v, %v", sv, err)
	}
	var s ShortID
	if err := s.Scan(seedShort); err != nil || ObjectID(s) != seedBytes {
		t.Fatalf("ShortID.Scan = %v, %v", s, err)
	}
	for _, src := range []any{nil, []byte(nil)} {
		const want = "objectidtype: NULL into ShortID: use *ShortID or sql.Null[ShortID] for a nullable column"
		if err := s.Scan(src); !errors.Is(err, ErrNull) || err.Error() != want {
			t.Errorf("ShortID.Scan(%#v) = %v, want %q", src, err, want)
		}
	}
}

func TestNullObjectID(t *testing.T) {
	var n NullObjectID
	if err := n.Scan(seedBytes[:]); err != nil || n != (NullObjectID{seedBytes, true}) {
		t.Fatalf("Scan(raw) = %v, %v", n, err)
	}
	if v, err := n.Value(); err != nil || !bytes.Equal(v.([]byte), seedBytes[:]) {
		t.Fatalf("Value() = %#v, %v", v, err)
	}
	if err := n.Scan(nil); err != nil || n != (NullObjectID{}) {
		t.Fatalf("Scan(nil) = %v, %v", n, err)
	}
	if v, err := n.Value(); err != nil || v != nil {
		t.Fatalf("invalid Value() = %#v, %v", v, err)
	}

	js, err := json.Marshal(n)
	if err != nil || string(js) != "null" {
		t.Fatalf("invalid MarshalJSON = %s, %v", js, err)
	}
	n = NullObjectID{seedBytes, true}
	js, err = json.Marshal(n)
	if err != nil || string(js) != `"`+seedHex+`"` {
		t.Fatalf("MarshalJSON = %s, %v", js, err)
	}
	var m NullObjectID
	if err := json.Unmarshal(js, &m); err != nil || m != n {
		t.Fatalf("UnmarshalJSON(%s) = %v, %v", js, m, err)
	}
	if err := json.Unmarshal([]byte(`"`+seedShort+`"`), &m); err != nil || m != n {
		t.Fatalf("UnmarshalJSON(short) = %v, %v", m, err)
	}
	if err := m.UnmarshalJSON([]byte(`"bad"`)); !errors.Is(err, ErrLength) || m != n {
		t.Fatalf("UnmarshalJSON(bad) = %v, value %v", err, m)
	}
	if err := json.Unmarshal([]byte(`null`), &m); err != nil || m.Valid {
		t.Fatalf("UnmarshalJSON(null) = %v, %v", m, err)
	}
	var s struct{ ID NullObjectID }
	if err := json.Unmarshal([]byte(`{"ID":null}`), &s); err != nil || s.ID.Valid {
		t.Fatalf("null field = %v, %v", s.ID, err)
	}
}

func TestSQLNull(t *testing.T) {
	var n sql.Null[ObjectID]
	if err := n.Scan(seedBytes[:]); err != nil || !n.Valid || n.V != seedBytes {
		t.Fatalf("Scan(raw) = %+v, %v", n, err)
	}
	if err := n.Scan(seedShort); err != nil || !n.Valid || n.V != seedBytes {
		t.Fatalf("Scan(short) = %+v, %v", n, err)
	}
	v, err := n.Value()
	if err != nil || !bytes.Equal(v.([]byte), seedBytes[:]) {
		t.Fatalf("Value() = %#v, %v", v, err)
	}
	if err := n.Scan(nil); err != nil || n.Valid {
		t.Fatalf("Scan(nil) = %+v, %v", n, err)
	}
	if v, err := n.Value(); err != nil || v != nil {
		t.Fatalf("invalid Value() = %#v, %v", v, err)
	}
	if err := n.Scan(make([]byte, 5)); !errors.Is(err, ErrLength) {
		t.Fatalf("Scan(5 bytes) = %v", err)
	}
}

func TestScanAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts need a normal build")
	}
	var o ObjectID
	var src any = seedBytes[:]
	var hexSrc any = seedHex
	if n := testing.AllocsPerRun(100, func() { _ = o.Scan(src) }); n != 0 {
		t.Errorf("Scan(raw): %v allocations", n)
	}
	if n := testing.AllocsPerRun(100, func() { _ = o.Scan(hexSrc) }); n != 0 {
		t.Errorf("Scan(hex): %v allocations", n)
	}
	var byteaSrc any = `\x` + seedHex
	if n := testing.AllocsPerRun(100, func() { _ = o.Scan(byteaSrc) }); n != 0 {
		t.Errorf("Scan(bytea text): %v allocations", n)
	}
}

// A nil []byte is NULL, as database/sql's nil is.
func TestScanNilBytes(t *testing.T) {
	o := seedBytes
	if err := o.Scan([]byte(nil)); !errors.Is(err, ErrNull) || o != seedBytes {
		t.Errorf("ObjectID.Scan([]byte(nil)) = %v, value %v", err, o)
	}
	n := NullObjectID{ObjectID: seedBytes, Valid: true}
	if err := n.Scan([]byte(nil)); err != nil || n.Valid || !n.ObjectID.IsZero() {
		t.Errorf("NullObjectID.Scan([]byte(nil)) = %v, %+v", err, n)
	}
	if err := n.Scan([]byte{}); !errors.Is(err, ErrLength) {
		t.Errorf("NullObjectID.Scan([]byte{}) = %v, want ErrLength", err)
	}
}
