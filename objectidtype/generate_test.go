package objectidtype

import (
	"bytes"
	"errors"
	"io"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pgid/pgid/internal/testclock"
)

// entropy returns an endless reader of the 5-byte process-unique value
// 0102030405 and the 3-byte counter start, then bytes 0x55 for the
// process-unique values of later seconds.
func entropy(counter uint32) io.Reader {
	return io.MultiReader(
		bytes.NewReader([]byte{1, 2, 3, 4, 5, byte(counter >> 16), byte(counter >> 8), byte(counter)}),
		testclock.ConstReader(0x55))
}

// setState puts g, which has made an ID, in the state of seconds<<24|counter
// v, keeping its epoch.
func setState(g *Generator, v uint64) {
	g.state.Store(g.state.Load()&parityBit | v)
}

// parts splits o into seconds, process-unique value and counter.
func parts(o ObjectID) (sec uint32, unique [5]byte, counter uint32) {
	copy(unique[:], o[4:9])
	return uint32(o.Unix()), unique, uint32(o[9])<<16 | uint32(o[10])<<8 | uint32(o[11])
}

var seedTime = time.Unix(seedUnix, 0)

func TestGeneratorLayout(t *testing.T) {
	clock := testclock.New(seedTime.Add(999 * time.Millisecond))
	g := NewGenerator(clock.Now, entropy(0x102030))
	for i := range uint32(3) {
		sec, unique, counter := parts(g.New())
		if sec != seedUnix || unique != [5]byte{1, 2, 3, 4, 5} || counter != 0x102030+i {
			t.Fatalf("ID %d: seconds %d, unique %x, counter %x", i, sec, unique, counter)
		}
	}
	// The counter keeps counting across seconds, as in MongoDB.
	clock.Set(seedTime.Add(time.Second))
	if sec, _, counter := parts(g.New()); sec != seedUnix+1 || counter != 0x102033 {
		t.Fatalf("next second: seconds %d, counter %x", sec, counter)
	}
}

func TestGeneratorClockStepBack(t *testing.T) {
	clock := testclock.New(seedTime)
	g := NewGenerator(clock.Now, entropy(5))
	prev := g.New()
	for _, back := range []time.Duration{time.Second, time.Hour, 24 * 365 * time.Hour} {
		clock.Set(seedTime.Add(-back))
		for range 3 {
			o := g.New()
			if o.Compare(prev) <= 0 {
				t.Fatalf("clock back %v: %v after %v", back, o, prev)
			}
			if o.Unix() != seedUnix {
				t.Fatalf("clock back %v: seconds %d, want the last %d", back, o.Unix(), seedUnix)
			}
			prev = o
		}
	}
	// When the clock catches up, the seconds follow it again.
	clock.Set(seedTime.Add(2 * time.Second))
	if o := g.New(); o.Unix() != seedUnix+2 || o.Compare(prev) <= 0 {
		t.Fatalf("clock forward: %v after %v", o, prev)
	}
}

func TestGeneratorCounterCarry(t *testing.T) {
	clock := testclock.New(seedTime)
	g := NewGenerator(clock.Now, entropy(0))
	g.New()
	setState(g, seedUnix<<24|0xFFFFFD) // as after 2^24 - 3 IDs this second
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
	clock.Set(seedTime.Add(time.Second))
	if sec, _, counter := parts(g.New()); sec != seedUnix+1 || counter != 2 {
		t.Fatalf("after catch-up: seconds %d counter %x", sec, counter)
	}
}

// TestGeneratorNewSecondNoCarry: a counter high in its range when a new
// second begins goes on in its lower half instead of carrying, so IDs never
// run ahead of the clock at ordinary rates.
func TestGeneratorNewSecondNoCarry(t *testing.T) {
	clock := testclock.New(seedTime)
	g := NewGenerator(clock.Now, entropy(0))
	g.New()
	setState(g, seedUnix<<24|0xFFFFFE)
	clock.Set(seedTime.Add(time.Second))
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
		setState(g, seedUnix<<24|c)
		clock.Set(seedTime.Add(time.Second))
		first := g.New()
		g.state.Add(1<<23 - 2) // as after 2^23 - 2 more
		last := g.New()
		if first.Unix() != seedUnix+1 || last.Unix() != seedUnix+1 {
			t.Fatalf("counter %x: 2^23 IDs did not fit in the second: %v .. %v", c, first, last)
		}
	}
}

func TestGeneratorMoreThan2p24InOneSecond(t *testing.T) {
	if testing.Short() {
		t.Skip("makes 2^24+ IDs")
	}
	clock := testclock.New(seedTime)
	g := NewGenerator(clock.Now, entropy(0x123456))
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
	if prev.Unix() != seedUnix+2 {
		t.Fatalf("after 300×2^16 more: seconds %d", prev.Unix())
	}
}

func TestGeneratorFill(t *testing.T) {
	clock := testclock.New(seedTime)
	g := NewGenerator(clock.Now, entropy(0x7FFFF0))
	g.Fill(nil)
	if clock.Reads() != 0 {
		t.Fatalf("Fill(nil) read the clock %d times", clock.Reads())
	}
	ids := make([]ObjectID, 100)
	g.Fill(ids)
	if clock.Reads() != 1 {
		t.Fatalf("Fill read the clock %d times, want 1", clock.Reads())
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
	setState(g, seedUnix<<24|0xFFFFF0)
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
	clock := testclock.New(time.Date(1960, 1, 1, 0, 0, 0, 0, time.UTC))
	g := NewGenerator(clock.Now, entropy(0))
	if sec, _, counter := parts(g.New()); sec != 0 && sec != 1 || counter != 0 {
		t.Fatalf("before 1970: seconds %d counter %x", sec, counter)
	}
	clock.Set(time.Date(2200, 1, 1, 0, 0, 0, 0, time.UTC))
	g = NewGenerator(clock.Now, entropy(0))
	g.New()
	setState(g, (1<<32-1)<<24|0xFFFFFC) // three IDs before the end
	var prev ObjectID
	for i := range 3 {
		o := g.New()
		if o.Unix() != 1<<32-1 || (i > 0 && o.Compare(prev) <= 0) {
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

func TestGeneratorEntropy(t *testing.T) {
	// Two generators with crypto/rand entropy get different unique values.
	_, u1, _ := parts(NewGenerator(nil, nil).New())
	_, u2, _ := parts(NewGenerator(nil, nil).New())
	if u1 == u2 || u1 == [5]byte{} {
		t.Fatalf("unique values %x %x", u1, u2)
	}
	// An injected source gives 8 bytes on first use and 5 at each new
	// second, and nothing else is read.
	r := bytes.NewReader([]byte{1, 2, 3, 4, 5, 0, 0, 7, 9, 8, 7, 6, 5})
	clock := testclock.New(seedTime)
	g := NewGenerator(clock.Now, r)
	g.Fill(make([]ObjectID, 10))
	clock.Add(time.Second)
	if sec, u, counter := parts(g.New()); sec != seedUnix+1 || u != [5]byte{9, 8, 7, 6, 5} || counter != 7+10 {
		t.Fatalf("next second: %d %x %x", sec, u, counter)
	}
	if r.Len() != 0 {
		t.Fatalf("%d bytes left unread", r.Len())
	}
}

// TestGeneratorEntropyFails: a source that fails or runs dry is rejected
// loudly, with a panic wrapping its error, instead of being replaced by
// crypto/rand.
func TestGeneratorEntropyFails(t *testing.T) {
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
	g := NewGenerator(nil, testclock.FailingReader{})
	mustPanic("New", testclock.ErrEntropy, func() { g.New() })
	mustPanic("Fill", testclock.ErrEntropy, func() { g.Fill(make([]ObjectID, 3)) })
	mustPanic("New again", testclock.ErrEntropy, func() { g.New() }) // mu was released
	// A short reader is not used in part.
	mustPanic("short", io.ErrUnexpectedEOF, func() { NewGenerator(nil, bytes.NewReader([]byte{1, 2, 3})).New() })
	// 8 bytes last until the clock moves to a new second.
	clock := testclock.New(seedTime)
	g = NewGenerator(clock.Now, bytes.NewReader(make([]byte, 8)))
	g.New()
	g.New()
	clock.Add(time.Second)
	mustPanic("dry at a new second", io.EOF, func() { g.New() })
}

// TestGeneratorZeroValue: the zero Generator draws its process-unique value
// and counter start on first use, like NewGenerator(nil, nil), once even
// under concurrent first calls.
func TestGeneratorZeroValue(t *testing.T) {
	var g Generator
	const n = 8
	ids := make([]ObjectID, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ids[i] = g.New()
		}()
	}
	wg.Wait()
	seen := map[ObjectID]bool{}
	for _, o := range ids {
		_, u, _ := parts(o)
		_, u0, _ := parts(ids[0])
		if o.Unix() == ids[0].Unix() && u != u0 {
			t.Fatalf("two process-unique values in one second: %x %x", u0, u)
		}
		if seen[o] || u == [5]byte{} {
			t.Fatalf("zero Generator: %v (seen %v)", o, seen[o])
		}
		seen[o] = true
	}
	var h Generator
	if _, u, _ := parts(h.New()); u == [5]byte{} {
		t.Fatal("zero Generator has an all-zero process-unique value")
	}
}

// TestGeneratorNewSecondRedraws: the process-unique value is drawn again
// when the clock moves the seconds forward, not when the counter carries into
// the next second, and the order holds across both.
func TestGeneratorNewSecondRedraws(t *testing.T) {
	r := io.MultiReader(
		bytes.NewReader([]byte{1, 1, 1, 1, 1, 0xFF, 0xFF, 0xFD}), // counter start 7ffffd: in its lower half
		bytes.NewReader([]byte{2, 2, 2, 2, 2}),
		bytes.NewReader([]byte{0, 0, 0, 0, 0}), // smaller than before: order still holds
	)
	clock := testclock.New(seedTime)
	g := NewGenerator(clock.Now, r)
	type want struct {
		sec     uint32
		unique  byte
		counter uint32
	}
	var prev ObjectID
	check := func(ws ...want) {
		t.Helper()
		for _, w := range ws {
			o := g.New()
			sec, u, counter := parts(o)
			if sec != w.sec || u != [5]byte{w.unique, w.unique, w.unique, w.unique, w.unique} || counter != w.counter {
				t.Fatalf("%v: seconds %d unique %x counter %x, want %+v", o, sec, u, counter, w)
			}
			if o.Compare(prev) <= 0 {
				t.Fatalf("%v after %v", o, prev)
			}
			prev = o
		}
	}
	check(want{seedUnix, 1, 0x7FFFFD})
	setState(g, seedUnix<<24|0xFFFFFD) // as after 2^23 more: 2 below the counter's end
	check(want{seedUnix, 1, 0xFFFFFE}, want{seedUnix, 1, 0xFFFFFF},
		want{seedUnix + 1, 1, 0}) // carried: the value of the second it carried from
	clock.Add(time.Second) // the clock reaches the carried second: nothing new
	check(want{seedUnix + 1, 1, 1})
	clock.Add(time.Second)
	check(want{seedUnix + 2, 2, 2}, want{seedUnix + 2, 2, 3})
	clock.Add(-time.Hour) // back: nothing new
	check(want{seedUnix + 2, 2, 4})
	clock.Set(seedTime.Add(time.Hour))
	check(want{seedUnix + 3600, 0, 5})
}

// cloneOf returns a Generator in the state g is in, as a process restored
// from a memory snapshot of g would be, with its own entropy source.
func cloneOf(g *Generator, entropy io.Reader) *Generator {
	c := &Generator{clock: g.clock, entropy: entropy}
	c.state.Store(g.state.Load())
	for i := range g.epochs {
		c.epochs[i].from.Store(g.epochs[i].from.Load())
		c.epochs[i].unique.Store(g.epochs[i].unique.Load())
	}
	return c
}

// TestGeneratorCloneDiverges simulates a process restored twice from one
// snapshot: the copies make the same IDs within the second of the copy and
// different ones from the first ID in a later second of the clock on.
func TestGeneratorCloneDiverges(t *testing.T) {
	for _, name := range []string{"crypto/rand", "injected"} {
		t.Run(name, func(t *testing.T) {
			clock := testclock.New(seedTime.Add(300 * time.Millisecond))
			var a, b *Generator
			if name == "crypto/rand" {
				a = NewGenerator(clock.Now, nil)
				a.New()
				b = cloneOf(a, nil)
			} else {
				// The sources differ after the copy, as crypto/rand does.
				a = NewGenerator(clock.Now, io.MultiReader(bytes.NewReader(make([]byte, 8)), testclock.ConstReader(0xA)))
				a.New()
				b = cloneOf(a, testclock.ConstReader(0xB))
			}
			for i := range 1000 {
				if x, y := a.New(), b.New(); x != y {
					t.Fatalf("ID %d in the second of the copy: %v, %v", i, x, y)
				}
			}
			clock.Add(time.Second)
			x, y := make([]ObjectID, 1000), make([]ObjectID, 1000)
			a.Fill(x[:1])
			b.Fill(y[:1])
			a.Fill(x[1:])
			b.Fill(y[1:])
			for i := range x {
				_, ux, _ := parts(x[i])
				_, uy, _ := parts(y[i])
				if ux == uy {
					t.Fatalf("ID %d in the next second: both copies have process-unique value %x", i, ux)
				}
			}
		})
	}
}

// TestGeneratorConcurrentSeconds runs many goroutines against a clock that
// moves a second forward every few reads, so new epochs start all the time
// while other calls are between their reservation and their read of the
// epoch: every goroutine sees strictly increasing IDs, no ID repeats, and all
// IDs of one second share one process-unique value. Run it with -race.
func TestGeneratorConcurrentSeconds(t *testing.T) {
	var reads atomic.Int64
	clock := func() time.Time { return seedTime.Add(time.Duration(reads.Add(1)/7) * time.Second) }
	g := NewGenerator(clock, nil)
	const goroutines, perG = 8, 20000
	results := make([][]ObjectID, goroutines)
	var wg sync.WaitGroup
	for i := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ids := make([]ObjectID, 0, perG)
			batch := make([]ObjectID, 3)
			for len(ids) < perG {
				if len(ids)%4 == 0 {
					g.Fill(batch)
					ids = append(ids, batch...)
				} else {
					ids = append(ids, g.New())
				}
			}
			results[i] = ids
		}()
	}
	wg.Wait()
	seen := make(map[ObjectID]bool, goroutines*perG)
	unique := map[uint32][5]byte{}
	for i, ids := range results {
		for j, o := range ids {
			if j > 0 && o.Compare(ids[j-1]) <= 0 {
				t.Fatalf("goroutine %d: ID %d %v after %v", i, j, o, ids[j-1])
			}
			if seen[o] {
				t.Fatalf("duplicate %v", o)
			}
			seen[o] = true
			sec, u, _ := parts(o)
			if w, ok := unique[sec]; ok && w != u {
				t.Fatalf("second %d has process-unique values %x and %x", sec, w, u)
			}
			unique[sec] = u
		}
	}
	if len(unique) < 100 {
		t.Fatalf("only %d seconds: the test did not exercise new epochs", len(unique))
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
	if s := a.Unix(); s < before || s > after {
		t.Fatalf("New: timestamp %d outside [%d, %d]", s, before, after)
	}
	if a.IsZero() {
		t.Fatal("New returned the nil ID")
	}
	_, ua, _ := parts(a)
	ids := make([]ObjectID, 10)
	Fill(ids)
	for i, o := range ids {
		if _, u, _ := parts(o); u != ua && o.Unix() == a.Unix() {
			t.Fatalf("process-unique value changed within a second: %x, %x", ua, u)
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
