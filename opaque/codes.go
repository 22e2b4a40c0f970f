package opaque

import (
	"encoding/base64"
	"encoding/binary"
	"sync"

	"github.com/pgid/pgid/objectidtype"
	"github.com/pgid/pgid/ulidtype"
)

// Code lengths.
const (
	ObjectIDCodeLen = 16 // FF1 over 16 digits of radix 64
	ULIDCodeLen     = 26 // 130 bits: a 2-bit key ID and one AES block
)

// objectIDAlphabet is [objectidtype.ObjectID.Short]'s: the digit values 0 to
// 63 of FF1's numerals, in order.
const objectIDAlphabet = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-_"

var objectIDEncoding = base64.NewEncoding(objectIDAlphabet).WithPadding(base64.NoPadding).Strict()

// ulidAlphabet is Crockford's base32, as ULID text uses it.
const ulidAlphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

// ulidDecode maps a character (either case) to its 5-bit value, 0xFF for
// characters outside the alphabet.
var ulidDecode = func() (t [256]byte) {
	for i := range t {
		t[i] = 0xFF
	}
	for i := 0; i < len(ulidAlphabet); i++ {
		t[ulidAlphabet[i]] = byte(i)
		t[ulidAlphabet[i]|0x20] = byte(i) // lower case
	}
	return t
}()

// scratch holds the two AES blocks a permutation needs: a cipher.Block's
// Encrypt is an interface call, so buffers passed to it escape, and the
// pool keeps that from allocating on every code.
var scratch = sync.Pool{New: func() any { return new([32]byte) }}

// AppendObjectID appends id's public code, 16 characters, to b.
func (c *Codec) AppendObjectID(b []byte, id objectidtype.ObjectID) []byte {
	buf := scratch.Get().(*[32]byte)
	a, d := c.current.encrypt96(get48(id[:6]), get48(id[6:]), buf)
	scratch.Put(buf)
	var out [12]byte
	put48(out[:6], a)
	put48(out[6:], d)
	var text [ObjectIDCodeLen]byte
	objectIDEncoding.Encode(text[:], out[:])
	return append(b, text[:]...)
}

// ObjectIDCode returns id's public code, 16 characters.
func (c *Codec) ObjectIDCode(id objectidtype.ObjectID) string {
	var b [ObjectIDCodeLen]byte
	return string(c.AppendObjectID(b[:0], id))
}

// OpenObjectID returns the ObjectId whose code under the current key is
// code. A code of the wrong length or alphabet is an error wrapping
// [ErrLength] or [ErrCharacter]; any other code decodes to some ObjectId.
func (c *Codec) OpenObjectID(code string) (objectidtype.ObjectID, error) {
	a, d, err := readObjectIDCode(code)
	if err != nil {
		return objectidtype.ObjectID{}, err
	}
	return c.current.openObjectID(a, d), nil
}

// AppendObjectIDCandidates appends to dst the ObjectId code decodes to under
// each of c's keys, current first: the IDs a lookup should try (WHERE id =
// ANY($1)), since ObjectId codes do not say which key made them.
func (c *Codec) AppendObjectIDCandidates(dst []objectidtype.ObjectID, code string) ([]objectidtype.ObjectID, error) {
	a, d, err := readObjectIDCode(code)
	if err != nil {
		return dst, err
	}
	for _, s := range c.order {
		dst = append(dst, s.openObjectID(a, d))
	}
	return dst, nil
}

func (s *keyState) openObjectID(a, d uint64) (id objectidtype.ObjectID) {
	buf := scratch.Get().(*[32]byte)
	a, d = s.decrypt96(a, d, buf)
	scratch.Put(buf)
	put48(id[:6], a)
	put48(id[6:], d)
	return id
}

func readObjectIDCode(code string) (a, d uint64, err error) {
	if len(code) != ObjectIDCodeLen {
		return 0, 0, lengthError("ObjectId", code, ObjectIDCodeLen, isObjectIDChar, objectIDWant)
	}
	var raw [12]byte
	// Decode skips '\r' and '\n' even when Strict: 16 bytes with some of
	// them decode to fewer than 12.
	if n, err := objectIDEncoding.Decode(raw[:], []byte(code)); err != nil || n != len(raw) {
		return 0, 0, charError("ObjectId", code, isObjectIDChar, objectIDWant)
	}
	return get48(raw[:6]), get48(raw[6:]), nil
}

// AppendULID appends id's public code, 26 characters, to b.
func (c *Codec) AppendULID(b []byte, id ulidtype.ULID) []byte {
	buf := scratch.Get().(*[32]byte)
	copy(buf[:16], id[:])
	c.current.block.Encrypt(buf[16:], buf[:16])
	hi := binary.BigEndian.Uint64(buf[16:24])
	lo := binary.BigEndian.Uint64(buf[24:32])
	scratch.Put(buf)
	var text [ULIDCodeLen]byte
	// 130 bits: the key ID, then the 128 bits of the block, 5 at a time
	// from the least significant end.
	for i := ULIDCodeLen - 1; i >= 1; i-- {
		text[i] = ulidAlphabet[lo&31]
		lo = lo>>5 | hi<<59
		hi >>= 5
	}
	text[0] = ulidAlphabet[uint64(c.current.id)<<3|lo&7]
	return append(b, text[:]...)
}

// ULIDCode returns id's public code, 26 characters.
func (c *Codec) ULIDCode(id ulidtype.ULID) string {
	var b [ULIDCodeLen]byte
	return string(c.AppendULID(b[:0], id))
}

// OpenULID returns the ULID whose code is code, under the key the code
// names. Upper and lower case are accepted. Errors wrap [ErrLength],
// [ErrCharacter] or [ErrUnknownKey].
func (c *Codec) OpenULID(code string) (ulidtype.ULID, error) {
	if len(code) != ULIDCodeLen {
		return ulidtype.ULID{}, lengthError("ULID", code, ULIDCodeLen, isULIDChar, ulidWant)
	}
	var hi, lo uint64
	bad := byte(0)
	first := ulidDecode[code[0]]
	bad |= first
	for i := 1; i < ULIDCodeLen; i++ {
		v := ulidDecode[code[i]]
		bad |= v
		hi = hi<<5 | lo>>59
		lo = lo<<5 | uint64(v&31)
	}
	if bad&0xE0 != 0 { // some character decoded to 0xFF
		return ulidtype.ULID{}, charError("ULID", code, isULIDChar, ulidWant)
	}
	// 25 characters carry 125 bits; the first character's low 3 bits
	// are the block's top 3, its high 2 the key ID.
	hi |= uint64(first&7) << 61
	s := c.byID[first>>3]
	if s == nil {
		return ulidtype.ULID{}, codeError("ULID", code, ErrUnknownKey, "made with key "+string('0'+first>>3)+", which this codec does not have")
	}
	buf := scratch.Get().(*[32]byte)
	binary.BigEndian.PutUint64(buf[:8], hi)
	binary.BigEndian.PutUint64(buf[8:16], lo)
	s.block.Decrypt(buf[16:], buf[:16])
	var id ulidtype.ULID
	copy(id[:], buf[16:])
	scratch.Put(buf)
	return id, nil
}

const objectIDWant = "a digit, a letter, '-' or '_'"

func isObjectIDChar(c byte) bool {
	return ('0' <= c && c <= '9') || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || c == '-' || c == '_'
}

const ulidWant = "a Crockford base32 character"

func isULIDChar(c byte) bool { return ulidDecode[c] != 0xFF }

func put48(b []byte, v uint64) {
	_ = b[5]
	b[0], b[1], b[2], b[3], b[4], b[5] = byte(v>>40), byte(v>>32), byte(v>>24), byte(v>>16), byte(v>>8), byte(v)
}

func get48(b []byte) uint64 {
	_ = b[5]
	return uint64(b[0])<<40 | uint64(b[1])<<32 | uint64(b[2])<<24 | uint64(b[3])<<16 | uint64(b[4])<<8 | uint64(b[5])
}
