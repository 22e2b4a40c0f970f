package idtext

// The wording of parse errors that the Go parsers and the SQL ones share:
// go generate ./migrations writes it into migrations/functions/01_errors.sql
// (pgid._parse_error, pgid._typeid_error), and a test compares the messages
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
