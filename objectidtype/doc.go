// Package objectidtype provides ObjectID, a MongoDB-style time-ordered 96-bit
// identifier that is stored in a PostgreSQL bytea column and written as 24
// lower-case hex digits, or as a 16-character URL-safe short form
// ([ObjectID.Short], [ShortID]); [Parse] accepts both.
//
// An ObjectID is a 32-bit Unix time in seconds, a 40-bit random value unique
// to the process (drawn again when the clock enters a new second) and a
// 24-bit counter, all big-endian. Byte order is time order, in Go
// ([ObjectID.Compare], ==) and in PostgreSQL: a range scan on a bytea
// primary key answers "rows created between t1 and t2" without a created_at
// column (see [Range], which works in whole seconds).
//
// [New] never fails and, unlike MongoDB's generators, is strictly increasing
// within the process: when a second's counter runs out it carries into the
// seconds instead of wrapping, and when the clock steps back it keeps the
// last seconds. Copies of a process restored from one memory snapshot
// diverge at their next second. Counters are guessable: never use an
// ObjectID as a secret.
// With lib/pq, cast pgid.objectid parameters ($1::bytea) or connect with
// binary_parameters=yes (see [ObjectID.Value]). See docs/IDS.md for time
// ranges, the generator and process copies, docs/DRIVERS.md for lib/pq.
package objectidtype
