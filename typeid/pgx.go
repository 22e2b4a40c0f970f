package typeid

import "github.com/jackc/pgx/v5/pgtype"

// pgx v5 support. ID and NullID implement pgtype.UUIDScanner and
// pgtype.UUIDValuer, which pgx's uuid codec tries before anything else:
// values are scanned and encoded in binary without allocating, and in text
// (QueryExecModeExec, QueryExecModeSimpleProtocol) as the UUID form. No
// registration is needed.

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
