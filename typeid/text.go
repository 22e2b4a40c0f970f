package typeid

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/pgid/pgid/internal/idtext"
)

// ParseError describes why an input is not a TypeID of the wanted type. It
// wraps one of [ErrPrefix], [ErrWrongPrefix], [ErrLength], [ErrCharacter] or
// [ErrOverflow].
type ParseError struct {
	Input string // the complete input
	Pos   int    // byte offset of the offending character, or -1
	Msg   string // what is wrong and where
	Err   error  // the sentinel
}

// Error returns a message such as
// `typeid: parse "order_01h455vb4pex5vsknk084sn02q": prefix "order", want "user"`.
func (e *ParseError) Error() string {
	return idtext.ParseErrorText("typeid", e.Input, e.Msg)
}

// Unwrap returns the sentinel error.
func (e *ParseError) Unwrap() error { return e.Err }

// Errors of a prefix, wrapped in a [*ParseError] by [Parse], [ParseAny],
// [ValidPrefix], the Unmarshal methods and Scan. Test for them with
// [errors.Is].
var (
	// ErrPrefix: a prefix, in the input or of the type P, breaks the
	// specification's rules: at most 63 characters of a-z and _, starting
	// and ending with a letter; or the input has a separator but no prefix.
	ErrPrefix = errors.New("typeid: invalid prefix")
	// ErrWrongPrefix: the input is a well-formed TypeID of another type: its
	// prefix is not the type's. The message names both prefixes.
	ErrWrongPrefix = errors.New("typeid: wrong prefix")
)

// ValidPrefix returns nil if p may be a TypeID prefix: empty, or 1 to 63
// characters of a-z and _ that start and end with a letter. Otherwise the
// error wraps [ErrPrefix] and names the problem. Call it once on a prefix
// type's Prefix(), in a test or an init, to catch a typo before any ID is
// written.
func ValidPrefix(p string) error {
	if validPrefix(p) {
		return nil
	}
	return prefixError(p, p, true, "the type's prefix")
}

// validPrefix reports whether p follows the specification's prefix rules.
func validPrefix[T string | []byte](p T) bool {
	n := len(p)
	if n == 0 {
		return true
	}
	if n > maxPrefixLen || p[0] == '_' || p[n-1] == '_' {
		return false
	}
	for i := range n {
		if c := p[i]; (c < 'a' || c > 'z') && c != '_' {
			return false
		}
	}
	return true
}

// prefixError describes why prefix p breaks the rules; what says whose
// prefix it is. Positions in the message count from the start of p; if p is
// the input's own prefix (inInput), which starts the input, they are also
// the error's Pos, else Pos is -1.
func prefixError(input, p string, inInput bool, what string) *ParseError {
	e := &ParseError{Input: input, Pos: -1, Err: ErrPrefix}
	at := func(i int) string {
		if inInput {
			e.Pos = i
		}
		return strconv.Itoa(i)
	}
	switch {
	case len(p) > maxPrefixLen:
		e.Msg = fmt.Sprintf(idtext.TypeIDTooLong, what, strconv.Itoa(len(p)))
	case p[0] == '_':
		e.Msg = fmt.Sprintf(idtext.TypeIDStarts, what, at(0))
	default:
		for i := range len(p) {
			if c := p[i]; (c < 'a' || c > 'z') && c != '_' {
				e.Msg = fmt.Sprintf(idtext.TypeIDPrefixChar, idtext.QuoteByte(c), at(i), what)
				return e
			}
		}
		e.Msg = fmt.Sprintf(idtext.TypeIDEnds, what, at(len(p)-1))
	}
	return e
}

// Parse parses the TypeID text of an ID of type P: P's prefix, '_' and 26
// lower-case base32 characters, or the 26 characters alone if the prefix is
// empty. It is strict, as the specification v0.3.0 asks: another prefix
// fails with [ErrWrongPrefix] naming both, a malformed one with [ErrPrefix],
// a suffix of another length with [ErrLength], upper case or a character
// outside the alphabet with [ErrCharacter] and a first suffix character
// above '7' with [ErrOverflow]. Any UUID version is accepted.
func Parse[P Prefix](s string) (id ID[P], err error) {
	err = parse(prefixOf[P](), s, &id.b)
	return id, err
}

// MustParse is like [Parse] but panics on error. It is meant for constants
// in tests and initializers.
func MustParse[P Prefix](s string) ID[P] {
	id, err := Parse[P](s)
	if err != nil {
		panic(err)
	}
	return id
}

// parse decodes the TypeID text s of prefix into *dst, which it writes only
// on success. It serves strings and byte slices alike without copying.
func parse[T string | []byte](prefix string, s T, dst *[16]byte) error {
	n := len(prefix)
	if n == 0 {
		if len(s) == suffixLen && decodeSuffix(s, 0, dst) {
			return nil
		}
	} else if len(s) == n+1+suffixLen && s[n] == '_' && hasPrefix(s, prefix) && validPrefix(prefix) &&
		decodeSuffix(s, n+1, dst) {
		return nil
	}
	return parseError(string(s), prefix)
}

// hasPrefix reports whether s starts with p; the caller has checked that s
// is long enough.
func hasPrefix[T string | []byte](s T, p string) bool {
	for i := range len(p) {
		if s[i] != p[i] {
			return false
		}
	}
	return true
}

// Errors of a suffix or the 16 bytes, wrapped in a [*ParseError] by
// [Parse], [ParseAny], [FromBytes], the Unmarshal methods and Scan. Test for
// them with [errors.Is].
var (
	// ErrLength: the suffix is not 26 characters long, or the input of
	// FromBytes or a binary scan is not 16 bytes.
	ErrLength = errors.New("typeid: invalid length")
	// ErrCharacter: the suffix holds a character outside the lower-case
	// base32 alphabet 0123456789abcdefghjkmnpqrstvwxyz (upper case, i, l, o
	// and u included), or a scanned UUID text a character outside its form.
	ErrCharacter = errors.New("typeid: invalid character")
	// ErrOverflow: the suffix starts with a character above '7', so its
	// value does not fit in 128 bits.
	ErrOverflow = errors.New("typeid: value overflows 128 bits")
)

// decodeSuffix decodes the 26 base32 characters of s from offset off into
// *dst and reports whether they were a suffix: each in the lower-case
// alphabet, the first at most '7'. It writes *dst only if they were.
func decodeSuffix[T string | []byte](s T, off int, dst *[16]byte) bool {
	return idtext.DecodeBase32(&idtext.Lower, s[off:], 7, dst)
}

// suffixWant names the characters of a suffix.
const suffixWant = idtext.LowerBase32Want

// parseError reports why s is not a TypeID of prefix, in the order a reader
// checks: the type's own prefix, the input's prefix and separator, whether
// it is the type's, then the suffix's length, characters and overflow.
func parseError(s, prefix string) error {
	if !validPrefix(prefix) {
		return prefixError(s, prefix, false, "the type's prefix "+strconv.Quote(prefix))
	}
	in, suffix, off := "", s, 0
	if i := strings.LastIndexByte(s, '_'); i >= 0 {
		in, suffix, off = s[:i], s[i+1:], i+1
		if in == "" {
			return &ParseError{Input: s, Pos: 0, Err: ErrPrefix,
				Msg: idtext.TypeIDSeparator}
		}
		if !validPrefix(in) {
			return prefixError(s, in, true, "the prefix")
		}
	}
	if in != prefix {
		return wrongPrefix(s, in, prefix)
	}
	if len(suffix) != suffixLen {
		return &ParseError{Input: s, Pos: -1, Err: ErrLength,
			Msg: fmt.Sprintf(idtext.TypeIDSuffixLength, strconv.Itoa(len(suffix)))}
	}
	if pos, msg, overflow := idtext.Base32Error(&idtext.Lower, s, off, suffixWant); !overflow {
		return &ParseError{Input: s, Pos: pos, Err: ErrCharacter, Msg: msg}
	}
	return &ParseError{Input: s, Pos: off, Err: ErrOverflow,
		Msg: fmt.Sprintf(idtext.TypeIDOverflow, idtext.QuoteByte(suffix[0]), strconv.Itoa(off))}
}

// wrongPrefix is the error for input s, a TypeID of prefix in where one of
// prefix is wanted: it names both.
func wrongPrefix(s, in, prefix string) *ParseError {
	msg := fmt.Sprintf(idtext.TypeIDWrongPrefix, strconv.Quote(in), strconv.Quote(prefix))
	switch {
	case in == "":
		msg = fmt.Sprintf(idtext.TypeIDNoPrefix, strconv.Quote(prefix))
	case prefix == "":
		msg = fmt.Sprintf(idtext.TypeIDUnwanted, strconv.Quote(in))
	}
	return &ParseError{Input: s, Pos: 0, Err: ErrWrongPrefix, Msg: msg}
}

// String returns the TypeID text: P's prefix, '_' and the 26-character
// suffix, or the suffix alone if the prefix is empty. It does not check the
// prefix; [ID.MarshalText] does.
func (id ID[P]) String() string { return format(prefixOf[P](), &id.b) }

// format returns the TypeID text of prefix p and UUID *u, without checking
// p.
func format(p string, u *[16]byte) string {
	n := len(p)
	if n == 0 || n > maxPrefixLen {
		var b [suffixLen]byte
		idtext.Lower.EncodeID(u, &b)
		if n == 0 {
			return string(b[:])
		}
		return p + "_" + string(b[:])
	}
	var b [maxPrefixLen + 1 + suffixLen]byte
	copy(b[:], p)
	b[n] = '_'
	idtext.Lower.EncodeID(u, (*[suffixLen]byte)(b[n+1:]))
	return string(b[:n+1+suffixLen])
}

// AppendText implements the [encoding.TextAppender] interface: it appends
// the TypeID text to b. If P's prefix breaks the rules it appends nothing
// and returns an error wrapping [ErrPrefix].
func (id ID[P]) AppendText(b []byte) ([]byte, error) {
	p := prefixOf[P]()
	if !validPrefix(p) {
		return b, ValidPrefix(p)
	}
	return appendText(b, p, &id.b), nil
}

// appendText appends the TypeID text of prefix p and UUID *u to b.
func appendText(b []byte, p string, u *[16]byte) []byte {
	if p != "" {
		b = append(b, p...)
		b = append(b, '_')
	}
	n := len(b)
	b = append(b, "00000000000000000000000000"...)
	idtext.Lower.EncodeID(u, (*[suffixLen]byte)(b[n:]))
	return b
}

// MarshalText implements the [encoding.TextMarshaler] interface.
func (id ID[P]) MarshalText() ([]byte, error) {
	return id.AppendText(make([]byte, 0, len(prefixOf[P]())+1+suffixLen))
}

// UnmarshalText implements the [encoding.TextUnmarshaler] interface. It
// accepts what [Parse] does; on error id is left unchanged.
func (id *ID[P]) UnmarshalText(text []byte) error {
	return parse(prefixOf[P](), text, &id.b)
}

// AppendBinary implements the [encoding.BinaryAppender] interface: it
// appends the 16 bytes of id to b.
func (id ID[P]) AppendBinary(b []byte) ([]byte, error) { return append(b, id.b[:]...), nil }

// MarshalBinary implements the [encoding.BinaryMarshaler] interface: the 16
// bytes, without the prefix.
func (id ID[P]) MarshalBinary() ([]byte, error) { return id.AppendBinary(make([]byte, 0, 16)) }

// UnmarshalBinary implements the [encoding.BinaryUnmarshaler] interface.
// data must be exactly 16 bytes, else the error is a [*ParseError] wrapping
// [ErrLength]; on error id is left unchanged.
func (id *ID[P]) UnmarshalBinary(data []byte) error {
	v, err := FromBytes[P](data)
	if err != nil {
		return err
	}
	*id = v
	return nil
}

// MarshalJSON implements the [encoding/json.Marshaler] interface: a JSON
// string holding the TypeID text.
func (id ID[P]) MarshalJSON() ([]byte, error) {
	return idtext.MarshalJSON(len(prefixOf[P]())+1+suffixLen, id.AppendText)
}

// UnmarshalJSON implements the [encoding/json.Unmarshaler] interface. It
// accepts a JSON string holding what [Parse] accepts. JSON null leaves id
// unchanged and is no error, as encoding/json treats null for any
// non-pointer value; to tell null from an ID use [NullID] or *ID[P]. On
// error id is left unchanged.
func (id *ID[P]) UnmarshalJSON(data []byte) error {
	s, null, err := jsonText(data)
	if null || err != nil {
		return err
	}
	return id.UnmarshalText(s)
}

// jsonText returns the text of the JSON string data, or null for JSON null;
// anything else is a *ParseError.
func jsonText(data []byte) (s []byte, null bool, err error) {
	s, err = idtext.JSONString(data)
	if err == idtext.ErrNullJSON {
		return nil, true, nil
	}
	if err != nil {
		return nil, false, &ParseError{Input: string(data), Pos: -1, Err: ErrCharacter, Msg: err.Error()}
	}
	return s, false, nil
}
