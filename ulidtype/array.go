package ulidtype

import (
	"database/sql/driver"
	"errors"
	"fmt"

	"github.com/pgid/pgid/internal/pgarray"
)

// Slice is a []ULID that database/sql binds and scans as a PostgreSQL array
// (uuid[], pgid.ulid[]), through pgx stdlib and lib/pq alike, with no
// pq.Array or SQLScanner wrapper:
//
//	rows.Scan((*ulidtype.Slice)(&ids)) // or var ids ulidtype.Slice
//	db.QueryContext(ctx, "… WHERE id = ANY($1)", ulidtype.Slice(ids))
//
// A NULL array scans as a nil Slice and a nil Slice is bound as NULL. A NULL
// element is an error wrapping [ErrNull]: use [NullSlice] for those.
type Slice []ULID

// NullSlice is a []NullULID that database/sql binds and scans as a
// PostgreSQL array whose elements may be NULL, as [Slice] does.
type NullSlice []NullULID

// ErrArray: the text given to [Slice.Scan] or [NullSlice.Scan] is not a
// one-dimensional PostgreSQL array. Test for it with [errors.Is].
var ErrArray = errors.New("ulidtype: invalid array")

// errNullElem is the error for a NULL element scanned into a Slice.
var errNullElem = fmt.Errorf("%w element: use NullSlice for an array with NULL elements", ErrNull)

// Scan implements the [database/sql.Scanner] interface for a one-dimensional
// array as drivers hand it over: text, whose elements are in any form
// [Parse] takes, or binary (pgx). Syntax errors wrap [ErrArray]. On error s
// is left unchanged.
func (s *Slice) Scan(src any) error {
	return pgarray.ScanSlice((*[]ULID)(s), src, ErrArray, ErrScanType, "Slice", func(data []byte, null, raw bool) (u ULID, err error) {
		return u, u.scanElem(data, null, raw)
	})
}

// Value implements the [database/sql/driver.Valuer] interface: the array's
// text, {…,…}, with each ULID in the 36-character UUID form, or nil (NULL)
// for a nil Slice.
func (s Slice) Value() (driver.Value, error) {
	return pgarray.SliceValue(s == nil, len(s), uuidLen, false, func(b []byte, i int) ([]byte, bool) { return s[i].appendUUID(b), false })
}

// Scan implements the [database/sql.Scanner] interface as [Slice.Scan] does,
// with NULL elements as NullULIDs that are not Valid.
func (s *NullSlice) Scan(src any) error {
	return pgarray.ScanSlice((*[]NullULID)(s), src, ErrArray, ErrScanType, "NullSlice", func(data []byte, null, raw bool) (n NullULID, err error) {
		if n.Valid = !null; null {
			return n, nil
		}
		return n, n.ULID.scanElem(data, false, raw)
	})
}

// Value implements the [database/sql/driver.Valuer] interface as
// [Slice.Value] does, with NULL for the elements that are not Valid.
func (s NullSlice) Value() (driver.Value, error) {
	return pgarray.SliceValue(s == nil, len(s), uuidLen, false, func(b []byte, i int) ([]byte, bool) { return s[i].ULID.appendUUID(b), !s[i].Valid })
}

// scanElem stores an array element into u: the 16 bytes of a binary uuid
// element if raw, else a text form. A NULL element is an error.
func (u *ULID) scanElem(data []byte, null, raw bool) error {
	switch {
	case null:
		return errNullElem
	case raw:
		return u.UnmarshalBinary(data)
	}
	return parse(data, u)
}

// appendUUID appends the 36-character UUID form of u to b.
func (u ULID) appendUUID(b []byte) []byte {
	var t [uuidLen]byte
	u.encodeUUID(&t)
	return append(b, t[:]...)
}
