package idtext

import (
	"errors"
	"strings"
	"testing"
)

func TestQuoteByte(t *testing.T) {
	for c, want := range map[byte]string{'a': `'a'`, 0: `'\x00'`, '\'': `'\''`, 0xff: `'\xff'`, 0x80: `'\x80'`} {
		if got := QuoteByte(c); got != want {
			t.Errorf("QuoteByte(%#x) = %s, want %s", c, got, want)
		}
	}
}

func TestInvalidChar(t *testing.T) {
	digit := func(_ int, c byte) bool { return '0' <= c && c <= '9' }
	pos, msg := InvalidChar("12x4y", "digit", digit)
	if pos != 2 || msg != "invalid character 'x' at position 2, want a digit" {
		t.Errorf("InvalidChar = %d, %q", pos, msg)
	}
	if pos, msg := InvalidChar("", "digit", digit); pos != 0 || msg != "empty input, want a digit" {
		t.Errorf("InvalidChar(\"\") = %d, %q", pos, msg)
	}
	// The validator sees positions.
	evenOnly := func(i int, c byte) bool { return i%2 == 0 || c == '-' }
	if pos, _ := InvalidChar("a-bc", "hyphen", evenOnly); pos != 3 {
		t.Errorf("position-aware InvalidChar = %d, want 3", pos)
	}
}

func TestJSONString(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{`"abc"`, "abc", true},
		{`""`, "", true},
		{`"\u0041b"`, "Ab", true},
		{`"a\"b"`, `a"b`, true},
		{`"a"b"`, "", false},
		{`"abc`, "", false},
		{`abc"`, "", false},
		{`"`, "", false},
		{`12`, "", false},
		{"\"a\tb\"", "", false}, // raw control characters are not JSON
	}
	for _, tt := range tests {
		got, err := JSONString([]byte(tt.in))
		if tt.ok != (err == nil) || string(got) != tt.want {
			t.Errorf("JSONString(%s) = %q, %v", tt.in, got, err)
		}
		if err != nil && !errors.Is(err, ErrNotString) {
			t.Errorf("JSONString(%s) error %v", tt.in, err)
		}
	}
}

func TestParseErrorText(t *testing.T) {
	if got := ParseErrorText("pkg", "a\x00", "bad"); got != `pkg: parse "a\x00": bad` {
		t.Errorf("ParseErrorText = %s", got)
	}
	long := ParseErrorText("pkg", string(make([]byte, 100)), "m")
	if want := `pkg: parse "` + strings.Repeat(`\x00`, 64) + `...": m`; long != want {
		t.Errorf("long input: %s", long)
	}
}

func TestJSONStringNull(t *testing.T) {
	if s, err := JSONString([]byte("null")); err != ErrNullJSON || s != nil {
		t.Errorf("JSONString(null) = %q, %v; want ErrNullJSON", s, err)
	}
	for _, in := range []string{`"null"`, `nul`, `null `, `NULL`} {
		if _, err := JSONString([]byte(in)); err == ErrNullJSON {
			t.Errorf("JSONString(%s) = ErrNullJSON", in)
		}
	}
}

func TestHexValue(t *testing.T) {
	for c := range 256 {
		v := HexValue[c]
		var want byte = 0xFF
		switch {
		case '0' <= c && c <= '9':
			want = byte(c - '0')
		case 'a' <= c && c <= 'f':
			want = byte(c - 'a' + 10)
		case 'A' <= c && c <= 'F':
			want = byte(c - 'A' + 10)
		}
		if v != want || IsHex(byte(c)) != (want != 0xFF) {
			t.Errorf("HexValue[%#x] = %#x, IsHex %v; want %#x", c, v, IsHex(byte(c)), want)
		}
	}
}

func TestNullError(t *testing.T) {
	sentinel := errors.New("pkg: NULL")
	err := NullError(sentinel, "ID", "NullID or *ID")
	if !errors.Is(err, sentinel) || err.Error() != "pkg: NULL into ID: use NullID or *ID for a nullable column" {
		t.Errorf("NullError = %q", err)
	}
}

func TestQuoteChar(t *testing.T) {
	if got := QuoteChar("x\u00e9", 1); got != "'é'" {
		t.Errorf("QuoteChar = %s", got)
	}
	if got := QuoteChar("x\xe9", 1); got != `'\xe9'` {
		t.Errorf("QuoteChar of a lone byte = %s", got)
	}
}
