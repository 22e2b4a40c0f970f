package objectidtype

import "github.com/jackc/pgx/v5/pgtype"

// pgx v5 support. ObjectID implements pgtype.BytesScanner and
// pgtype.BytesValuer, which pgx's bytea codec tries before anything else:
// values go over the wire as the 12 raw bytes in binary, and as \x-prefixed
// hex in text (QueryExecModeExec, QueryExecModeSimpleProtocol), never as the
// String form. Scanning does not allocate. Through pgx's own bytea codec,
// encoding allocates the 12 bytes that BytesValue returns, since a slice of a
// value receiver must live on the heap. Single values need no registration.
// Package [github.com/pgid/pgid/pgidpgx] registers what does: slices in the
// text modes, pgid.objectid[] results, the domains' OIDs, and a bytea codec
// that encodes ObjectIDs without that allocation.

// The interfaces pgx's bytea codec tries first, checked at compile time.
var (
	_ pgtype.BytesScanner = (*ObjectID)(nil)
	_ pgtype.BytesValuer  = ObjectID{}
)

// SkipUnderlyingTypePlan implements the [pgtype.SkipUnderlyingTypePlanner] interface.
func (ObjectID) SkipUnderlyingTypePlan() {}

// ScanBytes implements the [pgtype.BytesScanner] interface. It copies v,
// which belongs to the driver, and accepts what [ObjectID.Scan] accepts as a
// []byte. NULL is an error wrapping [ErrNull]; scan into *ObjectID or
// [NullObjectID] to accept it. On error o is left unchanged.
func (o *ObjectID) ScanBytes(v []byte) error { return o.scanBytes(v) }

// BytesValue implements the [pgtype.BytesValuer] interface.
func (o ObjectID) BytesValue() ([]byte, error) { return o[:], nil }

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

// SkipUnderlyingTypePlan implements the [pgtype.SkipUnderlyingTypePlanner] interface.
func (ShortID) SkipUnderlyingTypePlan() {}

// ScanBytes implements the [pgtype.BytesScanner] interface.
func (s *ShortID) ScanBytes(v []byte) error { return (*ObjectID)(s).scanBytes(v) }

// BytesValue implements the [pgtype.BytesValuer] interface.
func (s ShortID) BytesValue() ([]byte, error) { return s[:], nil }
