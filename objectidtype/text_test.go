package objectidtype

import (
	"encoding/json"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestParseValid(t *testing.T) {
	tests := []struct {
		in   string
		want ObjectID
	}{
		{seedHex, seedBytes},
		{strings.ToUpper(seedHex), seedBytes},
		{"4E7020CB7cac81af7136236B", seedBytes},
		{seedShort, seedBytes},
		{"000000000000000000000000", ObjectID{}},
		{"0000000000000000", ObjectID{}},
		{"ffffffffffffffffffffffff", ObjectID{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}},
		{"________________", ObjectID{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}},
		{"----------------", ObjectID{0xfb, 0xef, 0xbe, 0xfb, 0xef, 0xbe, 0xfb, 0xef, 0xbe, 0xfb, 0xef, 0xbe}},
		{"0000000000000001", ObjectID{11: 1}},
		{"000000000000000Z", ObjectID{11: 61}},
	}
	for _, tt := range tests {
		got, err := Parse(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("Parse(%q) = %x, %v; want %x", tt.in, got[:], err, tt.want[:])
		}
		var u ObjectID
		if err := u.UnmarshalText([]byte(tt.in)); err != nil || u != tt.want {
			t.Errorf("UnmarshalText(%q) = %x, %v; want %x", tt.in, u[:], err, tt.want[:])
		}
	}
}

func TestParseSixteenHexDigits(t *testing.T) {
	// 16 hex digits are a short form (of other bits), never half a hex ID.
	const in = "4e7020cb7cac81af"
	o, err := Parse(in)
	if err != nil || o.Short() != in || o.String() == in+"00000000" {
		t.Fatalf("Parse(%q) = %v, %v; want the short form", in, o, err)
	}
}

// malformed are inputs that no ObjectID form accepts, with the sentinel and
// the position of the offending character (-1 for length errors).
var malformed = []struct {
	in  string
	err error
	pos int
}{
	// Lengths.
	{"", ErrLength, -1},
	{"4", ErrLength, -1},
	{"4e7020cb7cac81af7136236", ErrLength, -1},   // 23
	{"4e7020cb7cac81af7136236b0", ErrLength, -1}, // 25
	{"jD0wOTOIwqZNdyd", ErrLength, -1},           // 15
	{"jD0wOTOIwqZNdydH0", ErrLength, -1},         // 17
	{"4e7020cb7cac", ErrLength, -1},              // 12 characters
	{"ObjectId(\"4e7020cb7cac81af7136236b\")", ErrLength, -1},
	{"\"4e7020cb7cac81af7136236b\"", ErrLength, -1},
	{" 4e7020cb7cac81af7136236b", ErrLength, -1},
	{"4e7020cb7cac81af7136236b ", ErrLength, -1},
	{"4e7020cb-7cac-81af-7136-236b", ErrLength, -1},
	{"0x4e7020cb7cac81af7136236b", ErrLength, -1},
	{"\\x4e7020cb7cac81af7136236b", ErrLength, -1},
	{"jD0wOTOIwqZNdydH==", ErrLength, -1},
	{"4e7020cb7cac81af7136236b4e7020cb", ErrLength, -1}, // 32
	{"jD0wOTOIwqZNdyd\u00e9", ErrLength, -1},            // 17 bytes
	// Hex characters.
	{"4e70zzcb7cac81af7136236b", ErrCharacter, 4},
	{"g00000000000000000000000", ErrCharacter, 0},
	{"00000000000000000000000g", ErrCharacter, 23},
	{"4e7020cb7cac81af7136236-", ErrCharacter, 23},
	{"4e7020cb 7cac81af7136236", ErrCharacter, 8},
	{"4e7020cb7cac81af713623\x00b", ErrCharacter, 22},
	{"4e7020cb7cac81af713623\xffb", ErrCharacter, 22},
	{"+e7020cb7cac81af7136236b", ErrCharacter, 0},
	{"4e7020cb7cac81af7136236\n", ErrCharacter, 23},
	{"4e7020cb7cac81aF713623GB", ErrCharacter, 22},
	{"4e7020cb7cac81af71362_6b", ErrCharacter, 21},
	{"ÿ4e7020cb7cac81af713623", ErrCharacter, 0}, // a 2-byte rune makes 24 bytes
	// Short-form characters.
	{"jD0wOTOIwqZNdy+H", ErrCharacter, 14},
	{"jD0wOTOIwqZNdy/H", ErrCharacter, 14},
	{"jD0wOTOIwqZNdyd=", ErrCharacter, 15},
	{"jD0wOTOIwqZNd===", ErrCharacter, 13},
	{"+D0wOTOIwqZNdydH", ErrCharacter, 0},
	{"/D0wOTOIwqZNdydH", ErrCharacter, 0},
	{"jD0wOTOI.qZNdydH", ErrCharacter, 8},
	{"jD0wOTOI qZNdydH", ErrCharacter, 8},
	{"jD0wOTOIwqZNdyd\n", ErrCharacter, 15},
	{"jD0wOTOIwqZNdyd\r", ErrCharacter, 15},
	{"\njD0wOTOIwqZNdyd", ErrCharacter, 0},
	{"jD0wOTOI\r\nZNdydH", ErrCharacter, 8},
	{"jD0wOTOIwqZNdyd\x00", ErrCharacter, 15},
	{"jD0wOTOIwqZNdy\xc3\xa9", ErrCharacter, 14},
	{"jD0wOTOIwqZNdy~H", ErrCharacter, 14},
	{"jD0wOTOIwqZNdy*H", ErrCharacter, 14},
	{"jD0w%2BOIwqZNdyd", ErrCharacter, 4},
}

func TestParseMalformed(t *testing.T) {
	if len(malformed) < 40 {
		t.Fatalf("only %d malformed inputs", len(malformed))
	}
	for _, tt := range malformed {
		_, err := Parse(tt.in)
		if !errors.Is(err, tt.err) {
			t.Errorf("Parse(%q) error = %v, want %v", tt.in, err, tt.err)
			continue
		}
		var pe *ParseError
		if !errors.As(err, &pe) {
			t.Errorf("Parse(%q) error %T is not a *ParseError", tt.in, err)
			continue
		}
		if pe.Pos != tt.pos || pe.Input != tt.in {
			t.Errorf("Parse(%q): Pos = %d, Input = %q; want %d", tt.in, pe.Pos, pe.Input, tt.pos)
		}
		if !strings.HasPrefix(err.Error(), "objectidtype: parse ") {
			t.Errorf("Parse(%q) message %q", tt.in, err)
		}
		if tt.err == ErrLength && !strings.Contains(err.Error(), "invalid length ") {
			t.Errorf("Parse(%q) message %q does not name the length", tt.in, err)
		}
		if tt.err == ErrCharacter && !strings.Contains(err.Error(), "position ") {
			t.Errorf("Parse(%q) message %q does not name the position", tt.in, err)
		}
		// The same input as text, JSON and scan source fails the same way.
		o := seedBytes
		if err := o.UnmarshalText([]byte(tt.in)); !errors.Is(err, tt.err) || o != seedBytes {
			t.Errorf("UnmarshalText(%q) = %v, value %v", tt.in, err, o)
		}
		if utf8.ValidString(tt.in) { // json.Marshal replaces invalid UTF-8
			js, _ := json.Marshal(tt.in)
			if err := o.UnmarshalJSON(js); !errors.Is(err, tt.err) || o != seedBytes {
				t.Errorf("UnmarshalJSON(%s) = %v, value %v", js, err, o)
			}
		}
		if len(tt.in) == byteaTextLen {
			// Scan also takes a bytea's text, `\x` and 24 hex digits, and
			// names a wrong character in any 26-character string.
			if err := o.Scan(tt.in); (err == nil) != (tt.in[:2] == `\x`) || err != nil && !errors.Is(err, ErrCharacter) {
				t.Errorf("Scan(%q) = %v, value %v", tt.in, err, o)
			}
			o = seedBytes
		} else if len(tt.in) != 12 {
			if err := o.Scan(tt.in); !errors.Is(err, tt.err) || o != seedBytes {
				t.Errorf("Scan(%q) = %v, value %v", tt.in, err, o)
			}
			// A []byte is a bytea, whose only form is the 12 raw bytes.
			if err := o.Scan([]byte(tt.in)); !errors.Is(err, ErrLength) || o != seedBytes {
				t.Errorf("Scan([]byte(%q)) = %v, value %v", tt.in, err, o)
			}
		}
	}
}

func TestParseErrorMessages(t *testing.T) {
	tests := []struct{ in, want string }{
		{"4e70zzcb7cac81af7136236b", `objectidtype: parse "4e70zzcb7cac81af7136236b": invalid character 'z' at position 4, want a hex digit`},
		{"jD0wOTOIwqZNdy+H", `objectidtype: parse "jD0wOTOIwqZNdy+H": invalid character '+' at position 14, want a short-form character (0-9, a-z, A-Z, '-' or '_')`},
		{"abc", `objectidtype: parse "abc": invalid length 3, want 24 (hex) or 16 (short form)`},
		{"4e7020cb7cac81af713623\xffb", `objectidtype: parse "4e7020cb7cac81af713623\xffb": invalid character '\xff' at position 22, want a hex digit`},
		{"4e7020cb7cac81af713623\x00b", `objectidtype: parse "4e7020cb7cac81af713623\x00b": invalid character '\x00' at position 22, want a hex digit`},
		{strings.Repeat("a", 100), `objectidtype: parse "` + strings.Repeat("a", 64) + `...": invalid length 100, want 24 (hex) or 16 (short form)`},
	}
	for _, tt := range tests {
		_, err := Parse(tt.in)
		if err == nil || err.Error() != tt.want {
			t.Errorf("Parse(%q) error\n got %v\nwant %s", tt.in, err, tt.want)
		}
	}
}

func TestMustParse(t *testing.T) {
	if MustParse(seedShort) != seedBytes {
		t.Fatal("MustParse(seedShort)")
	}
	defer func() {
		if r := recover(); r == nil {
			t.Fatal("MustParse(bad) did not panic")
		} else if err, ok := r.(error); !ok || !errors.Is(err, ErrLength) {
			t.Fatalf("MustParse(bad) panicked with %v", r)
		}
	}()
	MustParse("bad")
}

// randomIDs returns n random ObjectIDs, the nil ID and the all-ones ID.
func randomIDs(n int) []ObjectID {
	r := rand.New(rand.NewPCG(3, 4))
	ids := []ObjectID{{}, {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, seedBytes}
	for range n {
		var o ObjectID
		for i := range o {
			o[i] = byte(r.Uint32())
		}
		ids = append(ids, o)
	}
	return ids
}

func TestRoundTrip(t *testing.T) {
	for _, o := range randomIDs(2000) {
		s := o.String()
		if len(s) != 24 || s != strings.ToLower(s) {
			t.Fatalf("String() = %q", s)
		}
		if p, err := Parse(s); err != nil || p != o {
			t.Fatalf("Parse(String()) = %v, %v; want %v", p, err, o)
		}
		if p, err := Parse(strings.ToUpper(s)); err != nil || p != o {
			t.Fatalf("Parse(upper String()) = %v, %v; want %v", p, err, o)
		}
		sh := o.Short()
		if len(sh) != 16 {
			t.Fatalf("Short() = %q", sh)
		}
		if p, err := Parse(sh); err != nil || p != o {
			t.Fatalf("Parse(Short()) = %v, %v; want %v", p, err, o)
		}
		if sh != seedBitsShort(o) {
			t.Fatalf("Short() = %q, the seed's algorithm gives %q", sh, seedBitsShort(o))
		}
		txt, _ := o.MarshalText()
		var u ObjectID
		if err := u.UnmarshalText(txt); err != nil || u != o || string(txt) != s {
			t.Fatalf("MarshalText round trip: %q -> %v, %v", txt, u, err)
		}
		app, _ := o.AppendText([]byte("x"))
		if string(app) != "x"+s {
			t.Fatalf("AppendText = %q", app)
		}
		bin, _ := o.MarshalBinary()
		u = ObjectID{}
		if err := u.UnmarshalBinary(bin); err != nil || u != o {
			t.Fatalf("MarshalBinary round trip: %x -> %v, %v", bin, u, err)
		}
		bin2, _ := o.AppendBinary([]byte{7})
		if string(bin2) != "\x07"+string(o[:]) {
			t.Fatalf("AppendBinary = %x", bin2)
		}
		js, err := json.Marshal(o)
		if err != nil || string(js) != `"`+s+`"` {
			t.Fatalf("json.Marshal = %s, %v", js, err)
		}
		u = ObjectID{}
		if err := json.Unmarshal(js, &u); err != nil || u != o {
			t.Fatalf("json round trip: %s -> %v, %v", js, u, err)
		}
		if err := json.Unmarshal([]byte(`"`+sh+`"`), &u); err != nil || u != o {
			t.Fatalf("json short: %s -> %v, %v", sh, u, err)
		}
		// The short form sorts like the IDs only by accident; the hex form
		// always does.
		if p := randomIDs(0)[1]; (o.Compare(p) < 0) != (o.String() < p.String()) && o != p {
			t.Fatalf("hex order differs from ID order for %v, %v", o, p)
		}
	}
}

// seedBitsShort is the short form computed as seed 000 describes it: every
// three hex digits (12 bits) become two characters of 6 bits.
func seedBitsShort(o ObjectID) string {
	const hexDigits = "0123456789abcdef"
	h := o.String()
	var b strings.Builder
	for i := 0; i < len(h); i += 3 {
		a := strings.IndexByte(hexDigits, h[i])
		m := strings.IndexByte(hexDigits, h[i+1])
		c := strings.IndexByte(hexDigits, h[i+2])
		b.WriteByte(ShortAlphabet[a<<2|m>>2])
		b.WriteByte(ShortAlphabet[(m&3)<<4|c])
	}
	return b.String()
}

func TestShortNotOrderPreserving(t *testing.T) {
	// 0x…3e is '-' and sorts before digits in ASCII although it is larger.
	a := ObjectID{11: 0x09} // …9
	b := ObjectID{11: 0x3e} // …-
	if a.Compare(b) >= 0 || a.Short() < b.Short() {
		t.Fatalf("expected the short forms %q, %q to sort against the IDs", a.Short(), b.Short())
	}
}

func TestUnmarshalBinaryErrors(t *testing.T) {
	o := seedBytes
	for _, n := range []int{0, 1, 11, 13, 24} {
		if err := o.UnmarshalBinary(make([]byte, n)); !errors.Is(err, ErrLength) || o != seedBytes {
			t.Errorf("UnmarshalBinary(%d bytes) = %v, value %v", n, err, o)
		}
	}
}

func TestUnmarshalJSON(t *testing.T) {
	tests := []struct {
		in   string
		want ObjectID
		err  error
	}{
		{`"` + seedHex + `"`, seedBytes, nil},
		{`"` + seedShort + `"`, seedBytes, nil},
		{`"\u0034e7020cb7cac81af7136236b"`, seedBytes, nil}, // escaped '4'
		{`"jD0wOTOIwqZNdy\/H"`, ObjectID{}, ErrCharacter},
		{`null`, ObjectID{1}, nil}, // no change, as encoding/json does
		{`nul`, ObjectID{}, ErrCharacter},
		{`"null"`, ObjectID{}, ErrLength},
		{`""`, ObjectID{}, ErrLength},
		{`"`, ObjectID{}, ErrCharacter},
		{`4e7020cb7cac81af7136236b`, ObjectID{}, ErrCharacter},
		{`{"$oid":"4e7020cb7cac81af7136236b"}`, seedBytes, nil}, // MongoDB Extended JSON (issue 19)
		{`"\x"`, ObjectID{}, ErrCharacter},
		{`12`, ObjectID{}, ErrCharacter},
	}
	for _, tt := range tests {
		o := ObjectID{1}
		err := o.UnmarshalJSON([]byte(tt.in))
		if tt.err != nil {
			if !errors.Is(err, tt.err) || o != (ObjectID{1}) {
				t.Errorf("UnmarshalJSON(%s) = %v, value %v; want %v, unchanged", tt.in, err, o, tt.err)
			}
			continue
		}
		if err != nil || o != tt.want {
			t.Errorf("UnmarshalJSON(%s) = %v, %v", tt.in, o, err)
		}
	}
	// Through encoding/json: null into a plain ObjectID field leaves it
	// unchanged without an error, as for a time.Time field.
	var v struct {
		ID ObjectID
		T  time.Time
	}
	v.ID, v.T = seedBytes, time.Unix(1, 0)
	err := json.Unmarshal([]byte(`{"ID":null,"T":null}`), &v)
	if err != nil || v.ID != seedBytes || v.T != time.Unix(1, 0) {
		t.Errorf("json null into ObjectID and time.Time fields: %v, %v, %v", err, v.ID, v.T)
	}
	var p struct{ ID *ObjectID }
	if err := json.Unmarshal([]byte(`{"ID":null}`), &p); err != nil || p.ID != nil {
		t.Errorf("json null into *ObjectID: %v, %v", err, p.ID)
	}
}

func TestShortID(t *testing.T) {
	type item struct {
		ID  ShortID  `json:"id"`
		Opt *ShortID `json:"opt"`
	}
	in := item{ID: ShortID(seedBytes)}
	js, err := json.Marshal(in)
	if err != nil || string(js) != `{"id":"`+seedShort+`","opt":null}` {
		t.Fatalf("json.Marshal = %s, %v", js, err)
	}
	var out item
	if err := json.Unmarshal(js, &out); err != nil || out != in {
		t.Fatalf("json.Unmarshal = %+v, %v", out, err)
	}
	if err := json.Unmarshal([]byte(`{"id":"`+seedHex+`"}`), &out); err != nil || ObjectID(out.ID) != seedBytes {
		t.Fatalf("hex into ShortID = %+v, %v", out, err)
	}
	s := ShortID(seedBytes)
	if s.String() != seedShort {
		t.Errorf("String() = %q", s.String())
	}
	txt, _ := s.MarshalText()
	if string(txt) != seedShort {
		t.Errorf("MarshalText() = %q", txt)
	}
	var u ShortID
	if err := u.UnmarshalText(txt); err != nil || u != s {
		t.Errorf("UnmarshalText = %v, %v", u, err)
	}
	if err := u.UnmarshalJSON([]byte(`null`)); err != nil || u != s {
		t.Errorf("UnmarshalJSON(null) = %v, %v; want no error, no change", err, u)
	}
	out = item{ID: ShortID(seedBytes)}
	if err := json.Unmarshal([]byte(`{"id":null,"opt":null}`), &out); err != nil || out.ID != ShortID(seedBytes) || out.Opt != nil {
		t.Errorf("json nulls into ShortID, *ShortID: %+v, %v", out, err)
	}
}

func TestAllocs(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("allocation counts need a normal build")
	}
	o := seedBytes
	buf := make([]byte, 0, 64)
	hexText, shortJSON := []byte(seedHex), []byte(`"`+seedShort+`"`)
	tests := []struct {
		name string
		max  float64
		f    func()
	}{
		{"Parse hex", 0, func() { o, _ = Parse(seedHex) }},
		{"Parse short", 0, func() { o, _ = Parse(seedShort) }},
		{"UnmarshalText", 0, func() { _ = o.UnmarshalText(hexText) }},
		{"AppendText", 0, func() { buf, _ = o.AppendText(buf[:0]) }},
		{"ShortID.AppendText", 0, func() { buf, _ = ShortID(o).AppendText(buf[:0]) }},
		{"String", 1, func() { _ = o.String() }},
		{"Short", 1, func() { _ = o.Short() }},
		{"MarshalText", 1, func() { _, _ = o.MarshalText() }},
		{"MarshalJSON", 1, func() { _, _ = o.MarshalJSON() }},
		{"UnmarshalJSON", 0, func() { _ = o.UnmarshalJSON(shortJSON) }},
	}
	for _, tt := range tests {
		if got := testing.AllocsPerRun(100, tt.f); got > tt.max {
			t.Errorf("%s: %v allocations, want at most %v", tt.name, got, tt.max)
		}
	}
}
