package opaque

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/hex"
	"math/big"
	"strings"
	"testing"

	"github.com/pgid/pgid/objectidtype"
)

// refFF1 is FF1 as SP 800-38G section 5.1 writes it, for any radix up to
// 36 (or 64 with the ObjectId alphabet), length and tweak, with math/big:
// the reference the fast path is checked against, itself checked against
// NIST's published samples.
type refFF1 struct {
	block cipher.Block
	radix int
	alpha string
}

func (f refFF1) prf(x []byte) []byte {
	y := make([]byte, 16)
	for j := 0; j < len(x); j += 16 {
		for k := 0; k < 16; k++ {
			y[k] ^= x[j+k]
		}
		f.block.Encrypt(y, y)
	}
	return y
}

func (f refFF1) num(s string) *big.Int {
	n := new(big.Int)
	r := big.NewInt(int64(f.radix))
	for _, c := range s {
		n.Mul(n, r)
		n.Add(n, big.NewInt(int64(strings.IndexRune(f.alpha, c))))
	}
	return n
}

func (f refFF1) str(m int, x *big.Int) string {
	out := make([]byte, m)
	x = new(big.Int).Set(x)
	r := big.NewInt(int64(f.radix))
	d := new(big.Int)
	for i := m - 1; i >= 0; i-- {
		x.DivMod(x, r, d)
		out[i] = f.alpha[d.Int64()]
	}
	return string(out)
}

func (f refFF1) crypt(tweak []byte, x string, decrypt bool) string {
	n := len(x)
	u, v := n/2, n-n/2
	a, b := x[:u], x[u:]
	t := len(tweak)
	// b = ceil(ceil(v*log2(radix))/8): the bytes of radix^v - 1.
	rv := new(big.Int).Exp(big.NewInt(int64(f.radix)), big.NewInt(int64(v)), nil)
	bl := (new(big.Int).Sub(rv, big.NewInt(1)).BitLen() + 7) / 8
	d := 4*((bl+3)/4) + 4
	p := []byte{1, 2, 1, byte(f.radix >> 16), byte(f.radix >> 8), byte(f.radix), 10, byte(u),
		byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n), byte(t >> 24), byte(t >> 16), byte(t >> 8), byte(t)}
	round := func(i int, half string) *big.Int {
		q := append([]byte{}, tweak...)
		q = append(q, make([]byte, ((-t-bl-1)%16+16)%16)...)
		q = append(q, byte(i))
		nb := f.num(half).Bytes()
		q = append(q, make([]byte, bl-len(nb))...)
		q = append(q, nb...)
		r := f.prf(append(append([]byte{}, p...), q...))
		s := append([]byte{}, r...)
		for j := 1; len(s) < d; j++ {
			var blk [16]byte
			copy(blk[:], r)
			for k := 0; k < 4; k++ {
				blk[15-k] ^= byte(j >> (8 * k))
			}
			f.block.Encrypt(blk[:], blk[:])
			s = append(s, blk[:]...)
		}
		return new(big.Int).SetBytes(s[:d])
	}
	mod := func(m int) *big.Int { return new(big.Int).Exp(big.NewInt(int64(f.radix)), big.NewInt(int64(m)), nil) }
	if !decrypt {
		for i := 0; i < 10; i++ {
			m := u
			if i%2 == 1 {
				m = v
			}
			c := new(big.Int).Add(f.num(a), round(i, b))
			c.Mod(c, mod(m))
			a, b = b, f.str(m, c)
		}
	} else {
		for i := 9; i >= 0; i-- {
			m := u
			if i%2 == 1 {
				m = v
			}
			c := new(big.Int).Sub(f.num(b), round(i, a))
			c.Mod(c, mod(m))
			b, a = a, f.str(m, c)
		}
	}
	return a + b
}

// TestFF1NISTSamples: the reference passes the nine samples of NIST's
// FF1samples.pdf (SP 800-38G examples), encrypting and decrypting.
func TestFF1NISTSamples(t *testing.T) {
	const (
		k128 = "2B7E151628AED2A6ABF7158809CF4F3C"
		k192 = k128 + "EF4359D8D580AA4F"
		k256 = k192 + "7F036D6F04FC6A94"
		tw10 = "39383736353433323130"
		tw36 = "3737373770717273373737"
		pt10 = "0123456789"
		pt36 = "0123456789abcdefghi"
	)
	for i, c := range []struct {
		key, tweak string
		radix      int
		pt, ct     string
	}{
		{k128, "", 10, pt10, "2433477484"},
		{k128, tw10, 10, pt10, "6124200773"},
		{k128, tw36, 36, pt36, "a9tv40mll9kdu509eum"},
		{k192, "", 10, pt10, "2830668132"},
		{k192, tw10, 10, pt10, "2496655549"},
		{k192, tw36, 36, pt36, "xbj3kv35jrawxv32ysr"},
		{k256, "", 10, pt10, "6657667009"},
		{k256, tw10, 10, pt10, "1001623463"},
		{k256, tw36, 36, pt36, "xs8a0azh2avyalyzuwd"},
	} {
		key, _ := hex.DecodeString(c.key)
		tweak, _ := hex.DecodeString(c.tweak)
		block, err := aes.NewCipher(key)
		if err != nil {
			t.Fatal(err)
		}
		f := refFF1{block: block, radix: c.radix, alpha: "0123456789abcdefghijklmnopqrstuvwxyz"}
		if got := f.crypt(tweak, c.pt, false); got != c.ct {
			t.Errorf("sample %d: encrypt %s = %s, want %s", i+1, c.pt, got, c.ct)
		} else {
			t.Logf("sample %d (AES-%d, radix %d): %s -> %s", i+1, 4*len(c.key), c.radix, c.pt, got)
		}
		if got := f.crypt(tweak, c.ct, true); got != c.pt {
			t.Errorf("sample %d: decrypt %s = %s, want %s", i+1, c.ct, got, c.pt)
		}
	}
}

// TestFF1FastPathMatchesReference: the radix-64, 16-digit path ObjectId
// codes use agrees with the reference on random keys of every size and
// random inputs, both ways.
func TestFF1FastPathMatchesReference(t *testing.T) {
	for _, size := range []int{16, 24, 32} {
		for k := 0; k < 5; k++ {
			secret := make([]byte, size)
			rand.Read(secret)
			c, err := NewCodec(NewKey(1, secret))
			if err != nil {
				t.Fatal(err)
			}
			ref := refFF1{block: c.state().current.block, radix: 64, alpha: objectidtype.ShortAlphabet}
			for i := 0; i < 200; i++ {
				var raw [12]byte
				rand.Read(raw[:])
				x := objectIDEncoding.EncodeToString(raw[:])
				want := ref.crypt(nil, x, false)
				var buf [32]byte
				a, b := c.state().current.encrypt96(get48(raw[:6]), get48(raw[6:]), &buf)
				var out [12]byte
				put48(out[:6], a)
				put48(out[6:], b)
				if got := objectIDEncoding.EncodeToString(out[:]); got != want {
					t.Fatalf("AES-%d: FF1(%s) = %s, reference %s", 8*size, x, got, want)
				}
				if back := ref.crypt(nil, want, true); back != x {
					t.Fatalf("reference decrypt(%s) = %s, want %s", want, back, x)
				}
			}
		}
	}
}
