package objectidtype

import (
	crand "crypto/rand"
	"encoding/binary"
	"io"
	"sync/atomic"
	"time"
)

// maxState is the largest seconds<<24|counter value: 2^32-1 seconds (in
// February 2106) and a full counter.
const maxState = 1<<56 - 1

// Generator makes ObjectIDs that strictly increase, safe for concurrent use
// and lock-free.
//
// Why monotonic: ObjectIDs are meant to be B-tree keys, and keys that always
// grow turn each insert into an append at the right edge of the index, which
// PostgreSQL fills completely. MongoDB's generators let the 24-bit counter
// wrap around, so after 2^24 IDs in one second, or after the clock steps
// back, a later ID can sort before an earlier one.
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
// Most programs use the package-level [New] and [Fill]; a Generator of one's
// own is for injecting a clock or the random source (tests, backfills with
// historical times). Create it with [NewGenerator]; the zero Generator has an
// all-zero process-unique value.
type Generator struct {
	clock  func() time.Time
	unique uint64        // the 40-bit process-unique value, shifted left by 24
	state  atomic.Uint64 // the last ID's seconds<<24 | counter
}

// NewGenerator returns a Generator that reads the time from clock and its
// 40-bit process-unique value and the counter's random start from entropy.
// Both are read once, here. A nil clock means [time.Now]; a nil entropy, or
// one that fails, means [crypto/rand].
func NewGenerator(clock func() time.Time, entropy io.Reader) *Generator {
	var r [8]byte // 5 bytes process-unique value, 3 bytes counter start
	if entropy == nil {
		crand.Read(r[:]) // never fails since Go 1.24
	} else if _, err := io.ReadFull(entropy, r[:]); err != nil {
		crand.Read(r[:])
	}
	g := &Generator{clock: clock}
	v := binary.BigEndian.Uint64(r[:])
	g.unique = v >> 24 << 24
	// The first ID takes the counter start itself: state is one below it.
	g.state.Store((v - 1) & 0xFFFFFF)
	return g
}

var defaultGenerator = NewGenerator(nil, nil)

// New returns a new ObjectID for the current time from the package's
// generator. It never fails, is safe for concurrent use, and each call returns
// a value larger than all earlier ones in the process. It does not allocate.
func New() ObjectID { return defaultGenerator.New() }

// Fill fills dst with new, strictly increasing ObjectIDs from the package's
// generator, reading the clock once.
func Fill(dst []ObjectID) { defaultGenerator.Fill(dst) }

// New returns the next ObjectID: larger than every earlier one from g.
func (g *Generator) New() ObjectID {
	return g.id(g.reserve(g.now(), 1))
}

// Fill fills dst with strictly increasing ObjectIDs, reading the clock once
// and reserving all of their counter values with one compare-and-swap.
func (g *Generator) Fill(dst []ObjectID) {
	if len(dst) == 0 {
		return
	}
	first := g.reserve(g.now(), uint64(len(dst)))
	for i := range dst {
		dst[i] = g.id(first + uint64(i))
	}
}

// reserve claims n consecutive seconds<<24|counter values for a clock at
// second now and returns the first. A failed compare-and-swap means another
// call took values meanwhile, so some call always makes progress.
func (g *Generator) reserve(now, n uint64) uint64 {
	for {
		last := g.state.Load()
		first := last + 1
		if now > last>>24 {
			// A new second: the counter goes on in its lower half.
			first = now<<24 | first&0x7FFFFF
		}
		if g.state.CompareAndSwap(last, first+n-1) {
			return first
		}
	}
}

// now returns the clock in Unix seconds, clamped to the ObjectID range.
func (g *Generator) now() uint64 {
	if g.clock == nil {
		return clampUnix(time.Now())
	}
	return clampUnix(g.clock())
}

// id builds the ObjectID for state v; past maxState, in 2106, it stays at
// the end.
func (g *Generator) id(v uint64) (o ObjectID) {
	v = min(v, maxState)
	binary.BigEndian.PutUint32(o[:4], uint32(v>>24))
	binary.BigEndian.PutUint64(o[4:], g.unique|v&0xFFFFFF)
	return o
}
