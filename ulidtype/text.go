package ulidtype

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
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
	// ErrNull: SQL NULL or JSON null was stored into a plain ULID; use
	// [NullULID], sql.Null[ULID] or *ULID for nullable values.
	ErrNull = errors.New("ulidtype: NULL into ULID")
	// ErrScanType: Scan was given a Go type that cannot hold a ULID.
	ErrScanType = errors.New("ulidtype: unsupported scan source")
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
	in := e.Input
	if len(in) > 64 {
		in = in[:64] + "..."
	}
	return "ulidtype: parse " + strconv.Quote(in) + ": " + e.Msg
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
func Parse(s string) (ULID, error) { return parse(s) }

// MustParse is like [Parse] but panics on error. It is meant for constants in
// tests and initializers.
func MustParse(s string) ULID {
	u, err := Parse(s)
	if err != nil {
		panic(err)
	}
	return u
}

// parse serves both strings and byte slices without copying either.
func parse[T string | []byte](s T) (ULID, error) {
	switch len(s) {
	case base32Len:
		return parseBase32(s)
	case uuidLen:
		var u ULID
		if s[8] == '-' && s[13] == '-' && s[18] == '-' && s[23] == '-' &&
			decodeHex(u[0:4], s[0:8]) && decodeHex(u[4:6], s[9:13]) &&
			decodeHex(u[6:8], s[14:18]) && decodeHex(u[8:10], s[19:23]) &&
			decodeHex(u[10:16], s[24:36]) {
			return u, nil
		}
		return ULID{}, charError(string(s), "hex digit or a hyphen at 8, 13, 18 and 23", isUUIDChar)
	case hexLen:
		var u ULID
		if decodeHex(u[:], s) {
			return u, nil
		}
		return ULID{}, charError(string(s), "hex digit", isHex)
	}
	return ULID{}, &ParseError{
		Input: string(s), Pos: -1, Err: ErrLength,
		Msg: "invalid length " + strconv.Itoa(len(s)) + ", want 26 (base32), 36 (UUID) or 32 (hex)",
	}
}

// decodeHex decodes exactly len(dst) bytes of hex from src.
func decodeHex[T string | []byte](dst []byte, src T) bool {
	var buf [hexLen]byte
	n := copy(buf[:], src)
	_, err := hex.Decode(dst, buf[:n])
	return err == nil
}

// parseBase32 decodes 26 characters of Crockford base32.
func parseBase32[T string | []byte](s T) (ULID, error) {
	// Decode all characters first; an invalid one has the high bits set.
	var v [base32Len]byte
	var bad byte
	for i := range v {
		v[i] = decodeBase32[s[i]]
		bad |= v[i]
	}
	if bad&0xE0 != 0 {
		return ULID{}, charError(string(s), "Crockford base32 character (0-9, A-Z without I, L, O, U)", isBase32)
	}
	if v[0] > 7 {
		return ULID{}, &ParseError{Input: string(s), Pos: 0, Err: ErrOverflow,
			Msg: "first character " + quoteByte(s[0]) + " is above '7', so the value overflows 128 bits"}
	}
	// 130 bits, the top 2 zero: 10 characters of timestamp (50 bits) and
	// 2 × 8 characters of entropy (2 × 40 bits).
	var ts, e1, e2 uint64
	for i := range 10 {
		ts = ts<<5 | uint64(v[i])
	}
	for i := 10; i < 18; i++ {
		e1 = e1<<5 | uint64(v[i])
	}
	for i := 18; i < 26; i++ {
		e2 = e2<<5 | uint64(v[i])
	}
	return fromHalves(ts<<16|e1>>24, e1<<40|e2), nil
}

// charError reports the first byte of s that fails valid.
func charError(s string, want string, valid func(i int, c byte) bool) error {
	pos := 0
	for i := range len(s) {
		if !valid(i, s[i]) {
			pos = i
			break
		}
	}
	return &ParseError{Input: s, Pos: pos, Err: ErrCharacter,
		Msg: "invalid character " + quoteByte(s[pos]) + " at position " + strconv.Itoa(pos) + ", want a " + want}
}

// isBase32 reports whether c is a Crockford base32 character.
func isBase32(_ int, c byte) bool { return decodeBase32[c] != 0xFF }

// isHex reports whether c is a hex digit.
func isHex(_ int, c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// isUUIDChar reports whether c may stand at offset i of the UUID form.
func isUUIDChar(i int, c byte) bool {
	if i == 8 || i == 13 || i == 18 || i == 23 {
		return c == '-'
	}
	return isHex(i, c)
}

// quoteByte quotes a single byte, escaping it if it is not printable ASCII.
func quoteByte(c byte) string {
	if c < 0x80 {
		return strconv.QuoteRune(rune(c))
	}
	return `'\x` + hex.EncodeToString([]byte{c}) + `'`
}

// String returns the canonical 26-character Crockford base32 form, in upper
// case.
func (u ULID) String() string {
	var b [base32Len]byte
	u.encodeBase32(&b)
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
	var t [base32Len]byte
	u.encodeBase32(&t)
	return append(b, t[:]...), nil
}

// MarshalText implements the [encoding.TextMarshaler] interface.
func (u ULID) MarshalText() ([]byte, error) {
	return u.AppendText(make([]byte, 0, base32Len))
}

// UnmarshalText implements the [encoding.TextUnmarshaler] interface. It
// accepts every form [Parse] does; on error u is left unchanged.
func (u *ULID) UnmarshalText(text []byte) error {
	v, err := parse(text)
	if err != nil {
		return err
	}
	*u = v
	return nil
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
// accepts a JSON string in any form [Parse] does. JSON null is an error
// wrapping [ErrNull], since a ULID cannot be null: use [NullULID] or *ULID. On
// error u is left unchanged.
func (u *ULID) UnmarshalJSON(data []byte) error {
	s, err := jsonString(data)
	if err != nil {
		return err
	}
	return u.UnmarshalText(s)
}

// jsonString returns the contents of the JSON string data.
func jsonString(data []byte) ([]byte, error) {
	if string(data) == "null" {
		return nil, fmt.Errorf("%w: JSON null; use NullULID or *ULID", ErrNull)
	}
	n := len(data)
	if n < 2 || data[0] != '"' || data[n-1] != '"' {
		return nil, &ParseError{Input: string(data), Pos: -1, Err: ErrCharacter, Msg: "not a JSON string"}
	}
	s := data[1 : n-1]
	for _, c := range s {
		if c == '\\' || c == '"' || c < 0x20 {
			// Escapes never occur in a ULID but are valid JSON: let
			// encoding/json unquote them.
			var str string
			if err := json.Unmarshal(data, &str); err != nil {
				return nil, &ParseError{Input: string(data), Pos: -1, Err: ErrCharacter, Msg: "not a JSON string: " + err.Error()}
			}
			return []byte(str), nil
		}
	}
	return s, nil
}

// encodeBase32 writes the 26-character form of u into b.
func (u ULID) encodeBase32(b *[base32Len]byte) {
	hi, lo := u.halves()
	ts := hi >> 16                 // 48 bits → 10 characters
	e1 := (hi&0xFFFF)<<24 | lo>>40 // 40 bits → 8 characters
	e2 := lo & (1<<40 - 1)         // 40 bits → 8 characters
	for i := 9; i >= 0; i-- {
		b[i] = crockford[ts&31]
		ts >>= 5
	}
	for i := 17; i >= 10; i-- {
		b[i] = crockford[e1&31]
		e1 >>= 5
	}
	for i := 25; i >= 18; i-- {
		b[i] = crockford[e2&31]
		e2 >>= 5
	}
}

// encodeUUID writes the 36-character UUID form of u into b.
func (u ULID) encodeUUID(b *[uuidLen]byte) {
	hex.Encode(b[0:8], u[0:4])
	b[8] = '-'
	hex.Encode(b[9:13], u[4:6])
	b[13] = '-'
	hex.Encode(b[14:18], u[6:8])
	b[18] = '-'
	hex.Encode(b[19:23], u[8:10])
	b[23] = '-'
	hex.Encode(b[24:36], u[10:16])
}
