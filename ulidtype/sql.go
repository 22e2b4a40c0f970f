package ulidtype

import (
	"database/sql/driver"
	"errors"
	"fmt"
	"strconv"

	"github.com/pgid/pgid/internal/idtext"
	"github.com/pgid/pgid/internal/nullid"
)

// Errors of Scan, besides the [*ParseError] of a text that is no ULID. Test
// for them with [errors.Is].
var (
	// ErrNull: SQL NULL was scanned into a plain ULID; use [NullULID],
	// sql.Null[ULID] or *ULID for nullable columns. (JSON null leaves a plain
	// ULID unchanged, as encoding/json does for other values.)
	ErrNull = errors.New("ulidtype: NULL")
	// ErrScanType: Scan was given a Go type that cannot hold a ULID.
	ErrScanType = errors.New("ulidtype: unsupported scan source")
)

// Scan implements the [database/sql.Scanner] interface. It accepts what every
// PostgreSQL driver hands back for a uuid column: a string or []byte holding
// 36 (UUID), 32 (hex) or 26 (base32) characters, or the raw 16 bytes as a
// []byte (a bytea, or a uuid in binary). A string is always text: 16
// characters are not raw bytes. NULL is an error wrapping [ErrNull]: scan
// nullable columns into [NullULID], sql.Null[ULID] or *ULID. On error u is
// left unchanged.
func (u *ULID) Scan(src any) error {
	switch src := src.(type) {
	case string:
		return parse(src, u)
	case []byte:
		switch len(src) {
		case len(u):
			*u = ULID(src)
			return nil
		case base32Len, uuidLen, hexLen:
			return parse(src, u)
		}
		if src == nil {
			return errNullULID
		}
		return &ParseError{
			Input: string(src), Pos: -1, Err: ErrLength,
			Msg: "invalid length " + strconv.Itoa(len(src)) + ", want 16 (raw bytes), 26 (base32), 36 (UUID) or 32 (hex)",
		}
	case nil:
		return errNullULID
	}
	return fmt.Errorf("%w: cannot scan %T into ULID", ErrScanType, src)
}

// errNullULID is the error for NULL scanned into a plain ULID.
var errNullULID = idtext.NullError(ErrNull, "ULID", "NullULID, sql.Null[ULID] or *ULID")

// Value implements the [database/sql/driver.Valuer] interface. It returns the
// 36-character UUID form, which every driver binds to a uuid column, to a
// pgid.ulid domain column and to a parameter of unknown type alike.
func (u ULID) Value() (driver.Value, error) {
	return u.UUIDString(), nil
}

// NullULID is a ULID that may be NULL. It works as a database/sql and pgx
// argument and scan target, and as JSON, where null means not Valid.
type NullULID struct {
	ULID  ULID
	Valid bool // Valid is true if ULID is not NULL
}

// Scan implements the [database/sql.Scanner] interface. NULL (nil, or a nil
// []byte) sets Valid to false; every other input is scanned as by
// [ULID.Scan]. On error n is left unchanged.
func (n *NullULID) Scan(src any) error {
	return nullid.Scan(&n.ULID, &n.Valid, src, (*ULID).Scan)
}

// Value implements the [database/sql/driver.Valuer] interface.
func (n NullULID) Value() (driver.Value, error) {
	return nullid.Value(n.ULID, n.Valid, ULID.Value)
}

// String returns the ULID's canonical form if Valid, else "NULL".
func (n NullULID) String() string { return nullid.String(n.ULID, n.Valid, ULID.String) }

// MarshalJSON implements the [encoding/json.Marshaler] interface: null if not
// Valid, else the ULID's canonical string.
func (n NullULID) MarshalJSON() ([]byte, error) {
	return nullid.MarshalJSON(n.ULID, n.Valid, ULID.MarshalJSON)
}

// UnmarshalJSON implements the [encoding/json.Unmarshaler] interface: null
// sets Valid to false; a string is parsed as by [ULID.UnmarshalJSON]. On
// error n is left unchanged.
func (n *NullULID) UnmarshalJSON(data []byte) error {
	return nullid.UnmarshalJSON(&n.ULID, &n.Valid, data, (*ULID).UnmarshalJSON)
}
