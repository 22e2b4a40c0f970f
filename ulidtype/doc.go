// Package ulidtype provides ULID, a time-ordered 128-bit identifier that is
// stored in a PostgreSQL uuid column and written as 26 characters of Crockford
// base32.
//
// A ULID is 48 bits of Unix time in milliseconds followed by 80 bits of
// entropy, both big-endian. By default ([LayoutV7]) six of the entropy bits
// are the version and variant of an RFC 9562 UUIDv7, so the ULIDs that [New]
// makes are also UUIDv7 values, as PostgreSQL 18's uuidv7() makes them; see
// [Layout]. Byte order is time order, in Go ([ULID.Compare], ==) and in
// PostgreSQL: a range scan on a uuid primary key answers "rows created
// between t1 and t2" without a created_at column (see [Range]).
//
// [New] never fails and is strictly increasing within the process: within a
// millisecond each ULID is the previous one plus a random increment
// (ordered, not guessable); past a millisecond's capacity it carries into
// the timestamp, and when the clock steps back it keeps the last one. The
// default entropy is ChaCha8, seeded from crypto/rand and reseeded every
// 1,024 ULIDs or one second, so copies of a process restored from one
// memory snapshot diverge. See docs/IDS.md for the generator, the entropy
// and process copies.
package ulidtype
