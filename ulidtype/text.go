package ulidtype

import (
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/pgid/pgid/internal/idtext"
)

// Errors a parse returns, wrapped in a [*ParseError]: from [Parse], the
// Unmarshal methods, [FromBytes] and Scan. Test for them with [errors.Is].
var (
	// ErrLength: the input has a length that no ULID form has.
	ErrLength = errors.New("ulidtype: invalid length")
	// ErrCharacter: the input holds a character its form does not allow.
	ErrCharacter = errors.New("ulidtype: invalid character")
	// ErrOverflow: a 26-character input starts with a character above '7',
	// so its value does not fit in 128 bits.
	ErrOverflow = errors.New("ulidtype: value overflows 128 bits")
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
	base32Len = idtext.Base32Len // Crockford base32, the canonical form
	uuidLen   = idtext.UUIDLen   // 8-4-4-4-12 hex with hyphens
	hexLen    = 32               // hex without hyphens
)

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
// The canonical form goes straight to the decoder, one call fewer.
//
//go:noinline
func parseString(s string, u *ULID) error {
	if len(s) != base32Len {
		return parse(s, u)
	}
	if idtext.DecodeBase32(&idtext.Upper, s, 7, (*[16]byte)(u)) {
		return nil
	}
	return base32Error(s)
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
		if idtext.DecodeBase32(&idtext.Upper, s, 7, (*[16]byte)(u)) {
			return nil
		}
		return base32Error(string(s))
	case uuidLen:
		if idtext.DecodeUUID(s, (*[16]byte)(u)) {
			return nil
		}
		return charError(string(s), idtext.UUIDWant, idtext.IsUUIDChar)
	case hexLen:
		var v ULID
		if idtext.DecodeHex(s, v[:]) {
			*u = v
			return nil
		}
		return charError(string(s), idtext.HexWant, isHex)
	}
	return &ParseError{
		Input: string(s), Pos: -1, Err: ErrLength,
		Msg: "invalid length " + strconv.Itoa(len(s)) + ", want 26 (base32), 36 (UUID) or 32 (hex)",
	}
}

// base32Want names the characters of the canonical form.
const base32Want = idtext.Base32Want

// base32Error reports why the 26 characters of s are not a ULID: an invalid
// character, or else a first character above '7'.
func base32Error(s string) error {
	if pos, msg, overflow := idtext.Base32Error(&idtext.Upper, s, 0, base32Want); !overflow {
		return &ParseError{Input: s, Pos: pos, Err: ErrCharacter, Msg: msg}
	}
	return &ParseError{Input: s, Pos: 0, Err: ErrOverflow,
		Msg: fmt.Sprintf(idtext.MsgOverflow, idtext.QuoteByte(s[0]))}
}

// charError reports the first byte of s that valid rejects.
func charError(s string, want string, valid func(i int, c byte) bool) error {
	pos, msg := idtext.InvalidChar(s, want, valid)
	return &ParseError{Input: s, Pos: pos, Err: ErrCharacter, Msg: msg}
}

// bytesLengthError is the error of [FromBytes] for b, which is not 16 bytes.
func bytesLengthError(b []byte) *ParseError {
	return &ParseError{Input: string(b), Pos: -1, Err: ErrLength,
		Msg: "invalid length " + strconv.Itoa(len(b)) + ", want 16 bytes"}
}

// isHex reports whether c is a hex digit.
func isHex(_ int, c byte) bool { return idtext.IsHex(c) }

// String returns the canonical 26-character Crockford base32 form, in upper
// case.
func (u ULID) String() string {
	var b [base32Len]byte
	idtext.Upper.EncodeID((*[16]byte)(&u), &b)
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
	idtext.Upper.EncodeID((*[16]byte)(&u), (*[base32Len]byte)(b[n:]))
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
// must be exactly 16 bytes, else the error is a [*ParseError] wrapping
// [ErrLength]; on error u is left unchanged.
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
	return idtext.MarshalJSON(base32Len, u.AppendText)
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

// encodeUUID writes the 36-character UUID form of u into b.
func (u ULID) encodeUUID(b *[uuidLen]byte) { idtext.EncodeUUID((*[16]byte)(&u), b) }
