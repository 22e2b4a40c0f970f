package ulidtype

import (
	"encoding/binary"
	"fmt"
	"io"
	"math/rand/v2"
	"sync"
	"time"

	crand "crypto/rand"
)

// Reseeding of the default entropy (see [Generator]): the ChaCha8 stream is
// rekeyed from crypto/rand after this many ULIDs, and at the first ULID whose
// clock reading is this many milliseconds or more past the last reseed.
const (
	reseedEvery   = 1024
	reseedAfterMs = 1000
)

// Generator makes ULIDs that strictly increase. It is safe for concurrent
// use, and its zero value is ready to use, with the system clock and the
// default entropy.
//
// Why monotonic: ULIDs are meant to be B-tree keys. Keys that share a
// millisecond but are random within it land at random places of the rightmost
// leaf pages, which then split and stay partly empty, while keys that always
// grow turn each insert into an append at the right edge of the index, whose
// leaf pages PostgreSQL fills up to their fillfactor (90 by default). The
// measured sizes are in docs/BENCHMARKS.md.
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
// Each ULID costs one clock read, taken before a short critical section that
// advances the state and draws 64 random bits (two draws for the first ULID
// of a millisecond); Fill takes the lock once for the whole batch.
//
// Most programs use the package-level [New] and [Fill]; a Generator of one's
// own is for injecting a clock or an entropy source (tests, backfills with
// historical times).
type Generator struct {
	clock   func() time.Time // nil: time.Now
	entropy io.Reader        // nil: chacha, reseeded from crypto/rand

	mu       sync.Mutex // guards the fields below
	last     uint64     // top word of the last ULID: timestamp<<16 | sequence
	left     int        // ULIDs until chacha must be reseeded; 0: seed first
	reseedAt uint64     // clock millisecond from which the next ULID reseeds
	chacha   rand.ChaCha8
	buf      [8]byte // read buffer for entropy
}

// NewGenerator returns a Generator that reads the time from clock and random
// bytes from entropy.
//
// A nil clock means [time.Now]. A nil entropy means the default entropy,
// ChaCha8 reseeded from crypto/rand, described at [Generator].
//
// An entropy source is used as given: each ULID reads exactly what it needs,
// 10 bytes for the first ULID of a millisecond (its 80 entropy bits, the top
// bit cleared) and 8 bytes for each next one (its low 64 bits), and nothing is
// ever mixed in or read ahead, so a deterministic source makes deterministic
// ULIDs. The source must never fail: New and Fill cannot return an error, so
// if a read fails or comes up short (a [bytes.Reader] that has run dry, for
// example) they panic with an error that wraps the reader's error, rather than
// carry on with other entropy. An endless source such as [rand.ChaCha8] with a
// fixed seed suits tests. Generators with the same source produce the same
// ULIDs; one that must stay unique across copies of a process should use the
// default entropy.
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
	if g.entropy == nil {
		g.spend(ms)
	}
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
	if g.entropy == nil {
		g.spend(ms)
	}
	hi := g.reserve(ms, uint64(len(dst)))
	for i := range dst {
		if i > 0 && g.entropy == nil {
			g.spend(ms)
		}
		dst[i] = g.id(hi)
		if hi != ^uint64(0) {
			hi++
		}
	}
}

// spend accounts for one ULID made from the default entropy at clock
// millisecond ms, reseeding chacha first when that is due. The caller holds
// g.mu.
func (g *Generator) spend(ms uint64) {
	if g.left == 0 || ms >= g.reseedAt {
		g.reseed(ms)
	}
	g.left--
}

// reseed keys chacha afresh from crypto/rand. The caller holds g.mu.
func (g *Generator) reseed(ms uint64) {
	var seed [32]byte
	crand.Read(seed[:]) // never fails since Go 1.24
	g.chacha.Seed(seed)
	g.left = reseedEvery
	g.reseedAt = ms + reseedAfterMs
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
		first = ms<<16 | g.random16()&0x7FFF
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

// random64 returns 64 random bits. The caller holds g.mu.
func (g *Generator) random64() uint64 {
	if g.entropy == nil {
		return g.chacha.Uint64()
	}
	g.read(8)
	return binary.BigEndian.Uint64(g.buf[:])
}

// random16 returns 16 random bits. The caller holds g.mu.
func (g *Generator) random16() uint64 {
	if g.entropy == nil {
		return g.chacha.Uint64() & 0xFFFF
	}
	g.read(2)
	return uint64(binary.BigEndian.Uint16(g.buf[:]))
}

// read fills the first n bytes of g.buf from the injected entropy, or panics.
// The caller holds g.mu.
func (g *Generator) read(n int) {
	if _, err := io.ReadFull(g.entropy, g.buf[:n]); err != nil {
		panic(fmt.Errorf("ulidtype: Generator entropy failed, and New cannot return an error: %w", err))
	}
}
