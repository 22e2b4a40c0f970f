// Package pgidpgx connects pgx v5 to [ulidtype.ULID], [objectidtype.ObjectID],
// the typed IDs of package typeid ([RegisterTypeID], per prefix type) and
// the pgid PostgreSQL domains (pgid.ulid, pgid.objectid, created by
// package migrations). It is the one place that changes a pgx type map for
// them; the type packages only implement pgx's interfaces.
//
// Most programs need one line, for a pool:
//
//	cfg.AfterConnect = pgidpgx.AfterConnect
//
// (stdlib.OptionAfterConnect(pgidpgx.AfterConnect) for database/sql). It
// calls [Register] (pure Go: slices and arrays of the ID types, and ObjectIDs
// encoded without allocating) and, once the migrations have created the
// domains, [LoadTypes] (domain parameters and arrays in binary). On a
// database without them it connects anyway, so the pool that runs
// migrations.Up can be the pool that uses it; to refuse an unmigrated
// database, call Register and LoadTypes, which fails with [ErrNotMigrated].
// Single IDs work without any of this. Type maps belong to a connection,
// and so do these registrations. See docs/DRIVERS.md for what each call
// changes.
package pgidpgx

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/pgid/pgid/objectidtype"
	"github.com/pgid/pgid/ulidtype"
)

// ErrNotMigrated is wrapped by the error [LoadTypes] returns when the
// database has no pgid domains ([AfterConnect] does not return it): apply
// the pgid migrations first (migrations.Up, or pgid migrate up).
var ErrNotMigrated = errors.New("pgidpgx: pgid types not found in the database; apply the pgid migrations first (migrations.Up, or pgid migrate up)")

// typeNames are the types LoadTypes loads, as PostgreSQL names them: the two
// domains and their array types.
var typeNames = [...]string{"pgid.ulid", "pgid._ulid", "pgid.objectid", "pgid._objectid"}

// AfterConnect calls [Register] and [LoadTypes] on conn. Its signature fits
// pgxpool.Config.AfterConnect and stdlib.OptionAfterConnect. On a database
// without the pgid domains (before migrations.Up) it returns nil after
// Register: the connection works, with domain parameters in text, and
// migrations.Up on a *pgxpool.Pool replaces such connections once it has
// created the domains. Other errors (the query failing) are returned.
func AfterConnect(ctx context.Context, conn *pgx.Conn) error {
	Register(conn.TypeMap())
	if err := LoadTypes(ctx, conn); err != nil && !errors.Is(err, ErrNotMigrated) {
		return err
	}
	return nil
}

// Register makes m know the PostgreSQL type of each ULID and ObjectID Go
// type, for parameters and results whose type pgx does not know, and makes m
// encode ObjectIDs into bytea in binary format without allocating: it
// replaces m's bytea and bytea[] types with ones whose codec differs from
// pgx's for ObjectIDs only. It sends no query and works on a database
// without the pgid migrations (docs/DRIVERS.md lists what it changes).
// Call it on each connection's map (conn.TypeMap()), or on a
// pgtype.NewMap() used for pgtype.Map.SQLScanner.
func Register(m *pgtype.Map) {
	for _, v := range []any{
		ulidtype.ULID{}, (*ulidtype.ULID)(nil), ulidtype.NullULID{},
	} {
		m.RegisterDefaultPgType(v, "uuid")
	}
	for _, v := range []any{
		[]ulidtype.ULID(nil), []*ulidtype.ULID(nil), []ulidtype.NullULID(nil), []sql.Null[ulidtype.ULID](nil),
		(*[]ulidtype.ULID)(nil), (*[]*ulidtype.ULID)(nil), (*[]ulidtype.NullULID)(nil), (*[]sql.Null[ulidtype.ULID])(nil),
	} {
		m.RegisterDefaultPgType(v, "_uuid")
	}
	for _, v := range []any{
		objectidtype.ObjectID{}, (*objectidtype.ObjectID)(nil), objectidtype.NullObjectID{},
		objectidtype.ShortID{}, (*objectidtype.ShortID)(nil),
	} {
		m.RegisterDefaultPgType(v, "bytea")
	}
	for _, v := range []any{
		[]objectidtype.ObjectID(nil), []*objectidtype.ObjectID(nil), []objectidtype.NullObjectID(nil), []sql.Null[objectidtype.ObjectID](nil),
		(*[]objectidtype.ObjectID)(nil), (*[]*objectidtype.ObjectID)(nil), (*[]objectidtype.NullObjectID)(nil), (*[]sql.Null[objectidtype.ObjectID])(nil),
		[]objectidtype.ShortID(nil), []*objectidtype.ShortID(nil), []sql.Null[objectidtype.ShortID](nil),
		(*[]objectidtype.ShortID)(nil), (*[]*objectidtype.ShortID)(nil), (*[]sql.Null[objectidtype.ShortID])(nil),
	} {
		m.RegisterDefaultPgType(v, "_bytea")
	}
	bytea := &pgtype.Type{Name: "bytea", OID: pgtype.ByteaOID, Codec: byteaCodec{}}
	m.RegisterType(bytea)
	m.RegisterType(&pgtype.Type{Name: "_bytea", OID: pgtype.ByteaArrayOID, Codec: &pgtype.ArrayCodec{ElementType: bytea}})
}

// LoadTypes loads pgid.ulid, pgid._ulid, pgid.objectid and pgid._objectid
// from conn's database and registers them on conn's type map: domain
// parameters then go in binary, domain arrays are read in binary, and a
// domain array scanned into an any comes back as []any holding
// [ulidtype.ULID] or [objectidtype.ObjectID] values. Single domain values
// scanned into an any are unchanged (their result columns report the base
// type). ObjectIDs encode into the objectid domain without allocating. It
// sends one query. On a database without the pgid migrations it returns an
// error wrapping [ErrNotMigrated].
func LoadTypes(ctx context.Context, conn *pgx.Conn) error {
	types, err := conn.LoadTypes(ctx, typeNames[:])
	if err != nil {
		return fmt.Errorf("pgidpgx: load types %v: %w", typeNames, err)
	}
	// pgx's query simply returns no row for a name that does not exist.
	for _, name := range typeNames {
		if !hasType(types, name) {
			return fmt.Errorf("%w (missing %s)", ErrNotMigrated, name)
		}
	}
	conn.TypeMap().RegisterTypes(withCodecs(types))
	return nil
}

// withCodecs returns types with the domains' codecs replaced by this
// package's ones, and their array types pointing at the replacements. pgx
// returns each type under its qualified name and again under its bare name
// (same OID), so the replacement goes by OID.
func withCodecs(types []*pgtype.Type) []*pgtype.Type {
	codecs := map[uint32]pgtype.Codec{}
	for _, t := range types {
		switch t.Name {
		case "pgid.ulid":
			codecs[t.OID] = ulidCodec{}
		case "pgid.objectid":
			codecs[t.OID] = objectIDCodec{}
		}
	}
	out := make([]*pgtype.Type, len(types))
	byOID := map[uint32]*pgtype.Type{}
	for i, t := range types {
		out[i] = t
		if c, ok := codecs[t.OID]; ok {
			out[i] = &pgtype.Type{Name: t.Name, OID: t.OID, Codec: c}
			byOID[t.OID] = out[i]
		} else if a, ok := t.Codec.(*pgtype.ArrayCodec); ok {
			if elem, ok := byOID[a.ElementType.OID]; ok {
				out[i] = &pgtype.Type{Name: t.Name, OID: t.OID, Codec: &pgtype.ArrayCodec{ElementType: elem}}
			}
		}
	}
	return out
}

func hasType(types []*pgtype.Type, name string) bool {
	for _, t := range types {
		if t.Name == name {
			return true
		}
	}
	return false
}

// DecodeUUIDAsULID makes m decode every uuid scanned into an any as a
// [ulidtype.ULID] (nil for NULL) instead of [16]byte, and every uuid[] as
// []any holding ULIDs: pgx.Rows.Values, pgx.RowToMap and Scan into an any,
// for plain uuid and pgid.ulid columns alike (a domain's result column
// reports uuid). Nothing else changes: typed scans and every encode are pgx's
// uuid codec's. It is for programs whose uuid columns all hold ULIDs: any 16
// bytes decode, so a UUIDv4 becomes a ULID with a meaningless time. It sends
// no query; [AfterConnect] does not call it. In a pool:
//
//	cfg.AfterConnect = func(ctx context.Context, conn *pgx.Conn) error {
//		pgidpgx.DecodeUUIDAsULID(conn.TypeMap())
//		return pgidpgx.AfterConnect(ctx, conn)
//	}
func DecodeUUIDAsULID(m *pgtype.Map) {
	t := &pgtype.Type{Name: "uuid", OID: pgtype.UUIDOID, Codec: ulidCodec{}}
	m.RegisterType(t)
	m.RegisterType(&pgtype.Type{Name: "_uuid", OID: pgtype.UUIDArrayOID, Codec: &pgtype.ArrayCodec{ElementType: t}})
}
