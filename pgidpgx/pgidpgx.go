// Package pgidpgx connects pgx v5 to the pgid PostgreSQL domains
// (pgid.ulid, pgid.objectid, created by package migrations).
//
// ulidtype.ULID and objectidtype.ObjectID work with pgx without any of this
// for single values: they implement pgx's UUID and bytes interfaces (binary,
// no allocation) for uuid and bytea parameters, result columns of a domain
// report the base type, and a parameter whose type pgx does not know (a
// domain pgx has not loaded, or OID 0) still gets the ID's driver.Valuer
// form, in text. What needs help:
//
//   - Slices as parameters (id = ANY($1)) in QueryExecModeExec and
//     QueryExecModeSimpleProtocol, where every parameter has OID 0: pgx
//     cannot encode []ULID / []ObjectID until [Register] tells it their
//     PostgreSQL types. Register is pure Go, sends no query and works before
//     the migrations ran.
//   - Domain arrays as results: array_agg(domain_col) returns pgid._ulid or
//     pgid._objectid, whose OIDs pgx does not know. [Register] lets them scan
//     into typed slices ([]ulidtype.ULID, []objectidtype.ObjectID); into an
//     any they stay text until [LoadTypes] has loaded them. LoadTypes also
//     makes domain parameters go in binary under their own OID instead of
//     the text fallback, and makes domain values scanned into an any
//     (pgx.Rows.Values) come back as ulidtype.ULID / objectidtype.ObjectID.
//     It sends one query, and fails with an error wrapping [ErrNotMigrated]
//     where the migrations have not run.
//   - ObjectIDs bound to plain bytea parameters cost one allocation each
//     through pgx's bytea codec; [Register] installs one that appends them
//     directly.
//
// [AfterConnect] does both and fits pgxpool.Config.AfterConnect; use it
// unless the database may lack the migrations (then call Register alone).
// For a single *pgx.Conn call AfterConnect(ctx, conn) after connecting. Type
// maps belong to a connection, and so do these registrations.
package pgidpgx

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/pgid/pgid/objectidtype"
	"github.com/pgid/pgid/ulidtype"
)

// TypeNames are the types [LoadTypes] loads: the two domains and their array
// types, as PostgreSQL names them.
var TypeNames = []string{"pgid.ulid", "pgid._ulid", "pgid.objectid", "pgid._objectid"}

// ErrNotMigrated is wrapped by the error [LoadTypes] and [AfterConnect]
// return when the database has no pgid domains: run migrations.Up first.
var ErrNotMigrated = errors.New("pgidpgx: pgid types not found in the database; apply the pgid migrations (migrations.Up) first")

// Register makes m encode ulidtype and objectidtype values (T, *T, []T and
// the Null wrappers) as uuid / bytea when the parameter's type is unknown to
// pgx: OID 0 parameters of QueryExecModeExec and QueryExecModeSimpleProtocol,
// and domain parameters when [LoadTypes] has not run. It also installs
// [objectidtype.RegisterByteaCodec], so ObjectIDs bound to plain bytea
// parameters encode without allocating (bytea values scanned into an any stay
// []byte). It sends no query.
func Register(m *pgtype.Map) {
	ulidtype.Register(m)
	objectidtype.Register(m)
	objectidtype.RegisterByteaCodec(m)
}

// LoadTypes loads pgid.ulid, pgid._ulid, pgid.objectid and pgid._objectid
// from conn's database and registers them on conn's type map with the type
// packages' codecs ([ulidtype.Codec], [objectidtype.Codec]): domain
// parameters are encoded in binary, domain arrays (array_agg of a domain
// column) scan into []ulidtype.ULID / []objectidtype.ObjectID, and domain
// values scanned into an any come back as those types. It sends one query.
// On a database without the pgid migrations it returns an error wrapping
// [ErrNotMigrated].
func LoadTypes(ctx context.Context, conn *pgx.Conn) error {
	types, err := conn.LoadTypes(ctx, TypeNames)
	if err != nil {
		return fmt.Errorf("pgidpgx: load types %v: %w", TypeNames, err)
	}
	// pgx's query simply returns no row for a name that does not exist.
	for _, name := range TypeNames {
		if !hasType(types, name) {
			return fmt.Errorf("%w (missing %s)", ErrNotMigrated, name)
		}
	}
	conn.TypeMap().RegisterTypes(withCodecs(types))
	return nil
}

// withCodecs returns types with the domains' codecs replaced by the type
// packages' ones, and their array types pointing at the replacements. pgx
// returns each type under its qualified name and again under its bare name
// (same OID), so the replacement goes by OID.
func withCodecs(types []*pgtype.Type) []*pgtype.Type {
	codecs := map[uint32]pgtype.Codec{}
	for _, t := range types {
		switch t.Name {
		case "pgid.ulid":
			codecs[t.OID] = ulidtype.Codec{}
		case "pgid.objectid":
			codecs[t.OID] = objectidtype.Codec{}
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

// AfterConnect calls [Register] and [LoadTypes] on conn. Its signature fits
// pgxpool.Config.AfterConnect; a pool whose database lacks the migrations
// fails to connect with an error wrapping [ErrNotMigrated].
func AfterConnect(ctx context.Context, conn *pgx.Conn) error {
	Register(conn.TypeMap())
	return LoadTypes(ctx, conn)
}
