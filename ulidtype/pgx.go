package ulidtype

import (
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5/pgtype"
)

// pgx v5 support. ULID implements pgtype.UUIDScanner and pgtype.UUIDValuer,
// which pgx's uuid codec tries before anything else: values are scanned and
// encoded in binary without allocating, and in text (QueryExecModeExec,
// QueryExecModeSimpleProtocol) as the UUID form. Single values need no
// registration. Package [github.com/pgid/pgid/pgidpgx] registers what does:
// slices in the text modes, pgid.ulid[] results, the domains' OIDs.
//
// ULID also implements pgtype.BytesValuer, only to refuse: bound to a bytea
// parameter, pgx would otherwise store the 36 characters of its UUID text.

// ErrNotBytea is wrapped by the error of BytesValue: a ULID or NullULID (or
// a TypeID: typeid.ErrNotBytea is this error) was bound to a bytea
// parameter. Test for it with [errors.Is].
var ErrNotBytea = errors.New("ulidtype: a ULID or TypeID is not a bytea")

// SkipUnderlyingTypePlan implements the [pgtype.SkipUnderlyingTypePlanner] interface.
func (ULID) SkipUnderlyingTypePlan() {}

// ScanUUID implements the [pgtype.UUIDScanner] interface. NULL is an error
// wrapping [ErrNull]; scan into *ULID or [NullULID] to accept it.
func (u *ULID) ScanUUID(v pgtype.UUID) error {
	if !v.Valid {
		return errNullULID
	}
	*u = v.Bytes
	return nil
}

// UUIDValue implements the [pgtype.UUIDValuer] interface.
func (u ULID) UUIDValue() (pgtype.UUID, error) {
	return pgtype.UUID{Bytes: u, Valid: true}, nil
}

// BytesValue implements the [pgtype.BytesValuer] interface, which pgx's
// bytea codec calls for a ULID bound to a bytea parameter (bytea,
// pgid.objectid, a bytea[] element): it returns an error wrapping
// [ErrNotBytea], so that nothing is stored. Without it pgx would send
// [ULID.Value], the UUID text, which PostgreSQL stores as 36 bytes. (A
// parameter of unknown type, in QueryExecModeExec, SimpleProtocol or
// lib/pq, still receives that text: pgx does not know it is a bytea.)
func (u ULID) BytesValue() ([]byte, error) {
	return nil, fmt.Errorf("%w: %s is 16 bytes; store it in uuid or pgid.ulid, not in bytea or pgid.objectid (bind Bytes() for the raw 16 bytes)", ErrNotBytea, u)
}

// SkipUnderlyingTypePlan implements the [pgtype.SkipUnderlyingTypePlanner] interface.
func (NullULID) SkipUnderlyingTypePlan() {}

// ScanUUID implements the [pgtype.UUIDScanner] interface.
func (n *NullULID) ScanUUID(v pgtype.UUID) error {
	*n = NullULID{ULID: v.Bytes, Valid: v.Valid}
	return nil
}

// UUIDValue implements the [pgtype.UUIDValuer] interface.
func (n NullULID) UUIDValue() (pgtype.UUID, error) {
	return pgtype.UUID{Bytes: n.ULID, Valid: n.Valid}, nil
}

// BytesValue implements the [pgtype.BytesValuer] interface: NULL if not
// Valid, else the error of [ULID.BytesValue].
func (n NullULID) BytesValue() ([]byte, error) {
	if !n.Valid {
		return nil, nil
	}
	return n.ULID.BytesValue()
}
