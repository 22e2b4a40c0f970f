package objectidtype

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"

	"github.com/pgid/pgid/internal/idtext"
)

// Errors a parse returns, wrapped in a [*ParseError]: from [Parse], the
// Unmarshal methods, [FromBytes] and Scan. Test for them with [errors.Is].
var (
	// ErrLength: the input has a length that no ObjectID form has.
	ErrLength = errors.New("objectidtype: invalid length")
	// ErrCharacter: the input holds a character its form does not allow.
	ErrCharacter = errors.New("objectidtype: invalid character")
)

// ParseError describes why an input is not an ObjectID. It wraps
// [ErrLength] or [ErrCharacter].
type ParseError struct {
	Input string // the complete input
	Pos   int    // byte offset of the offending character, or -1
	Msg   string // what is wrong and where
	Err   error  // the sentinel
}

// Error returns a message such as
// `objectidtype: parse "4e70zzcb7cac81af7136236b": invalid character 'z' at
// position 4, want a hex digit`.
func (e *ParseError) Error() string {
	return idtext.ParseErrorText("objectidtype", e.Input, e.Msg)
}

// Unwrap returns the sentinel error.
func (e *ParseError) Unwrap() error { return e.Err }

// The textual forms of an ObjectID and their lengths.
const (
	hexLen   = 24 // lower-case hex, the canonical form
	shortLen = 16 // the URL-safe short form
)

// shortEncoding encodes 12 bytes as exactly 16 characters of 6 bits each,
// most significant first, so there is neither padding nor leftover bits.
var shortEncoding = base64.NewEncoding(ShortAlphabet).WithPadding(base64.NoPadding).Strict()

// Parse parses an ObjectID in either of its text forms:
//
//   - 24 hex digits, in either case (the canonical form, lower case, is what
//     MongoDB tools print);
//   - the 16-character short form of [ObjectID.Short].
//
// Anything else is rejected: other lengths ([ErrLength]) and characters
// outside the form, including '+', '/' and '=' in the short form
// ([ErrCharacter]).
func Parse(s string) (o ObjectID, err error) {
	err = parseString(s, &o)
	return o, err
}

// parseString is parse for strings, kept out of line so that Parse inlines
// into its callers without the generic call: inlined into another package,
// that call would move the result to the heap. (ulidtype.Parse does the
// same.)
//
//go:noinline
func parseString(s string, o *ObjectID) error { return parse(s, o) }

// MustParse is like [Parse] but panics on error. It is meant for constants in
// tests and initializers.
func MustParse(s string) ObjectID {
	o, err := Parse(s)
	if err != nil {
		panic(err)
	}
	return o
}

// parse decodes s, in either text form, into *o. It serves both strings and
// byte slices without copying either, and writes *o only on success.
func parse[T string | []byte](s T, o *ObjectID) error {
	switch len(s) {
	case hexLen:
		var v ObjectID
		if idtext.DecodeHex(s, v[:]) {
			*o = v
			return nil
		}
	case shortLen:
		var a [shortLen]byte // base64 decodes from a []byte
		copy(a[:], s)
		if v, ok := decodeShort(&a); ok {
			*o = v
			return nil
		}
	}
	return parseError(string(s))
}

// decodeShort decodes the 16 short-form characters in a and reports whether
// they all were in the alphabet. It is not generic: parse copies the input
// into a (base64 decodes from a []byte), and a non-generic call here keeps
// Parse of the short form as fast as before the shared parse (one call
// layer fewer, measured 2-4 ns).
func decodeShort(a *[shortLen]byte) (o ObjectID, ok bool) {
	// Decode skips '\r' and '\n', so a valid result also needs all 12 bytes.
	n, err := shortEncoding.Decode(o[:], a[:])
	return o, err == nil && n == len(o)
}

// parseError says why s, which parse rejected, is not an ObjectID.
func parseError(s string) error {
	switch len(s) {
	case hexLen:
		return charError(s, idtext.HexWant, func(_ int, c byte) bool { return idtext.IsHex(c) })
	case shortLen:
		return charError(s, idtext.ShortWant,
			func(_ int, c byte) bool { return strings.IndexByte(ShortAlphabet, c) >= 0 })
	}
	return &ParseError{
		Input: s, Pos: -1, Err: ErrLength,
		Msg: "invalid length " + strconv.Itoa(len(s)) + ", want 24 (hex) or 16 (short form)",
	}
}

// bytesLengthError is the error of [FromBytes] for b, which is not 12 bytes.
func bytesLengthError(b []byte) *ParseError {
	return &ParseError{Input: string(b), Pos: -1, Err: ErrLength,
		Msg: "invalid length " + strconv.Itoa(len(b)) + ", want 12 bytes"}
}

// charError reports the first byte of s that valid rejects.
func charError(s string, want string, valid func(i int, c byte) bool) error {
	pos, msg := idtext.InvalidChar(s, want, valid)
	return &ParseError{Input: s, Pos: pos, Err: ErrCharacter, Msg: msg}
}

// String returns the canonical form: 24 lower-case hex digits.
func (o ObjectID) String() string {
	var b [hexLen]byte
	idtext.EncodeHex12((*[12]byte)(&o), &b)
	return string(b[:])
}

// Hex returns the 24 lower-case hex digits of o, as [ObjectID.String] does.
// It is named after the method MongoDB drivers use for the same thing.
func (o ObjectID) Hex() string { return o.String() }

// Short returns the 16-character URL-safe short form of o: the 96 bits cut
// into 16 groups of 6 bits, most significant first, each written as one
// character of 0-9, a-z, A-Z, '-' and '_' (in that order of value). For
// example 4e7020cb7cac81af7136236b is jD0wOTOIwqZNdydH.
//
// The short form is not order-preserving: its alphabet is not in ASCII order
// ('-' and '_' are the largest values, digits sort before upper-case letters
// that sort before lower-case ones), so short forms do not sort like the IDs.
// Sort and compare ObjectIDs, or their hex forms, never their short forms.
func (o ObjectID) Short() string {
	var b [shortLen]byte
	shortEncoding.Encode(b[:], o[:])
	return string(b[:])
}

// AppendText implements the [encoding.TextAppender] interface: it appends the
// 24 lower-case hex digits of o to b.
func (o ObjectID) AppendText(b []byte) ([]byte, error) {
	b = slices.Grow(b, hexLen)
	n := len(b)
	b = b[:n+hexLen]
	idtext.EncodeHex12((*[12]byte)(&o), (*[hexLen]byte)(b[n:]))
	return b, nil
}

// MarshalText implements the [encoding.TextMarshaler] interface.
func (o ObjectID) MarshalText() ([]byte, error) {
	return o.AppendText(make([]byte, 0, hexLen))
}

// UnmarshalText implements the [encoding.TextUnmarshaler] interface. It
// accepts both forms [Parse] does; on error o is left unchanged.
func (o *ObjectID) UnmarshalText(text []byte) error {
	return parse(text, o)
}

// AppendBinary implements the [encoding.BinaryAppender] interface: it appends
// the 12 bytes of o to b.
func (o ObjectID) AppendBinary(b []byte) ([]byte, error) { return append(b, o[:]...), nil }

// MarshalBinary implements the [encoding.BinaryMarshaler] interface.
func (o ObjectID) MarshalBinary() ([]byte, error) { return o.AppendBinary(make([]byte, 0, len(o))) }

// UnmarshalBinary implements the [encoding.BinaryUnmarshaler] interface. data
// must be exactly 12 bytes, else the error is a [*ParseError] wrapping
// [ErrLength]; on error o is left unchanged.
func (o *ObjectID) UnmarshalBinary(data []byte) error {
	v, err := FromBytes(data)
	if err != nil {
		return err
	}
	*o = v
	return nil
}

// MarshalJSON implements the [encoding/json.Marshaler] interface: a JSON
// string holding the 24 hex digits. For the short form use [ShortID].
func (o ObjectID) MarshalJSON() ([]byte, error) {
	return idtext.MarshalJSON(hexLen, o.AppendText)
}

// UnmarshalJSON implements the [encoding/json.Unmarshaler] interface. It
// accepts a JSON string in either form [Parse] does, and MongoDB Extended
// JSON, {"$oid": "<24 hex digits>"}, as the MongoDB driver writes it. JSON
// null leaves o unchanged and is no error, as encoding/json treats null for
// any non-pointer value (time.Time does the same); to tell null from an ID,
// use [NullObjectID] or *ObjectID. On error o is left unchanged.
func (o *ObjectID) UnmarshalJSON(data []byte) error {
	s, err := idtext.JSONString(data)
	switch {
	case err == idtext.ErrNullJSON:
		return nil
	case err == idtext.ErrNotString && len(data) > 0 && data[0] == '{':
		if s, err = extendedOID(data); err != nil {
			return &ParseError{Input: string(data), Pos: -1, Err: ErrCharacter, Msg: err.Error()}
		}
		return o.UnmarshalText(s)
	case err != nil:
		return &ParseError{Input: string(data), Pos: -1, Err: ErrCharacter, Msg: err.Error() + ` or {"$oid": …}`}
	}
	return o.UnmarshalText(s)
}

// extendedOID returns the hex digits of the Extended JSON object
// {"$oid": "<24 hex digits>"}, which must have no other member.
func extendedOID(data []byte) ([]byte, error) {
	var v struct {
		OID *string `json:"$oid"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&v); err != nil || v.OID == nil || dec.More() {
		return nil, errors.New(`not Extended JSON {"$oid": "<24 hex digits>"}`)
	}
	if len(*v.OID) != hexLen {
		return nil, errors.New(`Extended JSON $oid of ` + strconv.Itoa(len(*v.OID)) + ` characters, want 24 hex digits`)
	}
	return []byte(*v.OID), nil
}

// ShortID is an ObjectID whose text and JSON form is the 16-character short
// form of [ObjectID.Short], for APIs that want short IDs; it converts to and
// from ObjectID at no cost (ShortID(id), ObjectID(short)). Its text and JSON
// decoding accept both forms, like [Parse]. Use *ShortID for a nullable JSON
// field or column: JSON null leaves a plain ShortID unchanged, and
// NullObjectID would write hex. In databases it is stored exactly like an
// ObjectID. The short form does not sort like the ID: compare ObjectIDs.
type ShortID ObjectID

// String returns the 16-character short form.
func (s ShortID) String() string { return ObjectID(s).Short() }

// AppendText implements the [encoding.TextAppender] interface: it appends the
// 16-character short form to b.
func (s ShortID) AppendText(b []byte) ([]byte, error) {
	return shortEncoding.AppendEncode(b, s[:]), nil
}

// MarshalText implements the [encoding.TextMarshaler] interface.
func (s ShortID) MarshalText() ([]byte, error) {
	return s.AppendText(make([]byte, 0, shortLen))
}

// UnmarshalText implements the [encoding.TextUnmarshaler] interface. It
// accepts both forms [Parse] does; on error s is left unchanged.
func (s *ShortID) UnmarshalText(text []byte) error { return (*ObjectID)(s).UnmarshalText(text) }

// MarshalJSON implements the [encoding/json.Marshaler] interface: a JSON
// string holding the short form.
func (s ShortID) MarshalJSON() ([]byte, error) {
	return idtext.MarshalJSON(shortLen, s.AppendText)
}

// UnmarshalJSON implements the [encoding/json.Unmarshaler] interface, as
// [ObjectID.UnmarshalJSON] does.
func (s *ShortID) UnmarshalJSON(data []byte) error { return (*ObjectID)(s).UnmarshalJSON(data) }
