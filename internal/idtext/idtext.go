// Package idtext is the one text codec of the IDs: the alphabets, Crockford
// base32 (ULID text, TypeID suffixes, opaque ULID codes), hex (the UUID form,
// ObjectID hex) and the error text of a parse. ulidtype, objectidtype,
// typeid, opaque and cmd/pgid take their forms from here, and the SQL
// generator takes the alphabets through ulidtype and objectidtype. The
// PostgreSQL array codec is package pgarray.
package idtext

import (
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
	return pos, fmt.Sprintf(MsgChar, QuoteByte(s[pos]), strconv.Itoa(pos), want)
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

// MarshalJSON returns the JSON string of the text appendText appends, whose
// usual length is size: the MarshalJSON of every ID type. It is small enough
// to inline, so a method value passed as appendText is called directly.
func MarshalJSON(size int, appendText func([]byte) ([]byte, error)) ([]byte, error) {
	b, err := appendText(append(make([]byte, 0, size+2), '"'))
	if err != nil {
		return nil, err
	}
	return append(b, '"'), nil
}
