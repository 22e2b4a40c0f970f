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

// Layout is the bit layout of the ULIDs a [Generator] makes. Both layouts
// start with the 48-bit Unix millisecond, so ULIDs of both sort by time
// together, millisecond by millisecond, and [ULID.Timestamp] is exact for both.
type Layout uint8

const (
	// LayoutV7 ULIDs are also RFC 9562 UUIDv7 values, as PostgreSQL 18's
	// uuidv7() makes them: version 7 in the top 4 bits of byte 6, variant
	// 10 in the top 2 bits of byte 8, and 74 random bits around them
	// (rand_a and rand_b). PostgreSQL's uuid_extract_timestamp (from 18 on;
	// 17 reads version 1 only) and uuid_extract_version (from 17 on) read
	// them, and so does every tool that insists on UUIDv7 ([ULID.IsV7] is
	// true). It is the default and the zero value; docs/IDS.md
	// ("ULID, UUIDv7 or both") says why.
	LayoutV7 Layout = iota

	// LayoutULID ULIDs have 80 bits of entropy after the timestamp, as the
	// ULID specification describes them, and no version or variant: about
	// 1 in 32 of those New makes happen to read as a UUIDv7 (see
	// [ULID.IsV7]).
	LayoutULID
)

// Sequence numbers: the leading entropy bits that count up within a
// millisecond (see [Generator]). In LayoutV7 they are RFC 9562 §6.2's
// "fixed bit-length dedicated counter": the 12 rand_a bits and the 14 bits
// after the variant. 26 bits leave 48 fresh random bits per ULID and room
// for 2^25 ULIDs in a millisecond before a carry, so even a Fill of millions
// stays in the clock's millisecond. How the 74 bits are split does not
// change the chance that two generators collide, which depends on their sum.
const (
	seqBitsULID = 16
	seqBitsV7   = 26
	v7Version   = 0x7000             // in the top word: version 7
	v7Variant   = uint64(0b10) << 62 // in the bottom word: variant 10
	v7SeqLow    = 14                 // sequence bits in the bottom word
	v7Random    = uint64(1)<<48 - 1  // fresh random bits of a LayoutV7 ULID
)

// seqMask returns the largest sequence number of layout l.
func (l Layout) seqMask() uint64 {
	if l == LayoutV7 {
		return 1<<seqBitsV7 - 1
	}
	return 1<<seqBitsULID - 1
}

// Generator makes ULIDs that strictly increase, also when the clock steps
// back (it keeps the last timestamp) or a millisecond's sequence overflows
// (it carries into the timestamp). It is safe for concurrent use, and its
// zero value is ready to use, with the system clock, the default entropy
// (ChaCha8 reseeded from crypto/rand) and [LayoutV7]. Within a millisecond
// each ULID is the previous one plus a random increment: ordered, not
// guessable. docs/IDS.md says how and why.
//
// Most programs use the package-level [New] and [Fill]; a Generator of one's
// own is for injecting a clock or an entropy source (tests, backfills with
// historical times).
type Generator struct {
	clock   func() time.Time // nil: time.Now
	entropy io.Reader        // nil: chacha, reseeded from crypto/rand

	mu       sync.Mutex // guards the fields below
	layout   Layout     // of the next ULIDs
	made     bool       // whether a ULID was made: the fields below describe it
	lastL    Layout     // the last ULID's layout,
	lastMs   uint64     // its timestamp
	lastSeq  uint64     // and its sequence number
	left     int        // ULIDs until chacha must be reseeded; 0: seed first
	reseedAt uint64     // clock millisecond from which the next ULID reseeds
	chacha   rand.ChaCha8
	buf      [8]byte // read buffer for entropy
}

// NewGenerator returns a Generator that reads the time from clock and random
// bytes from entropy, in [LayoutV7] until [Generator.SetLayout] changes it.
// A nil clock means [time.Now]; a nil entropy, the default entropy. A given
// entropy source is read exactly as needed and never mixed in or read ahead,
// so a fixed one makes deterministic ULIDs (docs/IDS.md says how many bytes
// each ULID reads). It must never fail: if a read fails or comes up short, New
// and Fill panic with an error that wraps the reader's error.
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

// SetDefaultLayout sets the layout of the ULIDs that [New] and [Fill] make
// from now on; it is [LayoutV7] until changed. It is safe to call
// concurrently with New and Fill, whose ULIDs keep increasing across the
// change (see [Generator]). It panics if l is not a Layout of this package.
func SetDefaultLayout(l Layout) { defaultGenerator.SetLayout(l) }

// DefaultLayout returns the layout of the ULIDs that [New] and [Fill] make.
func DefaultLayout() Layout { return defaultGenerator.Layout() }

// SetLayout sets the layout of the ULIDs g makes from now on. The ULIDs keep
// increasing across the change (see [Generator]). It panics if l is not a
// Layout of this package.
func (g *Generator) SetLayout(l Layout) {
	if l != LayoutV7 && l != LayoutULID {
		panic(fmt.Sprintf("ulidtype: SetLayout(%d): not a Layout", l))
	}
	g.mu.Lock()
	g.layout = l
	g.mu.Unlock()
}

// Layout returns the layout of the ULIDs g makes.
func (g *Generator) Layout() Layout {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.layout
}

// New returns the next ULID: larger than every earlier one from g.
func (g *Generator) New() ULID {
	ms := g.now()
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.entropy == nil {
		g.spend(ms)
	}
	l, ts, seq := g.first(ms)
	g.lastL, g.lastMs, g.lastSeq, g.made = l, ts, seq, true
	return g.id(l, ts, seq)
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
	l, ts, seq := g.first(ms)
	g.lastL = l
	for i := range dst {
		if i > 0 {
			if g.entropy == nil {
				g.spend(ms)
			}
			ts, seq = l.after(ts, seq)
		}
		g.lastMs, g.lastSeq = ts, seq // before the entropy can panic
		dst[i] = g.id(l, ts, seq)
	}
}

// first returns the layout, timestamp and sequence number of the next ULID
// for clock millisecond ms, drawing a random start for a new millisecond.
// The caller holds g.mu and records what it makes.
func (g *Generator) first(ms uint64) (l Layout, ts, seq uint64) {
	l = g.layout
	if !g.made {
		// As if after the ULID of sequence 0 at the epoch: a generator at
		// the epoch with zero entropy must not make the nil ID.
		g.lastL, g.made = l, true
	}
	switch {
	case ms > g.lastMs:
		return l, ms, g.start(l)
	case l != g.lastL && g.lastMs < maxTimestamp:
		// The layouts do not interleave in order within a millisecond.
		return l, g.lastMs + 1, g.start(l)
	case l != g.lastL:
		return g.lastL, maxTimestamp, g.lastL.seqMask() // saturated, as before
	}
	ts, seq = l.after(g.lastMs, g.lastSeq)
	return l, ts, seq
}

// after returns the timestamp and sequence number that follow ts and seq in
// layout l: the next sequence number, else a carry into the timestamp, else
// (saturated in the year 10889) ts and seq again.
func (l Layout) after(ts, seq uint64) (uint64, uint64) {
	switch {
	case seq < l.seqMask():
		return ts, seq + 1
	case ts < maxTimestamp:
		return ts + 1, 0 // carry
	}
	return ts, seq
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

// start returns a random sequence number for the first ULID of a
// millisecond in layout l, with the top bit 0 so that at least half the
// sequence is left. The caller holds g.mu.
func (g *Generator) start(l Layout) uint64 {
	if g.entropy == nil {
		return g.chacha.Uint64() & (l.seqMask() >> 1)
	}
	if l == LayoutULID {
		g.read(2) // bytes 6 and 7
		return uint64(binary.BigEndian.Uint16(g.buf[:])) & 0x7FFF
	}
	g.read(4) // bytes 6 to 9, where 4 bits are version and 2 variant
	b := g.buf
	return uint64(b[0]&0x07)<<22 | uint64(b[1])<<14 | uint64(b[2]&0x3F)<<8 | uint64(b[3])
}

// id returns the ULID of layout l with timestamp ts and sequence number seq,
// completed with fresh random bits. The largest sequence number of the last
// millisecond of all, where the generator saturates, gets the largest ULID
// of the layout, so saturated IDs repeat instead of going back. The caller
// holds g.mu.
func (g *Generator) id(l Layout, ts, seq uint64) ULID {
	saturated := ts == maxTimestamp && seq == l.seqMask()
	if l == LayoutULID {
		lo := ^uint64(0)
		if !saturated {
			lo = g.random64()
		}
		return fromHalves(ts<<16|seq, lo)
	}
	r := v7Random
	if !saturated {
		r = g.random48()
	}
	return fromHalves(ts<<16|v7Version|seq>>v7SeqLow, v7Variant|(seq&(1<<v7SeqLow-1))<<48|r)
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

// random48 returns 48 random bits. The caller holds g.mu.
func (g *Generator) random48() uint64 {
	if g.entropy == nil {
		return g.chacha.Uint64() & v7Random
	}
	g.read(6)
	return uint64(binary.BigEndian.Uint16(g.buf[:]))<<32 | uint64(binary.BigEndian.Uint32(g.buf[2:]))
}

// read fills the first n bytes of g.buf from the injected entropy, or panics.
// The caller holds g.mu.
func (g *Generator) read(n int) {
	if _, err := io.ReadFull(g.entropy, g.buf[:n]); err != nil {
		panic(fmt.Errorf("ulidtype: Generator entropy failed, and New cannot return an error: %w", err))
	}
}
