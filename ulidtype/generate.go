package ulidtype

import (
	"encoding/binary"
	"io"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	crand "crypto/rand"
)

// Why the generator is monotonic: ULIDs are meant to be B-tree keys. Keys
// that share a millisecond but are random within it land at random places of
// the rightmost leaf pages, which then split half full; at a few hundred rows
// per millisecond such an index ends up worse filled than one of random
// UUIDv4 keys (62.8 % leaf fill was measured). When every key is larger than
// the one before, each insert appends at the right edge of the index, which
// PostgreSQL fills completely.

// Generator makes ULIDs that strictly increase. It is safe for concurrent use
// and lock-free; its zero value is ready to use, with the system clock and
// the default entropy.
//
// How the 80 entropy bits are made: the first ULID of a millisecond gets 79
// random bits (the top bit is 0). Each next ULID in the same millisecond adds
// one to the top 16 bits of the previous one and draws 64 fresh random bits
// for the rest: it is the previous value plus a random increment in
// [1, 2^65), ordered but not guessable. If the top 16 bits overflow (more
// than 32,768 ULIDs in one millisecond) the carry goes into the timestamp, so
// the IDs run ahead of the clock by a millisecond instead of failing or
// wrapping. If the clock steps back, the generator keeps its last timestamp.
// After the last ULID of year 10889 it keeps returning that timestamp.
//
// Most programs use the package-level [New] and [Fill]; a Generator of one's
// own is for injecting a clock or an entropy source (tests, backfills with
// historical times).
type Generator struct {
	clock func() time.Time // nil: time.Now
	last  atomic.Uint64    // top word of the last ULID: timestamp<<16 | sequence

	entropy io.Reader  // nil: the runtime's ChaCha8Rand
	mu      sync.Mutex // guards the reads of entropy and buf
	buf     [128]byte
	pos     int
}

// NewGenerator returns a Generator that reads the time from clock and random
// bytes from entropy.
//
// A nil clock means [time.Now]. A nil entropy means the Go runtime's
// ChaCha8Rand generator, the source of [math/rand/v2]'s top-level functions:
// cryptographically strong, seeded from the operating system, per thread and
// without locks (https://go.dev/blog/chacha8rand). An injected entropy is read
// under a mutex in batches; if it returns an error, that batch is read from
// [crypto/rand] instead, so New never fails.
func NewGenerator(clock func() time.Time, entropy io.Reader) *Generator {
	return &Generator{clock: clock, entropy: entropy}
}

var defaultGenerator Generator

// New returns a new ULID for the current time from the package's generator.
// It never fails, is safe for concurrent use, and each call returns a value
// larger than all earlier ones in the process.
func New() ULID { return defaultGenerator.New() }

// Fill fills dst with new, strictly increasing ULIDs from the package's
// generator, reading the clock once.
func Fill(dst []ULID) { defaultGenerator.Fill(dst) }

// New returns the next ULID: larger than every earlier one from g.
func (g *Generator) New() ULID {
	ms := g.now()
	// Fast path: the same millisecond, one compare-and-swap.
	if old := g.last.Load(); ms <= old>>16 && old != ^uint64(0) && g.last.CompareAndSwap(old, old+1) {
		return fromHalves(old+1, g.random64())
	}
	return fromHalves(g.reserve(ms, 1), g.random64())
}

// Fill fills dst with strictly increasing ULIDs, reading the clock once.
func (g *Generator) Fill(dst []ULID) {
	if len(dst) == 0 {
		return
	}
	hi := g.reserve(g.now(), uint64(len(dst)))
	for i := range dst {
		dst[i] = fromHalves(hi, g.random64())
		if hi != ^uint64(0) {
			hi++
		}
	}
}

// reserve claims n consecutive top words for time ms and returns the first.
func (g *Generator) reserve(ms, n uint64) uint64 {
	for {
		old := g.last.Load()
		first := old + 1
		if ms > old>>16 || old == 0 {
			// A new millisecond (or the first ULID): a random start in the
			// lower half of the sequence leaves room for 32,768 more.
			first = ms<<16 | g.random64()&0x7FFF
		}
		last := first + n - 1
		switch {
		case old == ^uint64(0):
			return old // saturated in the year 10889
		case last < first:
			last = ^uint64(0) // Fill saturates at the maximum
		}
		if g.last.CompareAndSwap(old, last) {
			return first
		}
	}
}

// now returns the clock as milliseconds clamped to the ULID range.
func (g *Generator) now() uint64 {
	if g.clock == nil {
		return clampMilli(time.Now())
	}
	return clampMilli(g.clock())
}

// random64 returns 64 random bits.
func (g *Generator) random64() uint64 {
	if g.entropy == nil {
		return rand.Uint64()
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.pos == 0 { // the buffer is used up
		if _, err := io.ReadFull(g.entropy, g.buf[:]); err != nil {
			crand.Read(g.buf[:]) // never fails since Go 1.24
		}
	}
	v := binary.BigEndian.Uint64(g.buf[g.pos:])
	g.pos = (g.pos + 8) % len(g.buf)
	return v
}
