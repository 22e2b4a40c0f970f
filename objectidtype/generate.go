package objectidtype

import (
	crand "crypto/rand"
	"encoding/binary"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"
)

// maxState is the largest seconds<<24|counter value: 2^32-1 seconds (in
// February 2106) and a full counter.
const maxState = 1<<56 - 1

// parityBit is the bit of Generator.state that names the epoch slot in use.
const parityBit = 1 << 63

// Generator makes ObjectIDs that strictly increase, also when the clock
// steps back (it keeps the last seconds) or a second's counter runs out (it
// carries into the seconds), unlike MongoDB's generators, whose counter
// wraps. It is safe for concurrent use and lock-free but for one short
// critical section per second of the clock. Its zero value is ready to use,
// with the system clock and crypto/rand. docs/IDS.md says how and why,
// and what happens to copies of a process.
//
// Most programs use the package-level [New] and [Fill]; a Generator of one's
// own is for injecting a clock or the random source (tests, backfills with
// historical times).
type Generator struct {
	clock   func() time.Time // nil: time.Now
	entropy io.Reader        // nil: crypto/rand

	// state is the last ID's seconds<<24 | counter, with parityBit naming
	// the epoch whose process-unique value it uses. 0: not started (after
	// the start the parity is 1, and it changes only at a new clock second,
	// which is never 0).
	state atomic.Uint64

	// An epoch is a run of seconds with one process-unique value. New
	// epochs are written into the slot the current one does not use, under
	// mu, before state names them.
	epochs [2]epoch
	mu     sync.Mutex // serializes starts and new epochs; guards buf
	buf    [8]byte
}

// epoch is one process-unique value and the first second it applies to. An
// ID reads it after reserving its state, and the reader checks it is still
// the epoch of the ID's seconds (see value): a slot is reused two epochs
// later.
type epoch struct {
	from   atomic.Uint64 // the first second plus 1; 0 while being written
	unique atomic.Uint64 // the 40-bit process-unique value, shifted left by 24
}

// value returns the epoch's unique value if it is the epoch of an ID at
// second sec. Epochs start at strictly increasing seconds and an ID of an
// epoch is always before the next epoch's first second, so a slot that was
// written again since the ID's epoch starts after sec. A unique value from a
// later write is followed by a from of 0 or of that later epoch (set writes
// from last), so reading from after unique is enough; from-1 <= sec also
// rejects 0.
func (e *epoch) value(sec uint64) (unique uint64, ok bool) {
	unique = e.unique.Load()
	return unique, e.from.Load()-1 <= sec
}

// set writes the epoch; the caller holds the Generator's mu and the slot is
// not the current epoch's.
func (e *epoch) set(sec, unique uint64) {
	e.from.Store(0)
	e.unique.Store(unique)
	e.from.Store(sec + 1)
}

// NewGenerator returns a Generator that reads the time from clock and random
// bytes from entropy. A nil clock means [time.Now]; a nil entropy means
// [crypto/rand], which makes it the same as the zero Generator. A given
// entropy source is read exactly as needed and never mixed in or read ahead
// (docs/IDS.md), so a fixed one makes deterministic IDs. It must never fail: if a read fails or comes up short,
// New and Fill panic with an error that wraps the reader's error.
func NewGenerator(clock func() time.Time, entropy io.Reader) *Generator {
	return &Generator{clock: clock, entropy: entropy}
}

var defaultGenerator Generator

// New returns a new ObjectID for the current time from the package's
// generator. It never fails, is safe for concurrent use, and each call returns
// a value larger than all earlier ones in the process. It does not allocate.
func New() ObjectID { return defaultGenerator.New() }

// Fill fills dst with new, strictly increasing ObjectIDs from the package's
// generator, reading the clock once.
func Fill(dst []ObjectID) { defaultGenerator.Fill(dst) }

// New returns the next ObjectID: larger than every earlier one from g.
func (g *Generator) New() ObjectID {
	v, unique := g.reserve(g.now(), 1)
	return id(v, unique)
}

// Fill fills dst with strictly increasing ObjectIDs, reading the clock once
// and reserving all of their counter values with one compare-and-swap.
func (g *Generator) Fill(dst []ObjectID) {
	if len(dst) == 0 {
		return
	}
	first, unique := g.reserve(g.now(), uint64(len(dst)))
	for i := range dst {
		dst[i] = id(first+uint64(i), unique)
	}
}

// reserve claims n consecutive seconds<<24|counter values for a clock at
// second now and returns the first with the process-unique value of their
// epoch. Within a second it is lock-free: a failed compare-and-swap means
// another call took values meanwhile, so some call always makes progress. A
// new second, or the first use, goes through advance.
func (g *Generator) reserve(now, n uint64) (first, unique uint64) {
	for {
		last := g.state.Load()
		if now > seconds(last) || last == 0 {
			return g.advance(now, n)
		}
		first, next := claim(last, n)
		if !g.state.CompareAndSwap(last, next) {
			continue
		}
		if unique, ok := g.epochs[last>>63].value(min(first, maxState) >> 24); ok {
			return first, unique
		}
		// The epoch of this reservation was overwritten while this call
		// was held up between its compare-and-swap and its read of the
		// epoch, two epochs ago: the values are left unused and the call
		// reserves afresh.
	}
}

// seconds returns the seconds of state (without its parity bit).
func seconds(state uint64) uint64 { return state >> 24 & (1<<32 - 1) }

// claim returns the first of n values after state last and the state that
// claims them, which saturates at maxState.
func claim(last, n uint64) (first, next uint64) {
	first = last&maxState + 1
	return first, last&parityBit | min(first+n-1, maxState)
}

// advance reserves n values for a clock at second now under g.mu: on first
// use it draws the process-unique value and the counter's start, and when
// now is past the last ID's seconds it starts a new epoch with a new
// process-unique value.
func (g *Generator) advance(now, n uint64) (first, unique uint64) {
	g.mu.Lock()
	defer g.mu.Unlock()
	last := g.state.Load()
	if last != 0 && now <= seconds(last) {
		return g.claimLocked(last, n) // another call got here first
	}
	// The new epoch goes into the slot the current one does not use. Its
	// previous epoch, two ago, may still be read by a call held up since
	// its reservation; value tells such a call to reserve again.
	slot := last>>63 ^ 1
	var start uint64
	if last == 0 {
		g.read(8) // the process-unique value and the counter's start
		// The start is in the counter's lower half, as after a new second,
		// so that the first second too has 2^23 IDs before a carry into
		// the seconds (a start near 2^24 ran ahead of the clock within
		// the first second at a few hundred thousand IDs a second).
		start = (uint64(g.buf[5])<<16 | uint64(g.buf[6])<<8 | uint64(g.buf[7])) & 0x7FFFFF
	} else {
		g.read(5)
	}
	unique = uint64(g.buf[0])<<56 | uint64(g.buf[1])<<48 | uint64(g.buf[2])<<40 |
		uint64(g.buf[3])<<32 | uint64(g.buf[4])<<24
	g.epochs[slot].set(now, unique)
	for {
		if last != 0 {
			// A new second: the counter goes on in its lower half.
			start = (last + 1) & 0x7FFFFF
		}
		first = now<<24 | start
		if g.state.CompareAndSwap(last, slot<<63|min(first+n-1, maxState)) {
			return first, unique
		}
		// Calls in the old second took values meanwhile: start after them.
		last = g.state.Load()
		if now <= seconds(last) {
			// They carried into this second: no new epoch after all.
			return g.claimLocked(last, n)
		}
	}
}

// claimLocked reserves n values after state last in the current epoch. The
// caller holds g.mu, so the epoch cannot change.
func (g *Generator) claimLocked(last, n uint64) (first, unique uint64) {
	for {
		first, next := claim(last, n)
		if g.state.CompareAndSwap(last, next) {
			unique, _ := g.epochs[last>>63].value(min(first, maxState) >> 24)
			return first, unique
		}
		last = g.state.Load()
	}
}

// read fills the first n bytes of g.buf from the entropy source. The caller
// holds g.mu.
func (g *Generator) read(n int) {
	if g.entropy == nil {
		crand.Read(g.buf[:n]) // never fails since Go 1.24
		return
	}
	if _, err := io.ReadFull(g.entropy, g.buf[:n]); err != nil {
		panic(fmt.Errorf("objectidtype: Generator entropy failed, and New cannot return an error: %w", err))
	}
}

// now returns the clock in Unix seconds, clamped to the ObjectID range.
func (g *Generator) now() uint64 {
	if g.clock == nil {
		return clampUnix(time.Now())
	}
	return clampUnix(g.clock())
}

// id builds the ObjectID for state v and process-unique value unique; past
// maxState, in 2106, it stays at the end.
func id(v, unique uint64) (o ObjectID) {
	v = min(v, maxState)
	binary.BigEndian.PutUint32(o[:4], uint32(v>>24))
	binary.BigEndian.PutUint64(o[4:], unique|v&0xFFFFFF)
	return o
}
