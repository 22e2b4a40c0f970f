// Package idtext holds the text mechanics ulidtype and objectidtype share:
// describing an invalid character and reading a JSON string.
package idtext

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"strconv"
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

// ErrNotString is returned by JSONString for JSON values other than strings.
var ErrNotString = errors.New("not a JSON string")

// JSONString returns the contents of the JSON string data without copying
// when it holds no escapes (an ID never does), and unquoted by encoding/json
// when it does.
func JSONString(data []byte) ([]byte, error) {
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
