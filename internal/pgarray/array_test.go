package pgarray

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
)

// elems returns what Array reads from s: each element's text, "<NULL>" for
// SQL NULL.
func elems(s string) ([]string, error) {
	var out []string
	err := Array(s, func(_ int, text []byte, null bool) error {
		if null {
			out = append(out, "<NULL>")
		} else {
			out = append(out, string(text))
		}
		return nil
	})
	return out, err
}

func TestArray(t *testing.T) {
	good := []struct {
		in   string
		want []string
	}{
		{"{}", nil},
		{" { } ", nil},
		{"{a}", []string{"a"}},
		{`{a,"b",NULL,null,"NULL",\NULL}`, []string{"a", "b", "<NULL>", "<NULL>", "NULL", "NULL"}},
		{`{ a b , "c\"d" ,e\,f}`, []string{"a b", `c"d`, "e,f"}},
		{`{"\\x4e70"}`, []string{`\x4e70`}},
		{`{"",x\ }`, []string{"", "x "}},
	}
	for _, tt := range good {
		got, err := elems(tt.in)
		if err != nil || strings.Join(got, "|") != strings.Join(tt.want, "|") || len(got) != len(tt.want) {
			t.Errorf("Array(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	bad := []string{"", "a", "{", "{a", `{"a}`, "{a,}", "{,a}", "{{a}}", "{a}b", `{a"b"}`, `{"a"b}`, `{a\`, "{" + strings.Repeat("x", MaxElem+1) + "}", "[1:1]={a}"}
	for _, in := range bad {
		var ae *ArrayError
		if got, err := elems(in); !errors.As(err, &ae) {
			t.Errorf("Array(%q) = %q, %v; want an *ArrayError", in, got, err)
		}
	}
	stop := errors.New("stop")
	if err := Array("{a,b}", func(i int, _ []byte, _ bool) error { return stop }); err != stop {
		t.Errorf("elem's error: %v", err)
	}
}

// quoteElem writes text as a quoted array element.
func quoteElem(b []byte, text string) []byte {
	b = append(b, '"')
	for i := range len(text) {
		if text[i] == '"' || text[i] == '\\' {
			b = append(b, '\\')
		}
		b = append(b, text[i])
	}
	return append(b, '"')
}

// TestArrayRoundTrip: random elements, NULLs among them, written by
// AppendArray read back the same by Array.
func TestArrayRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const alphabet = `ab, "\{}NUL	x`
	for range 2000 {
		want := make([]string, r.IntN(6))
		for i := range want {
			if r.IntN(5) == 0 {
				want[i] = "<NULL>"
				continue
			}
			b := make([]byte, r.IntN(MaxElem+1))
			for j := range b {
				b[j] = alphabet[r.IntN(len(alphabet))]
			}
			want[i] = string(b)
		}
		s := AppendArray(nil, len(want), false, func(b []byte, i int) ([]byte, bool) {
			return quoteElem(b, want[i]), want[i] == "<NULL>"
		})
		got, err := elems(string(s))
		if err != nil || strings.Join(got, "\x00") != strings.Join(want, "\x00") || len(got) != len(want) {
			t.Fatalf("%s: %q, %v; want %q", s, got, err, want)
		}
	}
}

func TestArrayAllocs(t *testing.T) {
	in := []byte(`{"\\x4e7020cb7cac81af7136236b",NULL,01ARYZ6S41TSV4RRFFQ69G5FAV}`)
	noop := func(int, []byte, bool) error { return nil }
	if n := testing.AllocsPerRun(100, func() { _ = Array(in, noop) }); n > 1 {
		t.Errorf("Array: %v allocations, want at most 1 (its element buffer)", n)
	}
}

// FuzzArray: Array never panics, and what it reads, written again by
// AppendArray, reads back the same.
func FuzzArray(f *testing.F) {
	for _, s := range []string{"{}", `{a,"b",NULL}`, `{"\\x4e70",\NULL, x y }`, "{{a}}", `{"a\"b"}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var texts [][]byte
		var nulls []bool
		if Array(s, func(_ int, text []byte, null bool) error {
			texts, nulls = append(texts, bytes.Clone(text)), append(nulls, null)
			return nil
		}) != nil {
			return
		}
		again := AppendArray(nil, len(texts), false, func(b []byte, i int) ([]byte, bool) {
			return quoteElem(b, string(texts[i])), nulls[i]
		})
		i := 0
		err := Array(again, func(_ int, text []byte, null bool) error {
			if i >= len(texts) || null != nulls[i] || !null && !bytes.Equal(text, texts[i]) {
				t.Fatalf("%q read as %q, written %s, element %d read back as %q", s, texts, again, i, text)
			}
			i++
			return nil
		})
		if err != nil || i != len(texts) {
			t.Fatalf("%q written as %s: %v after %d elements", s, again, err, i)
		}
	})
}

// binaryArray builds array_send's output for one dimension of elements of
// type oid; a nil element is NULL.
func binaryArray(oid uint32, elems ...[]byte) []byte {
	b := binary.BigEndian.AppendUint32(nil, 1)
	b = binary.BigEndian.AppendUint32(b, 0)
	b = binary.BigEndian.AppendUint32(b, oid)
	b = binary.BigEndian.AppendUint32(b, uint32(len(elems)))
	b = binary.BigEndian.AppendUint32(b, 1)
	for _, e := range elems {
		if e == nil {
			b = binary.BigEndian.AppendUint32(b, 0xFFFFFFFF)
			continue
		}
		b = append(binary.BigEndian.AppendUint32(b, uint32(len(e))), e...)
	}
	return b
}

func TestScanArrayBinary(t *testing.T) {
	type el struct {
		data      string
		null, raw bool
	}
	read := func(src any) ([]el, error) {
		return ScanArray(src, func(data []byte, null, raw bool) (el, error) { return el{string(data), null, raw}, nil })
	}
	got, err := read(binaryArray(17, []byte("abc"), nil, []byte{}))
	if err != nil || len(got) != 3 || got[0] != (el{"abc", false, true}) || !got[1].null || got[2] != (el{"", false, true}) {
		t.Errorf("bytea[]: %v, %v", got, err)
	}
	if got, err := read(binaryArray(25, []byte("x"))); err != nil || len(got) != 1 || got[0].raw {
		t.Errorf("text[] elements are text: %v, %v", got, err)
	}
	if got, err := read(binary.BigEndian.AppendUint32(make([]byte, 8), 2950)); err != nil || got == nil || len(got) != 0 {
		t.Errorf("empty: %v, %v", got, err)
	}
	full := binaryArray(2950, bytes.Repeat([]byte{1}, 16))
	for _, bad := range [][]byte{full[:len(full)-1], append(full, 0), full[:15], {0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 25, 0, 0, 0, 0, 0, 0, 0, 1}} {
		var ae *ArrayError
		if _, err := read(bad); !errors.As(err, &ae) {
			t.Errorf("% x: %v, want an *ArrayError", bad, err)
		}
	}
}
