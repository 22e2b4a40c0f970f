package objectidtype

import (
	crand "crypto/rand"
	"encoding/binary"
	"io"
	"sync/atomic"
	"time"
)

// Why the generator is monotonic: ObjectIDs from one process are meant to be
// B-tree keys, and keys that always grow turn each insert into an append at the
// right edge of the index, which PostgreSQL fills completely. MongoDB's own
// generators let the 24-bit counter wrap around, so after 2^24 IDs in one
// second (or after a clock step back) a later ID can sort before an earlier
// one. This generator treats seconds and counter as one 56-bit number instead:
// a counter overflow carries into the seconds, and a clock that steps back
// keeps the last seconds.

// maxState is the largest seconds<<24|counter value: 2^32-1 seconds (in
// February 2106) and a full counter.
const maxState = 1<<56 - 1

// Generator makes ObjectIDs that strictly increase, safe for concurrent use
// and lock-free.
//
// Each ID is the generator's 40-bit process-unique value between the 32-bit
// seconds and the 24-bit counter. Seconds and counter form one 56-bit number,
// and each new ID takes the next one: the counter advances by one, and the
// seconds are the clock's if it has moved past the last ID's, else the last
// ID's. So a clock that steps back keeps the last seconds, and more than 2^24
// IDs in one second carry into the seconds instead of wrapping; in both cases
// the order holds and New never fails. (Only at the very end of the range, in
// February 2106, does the generator stop advancing and repeat its last ID.)
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
func (g *Generator) New() (o ObjectID) {
	var t time.Time
	if g.clock == nil {
		t = time.Now()
	} else {
		t = g.clock()
	}
	now := clampUnix(t)
	for {
		// One atomic add advances the counter, carrying into the seconds.
		next := g.state.Add(1)
		if now > next>>24 {
			// The clock has moved past the last ID's second: move the
			// seconds forward, unless another call changed the state
			// meanwhile, in which case try again (skipping a counter value
			// does no harm).
			moved := now<<24 | next&0xFFFFFF
			if !g.state.CompareAndSwap(next, moved) {
				continue
			}
			next = moved
		}
		// Past maxState, in 2106, the ID stays at the end.
		next = min(next, maxState)
		binary.BigEndian.PutUint32(o[:4], uint32(next>>24))
		binary.BigEndian.PutUint64(o[4:], g.unique|next&0xFFFFFF)
		return o
	}
}

// Fill fills dst with strictly increasing ObjectIDs, reading the clock once
// and reserving all of their counter values with one atomic add.
func (g *Generator) Fill(dst []ObjectID) {
	if len(dst) == 0 {
		return
	}
	now := g.now()
	n := uint64(len(dst))
	var first uint64
	for {
		end := g.state.Add(n)
		first = end - n + 1
		if now <= first>>24 {
			break
		}
		moved := now<<24 | first&0xFFFFFF
		if g.state.CompareAndSwap(end, moved+n-1) {
			first = moved
			break
		}
	}
	for i := range dst {
		dst[i] = g.id(min(first+uint64(i), maxState))
	}
}

// now returns the clock in Unix seconds, clamped to the ObjectID range.
func (g *Generator) now() uint64 {
	var t time.Time
	if g.clock == nil {
		t = time.Now()
	} else {
		t = g.clock()
	}
	return clampUnix(t)
}

// id builds the ObjectID for state v.
func (g *Generator) id(v uint64) (o ObjectID) {
	binary.BigEndian.PutUint32(o[:4], uint32(v>>24))
	binary.BigEndian.PutUint64(o[4:], g.unique|v&0xFFFFFF)
	return o
}
