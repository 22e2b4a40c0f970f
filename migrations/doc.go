// Package migrations installs the PostgreSQL side of pgid: schema pgid with
// the domains pgid.ulid (uuid) and pgid.objectid (12-byte bytea), and SQL
// functions to read an ID's time, convert its text forms, build range bounds,
// generate IDs for DEFAULT clauses, keep time partitions and tail tables.
//
// [Up] applies the SQL in [FS]: the versioned files (NNN_*.sql) once each,
// pinned by checksum ([ErrChecksum]), then the function definitions
// (functions/*.sql) as one step, [FunctionsStep], again whenever they
// change. [Down] reverts it all; [ReadStatus] reports where a database
// stands. The database owner migrates ([ErrNotOwner]); any role may use the
// domains and functions. A schema pgid that an untrusted role could change
// is refused ([ErrUntrusted]). No SQL function depends on the caller's
// search_path; names starting with an underscore are internal.
//
// See docs/MIGRATIONS.md for the steps, locks, tern-era databases, roles,
// the SQL functions, generators and other migration tools; docs/SECURITY.md
// for the trust check; docs/REPLICAS.md for copies of a database, which
// need pgid.objectid_reseed().
package migrations

// For those who change the SQL files. The function files are laid out by
// topic, in the order their dependencies need (a function with an
// SQL-standard body binds the functions it calls when it is created):
// 01_errors.sql (the error helpers of the text parsers), 02_ulid.sql (ULID
// time, text, bounds, generation, UUIDv7), 03_objectid.sql, 04_typeid.sql,
// 05_partitions.sql (package partition) and 06_tail.sql (package tail). Their
// generated parts are written by go generate ./migrations, each from the one
// place of its fact: alphabets, lookup tables and the unrolled bit arithmetic
// of the text conversions from ulidtype.Alphabet and
// objectidtype.ShortAlphabet; the wording of parse errors from Go's
// (internal/idtext); the SQLSTATEs of pgid's own from internal/sqlstate; the
// partition functions whose settings 05_partitions.sql pins from that file's
// own definitions. Tests fail when code or documentation names a function,
// SQLSTATE, file or checksum that does not exist.
//
// Versioned files 002 to 006 hold no statement: pgid used one versioned file
// per feature until the function definitions became a step of their own, and
// the files stay, unchanged, so that version numbers keep their meaning in
// databases that recorded them (tern's public.pgid_schema_version included).
// They are frozen with the comments of their release, which name function
// files since merged: functions/04_partitions.sql and
// functions/06_partition_safety.sql are now functions/05_partitions.sql, and
// functions/05_uuidv7.sql is part of functions/02_ulid.sql.
//
// Up runs the pending versioned files first, then the functions: a versioned
// file may not use a pgid function that the same Up has yet to create; a new
// function that a versioned file needs goes into that file too (the
// functions step then replaces it with the same definition). Up knows the
// checksum of every released edition of the function definitions
// (history.go; a test makes sure the list ends with the current one).

//go:generate go run ./internal/gensql
