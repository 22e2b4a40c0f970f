package objectidtype

import (
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/pgid/pgid/internal/idtext"
)

// pgx v5 support. ObjectID implements pgtype.BytesScanner and
// pgtype.BytesValuer, which pgx's bytea codec tries before anything else:
// values go over the wire as the 12 raw bytes in binary, and as \x-prefixed
// hex in text (QueryExecModeExec, QueryExecModeSimpleProtocol), never as the
// String form. Scanning binary bytea does not allocate. ObjectID also
// implements pgtype.TextScanner and pgtype.TextValuer, which pgx tries for
// every value in text format: text columns are read as text, never as raw
// bytes (pgx allocates the string it hands over). Through pgx's own bytea codec,
// encoding allocates the 12 bytes that BytesValue returns, since a slice of a
// value receiver must live on the heap. Single values need no registration.
// Package [github.com/pgid/pgid/pgidpgx] registers what does: slices in the
// text modes, pgid.objectid[] results, the domains' OIDs, and a bytea codec
// that encodes ObjectIDs without that allocation.
//
// ObjectID also implements pgtype.UUIDValuer, only to refuse: bound to a
// uuid parameter, pgx would otherwise store its 12 bytes zero-padded to 16.

// ErrNotUUID is wrapped by the error of UUIDValue: an ObjectID, NullObjectID
// or ShortID was bound to a uuid parameter. Test for it with [errors.Is].
var ErrNotUUID = errors.New("objectidtype: an ObjectID is not a uuid")

// SkipUnderlyingTypePlan implements the [pgtype.SkipUnderlyingTypePlanner] interface.
func (ObjectID) SkipUnderlyingTypePlan() {}

// ScanBytes implements the [pgtype.BytesScanner] interface, through which
// pgx hands over bytea values: v must be the 12 raw bytes, which ScanBytes
// copies (they belong to the driver). Text columns reach [ObjectID.ScanText]
// instead. NULL is an error wrapping [ErrNull]; scan into *ObjectID or
// [NullObjectID] to accept it. On error o is left unchanged.
func (o *ObjectID) ScanBytes(v []byte) error { return o.scanBytes(v) }

// BytesValue implements the [pgtype.BytesValuer] interface.
func (o ObjectID) BytesValue() ([]byte, error) { return o[:], nil }

// UUIDValue implements the [pgtype.UUIDValuer] interface, which pgx's uuid
// codec calls for an ObjectID bound to a uuid parameter (uuid, pgid.ulid, a
// uuid[] element) in binary format: it returns an error wrapping
// [ErrNotUUID], so that nothing is stored. Without it pgx would encode the
// 12 bytes of [ObjectID.Value] as a uuid padded with 4 zero bytes. (pgx
// then retries in text format, whose `\x` form PostgreSQL refuses for a
// uuid, SQLSTATE 22P02; CopyFrom returns this error.)
func (o ObjectID) UUIDValue() (pgtype.UUID, error) {
	return pgtype.UUID{}, notUUIDError(o)
}

// notUUIDError is the error of UUIDValue for o.
func notUUIDError(o ObjectID) error {
	return fmt.Errorf("%w: %s is 12 bytes; store ObjectIDs in bytea or pgid.objectid, not in uuid, pgid.ulid or a TypeID column", ErrNotUUID, o)
}

// ScanText implements the [pgtype.TextScanner] interface. pgx tries it before
// any codec for every value that arrives in text format: text, varchar and
// other text columns, and bytea in QueryExecModeExec and
// QueryExecModeSimpleProtocol. It accepts what [ObjectID.Scan] accepts as a
// string: 24 hex digits, the short form, or a bytea's text, `\x` and 24 hex
// digits. NULL is an error wrapping [ErrNull]. On error o is left unchanged.
func (o *ObjectID) ScanText(v pgtype.Text) error {
	if !v.Valid {
		return errNullObjectID
	}
	return o.scanText(v.String)
}

// TextValue implements the [pgtype.TextValuer] interface, which pgx uses for
// every parameter it sends in text format: PostgreSQL's text for the bytea
// o, `\x` and 24 lower-case hex digits. A bytea or pgid.objectid parameter
// reads it as the 12 bytes; a text or varchar parameter stores those 26
// characters, the same text as o::text in SQL, which every scan reads back.
// (The 24-digit form cannot be sent instead: pgx would send it to bytea
// parameters too, which would store 24 ASCII bytes.)
func (o ObjectID) TextValue() (pgtype.Text, error) {
	var b [byteaTextLen]byte
	b[0], b[1] = '\\', 'x'
	idtext.EncodeHex12((*[12]byte)(&o), (*[hexLen]byte)(b[2:]))
	return pgtype.Text{String: string(b[:]), Valid: true}, nil
}

// SkipUnderlyingTypePlan implements the [pgtype.SkipUnderlyingTypePlanner] interface.
func (NullObjectID) SkipUnderlyingTypePlan() {}

// ScanBytes implements the [pgtype.BytesScanner] interface.
func (n *NullObjectID) ScanBytes(v []byte) error {
	if v == nil {
		*n = NullObjectID{}
		return nil
	}
	o := n.ObjectID
	if err := o.scanBytes(v); err != nil {
		return err
	}
	*n = NullObjectID{ObjectID: o, Valid: true}
	return nil
}

// BytesValue implements the [pgtype.BytesValuer] interface.
func (n NullObjectID) BytesValue() ([]byte, error) {
	if !n.Valid {
		return nil, nil
	}
	return n.ObjectID.BytesValue() // only a valid n allocates
}

// UUIDValue implements the [pgtype.UUIDValuer] interface: NULL if not Valid,
// else the error of [ObjectID.UUIDValue].
func (n NullObjectID) UUIDValue() (pgtype.UUID, error) {
	if !n.Valid {
		return pgtype.UUID{}, nil
	}
	return n.ObjectID.UUIDValue()
}

// ScanText implements the [pgtype.TextScanner] interface.
func (n *NullObjectID) ScanText(v pgtype.Text) error {
	if !v.Valid {
		*n = NullObjectID{}
		return nil
	}
	o := n.ObjectID
	if err := o.scanText(v.String); err != nil {
		return err
	}
	*n = NullObjectID{ObjectID: o, Valid: true}
	return nil
}

// TextValue implements the [pgtype.TextValuer] interface: NULL if not Valid,
// else as [ObjectID.TextValue].
func (n NullObjectID) TextValue() (pgtype.Text, error) {
	if !n.Valid {
		return pgtype.Text{}, nil
	}
	return n.ObjectID.TextValue()
}

// SkipUnderlyingTypePlan implements the [pgtype.SkipUnderlyingTypePlanner] interface.
func (ShortID) SkipUnderlyingTypePlan() {}

// ScanBytes implements the [pgtype.BytesScanner] interface, as
// [ObjectID.ScanBytes] does.
func (s *ShortID) ScanBytes(v []byte) error { return shortErr((*ObjectID)(s).scanBytes(v)) }

// BytesValue implements the [pgtype.BytesValuer] interface.
func (s ShortID) BytesValue() ([]byte, error) { return s[:], nil }

// UUIDValue implements the [pgtype.UUIDValuer] interface, as
// [ObjectID.UUIDValue] does: the error wraps [ErrNotUUID].
func (s ShortID) UUIDValue() (pgtype.UUID, error) { return ObjectID(s).UUIDValue() }

// ScanText implements the [pgtype.TextScanner] interface, as
// [ObjectID.ScanText] does.
func (s *ShortID) ScanText(v pgtype.Text) error { return shortErr((*ObjectID)(s).ScanText(v)) }

// TextValue implements the [pgtype.TextValuer] interface, as
// [ObjectID.TextValue] does: a ShortID is stored like an ObjectID.
func (s ShortID) TextValue() (pgtype.Text, error) { return ObjectID(s).TextValue() }
