package ulidtype

import (
	crand "crypto/rand"
	"encoding/binary"
	"io"
	"math/bits"
	"math/rand/v2"
	"sync"
	"time"
)

// Why the generator is monotonic: ULIDs from one process are meant to be
// B-tree keys. Keys that share a millisecond but are random within it land in
// random places of the rightmost leaf pages, which then split half full; at a
// few hundred rows per millisecond such an index ends up worse filled than one
// of random UUIDv4 keys (62.8 % leaf fill was measured). Making every key
// larger than the previous one turns each insert into an append at the right
// edge of the index, which PostgreSQL fills completely.

// Generator makes ULIDs that strictly increase, safe for concurrent use.
//
// Within one millisecond each ULID is the previous one plus a random increment
// in [1, 2^32], so the sequence is ordered but the next value cannot be
// guessed. When the clock moves back the generator keeps its last timestamp,
// and when the 80 entropy bits would overflow the carry goes into the
// timestamp, so the order holds in both cases and New never fails.
//
// Most programs use the package-level [New] and [Fill]; a Generator of one's
// own is for injecting a clock or an entropy source (tests, backfills with
// historical times).
type Generator struct {
	clock   func() time.Time
	entropy io.Reader

	mu     sync.Mutex
	hi, lo uint64 // last ULID: timestamp<<16 | entropy[0:2], entropy[2:10]
	pos    int    // next unread byte of buf
	buf    [256]byte
}

// NewGenerator returns a Generator that reads the time from clock and random
// bytes from entropy. A nil clock means [time.Now]. A nil entropy means a
// ChaCha8 generator ([rand.ChaCha8], cryptographically strong) seeded from
// [crypto/rand]. If entropy returns an error, the generator reads that batch
// from crypto/rand instead, so New never fails.
func NewGenerator(clock func() time.Time, entropy io.Reader) *Generator {
	if entropy == nil {
		var seed [32]byte
		crand.Read(seed[:]) // never fails since Go 1.24
		entropy = rand.NewChaCha8(seed)
	}
	g := &Generator{clock: clock, entropy: entropy}
	g.pos = len(g.buf)
	return g
}

var defaultGenerator = NewGenerator(nil, nil)

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
	g.advance(ms)
	hi, lo := g.hi, g.lo
	g.mu.Unlock()
	return fromHalves(hi, lo)
}

// Fill fills dst with strictly increasing ULIDs, reading the clock once.
func (g *Generator) Fill(dst []ULID) {
	if len(dst) == 0 {
		return
	}
	ms := g.now()
	g.mu.Lock()
	defer g.mu.Unlock()
	for i := range dst {
		g.advance(ms)
		dst[i] = fromHalves(g.hi, g.lo)
	}
}

// now returns the clock as milliseconds clamped to the ULID range.
func (g *Generator) now() uint64 {
	var t time.Time
	if g.clock == nil {
		t = time.Now()
	} else {
		t = g.clock()
	}
	return clampMilli(t)
}

// advance moves the generator's last value to the next one for time ms.
// The caller holds g.mu.
func (g *Generator) advance(ms uint64) {
	if g.hi == 0 && g.lo == 0 || ms > g.hi>>16 {
		// A new millisecond: 80 fresh random bits.
		r := g.random(10)
		g.hi = ms<<16 | uint64(binary.BigEndian.Uint16(r))
		g.lo = binary.BigEndian.Uint64(r[2:])
		return
	}
	// The same millisecond, or the clock went back: add a random increment
	// in [1, 2^32] to the whole 128-bit value; a carry out of the entropy
	// moves the timestamp forward by one millisecond.
	inc := uint64(binary.BigEndian.Uint32(g.random(4))) + 1
	lo, carry := bits.Add64(g.lo, inc, 0)
	hi := g.hi + carry
	if hi < g.hi {
		// Past 7ZZZZZZZZZZZZZZZZZZZZZZZZZ, in the year 10889: stay at the
		// maximum instead of wrapping around to the past.
		hi, lo = ^uint64(0), ^uint64(0)
	}
	g.hi, g.lo = hi, lo
}

// random returns n unread bytes of the entropy buffer, refilling it as needed.
// The caller holds g.mu.
func (g *Generator) random(n int) []byte {
	if g.pos+n > len(g.buf) {
		if _, err := io.ReadFull(g.entropy, g.buf[:]); err != nil {
			crand.Read(g.buf[:])
		}
		g.pos = 0
	}
	b := g.buf[g.pos : g.pos+n]
	g.pos += n
	return b
}
