package objectidtype

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"
)

// seedCorpus adds valid and malformed inputs to f.
func seedCorpus(f *testing.F) {
	f.Add(seedHex)
	f.Add(seedShort)
	f.Add("4E7020CB7CAC81AF7136236B")
	f.Add(string(seedBytes[:]))
	for _, m := range malformed {
		f.Add(m.in)
	}
}

// checkAccepted fails unless o round-trips through both text forms and input
// is one of the text forms of o: hex (either case, 24 characters) or short
// (16 characters).
func checkAccepted(t *testing.T, input []byte, o ObjectID) {
	t.Helper()
	checkSpelling(t, input, o, false)
}

// checkSpelling is checkAccepted that also allows the 12 raw bytes, as Scan
// does.
func checkSpelling(t *testing.T, input []byte, o ObjectID, raw bool) {
	t.Helper()
	if p, err := Parse(o.String()); err != nil || p != o {
		t.Fatalf("%q: hex round trip %v, %v", input, p, err)
	}
	if p, err := Parse(o.Short()); err != nil || p != o {
		t.Fatalf("%q: short round trip %v, %v", input, p, err)
	}
	switch {
	case len(input) == hexLen && bytes.EqualFold(input, []byte(o.String())):
	case len(input) == shortLen && string(input) == o.Short():
	case raw && len(input) == len(o) && string(input) == string(o[:]):
	default:
		t.Fatalf("%q accepted as %v, which it does not spell", input, o)
	}
}

// checkSentinel fails unless err wraps a known sentinel.
func checkSentinel(t *testing.T, input []byte, err error) {
	t.Helper()
	if !errors.Is(err, ErrLength) && !errors.Is(err, ErrCharacter) && !errors.Is(err, ErrNull) {
		t.Fatalf("%q: error %v wraps no sentinel", input, err)
	}
}

// checkRejected fails unless err wraps a known sentinel and o, which held
// seedBytes before the failed call, is unchanged.
func checkRejected(t *testing.T, input []byte, err error, o ObjectID) {
	t.Helper()
	checkSentinel(t, input, err)
	if o != seedBytes {
		t.Fatalf("%q: error left %v", input, o)
	}
}

func FuzzParse(f *testing.F) {
	seedCorpus(f)
	f.Fuzz(func(t *testing.T, s string) {
		o, err := Parse(s)
		if err != nil {
			checkSentinel(t, []byte(s), err)
			if o != (ObjectID{}) {
				t.Fatalf("%q: error with non-zero %v", s, o)
			}
			return
		}
		checkAccepted(t, []byte(s), o)
	})
}

func FuzzUnmarshalText(f *testing.F) {
	seedCorpus(f)
	f.Fuzz(func(t *testing.T, s string) {
		o := seedBytes
		if err := o.UnmarshalText([]byte(s)); err != nil {
			checkRejected(t, []byte(s), err, o)
			return
		}
		checkAccepted(t, []byte(s), o)
		txt, _ := o.MarshalText()
		var p ObjectID
		if err := p.UnmarshalText(txt); err != nil || p != o {
			t.Fatalf("%q: MarshalText round trip %v, %v", s, p, err)
		}
	})
}

func FuzzUnmarshalJSON(f *testing.F) {
	seedCorpus(f)
	f.Add(`"` + seedHex + `"`)
	f.Add(`"` + seedShort + `"`)
	f.Add(`"\u0034e7020cb7cac81af7136236b"`)
	f.Add(`null`)
	f.Fuzz(func(t *testing.T, s string) {
		o := seedBytes
		if err := o.UnmarshalJSON([]byte(s)); err != nil {
			checkRejected(t, []byte(s), err, o)
			n := NullObjectID{seedBytes, true}
			if err := n.UnmarshalJSON([]byte(s)); err == nil && s != "null" {
				t.Fatalf("%q: NullObjectID accepted what ObjectID rejected", s)
			}
			return
		}
		// What is accepted is a JSON string that spells the ID.
		var str string
		if err := json.Unmarshal([]byte(s), &str); err != nil {
			t.Fatalf("%q accepted, but it is not a JSON string: %v", s, err)
		}
		checkAccepted(t, []byte(str), o)
		js, _ := o.MarshalJSON()
		var p ObjectID
		if err := p.UnmarshalJSON(js); err != nil || p != o {
			t.Fatalf("%q: MarshalJSON round trip %v, %v", s, p, err)
		}
		sj, _ := ShortID(o).MarshalJSON()
		if err := p.UnmarshalJSON(sj); err != nil || p != o {
			t.Fatalf("%q: short JSON round trip %v, %v", s, p, err)
		}
	})
}

func FuzzScan(f *testing.F) {
	seedCorpus(f)
	f.Fuzz(func(t *testing.T, s string) {
		for _, src := range []any{s, []byte(s)} {
			o := seedBytes
			if err := o.Scan(src); err != nil {
				checkRejected(t, []byte(s), err, o)
				continue
			}
			if _, isString := src.(string); isString && len(s) == 12 {
				t.Fatalf("%q: 12-character string accepted as raw bytes", s)
			}
			checkSpelling(t, []byte(s), o, true)
			v, _ := o.Value()
			var p ObjectID
			if err := p.Scan(v); err != nil || p != o {
				t.Fatalf("%q: Value/Scan round trip %v, %v", s, p, err)
			}
			if err := p.ScanBytes([]byte(s)); err != nil || p != o {
				t.Fatalf("%q: ScanBytes disagrees with Scan: %v, %v", s, p, err)
			}
		}
	})
}
