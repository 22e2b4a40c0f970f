// Package idtext holds the text mechanics ulidtype, objectidtype and typeid share:
// describing an invalid character, reading a JSON string, the UUID form.
package idtext

import (
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"
)

// ParseErrorText renders a parse error as `pkg: parse "input": msg`, with
// the input quoted and cut to 64 bytes.
func ParseErrorText(pkg, input, msg string) string {
	if len(input) > 64 {
		input = input[:64] + "..."
	}
	return pkg + ": parse " + strconv.Quote(input) + ": " + msg
}

// QuoteByte quotes a single byte, escaping it if it is not printable ASCII.
func QuoteByte(c byte) string {
	if c < 0x80 {
		return strconv.QuoteRune(rune(c))
	}
	return `'\x` + hex.EncodeToString([]byte{c}) + `'`
}

// QuoteChar quotes the character that starts at byte i of s: 'Ä' for a
// valid UTF-8 sequence, '\xc3' for a byte that starts none.
func QuoteChar(s string, i int) string {
	if s[i] < 0x80 {
		return QuoteByte(s[i])
	}
	r, size := utf8.DecodeRuneInString(s[i:])
	if r == utf8.RuneError && size <= 1 {
		return QuoteByte(s[i])
	}
	return strconv.QuoteRune(r)
}

// NonASCII describes the first non-ASCII character of s, for messages
// meant for people (the CLI): "invalid character 'Ä' at position 25 (IDs
// are ASCII)". ok is false when s is ASCII or not valid UTF-8. The parsers
// count and quote bytes instead, as the SQL functions do.
func NonASCII(s string) (msg string, ok bool) {
	if !utf8.ValidString(s) {
		return "", false
	}
	for i := range len(s) {
		if s[i] >= 0x80 {
			// Everything before i is ASCII: i is also the character position.
			return "invalid character " + QuoteChar(s, i) + " at position " + strconv.Itoa(i) + " (IDs are ASCII)", true
		}
	}
	return "", false
}

// InvalidChar finds the first byte of s that valid rejects and describes it,
// e.g. "invalid character 'U' at position 25, want a hex digit". If valid
// accepts every byte it reports position 0.
func InvalidChar(s, want string, valid func(i int, c byte) bool) (pos int, msg string) {
	for i := range len(s) {
		if !valid(i, s[i]) {
			pos = i
			break
		}
	}
	if len(s) == 0 {
		return 0, "empty input, want a " + want
	}
	return pos, "invalid character " + QuoteByte(s[pos]) + " at position " + strconv.Itoa(pos) + ", want a " + want
}

// Errors returned by JSONString.
var (
	// ErrNotString: the JSON value is neither a string nor null.
	ErrNotString = errors.New("not a JSON string")
	// ErrNullJSON: the JSON value is null.
	ErrNullJSON = errors.New("JSON null")
)

// JSONString returns the contents of the JSON string data without copying
// when it holds no escapes (an ID never does), and unquoted by encoding/json
// when it does. For JSON null it returns ErrNullJSON.
func JSONString(data []byte) ([]byte, error) {
	if string(data) == "null" {
		return nil, ErrNullJSON
	}
	n := len(data)
	if n < 2 || data[0] != '"' || data[n-1] != '"' {
		return nil, ErrNotString
	}
	s := data[1 : n-1]
	for _, c := range s {
		if c == '\\' || c == '"' || c < 0x20 {
			var str string
			if err := json.Unmarshal(data, &str); err != nil {
				return nil, ErrNotString
			}
			return []byte(str), nil
		}
	}
	return s, nil
}

// NullError returns the error for SQL NULL scanned into a type that cannot
// hold it, e.g. `ulidtype: NULL into ULID: use NullULID, sql.Null[ULID] or
// *ULID for a nullable column`. sentinel is the package's ErrNull, whose
// message is "<package>: NULL".
func NullError(sentinel error, typ, use string) error {
	return fmt.Errorf("%w into %s: use %s for a nullable column", sentinel, typ, use)
}

// HexValue maps a hex digit, in either case, to its value and every other
// byte to 0xFF, so that OR-ing the values of a run of bytes has a bit of
// 0xF0 set exactly when one of them is not a hex digit.
var HexValue = func() (t [256]byte) {
	for i := range t {
		t[i] = 0xFF
	}
	for i, c := range "0123456789abcdef" {
		t[c] = byte(i)
		if c >= 'a' {
			t[c-'a'+'A'] = byte(i)
		}
	}
	return t
}()

// IsHex reports whether c is a hex digit, in either case.
func IsHex(c byte) bool { return HexValue[c] != 0xFF }

// EncodeUUID writes the 36-character UUID form of u (lower case, with
// hyphens, as PostgreSQL prints a uuid) into b, one nibble of the
// big-endian halves at a time: ulidtype and typeid share it.
func EncodeUUID(u *[16]byte, b *[36]byte) {
	const digits = "0123456789abcdef"
	hi := binary.BigEndian.Uint64(u[:8])
	lo := binary.BigEndian.Uint64(u[8:])
	b[0] = digits[hi>>60]
	b[1] = digits[hi>>56&15]
	b[2] = digits[hi>>52&15]
	b[3] = digits[hi>>48&15]
	b[4] = digits[hi>>44&15]
	b[5] = digits[hi>>40&15]
	b[6] = digits[hi>>36&15]
	b[7] = digits[hi>>32&15]
	b[9] = digits[hi>>28&15]
	b[10] = digits[hi>>24&15]
	b[11] = digits[hi>>20&15]
	b[12] = digits[hi>>16&15]
	b[14] = digits[hi>>12&15]
	b[15] = digits[hi>>8&15]
	b[16] = digits[hi>>4&15]
	b[17] = digits[hi&15]
	b[19] = digits[lo>>60]
	b[20] = digits[lo>>56&15]
	b[21] = digits[lo>>52&15]
	b[22] = digits[lo>>48&15]
	b[24] = digits[lo>>44&15]
	b[25] = digits[lo>>40&15]
	b[26] = digits[lo>>36&15]
	b[27] = digits[lo>>32&15]
	b[28] = digits[lo>>28&15]
	b[29] = digits[lo>>24&15]
	b[30] = digits[lo>>20&15]
	b[31] = digits[lo>>16&15]
	b[32] = digits[lo>>12&15]
	b[33] = digits[lo>>8&15]
	b[34] = digits[lo>>4&15]
	b[35] = digits[lo&15]
	b[8], b[13], b[18], b[23] = '-', '-', '-', '-'
}
