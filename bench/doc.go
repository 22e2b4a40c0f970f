// Package bench compares pgid's ID types with peer libraries and with pgx's own
// types, and, inside PostgreSQL, pgid's keys with the ones a team would pick
// instead (BenchmarkPGKeys) and keys random within their millisecond
// (BenchmarkDBLoad), and pgid's opaque public codes with Sqids and Hashids
// (BenchmarkOpaque). It is a module of its own so that the peers and the
// plotting library never enter the library's go.mod.
//
// docs/BENCHMARKS.md and its charts are written by the report command from
// the benchmarks' output; with a PostgreSQL 18 at DATABASE_URL:
//
//	cd bench
//	{ for i in 1 2 3 4 5 6 7 8; do go test -run '^$' -bench 'ULID|ObjectID' -benchmem -benchtime 300ms . ; done &&
//	  go test -run '^$' -bench 'PGKeys|DBLoad' -benchtime 1x -count 3 -timeout 90m . ; } |
//	  go run ./report -docs ../docs
package bench
