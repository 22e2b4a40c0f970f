package objectidtype

import (
	"database/sql/driver"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5/pgtype"

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

// ErrScalarParameter is wrapped by the error of the UUIDValue and
// BytesValue methods of [Slice] and [NullSlice]: pgx bound the slice to a
// parameter that takes one value (id = $1), not an array (id = ANY($1)).
// Test for it with [errors.Is].
var ErrScalarParameter = errors.New("objectidtype: a Slice is bound to a parameter of one value")

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

// pgx v5 support. Slice and NullSlice implement pgtype.ArrayGetter: pgx
// encodes them through the codec of the array type the statement names,
// element by element as ObjectIDs (in binary, bytea[] elements are the raw
// 12 bytes; a uuid[] parameter refuses them, [ErrNotUUID]). They also
// implement pgtype.BytesValuer and pgtype.UUIDValuer, only to refuse a
// parameter of one bytea or uuid ([ErrScalarParameter]), where PostgreSQL
// would store the array's text as bytes. Where pgx does not know the
// parameter's type (QueryExecModeExec, SimpleProtocol, a domain it has not
// loaded) they go as [Slice.Value], the array's text, as through lib/pq.

// Dimensions implements the [pgtype.ArrayGetter] interface.
func (s Slice) Dimensions() []pgtype.ArrayDimension { return pgarray.Dimensions(s == nil, len(s)) }

// Index implements the [pgtype.ArrayGetter] interface.
func (s Slice) Index(i int) any { return &s[i] }

// IndexType implements the [pgtype.ArrayGetter] interface.
func (Slice) IndexType() any { return (*ObjectID)(nil) }

// BytesValue implements the [pgtype.BytesValuer] interface, only to refuse:
// the Slice was bound to one bytea (id = $1, not id = ANY($1)), where
// PostgreSQL would store the array's text as bytes. It returns an error
// wrapping [ErrScalarParameter], or NULL for a nil Slice.
func (s Slice) BytesValue() ([]byte, error) { return nil, scalarError(s == nil, "Slice", len(s)) }

// UUIDValue implements the [pgtype.UUIDValuer] interface, only to refuse a
// uuid parameter: it returns an error wrapping [ErrNotUUID] and
// [ErrScalarParameter], or NULL for a nil Slice.
func (s Slice) UUIDValue() (pgtype.UUID, error) {
	return pgtype.UUID{}, notUUIDSliceError(s == nil, "Slice", len(s))
}

// Dimensions implements the [pgtype.ArrayGetter] interface.
func (s NullSlice) Dimensions() []pgtype.ArrayDimension { return pgarray.Dimensions(s == nil, len(s)) }

// Index implements the [pgtype.ArrayGetter] interface.
func (s NullSlice) Index(i int) any { return &s[i] }

// IndexType implements the [pgtype.ArrayGetter] interface.
func (NullSlice) IndexType() any { return (*NullObjectID)(nil) }

// BytesValue implements the [pgtype.BytesValuer] interface, only to refuse,
// as [Slice.BytesValue] does.
func (s NullSlice) BytesValue() ([]byte, error) {
	return nil, scalarError(s == nil, "NullSlice", len(s))
}

// UUIDValue implements the [pgtype.UUIDValuer] interface, only to refuse,
// as [Slice.UUIDValue] does.
func (s NullSlice) UUIDValue() (pgtype.UUID, error) {
	return pgtype.UUID{}, notUUIDSliceError(s == nil, "NullSlice", len(s))
}

// scalarError is the error of a slice's BytesValue: nil for a nil slice
// (NULL), else one wrapping ErrScalarParameter naming typ and its n
// elements.
func scalarError(isNil bool, typ string, n int) error {
	return pgarray.Refusal(isNil, "%w: a %s of %d into a bytea; compare with = ANY($1) to bind a bytea[] or pgid.objectid[], or bind one ObjectID", ErrScalarParameter, typ, n)
}

// notUUIDSliceError is the error of a slice's UUIDValue, as scalarError is
// for BytesValue.
func notUUIDSliceError(isNil bool, typ string, n int) error {
	return pgarray.Refusal(isNil, "%w: a %s of %d into a uuid (%w); store ObjectIDs in bytea[] or pgid.objectid[]", ErrNotUUID, typ, n, ErrScalarParameter)
}
