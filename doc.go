// Package pgid makes time-ordered IDs first-class in PostgreSQL from Go:
// ULIDs in uuid columns, MongoDB-style ObjectIds in 12-byte bytea columns and
// TypeIDs whose prefix is a Go type, with pgx, database/sql, sqlc, SQL
// functions and partitioning that all agree to the byte. Because the IDs
// sort by creation time, the primary key index answers "rows created between
// t1 and t2" without a created_at column.
//
// This package has no API: it is the map of the module. Import the packages
// below for what you need; together they depend on pgx v5 and google/uuid
// only (Go 1.25 or newer, PostgreSQL 14 or newer).
//
// # Which package for what
//
// The IDs, in Go (each with generation, text forms, database/sql, pgx's
// interfaces, JSON, time ranges and arrays):
//
//   - [github.com/pgid/pgid/ulidtype]: ULID, 128 bits stored as uuid (or the
//     pgid.ulid domain), by default laid out as a UUIDv7 too; the README's
//     choice for new tables.
//   - [github.com/pgid/pgid/objectidtype]: ObjectID, MongoDB's 96-bit ID
//     stored as 12-byte bytea (or pgid.objectid), with a 16-character short
//     form.
//   - [github.com/pgid/pgid/typeid]: TypeIDs ("user_01h4…") whose prefix is
//     part of the Go type, so a UserID is not an OrderID; stored as uuid.
//
// The database:
//
//   - [github.com/pgid/pgid/pgidpgx]: registers the ID types (ULID, ObjectID
//     and, with RegisterTypeID, TypeIDs) and the pgid domains on a pgx v5
//     connection: cfg.AfterConnect = pgidpgx.AfterConnect. database/sql
//     needs nothing: the types are Scanners and Valuers.
//   - [github.com/pgid/pgid/migrations]: schema pgid in your database (the
//     domains and the SQL functions: time of an ID, text conversions, range
//     bounds, generation in SQL, TypeID text, partitions, tailing), applied by
//     migrations.Up or `pgid migrate up`, with pgid's own runner.
//   - [github.com/pgid/pgid/partition]: keeps a table PARTITION BY RANGE (id)
//     in time partitions: made ahead, retired after a retention period.
//   - [github.com/pgid/pgid/tail]: reads a table in ID order after a cursor
//     ID without skipping rows whose transactions commit late.
//
// At the edge of an API:
//
//   - [github.com/pgid/pgid/opaque]: turns IDs into keyed public codes and
//     back, so a code reveals neither its time nor its neighbours.
//
// Outside this module, in the same repository:
//
//   - github.com/pgid/pgid/cmd/pgid: the pgid command (new, inspect, convert,
//     range, migrate, schema, demo, seal/open/new-key, partition, tail); go
//     install github.com/pgid/pgid/cmd/pgid@latest.
//   - github.com/pgid/pgid/sqlc: an example of sqlc with pgid's types, for
//     pgx v5 and database/sql (no API promise).
//   - github.com/pgid/pgid/internal/pgserver: finds or starts the PostgreSQL
//     that the CLI's demo and the tests use (internal to pgid).
//
// # Quick start
//
// From a clone, on a machine with nothing but Go (a PostgreSQL is found at
// DATABASE_URL or localhost:5432, else an embedded one is started):
//
//	go run ./cmd/pgid demo
//	go run ./integration_test/cmd/suite
//
// The first loads ULID and UUIDv4 keys into a scratch database and compares
// them; the second runs every test. In a program:
//
//	dsn := os.Getenv("DATABASE_URL") // refuse "": pgx would take libpq's defaults
//	cfg, err := pgxpool.ParseConfig(dsn)
//	cfg.AfterConnect = pgidpgx.AfterConnect
//	pool, err := pgxpool.NewWithConfig(ctx, cfg)
//	err = migrations.Up(ctx, pool)
//	st, err := migrations.ReadStatus(ctx, pool) // st.Database, st.Server: where
//	id := ulidtype.New()
//	_, err = pool.Exec(ctx, "INSERT INTO events (id, kind) VALUES ($1, $2)", id, "signup")
//
// # More
//
// The README (https://github.com/pgid/pgid#readme) explains the choices
// (ULID or ObjectId, ULID or UUIDv7), ORMs, sqlc, your own migration tools,
// security and scaling out; docs/ holds CLI.md, PARTITIONING.md, TAIL.md and
// BENCHMARKS.md; CHANGELOG.md names every break and database change with its
// upgrade path.
package pgid
