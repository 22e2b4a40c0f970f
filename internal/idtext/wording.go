package idtext

// The wording of parse errors that the Go parsers and the SQL ones share:
// go generate ./migrations writes it into migrations/functions/01_errors.sql
// (pgid._parse_error, pgid._typeid_error), and tests compare the messages
// of both for the same bad input. Each Want names the characters of a form
// after "want a " (see InvalidChar).
const (
	// Base32Want: the characters of a ULID's canonical form.
	Base32Want = "Crockford base32 character (0-9, A-Z without I, L, O, U)"
	// LowerBase32Want: the characters of a TypeID suffix.
	LowerBase32Want = "lower-case base32 character (0-9, a-z without i, l, o, u)"
	// HexWant: a character of hex text.
	HexWant = "hex digit"
	// ShortWant: the characters of an ObjectID's short form.
	ShortWant = "short-form character (0-9, a-z, A-Z, '-' or '_')"
	// Overflow ends the message for base32 text whose first character
	// (quoted before it) is above '7'.
	Overflow = " is above '7', so the value overflows 128 bits"
)

// Messages with arguments: formats for fmt.Sprintf and PostgreSQL's
// format() alike (%s only, every argument a string in Go).
const (
	// MsgChar: the character, its position, what the form wants.
	MsgChar = "invalid character %s at position %s, want a %s"
	// MsgOverflow: the first character of a ULID.
	MsgOverflow = "first character %s" + Overflow
	// TypeIDSeparator: a TypeID that starts with its separator.
	TypeIDSeparator = "separator '_' at position 0 without a prefix (an empty prefix has no separator)"
	// TypeIDTooLong: whose prefix, its length.
	TypeIDTooLong = "%s has %s bytes, want at most 63"
	// TypeIDStarts: whose prefix, the position.
	TypeIDStarts = "%s starts with '_' at position %s, want a letter a-z"
	// TypeIDPrefixChar: the character, its position, whose prefix.
	TypeIDPrefixChar = "invalid character %s at position %s in %s, want a-z or '_'"
	// TypeIDEnds: whose prefix, the position.
	TypeIDEnds = "%s ends with '_' at position %s, want a letter a-z"
	// TypeIDNoPrefix: the wanted prefix, quoted.
	TypeIDNoPrefix = "no prefix, want %s"
	// TypeIDUnwanted: the input's prefix, quoted.
	TypeIDUnwanted = "prefix %s, want none (the type's prefix is empty)"
	// TypeIDWrongPrefix: the input's prefix and the wanted one, quoted.
	TypeIDWrongPrefix = "prefix %s, want %s"
	// TypeIDSuffixLength: the suffix's length in bytes.
	TypeIDSuffixLength = "suffix of %s bytes, want 26"
	// TypeIDOverflow: the first suffix character, its position.
	TypeIDOverflow = "first suffix character %s at position %s" + Overflow
)
