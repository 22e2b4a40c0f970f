// Package migrations installs the PostgreSQL side of pgid: schema pgid with
// the domains pgid.ulid (uuid) and pgid.objectid (12-byte bytea), and SQL
// functions to read an ID's time, convert between its text forms, build
// range bounds from a timestamptz, generate IDs for DEFAULT clauses and keep
// time partitions.
//
// # Files and steps
//
// [FS] holds two kinds of SQL file, each with its forward SQL above
// [Marker] and its reverse SQL below:
//
//   - Versioned files, NNN_description.sql: schema, domains, tables, and
//     whatever CREATE OR REPLACE cannot do (dropping a function, changing
//     its arguments or result type). Each runs once per database, in a
//     transaction of its own, and [VersionTable] records its SHA-256. A
//     released file never changes: a test pins every checksum, and [Up]
//     refuses a database whose recorded checksum differs ([ErrChecksum]).
//   - Function definitions, functions/*.sql: every function, as it is
//     today, in CREATE OR REPLACE statements. They form one step,
//     [FunctionsStep], applied again (all files, in name order, in one
//     transaction) whenever their combined checksum differs from the one
//     the database recorded. A fix to a function therefore reaches every
//     database, whatever version it started from; CREATE OR REPLACE keeps
//     what depends on the functions (columns' defaults, views, other
//     functions' SQL-standard bodies) and their privileges.
//
// The function files are laid out by topic, in the order their
// dependencies need (a function with an SQL-standard body binds the
// functions it calls when it is created):
//
//   - 01_errors.sql: the error helpers of the text parsers.
//   - 02_ulid.sql: ULID time, text, bounds, generation, UUIDv7.
//   - 03_objectid.sql: ObjectId time, hex and short text, bounds, generation.
//   - 04_typeid.sql: TypeID text of uuid keys.
//   - 05_partitions.sql: time partitions (package partition).
//   - 06_tail.sql: tailing (package tail).
//
// Their generated parts (alphabets, lookup tables, the unrolled bit
// arithmetic of the text conversions) are written by go generate
// ./migrations from ulidtype.Alphabet and objectidtype.ShortAlphabet.
//
// Versioned files 002 to 006 hold no statement: they are empty markers.
// pgid used one versioned file per feature until the function definitions
// became a step of their own; the functions those versions introduced are
// now defined in functions/ (002: ULID, 003: ObjectId, 004 and 006:
// partitions, 005: UUIDv7 ULIDs), and the files stay, unchanged, so that
// version numbers keep their meaning in databases that recorded them
// (tern's public.pgid_schema_version included). They are frozen with the
// comments of their release, which name function files since merged:
// functions/04_partitions.sql and functions/06_partition_safety.sql are now
// functions/05_partitions.sql, and functions/05_uuidv7.sql is part of
// functions/02_ulid.sql; the list above is the current one.
//
// [Up] runs the pending versioned files first, then the functions. So a
// versioned file may not use a pgid function that the same [Up] has yet to
// create; a new function that a versioned file needs goes into that file
// too (the functions step then replaces it with the same definition).
//
// Up never goes back: it knows the checksum of every edition of the
// function definitions ever released (a test makes sure the list ends with
// the current one), and leaves alone definitions with a checksum it does not
// know, which a newer pgid applied. So an older and a newer release that
// run Up while a deployment rolls over do not undo each other.
//
// # Adopting tern-era databases
//
// pgid used github.com/jackc/tern until version 6, with its version in
// [TernVersionTable]. [Up] adopts such a database once: it records the
// versions tern applied (checksum NULL: tern-era files were edited after
// they were applied, so which edition ran is unknown) without running them
// again, then applies the function definitions, which brings every function
// to today's definition. One privilege is repaired on the way: editions of
// 001 before main's cd54335 granted nothing, so on a database without
// pgid._parse_error adoption grants USAGE on schema pgid and its domains to
// PUBLIC, as today's 001 does. The tern table stays as it is; an older pgid
// then finds its version and does nothing. Only a plain table owned by the
// owner of schema pgid counts, as tern made it: a table or view of that name
// that another role put in schema public is never read. Adoption writes, so
// the owner's Up must run once: until then an application role's Up returns
// [ErrNotOwner]. Adoption takes tern's advisory lock as well as [LockKey],
// so it never runs while a tern migrator does.
//
// # Sessions and locks
//
// [Up] and [Down] take the session-level advisory lock [LockKey], pgid's
// own, waiting at most [DefaultLockWait] (or [WithLockWait]) before they
// return [ErrLocked] naming the session holding it. Each step sets its
// search_path with SET LOCAL, ending with its transaction, and the runner's
// own statements qualify every name and operator: the caller's session
// settings (search_path, custom settings, ...) are as they were, and a
// schema on the caller's search_path cannot redirect anything.
//
// Each file's forward part is idempotent (CREATE ... IF NOT EXISTS, CREATE OR
// REPLACE, a DO block for the domains), so it may also be run by hand, e.g.
// with psql --single-transaction, on a database that already has it.
//
// # Roles
//
// The migrations belong to the database owner (or a role that owns schema
// pgid). They grant USAGE on schema pgid and its domains, EXECUTE on its
// functions and SELECT on [VersionTable] to PUBLIC, so any other role can use
// the domains in its own tables, call every function, and run [Up] when
// there is nothing to do. [Up] with something to apply fails for such a role
// with [ErrNotOwner]. To limit pgid to some roles, REVOKE those grants from
// PUBLIC and grant them to the roles.
//
// Whoever owns schema pgid or anything in it, or may put code on it,
// can make pgid's functions run that code as every role that calls them,
// superusers included. [Up], [Down] and [ReadStatus] therefore refuse
// ([ErrUntrusted], naming each problem and the statement that fixes it,
// before they read [VersionTable] or apply anything) a schema pgid in
// which an object is owned by a role they do not trust, a relation has a
// trigger, rule or policy, an extension has objects, or a role they do not
// trust holds more than PUBLIC is given (CREATE on the schema, INSERT or
// TRIGGER on [VersionTable], a grant option, ...). Trusted are the role
// running them, the roles whose privileges it has (pg_has_role USAGE; not
// for a superuser), the database owner and superusers. Up revokes what the
// owner's default privileges give the objects it creates, and each step
// checks again before it commits. Up also refuses a [VersionTable] that
// records steps whose functions or domains the schema lacks
// ([Status].Missing); [Status].Err is always what Up would refuse the
// database with. README "Security notes" lists what is not checked.
//
// # Functions
//
// ULID (argument and result uuid, so pgid.ulid columns fit directly):
// pgid.ulid_time, pgid.ulid_to_text, pgid.ulid_from_text, pgid.ulid_min_at,
// pgid.ulid_max_at, pgid.gen_ulid, and for ULIDs that are also UUIDv7
// (ulidtype.LayoutV7) pgid.gen_ulid_v7 and pgid.ulid_is_v7. ObjectId
// (bytea): pgid.objectid_time, pgid.objectid_to_hex, pgid.objectid_from_hex,
// pgid.objectid_to_short, pgid.objectid_from_short, pgid.objectid_min_at,
// pgid.objectid_max_at, pgid.gen_objectid. TypeID (uuid and the text with
// its prefix): pgid.typeid_text, pgid.typeid_uuid; see package
// github.com/pgid/pgid/typeid. Partitions: see package
// github.com/pgid/pgid/partition. Tailing (pgid.tail_enable,
// pgid.tail_disable, pgid.tail_config, pgid.tail_writers, the trigger
// functions pgid.tail_guard_ulid and pgid.tail_guard_objectid, and
// pgid.tail_poll and pgid.tail_below, which package tail calls): see package
// github.com/pgid/pgid/tail. Names starting with an underscore
// (pgid._parse_error, pgid._crockford_pairs, pgid._short_alphabet, pgid._tail_check, the
// steps of pgid.ensure_partitions and pgid.retire_partition, ...) are
// internal helpers of these, not API: they may change in any release.
//
// # Search path
//
// No function depends on the caller's search_path: the SQL functions have
// SQL-standard bodies (RETURN ..., so PostgreSQL 14 or newer), bound when the
// migration creates them under a search_path of pg_catalog only; the plpgsql
// functions fix their search_path or qualify every name and operator. A role
// that may create objects in a schema on a caller's search_path cannot
// redirect any call inside them.
//
// Conversion and bound functions are IMMUTABLE STRICT PARALLEL SAFE and agree
// with the Go packages on every input (the integration tests check it), so
//
//	WHERE id >= pgid.ulid_min_at($1) AND id < pgid.ulid_min_at($2)
//
// is answered by a range scan of the primary key, also with generic plans.
// Bad text raises SQLSTATE 22P02 (invalid_text_representation) with a message
// naming the length, or the character and its 0-based position, or the
// overflow. Lengths and positions count bytes of the UTF-8 text, as Go does,
// so a string with a multibyte character fails the same way in SQL and in
// Go, and the input is quoted as Go's strconv.Quote quotes it (a newline
// shows as \n). Text the server itself refuses never reaches the functions
// and fails with another SQLSTATE: a NUL byte with 22021
// (character_not_in_repertoire) as a bound parameter and with 08P01
// (protocol_violation) inside the query text of the simple protocol, invalid
// UTF-8 with 22021.
//
// # Generators
//
// pgid.gen_ulid, pgid.gen_ulid_v7 and pgid.gen_objectid exist for DEFAULT
// clauses and ad-hoc SQL. pgid.gen_ulid (80 random bits) is not monotonic.
// pgid.gen_ulid_v7 is uuidv7() on PostgreSQL 18 and later; before 18 it
// makes the same layout (12-bit sub-millisecond fraction, 62 random bits),
// increasing within a backend whenever clock_timestamp() has moved on by a
// microsecond. pgid.gen_objectid writes the next value of the sequence
// pgid.objectid_counter (007_objectid_counter.sql) after the seconds: a
// random 5-byte value of the database and a 3-byte counter, which carries
// into it past 2^24. IDs of one second strictly increase in the order
// made, across sessions, and never collide within the database; a hot
// standby refuses it (nextval). Go's ulidtype.New and objectidtype.New are
// strictly increasing within a process.
//
// The database's value is drawn when 007 runs, and the function reads
// only the sequence, whose state each server keeps for itself. Every
// database that writes ObjectIds beside another needs its own value: one
// whose own Up ran 007 (a logical replica set up from the schema) has it,
// but a copy (pg_dump and restore, pg_basebackup, pg_createsubscriber,
// CREATE DATABASE ... TEMPLATE) continues its original's. On such a copy,
// before it writes, run as the owner of schema pgid
//
//	SELECT pgid.objectid_reseed();
//
// On Citus (13.2, tested; docs/CITUS.md) nothing is needed: Citus creates
// the sequence on each worker with a range of its own (from the worker's
// group id times 2^48), so every node's ObjectIds differ, and a worker
// refuses pgid.objectid_reseed (setval out of the range's bounds).
package migrations

//go:generate go run ./internal/gensql
