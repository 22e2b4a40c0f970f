package objectidtype

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5/pgtype"
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

// What a decoder may accept.
type spelling int

const (
	parseForms spelling = iota // hex (either case, 24 characters) or short (16)
	scanText                   // parseForms, or `\x` and 24 hex digits
	rawBytes                   // exactly the 12 raw bytes
)

// checkAccepted fails unless o round-trips through both text forms and input
// is one of the text forms of o: hex (either case, 24 characters) or short
// (16 characters).
func checkAccepted(t *testing.T, input []byte, o ObjectID) {
	t.Helper()
	checkSpelling(t, input, o, parseForms)
}

// checkSpelling fails unless o round-trips through both text forms and input
// spells o in one of the forms that kind allows.
func checkSpelling(t *testing.T, input []byte, o ObjectID, kind spelling) {
	t.Helper()
	if p, err := Parse(o.String()); err != nil || p != o {
		t.Fatalf("%q: hex round trip %v, %v", input, p, err)
	}
	if p, err := Parse(o.Short()); err != nil || p != o {
		t.Fatalf("%q: short round trip %v, %v", input, p, err)
	}
	switch {
	case kind == rawBytes:
		if string(input) != string(o[:]) {
			t.Fatalf("%q accepted as %v; only its 12 raw bytes may be", input, o)
		}
	case len(input) == hexLen && bytes.EqualFold(input, []byte(o.String())):
	case len(input) == shortLen && string(input) == o.Short():
	case kind == scanText && len(input) == byteaTextLen && bytes.EqualFold(input, []byte(`\x`+o.String())) && input[1] == 'x':
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
	f.Add(`nul`)
	f.Fuzz(func(t *testing.T, s string) {
		o := seedBytes
		if s == "null" {
			// As encoding/json treats null for a non-pointer value.
			if err := o.UnmarshalJSON([]byte(s)); err != nil || o != seedBytes {
				t.Fatalf("null: %v, %v; want no error and no change", o, err)
			}
			return
		}
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
	f.Add(`\x` + seedHex)
	f.Add(`\X` + seedHex)
	f.Add(`\x` + seedHex[:23] + "g")
	f.Fuzz(func(t *testing.T, s string) {
		m := pgtype.NewMap()
		// A string is text: the forms Parse takes, or a bytea's text.
		o := seedBytes
		err := o.Scan(s)
		if err != nil {
			checkRejected(t, []byte(s), err, o)
		} else {
			checkSpelling(t, []byte(s), o, scanText)
		}
		p := seedBytes
		if err2 := p.ScanText(pgtype.Text{String: s, Valid: true}); (err2 == nil) != (err == nil) || p != o {
			t.Fatalf("%q: ScanText disagrees with Scan(string): %v, %v; %v, %v", s, p, err2, o, err)
		}
		p = seedBytes
		if err2 := m.Scan(pgtype.TextOID, pgtype.TextFormatCode, []byte(s), &p); (err2 == nil) != (err == nil) || p != o {
			t.Fatalf("%q: pgx text column disagrees with Scan(string): %v, %v; %v, %v", s, p, err2, o, err)
		}
		// A []byte is a bytea: the 12 raw bytes only.
		o = seedBytes
		err = o.Scan([]byte(s))
		if err != nil {
			checkRejected(t, []byte(s), err, o)
		} else {
			checkSpelling(t, []byte(s), o, rawBytes)
			v, _ := o.Value()
			var q ObjectID
			if err := q.Scan(v); err != nil || q != o {
				t.Fatalf("%q: Value/Scan round trip %v, %v", s, q, err)
			}
		}
		p = seedBytes
		if err2 := p.ScanBytes([]byte(s)); (err2 == nil) != (err == nil) || p != o {
			t.Fatalf("%q: ScanBytes disagrees with Scan([]byte): %v, %v; %v, %v", s, p, err2, o, err)
		}
		p = seedBytes
		if err2 := m.Scan(pgtype.ByteaOID, pgtype.BinaryFormatCode, []byte(s), &p); (err2 == nil) != (err == nil) || p != o {
			t.Fatalf("%q: pgx binary bytea disagrees with Scan([]byte): %v, %v; %v, %v", s, p, err2, o, err)
		}
	})
}
