package typeid

import (
	"database/sql"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgtype"
)

func TestAnyExample(t *testing.T) {
	a, err := ParseAny(exampleText)
	if err != nil {
		t.Fatal(err)
	}
	if a.Prefix() != "user" || a.Suffix() != "01h455vb4pex5vsknk084sn02q" || a.UUIDString() != exampleUUID || a.String() != exampleText {
		t.Fatalf("prefix %q suffix %q uuid %s text %q", a.Prefix(), a.Suffix(), a.UUIDString(), a)
	}
	typed := MustParse[userPrefix](exampleText)
	if typed.Any() != a || a.UUID() != typed.UUID() || a.ULID() != typed.ULID() || string(a.Bytes()) != string(typed.Bytes()) ||
		!a.Timestamp().Equal(typed.Timestamp()) || !a.IsV7() || a.IsZero() {
		t.Fatal("AnyID and ID disagree")
	}
	back, err := FromAny[userPrefix](a)
	if err != nil || back != typed {
		t.Fatalf("FromAny = %v, %v", back, err)
	}
	// The wrong type names both prefixes, as Parse does.
	_, err = FromAny[orderPrefix](a)
	var pe *ParseError
	if !errors.Is(err, ErrWrongPrefix) || !errors.As(err, &pe) || pe.Input != exampleText ||
		err.Error() != `typeid: parse "user_01h455vb4pex5vsknk084sn02q": prefix "user", want "order"` {
		t.Fatalf("FromAny[orderPrefix] = %v", err)
	}
	if _, err := FromAny[emptyPrefix](a); !errors.Is(err, ErrWrongPrefix) || !strings.Contains(err.Error(), `prefix "user", want none`) {
		t.Fatalf("FromAny[emptyPrefix] = %v", err)
	}
	none, _ := AnyFromUUID("", a.UUID())
	if _, err := FromAny[userPrefix](none); !errors.Is(err, ErrWrongPrefix) || !strings.Contains(err.Error(), `no prefix, want "user"`) {
		t.Fatalf("FromAny of no prefix = %v", err)
	}
	if none.String() != "01h455vb4pex5vsknk084sn02q" || (AnyID{}).String() != "00000000000000000000000000" || !(AnyID{}).IsZero() {
		t.Fatal("empty prefix text")
	}
}

// TestParseWithPrefix: a prefix known at run time is held to what Parse
// holds a prefix type to, with the same errors.
func TestParseWithPrefix(t *testing.T) {
	const suffix = "01h455vb4pex5vsknk084sn02q"
	for _, in := range []string{exampleText, "order_" + suffix, suffix, "User_" + suffix, "user_" + suffix[:25], "user_81h455vb4pex5vsknk084sn02q"} {
		typed, terr := Parse[userPrefix](in)
		a, aerr := ParseWithPrefix("user", in)
		if (terr == nil) != (aerr == nil) || terr != nil && terr.Error() != aerr.Error() || terr == nil && a != typed.Any() {
			t.Errorf("%q: Parse %v, %v; ParseWithPrefix %v, %v", in, typed, terr, a, aerr)
		}
	}
	if _, err := ParseWithPrefix("User", "User_"+suffix); !errors.Is(err, ErrPrefix) || !strings.Contains(err.Error(), `the type's prefix "User"`) {
		t.Errorf("bad prefix argument: %v", err)
	}
}

// TestParseAnyErrors: malformed text fails with its sentinel, at its
// position, naming the problem; the input's own prefix is named as such.
func TestParseAnyErrors(t *testing.T) {
	const suffix = "01h455vb4pex5vsknk084sn02q"
	cases := []struct {
		in  string
		err error
		pos int
		msg string
	}{
		{"_" + suffix, ErrPrefix, 0, "separator '_' at position 0 without a prefix"},
		{"User_" + suffix, ErrPrefix, 0, "invalid character 'U' at position 0 in the prefix, want"},
		{"us3r_" + suffix, ErrPrefix, 2, "invalid character '3' at position 2 in the prefix"},
		{"user__" + suffix, ErrPrefix, 4, "the prefix ends with '_' at position 4"},
		{"_user_" + suffix, ErrPrefix, 0, "starts with '_'"},
		{strings.Repeat("a", 64) + "_" + suffix, ErrPrefix, -1, "64 bytes, want at most 63"},
		{"user_" + suffix[:25], ErrLength, -1, "suffix of 25 bytes, want 26"},
		{suffix + "0", ErrLength, -1, "suffix of 27 bytes"},
		{"", ErrLength, -1, "suffix of 0 bytes"},
		{"user_", ErrLength, -1, "suffix of 0 bytes"},
		{"user_01H455vb4pex5vsknk084sn02q", ErrCharacter, 7, "invalid character 'H' at position 7"},
		{"01h455vb4pex5vsknk084sn0uq", ErrCharacter, 24, "invalid character 'u' at position 24"},
		{"user_81h455vb4pex5vsknk084sn02q", ErrOverflow, 5, "first suffix character '8' at position 5 is above '7'"},
		{"user_01h455vb4pex5vsknk084sn02q_", ErrPrefix, 5, "invalid character '0' at position 5 in the prefix"},
	}
	for _, c := range cases {
		a, err := ParseAny(c.in)
		var pe *ParseError
		if !errors.Is(err, c.err) || !errors.As(err, &pe) || pe.Pos != c.pos || !strings.Contains(err.Error(), c.msg) || a != (AnyID{}) || pe.Input != c.in {
			t.Errorf("ParseAny(%q) = %v, %v (%+v); want %v at %d containing %q", c.in, a, err, pe, c.err, c.pos, c.msg)
		}
		var u AnyID
		if err2 := u.UnmarshalText([]byte(c.in)); err2 == nil || err2.Error() != err.Error() {
			t.Errorf("UnmarshalText(%q) = %v; ParseAny %v", c.in, err2, err)
		}
	}
	defer func() {
		if r := recover(); r == nil || !errors.Is(r.(error), ErrCharacter) {
			t.Fatalf("MustParseAny recovered %v", r)
		}
	}()
	MustParseAny("user_01H455vb4pex5vsknk084sn02q")
}

// TestAnyRoundTrip: random values under random valid prefixes go through
// every text form and back, and agree with the typed path.
func TestAnyRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(28, 1))
	prefixes := []string{"", "user", "pre_fix", "a", strings.Repeat("abcdefghi", 7)}
	for range 20000 {
		var u uuid.UUID
		for i := range u {
			u[i] = byte(r.Uint32())
		}
		a, err := AnyFromUUID(prefixes[r.IntN(len(prefixes))], u)
		if err != nil {
			t.Fatal(err)
		}
		s := a.String()
		if back, err := ParseAny(s); err != nil || back != a {
			t.Fatalf("ParseAny(%q) = %v, %v", s, back, err)
		}
		if a.Prefix() == "user" && FromUUID[userPrefix](u).String() != s {
			t.Fatalf("typed text %q, any %q", FromUUID[userPrefix](u), s)
		}
		b, _ := a.AppendText([]byte("x"))
		j, err := json.Marshal(a)
		var fromJSON AnyID
		if string(b) != "x"+s || err != nil || string(j) != `"`+s+`"` || json.Unmarshal(j, &fromJSON) != nil || fromJSON != a {
			t.Fatalf("AppendText %q, JSON %s, %v, back %v", b, j, err, fromJSON)
		}
	}
}

func TestNewAny(t *testing.T) {
	a, err := NewAny("order")
	b, _ := NewAny("order")
	if err != nil || a.Prefix() != "order" || !a.IsV7() || a.Compare(b) >= 0 || b.Compare(a) <= 0 || a.Compare(a) != 0 {
		t.Fatalf("NewAny = %v, %v; then %v", a, err, b)
	}
	// Compare orders by prefix first.
	c, _ := AnyFromUUID("a", b.UUID())
	if c.Compare(a) >= 0 {
		t.Fatalf("%v sorts after %v", c, a)
	}
	for _, p := range []string{"Order", "order_", strings.Repeat("a", 64), "_"} {
		if v, err := NewAny(p); !errors.Is(err, ErrPrefix) || v != (AnyID{}) {
			t.Errorf("NewAny(%q) = %v, %v", p, v, err)
		}
		if v, err := AnyFromUUID(p, uuid.New()); !errors.Is(err, ErrPrefix) || v != (AnyID{}) {
			t.Errorf("AnyFromUUID(%q) = %v, %v", p, v, err)
		}
	}
}

// TestAnyScan: a uuid keeps the prefix the AnyID had; a TypeID text brings
// its own.
func TestAnyScan(t *testing.T) {
	want := MustParseAny(exampleText)
	typed := MustParse[userPrefix](exampleText)
	for _, src := range []any{exampleUUID, []byte(exampleUUID), typed.Bytes(), strings.ToUpper(exampleUUID), exampleText, []byte(exampleText)} {
		got, _ := AnyFromUUID("user", uuid.Nil)
		if err := got.Scan(src); err != nil || got != want {
			t.Errorf("Scan(%T %v) = %v, %v", src, src, got, err)
		}
	}
	var none AnyID
	if err := none.Scan(exampleUUID); err != nil || none.Prefix() != "" || none.UUIDString() != exampleUUID {
		t.Errorf("uuid into a zero AnyID: %v, %v", none, err)
	}
	order, _ := AnyFromUUID("order", uuid.Nil)
	if err := order.Scan(exampleText); err != nil || order != want {
		t.Errorf("a user's TypeID text into an order AnyID: %v, %v (the text's prefix wins)", order, err)
	}
	for _, c := range []struct {
		src any
		err error
	}{
		{nil, ErrNull},
		{[]byte(nil), ErrNull},
		{42, ErrScanType},
		{"01890a5d-ac96-774b-bcce-b302099a805g", ErrCharacter},
		{"User_01h455vb4pex5vsknk084sn02q", ErrPrefix},
		{make([]byte, 15), ErrLength},
	} {
		got := want
		if err := got.Scan(c.src); !errors.Is(err, c.err) || got != want {
			t.Errorf("Scan(%#v) = %v, %v; want %v and no change", c.src, got, err, c.err)
		}
	}
	if v, err := want.Value(); err != nil || v != exampleUUID {
		t.Fatalf("Value = %v, %v", v, err)
	}
	var sn sql.Null[AnyID]
	if err := sn.Scan(exampleText); err != nil || !sn.Valid || sn.V != want {
		t.Fatalf("sql.Null = %v, %v", sn, err)
	}
	// pgx: the UUID, the prefix kept.
	v, err := want.UUIDValue()
	if err != nil || !v.Valid || v.Bytes != typed.b {
		t.Fatal("UUIDValue")
	}
	got, _ := AnyFromUUID("user", uuid.Nil)
	if err := got.ScanUUID(v); err != nil || got != want {
		t.Fatalf("ScanUUID = %v, %v", got, err)
	}
	if err := got.ScanUUID(pgtype.UUID{}); !errors.Is(err, ErrNull) || got != want {
		t.Fatalf("ScanUUID(NULL) = %v", err)
	}
	m := pgtype.NewMap()
	buf, err := m.Encode(pgtype.UUIDOID, pgtype.BinaryFormatCode, want, nil)
	if err != nil || string(buf) != string(typed.Bytes()) {
		t.Fatalf("Encode = %x, %v", buf, err)
	}
	scanned, _ := AnyFromUUID("user", uuid.Nil)
	if err := m.Scan(pgtype.UUIDOID, pgtype.BinaryFormatCode, buf, &scanned); err != nil || scanned != want {
		t.Fatalf("pgx Scan = %v, %v", scanned, err)
	}
}

func TestAnyJSON(t *testing.T) {
	var v struct{ Subject AnyID }
	if err := json.Unmarshal([]byte(`{"Subject":"order_01h455vb4pex5vsknk084sn02q"}`), &v); err != nil || v.Subject.Prefix() != "order" {
		t.Fatalf("Unmarshal = %v, %v", v, err)
	}
	before := v.Subject
	if err := json.Unmarshal([]byte(`{"Subject":null}`), &v); err != nil || v.Subject != before {
		t.Fatalf("null changed it: %v, %v", v, err)
	}
	for _, in := range []string{`12`, `"Order_01h455vb4pex5vsknk084sn02q"`, `"user_01h455vb4pex5vsknk084sn02q`} {
		if err := json.Unmarshal([]byte(`{"Subject":`+in+`}`), &v); err == nil || v.Subject != before {
			t.Errorf("Unmarshal(%s) = %v, %v", in, v, err)
		}
	}
}

var sinkAny AnyID

// TestAnyAllocs: ParseAny of a string, scanning a uuid and appending
// allocate nothing; UnmarshalText allocates the prefix only, String its
// result only.
func TestAnyAllocs(t *testing.T) {
	a := MustParseAny(exampleText)
	text := []byte(exampleText)
	var src any = []byte(exampleUUID)
	pg, _ := a.UUIDValue()
	buf := make([]byte, 0, 64)
	for _, c := range []struct {
		name string
		fn   func()
		want float64
	}{
		{"ParseAny", func() { sinkAny, _ = ParseAny(exampleText) }, 0},
		{"ParseWithPrefix", func() { sinkAny, _ = ParseWithPrefix("user", exampleText) }, 0},
		{"FromAny", func() { sinkID, _ = FromAny[userPrefix](a) }, 0},
		{"Any", func() { sinkAny = sinkID.Any() }, 0},
		{"Scan", func() { _ = sinkAny.Scan(src) }, 0},
		{"ScanUUID", func() { _ = sinkAny.ScanUUID(pg) }, 0},
		{"AppendText", func() { buf, _ = a.AppendText(buf[:0]) }, 0},
		{"UnmarshalText", func() { _ = sinkAny.UnmarshalText(text) }, 1},
		{"String", func() { sinkStr = a.String() }, 1},
	} {
		if n := testing.AllocsPerRun(200, c.fn); n != c.want {
			t.Errorf("%s: %v allocations, want %v", c.name, n, c.want)
		}
	}
}
