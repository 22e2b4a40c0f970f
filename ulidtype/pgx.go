package ulidtype

import "github.com/jackc/pgx/v5/pgtype"

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
		return errNull()
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

// Register makes m encode ULID, *ULID, []ULID, []*ULID, *[]ULID, NullULID
// and []NullULID as uuid (and uuid[]) when the parameter's type is not known in advance: parameters of a
// pgid.ulid domain, whose OID pgx has not loaded, and the OID 0 parameters of
// QueryExecModeExec and QueryExecModeSimpleProtocol. Call it on each
// connection's map, for example from pgxpool.Config.AfterConnect:
//
//	ulidtype.Register(conn.TypeMap())
//
// Scanning needs no registration: result columns of a domain report the
// base type. (The *[]ULID entry lets database/sql scan uuid[] text through
// m.SQLScanner(&ids).)
func Register(m *pgtype.Map) {
	m.RegisterDefaultPgType(ULID{}, "uuid")
	m.RegisterDefaultPgType((*ULID)(nil), "uuid")
	m.RegisterDefaultPgType([]ULID(nil), "_uuid")
	m.RegisterDefaultPgType([]*ULID(nil), "_uuid")
	m.RegisterDefaultPgType((*[]ULID)(nil), "_uuid") // for pgtype.Map.SQLScanner
	m.RegisterDefaultPgType(NullULID{}, "uuid")
	m.RegisterDefaultPgType([]NullULID(nil), "_uuid")
}

// Codec is pgx's uuid codec, except that values scanned into an any (or
// returned by pgx.Rows.Values) come back as ULID instead of [16]byte. Every
// other scan and encode behaves exactly as pgtype.UUIDCodec.
//
// pgidpgx.LoadTypes installs it for the pgid.ulid domain and its array;
// [RegisterUUIDCodec] installs it for every uuid.
type Codec struct{ pgtype.UUIDCodec }

// DecodeValue implements the [pgtype.Codec] interface: a ULID, or nil for
// NULL.
func (Codec) DecodeValue(m *pgtype.Map, oid uint32, format int16, src []byte) (any, error) {
	if src == nil {
		return nil, nil
	}
	var u ULID
	var err error
	if format == pgtype.BinaryFormatCode {
		u, err = FromBytes(src)
	} else {
		err = parse(src, &u)
	}
	if err != nil {
		return nil, err
	}
	return u, nil
}

// RegisterUUIDCodec makes m decode every uuid, and uuid[] element, scanned
// into an any as a ULID: for programs whose uuid columns all hold ULIDs and
// that read rows generically (pgx.Rows.Values, pgx.RowToMap). Scans into
// typed targets need no registration.
func RegisterUUIDCodec(m *pgtype.Map) {
	t := &pgtype.Type{Name: "uuid", OID: pgtype.UUIDOID, Codec: Codec{}}
	m.RegisterType(t)
	m.RegisterType(&pgtype.Type{Name: "_uuid", OID: pgtype.UUIDArrayOID, Codec: &pgtype.ArrayCodec{ElementType: t}})
}
