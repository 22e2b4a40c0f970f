// Package sqlc holds pgid's sqlc example: sqlc.yaml with the overrides that
// map the pgid domains to ulidtype.ULID and objectidtype.ObjectID, the
// schema of an example application (a URL shortener with an event log,
// schema.sql), its queries (queries/) and the code sqlc generates from them
// for pgx/v5 (package pgxdb) and for database/sql (package sqldb).
//
// Regenerate from this directory with
//
//	CGO_ENABLED=0 go run github.com/sqlc-dev/sqlc/cmd/sqlc@v1.31.1 generate
//
// The generated packages run against a database with the pgid migrations
// and [Schema] applied; the integration tests (../integration_test) run
// every generated method.
package sqlc

import _ "embed"

// Schema is schema.sql: the example application's tables. Apply it after
// the pgid migrations.
//
//go:embed schema.sql
var Schema string
