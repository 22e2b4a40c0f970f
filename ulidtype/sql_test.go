package ulidtype

import (
	"database/sql"
	"database/sql/driver"
	"errors"
	"strings"
	"testing"
)

// Compile-time checks of the interfaces database/sql uses.
var (
	_ sql.Scanner   = (*ULID)(nil)
	_ driver.Valuer = ULID{}
	_ sql.Scanner   = (*NullULID)(nil)
	_ driver.Valuer = NullULID{}
)

func TestScanSources(t *testing.T) {
	u := MustParse("01GFGGMBFGB5WKXBN7S84ATRDG")
	sources := []any{
		"0183e10a-2df0-5979-3eae-a7ca08ad61b0",         // pgx stdlib: uuid as string
		[]byte("0183e10a-2df0-5979-3eae-a7ca08ad61b0"), // lib/pq: uuid as []byte
		"0183E10A-2DF0-5979-3EAE-A7CA08AD61B0",
		"0183e10a2df059793eaea7ca08ad61b0",
		[]byte("0183e10a2df059793eaea7ca08ad61b0"),
		"01GFGGMBFGB5WKXBN7S84ATRDG",
		[]byte("01gfggmbfgb5wkxbn7s84atrdg"),
		u[:], // raw bytes
	}
	for _, src := range sources {
		var v ULID
		if err := v.Scan(src); err != nil || v != u {
			t.Errorf("Scan(%#v) = %v, %v", src, v, err)
		}
		var n NullULID
		if err := n.Scan(src); err != nil || !n.Valid || n.ULID != u {
			t.Errorf("NullULID.Scan(%#v) = %+v, %v", src, n, err)
		}
	}
}

func TestScanRejects(t *testing.T) {
	orig := MustParse("01GFGGMBFGB5WKXBN7S84ATRDG")
	tests := []struct {
		src  any
		want error
		msg  string
	}{
		{nil, ErrNull, "ulidtype: NULL into ULID: use NullULID, sql.Null[ULID] or *ULID for a nullable column"},
		{int64(1), ErrScanType, "ulidtype: unsupported scan source: cannot scan int64 into ULID"},
		{1.5, ErrScanType, "float64"},
		{true, ErrScanType, "bool"},
		{[16]byte{}, ErrScanType, "[16]uint8"},
		{"", ErrLength, "length 0"},
		{[]byte{}, ErrLength, `ulidtype: parse "": invalid length 0, want 16 (raw bytes), 26 (base32), 36 (UUID) or 32 (hex)`},
		{make([]byte, 15), ErrLength, `invalid length 15, want 16 (raw bytes), 26 (base32), 36 (UUID) or 32 (hex)`},
		{make([]byte, 17), ErrLength, "length 17"},
		{strings.Repeat("0", 16), ErrLength, `ulidtype: parse "0000000000000000": invalid length 16, want 26 (base32), 36 (UUID) or 32 (hex)`}, // 16 characters of text are not raw bytes
		{"0183e10a-2df0-5979-3eae-a7ca08ad61bZ", ErrCharacter, "position 35"},
		{"81GFGGMBFGB5WKXBN7S84ATRDG", ErrOverflow, "'8'"},
	}
	for _, tt := range tests {
		v := orig
		err := v.Scan(tt.src)
		if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("Scan(%#v) = %v, want %v mentioning %q", tt.src, err, tt.want, tt.msg)
		}
		if v != orig {
			t.Errorf("Scan(%#v) changed the value to %s", tt.src, v)
		}
		if tt.src == nil {
			continue
		}
		n := NullULID{ULID: orig, Valid: true}
		if err := n.Scan(tt.src); !errors.Is(err, tt.want) {
			t.Errorf("NullULID.Scan(%#v) = %v, want %v", tt.src, err, tt.want)
		}
	}
}

func TestValue(t *testing.T) {
	u := MustParse("01GFGGMBFGB5WKXBN7S84ATRDG")
	v, err := u.Value()
	if err != nil || v != "0183e10a-2df0-5979-3eae-a7ca08ad61b0" {
		t.Fatalf("Value() = %#v, %v", v, err)
	}
	if !driver.IsValue(v) {
		t.Fatalf("Value() %T is not a driver.Value", v)
	}
	if v, _ := (ULID{}).Value(); v != "00000000-0000-0000-0000-000000000000" {
		t.Fatalf("zero Value() = %#v, want the nil UUID", v)
	}
	if v, err := (NullULID{}).Value(); v != nil || err != nil {
		t.Fatalf("NullULID{}.Value() = %#v, %v", v, err)
	}
	if v, _ := (NullULID{ULID: u, Valid: true}).Value(); v != "0183e10a-2df0-5979-3eae-a7ca08ad61b0" {
		t.Fatalf("NullULID.Value() = %#v", v)
	}
	// Value and Scan round-trip.
	var back ULID
	if err := back.Scan(v); err != nil || back != u {
		t.Fatalf("Scan(Value()) = %v, %v", back, err)
	}
}

func TestNullScan(t *testing.T) {
	n := NullULID{ULID: New(), Valid: true}
	if err := n.Scan(nil); err != nil || n.Valid || !n.ULID.IsZero() {
		t.Fatalf("NullULID.Scan(nil) = %+v, %v", n, err)
	}
}

// TestSQLNull checks that the generic sql.Null[ULID] works through ULID's
// Scanner and Valuer.
func TestSQLNull(t *testing.T) {
	u := MustParse("01GFGGMBFGB5WKXBN7S84ATRDG")
	var n sql.Null[ULID]
	if err := n.Scan("0183e10a-2df0-5979-3eae-a7ca08ad61b0"); err != nil || !n.Valid || n.V != u {
		t.Fatalf("sql.Null[ULID].Scan = %+v, %v", n, err)
	}
	if v, err := n.Value(); err != nil || v != "0183e10a-2df0-5979-3eae-a7ca08ad61b0" {
		t.Fatalf("sql.Null[ULID].Value = %#v, %v", v, err)
	}
	if err := n.Scan(nil); err != nil || n.Valid {
		t.Fatalf("sql.Null[ULID].Scan(nil) = %+v, %v", n, err)
	}
	if v, err := n.Value(); err != nil || v != nil {
		t.Fatalf("invalid sql.Null[ULID].Value = %#v, %v", v, err)
	}
	if err := n.Scan(int64(3)); !errors.Is(err, ErrScanType) {
		t.Fatalf("sql.Null[ULID].Scan(int64) = %v", err)
	}
}

// A nil []byte is NULL, as database/sql's nil is.
func TestScanNilBytes(t *testing.T) {
	orig := MustParse("01GFGGMBFGB5WKXBN7S84ATRDG")
	u := orig
	if err := u.Scan([]byte(nil)); !errors.Is(err, ErrNull) || u != orig {
		t.Errorf("ULID.Scan([]byte(nil)) = %v, value %s", err, u)
	}
	n := NullULID{ULID: orig, Valid: true}
	if err := n.Scan([]byte(nil)); err != nil || n.Valid || !n.ULID.IsZero() {
		t.Errorf("NullULID.Scan([]byte(nil)) = %v, %+v", err, n)
	}
	// An empty, non-nil []byte is not NULL.
	if err := n.Scan([]byte{}); !errors.Is(err, ErrLength) {
		t.Errorf("NullULID.Scan([]byte{}) = %v, want ErrLength", err)
	}
}
