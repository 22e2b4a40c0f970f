// Package ulidtype provides ULID, a time-ordered 128-bit identifier that is
// stored in a PostgreSQL uuid column and written as 26 characters of Crockford
// base32.
//
// A ULID is 48 bits of Unix time in milliseconds followed by 80 bits of
// entropy, both big-endian. By default ([LayoutV7]) six of the entropy bits
// are the version and variant of an RFC 9562 UUIDv7, so the ULIDs that [New]
// makes are also UUIDv7 values, as PostgreSQL 18's uuidv7() makes them; see
// [Layout]. Byte order is therefore time order, in Go
// ([ULID.Compare], ==) and in PostgreSQL, where uuid values compare with
// memcmp: a range scan on a uuid primary key answers "rows created between t1
// and t2" without a created_at column (see [Range]).
//
// # Generation
//
// Why monotonic: ULIDs are meant to be B-tree keys. Keys that share a
// millisecond but are random within it land at random places of the rightmost
// leaf pages, which then split and stay partly empty, while keys that always
// grow turn each insert into an append at the right edge of the index, whose
// leaf pages PostgreSQL fills up to their fillfactor (90 by default). The
// measured sizes are in docs/BENCHMARKS.md.
//
// How the random bits are made: the leading random bits of a ULID are its
// sequence number, 16 bits in [LayoutULID] and 26 in [LayoutV7] (the 12
// rand_a bits and the top 14 of rand_b, as RFC 9562 §6.2 method 1 allows);
// the rest, 64 bits in LayoutULID and 48 in LayoutV7, are fresh random bits
// for every ULID. The first ULID of a millisecond starts its sequence at a
// random number with the top bit 0 (79 random bits in LayoutULID, 73 in
// LayoutV7). Each next ULID in the same millisecond adds one to the sequence
// and draws fresh random bits for the rest: it is the previous value plus a
// random increment, ordered but not guessable. If the sequence overflows
// (after at least 32,768 ULIDs in one millisecond in LayoutULID, 33,554,432
// in LayoutV7) the carry goes into the timestamp instead of failing or
// wrapping, so the IDs run ahead of the clock by one millisecond per 65,536
// (LayoutULID) or 67,108,864 (LayoutV7) further ULIDs until the clock
// catches up. A Fill of a million IDs, for example, ends up to 15 ms ahead
// of its clock reading in LayoutULID and in the clock's own millisecond in
// LayoutV7. If the clock steps back, the generator keeps its last
// timestamp. After the last millisecond of year 10889 it keeps returning the
// largest ULID of its layout (7ZZZZZZZZZZZZZZZZZZZZZZZZZ in LayoutULID).
//
// A change of layout ([Generator.SetLayout]) takes effect with the next
// ULID. If that one would fall in the millisecond of the last ULID, or
// before it (the clock stepped back), it moves to the next millisecond, as
// a carry would: the two layouts do not interleave in order within one
// millisecond.
//
// Each ULID costs one clock read, taken before a short critical section that
// advances the state and draws 64 random bits (two draws for the first ULID
// of a millisecond); Fill takes the lock once for the whole batch.
//
// # Entropy
//
// The default entropy is a [rand.ChaCha8] stream (in its own words, a
// cryptographically strong random number generator) seeded from
// [crypto/rand] on first use and reseeded from crypto/rand every 1,024 ULIDs
// and at the first ULID made once the clock reads one second or more past the
// last reseed. The reseeding is for copies of one process: a process restored
// twice from one memory snapshot (serverless snapshot-restore, cloned virtual
// machines) continues the same ChaCha8 stream in both copies, and copies
// that generate in the same millisecond would make the same ULIDs. With
// reseeding, each copy makes at most 1,024 ULIDs from the shared stream, and
// none once its clock is one second past the last reseed before the copy;
// after that their entropy is independent. This relies on crypto/rand
// returning different bytes in each copy: Go's crypto/rand keeps no state of
// its own in the process and reads the kernel (on Linux getrandom(2), through
// the vDSO on Linux 6.11 and later, whose state the kernel throws away when it
// reseeds), and Linux reseeds when a hypervisor signals a restored or cloned
// virtual machine through a VM generation ID (vmgenid, Linux 5.18 and later).
// Where nothing tells the kernel, copies of a virtual machine share its
// random numbers as well until the kernel reseeds on its own, and no
// generator inside them can tell them apart.
//
// An entropy source given to [NewGenerator] is used as given: each ULID
// reads exactly what it needs, and nothing is ever mixed in or read ahead, so
// a deterministic source makes deterministic ULIDs. The first ULID of a millisecond reads 10 bytes,
// which become its bytes 6 to 15 (the entropy after the timestamp) before the
// sequence's top bit is cleared and, in LayoutV7, the version and variant
// bits are set. Each next ULID reads its fresh random bits: 8 bytes, its
// bytes 8 to 15, in LayoutULID; 6 bytes, its bytes 10 to 15, in LayoutV7.
// The source must never fail: New and Fill cannot return an error, so
// if a read fails or comes up short (a [bytes.Reader] that has run dry, for
// example) they panic with an error that wraps the reader's error, rather than
// carry on with other entropy. An endless source such as [rand.ChaCha8] with a
// fixed seed suits tests. Generators with the same source produce the same
// ULIDs; one that must stay unique across copies of a process should use the
// default entropy.
package ulidtype
