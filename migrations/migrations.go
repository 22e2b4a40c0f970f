// Package migrations installs the PostgreSQL side of pgid: schema pgid with
// the domains pgid.ulid (uuid) and pgid.objectid (12-byte bytea), and SQL
// functions to read an ID's time, convert between its text forms, build
// range bounds from a timestamptz and generate IDs for DEFAULT clauses.
//
// The migrations are plain SQL files embedded in [FS] and applied with
// github.com/jackc/tern/v2 (its migrate package): [Up] brings a database to
// the latest version, [Down] removes everything again. tern serialises
// concurrent runs with an advisory lock and runs each file in a transaction.
//
// Each file's forward part is idempotent (CREATE ... IF NOT EXISTS, CREATE OR
// REPLACE, a DO block for the domains), so it may also be run by hand, e.g.
// with psql, on a database that already has it.
//
// # Functions
//
// ULID (argument and result uuid, so pgid.ulid columns fit directly):
// pgid.ulid_time, pgid.ulid_to_text, pgid.ulid_from_text, pgid.ulid_min_at,
// pgid.ulid_max_at, pgid.gen_ulid. ObjectId (bytea): pgid.objectid_time,
// pgid.objectid_to_hex, pgid.objectid_from_hex, pgid.objectid_to_short,
// pgid.objectid_from_short, pgid.objectid_min_at, pgid.objectid_max_at,
// pgid.gen_objectid.
//
// Conversion and bound functions are IMMUTABLE STRICT PARALLEL SAFE and agree
// with the Go packages on every input (the integration tests check it), so
//
//	WHERE id >= pgid.ulid_min_at($1) AND id < pgid.ulid_min_at($2)
//
// is answered by a range scan of the primary key, also with generic plans.
// Bad text raises SQLSTATE 22P02 (invalid_text_representation) with a message
// naming the length, or the character and its 0-based position, or the
// overflow. Lengths and positions count bytes, as Go does, so a string with a
// multibyte character fails the same way in SQL and in Go.
//
// pgid.gen_ulid and pgid.gen_objectid exist for DEFAULT clauses and ad-hoc
// SQL. They are not monotonic: two IDs from the same millisecond (ULID) or
// second (ObjectId) are ordered at random, within one backend and across
// backends. Generate keys in Go with ulidtype.New / objectidtype.New, which
// are strictly increasing within a process.
package migrations

import (
	"context"
	"embed"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/tern/v2/migrate"
)

// FS holds the migrations, named NNN_description.sql as tern expects. The
// forward SQL of each file is above the line
// "---- create above / drop below ----" and the reverse SQL below it.
//
//go:embed *.sql
var FS embed.FS

// VersionTable is the table in which tern records the applied version.
//
// It lives in schema public, not in pgid: tern creates it before the first
// migration runs (so schema pgid does not exist yet), and [Down] drops schema
// pgid, which must not take tern's bookkeeping with it. The pgid_ prefix keeps
// it apart from an application's own tern table (public.schema_version by
// default). Creating it needs the CREATE privilege on schema public, which
// the database owner has.
const VersionTable = "public.pgid_schema_version"

// NewMigrator returns a tern migrator for conn with the migrations of [FS]
// loaded and [VersionTable] created if it did not exist. Use it to migrate
// to a particular version or to read the current one; [Up] and [Down] cover
// the common cases.
func NewMigrator(ctx context.Context, conn *pgx.Conn) (*migrate.Migrator, error) {
	m, err := migrate.NewMigrator(ctx, conn, VersionTable)
	if err != nil {
		return nil, fmt.Errorf("pgid migrations: version table %s: %w", VersionTable, err)
	}
	if err := m.LoadMigrations(FS); err != nil {
		return nil, fmt.Errorf("pgid migrations: load: %w", err)
	}
	return m, nil
}

// Up applies every migration not yet applied to conn's database. It is safe
// to call on every start: with nothing to do it only reads the version.
func Up(ctx context.Context, conn *pgx.Conn) error {
	m, err := NewMigrator(ctx, conn)
	if err != nil {
		return err
	}
	if err := m.Migrate(ctx); err != nil {
		return fmt.Errorf("pgid migrations: up: %w", err)
	}
	return nil
}

// Down reverts every applied migration, newest first, leaving no schema pgid
// behind (the version table stays, at version 0). The DROPs are RESTRICT:
// while a table column, default or view still uses a pgid domain or function,
// Down stops at that migration with the database's dependency error (SQLSTATE
// 2BP01) and the version table records how far it got. It never drops user
// data.
func Down(ctx context.Context, conn *pgx.Conn) error {
	m, err := NewMigrator(ctx, conn)
	if err != nil {
		return err
	}
	if err := m.MigrateTo(ctx, 0); err != nil {
		return fmt.Errorf("pgid migrations: down: %w", err)
	}
	return nil
}
