package opaque

import (
	"encoding/base64"
	"encoding/binary"
	"errors"
	"runtime"
	"sync"

	"github.com/pgid/pgid/internal/idtext"
	"github.com/pgid/pgid/objectidtype"
	"github.com/pgid/pgid/ulidtype"
)

// Errors of opening a code, wrapped in a [*CodeError]. Test for them with
// [errors.Is].
var (
	// ErrLength: a code has the wrong length for its kind.
	ErrLength = errors.New("opaque: invalid length")
	// ErrCharacter: a code has a character outside its alphabet.
	ErrCharacter = errors.New("opaque: invalid character")
	// ErrUnknownKey: a ULID code names a key ID the Codec does not have.
	ErrUnknownKey = errors.New("opaque: unknown key")
)

// Code lengths.
const (
	ObjectIDCodeLen = 16 // FF1 over 16 digits of radix 64
	ULIDCodeLen     = 26 // 130 bits: a 2-bit key ID and one AES block
)

// objectIDEncoding writes FF1's 16 numerals of radix 64 in the alphabet of
// [objectidtype.ObjectID.Short], digit values 0 to 63 in order.
var objectIDEncoding = base64.NewEncoding(objectidtype.ShortAlphabet).WithPadding(base64.NoPadding).Strict()

// scratch holds the two AES blocks a permutation needs: a cipher.Block's
// Encrypt is an interface call, so buffers passed to it escape, and the
// pool keeps that from allocating on every code.
var scratch = sync.Pool{New: func() any { return new([32]byte) }}

// AppendObjectID appends id's public code, 16 characters, to b.
func (c *Codec) AppendObjectID(b []byte, id objectidtype.ObjectID) []byte {
	buf := scratch.Get().(*[32]byte)
	a, d := c.state().current.encrypt96(get48(id[:6]), get48(id[6:]), buf)
	scratch.Put(buf)
	runtime.KeepAlive(c)
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
	id := c.state().current.openObjectID(a, d)
	runtime.KeepAlive(c)
	return id, nil
}

// AppendObjectIDCandidates appends to dst the ObjectId code decodes to under
// each of c's keys, current first: the IDs a lookup should try (WHERE id =
// ANY($1)), since ObjectId codes do not say which key made them.
func (c *Codec) AppendObjectIDCandidates(dst []objectidtype.ObjectID, code string) ([]objectidtype.ObjectID, error) {
	a, d, err := readObjectIDCode(code)
	if err != nil {
		return dst, err
	}
	for _, s := range c.state().order {
		dst = append(dst, s.openObjectID(a, d))
	}
	runtime.KeepAlive(c)
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
	cur := c.state().current
	buf := scratch.Get().(*[32]byte)
	copy(buf[:16], id[:])
	cur.block.Encrypt(buf[16:], buf[:16])
	hi := binary.BigEndian.Uint64(buf[16:24])
	lo := binary.BigEndian.Uint64(buf[24:32])
	scratch.Put(buf)
	runtime.KeepAlive(c)
	// 130 bits in ULID text's base32: the key ID, then the 128 bits of the
	// block.
	var text [ULIDCodeLen]byte
	idtext.Upper.Encode(hi, lo, &text)
	text[0] = ulidtype.Alphabet[uint64(cur.id)<<3|hi>>61]
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
		return ulidtype.ULID{}, lengthError("ULID", code, ULIDCodeLen, idtext.Upper.Valid, ulidWant)
	}
	buf := scratch.Get().(*[32]byte)
	if !idtext.DecodeBase32(&idtext.Upper, code, 31, (*[16]byte)(buf[:16])) {
		scratch.Put(buf)
		return ulidtype.ULID{}, charError("ULID", code, idtext.Upper.Valid, ulidWant)
	}
	// The 2 bits above the block's 128 are the key ID.
	key := idtext.Upper.Value(code[0]) >> 3
	s := c.state().byID[key]
	if s == nil {
		scratch.Put(buf)
		return ulidtype.ULID{}, codeError("ULID", code, ErrUnknownKey, "made with key "+string('0'+key)+", which this codec does not have")
	}
	s.block.Decrypt(buf[16:], buf[:16])
	runtime.KeepAlive(c)
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

func put48(b []byte, v uint64) {
	_ = b[5]
	b[0], b[1], b[2], b[3], b[4], b[5] = byte(v>>40), byte(v>>32), byte(v>>24), byte(v>>16), byte(v>>8), byte(v)
}

func get48(b []byte) uint64 {
	_ = b[5]
	return uint64(b[0])<<40 | uint64(b[1])<<32 | uint64(b[2])<<24 | uint64(b[3])<<16 | uint64(b[4])<<8 | uint64(b[5])
}
