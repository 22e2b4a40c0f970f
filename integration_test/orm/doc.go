// Package ormtest tests pgid's ID types with the ORMs and query helpers Go
// services use (GORM, bun, ent, sqlx) against a real PostgreSQL. It is a
// package of the integration_test module, which holds every third-party
// test dependency, so that none of them enters the library's go.mod. Its
// tests find the server as integration_test's do (DATABASE_URL, else an
// embedded PostgreSQL) and fail, never skip, without one.
package ormtest
