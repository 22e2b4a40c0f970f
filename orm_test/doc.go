// Package ormtest tests pgid's ID types with the ORMs and query helpers Go
// services use (GORM, bun, ent, sqlx) against a real PostgreSQL. It is a
// module of its own so that none of them enters the go.mod of the library
// or of integration_test. Its tests find the server as integration_test's
// do (DATABASE_URL, else an embedded PostgreSQL) and fail, never skip,
// without one.
package ormtest
