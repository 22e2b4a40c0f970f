package objectidtype

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"testing"
	"time"
)

// The seed vector (seed 000): hex, short form and time of one ObjectID.
const (
	seedHex   = "4e7020cb7cac81af7136236b"
	seedShort = "jD0wOTOIwqZNdydH"
	seedUnix  = 1315971275
)

var seedBytes = ObjectID{0x4e, 0x70, 0x20, 0xcb, 0x7c, 0xac, 0x81, 0xaf, 0x71, 0x36, 0x23, 0x6b}

func TestSeedVector(t *testing.T) {
	o, err := Parse(seedHex)
	if err != nil {
		t.Fatal(err)
	}
	if o != seedBytes {
		t.Fatalf("Parse(%q) = %x, want %x", seedHex, o[:], seedBytes[:])
	}
	if got := o.Short(); got != seedShort {
		t.Errorf("Short() = %q, want %q", got, seedShort)
	}
	if got := o.String(); got != seedHex {
		t.Errorf("String() = %q, want %q", got, seedHex)
	}
	if got := o.Hex(); got != seedHex {
		t.Errorf("Hex() = %q, want %q", got, seedHex)
	}
	s, err := Parse(seedShort)
	if err != nil || s != o {
		t.Errorf("Parse(%q) = %v, %v; want %v", seedShort, s, err, o)
	}
	if got := o.Unix(); got != seedUnix {
		t.Errorf("Unix() = %d, want %d", got, seedUnix)
	}
	want := time.Date(2011, 9, 14, 3, 34, 35, 0, time.UTC)
	if got := o.Timestamp(); !got.Equal(want) || got.Location() != time.UTC {
		t.Errorf("Timestamp() = %v, want %v in UTC", got, want)
	}
}

func TestZero(t *testing.T) {
	var o ObjectID
	if !o.IsZero() {
		t.Error("zero value: IsZero() = false")
	}
	if seedBytes.IsZero() {
		t.Error("seed: IsZero() = true")
	}
	if got := o.String(); got != "000000000000000000000000" {
		t.Errorf("zero String() = %q", got)
	}
	if got := o.Short(); got != "0000000000000000" {
		t.Errorf("zero Short() = %q", got)
	}
	if !o.Timestamp().Equal(time.Unix(0, 0)) {
		t.Errorf("zero Timestamp() = %v", o.Timestamp())
	}
}

func TestCompareMatchesBytes(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 10000 {
		var a, b ObjectID
		for i := range a {
			a[i] = byte(r.IntN(3)) // few values: many equal prefixes
			b[i] = byte(r.IntN(3))
		}
		if got, want := a.Compare(b), bytes.Compare(a[:], b[:]); got != want {
			t.Fatalf("%x.Compare(%x) = %d, want %d", a[:], b[:], got, want)
		}
		if a.Compare(a) != 0 {
			t.Fatalf("%x.Compare(itself) != 0", a[:])
		}
	}
}

func TestFromBytes(t *testing.T) {
	o, err := FromBytes(seedBytes[:])
	if err != nil || o != seedBytes {
		t.Fatalf("FromBytes = %v, %v", o, err)
	}
	for _, n := range []int{0, 11, 13, 16, 24} {
		_, err := FromBytes(make([]byte, n))
		if !errors.Is(err, ErrLength) {
			t.Errorf("FromBytes(%d bytes) error = %v, want ErrLength", n, err)
		}
	}
	b := seedBytes.Bytes()
	if !bytes.Equal(b, seedBytes[:]) {
		t.Fatalf("Bytes() = %x", b)
	}
	b[0] = 0
	if seedBytes[0] != 0x4e {
		t.Fatal("Bytes() aliases the value")
	}
}
