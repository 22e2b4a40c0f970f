package objectidtype

import (
	"database/sql/driver"
	"errors"
	"fmt"

	"github.com/pgid/pgid/internal/pgarray"
)

// Slice is a []ObjectID that database/sql binds and scans as a PostgreSQL
// array (bytea[], pgid.objectid[]), through pgx stdlib and lib/pq alike, with
// no pq.Array (which cannot write bytea) or SQLScanner wrapper:
//
//	rows.Scan((*objectidtype.Slice)(&ids)) // or var ids objectidtype.Slice
//	db.QueryContext(ctx, "… WHERE id = ANY($1)", objectidtype.Slice(ids))
//
// A NULL array scans as a nil Slice and a nil Slice is bound as NULL. A NULL
// element is an error wrapping [ErrNull]: use [NullSlice] for those.
type Slice []ObjectID

// NullSlice is a []NullObjectID that database/sql binds and scans as a
// PostgreSQL array whose elements may be NULL, as [Slice] does.
type NullSlice []NullObjectID

// ErrArray: the text given to [Slice.Scan] or [NullSlice.Scan] is not a
// one-dimensional PostgreSQL array. Test for it with [errors.Is].
var ErrArray = errors.New("objectidtype: invalid array")

// errNullElem is the error for a NULL element scanned into a Slice.
var errNullElem = fmt.Errorf("%w element: use NullSlice for an array with NULL elements", ErrNull)

// Scan implements the [database/sql.Scanner] interface for a one-dimensional
// array as drivers hand it over: text, of a bytea[] in PostgreSQL's hex
// output (\x and 24 hex digits) or a text[] of the forms [Parse] takes, or
// binary (pgx). Syntax errors wrap [ErrArray]. On error s is left unchanged.
func (s *Slice) Scan(src any) error {
	return pgarray.ScanSlice((*[]ObjectID)(s), src, ErrArray, ErrScanType, "Slice", func(data []byte, null, raw bool) (o ObjectID, err error) {
		return o, o.scanElem(data, null, raw)
	})
}

// Value implements the [database/sql/driver.Valuer] interface: the text of a
// bytea[], {"\\x…",…}, or nil (NULL) for a nil Slice.
func (s Slice) Value() (driver.Value, error) {
	return pgarray.SliceValue(s == nil, len(s), byteaTextLen, true, func(b []byte, i int) ([]byte, bool) { return s[i].appendByteaText(b), false })
}

// Scan implements the [database/sql.Scanner] interface as [Slice.Scan] does,
// with NULL elements as NullObjectIDs that are not Valid.
func (s *NullSlice) Scan(src any) error {
	return pgarray.ScanSlice((*[]NullObjectID)(s), src, ErrArray, ErrScanType, "NullSlice", func(data []byte, null, raw bool) (n NullObjectID, err error) {
		if n.Valid = !null; null {
			return n, nil
		}
		return n, n.ObjectID.scanElem(data, false, raw)
	})
}

// Value implements the [database/sql/driver.Valuer] interface as
// [Slice.Value] does, with NULL for the elements that are not Valid.
func (s NullSlice) Value() (driver.Value, error) {
	return pgarray.SliceValue(s == nil, len(s), byteaTextLen, true, func(b []byte, i int) ([]byte, bool) { return s[i].ObjectID.appendByteaText(b), !s[i].Valid })
}

// scanElem stores an array element into o: the 12 bytes of a binary bytea
// element if raw, else a text form. A NULL element is an error.
func (o *ObjectID) scanElem(data []byte, null, raw bool) error {
	if null {
		return errNullElem
	}
	if raw {
		return o.scanBytes(data)
	}
	return o.scanText(string(data))
}

// appendByteaText appends o as a bytea in hex, escaped for an array
// element: \\x and 24 hex digits.
func (o ObjectID) appendByteaText(b []byte) []byte {
	b, _ = o.AppendText(append(b, `\\x`...))
	return b
}
