package ulidtype

import (
	"database/sql/driver"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5/pgtype"

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

// ErrScalarParameter is wrapped by the error of the UUIDValue and
// BytesValue methods of [Slice] and [NullSlice]: pgx bound the slice to a
// parameter that takes one value (id = $1), not an array (id = ANY($1)).
// Test for it with [errors.Is].
var ErrScalarParameter = errors.New("ulidtype: a Slice is bound to a parameter of one value")

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

// pgx v5 support. Slice and NullSlice implement pgtype.ArrayGetter: pgx
// encodes them through the codec of the array type the statement names,
// element by element as ULIDs, so that a bytea[] or pgid.objectid[]
// parameter refuses them ([ErrNotBytea]) instead of storing each element's
// 36 characters. They also implement pgtype.UUIDValuer and
// pgtype.BytesValuer, only to refuse a parameter of one uuid or bytea
// ([ErrScalarParameter]). Where pgx does not know the parameter's type
// (QueryExecModeExec, SimpleProtocol, a domain it has not loaded) they go
// as [Slice.Value], the array's text, as through lib/pq.

// Dimensions implements the [pgtype.ArrayGetter] interface.
func (s Slice) Dimensions() []pgtype.ArrayDimension { return pgarray.Dimensions(s == nil, len(s)) }

// Index implements the [pgtype.ArrayGetter] interface.
func (s Slice) Index(i int) any { return &s[i] }

// IndexType implements the [pgtype.ArrayGetter] interface.
func (Slice) IndexType() any { return (*ULID)(nil) }

// UUIDValue implements the [pgtype.UUIDValuer] interface, only to refuse:
// the Slice was bound to one uuid (id = $1, not id = ANY($1)), where
// PostgreSQL would store the element of a Slice of one and refuse any
// other. It returns an error wrapping [ErrScalarParameter], or NULL for a
// nil Slice.
func (s Slice) UUIDValue() (pgtype.UUID, error) {
	return pgtype.UUID{}, scalarError(s == nil, "Slice", len(s))
}

// BytesValue implements the [pgtype.BytesValuer] interface, only to refuse
// a bytea parameter: it returns an error wrapping [ErrNotBytea] and
// [ErrScalarParameter], or NULL for a nil Slice.
func (s Slice) BytesValue() ([]byte, error) {
	return nil, notByteaSliceError(s == nil, "Slice", len(s))
}

// Dimensions implements the [pgtype.ArrayGetter] interface.
func (s NullSlice) Dimensions() []pgtype.ArrayDimension { return pgarray.Dimensions(s == nil, len(s)) }

// Index implements the [pgtype.ArrayGetter] interface.
func (s NullSlice) Index(i int) any { return &s[i] }

// IndexType implements the [pgtype.ArrayGetter] interface.
func (NullSlice) IndexType() any { return (*NullULID)(nil) }

// UUIDValue implements the [pgtype.UUIDValuer] interface, only to refuse,
// as [Slice.UUIDValue] does.
func (s NullSlice) UUIDValue() (pgtype.UUID, error) {
	return pgtype.UUID{}, scalarError(s == nil, "NullSlice", len(s))
}

// BytesValue implements the [pgtype.BytesValuer] interface, only to refuse,
// as [Slice.BytesValue] does.
func (s NullSlice) BytesValue() ([]byte, error) {
	return nil, notByteaSliceError(s == nil, "NullSlice", len(s))
}

// scalarError is the error of a slice's UUIDValue: nil for a nil slice
// (NULL), else one wrapping ErrScalarParameter naming typ and its n
// elements.
func scalarError(isNil bool, typ string, n int) error {
	return pgarray.Refusal(isNil, "%w: a %s of %d into a uuid; compare with = ANY($1) to bind a uuid[] or pgid.ulid[], or bind one ULID", ErrScalarParameter, typ, n)
}

// notByteaSliceError is the error of a slice's BytesValue, as scalarError
// is for UUIDValue.
func notByteaSliceError(isNil bool, typ string, n int) error {
	return pgarray.Refusal(isNil, "%w: a %s of %d into a bytea (%w); store ULIDs in uuid[] or pgid.ulid[]", ErrNotBytea, typ, n, ErrScalarParameter)
}
