package idtext

import (
	"encoding/binary"
	"encoding/hex"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"
)

// refEncode is base32 of the 130-bit value top:hi:lo, by math/big.
func refEncode(alphabet string, top byte, hi, lo uint64) string {
	v := new(big.Int).SetUint64(uint64(top))
	v.Lsh(v, 64).Or(v, new(big.Int).SetUint64(hi))
	v.Lsh(v, 64).Or(v, new(big.Int).SetUint64(lo))
	var b [Base32Len]byte
	for i := Base32Len - 1; i >= 0; i-- {
		b[i] = alphabet[new(big.Int).And(v, big.NewInt(31)).Int64()]
		v.Rsh(v, 5)
	}
	return string(b[:])
}

// refDecode reads 26 characters of alphabet (and, if eitherCase, its
// lower-case letters) by math/big.
func refDecode(alphabet string, eitherCase bool, s string) (hi, lo uint64, top byte, ok bool) {
	v := new(big.Int)
	for i := range len(s) {
		c := s[i]
		j := strings.IndexByte(alphabet, c)
		if j < 0 && eitherCase && c >= 'a' && c <= 'z' {
			j = strings.IndexByte(alphabet, c-'a'+'A')
		}
		if j < 0 {
			return 0, 0, 0, false
		}
		v.Lsh(v, 5).Or(v, big.NewInt(int64(j)))
	}
	m := new(big.Int).SetUint64(^uint64(0))
	lo = new(big.Int).And(v, m).Uint64()
	hi = new(big.Int).And(new(big.Int).Rsh(v, 64), m).Uint64()
	top = byte(new(big.Int).Rsh(v, 128).Uint64())
	return hi, lo, top, true
}

func TestBase32Encode(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 2000 {
		hi, lo := r.Uint64(), r.Uint64()
		if i == 0 {
			hi, lo = 0, 0
		} else if i == 1 {
			hi, lo = ^uint64(0), ^uint64(0)
		}
		for _, c := range []struct {
			e        *Base32
			alphabet string
		}{{&Upper, Crockford}, {&Lower, CrockfordLower}} {
			var b [Base32Len]byte
			c.e.Encode(hi, lo, &b)
			if want := refEncode(c.alphabet, 0, hi, lo); string(b[:]) != want {
				t.Fatalf("Encode(%x, %x) = %s, want %s", hi, lo, b, want)
			}
			var id [16]byte
			binary.BigEndian.PutUint64(id[:8], hi)
			binary.BigEndian.PutUint64(id[8:], lo)
			var b2 [Base32Len]byte
			c.e.EncodeID(&id, &b2)
			if b2 != b {
				t.Fatalf("EncodeID = %s, Encode = %s", b2, b)
			}
			var back [16]byte
			if !DecodeBase32(c.e, string(b[:]), 7, &back) || back != id {
				t.Fatalf("DecodeBase32(%s) = %x", b, back)
			}
		}
	}
	for v := range byte(32) {
		if Upper.Char(v) != Crockford[v] || Lower.Char(v) != CrockfordLower[v] {
			t.Fatalf("Char(%d) = %c %c", v, Upper.Char(v), Lower.Char(v))
		}
	}
}

func TestDecodeBase32Strict(t *testing.T) {
	good := "01arz3ndektsv4rrffq69g5fav"
	var d, d2 [16]byte
	if !DecodeBase32(&Lower, good, 7, &d) {
		t.Fatal("Lower rejects lower case")
	}
	if DecodeBase32(&Lower, strings.ToUpper(good), 7, &d2) {
		t.Fatal("Lower accepts upper case")
	}
	if !DecodeBase32(&Upper, good, 7, &d2) || d2 != d {
		t.Fatal("Upper rejects lower case")
	}
	for _, c := range "ILOUilou-_ \x00\xff" {
		s := good[:10] + string(c) + good[11:]
		if DecodeBase32(&Upper, s, 7, &d2) {
			t.Errorf("Upper accepts %q", c)
		}
	}
	// Only the first 26 characters count.
	d2 = [16]byte{}
	if !DecodeBase32(&Lower, []byte(good+"_tail"), 7, &d2) || d2 != d {
		t.Fatal("DecodeBase32 of a longer input differs")
	}
	// The 2 bits above 128: refused unless maxFirst allows them; dst is
	// written only on success.
	d2 = [16]byte{}
	if DecodeBase32(&Upper, "8"+good[1:], 7, &d2) || d2 != ([16]byte{}) {
		t.Fatal("an overflow is accepted or written")
	}
	if !DecodeBase32(&Upper, "Z"+good[1:], 31, &d2) || Upper.Value('Z')>>3 != 3 || Upper.Value('z') != 31 || Lower.Value('Z') != 0xFF {
		t.Fatalf("Z... with maxFirst 31 = %x", d2)
	}
	pos, msg, overflow := Base32Error(&Upper, "8"+good[1:], 0, "x")
	if !overflow || pos != 0 || msg != "" {
		t.Errorf("Base32Error of an overflow = %d %q %v", pos, msg, overflow)
	}
	pos, msg, overflow = Base32Error(&Lower, "ab_"+good[:25]+"U", 3, "lower-case character")
	if overflow || pos != 28 || msg != "invalid character 'U' at position 28, want a lower-case character" {
		t.Errorf("Base32Error = %d %q %v", pos, msg, overflow)
	}
}

// FuzzDecodeBase32 checks the decoder against math/big on any 26 bytes,
// in both cases, and that what it accepts encodes back to the input.
func FuzzDecodeBase32(f *testing.F) {
	f.Add("01ARZ3NDEKTSV4RRFFQ69G5FAV")
	f.Add("01arz3ndektsv4rrffq69g5fav")
	f.Add("7ZZZZZZZZZZZZZZZZZZZZZZZZZ")
	f.Add("8ZZZZZZZZZZZZZZZZZZZZZZZZZ")
	f.Add("01ARZ3NDEKTSV4RRFFQ69G5FAU")
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) != Base32Len {
			return
		}
		for _, c := range []struct {
			e          *Base32
			alphabet   string
			eitherCase bool
		}{{&Upper, Crockford, true}, {&Lower, CrockfordLower, false}} {
			var d [16]byte
			ok := DecodeBase32(c.e, s, 31, &d)
			hi, lo := binary.BigEndian.Uint64(d[:8]), binary.BigEndian.Uint64(d[8:])
			top := c.e.Value(s[0]) >> 3
			rhi, rlo, rtop, rok := refDecode(c.alphabet, c.eitherCase, s)
			if ok != rok || ok && (hi != rhi || lo != rlo || top != rtop) {
				t.Fatalf("%q: DecodeBase32 = %x %x %d %v, math/big %x %x %d %v", s, hi, lo, top, ok, rhi, rlo, rtop, rok)
			}
			var d0 [16]byte
			if ok0 := DecodeBase32(c.e, s, 7, &d0); ok0 != (ok && top == 0) || !ok0 && d0 != ([16]byte{}) {
				t.Fatalf("%q: DecodeBase32 with maxFirst 7 = %v, %x", s, ok0, d0)
			}
			if !ok {
				if _, msg, overflow := Base32Error(c.e, s, 0, "x"); overflow || msg == "" {
					t.Fatalf("%q rejected, but Base32Error finds no bad character", s)
				}
				continue
			}
			var b [Base32Len]byte
			c.e.Encode(hi, lo, &b)
			b[0] = c.alphabet[top<<3|byte(hi>>61)]
			want := s
			if c.eitherCase {
				want = strings.ToUpper(s)
			}
			if string(b[:]) != want {
				t.Fatalf("%q decodes and encodes to %q", s, b)
			}
		}
	})
}

func TestHexEncode(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for i := range 2000 {
		var u [16]byte
		for j := range u {
			u[j] = byte(r.Uint32())
		}
		if i == 0 {
			u = [16]byte{}
		} else if i == 1 {
			for j := range u {
				u[j] = 0xFF
			}
		}
		var b [UUIDLen]byte
		EncodeUUID(&u, &b)
		h := hex.EncodeToString(u[:])
		if want := h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]; string(b[:]) != want {
			t.Fatalf("EncodeUUID = %s, want %s", b, want)
		}
		var v [16]byte
		if !DecodeUUID(string(b[:]), &v) || v != u {
			t.Fatalf("DecodeUUID(%s) = %x", b, v)
		}
		if !DecodeUUID([]byte(strings.ToUpper(string(b[:]))), &v) || v != u {
			t.Fatalf("DecodeUUID(upper %s) = %x", b, v)
		}
		var o [24]byte
		EncodeHex12((*[12]byte)(u[:12]), &o)
		if string(o[:]) != h[:24] {
			t.Fatalf("EncodeHex12 = %s, want %s", o, h[:24])
		}
	}
}

// FuzzDecodeHex checks DecodeHex and DecodeUUID against encoding/hex.
func FuzzDecodeHex(f *testing.F) {
	f.Add("0123456789abcdefABCDEF0123456789")
	f.Add("01234567-89ab-cdef-0123-456789ABCDEF")
	f.Add("0123456789abcdefABCDEF012345678g")
	f.Add("01234567-89ab-cdef-0123_456789ABCDEF")
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) >= 2 {
			n := min(len(s)/2, 16)
			dst := make([]byte, n)
			want, err := hex.DecodeString(s[:2*n])
			if ok := DecodeHex(s, dst); ok != (err == nil) || ok && string(dst) != string(want) {
				t.Fatalf("DecodeHex(%q) = %x %v, encoding/hex %x %v", s, dst, ok, want, err)
			}
		}
		var u [16]byte
		ok := DecodeUUID(s, &u)
		want := len(s) == UUIDLen
		for i := 0; want && i < len(s); i++ {
			want = IsUUIDChar(i, s[i])
		}
		if ok != want {
			t.Fatalf("DecodeUUID(%q) = %v, want %v", s, ok, want)
		}
		if ok {
			h, _ := hex.DecodeString(strings.ReplaceAll(s, "-", ""))
			if string(u[:]) != string(h) {
				t.Fatalf("DecodeUUID(%q) = %x", s, u)
			}
		} else if u != ([16]byte{}) {
			t.Fatalf("DecodeUUID(%q) wrote %x on failure", s, u)
		}
	})
}
