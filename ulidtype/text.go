package ulidtype

import (
	"encoding/binary"
	"errors"
	"slices"
	"strconv"

	"github.com/pgid/pgid/internal/idtext"
)

// Errors returned (wrapped) by parsing, scanning and decoding. Test for them
// with [errors.Is]; the wrapping error's message names the input and what is
// wrong with it.
var (
	// ErrLength: the input has a length that no ULID form has.
	ErrLength = errors.New("ulidtype: invalid length")
	// ErrCharacter: the input holds a character its form does not allow.
	ErrCharacter = errors.New("ulidtype: invalid character")
	// ErrOverflow: a 26-character input starts with a character above '7',
	// so its value does not fit in 128 bits.
	ErrOverflow = errors.New("ulidtype: value overflows 128 bits")
	// ErrNull: SQL NULL was scanned into a plain ULID; use [NullULID],
	// sql.Null[ULID] or *ULID for nullable columns. (JSON null leaves a plain
	// ULID unchanged, as encoding/json does for other values.)
	ErrNull = errors.New("ulidtype: NULL")
	// ErrScanType: Scan was given a Go type that cannot hold a ULID.
	ErrScanType = errors.New("ulidtype: unsupported scan source")
	// ErrArray: the text given to [Slice.Scan] or [NullSlice.Scan] is not a
	// one-dimensional PostgreSQL array.
	ErrArray = errors.New("ulidtype: invalid array")
)

// ParseError describes why an input is not a ULID. It wraps one of
// [ErrLength], [ErrCharacter] or [ErrOverflow].
type ParseError struct {
	Input string // the complete input
	Pos   int    // byte offset of the offending character, or -1
	Msg   string // what is wrong and where
	Err   error  // the sentinel
}

// Error returns a message such as
// `ulidtype: parse "01ARZ3NDEKTSV4RRFFQ69G5FAU": invalid character 'U' at
// position 25, want a Crockford base32 character (0-9, A-Z without I, L, O, U)`.
func (e *ParseError) Error() string {
	return idtext.ParseErrorText("ulidtype", e.Input, e.Msg)
}

// Unwrap returns the sentinel error.
func (e *ParseError) Unwrap() error { return e.Err }

// The textual forms of a ULID and their lengths.
const (
	base32Len = 26 // Crockford base32, the canonical form
	uuidLen   = 36 // 8-4-4-4-12 hex with hyphens
	hexLen    = 32 // hex without hyphens
)

// crockford is the Crockford base32 alphabet: digits and upper-case letters
// without I, L, O and U.
const crockford = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

// decodeBase32 maps a byte to its Crockford value, case-insensitively, or to
// 0xFF for bytes outside the alphabet.
var decodeBase32 = func() (t [256]byte) {
	for i := range t {
		t[i] = 0xFF
	}
	for i := range len(crockford) {
		c := crockford[i]
		t[c] = byte(i)
		if c >= 'A' {
			t[c+'a'-'A'] = byte(i)
		}
	}
	return t
}()

// Parse parses a ULID in any of its text forms:
//
//   - 26 characters of Crockford base32, in either case (the canonical form);
//   - 36 characters of UUID, 8-4-4-4-12 hex digits with hyphens;
//   - 32 hex digits.
//
// Anything else is rejected: other lengths ([ErrLength]), characters outside
// the form, including I, L, O and U in base32 ([ErrCharacter]), and base32
// beginning with a character above '7', which would not fit in 128 bits
// ([ErrOverflow]).
func Parse(s string) (u ULID, err error) {
	err = parseString(s, &u)
	return u, err
}

// parseString is parse for strings, kept out of line so that Parse inlines
// into its callers without the generic call: inlined into another package,
// that call would move the result to the heap.
//
// The canonical form goes straight to parseBase32, one call fewer.
//
//go:noinline
func parseString(s string, u *ULID) error {
	if len(s) == base32Len {
		return parseBase32(s, u)
	}
	return parse(s, u)
}

// MustParse is like [Parse] but panics on error. It is meant for constants in
// tests and initializers.
func MustParse(s string) ULID {
	u, err := Parse(s)
	if err != nil {
		panic(err)
	}
	return u
}

// parse decodes s, in any text form, into *u. It serves both strings and
// byte slices without copying either, and writes *u only on success.
func parse[T string | []byte](s T, u *ULID) error {
	switch len(s) {
	case base32Len:
		return parseBase32(s, u)
	case uuidLen:
		if s[8] == '-' && s[13] == '-' && s[18] == '-' && s[23] == '-' && decodeHex(s, &uuidPairs, u) {
			return nil
		}
		return charError(string(s), "hex digit or a hyphen at 8, 13, 18 and 23", isUUIDChar)
	case hexLen:
		if decodeHex(s, &hexPairs, u) {
			return nil
		}
		return charError(string(s), "hex digit", isHex)
	}
	return &ParseError{
		Input: string(s), Pos: -1, Err: ErrLength,
		Msg: "invalid length " + strconv.Itoa(len(s)) + ", want 26 (base32), 36 (UUID) or 32 (hex)",
	}
}

// decodeHex decodes the 16 hex pairs of s that start at the offsets in pairs
// into *u, and reports whether they all were hex. It uses a table instead of
// encoding/hex, whose Decode would need the hyphens cut out into a copy first
// and reports no position.
func decodeHex[T string | []byte](s T, pairs *[16]int, u *ULID) bool {
	var v ULID
	var bad byte
	for i, p := range pairs {
		hi, lo := idtext.HexValue[s[p]], idtext.HexValue[s[p+1]]
		bad |= hi | lo
		v[i] = hi<<4 | lo
	}
	if bad&0xF0 != 0 {
		return false
	}
	*u = v
	return true
}

// Offsets of the 16 hex pairs in the hex and the UUID forms.
var (
	hexPairs  = [16]int{0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30}
	uuidPairs = [16]int{0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34}
)

// parseBase32 decodes 26 characters of Crockford base32, unrolled and
// without a branch per character. The 130 bits have the top 2 zero: character
// i holds bits 125-5i to 129-5i of the value, so characters 0 to 12 and the
// top bit of character 13 make the first 8 bytes, the rest of 13 and 14 to 25
// the last 8. Every table value is ORed into bad: an invalid character (0xFF)
// sets bits above 31, as does a first character above '7' (value 8 to 31)
// shifted left by 2, so one test at the end rejects both. *u is written only
// on success, with two 64-bit stores.
func parseBase32[T string | []byte](s T, u *ULID) error {
	_ = s[25]
	d := &decodeBase32
	c := d[s[0]]
	bad := c | c<<2
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
		return base32Error(string(s))
	}
	binary.BigEndian.PutUint64(u[:8], hi)
	binary.BigEndian.PutUint64(u[8:], lo)
	return nil
}

// base32Error reports why the 26 characters of s are not a ULID: an invalid
// character, or else a first character above '7'.
func base32Error(s string) error {
	for i := range len(s) {
		if !isBase32(i, s[i]) {
			return charError(s, "Crockford base32 character (0-9, A-Z without I, L, O, U)", isBase32)
		}
	}
	return &ParseError{Input: s, Pos: 0, Err: ErrOverflow,
		Msg: "first character " + idtext.QuoteByte(s[0]) + " is above '7', so the value overflows 128 bits"}
}

// charError reports the first byte of s that valid rejects.
func charError(s string, want string, valid func(i int, c byte) bool) error {
	pos, msg := idtext.InvalidChar(s, want, valid)
	return &ParseError{Input: s, Pos: pos, Err: ErrCharacter, Msg: msg}
}

// isBase32 reports whether c is a Crockford base32 character.
func isBase32(_ int, c byte) bool { return decodeBase32[c] != 0xFF }

// isHex reports whether c is a hex digit.
func isHex(_ int, c byte) bool { return idtext.IsHex(c) }

// isUUIDChar reports whether c may stand at offset i of the UUID form.
func isUUIDChar(i int, c byte) bool {
	if i == 8 || i == 13 || i == 18 || i == 23 {
		return c == '-'
	}
	return isHex(i, c)
}

// String returns the canonical 26-character Crockford base32 form, in upper
// case.
func (u ULID) String() string {
	var b [base32Len]byte
	encodeBase32(&u, &b)
	return string(b[:])
}

// UUIDString returns the 36-character UUID form, lower case
// (xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx), which is how PostgreSQL prints a
// uuid.
func (u ULID) UUIDString() string {
	var b [uuidLen]byte
	u.encodeUUID(&b)
	return string(b[:])
}

// AppendText implements the [encoding.TextAppender] interface: it appends the
// canonical 26-character form to b.
func (u ULID) AppendText(b []byte) ([]byte, error) {
	b = slices.Grow(b, base32Len)
	n := len(b)
	b = b[:n+base32Len]
	encode26(binary.BigEndian.Uint64(u[:8]), binary.BigEndian.Uint64(u[8:]), (*[base32Len]byte)(b[n:]))
	return b, nil
}

// MarshalText implements the [encoding.TextMarshaler] interface.
func (u ULID) MarshalText() ([]byte, error) {
	return u.AppendText(make([]byte, 0, base32Len))
}

// UnmarshalText implements the [encoding.TextUnmarshaler] interface. It
// accepts every form [Parse] does; on error u is left unchanged.
func (u *ULID) UnmarshalText(text []byte) error {
	return parse(text, u)
}

// AppendBinary implements the [encoding.BinaryAppender] interface: it appends
// the 16 bytes of u to b.
func (u ULID) AppendBinary(b []byte) ([]byte, error) { return append(b, u[:]...), nil }

// MarshalBinary implements the [encoding.BinaryMarshaler] interface.
func (u ULID) MarshalBinary() ([]byte, error) { return u.AppendBinary(make([]byte, 0, len(u))) }

// UnmarshalBinary implements the [encoding.BinaryUnmarshaler] interface. data
// must be exactly 16 bytes; on error u is left unchanged.
func (u *ULID) UnmarshalBinary(data []byte) error {
	v, err := FromBytes(data)
	if err != nil {
		return err
	}
	*u = v
	return nil
}

// MarshalJSON implements the [encoding/json.Marshaler] interface: a JSON
// string holding the canonical form.
func (u ULID) MarshalJSON() ([]byte, error) {
	b := make([]byte, 0, base32Len+2)
	b = append(b, '"')
	b, _ = u.AppendText(b)
	return append(b, '"'), nil
}

// UnmarshalJSON implements the [encoding/json.Unmarshaler] interface. It
// accepts a JSON string in any form [Parse] does. JSON null leaves u
// unchanged and is no error, as encoding/json treats null for any non-pointer
// value (time.Time does the same); to tell null from an ID, use [NullULID] or
// *ULID. On error u is left unchanged.
func (u *ULID) UnmarshalJSON(data []byte) error {
	s, err := idtext.JSONString(data)
	if err != nil {
		if err == idtext.ErrNullJSON {
			return nil
		}
		return &ParseError{Input: string(data), Pos: -1, Err: ErrCharacter, Msg: err.Error()}
	}
	return u.UnmarshalText(s)
}

// encodeBase32 writes the 26-character form of u into b: character i is
// bits 125-5i to 129-5i of the value (the first has only 3), taken from the
// two big-endian halves with one shift and mask each; character 13 straddles
// them.
func encodeBase32(u *ULID, b *[base32Len]byte) {
	encode26(binary.BigEndian.Uint64(u[:8]), binary.BigEndian.Uint64(u[8:]), b)
}

// encode26 is encodeBase32 of the halves hi and lo.
func encode26(hi, lo uint64, b *[base32Len]byte) {
	b[0] = crockford[hi>>61]
	b[1] = crockford[hi>>56&31]
	b[2] = crockford[hi>>51&31]
	b[3] = crockford[hi>>46&31]
	b[4] = crockford[hi>>41&31]
	b[5] = crockford[hi>>36&31]
	b[6] = crockford[hi>>31&31]
	b[7] = crockford[hi>>26&31]
	b[8] = crockford[hi>>21&31]
	b[9] = crockford[hi>>16&31]
	b[10] = crockford[hi>>11&31]
	b[11] = crockford[hi>>6&31]
	b[12] = crockford[hi>>1&31]
	b[13] = crockford[hi<<4&16|lo>>60]
	b[14] = crockford[lo>>55&31]
	b[15] = crockford[lo>>50&31]
	b[16] = crockford[lo>>45&31]
	b[17] = crockford[lo>>40&31]
	b[18] = crockford[lo>>35&31]
	b[19] = crockford[lo>>30&31]
	b[20] = crockford[lo>>25&31]
	b[21] = crockford[lo>>20&31]
	b[22] = crockford[lo>>15&31]
	b[23] = crockford[lo>>10&31]
	b[24] = crockford[lo>>5&31]
	b[25] = crockford[lo&31]
}

// encodeUUID writes the 36-character UUID form of u into b.
func (u ULID) encodeUUID(b *[uuidLen]byte) { idtext.EncodeUUID((*[16]byte)(&u), b) }
