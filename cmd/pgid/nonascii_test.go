package main

import "testing"

func TestNonASCII(t *testing.T) {
	cases := []struct {
		in, msg string
		ok      bool
	}{
		// 26 characters, 27 bytes: the character is wrong, not the length.
		{"01ARZ3NDEKTSV4RRFFQ69G5FA\u00c4", "invalid character 'Ä' at position 25 (IDs are ASCII)", true},
		{"\u00c4bc", "invalid character 'Ä' at position 0 (IDs are ASCII)", true},
		{"abc", "", false},
		{"ab\xc3", "", false}, // not UTF-8: bytes, not text
	}
	for _, c := range cases {
		msg, ok := nonASCII(c.in)
		if msg != c.msg || ok != c.ok {
			t.Errorf("nonASCII(%q) = %q, %v; want %q, %v", c.in, msg, ok, c.msg, c.ok)
		}
	}
}
