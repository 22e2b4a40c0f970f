package main

import (
	"strconv"
	"unicode/utf8"

	"github.com/pgid/pgid/internal/idtext"
)

// nonASCII describes the first non-ASCII character of s, for messages meant
// for people: "invalid character 'Ä' at position 25 (IDs are ASCII)". ok is
// false when s is ASCII or not valid UTF-8. The parsers count and quote
// bytes instead, as the SQL functions do.
func nonASCII(s string) (msg string, ok bool) {
	if !utf8.ValidString(s) {
		return "", false
	}
	for i := range len(s) {
		if s[i] >= 0x80 {
			// Everything before i is ASCII: i is also the character position.
			return "invalid character " + idtext.QuoteChar(s, i) + " at position " + strconv.Itoa(i) + " (IDs are ASCII)", true
		}
	}
	return "", false
}
