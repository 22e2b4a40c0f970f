// Package objectidtype provides ObjectID, a MongoDB-style time-ordered 96-bit
// identifier that is stored in a PostgreSQL bytea column and written as 24
// lower-case hex digits.
//
// An ObjectID is a 32-bit Unix time in seconds, a 40-bit random value unique
// to the process (drawn again when the clock enters a new second, see
// [Generator]) and a 24-bit counter, all big-endian. Byte order is
// therefore time order, in Go ([ObjectID.Compare], ==) and in PostgreSQL,
// where bytea values compare with memcmp: a range scan on a bytea primary key
// answers "rows created between t1 and t2" without a created_at column (see
// [Range]).
//
// Besides hex, an ObjectID has a 16-character URL-safe short form
// ([ObjectID.Short], [ShortID]); [Parse] accepts both.
//
// # Time ranges
//
// ObjectIDs hold whole seconds, so both ends of [Range] are truncated to the
// second (rounded toward the past): Range(10:00:00.9, 10:00:05.5) holds the
// IDs of seconds 10:00:00 to 10:00:04, including one made at 10:00:00.2, and
// not those of 10:00:05, including one made at 10:00:05.2. For whole-second
// bounds the range is exact, and Range(a, b) and Range(b, c) always tile
// Range(a, c) without gap or overlap. Times before 1970 and after 2106 are
// clamped as by [MinAt], so IDs of the very last second,
// 2106-02-07T06:28:15Z, are beyond every hi.
//
// # Generation
//
// Why monotonic: ObjectIDs are meant to be B-tree keys, and keys that always
// grow turn each insert into an append at the right edge of the index, whose
// leaf pages PostgreSQL fills up to their fillfactor (90 by default; the
// measured sizes are in docs/BENCHMARKS.md). MongoDB's generators let the
// 24-bit counter wrap around, so after 2^24 IDs in one second, or after the
// clock steps back, a later ID can sort before an earlier one.
//
// So here the seconds and the counter form one 56-bit number, and each new ID
// takes the next one. Within a second the counter advances by one. When the
// clock has moved to a new second, the seconds follow it and the counter goes
// on counting in its lower half, which leaves room for at least 2^23 IDs in
// that second. Past that, the counter carries into the seconds instead of
// wrapping (the IDs run ahead of the clock by one second per 2^24 more). A
// clock that steps back keeps the last seconds. In all cases the order holds
// and New never fails. (Only at the very end of the range, in February 2106,
// does the generator stop advancing and repeat its last ID.)
//
// An entropy source given to [NewGenerator] is used as given, exactly as needed and never mixed or
// read ahead: on first use 8 bytes (the 5-byte process-unique value and the
// counter's 3-byte start), and 5 bytes (a new process-unique value) whenever
// the clock moves the seconds forward. So a deterministic source makes
// deterministic IDs. The source must never fail: New and Fill cannot return
// an error, so if a read fails or comes up short (a [bytes.Reader] that has
// run dry, for example) they panic with an error that wraps the reader's
// error, rather than carry on with other entropy.
//
// # Process copies
//
// The 40-bit process-unique value is drawn on first use, together with the
// counter's start, and drawn again each time the clock moves the seconds
// forward, so it is unique to the process and the second rather than to the
// process alone. Because it sits after the seconds, a new value at a new
// second keeps the order; IDs that reach a second by carrying keep the value
// of the second they carried from. The redraw is for copies of one process: a
// process restored twice from one memory snapshot (serverless snapshot-restore,
// cloned virtual machines) keeps its value and its counter in both copies, and
// copies that generate in the same second would make the same IDs. pgid
// promises that copies stop doing so at the first ID each makes once its
// clock has passed the seconds of the last ID made before the copy: from there
// on each copy has a value of its own, so two copies make the same ID only
// as two unrelated processes can, when their 40-bit values and counters meet in one second.
// Within the second of the copy no generator can help, since ObjectIDs of one
// second carry no per-ID randomness. This relies on crypto/rand returning
// different bytes in each copy, as described in package ulidtype (section
// Entropy): Go's
// crypto/rand keeps no state in the process, and Linux reseeds its own when a
// hypervisor signals a restored or cloned virtual machine (vmgenid).
//
// # lib/pq
//
// lib/pq, unless binary_parameters=yes, sends a []byte for a parameter of any
// type but bytea raw, as text, and [ObjectID.Value] cannot know the
// parameter's type. That includes an uncast pgid.objectid domain parameter.
// The server then reads the 12 bytes as UTF-8 text: 0x00 and invalid UTF-8
// are refused (22021) and backslash escapes fail the domain's 12-byte CHECK,
// but valid non-ASCII UTF-8 is converted to the database encoding. In UTF8
// and SQL_ASCII databases nothing changes; in EUC_JP, EUC_KR and EUC_CN some
// IDs keep their length and are stored as a different ID without an error
// (6b032f597e0944624d52ce91 as …52a6a1 in EUC_JP). With lib/pq, cast such
// parameters ($1::bytea) or connect with binary_parameters=yes; pgx and its
// stdlib need neither. Bound to a text parameter, lib/pq's raw bytes are
// refused or stored as text that no Scan reads back as an ID; pgx sends
// [ObjectID.TextValue].
package objectidtype
