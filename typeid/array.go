package typeid

import (
	"database/sql/driver"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/pgid/pgid/internal/idtext"
	"github.com/pgid/pgid/internal/pgarray"
	"github.com/pgid/pgid/ulidtype"
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

// ErrScalarParameter is wrapped by the error of the UUIDValue and
// BytesValue methods of [Slice] and [NullSlice]: pgx bound the slice to a
// parameter that takes one value (id = $1), not an array (id = ANY($1)).
// It is [ulidtype.ErrScalarParameter]. Test for it with [errors.Is].
var ErrScalarParameter = ulidtype.ErrScalarParameter

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

// pgx v5 support. Slice and NullSlice implement pgtype.ArrayGetter: pgx
// encodes them through the codec of the array type the statement names,
// element by element as IDs, so that a bytea[] or pgid.objectid[]
// parameter refuses them ([ErrNotBytea]) instead of storing each element's
// 36 characters. They also implement pgtype.UUIDValuer and
// pgtype.BytesValuer, only to refuse a parameter of one uuid or bytea
// ([ErrScalarParameter]). Where pgx does not know the parameter's type
// (QueryExecModeExec, SimpleProtocol, a domain it has not loaded) they go
// as [Slice.Value], the array's text, as through lib/pq.

// Dimensions implements the [pgtype.ArrayGetter] interface.
func (s Slice[P]) Dimensions() []pgtype.ArrayDimension { return pgarray.Dimensions(s == nil, len(s)) }

// Index implements the [pgtype.ArrayGetter] interface.
func (s Slice[P]) Index(i int) any { return &s[i] }

// IndexType implements the [pgtype.ArrayGetter] interface.
func (Slice[P]) IndexType() any { return (*ID[P])(nil) }

// UUIDValue implements the [pgtype.UUIDValuer] interface, only to refuse:
// the Slice was bound to one uuid (id = $1, not id = ANY($1)), where
// PostgreSQL would store the element of a Slice of one and refuse any
// other. It returns an error wrapping [ErrScalarParameter], or NULL for a
// nil Slice.
func (s Slice[P]) UUIDValue() (pgtype.UUID, error) {
	return pgtype.UUID{}, scalarError(s == nil, "Slice", len(s))
}

// BytesValue implements the [pgtype.BytesValuer] interface, only to refuse
// a bytea parameter: it returns an error wrapping [ErrNotBytea] and
// [ErrScalarParameter], or NULL for a nil Slice.
func (s Slice[P]) BytesValue() ([]byte, error) {
	return nil, notByteaSliceError(s == nil, "Slice", len(s))
}

// Dimensions implements the [pgtype.ArrayGetter] interface.
func (s NullSlice[P]) Dimensions() []pgtype.ArrayDimension {
	return pgarray.Dimensions(s == nil, len(s))
}

// Index implements the [pgtype.ArrayGetter] interface.
func (s NullSlice[P]) Index(i int) any { return &s[i] }

// IndexType implements the [pgtype.ArrayGetter] interface.
func (NullSlice[P]) IndexType() any { return (*NullID[P])(nil) }

// UUIDValue implements the [pgtype.UUIDValuer] interface, only to refuse,
// as [Slice.UUIDValue] does.
func (s NullSlice[P]) UUIDValue() (pgtype.UUID, error) {
	return pgtype.UUID{}, scalarError(s == nil, "NullSlice", len(s))
}

// BytesValue implements the [pgtype.BytesValuer] interface, only to refuse,
// as [Slice.BytesValue] does.
func (s NullSlice[P]) BytesValue() ([]byte, error) {
	return nil, notByteaSliceError(s == nil, "NullSlice", len(s))
}

// scalarError is the error of a slice's UUIDValue: nil for a nil slice
// (NULL), else one wrapping ErrScalarParameter naming typ and its n
// elements.
func scalarError(isNil bool, typ string, n int) error {
	return pgarray.Refusal(isNil, "%w: a typeid.%s of %d into a uuid; compare with = ANY($1) to bind a uuid[] or pgid.ulid[], or bind one ID", ErrScalarParameter, typ, n)
}

// notByteaSliceError is the error of a slice's BytesValue, as scalarError
// is for UUIDValue.
func notByteaSliceError(isNil bool, typ string, n int) error {
	return pgarray.Refusal(isNil, "%w: a typeid.%s of %d into a bytea (%w); store TypeIDs in uuid[] or pgid.ulid[]", ErrNotBytea, typ, n, ErrScalarParameter)
}
