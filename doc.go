// Package pgid makes time-ordered IDs first-class in PostgreSQL from Go:
// ULIDs in uuid columns, MongoDB-style ObjectIds in 12-byte bytea columns and
// TypeIDs whose prefix is a Go type, with pgx, database/sql, sqlc, SQL
// functions and partitioning that all agree to the byte.
//
// This package has no API: it is the map of the module. Import what you need
// (the module depends on pgx v5 and google/uuid only; Go 1.25, PostgreSQL 14
// or newer):
//
//   - [github.com/pgid/pgid/ulidtype], [github.com/pgid/pgid/objectidtype]:
//     the ID types (docs/IDS.md).
//   - [github.com/pgid/pgid/typeid]: TypeIDs, typed by prefix (docs/TYPEID.md).
//   - [github.com/pgid/pgid/pgidpgx]: registers them on pgx v5 connections
//     (docs/DRIVERS.md).
//   - [github.com/pgid/pgid/migrations]: schema pgid, its domains and SQL
//     functions (docs/MIGRATIONS.md).
//   - [github.com/pgid/pgid/partition]: time partitions (docs/PARTITIONING.md).
//   - [github.com/pgid/pgid/tail]: reads a table in ID order (docs/TAIL.md).
//   - [github.com/pgid/pgid/opaque]: keyed public codes (docs/CODES.md).
//
// The pgid command is github.com/pgid/pgid/cmd/pgid (docs/CLI.md). The README
// (https://github.com/pgid/pgid#readme) has the quick start.
package pgid
