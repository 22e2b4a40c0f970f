package ulidtype

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

// Vectors computed independently of this package (Python big integers over the
// Crockford alphabet), from the ULID spec and seed 003.
var vectors = []struct {
	base32, uuid string
}{
	{"00000000000000000000000000", "00000000-0000-0000-0000-000000000000"},
	{"7ZZZZZZZZZZZZZZZZZZZZZZZZZ", "ffffffff-ffff-ffff-ffff-ffffffffffff"},
	{"01ARYZ6S41TSV4RRFFQ69G5FAV", "01563df3-6481-d676-4c61-efb99302bd5b"},
	{"01ARZ3NDEKTSV4RRFFQ69G5FAV", "01563e3a-b5d3-d676-4c61-efb99302bd5b"},
	{"01BX5ZZKBKACTAV9WEVGEMMVRZ", "015f4bff-cd73-5334-ada7-8edc1d4a6f1f"},
	{"01BX5ZZKBKACTAV9WEVGEMMVS0", "015f4bff-cd73-5334-ada7-8edc1d4a6f20"},
	{"01GFGGMBFGB5WKXBN7S84ATRDG", "0183e10a-2df0-5979-3eae-a7ca08ad61b0"},
	{"01GFGASXXQXD5ZJ26PKSCFGNPF", "0183e0ac-f7b7-eb4b-f908-d69e58f856cf"},
	{"00000000000000000000000001", "00000000-0000-0000-0000-000000000001"},
	{"0000000000000000000000000Z", "00000000-0000-0000-0000-00000000001f"},
	{"0000000000ZZZZZZZZZZZZZZZZ", "00000000-0000-ffff-ffff-ffffffffffff"},
	{"00000000010000000000000000", "00000000-0001-0000-0000-000000000000"},
	{"7ZZZZZZZZZ0000000000000000", "ffffffff-ffff-0000-0000-000000000000"},
}

func TestVectors(t *testing.T) {
	for _, v := range vectors {
		hex := strings.ReplaceAll(v.uuid, "-", "")
		for _, in := range []string{v.base32, strings.ToLower(v.base32), v.uuid, strings.ToUpper(v.uuid), hex, strings.ToUpper(hex)} {
			u, err := Parse(in)
			if err != nil {
				t.Fatalf("Parse(%q): %v", in, err)
			}
			if got := u.String(); got != v.base32 {
				t.Errorf("Parse(%q).String() = %q, want %q", in, got, v.base32)
			}
			if got := u.UUIDString(); got != v.uuid {
				t.Errorf("Parse(%q).UUIDString() = %q, want %q", in, got, v.uuid)
			}
		}
	}
	// Seed 003's monotonic example: the second is the first plus one.
	a, b := MustParse("01BX5ZZKBKACTAV9WEVGEMMVRZ"), MustParse("01BX5ZZKBKACTAV9WEVGEMMVS0")
	ahi, alo := a.halves()
	bhi, blo := b.halves()
	if ahi != bhi || alo+1 != blo {
		t.Fatalf("%s + 1 != %s", a, b)
	}
}

// malformed lists inputs every parser must reject, with the sentinel.
var malformed = []struct {
	in   string
	want error
}{
	// Lengths.
	{"", ErrLength},
	{"0", ErrLength},
	{"01ARYZ6S41TSV4RRFFQ69G5FA", ErrLength},   // 25
	{"01ARYZ6S41TSV4RRFFQ69G5FAVV", ErrLength}, // 27
	{" 01ARYZ6S41TSV4RRFFQ69G5FAV", ErrLength},
	{"01ARYZ6S41TSV4RRFFQ69G5FAV ", ErrLength},
	{"01ARYZ6S41TSV4RRFFQ69G5FAV\n", ErrLength},
	{"01563df36481d6764c61efb99302bd5", ErrLength},     // 31
	{"01563df36481d6764c61efb99302bd5b0", ErrLength},   // 33
	{"01563df3-6481-d676-4c61-efb99302bd5", ErrLength}, // 35
	{"{01563df3-6481-d676-4c61-efb99302bd5b}", ErrLength},
	{"urn:uuid:01563df3-6481-d676-4c61-efb99302bd5b", ErrLength},
	{strings.Repeat("0", 100), ErrLength},
	// Crockford characters outside the alphabet.
	{"01ARYZ6S41TSV4RRFFQ69G5FAI", ErrCharacter},
	{"01ARYZ6S41TSV4RRFFQ69G5FAL", ErrCharacter},
	{"01ARYZ6S41TSV4RRFFQ69G5FAO", ErrCharacter},
	{"01ARYZ6S41TSV4RRFFQ69G5FAU", ErrCharacter},
	{"01ARYZ6S41TSV4RRFFQ69G5FAi", ErrCharacter},
	{"01ARYZ6S41TSV4RRFFQ69G5FAl", ErrCharacter},
	{"01ARYZ6S41TSV4RRFFQ69G5FAo", ErrCharacter},
	{"01ARYZ6S41TSV4RRFFQ69G5FAu", ErrCharacter},
	{"01ARYZ6S41TSV4RRFFQ69G5FA-", ErrCharacter},
	{"01ARYZ6S41TSV4RRFFQ69G5FA ", ErrCharacter},
	{"01ARYZ6S41TSV4RRFFQ69G5FA=", ErrCharacter},
	{"01ARYZ6S41TSV4RRFFQ69G5FA\x00", ErrCharacter},
	{"01ARYZ6S41TSV4RRFFQ69G5FA\xff", ErrCharacter},
	{"01ARYZ6S41TSV4RRFFQ69G5F\u00e9", ErrCharacter}, // é is two bytes
	{"*1ARYZ6S41TSV4RRFFQ69G5FAV", ErrCharacter},
	{"0/ARYZ6S41TSV4RRFFQ69G5FAV", ErrCharacter},
	{"01ARYZ6S41TSV4RRFFQ69G5FA:", ErrCharacter},
	{"01ARYZ6S41TSV4RRFFQ69G5FA@", ErrCharacter},
	{"01ARYZ6S41TSV4RRFFQ69G5FA[", ErrCharacter},
	{"01ARYZ6S41TSV4RRFFQ69G5FA`", ErrCharacter},
	{"01ARYZ6S41TSV4RRFFQ69G5FA{", ErrCharacter},
	// Overflow: the first character carries only 3 bits.
	{"8ZZZZZZZZZZZZZZZZZZZZZZZZZ", ErrOverflow},
	{"80000000000000000000000000", ErrOverflow},
	{"Z0000000000000000000000000", ErrOverflow},
	{"z0000000000000000000000000", ErrOverflow},
	{"90000000000000000000000000", ErrOverflow},
	// Hex and UUID forms.
	{"01563df36481d6764c61efb99302bd5g", ErrCharacter},
	{"01563df36481d6764c61efb99302bd5-", ErrCharacter},
	{"0x563df36481d6764c61efb99302bd5b", ErrCharacter},
	{"01563df3-6481-d676-4c61-efb99302bd5g", ErrCharacter},
	{"01563df3+6481-d676-4c61-efb99302bd5b", ErrCharacter},
	{"01563df36-481-d676-4c61-efb99302bd5b", ErrCharacter},
	{"01563df3-6481-d676-4c61efb99302-bd5b", ErrCharacter},
	{"01563df3-6481-d676-4c61-efb9 302bd5b", ErrCharacter},
	{"------------------------------------", ErrCharacter},
	{"01563df3_6481_d676_4c61_efb99302bd5b", ErrCharacter},
	{"01563DF3-6481-D676-4C61-EFB99302BD5Z", ErrCharacter},
	{"01563df36481d6764c61efb99302bd5\x10", ErrCharacter}, // '0'-'a'+'A'
	{"\x1001563df3-6481-d676-4c61-efb99302bd5", ErrCharacter},
	{"01563df36481d6764c61efb99302bd5G", ErrCharacter},
}

func TestParseMalformed(t *testing.T) {
	if len(malformed) < 40 {
		t.Fatalf("only %d malformed inputs", len(malformed))
	}
	sentinels := []error{ErrLength, ErrCharacter, ErrOverflow}
	for _, tt := range malformed {
		u, err := Parse(tt.in)
		if !errors.Is(err, tt.want) {
			t.Errorf("Parse(%q) error = %v, want %v", tt.in, err, tt.want)
			continue
		}
		for _, s := range sentinels {
			if s != tt.want && errors.Is(err, s) {
				t.Errorf("Parse(%q) error %v also matches %v", tt.in, err, s)
			}
		}
		if !u.IsZero() {
			t.Errorf("Parse(%q) returned %v with an error", tt.in, u)
		}
		var pe *ParseError
		if !errors.As(err, &pe) || pe.Input != tt.in {
			t.Errorf("Parse(%q) error %v is not a *ParseError holding the input", tt.in, err)
		}
		// Every other entry point rejects it the same way and leaves the
		// destination unchanged.
		orig := MustParse("01GFGGMBFGB5WKXBN7S84ATRDG")
		v := orig
		if err := v.UnmarshalText([]byte(tt.in)); !errors.Is(err, tt.want) || v != orig {
			t.Errorf("UnmarshalText(%q) = %v, value %v", tt.in, err, v)
		}
		if len(tt.in) != 16 {
			if err := v.Scan([]byte(tt.in)); !errors.Is(err, tt.want) || v != orig {
				t.Errorf("Scan([]byte(%q)) = %v, value %v", tt.in, err, v)
			}
		}
		if err := v.Scan(tt.in); !errors.Is(err, tt.want) || v != orig {
			t.Errorf("Scan(%q) = %v, value %v", tt.in, err, v)
		}
		if js, _ := json.Marshal(tt.in); json.Unmarshal(js, &v) == nil || v != orig {
			t.Errorf("json.Unmarshal(%s) accepted it or changed the value", js)
		}
	}
}

func TestParseErrorMessages(t *testing.T) {
	tests := []struct{ in, msg string }{
		{"01ARYZ6S41TSV4RRFFQ69G5FAU", `ulidtype: parse "01ARYZ6S41TSV4RRFFQ69G5FAU": invalid character 'U' at position 25, want a Crockford base32 character (0-9, A-Z without I, L, O, U)`},
		{"0IARYZ6S41TSV4RRFFQ69G5FAV", `at position 1,`},
		{"8ZZZZZZZZZZZZZZZZZZZZZZZZZ", `first character '8' is above '7', so the value overflows 128 bits`},
		{"abc", `ulidtype: parse "abc": invalid length 3, want 26 (base32), 36 (UUID) or 32 (hex)`},
		{"01563df3-6481-d676-4c61-efb99302bd5g", `invalid character 'g' at position 35, want a hex digit`},
		{"01563df3_6481-d676-4c61-efb99302bd5b", `invalid character '_' at position 8`},
		{"01563df36481d6764c61efb99302bd5\xff", `invalid character '\xff' at position 31`},
		{strings.Repeat("x", 200), `"` + strings.Repeat("x", 64) + `..."`},
	}
	for _, tt := range tests {
		_, err := Parse(tt.in)
		if err == nil || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("Parse(%q) error = %v, want it to contain %q", tt.in, err, tt.msg)
		}
	}
	var pe *ParseError
	_, err := Parse("01ARYZ6S41TSV4RRFFQ69G5FAU")
	if !errors.As(err, &pe) || pe.Pos != 25 {
		t.Fatalf("ParseError.Pos = %+v", pe)
	}
}

func TestMustParsePanics(t *testing.T) {
	defer func() {
		if r := recover(); r == nil {
			t.Fatal("MustParse of bad input did not panic")
		} else if err, ok := r.(error); !ok || !errors.Is(err, ErrLength) {
			t.Fatalf("MustParse panicked with %v", r)
		}
	}()
	MustParse("nope")
}

// TestRoundTrip checks every form against every decoder on random values.
func TestRoundTrip(t *testing.T) {
	r := newRand(t)
	for range 20000 {
		u := randomULID(r)
		s := u.String()
		if len(s) != 26 || s != strings.ToUpper(s) || s[0] > '7' {
			t.Fatalf("String() = %q", s)
		}
		forms := []string{s, strings.ToLower(s), u.UUIDString(), strings.ReplaceAll(u.UUIDString(), "-", "")}
		for _, f := range forms {
			if v, err := Parse(f); err != nil || v != u {
				t.Fatalf("Parse(%q) = %v, %v; want %v", f, v, err, u)
			}
		}
		text, _ := u.MarshalText()
		app, _ := u.AppendText([]byte("x"))
		if string(text) != s || string(app) != "x"+s {
			t.Fatalf("MarshalText %q AppendText %q, want %q", text, app, s)
		}
		var v ULID
		if err := v.UnmarshalText(text); err != nil || v != u {
			t.Fatalf("UnmarshalText: %v %v", v, err)
		}
		bin, _ := u.MarshalBinary()
		appb, _ := u.AppendBinary([]byte{7})
		if string(bin) != string(u[:]) || string(appb[1:]) != string(u[:]) || appb[0] != 7 {
			t.Fatalf("MarshalBinary %x AppendBinary %x", bin, appb)
		}
		v = ULID{}
		if err := v.UnmarshalBinary(bin); err != nil || v != u {
			t.Fatalf("UnmarshalBinary: %v %v", v, err)
		}
		js, err := json.Marshal(u)
		if err != nil || string(js) != `"`+s+`"` {
			t.Fatalf("json.Marshal = %s, %v", js, err)
		}
		v = ULID{}
		if err := json.Unmarshal(js, &v); err != nil || v != u {
			t.Fatalf("json.Unmarshal(%s): %v %v", js, v, err)
		}
	}
}

func TestBinaryLength(t *testing.T) {
	orig := MustParse("01GFGGMBFGB5WKXBN7S84ATRDG")
	for _, n := range []int{0, 15, 17, 26} {
		v := orig
		if err := v.UnmarshalBinary(make([]byte, n)); !errors.Is(err, ErrLength) || v != orig {
			t.Errorf("UnmarshalBinary(%d bytes) = %v, value %v", n, err, v)
		}
	}
}

func TestJSON(t *testing.T) {
	u := MustParse("01GFGGMBFGB5WKXBN7S84ATRDG")
	type doc struct {
		ID  ULID         `json:"id"`
		Opt *ULID        `json:"opt"`
		N   NullULID     `json:"n"`
		M   map[ULID]int `json:"m,omitempty"`
	}
	js, err := json.Marshal(doc{ID: u, N: NullULID{ULID: u, Valid: true}, M: map[ULID]int{u: 1}})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"id":"01GFGGMBFGB5WKXBN7S84ATRDG","opt":null,"n":"01GFGGMBFGB5WKXBN7S84ATRDG","m":{"01GFGGMBFGB5WKXBN7S84ATRDG":1}}`
	if string(js) != want {
		t.Fatalf("json.Marshal = %s\nwant %s", js, want)
	}
	var d doc
	if err := json.Unmarshal([]byte(want), &d); err != nil || d.ID != u || d.Opt != nil || !d.N.Valid || d.N.ULID != u || d.M[u] != 1 {
		t.Fatalf("json.Unmarshal = %+v, %v", d, err)
	}
	// Every text form is accepted, and JSON escapes are honoured.
	for _, in := range []string{`"01gfggmbfgb5wkxbn7s84atrdg"`, `"0183e10a-2df0-5979-3eae-a7ca08ad61b0"`, `"0183e10a2df059793eaea7ca08ad61b0"`, `"\u00301GFGGMBFGB5WKXBN7S84ATRDG"`} {
		var v ULID
		if err := json.Unmarshal([]byte(in), &v); err != nil || v != u {
			t.Errorf("json.Unmarshal(%s) = %v, %v", in, v, err)
		}
	}
	// null leaves a plain ULID unchanged without an error, as encoding/json
	// does for any non-pointer value and time.Time does; it is invalid for
	// NullULID.
	v := u
	if err := v.UnmarshalJSON([]byte("null")); err != nil || v != u {
		t.Errorf("UnmarshalJSON(null) = %v, %v; want no error, no change", err, v)
	}
	var withTime struct {
		ID ULID      `json:"id"`
		T  time.Time `json:"t"`
	}
	withTime.ID, withTime.T = u, time.Unix(1, 0)
	if err := json.Unmarshal([]byte(`{"id":null,"t":null}`), &withTime); err != nil || withTime.ID != u || withTime.T != time.Unix(1, 0) {
		t.Errorf(`json.Unmarshal({"id":null,"t":null}) = %v, %+v; want both unchanged, as time.Time`, err, withTime)
	}
	n := NullULID{ULID: u, Valid: true}
	if err := json.Unmarshal([]byte("null"), &n); err != nil || n.Valid || !n.ULID.IsZero() {
		t.Errorf("NullULID from null = %+v, %v", n, err)
	}
	if js, _ := json.Marshal(NullULID{}); string(js) != "null" {
		t.Errorf("json.Marshal(NullULID{}) = %s", js)
	}
	// Not strings.
	for _, in := range []string{`1`, `true`, `{}`, `[]`, `"`, `'01GFGGMBFGB5WKXBN7S84ATRDG'`, `"01GFGGMBFGB5WKXBN7S84ATRDG`} {
		v := u
		if err := v.UnmarshalJSON([]byte(in)); err == nil || v != u {
			t.Errorf("UnmarshalJSON(%s) = %v, value %v", in, err, v)
		}
		n := NullULID{}
		if err := n.UnmarshalJSON([]byte(in)); err == nil || n.Valid {
			t.Errorf("NullULID.UnmarshalJSON(%s) = %v, %+v", in, err, n)
		}
	}
}

func TestAllocs(t *testing.T) {
	u := New()
	s, uu := u.String(), u.UUIDString()
	buf := make([]byte, 0, 64)
	text := []byte(s)
	var raw, textAny any = u[:], text // drivers hand Scan an any already
	checks := []struct {
		name string
		max  float64
		fn   func()
	}{
		{"New", 0, func() { _ = New() }},
		{"Parse base32", 0, func() { _, _ = Parse(s) }},
		{"Parse uuid", 0, func() { _, _ = Parse(uu) }},
		{"UnmarshalText", 0, func() { _ = u.UnmarshalText(text) }},
		{"AppendText", 0, func() { buf, _ = u.AppendText(buf[:0]) }},
		{"String", 1, func() { _ = u.String() }},
		{"Scan text", 0, func() { _ = u.Scan(textAny) }},
		{"Scan []byte", 0, func() { _ = u.Scan(raw) }},
	}
	for _, c := range checks {
		if n := testing.AllocsPerRun(200, c.fn); n > c.max {
			t.Errorf("%s: %v allocs, want <= %v", c.name, n, c.max)
		}
	}
}
