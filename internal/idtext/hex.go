package idtext

import "encoding/binary"

// UUIDLen is the length of the UUID form: 8-4-4-4-12 hex digits with
// hyphens.
const UUIDLen = 36

// UUIDWant names what the UUID form allows, for InvalidChar.
const UUIDWant = "hex digit or a hyphen at 8, 13, 18 and 23"

// HexValue maps a hex digit, in either case, to its value and every other
// byte to 0xFF, so that OR-ing the values of a run of bytes has a bit of
// 0xF0 set exactly when one of them is not a hex digit.
var HexValue = func() (t [256]byte) {
	for i := range t {
		t[i] = 0xFF
	}
	for i, c := range HexDigits {
		t[c] = byte(i)
		if c >= 'a' {
			t[c-'a'+'A'] = byte(i)
		}
	}
	return t
}()

// IsHex reports whether c is a hex digit, in either case.
func IsHex(c byte) bool { return HexValue[c] != 0xFF }

// IsUUIDChar reports whether c may stand at offset i of the UUID form.
func IsUUIDChar(i int, c byte) bool {
	if i == 8 || i == 13 || i == 18 || i == 23 {
		return c == '-'
	}
	return IsHex(c)
}

// DecodeHex decodes the 2*len(dst) hex digits, in either case, at the start
// of s into dst and reports whether they all were hex digits. dst holds
// garbage when they were not: decode into a temporary.
func DecodeHex[T string | []byte](s T, dst []byte) bool {
	_ = s[2*len(dst)-1]
	var bad byte
	for i := range dst {
		hi, lo := HexValue[s[2*i]], HexValue[s[2*i+1]]
		bad |= hi | lo
		dst[i] = hi<<4 | lo
	}
	return bad&0xF0 == 0
}

// uuidPairs holds the offsets of the 16 hex pairs in the UUID form.
var uuidPairs = [16]uint8{0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34}

// DecodeUUID decodes s, the 36-character UUID form (either case), into *dst,
// which it writes only if s is one; it reports whether it was.
func DecodeUUID[T string | []byte](s T, dst *[16]byte) bool {
	if len(s) != UUIDLen || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
		return false
	}
	var v [16]byte
	var bad byte
	for i, p := range uuidPairs {
		hi, lo := HexValue[s[p]], HexValue[s[p+1]]
		bad |= hi | lo
		v[i] = hi<<4 | lo
	}
	if bad&0xF0 != 0 {
		return false
	}
	*dst = v
	return true
}

// hex8 returns the 8 lower-case hex digits of v as the bytes of a uint64,
// the first digit in the top byte: the nibbles are spread one to a byte,
// then each gets '0', and 'a'-'0'-10 more if it is 10 or above. No table, no
// loop.
func hex8(v uint32) uint64 {
	x := uint64(v)
	x = (x<<16 | x) & 0x0000FFFF0000FFFF
	x = (x<<8 | x) & 0x00FF00FF00FF00FF
	x = (x<<4 | x) & 0x0F0F0F0F0F0F0F0F
	// (x+6)>>4 has bit 0 of a byte set exactly when its nibble is 10 or more.
	return x + 0x3030303030303030 + ((x+0x0606060606060606)>>4&0x0101010101010101)*('a'-'0'-10)
}

// EncodeUUID writes the 36-character UUID form of u into b, lower case and
// with hyphens, as PostgreSQL prints a uuid.
func EncodeUUID(u *[16]byte, b *[UUIDLen]byte) {
	be := binary.BigEndian
	be.PutUint64(b[0:], hex8(be.Uint32(u[0:])))
	m := hex8(be.Uint32(u[4:]))
	be.PutUint32(b[9:], uint32(m>>32))
	be.PutUint32(b[14:], uint32(m))
	m = hex8(be.Uint32(u[8:]))
	be.PutUint32(b[19:], uint32(m>>32))
	be.PutUint32(b[24:], uint32(m))
	be.PutUint64(b[28:], hex8(be.Uint32(u[12:])))
	b[8], b[13], b[18], b[23] = '-', '-', '-', '-'
}

// EncodeHex12 writes the 24 lower-case hex digits of the 12 bytes of o (an
// ObjectID) into b.
func EncodeHex12(o *[12]byte, b *[24]byte) {
	be := binary.BigEndian
	be.PutUint64(b[0:], hex8(be.Uint32(o[0:])))
	be.PutUint64(b[8:], hex8(be.Uint32(o[4:])))
	be.PutUint64(b[16:], hex8(be.Uint32(o[8:])))
}
