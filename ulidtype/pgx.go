package ulidtype

import (
	"fmt"

	"github.com/jackc/pgx/v5/pgtype"
)

// pgx v5 support. ULID implements pgtype.UUIDScanner and pgtype.UUIDValuer,
// which pgx's uuid codec tries before anything else: values go over the wire
// in binary without allocating, and in text (QueryExecModeExec,
// QueryExecModeSimpleProtocol) as the UUID form. [Register] lets pgx encode
// ULIDs for parameters whose type it does not know, such as pgid.ulid domain
// parameters or the OID 0 parameters of the text modes.

// SkipUnderlyingTypePlan implements the [pgtype.SkipUnderlyingTypePlanner] interface.
func (ULID) SkipUnderlyingTypePlan() {}

// ScanUUID implements the [pgtype.UUIDScanner] interface. NULL is an error
// wrapping [ErrNull]; scan into *ULID or [NullULID] to accept it.
func (u *ULID) ScanUUID(v pgtype.UUID) error {
	if !v.Valid {
		return fmt.Errorf("%w: cannot scan NULL into ULID; use NullULID or *ULID", ErrNull)
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

// Register makes m encode ULID, *ULID, []ULID and NullULID as uuid (and
// uuid[]) when the parameter's type is not known in advance: parameters of a
// pgid.ulid domain, whose OID pgx has not loaded, and the OID 0 parameters of
// QueryExecModeExec and QueryExecModeSimpleProtocol. Call it on each
// connection's map, for example from pgxpool.Config.AfterConnect:
//
//	ulidtype.Register(conn.TypeMap())
//
// Scanning needs no registration: result columns of a domain report the
// base type.
func Register(m *pgtype.Map) {
	m.RegisterDefaultPgType(ULID{}, "uuid")
	m.RegisterDefaultPgType((*ULID)(nil), "uuid")
	m.RegisterDefaultPgType([]ULID(nil), "_uuid")
	m.RegisterDefaultPgType(NullULID{}, "uuid")
	m.RegisterDefaultPgType([]NullULID(nil), "_uuid")
}
