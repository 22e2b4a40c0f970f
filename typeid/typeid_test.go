package typeid

import (
	"database/sql"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/pgid/pgid/ulidtype"
)

type (
	userPrefix  struct{}
	orderPrefix struct{}
	badPrefix   struct{}
)

func (userPrefix) Prefix() string  { return "user" }
func (orderPrefix) Prefix() string { return "order" }
func (badPrefix) Prefix() string   { return "User" }

type userID = ID[userPrefix]

// The example, computed independently: the ULID text of the UUID is
// 01H455VB4PEX5VSKNK084SN02Q.
const (
	exampleText = "user_01h455vb4pex5vsknk084sn02q"
	exampleUUID = "01890a5d-ac96-774b-bcce-b302099a8057"
)

func TestExample(t *testing.T) {
	id, err := Parse[userPrefix](exampleText)
	if err != nil {
		t.Fatal(err)
	}
	if id.UUIDString() != exampleUUID || id.ULID() != ulidtype.MustParse("01H455VB4PEX5VSKNK084SN02Q") {
		t.Fatalf("got %s / %s", id.UUIDString(), id.ULID())
	}
	if id.String() != exampleText || id.Prefix() != "user" || id.Suffix() != "01h455vb4pex5vsknk084sn02q" {
		t.Fatalf("String %q Prefix %q Suffix %q", id.String(), id.Prefix(), id.Suffix())
	}
	if !id.IsV7() || id.UnixMilli() != 0x01890a5dac96 || !id.Timestamp().Equal(time.UnixMilli(0x01890a5dac96)) {
		t.Fatalf("IsV7 %v, time %v", id.IsV7(), id.Timestamp())
	}
	if id.UUID() != uuid.MustParse(exampleUUID) || FromUUID[userPrefix](id.UUID()) != id || FromULID[userPrefix](id.ULID()) != id {
		t.Fatal("conversions do not round-trip")
	}
}

// TestParseErrors: each malformed input fails with its sentinel, at its
// position, with a message naming the problem.
func TestParseErrors(t *testing.T) {
	const suffix = "01h455vb4pex5vsknk084sn02q"
	cases := []struct {
		in  string
		err error
		pos int
		msg string
	}{
		{"order_" + suffix, ErrWrongPrefix, 0, `prefix "order", want "user"`},
		{suffix, ErrWrongPrefix, 0, `no prefix, want "user"`},
		{"users_" + suffix, ErrWrongPrefix, 0, `prefix "users", want "user"`},
		{"_" + suffix, ErrPrefix, 0, "without a prefix"},
		{"User_" + suffix, ErrPrefix, 0, "invalid character 'U' at position 0 in the prefix"},
		{"us3r_" + suffix, ErrPrefix, 2, "invalid character '3' at position 2"},
		{"user__" + suffix, ErrPrefix, 4, "ends with '_' at position 4"},
		{"_user_" + suffix, ErrPrefix, 0, "starts with '_'"},
		{strings.Repeat("a", 64) + "_" + suffix, ErrPrefix, -1, "64 bytes, want at most 63"},
		{"user_" + suffix[:25], ErrLength, -1, "suffix of 25 bytes, want 26"},
		{"user_" + suffix + "0", ErrLength, -1, "suffix of 27 bytes"},
		{"user_", ErrLength, -1, "suffix of 0 bytes"},
		{"user_01H455vb4pex5vsknk084sn02q", ErrCharacter, 7, "invalid character 'H' at position 7"},
		{"user_01h455vb4pex5vsknk084sn0uq", ErrCharacter, 29, "invalid character 'u' at position 29"},
		{"user_01h455vb4pex5vsknk084sn0\xffq", ErrCharacter, 29, `'\xff'`},
		{"user_81h455vb4pex5vsknk084sn02q", ErrOverflow, 5, "first suffix character '8' at position 5 is above '7'"},
		{"", ErrWrongPrefix, 0, "no prefix"},
	}
	for _, c := range cases {
		id, err := Parse[userPrefix](c.in)
		var pe *ParseError
		if !errors.Is(err, c.err) || !errors.As(err, &pe) || pe.Pos != c.pos || !strings.Contains(err.Error(), c.msg) || !id.IsZero() {
			t.Errorf("Parse(%q) = %v, %v (pos %v); want %v at %d containing %q", c.in, id, err, pe, c.err, c.pos, c.msg)
		}
		if pe != nil && pe.Input != c.in {
			t.Errorf("Input %q, want %q", pe.Input, c.in)
		}
	}
	// An empty prefix type takes the suffix alone.
	if _, err := Parse[emptyPrefix]("user_" + suffix); !errors.Is(err, ErrWrongPrefix) || !strings.Contains(err.Error(), `prefix "user", want none`) {
		t.Errorf("empty prefix type: %v", err)
	}
	if id, err := Parse[emptyPrefix](suffix); err != nil || id.String() != suffix {
		t.Errorf("empty prefix type: %v, %v", id, err)
	}
}

// TestBadPrefixType: a prefix type whose prefix breaks the rules parses
// nothing and marshals nothing; String still writes it.
func TestBadPrefixType(t *testing.T) {
	if err := ValidPrefix(badPrefix{}.Prefix()); !errors.Is(err, ErrPrefix) {
		t.Fatalf("ValidPrefix(User) = %v", err)
	}
	_, err := Parse[badPrefix]("User_01h455vb4pex5vsknk084sn02q")
	var pe *ParseError
	if !errors.Is(err, ErrPrefix) || !errors.As(err, &pe) || pe.Pos != -1 ||
		!strings.Contains(err.Error(), `invalid character 'U' at position 0 in the type's prefix "User"`) {
		t.Fatalf("Parse with a bad prefix type: %v (%+v)", err, pe)
	}
	var id ID[badPrefix]
	if b, err := id.MarshalText(); !errors.Is(err, ErrPrefix) || len(b) != 0 {
		t.Fatalf("MarshalText = %q, %v", b, err)
	}
	if b, err := json.Marshal(id); !errors.Is(err, ErrPrefix) {
		t.Fatalf("json.Marshal = %q, %v", b, err)
	}
	if s := id.String(); s != "User_00000000000000000000000000" {
		t.Fatalf("String = %q", s)
	}
	long := strings.Repeat("a", 70)
	if err := ValidPrefix(long); !errors.Is(err, ErrPrefix) {
		t.Fatal("70-byte prefix accepted")
	}
}

func TestValidPrefix(t *testing.T) {
	for _, p := range []string{"", "a", "user", "pre_fix", "my__type", strings.Repeat("z", 63)} {
		if err := ValidPrefix(p); err != nil {
			t.Errorf("ValidPrefix(%q) = %v", p, err)
		}
	}
	for _, p := range []string{"_", "a_", "_a", "A", "a1", "a-b", "é", strings.Repeat("z", 64), "a b"} {
		if err := ValidPrefix(p); !errors.Is(err, ErrPrefix) {
			t.Errorf("ValidPrefix(%q) = %v, want ErrPrefix", p, err)
		}
	}
}

// TestRoundTrip: random 128-bit values, any version, go through every text
// and binary form and back.
func TestRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		var id userID
		for i := range id.b {
			id.b[i] = byte(r.Uint32())
		}
		s := id.String()
		if len(s) != 31 || !strings.HasPrefix(s, "user_") || s[5] > '7' || strings.ToLower(s) != s {
			t.Fatalf("String %q", s)
		}
		if id.ULID().String() != strings.ToUpper(s[5:]) {
			t.Fatalf("suffix %q is not the ULID text %s", s[5:], id.ULID())
		}
		back, err := Parse[userPrefix](s)
		if err != nil || back != id {
			t.Fatalf("Parse(%q) = %v, %v", s, back, err)
		}
		b, _ := id.AppendText([]byte("x"))
		var fromText userID
		if string(b) != "x"+s || fromText.UnmarshalText(b[1:]) != nil || fromText != id {
			t.Fatalf("AppendText/UnmarshalText %q", b)
		}
		j, err := json.Marshal(id)
		var fromJSON userID
		if err != nil || string(j) != `"`+s+`"` || json.Unmarshal(j, &fromJSON) != nil || fromJSON != id {
			t.Fatalf("JSON %s, %v", j, err)
		}
		bin, _ := id.MarshalBinary()
		var fromBin userID
		if fromBin.UnmarshalBinary(bin) != nil || fromBin != id {
			t.Fatal("binary")
		}
		var scanned userID
		if scanned.Scan(id.UUIDString()) != nil || scanned != id {
			t.Fatal("Scan(UUID text)")
		}
	}
}

// TestNew: New makes UUIDv7 values, strictly increasing across prefix types,
// also after the default ULID layout was switched to LayoutULID.
func TestNew(t *testing.T) {
	ulidtype.SetDefaultLayout(ulidtype.LayoutULID)
	defer ulidtype.SetDefaultLayout(ulidtype.LayoutV7)
	prev := New[userPrefix]()
	start := time.Now()
	for i := range 10000 {
		var id userID
		if i%2 == 0 {
			id = New[userPrefix]()
		} else {
			id = FromULID[userPrefix](New[orderPrefix]().ULID())
		}
		if !id.IsV7() || id.Compare(prev) <= 0 {
			t.Fatalf("New: %s after %s (v7 %v)", id, prev, id.IsV7())
		}
		prev = id
	}
	if d := prev.Timestamp().Sub(start); d < -time.Millisecond || d > time.Minute {
		t.Fatalf("timestamp %v, started %v", prev.Timestamp(), start)
	}
}

func TestFromBytes(t *testing.T) {
	if _, err := FromBytes[userPrefix](make([]byte, 15)); !errors.Is(err, ErrLength) {
		t.Fatalf("15 bytes: %v", err)
	}
	var id userID
	if err := id.UnmarshalBinary(make([]byte, 17)); !errors.Is(err, ErrLength) {
		t.Fatalf("17 bytes: %v", err)
	}
	b := []byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}
	if id, err := FromBytes[userPrefix](b); err != nil || string(id.Bytes()) != string(b) {
		t.Fatalf("FromBytes = %v, %v", id, err)
	}
}

func TestJSON(t *testing.T) {
	type doc struct {
		User  userID              `json:"user"`
		Order NullID[orderPrefix] `json:"order"`
	}
	id := MustParse[userPrefix](exampleText)
	d := doc{User: id}
	b, err := json.Marshal(d)
	if err != nil || string(b) != `{"user":"`+exampleText+`","order":null}` {
		t.Fatalf("Marshal = %s, %v", b, err)
	}
	var back doc
	if err := json.Unmarshal([]byte(`{"user":"`+exampleText+`","order":"order_01h455vb4pex5vsknk084sn02q"}`), &back); err != nil {
		t.Fatal(err)
	}
	if back.User != id || !back.Order.Valid || back.Order.ID.UUIDString() != exampleUUID {
		t.Fatalf("Unmarshal = %+v", back)
	}
	// A UserID where an OrderID is expected fails, naming both prefixes.
	err = json.Unmarshal([]byte(`{"order":"`+exampleText+`"}`), &back)
	if !errors.Is(err, ErrWrongPrefix) || !strings.Contains(err.Error(), `prefix "user", want "order"`) {
		t.Fatalf("wrong prefix in JSON: %v", err)
	}
	for _, in := range []string{`12`, `"user_01h455vb4pex5vsknk084sn02q`, `{}`} {
		var v userID
		if err := json.Unmarshal([]byte(in), &v); err == nil {
			t.Errorf("Unmarshal(%s) accepted", in)
		}
	}
	v := id
	if err := v.UnmarshalJSON([]byte("null")); err != nil || v != id {
		t.Fatalf("null changed the ID: %v, %v", v, err)
	}
}

func TestScan(t *testing.T) {
	id := MustParse[userPrefix](exampleText)
	for _, src := range []any{exampleUUID, []byte(exampleUUID), id.Bytes(), exampleText, []byte(exampleText), strings.ToUpper(exampleUUID)} {
		var got userID
		if err := got.Scan(src); err != nil || got != id {
			t.Errorf("Scan(%T %v) = %v, %v", src, src, got, err)
		}
	}
	bad := []struct {
		src any
		err error
	}{
		{nil, ErrNull},
		{[]byte(nil), ErrNull},
		{42, ErrScanType},
		{"order_01h455vb4pex5vsknk084sn02q", ErrWrongPrefix},
		{"01890a5d-ac96-774b-bcce-b302099a805g", ErrCharacter},
		{"01890a5dxac96-774b-bcce-b302099a8057", ErrWrongPrefix},
		{"01890a5d-ac96x774b-bcce-b302099a8057", ErrCharacter},
		{"01H455VB4PEX5VSKNK084SN02Q", ErrWrongPrefix},
		{make([]byte, 15), ErrWrongPrefix},
	}
	for _, c := range bad {
		got := id
		if err := got.Scan(c.src); !errors.Is(err, c.err) || got != id {
			t.Errorf("Scan(%#v) = %v, %v; want %v and no change", c.src, got, err, c.err)
		}
	}
	var pe *ParseError
	if err := id.Scan("01890a5d-ac96-774b-bcce-b302099a8x57"); !errors.As(err, &pe) || pe.Pos != 33 || !strings.Contains(err.Error(), "invalid character 'x' at position 33") {
		t.Errorf("Scan of a bad UUID: %v", err)
	}
	if v, err := id.Value(); err != nil || v != exampleUUID {
		t.Fatalf("Value = %v, %v", v, err)
	}
	var n NullID[userPrefix]
	if err := n.Scan(nil); err != nil || n.Valid {
		t.Fatal("NullID NULL")
	}
	if v, err := n.Value(); v != nil || err != nil || n.String() != "NULL" {
		t.Fatal("NullID Value of NULL")
	}
	if err := n.Scan(exampleUUID); err != nil || !n.Valid || n.ID != id || n.String() != exampleText {
		t.Fatal("NullID scan")
	}
	if v, _ := n.Value(); v != exampleUUID {
		t.Fatal("NullID Value")
	}
	var sn sql.Null[userID]
	if err := sn.Scan(exampleUUID); err != nil || !sn.Valid || sn.V != id {
		t.Fatalf("sql.Null = %v, %v", sn, err)
	}
}

// A TypeID bound to a bytea parameter is refused in both formats, with
// pgx's own codecs; before, pgx stored the 36 characters of its UUID text.
func TestPgxEncodeNotBytea(t *testing.T) {
	id := MustParse[userPrefix](exampleText)
	m := pgtype.NewMap()
	for _, f := range []int16{pgtype.BinaryFormatCode, pgtype.TextFormatCode} {
		for _, v := range []any{id, &id, NullID[userPrefix]{ID: id, Valid: true}, id.Any(), []userID{id}} {
			oid := uint32(pgtype.ByteaOID)
			if _, ok := v.([]userID); ok {
				oid = pgtype.ByteaArrayOID
			}
			buf, err := m.Encode(oid, f, v, nil)
			if !errors.Is(err, ErrNotBytea) || !errors.Is(err, ulidtype.ErrNotBytea) || buf != nil {
				t.Errorf("format %d %T: encoded %q, %v; want an error wrapping ErrNotBytea", f, v, buf, err)
			} else if !strings.Contains(err.Error(), exampleText+" is 16 bytes") {
				t.Errorf("format %d %T: %v does not name the ID", f, v, err)
			}
		}
		if buf, err := m.Encode(pgtype.ByteaOID, f, NullID[userPrefix]{}, nil); err != nil || buf != nil {
			t.Errorf("format %d NULL: %q, %v; want NULL", f, buf, err)
		}
	}
}

func TestPgx(t *testing.T) {
	id := MustParse[userPrefix](exampleText)
	v, err := id.UUIDValue()
	if err != nil || !v.Valid || v.Bytes != id.b {
		t.Fatal("UUIDValue")
	}
	var got userID
	if err := got.ScanUUID(v); err != nil || got != id {
		t.Fatal("ScanUUID")
	}
	if err := got.ScanUUID(pgtype.UUID{}); !errors.Is(err, ErrNull) {
		t.Fatalf("ScanUUID(NULL) = %v", err)
	}
	var n NullID[userPrefix]
	if n.ScanUUID(v) != nil || !n.Valid || n.ID != id {
		t.Fatal("NullID.ScanUUID")
	}
	if nv, _ := n.UUIDValue(); nv != v {
		t.Fatal("NullID.UUIDValue")
	}
	if n.ScanUUID(pgtype.UUID{}) != nil || n.Valid {
		t.Fatal("NullID.ScanUUID(NULL)")
	}
	if nv, _ := n.UUIDValue(); nv.Valid {
		t.Fatal("NullID.UUIDValue of NULL")
	}
	// Through pgx's own type map: binary, the plans pgx picks.
	m := pgtype.NewMap()
	buf, err := m.Encode(pgtype.UUIDOID, pgtype.BinaryFormatCode, id, nil)
	if err != nil || string(buf) != string(id.b[:]) {
		t.Fatalf("Encode = %x, %v", buf, err)
	}
	var scanned userID
	if err := m.Scan(pgtype.UUIDOID, pgtype.BinaryFormatCode, buf, &scanned); err != nil || scanned != id {
		t.Fatalf("Scan = %v, %v", scanned, err)
	}
	text, err := m.Encode(pgtype.UUIDOID, pgtype.TextFormatCode, id, nil)
	if err != nil || string(text) != exampleUUID {
		t.Fatalf("text Encode = %q, %v", text, err)
	}
}

func TestRangeHelpers(t *testing.T) {
	from, to := time.UnixMilli(1_700_000_000_123), time.UnixMilli(1_700_000_100_456)
	lo, hi := Range[userPrefix](from, to)
	ulo, uhi := ulidtype.Range(from, to)
	if lo.ULID() != ulo || hi.ULID() != uhi {
		t.Fatal("Range differs from ulidtype.Range")
	}
	if MinAt[userPrefix](from).ULID() != ulidtype.MinAt(from) || MaxAt[userPrefix](from).ULID() != ulidtype.MaxAt(from) ||
		Since[userPrefix](from).ULID() != ulidtype.Since(from) || Until[userPrefix](to).ULID() != ulidtype.Until(to) {
		t.Fatal("bounds differ from ulidtype's")
	}
	// An ID made now falls in [Since(a second ago), Until(now)).
	id := New[userPrefix]()
	if id.Compare(Since[userPrefix](time.Now().Add(-time.Second))) < 0 || id.Compare(Until[userPrefix](time.Now())) >= 0 {
		t.Fatalf("%s outside the window", id)
	}
	if got := MinAt[userPrefix](from).String(); got != "user_"+strings.ToLower(ulidtype.MinAt(from).String()) {
		t.Fatal(got)
	}
}

func TestMustParsePanics(t *testing.T) {
	defer func() {
		if r := recover(); r == nil || !errors.Is(r.(error), ErrWrongPrefix) {
			t.Fatalf("recovered %v", r)
		}
	}()
	MustParse[orderPrefix](exampleText)
}

var (
	sinkID  userID
	sinkStr string
)

// TestAllocs: parsing, scanning and appending allocate nothing; String
// allocates its result only.
func TestAllocs(t *testing.T) {
	id := New[userPrefix]()
	s := id.String()
	text := []byte(s)
	buf := make([]byte, 0, 64)
	var src any = []byte(id.UUIDString())
	pg := pgtype.UUID{Bytes: id.b, Valid: true}
	checks := []struct {
		name string
		fn   func()
		want float64
	}{
		{"Parse", func() { sinkID, _ = Parse[userPrefix](s) }, 0},
		{"UnmarshalText", func() { _ = sinkID.UnmarshalText(text) }, 0},
		{"ScanUUID", func() { _ = sinkID.ScanUUID(pg) }, 0},
		{"UUIDValue", func() { pg, _ = id.UUIDValue() }, 0},
		{"Scan", func() { _ = sinkID.Scan(src) }, 0},
		{"AppendText", func() { buf, _ = id.AppendText(buf[:0]) }, 0},
		{"String", func() { sinkStr = id.String() }, 1},
	}
	for _, c := range checks {
		if n := testing.AllocsPerRun(200, c.fn); n != c.want {
			t.Errorf("%s: %v allocations, want %v", c.name, n, c.want)
		}
	}
}

// slicePrefix is a prefix type that is not comparable: ID[slicePrefix] must
// still be.
type slicePrefix []int

func (slicePrefix) Prefix() string { return "slice" }

// TestIDShape: an ID is 16 bytes whatever its prefix type, its zero value
// is the nil UUID, and == compares the bytes, also for a prefix type that
// == cannot compare.
func TestIDShape(t *testing.T) {
	if n := unsafe.Sizeof(userID{}); n != 16 {
		t.Errorf("ID[userPrefix] is %d bytes", n)
	}
	if n := unsafe.Sizeof(ID[slicePrefix]{}); n != 16 {
		t.Errorf("ID[slicePrefix] is %d bytes", n)
	}
	if n := unsafe.Sizeof([4]userID{}); n != 64 {
		t.Errorf("[4]ID is %d bytes", n)
	}
	var zero ID[slicePrefix]
	a, b := FromULID[slicePrefix](ulidtype.New()), FromULID[slicePrefix](ulidtype.New())
	if !zero.IsZero() || zero.String() != "slice_00000000000000000000000000" || a == b || a != FromUUID[slicePrefix](a.UUID()) {
		t.Fatal("zero value or == of ID[slicePrefix]")
	}
}
