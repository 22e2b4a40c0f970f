package objectidtype

import (
	"bytes"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// fakeClock is a settable clock for generators under test.
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

// entropy returns a reader of the 5-byte process-unique value and the 3-byte
// counter start.
func entropy(counter uint32) *bytes.Reader {
	return bytes.NewReader([]byte{1, 2, 3, 4, 5, byte(counter >> 16), byte(counter >> 8), byte(counter)})
}

// parts splits o into seconds, process-unique value and counter.
func parts(o ObjectID) (sec uint32, unique [5]byte, counter uint32) {
	copy(unique[:], o[4:9])
	return o.Timestamp(), unique, uint32(o[9])<<16 | uint32(o[10])<<8 | uint32(o[11])
}

var seedTime = time.Unix(seedUnix, 0)

func TestGeneratorLayout(t *testing.T) {
	clock := &fakeClock{t: seedTime.Add(999 * time.Millisecond)}
	g := NewGenerator(clock.now, entropy(0x102030))
	for i := range uint32(3) {
		sec, unique, counter := parts(g.New())
		if sec != seedUnix || unique != [5]byte{1, 2, 3, 4, 5} || counter != 0x102030+i {
			t.Fatalf("ID %d: seconds %d, unique %x, counter %x", i, sec, unique, counter)
		}
	}
	// The counter keeps counting across seconds, as in MongoDB.
	clock.set(seedTime.Add(time.Second))
	if sec, _, counter := parts(g.New()); sec != seedUnix+1 || counter != 0x102033 {
		t.Fatalf("next second: seconds %d, counter %x", sec, counter)
	}
}

func TestGeneratorClockStepBack(t *testing.T) {
	clock := &fakeClock{t: seedTime}
	g := NewGenerator(clock.now, entropy(5))
	prev := g.New()
	for _, back := range []time.Duration{time.Second, time.Hour, 24 * 365 * time.Hour} {
		clock.set(seedTime.Add(-back))
		for range 3 {
			o := g.New()
			if o.Compare(prev) <= 0 {
				t.Fatalf("clock back %v: %v after %v", back, o, prev)
			}
			if o.Timestamp() != seedUnix {
				t.Fatalf("clock back %v: seconds %d, want the last %d", back, o.Timestamp(), seedUnix)
			}
			prev = o
		}
	}
	// When the clock catches up, the seconds follow it again.
	clock.set(seedTime.Add(2 * time.Second))
	if o := g.New(); o.Timestamp() != seedUnix+2 || o.Compare(prev) <= 0 {
		t.Fatalf("clock forward: %v after %v", o, prev)
	}
}

func TestGeneratorCounterCarry(t *testing.T) {
	clock := &fakeClock{t: seedTime}
	g := NewGenerator(clock.now, entropy(0))
	g.New()
	g.state.Store(seedUnix<<24 | 0xFFFFFD) // as after 2^24 - 3 IDs this second
	want := []struct{ sec, counter uint32 }{
		{seedUnix, 0xFFFFFE},
		{seedUnix, 0xFFFFFF},
		{seedUnix + 1, 0}, // carry instead of wrapping to a smaller ID
		{seedUnix + 1, 1},
	}
	for i, w := range want {
		sec, _, counter := parts(g.New())
		if sec != w.sec || counter != w.counter {
			t.Fatalf("ID %d: seconds %d counter %x, want %d %x", i, sec, counter, w.sec, w.counter)
		}
	}
	// The clock reaching the carried second does not move anything back.
	clock.set(seedTime.Add(time.Second))
	if sec, _, counter := parts(g.New()); sec != seedUnix+1 || counter != 2 {
		t.Fatalf("after catch-up: seconds %d counter %x", sec, counter)
	}
}

// TestGeneratorNewSecondNoCarry: a counter high in its range when a new
// second begins goes on in its lower half instead of carrying, so IDs never
// run ahead of the clock at ordinary rates.
func TestGeneratorNewSecondNoCarry(t *testing.T) {
	clock := &fakeClock{t: seedTime}
	g := NewGenerator(clock.now, entropy(0))
	g.New()
	g.state.Store(seedUnix<<24 | 0xFFFFFE)
	clock.set(seedTime.Add(time.Second))
	want := []struct{ sec, counter uint32 }{
		{seedUnix + 1, 0x7FFFFF},
		{seedUnix + 1, 0x800000},
		{seedUnix + 1, 0x800001},
	}
	for i, w := range want {
		sec, _, counter := parts(g.New())
		if sec != w.sec || counter != w.counter {
			t.Fatalf("ID %d: seconds %d counter %x, want %d %x", i, sec, counter, w.sec, w.counter)
		}
	}
	// From any counter value, 2^23 IDs fit in the new second.
	for _, c := range []uint64{0, 0x7FFFFE, 0x7FFFFF, 0x800000, 0xFFFFFF} {
		g.state.Store(seedUnix<<24 | c)
		clock.set(seedTime.Add(time.Second))
		first := g.New()
		g.state.Store(g.state.Load() + 1<<23 - 2) // as after 2^23 - 2 more
		last := g.New()
		if first.Timestamp() != seedUnix+1 || last.Timestamp() != seedUnix+1 {
			t.Fatalf("counter %x: 2^23 IDs did not fit in the second: %v .. %v", c, first, last)
		}
	}
}

func TestGeneratorMoreThan2p24InOneSecond(t *testing.T) {
	if testing.Short() {
		t.Skip("makes 2^24+ IDs")
	}
	clock := &fakeClock{t: seedTime}
	g := NewGenerator(clock.now, entropy(0x123456))
	prev := g.New()
	const n = 1<<24 + 1000
	for i := 1; i < n; i++ {
		o := g.New()
		if o.Compare(prev) <= 0 {
			t.Fatalf("ID %d: %v after %v", i, o, prev)
		}
		prev = o
	}
	if sec, _, counter := parts(prev); sec != seedUnix+1 || counter != (0x123456+n-1)&0xFFFFFF {
		t.Fatalf("last ID: seconds %d counter %x", sec, counter)
	}
	// Fill crosses the carry too.
	ids := make([]ObjectID, 1<<16)
	for range 300 {
		g.Fill(ids)
		for i, o := range ids {
			if o.Compare(prev) <= 0 {
				t.Fatalf("Fill ID %d: %v after %v", i, o, prev)
			}
			prev = o
		}
	}
	if prev.Timestamp() != seedUnix+2 {
		t.Fatalf("after 300×2^16 more: seconds %d", prev.Timestamp())
	}
}

func TestGeneratorFill(t *testing.T) {
	clock := &fakeClock{t: seedTime}
	g := NewGenerator(clock.now, entropy(0x7FFFF0))
	g.Fill(nil)
	if clock.reads != 0 {
		t.Fatalf("Fill(nil) read the clock %d times", clock.reads)
	}
	ids := make([]ObjectID, 100)
	g.Fill(ids)
	if clock.reads != 1 {
		t.Fatalf("Fill read the clock %d times, want 1", clock.reads)
	}
	for i := 1; i < len(ids); i++ {
		if ids[i].Compare(ids[i-1]) <= 0 {
			t.Fatalf("ids[%d] = %v after %v", i, ids[i], ids[i-1])
		}
	}
	if sec, _, counter := parts(ids[0]); sec != seedUnix || counter != 0x7FFFF0 {
		t.Fatalf("ids[0]: seconds %d counter %x", sec, counter)
	}
	if sec, _, counter := parts(ids[99]); sec != seedUnix || counter != 0x7FFFF0+99 {
		t.Fatalf("ids[99]: seconds %d counter %x", sec, counter)
	}
	// A batch across the end of the counter carries into the seconds.
	g.state.Store(seedUnix<<24 | 0xFFFFF0)
	g.Fill(ids)
	for i := 1; i < len(ids); i++ {
		if ids[i].Compare(ids[i-1]) <= 0 {
			t.Fatalf("carrying Fill: ids[%d] = %v after %v", i, ids[i], ids[i-1])
		}
	}
	if sec, _, counter := parts(ids[99]); sec != seedUnix+1 || counter != (0xFFFFF1+99)&0xFFFFFF {
		t.Fatalf("carrying Fill: ids[99]: seconds %d counter %x", sec, counter)
	}
	if o := g.New(); o.Compare(ids[99]) <= 0 {
		t.Fatalf("New after Fill: %v after %v", o, ids[99])
	}
}

func TestGeneratorClamp(t *testing.T) {
	clock := &fakeClock{t: time.Date(1960, 1, 1, 0, 0, 0, 0, time.UTC)}
	g := NewGenerator(clock.now, entropy(0))
	if sec, _, counter := parts(g.New()); sec != 0 && sec != 1 || counter != 0 {
		t.Fatalf("before 1970: seconds %d counter %x", sec, counter)
	}
	clock.set(time.Date(2200, 1, 1, 0, 0, 0, 0, time.UTC))
	g = NewGenerator(clock.now, entropy(0))
	g.state.Store((1<<32-1)<<24 | 0xFFFFFC) // three IDs before the end
	var prev ObjectID
	for i := range 3 {
		o := g.New()
		if o.Timestamp() != 1<<32-1 || (i > 0 && o.Compare(prev) <= 0) {
			t.Fatalf("after 2106, ID %d: %v after %v", i, o, prev)
		}
		prev = o
	}
	// At the very end of the range the generator saturates instead of
	// wrapping to 1970.
	for range 3 {
		o := g.New()
		if o != (ObjectID{0xFF, 0xFF, 0xFF, 0xFF, 1, 2, 3, 4, 5, 0xFF, 0xFF, 0xFF}) {
			t.Fatalf("saturated: %v", o)
		}
	}
	ids := make([]ObjectID, 4)
	g.Fill(ids)
	for _, o := range ids {
		if o.Compare(prev) < 0 {
			t.Fatalf("saturated Fill went back: %v", o)
		}
	}
}

type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, errors.New("no entropy") }

func TestGeneratorEntropy(t *testing.T) {
	g := NewGenerator(nil, failingReader{})
	a, b := g.New(), g.New()
	if a.Compare(b) >= 0 {
		t.Fatalf("%v, %v not increasing", a, b)
	}
	// Two generators with crypto/rand entropy get different unique values.
	_, u1, _ := parts(NewGenerator(nil, nil).New())
	_, u2, _ := parts(NewGenerator(nil, failingReader{}).New())
	_, u3, _ := parts(a)
	if u1 == u2 || u2 == u3 || u1 == [5]byte{} {
		t.Fatalf("unique values %x %x %x", u1, u2, u3)
	}
	// A short reader also falls back instead of using partial bytes.
	g = NewGenerator(nil, bytes.NewReader([]byte{1, 2, 3}))
	if _, u, _ := parts(g.New()); u == [5]byte{1, 2, 3, 0, 0} {
		t.Fatal("short entropy was used")
	}
}

func TestNewDefault(t *testing.T) {
	before := time.Now().Unix()
	a := New()
	b := New()
	after := time.Now().Unix()
	if a.Compare(b) >= 0 {
		t.Fatalf("New: %v then %v", a, b)
	}
	if s := int64(a.Timestamp()); s < before || s > after {
		t.Fatalf("New: timestamp %d outside [%d, %d]", s, before, after)
	}
	if a.IsZero() {
		t.Fatal("New returned the nil ID")
	}
	_, ua, _ := parts(a)
	ids := make([]ObjectID, 10)
	Fill(ids)
	for i, o := range ids {
		if _, u, _ := parts(o); u != ua {
			t.Fatalf("process-unique value changed: %x, %x", ua, u)
		}
		if o.Compare(b) <= 0 {
			t.Fatalf("Fill[%d] = %v after %v", i, o, b)
		}
		b = o
	}
}

func TestNewAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts need a normal build")
	}
	ids := make([]ObjectID, 16)
	for name, f := range map[string]func(){
		"New":  func() { _ = New() },
		"Fill": func() { Fill(ids) },
	} {
		if n := testing.AllocsPerRun(1000, f); n != 0 {
			t.Errorf("%s: %v allocations, want 0", name, n)
		}
	}
}

func TestNewConcurrent(t *testing.T) {
	const goroutines, perG = 32, 20000
	g := NewGenerator(nil, nil)
	results := make([][]ObjectID, goroutines)
	var failed atomic.Bool
	var wg sync.WaitGroup
	for i := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ids := make([]ObjectID, 0, perG)
			batch := make([]ObjectID, 7)
			for len(ids) < perG {
				if len(ids)%5 == 0 {
					g.Fill(batch)
					ids = append(ids, batch...)
				} else {
					ids = append(ids, g.New())
				}
			}
			for j := 1; j < len(ids); j++ {
				if ids[j].Compare(ids[j-1]) <= 0 {
					failed.Store(true)
					t.Errorf("goroutine %d: ID %d %v after %v", i, j, ids[j], ids[j-1])
					return
				}
			}
			results[i] = ids
		}()
	}
	wg.Wait()
	if failed.Load() {
		return
	}
	seen := make(map[ObjectID]struct{}, goroutines*perG)
	for _, ids := range results {
		for _, o := range ids {
			if _, dup := seen[o]; dup {
				t.Fatalf("duplicate %v", o)
			}
			seen[o] = struct{}{}
		}
	}
}

func TestNewConcurrentDefault(t *testing.T) {
	const goroutines, perG = 16, 10000
	var mu sync.Mutex
	seen := make(map[ObjectID]struct{}, goroutines*perG)
	var wg sync.WaitGroup
	for range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ids := make([]ObjectID, perG)
			for j := range ids {
				ids[j] = New()
				if j > 0 && ids[j].Compare(ids[j-1]) <= 0 {
					t.Errorf("%v after %v", ids[j], ids[j-1])
					return
				}
			}
			mu.Lock()
			defer mu.Unlock()
			for _, o := range ids {
				if _, dup := seen[o]; dup {
					t.Errorf("duplicate %v", o)
					return
				}
				seen[o] = struct{}{}
			}
		}()
	}
	wg.Wait()
}
