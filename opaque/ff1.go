package opaque

import "encoding/binary"

// FF1 (NIST SP 800-38G, section 5.1) specialised to what ObjectId codes
// need: radix 64, 16 digits, no tweak. Then u = v = 8, each half is a 48-bit
// number (radix 64 is a power of two, so NUM_radix of 8 digits is their 48
// bits, first digit most significant), b = 6 and d = 12. P||Q is two AES
// blocks and P is the same for every input, so the CBC-MAC of round i is
// one AES call on CIPH_K(P) XOR Q_i, ten calls a permutation. y mod 2^48,
// all that c = (A + y) mod 2^48 needs, is the last 6 of S's 12 bytes.

const (
	ff1Radix  = 64
	ff1Digits = 16
	ff1Rounds = 10
	mask48    = 1<<48 - 1
)

// ff1P is P for radix 64, 16 digits and an empty tweak.
func ff1P() [16]byte {
	return [16]byte{
		1, 2, 1, // version, method, addition
		0, 0, ff1Radix, // radix in 3 bytes
		ff1Rounds,
		ff1Digits / 2,      // u mod 256
		0, 0, 0, ff1Digits, // n in 4 bytes
		0, 0, 0, 0, // t = 0
	}
}

// round returns y mod 2^48 for round i with the 48-bit half x: the CBC-MAC
// of P || Q where Q = [0]^9 || [i] || [x]^6.
func (s *keyState) round(i int, x uint64, buf *[32]byte) uint64 {
	q := buf[:16]
	r := buf[16:]
	copy(q, s.p[:])
	q[9] ^= byte(i)
	q[10] ^= byte(x >> 40)
	q[11] ^= byte(x >> 32)
	q[12] ^= byte(x >> 24)
	q[13] ^= byte(x >> 16)
	q[14] ^= byte(x >> 8)
	q[15] ^= byte(x)
	s.block.Encrypt(r, q)
	// S = R[0:12]; y mod 2^48 = S[6:12].
	return binary.BigEndian.Uint64(r[4:12]) & mask48
}

// encrypt96 applies FF1 to the 96-bit value a||b (48 bits each).
func (s *keyState) encrypt96(a, b uint64, buf *[32]byte) (uint64, uint64) {
	for i := 0; i < ff1Rounds; i++ {
		c := (a + s.round(i, b, buf)) & mask48
		a, b = b, c
	}
	return a, b
}

// decrypt96 inverts encrypt96.
func (s *keyState) decrypt96(a, b uint64, buf *[32]byte) (uint64, uint64) {
	for i := ff1Rounds - 1; i >= 0; i-- {
		c := (b - s.round(i, a, buf)) & mask48
		b, a = a, c
	}
	return a, b
}
