package ulidtype

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/big"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pgid/pgid/internal/testclock"
)

func asInt(u ULID) *big.Int { return new(big.Int).SetBytes(u[:]) }

// newULIDGen returns a Generator in LayoutULID: the tests of that layout's
// exact bits use it.
func newULIDGen(clock func() time.Time, entropy io.Reader) *Generator {
	g := NewGenerator(clock, entropy)
	g.SetLayout(LayoutULID)
	return g
}

func TestGeneratorSameMillisecond(t *testing.T) {
	start := time.UnixMilli(1700000000123)
	clk := testclock.New(start)
	g := newULIDGen(clk.Now, nil)
	prev := g.New()
	if prev.UnixMilli() != 1700000000123 {
		t.Fatalf("timestamp %d", prev.UnixMilli())
	}
	if seq, _ := prev.halves(); seq&0x8000 != 0 {
		t.Fatalf("first ULID of a millisecond has the top entropy bit set: %s", prev)
	}
	incs := map[string]bool{}
	limit := new(big.Int).Lsh(big.NewInt(1), 65)
	for range 10000 {
		u := g.New()
		if u.Compare(prev) <= 0 {
			t.Fatalf("not increasing: %s after %s", u, prev)
		}
		if u.UnixMilli() != prev.UnixMilli() {
			t.Fatalf("timestamp moved within one millisecond: %d -> %d", prev.UnixMilli(), u.UnixMilli())
		}
		phi, _ := prev.halves()
		if uhi, _ := u.halves(); uhi != phi+1 {
			t.Fatalf("top word %x after %x, want +1", uhi, phi)
		}
		d := new(big.Int).Sub(asInt(u), asInt(prev))
		if d.Sign() <= 0 || d.Cmp(limit) >= 0 {
			t.Fatalf("increment %v outside [1, 2^65)", d)
		}
		incs[d.String()] = true
		prev = u
	}
	// Random increments, not a counter: all differ.
	if len(incs) != 10000 {
		t.Fatalf("only %d distinct increments in 10000", len(incs))
	}
	// A new millisecond starts afresh.
	clk.Set(start.Add(time.Millisecond))
	u := g.New()
	if u.UnixMilli() != 1700000000124 {
		t.Fatalf("timestamp after tick = %d", u.UnixMilli())
	}
	if u.Compare(prev) <= 0 {
		t.Fatal("not increasing across a tick")
	}
}

func TestGeneratorClockStepsBack(t *testing.T) {
	clk := testclock.New(time.UnixMilli(5000))
	g := NewGenerator(clk.Now, nil)
	a := g.New()
	clk.Set(time.UnixMilli(1000)) // four seconds back
	b := g.New()
	c := g.New()
	if b.Compare(a) <= 0 || c.Compare(b) <= 0 {
		t.Fatalf("not increasing after the clock stepped back: %s %s %s", a, b, c)
	}
	if b.UnixMilli() != 5000 || c.UnixMilli() != 5000 {
		t.Fatalf("timestamps %d %d, want the last one (5000)", b.UnixMilli(), c.UnixMilli())
	}
	clk.Set(time.UnixMilli(5001))
	if d := g.New(); d.UnixMilli() != 5001 || d.Compare(c) <= 0 {
		t.Fatalf("after the clock caught up: %s (ts %d)", d, d.UnixMilli())
	}
}

func TestGeneratorEntropyOverflowCarries(t *testing.T) {
	// Entropy of all ones: the first ULID of millisecond 42 has sequence
	// 0x7FFF, the last start the generator ever picks.
	clk := testclock.New(time.UnixMilli(42))
	g := newULIDGen(clk.Now, testclock.ConstReader(0xFF))
	a := g.New()
	if want := MustParse("000000001AFZZZZZZZZZZZZZZZ"); a != want {
		t.Fatalf("first = %s, want %s", a, want)
	}
	// 32,768 more fit in the millisecond: the last is MaxAt(42).
	var last ULID
	for range 0x8000 {
		u := g.New()
		if u.Compare(a) <= 0 {
			t.Fatalf("not increasing: %s after %s", u, a)
		}
		last, a = u, u
	}
	if last != MaxAt(time.UnixMilli(42)) || last.UnixMilli() != 42 {
		t.Fatalf("last of the millisecond = %s, want %s", last, MaxAt(time.UnixMilli(42)))
	}
	// The next would overflow the 80 bits: it carries into the timestamp.
	b := g.New()
	if b.Compare(last) <= 0 || b.UnixMilli() != 43 {
		t.Fatalf("overflow: %s (ts %d) after %s", b, b.UnixMilli(), last)
	}
	if b != MinAt(time.UnixMilli(43)).nextTop(^uint64(0)) {
		t.Fatalf("after the carry: %s", b)
	}
	// The clock (still 42) is now behind the IDs; they keep increasing in 43.
	c := g.New()
	if c.Compare(b) <= 0 || c.UnixMilli() != 43 {
		t.Fatalf("after the carry: %s (ts %d)", c, c.UnixMilli())
	}
	// With random entropy, from near 2^80 a run in one millisecond stays
	// strictly increasing and moves the time forward only by carries.
	g = newULIDGen(clk.Now, nil)
	g.made, g.lastL, g.lastMs, g.lastSeq = true, LayoutULID, 42, 0xFFF0
	prev := fromHalves(42<<16|0xFFF0, ^uint64(0))
	for range 1 << 10 {
		u := g.New()
		if u.Compare(prev) <= 0 {
			t.Fatalf("not increasing near 2^80: %s after %s", u, prev)
		}
		prev = u
	}
	if prev.UnixMilli() != 43 {
		t.Fatalf("timestamp after the carry = %d, want 43", prev.UnixMilli())
	}
}

// nextTop returns u with its low word replaced: a helper for expected values.
func (u ULID) nextTop(lo uint64) ULID {
	hi, _ := u.halves()
	return fromHalves(hi, lo)
}

func TestGeneratorClamps(t *testing.T) {
	clk := testclock.New(time.Date(1960, 1, 1, 0, 0, 0, 0, time.UTC))
	g := NewGenerator(clk.Now, nil)
	if u := g.New(); u.UnixMilli() != 0 {
		t.Fatalf("before the epoch: timestamp %d, want 0", u.UnixMilli())
	}
	clk.Set(time.UnixMilli(1 << 50))
	g = newULIDGen(clk.Now, testclock.ConstReader(0xFF))
	if u := g.New(); u != MustParse("7ZZZZZZZZZFZZZZZZZZZZZZZZZ") {
		t.Fatalf("past year 10889: %s", u)
	}
	var last ULID
	for range 0x8000 {
		last = g.New()
	}
	if last != MustParse("7ZZZZZZZZZZZZZZZZZZZZZZZZZ") {
		t.Fatalf("last ULID of year 10889: %s", last)
	}
	// There is nothing larger: the generator saturates instead of wrapping.
	if u := g.New(); u != last {
		t.Fatalf("after the maximum: %s", u)
	}
}

func TestGeneratorEntropy(t *testing.T) {
	clk := testclock.New(time.UnixMilli(1700000000000))
	// Injected entropy is used as given.
	u := newULIDGen(clk.Now, testclock.ConstReader(0xAB)).New()
	if !bytes.Equal(u[6:], append([]byte{0x2B}, bytes.Repeat([]byte{0xAB}, 9)...)) {
		t.Fatalf("injected entropy not used: %x", u[:])
	}
	// Two default generators draw different entropy.
	x, y := NewGenerator(clk.Now, nil).New(), NewGenerator(clk.Now, nil).New()
	if x == y {
		t.Fatal("two generators made the same ULID")
	}
}

// TestGeneratorEntropyExact: an injected source gives exactly 10 bytes to
// the first ULID of a millisecond and 8 to each next one, in order, and
// nothing else is read or mixed in.
func TestGeneratorEntropyExact(t *testing.T) {
	src := make([]byte, 10+8+10)
	for i := range src {
		src[i] = byte(0xF0 + i) // the first byte's top bit is set: it is cleared
	}
	r := bytes.NewReader(src)
	clk := testclock.New(time.UnixMilli(0x0102030405))
	g := newULIDGen(clk.Now, r)
	want := []string{
		"00010203040570f1f2f3f4f5f6f7f8f9", // first of the millisecond: 10 bytes, top bit cleared
		"00010203040570f2fafbfcfdfeff0001", // next: top 16 bits + 1, then 8 bytes
		"00010203040602030405060708090a0b", // new millisecond: the next 10 bytes
	}
	for i, w := range want {
		if i == 2 {
			clk.Add(time.Millisecond)
		}
		u := g.New()
		if got := fmt.Sprintf("%x", u[:]); got != w {
			t.Fatalf("ULID %d = %s, want %s", i, got, w)
		}
	}
	if r.Len() != 0 {
		t.Fatalf("%d bytes left unread", r.Len())
	}
	// Generators with the same endless source agree far past the reseed
	// interval of the default entropy: nothing from crypto/rand is mixed in.
	a := NewGenerator(clk.Now, rand.NewChaCha8([32]byte{1}))
	b := NewGenerator(clk.Now, rand.NewChaCha8([32]byte{1}))
	ids := make([]ULID, 3*reseedEvery)
	a.Fill(ids)
	for i, u := range ids {
		if v := b.New(); u != v {
			t.Fatalf("ULID %d: %s from Fill, %s from New with the same source", i, u, v)
		}
	}
}

// TestGeneratorEntropyFails: a source that fails or runs dry is rejected
// loudly, with a panic wrapping its error, instead of being replaced by
// other entropy; the generator stays usable for a later call.
func TestGeneratorEntropyFails(t *testing.T) {
	clk := testclock.New(time.UnixMilli(1700000000000))
	mustPanic := func(name string, target error, f func()) {
		t.Helper()
		defer func() {
			t.Helper()
			err, _ := recover().(error)
			if !errors.Is(err, target) {
				t.Fatalf("%s: recovered %v, want an error wrapping %v", name, err, target)
			}
		}()
		f()
	}
	g := NewGenerator(clk.Now, testclock.FailingReader{})
	mustPanic("New", testclock.ErrEntropy, func() { g.New() })
	mustPanic("Fill", testclock.ErrEntropy, func() { g.Fill(make([]ULID, 3)) })
	// The lock was released: the generator still answers (and panics again).
	mustPanic("New again", testclock.ErrEntropy, func() { g.New() })

	// 16 bytes are one ULID and not quite a second one.
	g = newULIDGen(clk.Now, bytes.NewReader(make([]byte, 16)))
	g.New()
	mustPanic("dry reader", io.ErrUnexpectedEOF, func() { g.New() })
	g = NewGenerator(clk.Now, bytes.NewReader(nil))
	mustPanic("empty reader", io.EOF, func() { g.New() })
}

// cloneOf returns a Generator in the state g is in, as a process restored
// from a memory snapshot of g would be.
func cloneOf(t *testing.T, g *Generator) *Generator {
	t.Helper()
	g.mu.Lock()
	defer g.mu.Unlock()
	c := &Generator{clock: g.clock, entropy: g.entropy, layout: g.layout, made: g.made, lastL: g.lastL,
		lastMs: g.lastMs, lastSeq: g.lastSeq, left: g.left, reseedAt: g.reseedAt, buf: g.buf}
	state, err := g.chacha.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.chacha.UnmarshalBinary(state); err != nil {
		t.Fatal(err)
	}
	return c
}

// TestGeneratorCloneDiverges simulates a process restored twice from one
// snapshot: both copies continue the same ChaCha8 stream and make the same
// ULIDs in the same millisecond, but only until the reseed from crypto/rand,
// at most reseedEvery ULIDs later, or at once when the clock is a second past
// the last reseed.
func TestGeneratorCloneDiverges(t *testing.T) {
	clk := testclock.New(time.UnixMilli(1700000000000))
	g := NewGenerator(clk.Now, nil)
	for _, made := range []int{1, 100, reseedEvery - 1, reseedEvery, reseedEvery + 500} {
		g.Fill(make([]ULID, made))
		a, b := g, cloneOf(t, g)
		shared := a.left // the ULIDs both copies make before they reseed
		if shared < 1 || shared > reseedEvery {
			t.Fatalf("after %d: %d ULIDs to the reseed, want 1..%d", made, shared, reseedEvery)
		}
		for i := range shared {
			if u, v := a.New(), b.New(); u != v {
				t.Fatalf("after %d: copies differ at ULID %d of %d before the reseed", made, i, shared)
			}
		}
		for i := range 100 {
			if u, v := a.New(), b.New(); u == v {
				t.Fatalf("after %d: copies still agree %d ULIDs after the reseed: %s", made, i, u)
			}
		}
		g = a
	}

	// The clock rule: copies agree until the clock is a second past the last
	// reseed, and differ from the first ULID after that.
	g = NewGenerator(clk.Now, nil)
	g.New() // reseeds at the current millisecond
	c := cloneOf(t, g)
	clk.Add(reseedAfterMs*time.Millisecond - time.Millisecond)
	if u, v := g.New(), c.New(); u != v {
		t.Fatalf("copies differ before the clock rule applies: %s %s", u, v)
	}
	clk.Add(time.Millisecond)
	if u, v := g.New(), c.New(); u == v {
		t.Fatalf("copies agree a second after the reseed: %s", u)
	}
	// Fill follows the same rules.
	c = cloneOf(t, g)
	x, y := make([]ULID, 2*reseedEvery), make([]ULID, 2*reseedEvery)
	shared := g.left
	g.Fill(x)
	c.Fill(y)
	for i := range x {
		if same := x[i] == y[i]; same != (i < shared) {
			t.Fatalf("Fill: ULID %d equal = %v, %d shared before the reseed", i, same, shared)
		}
	}
}

func TestGeneratorAllocs(t *testing.T) {
	g, p := NewGenerator(nil, nil), newULIDGen(nil, nil)
	ids := make([]ULID, 100)
	for name, f := range map[string]func(){
		"New":                       func() { sinkULID = New() },
		"Generator.New":             func() { sinkULID = g.New() },
		"Generator.New LayoutULID":  func() { sinkULID = p.New() },
		"Fill":                      func() { Fill(ids) },
		"Generator.Fill LayoutULID": func() { p.Fill(ids) },
		"SetLayout":                 func() { g.SetLayout(g.Layout() ^ 1) },
	} {
		// 3,000 runs cross reseeds of the entropy.
		if n := testing.AllocsPerRun(3000, f); n != 0 {
			t.Errorf("%s: %v allocations, want 0", name, n)
		}
	}
}

func TestFill(t *testing.T) {
	clk := testclock.New(time.UnixMilli(1700000000000))
	g := NewGenerator(clk.Now, nil)
	first := g.New()
	clk.ResetReads()
	ids := make([]ULID, 5000)
	g.Fill(ids)
	if clk.Reads() != 1 {
		t.Fatalf("Fill read the clock %d times, want 1", clk.Reads())
	}
	prev := first
	for i, u := range ids {
		if u.Compare(prev) <= 0 {
			t.Fatalf("ids[%d] = %s not after %s", i, u, prev)
		}
		prev = u
	}
	if next := g.New(); next.Compare(prev) <= 0 {
		t.Fatal("New after Fill is not larger")
	}
	g.Fill(nil) // no clock read, no panic
	Fill(ids)
	for i := 1; i < len(ids); i++ {
		if ids[i].Compare(ids[i-1]) <= 0 {
			t.Fatalf("package Fill: ids[%d] not increasing", i)
		}
	}
}

func TestNewNow(t *testing.T) {
	before := time.Now().UnixMilli()
	u := New()
	after := time.Now().UnixMilli()
	if ts := int64(u.UnixMilli()); ts < before || ts > after+1 {
		t.Fatalf("New() timestamp %d outside [%d, %d]", ts, before, after)
	}
}

// TestConcurrent runs many goroutines against the package generator and a
// generator of its own: every goroutine sees strictly increasing values and
// no value is made twice. Run it with -race.
func TestConcurrent(t *testing.T) {
	const goroutines, perG = 16, 5000
	for _, gen := range []struct {
		name string
		new  func() ULID
		fill func([]ULID)
	}{
		{"package", New, Fill},
		{"generator", NewGenerator(nil, nil).New, nil},
	} {
		t.Run(gen.name, func(t *testing.T) {
			var wg sync.WaitGroup
			results := make([][]ULID, goroutines)
			var bad atomic.Int64
			for i := range goroutines {
				wg.Add(1)
				go func() {
					defer wg.Done()
					ids := make([]ULID, 0, perG)
					for j := 0; j < perG; j++ {
						if gen.fill != nil && j%100 == 0 {
							batch := make([]ULID, 10)
							gen.fill(batch)
							ids = append(ids, batch...)
							j += 9
							continue
						}
						ids = append(ids, gen.new())
					}
					for k := 1; k < len(ids); k++ {
						if ids[k].Compare(ids[k-1]) <= 0 {
							bad.Add(1)
						}
					}
					results[i] = ids
				}()
			}
			wg.Wait()
			if bad.Load() != 0 {
				t.Fatalf("%d values not increasing within a goroutine", bad.Load())
			}
			seen := make(map[ULID]bool, goroutines*perG)
			for _, ids := range results {
				for _, u := range ids {
					if seen[u] {
						t.Fatalf("duplicate %s", u)
					}
					seen[u] = true
				}
			}
			if len(seen) != goroutines*perG {
				t.Fatalf("%d distinct values, want %d", len(seen), goroutines*perG)
			}
		})
	}
}

// At the epoch (or before, clamped to it) with zero entropy the state starts
// at zero, which must not be mistaken for "unused": the IDs still increase
// and none is the nil ID.
func TestGeneratorAtEpoch(t *testing.T) {
	g := NewGenerator(func() time.Time { return time.Unix(0, 0) }, testclock.ConstReader(0))
	var prev ULID
	for i := range 5 {
		u := g.New()
		if u.IsZero() || (i > 0 && u.Compare(prev) <= 0) {
			t.Fatalf("ID %d at the epoch: %s after %s", i, u, prev)
		}
		prev = u
	}
	ids := make([]ULID, 3)
	g.Fill(ids)
	for _, u := range ids {
		if u.Compare(prev) <= 0 {
			t.Fatalf("Fill at the epoch: %s after %s", u, prev)
		}
		prev = u
	}
}

// Saturated with random entropy, the generator repeats the largest ULID
// instead of going back.
func TestGeneratorSaturatesWithRandomEntropy(t *testing.T) {
	g := newULIDGen(func() time.Time { return time.UnixMilli(1 << 50) }, nil)
	g.New()
	g.lastMs, g.lastSeq = maxTimestamp, 0xFFFD
	top := MustParse("7ZZZZZZZZZZZZZZZZZZZZZZZZZ")
	var prev ULID
	for i := range 100 {
		u := g.New()
		if i > 0 && u.Compare(prev) < 0 {
			t.Fatalf("ID %d went back: %s after %s", i, u, prev)
		}
		prev = u
	}
	if prev != top {
		t.Fatalf("saturated at %s, want %s", prev, top)
	}
	ids := make([]ULID, 10)
	g.Fill(ids)
	for _, u := range ids {
		if u != top {
			t.Fatalf("saturated Fill gave %s", u)
		}
	}
}
