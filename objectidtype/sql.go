package objectidtype

import (
	"database/sql/driver"
	"errors"
	"fmt"
	"strconv"

	"github.com/pgid/pgid/internal/idtext"
	"github.com/pgid/pgid/internal/nullid"
)

// Errors of Scan, besides the [*ParseError] of a value that is no ObjectID.
// Test for them with [errors.Is].
var (
	// ErrNull: SQL NULL was scanned into a plain ObjectID or ShortID; use
	// [NullObjectID], sql.Null[ObjectID] or *ObjectID (*ShortID) for
	// nullable columns. (JSON null leaves a plain ObjectID unchanged, as
	// encoding/json does for other values.)
	ErrNull = errors.New("objectidtype: NULL")
	// ErrScanType: Scan was given a Go type that cannot hold an ObjectID.
	ErrScanType = errors.New("objectidtype: unsupported scan source")
)

// Scan implements the [database/sql.Scanner] interface. Drivers (pgx's
// stdlib and lib/pq alike) hand a bytea to Scan as a []byte and text as a
// string, so Scan tells them apart by Go type: a []byte must be the 12 raw
// bytes of a bytea (any other length wraps [ErrLength], even 24 hex digits);
// a string must be a form [Parse] takes, or a bytea's text, `\x` and 24 hex
// digits. NULL is an error wrapping [ErrNull]: scan nullable columns into
// [NullObjectID], sql.Null[ObjectID] or *ObjectID. On error o is left
// unchanged.
func (o *ObjectID) Scan(src any) error {
	switch src := src.(type) {
	case []byte:
		return o.scanBytes(src)
	case string:
		return o.scanText(src)
	case nil:
		return errNullObjectID
	}
	return fmt.Errorf("%w: cannot scan %T into ObjectID", ErrScanType, src)
}

// byteaTextLen is the length of PostgreSQL's hex text for a 12-byte bytea:
// `\x` and 24 hex digits.
const byteaTextLen = 2 + hexLen

// scanBytes stores the 12 raw bytes of a bytea value, src, into o. It serves
// Scan and ScanBytes.
func (o *ObjectID) scanBytes(src []byte) error {
	if len(src) == len(o) {
		*o = ObjectID(src)
		return nil
	}
	if src == nil {
		return errNullObjectID
	}
	return &ParseError{
		Input: string(src), Pos: -1, Err: ErrLength,
		Msg: "invalid length " + strconv.Itoa(len(src)) + ", want the 12 raw bytes of a bytea (text forms are read from text, not bytea)",
	}
}

// scanText stores the ObjectID that the text value s holds into o: a form
// [Parse] takes, or `\x` and 24 hex digits. It serves Scan and ScanText.
func (o *ObjectID) scanText(s string) error {
	switch len(s) {
	case byteaTextLen:
		var v ObjectID
		if s[0] == '\\' && s[1] == 'x' && idtext.DecodeHex(s[2:], v[:]) {
			*o = v
			return nil
		}
		return charError(s, `bytea's hex text (\x and 24 hex digits)`, isByteaTextChar)
	case hexLen, shortLen:
		return parse(s, o)
	}
	return &ParseError{
		Input: s, Pos: -1, Err: ErrLength,
		Msg: "invalid length " + strconv.Itoa(len(s)) + `, want 24 (hex), 16 (short form) or 26 (\x and hex, a bytea's text)`,
	}
}

// isByteaTextChar reports whether c may stand at offset i of a 12-byte
// bytea's hex text.
func isByteaTextChar(i int, c byte) bool {
	switch i {
	case 0:
		return c == '\\'
	case 1:
		return c == 'x'
	}
	return idtext.IsHex(c)
}

// The errors for NULL scanned into a plain ObjectID or ShortID. A ShortID's
// advice differs: NullObjectID would do for the database but not for JSON,
// where it writes hex.
var (
	errNullObjectID = idtext.NullError(ErrNull, "ObjectID", "NullObjectID, sql.Null[ObjectID] or *ObjectID")
	errNullShortID  = idtext.NullError(ErrNull, "ShortID", "*ShortID or sql.Null[ShortID]")
)

// shortErr is err from an ObjectID scan as a ShortID scan reports it.
func shortErr(err error) error {
	if err == errNullObjectID {
		return errNullShortID
	}
	return err
}

// Value implements the [database/sql/driver.Valuer] interface. It returns the
// raw 12 bytes, the one form that binds correctly to a plain bytea parameter
// in every driver (lib/pq hex-encodes a []byte for bytea's OID; pgx sends it
// as bytea). With lib/pq, cast a pgid.objectid domain parameter ($1::bytea)
// or connect with binary_parameters=yes: otherwise it sends the bytes raw as
// text, which the server refuses or, in EUC_JP, EUC_KR and EUC_CN databases,
// may store as another ID (docs/DRIVERS.md).
func (o ObjectID) Value() (driver.Value, error) {
	return o[:], nil
}

// NullObjectID is an ObjectID that may be NULL. It works as a database/sql
// and pgx argument and scan target, and as JSON, where null means not Valid.
type NullObjectID struct {
	ObjectID ObjectID
	Valid    bool // Valid is true if ObjectID is not NULL
}

// Scan implements the [database/sql.Scanner] interface. NULL (nil, or a nil
// []byte) sets Valid to false; every other input is scanned as by
// [ObjectID.Scan]. On error n is left unchanged.
func (n *NullObjectID) Scan(src any) error {
	return nullid.Scan(&n.ObjectID, &n.Valid, src, (*ObjectID).Scan)
}

// Value implements the [database/sql/driver.Valuer] interface: nil if not
// Valid, else the raw 12 bytes.
func (n NullObjectID) Value() (driver.Value, error) {
	return nullid.Value(n.ObjectID, n.Valid, ObjectID.Value)
}

// String returns the ObjectID's canonical form if Valid, else "NULL".
func (n NullObjectID) String() string { return nullid.String(n.ObjectID, n.Valid, ObjectID.String) }

// MarshalJSON implements the [encoding/json.Marshaler] interface: null if not
// Valid, else the ObjectID's hex string.
func (n NullObjectID) MarshalJSON() ([]byte, error) {
	return nullid.MarshalJSON(n.ObjectID, n.Valid, ObjectID.MarshalJSON)
}

// UnmarshalJSON implements the [encoding/json.Unmarshaler] interface: null
// sets Valid to false; a string is parsed as by [ObjectID.UnmarshalJSON]. On
// error n is left unchanged.
func (n *NullObjectID) UnmarshalJSON(data []byte) error {
	return nullid.UnmarshalJSON(&n.ObjectID, &n.Valid, data, (*ObjectID).UnmarshalJSON)
}

// Scan implements the [database/sql.Scanner] interface, as [ObjectID.Scan]
// does; NULL is an error that advises *ShortID.
func (s *ShortID) Scan(src any) error { return shortErr((*ObjectID)(s).Scan(src)) }

// Value implements the [database/sql/driver.Valuer] interface: the raw 12
// bytes, as [ObjectID.Value] returns.
func (s ShortID) Value() (driver.Value, error) { return ObjectID(s).Value() }
