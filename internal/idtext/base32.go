package idtext

import (
	"encoding/binary"
	"fmt"
	"strconv"
)

// The alphabets of the ID text forms, digit value 0 first. ulidtype.Alphabet,
// objectidtype.ShortAlphabet and the SQL functions generated from them
// (go generate ./migrations) are these.
const (
	// Crockford is Crockford's base32, as ULID text writes it: digits and
	// upper-case letters without I, L, O and U.
	Crockford = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
	// CrockfordLower is Crockford's base32 in lower case, as a TypeID suffix
	// writes it.
	CrockfordLower = "0123456789abcdefghjkmnpqrstvwxyz"
	// Short is the alphabet of an ObjectID's 16-character short form and of
	// its opaque code: digits, lower-case letters, upper-case letters, '-'
	// and '_'.
	Short = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-_"
	// HexDigits are the lower-case hex digits.
	HexDigits = "0123456789abcdef"
)

// Base32Len is the length of 128 bits in base32: 26 characters, 130 bits
// whose top 2 are zero in an ID (an opaque ULID code keeps its key ID there).
const Base32Len = 26

// Base32 is one case of Crockford's base32: the table that writes it two
// characters at a time and the table that reads it.
type Base32 struct {
	// pairs maps a 10-bit value to its two characters, the first in the low
	// byte, so that one little-endian 16-bit store writes both.
	pairs [1024]uint16
	// values maps a character it reads to its value, every other byte to
	// 0xFF.
	values [256]byte
}

// The two cases of base32 the IDs use. They are variables, not pointers,
// so that &Upper is a constant address in the callers.
var (
	// Upper writes upper case (ULID text and opaque ULID codes) and reads
	// either case.
	Upper = newBase32(Crockford, true)
	// Lower writes lower case and reads only lower case, as the TypeID
	// specification asks of a suffix.
	Lower = newBase32(CrockfordLower, false)
)

func newBase32(alphabet string, eitherCase bool) (e Base32) {
	for v := range e.pairs {
		e.pairs[v] = uint16(alphabet[v>>5]) | uint16(alphabet[v&31])<<8
	}
	for i := range e.values {
		e.values[i] = 0xFF
	}
	for i := range len(alphabet) {
		c := alphabet[i]
		e.values[c] = byte(i)
		if eitherCase && c >= 'A' {
			e.values[c|0x20] = byte(i)
		}
	}
	return e
}

// Encode writes the 26 characters of the 128 bits hi (the top half) and lo
// into b, two at a time: the 130-bit value (two zero bits, then hi and lo) is
// 13 groups of 10 bits, 6 in hi, one straddling both halves and 6 in lo.
func (e *Base32) Encode(hi, lo uint64, b *[Base32Len]byte) {
	t := &e.pairs
	binary.LittleEndian.PutUint16(b[0:], t[hi>>56])
	binary.LittleEndian.PutUint16(b[2:], t[hi>>46&1023])
	binary.LittleEndian.PutUint16(b[4:], t[hi>>36&1023])
	binary.LittleEndian.PutUint16(b[6:], t[hi>>26&1023])
	binary.LittleEndian.PutUint16(b[8:], t[hi>>16&1023])
	binary.LittleEndian.PutUint16(b[10:], t[hi>>6&1023])
	binary.LittleEndian.PutUint16(b[12:], t[(hi&63)<<4|lo>>60])
	binary.LittleEndian.PutUint16(b[14:], t[lo>>50&1023])
	binary.LittleEndian.PutUint16(b[16:], t[lo>>40&1023])
	binary.LittleEndian.PutUint16(b[18:], t[lo>>30&1023])
	binary.LittleEndian.PutUint16(b[20:], t[lo>>20&1023])
	binary.LittleEndian.PutUint16(b[22:], t[lo>>10&1023])
	binary.LittleEndian.PutUint16(b[24:], t[lo&1023])
}

// EncodeID writes the 26 characters of the 16 big-endian bytes of id into b.
func (e *Base32) EncodeID(id *[16]byte, b *[Base32Len]byte) {
	e.Encode(binary.BigEndian.Uint64(id[:8]), binary.BigEndian.Uint64(id[8:]), b)
}

// Char returns the character of the 5-bit value v.
func (e *Base32) Char(v byte) byte { return byte(e.pairs[v&31] >> 8) }

// Value returns the value of the character c, 0xFF if e does not read it.
func (e *Base32) Value(c byte) byte { return e.values[c] }

// Valid reports whether e reads c.
func (e *Base32) Valid(c byte) bool { return e.values[c] != 0xFF }

// DecodeBase32 reads the first 26 characters of s with e into the 16
// big-endian bytes *dst, strictly: no character outside e's alphabet (I, L,
// O and U included) and no separators. The first character holds the top 2
// bits of the 130-bit value besides 3 of the 128 it stores, so maxFirst caps
// it: 7 for an ID (those 2 bits zero), 31 for an opaque ULID code, which
// keeps its key ID there ([Base32.Value] of the first character >> 3); no
// other value works. It reports whether s was all that, and writes *dst only
// if it was.
//
// It is unrolled and has no branch per character: every table value is ORed
// into bad, and an invalid character (0xFF) sets bits above 31, as does a
// first character above maxFirst, whose bits outside it are shifted left by
// 2. Character i holds bits 125-5i to 129-5i of the value.
func DecodeBase32[T string | []byte](e *Base32, s T, maxFirst byte, dst *[16]byte) bool {
	_ = s[25]
	d := &e.values
	c := d[s[0]]
	bad := c | (c&^maxFirst)<<2
	hi := uint64(c) << 61
	c = d[s[1]]
	bad |= c
	hi |= uint64(c) << 56
	c = d[s[2]]
	bad |= c
	hi |= uint64(c) << 51
	c = d[s[3]]
	bad |= c
	hi |= uint64(c) << 46
	c = d[s[4]]
	bad |= c
	hi |= uint64(c) << 41
	c = d[s[5]]
	bad |= c
	hi |= uint64(c) << 36
	c = d[s[6]]
	bad |= c
	hi |= uint64(c) << 31
	c = d[s[7]]
	bad |= c
	hi |= uint64(c) << 26
	c = d[s[8]]
	bad |= c
	hi |= uint64(c) << 21
	c = d[s[9]]
	bad |= c
	hi |= uint64(c) << 16
	c = d[s[10]]
	bad |= c
	hi |= uint64(c) << 11
	c = d[s[11]]
	bad |= c
	hi |= uint64(c) << 6
	c = d[s[12]]
	bad |= c
	hi |= uint64(c) << 1
	c = d[s[13]]
	bad |= c
	hi |= uint64(c) >> 4
	lo := uint64(c) << 60
	c = d[s[14]]
	bad |= c
	lo |= uint64(c) << 55
	c = d[s[15]]
	bad |= c
	lo |= uint64(c) << 50
	c = d[s[16]]
	bad |= c
	lo |= uint64(c) << 45
	c = d[s[17]]
	bad |= c
	lo |= uint64(c) << 40
	c = d[s[18]]
	bad |= c
	lo |= uint64(c) << 35
	c = d[s[19]]
	bad |= c
	lo |= uint64(c) << 30
	c = d[s[20]]
	bad |= c
	lo |= uint64(c) << 25
	c = d[s[21]]
	bad |= c
	lo |= uint64(c) << 20
	c = d[s[22]]
	bad |= c
	lo |= uint64(c) << 15
	c = d[s[23]]
	bad |= c
	lo |= uint64(c) << 10
	c = d[s[24]]
	bad |= c
	lo |= uint64(c) << 5
	c = d[s[25]]
	bad |= c
	lo |= uint64(c)
	if bad > 31 {
		return false
	}
	binary.BigEndian.PutUint64(dst[:8], hi)
	binary.BigEndian.PutUint64(dst[8:], lo)
	return true
}

// Base32Error says why the 26 characters of s from off, which DecodeBase32
// rejected with maxFirst 7, are not an ID: the position and a message
// naming the first character e does not read ("invalid character 'U' at
// position 25, want a " + want), or else overflow true and the position of
// the first character, which is above '7' (the caller words that message:
// it knows what the characters are called).
func Base32Error(e *Base32, s string, off int, want string) (pos int, msg string, overflow bool) {
	for i := off; i < off+Base32Len; i++ {
		if !e.Valid(s[i]) {
			return i, fmt.Sprintf(MsgChar, QuoteByte(s[i]), strconv.Itoa(i), want), false
		}
	}
	return off, "", true
}
