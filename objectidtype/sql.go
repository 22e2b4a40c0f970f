package objectidtype

import (
	"database/sql/driver"
	"fmt"
	"strconv"
)

// Scan implements the [database/sql.Scanner] interface. It accepts what a
// PostgreSQL driver hands back for a bytea column, the raw 12 bytes as a
// []byte, and either text form of [Parse] (24 hex digits or 16 short-form
// characters) as a string or []byte, for text columns. Any other length is an
// error wrapping [ErrLength] that names the length. NULL is an error wrapping
// [ErrNull]: scan nullable columns into [NullObjectID], sql.Null[ObjectID] or
// *ObjectID. On error o is left unchanged.
func (o *ObjectID) Scan(src any) error {
	switch src := src.(type) {
	case []byte:
		return o.scanBytes(src)
	case string:
		v, err := parse(src)
		if err != nil {
			return err
		}
		*o = v
		return nil
	case nil:
		return errNull()
	}
	return fmt.Errorf("%w: cannot scan %T into ObjectID", ErrScanType, src)
}

// scanBytes stores the raw 12 bytes of src, or the ObjectID src holds in a
// text form, into o. It serves Scan and ScanBytes.
func (o *ObjectID) scanBytes(src []byte) error {
	switch len(src) {
	case len(o):
		*o = ObjectID(src)
		return nil
	case hexLen, shortLen:
		v, err := parse(src)
		if err != nil {
			return err
		}
		*o = v
		return nil
	}
	if src == nil {
		return errNull()
	}
	return &ParseError{
		Input: string(src), Pos: -1, Err: ErrLength,
		Msg: "invalid length " + strconv.Itoa(len(src)) + ", want 12 (raw bytes), 24 (hex) or 16 (short form)",
	}
}

// errNull is the error for NULL scanned into a plain ObjectID.
func errNull() error {
	return fmt.Errorf("%w: cannot scan NULL into ObjectID; use NullObjectID or *ObjectID", ErrNull)
}

// Value implements the [database/sql/driver.Valuer] interface. It returns the
// raw 12 bytes, which every driver binds to a bytea column, to a
// pgid.objectid domain column and to a parameter of unknown type alike. (A
// string would not do: lib/pq stores a string bound to bytea as its literal
// characters.)
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
	if b, isBytes := src.([]byte); src == nil || isBytes && b == nil {
		*n = NullObjectID{}
		return nil
	}
	v := n.ObjectID
	if err := v.Scan(src); err != nil {
		return err
	}
	*n = NullObjectID{ObjectID: v, Valid: true}
	return nil
}

// Value implements the [database/sql/driver.Valuer] interface: nil if not
// Valid, else the raw 12 bytes.
func (n NullObjectID) Value() (driver.Value, error) {
	if !n.Valid {
		return nil, nil
	}
	return n.ObjectID.Value()
}

// MarshalJSON implements the [encoding/json.Marshaler] interface: null if not
// Valid, else the ObjectID's hex string.
func (n NullObjectID) MarshalJSON() ([]byte, error) {
	if !n.Valid {
		return []byte("null"), nil
	}
	return n.ObjectID.MarshalJSON()
}

// UnmarshalJSON implements the [encoding/json.Unmarshaler] interface: null
// sets Valid to false; a string is parsed as by [ObjectID.UnmarshalJSON]. On
// error n is left unchanged.
func (n *NullObjectID) UnmarshalJSON(data []byte) error {
	if string(data) == "null" {
		*n = NullObjectID{}
		return nil
	}
	v := n.ObjectID
	if err := v.UnmarshalJSON(data); err != nil {
		return err
	}
	*n = NullObjectID{ObjectID: v, Valid: true}
	return nil
}

// Scan implements the [database/sql.Scanner] interface, as [ObjectID.Scan]
// does.
func (s *ShortID) Scan(src any) error { return (*ObjectID)(s).Scan(src) }

// Value implements the [database/sql/driver.Valuer] interface: the raw 12
// bytes, as [ObjectID.Value] returns.
func (s ShortID) Value() (driver.Value, error) { return ObjectID(s).Value() }
