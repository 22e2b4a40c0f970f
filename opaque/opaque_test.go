package opaque

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/pgid/pgid/objectidtype"
	"github.com/pgid/pgid/ulidtype"
)

func newKey(t testing.TB, id uint8, size int) Key {
	t.Helper()
	b := make([]byte, size)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return NewKey(id, b)
}

func mustCodec(t testing.TB, current Key, older ...Key) *Codec {
	t.Helper()
	c, err := NewCodec(current, older...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestRoundTrip(t *testing.T) {
	for _, size := range []int{16, 24, 32} {
		c := mustCodec(t, newKey(t, 2, size))
		oids := make([]objectidtype.ObjectID, 2000)
		ulids := make([]ulidtype.ULID, 2000)
		objectidtype.Fill(oids)
		ulidtype.Fill(ulids)
		for i := 0; i < 500; i++ { // and random ones
			rand.Read(oids[i][:])
			rand.Read(ulids[i][:])
		}
		oids[0], ulids[0] = objectidtype.ObjectID{}, ulidtype.ULID{}
		for i := range 12 {
			oids[1][i] = 0xFF
		}
		for i := range 16 {
			ulids[1][i] = 0xFF
		}
		for _, id := range oids {
			code := c.ObjectIDCode(id)
			if len(code) != ObjectIDCodeLen {
				t.Fatalf("code %q for %s", code, id)
			}
			got, err := c.OpenObjectID(code)
			if err != nil || got != id {
				t.Fatalf("AES-%d: OpenObjectID(%s) = %s, %v, want %s", 8*size, code, got, err, id)
			}
			if code == id.Short() {
				t.Errorf("the code of %s is its short form", id)
			}
		}
		for _, id := range ulids {
			code := c.ULIDCode(id)
			if len(code) != ULIDCodeLen || code[0] < '0' || !strings.ContainsRune("GHJKMNPQ", rune(code[0])) {
				t.Fatalf("code %q for %s: want 26 characters, the first for key 2 (G to Q)", code, id)
			}
			for _, in := range []string{code, strings.ToLower(code)} {
				got, err := c.OpenULID(in)
				if err != nil || got != id {
					t.Fatalf("AES-%d: OpenULID(%s) = %s, %v, want %s", 8*size, in, got, err, id)
				}
			}
		}
	}
}

// TestRotation: with a new current key, codes made with the old one still
// resolve: a ULID code by the key ID it carries, an ObjectId code among
// the candidates, current first.
func TestRotation(t *testing.T) {
	old, cur := newKey(t, 0, 32), newKey(t, 1, 32)
	before := mustCodec(t, old)
	after := mustCodec(t, cur, old)
	if fmt.Sprint(after.KeyIDs()) != "[1 0]" {
		t.Errorf("KeyIDs = %v", after.KeyIDs())
	}
	oid, uid := objectidtype.New(), ulidtype.New()
	oldO, oldU := before.ObjectIDCode(oid), before.ULIDCode(uid)
	if got, err := after.OpenULID(oldU); err != nil || got != uid {
		t.Errorf("an old ULID code after rotation: %s, %v", got, err)
	}
	cands, err := after.AppendObjectIDCandidates(nil, oldO)
	if err != nil || len(cands) != 2 || cands[1] != oid || cands[0] == oid {
		t.Errorf("candidates of an old ObjectId code: %v, %v, want [other %s]", cands, err, oid)
	}
	newO := after.ObjectIDCode(oid)
	if newO == oldO || after.ULIDCode(uid) == oldU {
		t.Error("the new key makes the same codes")
	}
	if cands, _ := after.AppendObjectIDCandidates(nil, newO); cands[0] != oid {
		t.Errorf("a new code's first candidate is %s, want %s", cands[0], oid)
	}
	// Once the old key is gone, its ULID codes are refused by name.
	_, err = mustCodec(t, cur).OpenULID(oldU)
	var ce *CodeError
	if !errors.Is(err, ErrUnknownKey) || !errors.As(err, &ce) || !strings.Contains(err.Error(), "made with key 0") {
		t.Errorf("an old ULID code without its key: %v", err)
	}
}

// TestWrongKey: a code read with another key of the same ID is not an
// error, it is another ID: codes are not authenticated.
func TestWrongKey(t *testing.T) {
	a, b := mustCodec(t, newKey(t, 0, 16)), mustCodec(t, newKey(t, 0, 16))
	for i := 0; i < 100; i++ {
		oid, uid := objectidtype.New(), ulidtype.New()
		if got, err := b.OpenObjectID(a.ObjectIDCode(oid)); err != nil || got == oid {
			t.Fatalf("ObjectId under the wrong key: %s, %v", got, err)
		}
		if got, err := b.OpenULID(a.ULIDCode(uid)); err != nil || got == uid {
			t.Fatalf("ULID under the wrong key: %s, %v", got, err)
		}
	}
}

func TestBadInput(t *testing.T) {
	c := mustCodec(t, newKey(t, 0, 16), newKey(t, 1, 16))
	good := c.ULIDCode(ulidtype.New())
	for _, tc := range []struct {
		kind, in string
		err      error
		msg      string
	}{
		{"oid", "", ErrLength, `ObjectId code "": 0 characters, want 16`},
		{"oid", "abc", ErrLength, "3 characters, want 16"},
		{"oid", "a", ErrLength, "1 character, want 16"},
		{"oid", strings.Repeat("a", 17), ErrLength, "17 characters, want 16"},
		{"oid", strings.Repeat("a", 15) + "=", ErrCharacter, "invalid character '=' at position 15"},
		{"oid", strings.Repeat("a", 15) + " ", ErrCharacter, "invalid character ' ' at position 15"},
		{"oid", "000\r\r\r\r000000000", ErrCharacter, `invalid character '\r' at position 3`}, // base64 skips \r
		{"oid", strings.Repeat("a", 8) + "\n" + strings.Repeat("a", 7), ErrCharacter, `invalid character '\n' at position 8`},
		{"oid", strings.Repeat("Ä", 16), ErrCharacter, "invalid character 'Ä' at position 0"},
		{"oid", strings.Repeat("a", 14) + "Ä", ErrCharacter, "invalid character 'Ä' at position 14"},
		{"oid", strings.Repeat("a", 15) + "\xff", ErrCharacter, "invalid character"},
		{"ulid", "", ErrLength, `ULID code "": 0 characters, want 26`},
		{"ulid", good[:25], ErrLength, "25 characters, want 26"},
		{"ulid", good + "0", ErrLength, "27 characters, want 26"},
		{"ulid", good[:25] + "U", ErrCharacter, "invalid character 'U' at position 25, want a Crockford base32 character"},
		{"ulid", "I" + good[1:], ErrCharacter, "invalid character 'I' at position 0"},
		{"ulid", good[:24] + "Ä", ErrCharacter, "invalid character 'Ä' at position 24"},
		{"ulid", "Z" + good[1:], ErrUnknownKey, "made with key 3, which this codec does not have"},
	} {
		var err error
		if tc.kind == "oid" {
			_, err = c.OpenObjectID(tc.in)
			if _, err2 := c.AppendObjectIDCandidates(nil, tc.in); !errors.Is(err2, tc.err) {
				t.Errorf("candidates of %q: %v", tc.in, err2)
			}
		} else {
			_, err = c.OpenULID(tc.in)
		}
		var ce *CodeError
		if !errors.Is(err, tc.err) || !errors.As(err, &ce) || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s %q: %v, want %v with %q", tc.kind, tc.in, err, tc.err, tc.msg)
		}
	}
}

func TestKeys(t *testing.T) {
	secret := make([]byte, 32)
	rand.Read(secret)
	k := NewKey(0, secret)
	for _, bad := range []struct {
		keys []Key
		msg  string
	}{
		{[]Key{NewKey(0, make([]byte, 15))}, "key 0 has 15 bytes, want 16, 24 or 32"},
		{[]Key{NewKey(4, secret)}, "key ID 4, want 0 to 3"},
		{[]Key{k, NewKey(0, secret)}, "two keys with ID 0"},
		{[]Key{k, {}}, "key 2 of 2 is the zero Key: make keys with opaque.NewKey"},
		{[]Key{k, newKey(t, 1, 16), newKey(t, 2, 16), newKey(t, 3, 16), newKey(t, 3, 16)}, "5 keys, at most 4"},
	} {
		_, err := NewCodec(bad.keys[0], bad.keys[1:]...)
		if !errors.Is(err, ErrKey) || !strings.Contains(err.Error(), bad.msg) {
			t.Errorf("%v: %v, want %q", bad.keys, err, bad.msg)
		}
	}
	// The secret is never printed, whatever the verb.
	c := mustCodec(t, k)
	secretHex := hex.EncodeToString(secret)
	for _, s := range []string{fmt.Sprint(k), fmt.Sprintf("%+v %#v %v %#v", k, k, c, c), fmt.Sprint([]Key{k})} {
		if strings.Contains(strings.ToLower(s), secretHex[:8]) || bytes.Contains([]byte(s), secret[:4]) {
			t.Errorf("the secret shows in %q", s)
		}
	}
	if got := fmt.Sprint(mustCodec(t, k, newKey(t, 3, 16))); got != "opaque.Codec{keys: 0 (current) 3}" {
		t.Errorf("Codec prints %q", got)
	}

	text := "# keys\n1:" + secretHex + "\n\n0 " + strings.Repeat("ab", 16) + "\n"
	cur, older, err := ParseKeys(text)
	if err != nil || cur.ID() != 1 || !bytes.Equal(cur.secret(), secret) || len(older) != 1 || older[0].ID() != 0 {
		t.Fatalf("ParseKeys: %v %v %v", cur, older, err)
	}
	for _, bad := range []struct{ text, msg string }{
		{"", "no key"},
		{"# only a comment\n", "no key"},
		{secretHex, "line 1: want a key ID"},
		{"7:" + secretHex, "line 1: want a key ID 0 to 3"},
		{"0:" + secretHex[:30], "line 1: the secret has 30 hex digits"},
		{"\n0:" + secretHex[:62] + "zz", "line 2: the secret is not all hex digits"},
	} {
		_, _, err := ParseKeys(bad.text)
		if !errors.Is(err, ErrKey) || !strings.Contains(err.Error(), bad.msg) || (len(bad.text) > 40 && strings.Contains(err.Error(), secretHex[:16])) {
			t.Errorf("ParseKeys(%.10q...): %v, want %q", bad.text, err, bad.msg)
		}
	}
}

func TestPublicJSON(t *testing.T) {
	c := mustCodec(t, newKey(t, 0, 16))
	type link struct {
		Object PublicObjectID `json:"object"`
		ULID   PublicULID     `json:"ulid"`
	}
	oid, uid := objectidtype.New(), ulidtype.New()
	b, err := json.Marshal(link{Object: c.PublicObjectID(oid), ULID: c.PublicULID(uid)})
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf(`{"object":%q,"ulid":%q}`, c.ObjectIDCode(oid), c.ULIDCode(uid))
	if string(b) != want {
		t.Errorf("JSON %s, want %s", b, want)
	}
	in := link{Object: c.PublicObjectID(objectidtype.ObjectID{}), ULID: c.PublicULID(ulidtype.ULID{})}
	if err := json.Unmarshal(b, &in); err != nil || in.Object.ID != oid || in.ULID.ID != uid {
		t.Errorf("unmarshal: %+v, %v", in, err)
	}
	// No codec: refused both ways, not guessed.
	if _, err := json.Marshal(link{}); !errors.Is(err, ErrNoCodec) {
		t.Errorf("marshal without a codec: %v", err)
	}
	var none link
	if err := json.Unmarshal(b, &none); !errors.Is(err, ErrNoCodec) {
		t.Errorf("unmarshal without a codec: %v", err)
	}
	if err := json.Unmarshal([]byte(`{"object":"short"}`), &in); !errors.Is(err, ErrLength) {
		t.Errorf("a short code: %v", err)
	}
	if (PublicULID{}).String() != "" || c.PublicULID(uid).String() != c.ULIDCode(uid) {
		t.Error("String")
	}
}

// TestZeroAllocations: making and reading codes allocates nothing (the
// string-returning helpers allocate their string).
func TestZeroAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's sync.Pool drops items; .ci/run runs this without -race")
	}
	c := mustCodec(t, newKey(t, 0, 16), newKey(t, 1, 16))
	oid, uid := objectidtype.New(), ulidtype.New()
	oc, uc := c.ObjectIDCode(oid), c.ULIDCode(uid)
	buf := make([]byte, 0, 32)
	cands := make([]objectidtype.ObjectID, 0, 4)
	for name, f := range map[string]func(){
		"AppendObjectID":           func() { buf = c.AppendObjectID(buf[:0], oid) },
		"OpenObjectID":             func() { c.OpenObjectID(oc) },
		"AppendObjectIDCandidates": func() { cands, _ = c.AppendObjectIDCandidates(cands[:0], oc) },
		"AppendULID":               func() { buf = c.AppendULID(buf[:0], uid) },
		"OpenULID":                 func() { c.OpenULID(uc) },
	} {
		if n := testing.AllocsPerRun(1000, f); n != 0 {
			t.Errorf("%s: %.1f allocations, want 0", name, n)
		}
	}
}

func TestGenerateKey(t *testing.T) {
	k, err := GenerateKey(2)
	if err != nil {
		t.Fatal(err)
	}
	k2, err := GenerateKey(1)
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewCodec(k, k2)
	if err != nil {
		t.Fatal(err)
	}
	if k.ID() != 2 || len(k.secret()) != 32 || bytes.Equal(k.secret(), k2.secret()) {
		t.Fatalf("GenerateKey: ID %d, %d bytes, equal to another: %v", k.ID(), len(k.secret()), bytes.Equal(k.secret(), k2.secret()))
	}
	id := ulidtype.New()
	if got, err := c.OpenULID(c.ULIDCode(id)); err != nil || got != id {
		t.Fatalf("round trip with a generated key: %v, %v", got, err)
	}
	if s := fmt.Sprintf("%v %+v %#v %s", k, k, k, k); strings.Contains(s, hex.EncodeToString(k.secret())) {
		t.Fatalf("a generated key printed its secret: %s", s)
	}
	if _, err := GenerateKey(4); !errors.Is(err, ErrKey) || !strings.Contains(err.Error(), "key ID 4, want 0 to 3") {
		t.Fatalf("GenerateKey(4): %v", err)
	}
}

func TestGenerateKeyText(t *testing.T) {
	for _, size := range []int{16, 24, 32} {
		line, err := GenerateKeyText(3, size)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(line, "3:") || !strings.HasSuffix(line, "\n") || len(line) != 2+2*size+1 {
			t.Fatalf("GenerateKeyText(3, %d) = %q", size, line)
		}
		cur, older, err := ParseKeys(line)
		if err != nil || cur.ID() != 3 || len(older) != 0 || len(cur.secret()) != size {
			t.Fatalf("ParseKeys(GenerateKeyText): %v %v %v", cur, older, err)
		}
	}
	a, _ := GenerateKeyText(0, 32)
	b, _ := GenerateKeyText(0, 32)
	if a == b {
		t.Fatal("two generated keys are equal")
	}
	for _, c := range []struct {
		id   uint8
		size int
		want string
	}{{4, 32, "key ID 4, want 0 to 3"}, {0, 20, "20 secret bytes, want 16, 24 or 32"}} {
		if _, err := GenerateKeyText(c.id, c.size); !errors.Is(err, ErrKey) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("GenerateKeyText(%d, %d): %v, want ErrKey and %q", c.id, c.size, err, c.want)
		}
	}
}
