package typeid

import (
	"database/sql/driver"
	"errors"
	"fmt"

	"github.com/pgid/pgid/internal/idtext"
	"github.com/pgid/pgid/internal/nullid"
	"github.com/pgid/pgid/ulidtype"
)

// Errors of Scan, besides the [*ParseError] of a text that is no ID. Test for
// them with [errors.Is].
var (
	// ErrNull: SQL NULL was scanned into a plain ID; use [NullID],
	// sql.Null[ID[P]] or *ID[P] for nullable columns.
	ErrNull = errors.New("typeid: NULL")
	// ErrScanType: Scan was given a Go type that cannot hold an ID.
	ErrScanType = errors.New("typeid: unsupported scan source")
)

// uuidTextLen is the length of the 36-character UUID form.
const uuidTextLen = idtext.UUIDLen

// Scan implements the [database/sql.Scanner] interface. It accepts what a
// PostgreSQL driver hands back for a uuid or pgid.ulid column, the 36-character
// UUID text as a string or []byte or the raw 16 bytes as a []byte, and the
// TypeID text of P from a text column (checked as by [Parse]). NULL is an
// error wrapping [ErrNull]: scan nullable columns into [NullID],
// sql.Null[ID[P]] or *ID[P]. On error id is left unchanged.
func (id *ID[P]) Scan(src any) error {
	switch src := src.(type) {
	case string:
		return scanText(src, &id.b, prefixOf[P]())
	case []byte:
		if len(src) == len(id.b) {
			id.b = [16]byte(src)
			return nil
		}
		if src == nil {
			return errNullID
		}
		return scanText(src, &id.b, prefixOf[P]())
	case nil:
		return errNullID
	}
	return fmt.Errorf("%w: cannot scan %T into a TypeID", ErrScanType, src)
}

// scanText decodes s, a UUID's 36-character text (a hyphen at offset 8,
// which no TypeID has there) or else TypeID text of prefix, into *dst.
func scanText[T string | []byte](s T, dst *[16]byte, prefix string) error {
	if !isUUIDText(s) {
		return parse(prefix, s, dst)
	}
	if idtext.DecodeUUID(s, dst) {
		return nil
	}
	_, err := ulidtype.Parse(string(s))
	return fromULIDError(err)
}

// fromULIDError is err, a [*ulidtype.ParseError], as this package's: the
// same input, position and message, wrapping this package's sentinel.
func fromULIDError(err error) error {
	var e *ulidtype.ParseError
	if !errors.As(err, &e) {
		return err
	}
	sentinel := ErrCharacter
	switch e.Err {
	case ulidtype.ErrLength:
		sentinel = ErrLength
	case ulidtype.ErrOverflow:
		sentinel = ErrOverflow
	}
	return &ParseError{Input: e.Input, Pos: e.Pos, Msg: e.Msg, Err: sentinel}
}

// isUUIDText reports whether s has the shape of the 36-character UUID text
// (a hyphen at offset 8, which no TypeID has there).
func isUUIDText[T string | []byte](s T) bool { return len(s) == uuidTextLen && s[8] == '-' }

// errNullID is the error for NULL scanned into a plain ID.
var errNullID = idtext.NullError(ErrNull, "a TypeID", "NullID, sql.Null[ID[P]] or *ID[P]")

// Value implements the [database/sql/driver.Valuer] interface. It returns the
// 36-character UUID text, which every driver binds to a uuid column, to a
// pgid.ulid domain column and to a parameter of unknown type alike.
func (id ID[P]) Value() (driver.Value, error) {
	return id.UUIDString(), nil
}

// NullID is an ID that may be NULL. It works as a database/sql and pgx
// argument and scan target, and as JSON, where null means not Valid.
type NullID[P Prefix] struct {
	ID    ID[P]
	Valid bool // Valid is true if ID is not NULL
}

// Scan implements the [database/sql.Scanner] interface. NULL (nil, or a nil
// []byte) sets Valid to false; every other input is scanned as by
// [ID.Scan]. On error n is left unchanged.
func (n *NullID[P]) Scan(src any) error {
	return nullid.Scan(&n.ID, &n.Valid, src, (*ID[P]).Scan)
}

// Value implements the [database/sql/driver.Valuer] interface.
func (n NullID[P]) Value() (driver.Value, error) {
	return nullid.Value(n.ID, n.Valid, ID[P].Value)
}

// String returns the ID's TypeID text if Valid, else "NULL".
func (n NullID[P]) String() string { return nullid.String(n.ID, n.Valid, ID[P].String) }

// MarshalJSON implements the [encoding/json.Marshaler] interface: null if not
// Valid, else the ID's TypeID text as a JSON string.
func (n NullID[P]) MarshalJSON() ([]byte, error) {
	return nullid.MarshalJSON(n.ID, n.Valid, ID[P].MarshalJSON)
}

// UnmarshalJSON implements the [encoding/json.Unmarshaler] interface: null
// sets Valid to false; a string is parsed as by [ID.UnmarshalJSON]. On error
// n is left unchanged.
func (n *NullID[P]) UnmarshalJSON(data []byte) error {
	return nullid.UnmarshalJSON(&n.ID, &n.Valid, data, (*ID[P]).UnmarshalJSON)
}
