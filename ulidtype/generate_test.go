package ulidtype

import (
	"bytes"
	"errors"
	"math/big"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// fakeClock is a settable clock that counts its reads.
type fakeClock struct {
	mu    sync.Mutex
	t     time.Time
	reads int
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.reads++
	return c.t
}

func (c *fakeClock) set(t time.Time) {
	c.mu.Lock()
	c.t = t
	c.mu.Unlock()
}

// constReader returns an endless stream of one byte.
type constReader byte

func (r constReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(r)
	}
	return len(p), nil
}

// failingReader always fails.
type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, errors.New("entropy source down") }

func asInt(u ULID) *big.Int { return new(big.Int).SetBytes(u[:]) }

func TestGeneratorSameMillisecond(t *testing.T) {
	start := time.UnixMilli(1700000000123)
	clk := &fakeClock{t: start}
	g := NewGenerator(clk.now, nil)
	prev := g.New()
	if prev.Timestamp() != 1700000000123 {
		t.Fatalf("timestamp %d", prev.Timestamp())
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
		if u.Timestamp() != prev.Timestamp() {
			t.Fatalf("timestamp moved within one millisecond: %d -> %d", prev.Timestamp(), u.Timestamp())
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
	clk.set(start.Add(time.Millisecond))
	u := g.New()
	if u.Timestamp() != 1700000000124 {
		t.Fatalf("timestamp after tick = %d", u.Timestamp())
	}
	if u.Compare(prev) <= 0 {
		t.Fatal("not increasing across a tick")
	}
}

func TestGeneratorClockStepsBack(t *testing.T) {
	clk := &fakeClock{t: time.UnixMilli(5000)}
	g := NewGenerator(clk.now, nil)
	a := g.New()
	clk.set(time.UnixMilli(1000)) // four seconds back
	b := g.New()
	c := g.New()
	if b.Compare(a) <= 0 || c.Compare(b) <= 0 {
		t.Fatalf("not increasing after the clock stepped back: %s %s %s", a, b, c)
	}
	if b.Timestamp() != 5000 || c.Timestamp() != 5000 {
		t.Fatalf("timestamps %d %d, want the last one (5000)", b.Timestamp(), c.Timestamp())
	}
	clk.set(time.UnixMilli(5001))
	if d := g.New(); d.Timestamp() != 5001 || d.Compare(c) <= 0 {
		t.Fatalf("after the clock caught up: %s (ts %d)", d, d.Timestamp())
	}
}

func TestGeneratorEntropyOverflowCarries(t *testing.T) {
	// Entropy of all ones: the first ULID of millisecond 42 has sequence
	// 0x7FFF, the last start the generator ever picks.
	clk := &fakeClock{t: time.UnixMilli(42)}
	g := NewGenerator(clk.now, constReader(0xFF))
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
	if last != MaxAt(time.UnixMilli(42)) || last.Timestamp() != 42 {
		t.Fatalf("last of the millisecond = %s, want %s", last, MaxAt(time.UnixMilli(42)))
	}
	// The next would overflow the 80 bits: it carries into the timestamp.
	b := g.New()
	if b.Compare(last) <= 0 || b.Timestamp() != 43 {
		t.Fatalf("overflow: %s (ts %d) after %s", b, b.Timestamp(), last)
	}
	if b != MinAt(time.UnixMilli(43)).nextTop(^uint64(0)) {
		t.Fatalf("after the carry: %s", b)
	}
	// The clock (still 42) is now behind the IDs; they keep increasing in 43.
	c := g.New()
	if c.Compare(b) <= 0 || c.Timestamp() != 43 {
		t.Fatalf("after the carry: %s (ts %d)", c, c.Timestamp())
	}
	// With random entropy, from near 2^80 a run in one millisecond stays
	// strictly increasing and moves the time forward only by carries.
	g = NewGenerator(clk.now, nil)
	g.last = 42<<16 | 0xFFF0
	prev := fromHalves(42<<16|0xFFF0, ^uint64(0))
	for range 1 << 10 {
		u := g.New()
		if u.Compare(prev) <= 0 {
			t.Fatalf("not increasing near 2^80: %s after %s", u, prev)
		}
		prev = u
	}
	if prev.Timestamp() != 43 {
		t.Fatalf("timestamp after the carry = %d, want 43", prev.Timestamp())
	}
}

// nextTop returns u with its low word replaced: a helper for expected values.
func (u ULID) nextTop(lo uint64) ULID {
	hi, _ := u.halves()
	return fromHalves(hi, lo)
}

func TestGeneratorClamps(t *testing.T) {
	clk := &fakeClock{t: time.Date(1960, 1, 1, 0, 0, 0, 0, time.UTC)}
	g := NewGenerator(clk.now, nil)
	if u := g.New(); u.Timestamp() != 0 {
		t.Fatalf("before the epoch: timestamp %d, want 0", u.Timestamp())
	}
	clk.set(time.UnixMilli(1 << 50))
	g = NewGenerator(clk.now, constReader(0xFF))
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
	clk := &fakeClock{t: time.UnixMilli(1700000000000)}
	// Injected entropy is used as given.
	u := NewGenerator(clk.now, constReader(0xAB)).New()
	if !bytes.Equal(u[6:], append([]byte{0x2B}, bytes.Repeat([]byte{0xAB}, 9)...)) {
		t.Fatalf("injected entropy not used: %x", u[:])
	}
	// A failing source falls back to crypto/rand instead of failing.
	g := NewGenerator(clk.now, failingReader{})
	a := g.New()
	clk.set(time.UnixMilli(1700000000001))
	b := g.New()
	if b.Compare(a) <= 0 || bytes.Equal(a[6:], b[6:]) || bytes.Equal(a[6:], make([]byte, 10)) {
		t.Fatalf("fallback entropy: %x %x", a, b)
	}
	// Two default generators draw different entropy.
	x, y := NewGenerator(clk.now, nil).New(), NewGenerator(clk.now, nil).New()
	if x == y {
		t.Fatal("two generators made the same ULID")
	}
}

func TestFill(t *testing.T) {
	clk := &fakeClock{t: time.UnixMilli(1700000000000)}
	g := NewGenerator(clk.now, nil)
	first := g.New()
	clk.reads = 0
	ids := make([]ULID, 5000)
	g.Fill(ids)
	if clk.reads != 1 {
		t.Fatalf("Fill read the clock %d times, want 1", clk.reads)
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
	if ts := int64(u.Timestamp()); ts < before || ts > after+1 {
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

// zeroReader returns zero bytes forever.
type zeroReader struct{}

func (zeroReader) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// At the epoch (or before, clamped to it) with zero entropy the state starts
// at zero, which must not be mistaken for "unused": the IDs still increase
// and none is the nil ID.
func TestGeneratorAtEpoch(t *testing.T) {
	g := NewGenerator(func() time.Time { return time.Unix(0, 0) }, zeroReader{})
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
	g := NewGenerator(func() time.Time { return time.UnixMilli(1 << 50) }, nil)
	g.New()
	g.last = ^uint64(0) - 2
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
