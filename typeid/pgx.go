package typeid

import (
	"fmt"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/pgid/pgid/ulidtype"
)

// pgx v5 support. ID and NullID implement pgtype.UUIDScanner and
// pgtype.UUIDValuer, which pgx's uuid codec tries before anything else:
// values are scanned and encoded in binary without allocating, and in text
// (QueryExecModeExec, QueryExecModeSimpleProtocol) as the UUID form. No
// registration is needed. They, and AnyID, also implement
// pgtype.BytesValuer, only to refuse a bytea parameter ([ErrNotBytea]).

// ErrNotBytea is wrapped by the error of the IDs' BytesValue: an ID, NullID
// or AnyID was bound to a bytea parameter (bytea, pgid.objectid, a bytea[]
// element), where pgx would otherwise store the 36 characters of its UUID
// text. It is [ulidtype.ErrNotBytea]. Test for it with [errors.Is].
var ErrNotBytea = ulidtype.ErrNotBytea

// notByteaError is the error of BytesValue for id.
func notByteaError(id fmt.Stringer) error {
	return fmt.Errorf("%w: %s is 16 bytes; store it in uuid or pgid.ulid, not in bytea or pgid.objectid (bind Bytes() for the raw 16 bytes)", ErrNotBytea, id)
}

// SkipUnderlyingTypePlan implements the [pgtype.SkipUnderlyingTypePlanner] interface.
func (ID[P]) SkipUnderlyingTypePlan() {}

// ScanUUID implements the [pgtype.UUIDScanner] interface. NULL is an error
// wrapping [ErrNull]; scan into *ID[P] or [NullID] to accept it.
func (id *ID[P]) ScanUUID(v pgtype.UUID) error {
	if !v.Valid {
		return errNullID
	}
	id.b = v.Bytes
	return nil
}

// UUIDValue implements the [pgtype.UUIDValuer] interface.
func (id ID[P]) UUIDValue() (pgtype.UUID, error) {
	return pgtype.UUID{Bytes: id.b, Valid: true}, nil
}

// BytesValue implements the [pgtype.BytesValuer] interface, to refuse: it
// returns an error wrapping [ErrNotBytea].
func (id ID[P]) BytesValue() ([]byte, error) { return nil, notByteaError(id) }

// SkipUnderlyingTypePlan implements the [pgtype.SkipUnderlyingTypePlanner] interface.
func (NullID[P]) SkipUnderlyingTypePlan() {}

// ScanUUID implements the [pgtype.UUIDScanner] interface.
func (n *NullID[P]) ScanUUID(v pgtype.UUID) error {
	*n = NullID[P]{ID: ID[P]{b: v.Bytes}, Valid: v.Valid}
	return nil
}

// UUIDValue implements the [pgtype.UUIDValuer] interface.
func (n NullID[P]) UUIDValue() (pgtype.UUID, error) {
	return pgtype.UUID{Bytes: n.ID.b, Valid: n.Valid}, nil
}

// BytesValue implements the [pgtype.BytesValuer] interface: NULL if not
// Valid, else the error of [ID.BytesValue].
func (n NullID[P]) BytesValue() ([]byte, error) {
	if !n.Valid {
		return nil, nil
	}
	return n.ID.BytesValue()
}
