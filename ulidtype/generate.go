package ulidtype

import (
	"encoding/binary"
	"io"
	"math/rand/v2"
	"sync"
	"time"

	crand "crypto/rand"
)

// Generator makes ULIDs that strictly increase. It is safe for concurrent
// use, and its zero value is ready to use, with the system clock and the
// default entropy.
//
// Why monotonic: ULIDs are meant to be B-tree keys. Keys that share a
// millisecond but are random within it land at random places of the rightmost
// leaf pages, which then split half full: loading a million rows, such a
// primary key filled its leaves to 77 % at 255 rows per millisecond and to
// 68-69 % at 512 or more, below random UUIDv4 keys (72 %), where monotonic
// keys filled them to 90 % (docs/BENCHMARKS.md). When every key is larger
// than the one before, each insert appends at the right edge of the index.
//
// How the 80 entropy bits are made: the first ULID of a millisecond gets 79
// random bits (the top bit is 0). Each next ULID in the same millisecond adds
// one to the top 16 bits of the previous one and draws 64 fresh random bits
// for the rest: it is the previous value plus a random increment in
// [1, 2^65), ordered but not guessable. If the top 16 bits overflow (after
// at least 32,768 ULIDs in one millisecond) the carry goes into the
// timestamp instead of failing or wrapping, so the IDs run ahead of the clock
// by one millisecond per 65,536 further ULIDs until the clock catches up; a
// Fill of a million IDs, for example, ends 15 ms ahead. If the clock
// steps back, the generator keeps its last timestamp. After the last ULID of
// year 10889 (7ZZZZZZZZZZZZZZZZZZZZZZZZZ) it keeps returning that ULID.
//
// Each ULID costs one clock read, taken before a short critical section that
// advances the state and takes 8 bytes (16 for the first of a millisecond)
// from a buffer of entropy refilled 256 bytes at a time; Fill takes the lock
// once for the whole batch.
//
// Most programs use the package-level [New] and [Fill]; a Generator of one's
// own is for injecting a clock or an entropy source (tests, backfills with
// historical times).
type Generator struct {
	clock   func() time.Time // nil: time.Now
	entropy io.Reader        // nil: chacha

	mu     sync.Mutex // guards the fields below
	last   uint64     // top word of the last ULID: timestamp<<16 | sequence
	chacha *rand.ChaCha8
	buf    [256]byte
	pos    int // next unread byte of buf; 0: refill first
}

// NewGenerator returns a Generator that reads the time from clock and random
// bytes from entropy.
//
// A nil clock means [time.Now]. A nil entropy means a [rand.ChaCha8] (in its
// own words, a cryptographically strong random number generator) seeded from
// [crypto/rand]: the same strength as reading crypto/rand for every ULID, at a
// tenth of the cost. Entropy is read in batches of 256 bytes; if an injected
// entropy returns an error, that batch is read from crypto/rand instead, so
// New never fails.
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
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.id(g.reserve(ms, 1))
}

// Fill fills dst with strictly increasing ULIDs, reading the clock once.
func (g *Generator) Fill(dst []ULID) {
	if len(dst) == 0 {
		return
	}
	ms := g.now()
	g.mu.Lock()
	defer g.mu.Unlock()
	hi := g.reserve(ms, uint64(len(dst)))
	for i := range dst {
		dst[i] = g.id(hi)
		if hi != ^uint64(0) {
			hi++
		}
	}
}

// reserve claims n consecutive top words for time ms and returns the first.
// The caller holds g.mu.
func (g *Generator) reserve(ms, n uint64) uint64 {
	old := g.last
	if old == ^uint64(0) {
		return old // saturated in the year 10889
	}
	first := old + 1
	if ms > old>>16 {
		// A new millisecond: a random start in the lower half of the
		// sequence leaves room for at least 32,768 more.
		first = ms<<16 | g.random64()&0x7FFF
	}
	g.last = first + n - 1
	if g.last < first {
		g.last = ^uint64(0) // Fill saturates at the maximum
	}
	return first
}

// id completes the top word hi with 64 random bits; the last top word of
// all, where the generator saturates, gets the largest ULID, so saturated
// IDs repeat instead of going back. The caller holds g.mu.
func (g *Generator) id(hi uint64) ULID {
	if hi == ^uint64(0) {
		return fromHalves(hi, ^uint64(0))
	}
	return fromHalves(hi, g.random64())
}

// now returns the clock as milliseconds clamped to the ULID range.
func (g *Generator) now() uint64 {
	if g.clock == nil {
		return clampMilli(time.Now())
	}
	return clampMilli(g.clock())
}

// random64 returns 64 random bits from the entropy buffer. The caller holds
// g.mu.
func (g *Generator) random64() uint64 {
	if g.pos == 0 { // used up
		g.refill()
	}
	v := binary.BigEndian.Uint64(g.buf[g.pos:])
	g.pos = (g.pos + 8) % len(g.buf)
	return v
}

// refill reads a new batch of entropy into buf. The caller holds g.mu.
func (g *Generator) refill() {
	if g.entropy == nil {
		if g.chacha == nil {
			var seed [32]byte
			crand.Read(seed[:]) // never fails since Go 1.24
			g.chacha = rand.NewChaCha8(seed)
		}
		g.chacha.Read(g.buf[:]) // never fails
		return
	}
	if _, err := io.ReadFull(g.entropy, g.buf[:]); err != nil {
		crand.Read(g.buf[:])
	}
}
