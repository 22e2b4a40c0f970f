package typeid

import (
	"database/sql/driver"
	"fmt"

	"github.com/pgid/pgid/internal/idtext"
)

// uuidTextLen is the length of the 36-character UUID form.
const uuidTextLen = 36

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
	if len(s) != uuidTextLen || s[8] != '-' {
		return parse(prefix, s, dst)
	}
	var v [16]byte
	var bad byte
	for i, p := range uuidPairs {
		hi, lo := idtext.HexValue[s[p]], idtext.HexValue[s[p+1]]
		bad |= hi | lo
		v[i] = hi<<4 | lo
	}
	if bad&0xF0 == 0 && s[13] == '-' && s[18] == '-' && s[23] == '-' {
		*dst = v
		return nil
	}
	in := string(s)
	pos, msg := idtext.InvalidChar(in, "hex digit or a hyphen at 8, 13, 18 and 23 (a UUID)", func(i int, c byte) bool {
		if i == 8 || i == 13 || i == 18 || i == 23 {
			return c == '-'
		}
		return idtext.IsHex(c)
	})
	return &ParseError{Input: in, Pos: pos, Err: ErrCharacter, Msg: msg}
}

// uuidPairs holds the offsets of the 16 hex pairs in the UUID text.
var uuidPairs = [16]int{0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34}

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
	if b, isBytes := src.([]byte); src == nil || isBytes && b == nil {
		*n = NullID[P]{}
		return nil
	}
	v := n.ID
	if err := v.Scan(src); err != nil {
		return err
	}
	*n = NullID[P]{ID: v, Valid: true}
	return nil
}

// Value implements the [database/sql/driver.Valuer] interface.
func (n NullID[P]) Value() (driver.Value, error) {
	if !n.Valid {
		return nil, nil
	}
	return n.ID.Value()
}

// String returns the ID's TypeID text if Valid, else "NULL".
func (n NullID[P]) String() string {
	if !n.Valid {
		return "NULL"
	}
	return n.ID.String()
}

// MarshalJSON implements the [encoding/json.Marshaler] interface: null if not
// Valid, else the ID's TypeID text as a JSON string.
func (n NullID[P]) MarshalJSON() ([]byte, error) {
	if !n.Valid {
		return []byte("null"), nil
	}
	return n.ID.MarshalJSON()
}

// UnmarshalJSON implements the [encoding/json.Unmarshaler] interface: null
// sets Valid to false; a string is parsed as by [ID.UnmarshalJSON]. On error
// n is left unchanged.
func (n *NullID[P]) UnmarshalJSON(data []byte) error {
	if string(data) == "null" {
		*n = NullID[P]{}
		return nil
	}
	v := n.ID
	if err := v.UnmarshalJSON(data); err != nil {
		return err
	}
	*n = NullID[P]{ID: v, Valid: true}
	return nil
}
