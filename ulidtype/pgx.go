package ulidtype

import "github.com/jackc/pgx/v5/pgtype"

// pgx v5 support. ULID implements pgtype.UUIDScanner and pgtype.UUIDValuer,
// which pgx's uuid codec tries before anything else: values are scanned and
// encoded in binary without allocating, and in text (QueryExecModeExec,
// QueryExecModeSimpleProtocol) as the UUID form. Single values need no
// registration. Package [github.com/pgid/pgid/pgidpgx] registers what does:
// slices in the text modes, pgid.ulid[] results, the domains' OIDs.

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
