package typeid

import (
	"database/sql/driver"
	"errors"
	"fmt"

	"github.com/pgid/pgid/internal/idtext"
	"github.com/pgid/pgid/internal/pgarray"
)

// Slice is a []ID[P] that database/sql binds and scans as a PostgreSQL array
// (uuid[], pgid.ulid[]), through pgx stdlib and lib/pq alike, with no
// pq.Array or SQLScanner wrapper, as [ulidtype.Slice] does for ULIDs:
//
//	var ids typeid.Slice[UserPrefix]
//	rows.Scan(&ids)                                               // array_agg(id), a uuid[]
//	db.QueryContext(ctx, "… WHERE id = ANY($1)", typeid.Slice[UserPrefix](users))
//
// Elements are read from a uuid in any form [ID.Scan] takes, or from P's
// TypeID text (a text[] column); they are written as the UUID text. A NULL
// array scans as a nil Slice and a nil Slice is bound as NULL. A NULL
// element is an error wrapping [ErrNull]: use [NullSlice] for those.
type Slice[P Prefix] []ID[P]

// NullSlice is a []NullID[P] that database/sql binds and scans as a
// PostgreSQL array whose elements may be NULL, as [Slice] does.
type NullSlice[P Prefix] []NullID[P]

// ErrArray: the input of [Slice.Scan] or [NullSlice.Scan] is not a
// one-dimensional PostgreSQL array. Test for it with [errors.Is].
var ErrArray = errors.New("typeid: invalid array")

// errNullElem is the error for a NULL element scanned into a Slice.
var errNullElem = fmt.Errorf("%w element: use NullSlice for an array with NULL elements", ErrNull)

// Scan implements the [database/sql.Scanner] interface for a one-dimensional
// array as drivers hand it over: text, or binary (pgx). Syntax errors wrap
// [ErrArray], element errors name the element and wrap its error. On error
// s is left unchanged.
func (s *Slice[P]) Scan(src any) error {
	return pgarray.ScanSlice((*[]ID[P])(s), src, ErrArray, ErrScanType, "Slice", func(data []byte, null, raw bool) (id ID[P], err error) {
		if null {
			return id, errNullElem
		}
		return id, id.scanElem(data, raw)
	})
}

// Value implements the [database/sql/driver.Valuer] interface: the array's
// text, {…,…}, with each ID in the 36-character UUID form, or nil (NULL) for
// a nil Slice.
func (s Slice[P]) Value() (driver.Value, error) {
	return pgarray.SliceValue(s == nil, len(s), uuidTextLen, false, func(b []byte, i int) ([]byte, bool) {
		return appendUUID(b, &s[i].b), false
	})
}

// Scan implements the [database/sql.Scanner] interface as [Slice.Scan] does,
// with NULL elements as NullIDs that are not Valid.
func (s *NullSlice[P]) Scan(src any) error {
	return pgarray.ScanSlice((*[]NullID[P])(s), src, ErrArray, ErrScanType, "NullSlice", func(data []byte, null, raw bool) (n NullID[P], err error) {
		if n.Valid = !null; null {
			return n, nil
		}
		return n, n.ID.scanElem(data, raw)
	})
}

// Value implements the [database/sql/driver.Valuer] interface as
// [Slice.Value] does, with NULL for the elements that are not Valid.
func (s NullSlice[P]) Value() (driver.Value, error) {
	return pgarray.SliceValue(s == nil, len(s), uuidTextLen, false, func(b []byte, i int) ([]byte, bool) {
		return appendUUID(b, &s[i].ID.b), !s[i].Valid
	})
}

// scanElem stores an array element into id: the 16 bytes of a binary uuid
// element if raw, else the UUID text or P's TypeID text.
func (id *ID[P]) scanElem(data []byte, raw bool) error {
	if raw {
		return id.UnmarshalBinary(data)
	}
	return scanText(data, &id.b, prefixOf[P]())
}

// appendUUID appends the 36-character UUID form of *u to b.
func appendUUID(b []byte, u *[16]byte) []byte {
	var t [uuidTextLen]byte
	idtext.EncodeUUID(u, &t)
	return append(b, t[:]...)
}
