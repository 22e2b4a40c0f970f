package ulidtype

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/uuid"
)

// randomULID returns a ULID of random bytes that is a valid ULID (any 128-bit
// value is).
func randomULID(r *rand.Rand) (u ULID) {
	for i := range u {
		u[i] = byte(r.Uint32())
	}
	return u
}

func newRand(t testing.TB) *rand.Rand {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	return rand.New(rand.NewPCG(seed, seed>>1|1))
}

func TestZeroValue(t *testing.T) {
	var u ULID
	if !u.IsZero() {
		t.Fatal("zero ULID: IsZero() = false")
	}
	if got := u.String(); got != "00000000000000000000000000" {
		t.Fatalf("zero ULID String() = %q", got)
	}
	if got := u.UUIDString(); got != uuid.Nil.String() {
		t.Fatalf("zero ULID UUIDString() = %q", got)
	}
	if got := u.Timestamp(); !got.Equal(time.Unix(0, 0)) || got.Location() != time.UTC {
		t.Fatalf("zero ULID Timestamp() = %v", got)
	}
	if MustParse("00000000000000000000000001").IsZero() {
		t.Fatal("non-zero ULID: IsZero() = true")
	}
}

func TestCompareMatchesBytes(t *testing.T) {
	r := newRand(t)
	for range 10000 {
		a, b := randomULID(r), randomULID(r)
		if r.IntN(4) == 0 {
			copy(b[:8], a[:8]) // exercise the second word
		}
		want := bytes.Compare(a[:], b[:])
		if got := a.Compare(b); got != want {
			t.Fatalf("%x.Compare(%x) = %d, want %d", a, b, got, want)
		}
		if got := a.Compare(a); got != 0 {
			t.Fatalf("%x.Compare(itself) = %d", a, got)
		}
		// The text form sorts like the bytes.
		if sa, sb := a.String(), b.String(); (sa < sb) != (want < 0) {
			t.Fatalf("string order %q < %q disagrees with byte order %d", sa, sb, want)
		}
	}
}

func TestTimestampAndTime(t *testing.T) {
	tests := []struct {
		s    string
		ms   uint64
		time string
	}{
		{"00000000000000000000000000", 0, "1970-01-01T00:00:00Z"},
		{"01ARYZ6S41TSV4RRFFQ69G5FAV", 1469918176385, "2016-07-30T22:36:16.385Z"},
		{"01GFGGMBFGB5WKXBN7S84ATRDG", 1665927884272, "2022-10-16T13:44:44.272Z"},
		{"7ZZZZZZZZZZZZZZZZZZZZZZZZZ", 1<<48 - 1, ""}, // year 10889: only the milliseconds are checked
	}
	for _, tt := range tests {
		u := MustParse(tt.s)
		if got := u.UnixMilli(); got != int64(tt.ms) {
			t.Errorf("%s: UnixMilli() = %d, want %d", tt.s, got, tt.ms)
		}
		if got := u.Timestamp().Format("2006-01-02T15:04:05.999Z07:00"); tt.time != "" && got != tt.time {
			t.Errorf("%s: Timestamp() = %s, want %s", tt.s, got, tt.time)
		}
		if got := u.Timestamp().UnixMilli(); got != int64(tt.ms) {
			t.Errorf("%s: Timestamp().UnixMilli() = %d, want %d", tt.s, got, tt.ms)
		}
	}
}

func TestFromBytes(t *testing.T) {
	b := []byte{0x01, 0x56, 0x3d, 0xf3, 0x64, 0x81, 0xd6, 0x76, 0x4c, 0x61, 0xef, 0xb9, 0x93, 0x02, 0xbd, 0x5b}
	u, err := FromBytes(b)
	if err != nil {
		t.Fatal(err)
	}
	if got := u.String(); got != "01ARYZ6S41TSV4RRFFQ69G5FAV" {
		t.Fatalf("FromBytes: %s", got)
	}
	if !bytes.Equal(u.Bytes(), b) {
		t.Fatalf("Bytes() = %x", u.Bytes())
	}
	// Bytes returns a copy.
	u.Bytes()[0] = 0xFF
	if u[0] != 0x01 {
		t.Fatal("Bytes() aliases the ULID")
	}
	for _, n := range []int{0, 1, 15, 17, 26, 36} {
		if _, err := FromBytes(make([]byte, n)); !errors.Is(err, ErrLength) {
			t.Errorf("FromBytes(%d bytes) error = %v, want ErrLength", n, err)
		}
	}
}

func TestUUIDConversion(t *testing.T) {
	r := newRand(t)
	for range 1000 {
		u := randomULID(r)
		g := u.UUID()
		if g.String() != u.UUIDString() {
			t.Fatalf("uuid.UUID %s, UUIDString %s", g, u.UUIDString())
		}
		if FromUUID(g) != u {
			t.Fatalf("FromUUID(UUID()) != u for %x", u)
		}
		p, err := uuid.Parse(u.UUIDString())
		if err != nil || p != g {
			t.Fatalf("google/uuid parses %s as %s, %v", u.UUIDString(), p, err)
		}
	}
	want := "01563df3-6481-d676-4c61-efb99302bd5b"
	if got := MustParse("01ARYZ6S41TSV4RRFFQ69G5FAV").UUID().String(); got != want {
		t.Fatalf("UUID() = %s, want %s", got, want)
	}
}
