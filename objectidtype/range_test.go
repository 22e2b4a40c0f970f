package objectidtype

import (
	"testing"
	"time"
)

func TestMinMaxAt(t *testing.T) {
	at := seedTime.Add(700 * time.Millisecond)
	lo, hi := MinAt(at), MaxAt(at)
	if lo != MustParse("4e7020cb0000000000000000") {
		t.Errorf("MinAt = %v", lo)
	}
	if hi != MustParse("4e7020cbffffffffffffffff") {
		t.Errorf("MaxAt = %v", hi)
	}
	if !lo.Timestamp().Equal(seedTime) || !hi.Timestamp().Equal(seedTime) {
		t.Errorf("times %v, %v; want %v", lo.Timestamp(), hi.Timestamp(), seedTime)
	}
	if seedBytes.Compare(lo) < 0 || seedBytes.Compare(hi) > 0 {
		t.Errorf("seed %v outside [%v, %v]", seedBytes, lo, hi)
	}
	// The second's last nanosecond still truncates to the same second.
	if MinAt(seedTime.Add(time.Second-1)) != lo {
		t.Error("MinAt(second + 999999999ns) moved to the next second")
	}
}

func TestRangeClamp(t *testing.T) {
	tests := []struct {
		t        time.Time
		min, max string
	}{
		{time.Unix(0, 0), "000000000000000000000000", "00000000ffffffffffffffff"},
		{time.Unix(-1, 0), "000000000000000000000000", "00000000ffffffffffffffff"},
		{time.Unix(0, -1), "000000000000000000000000", "00000000ffffffffffffffff"}, // 1969, rounds toward the past
		{time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC), "000000000000000000000000", "00000000ffffffffffffffff"},
		{time.Time{}, "000000000000000000000000", "00000000ffffffffffffffff"},
		{time.Unix(1<<32-1, 999999999), "ffffffff0000000000000000", "ffffffffffffffffffffffff"},
		{time.Unix(1<<32, 0), "ffffffff0000000000000000", "ffffffffffffffffffffffff"},
		{time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC), "ffffffff0000000000000000", "ffffffffffffffffffffffff"},
	}
	for _, tt := range tests {
		if got := MinAt(tt.t); got.String() != tt.min {
			t.Errorf("MinAt(%v) = %v, want %s", tt.t, got, tt.min)
		}
		if got := MaxAt(tt.t); got.String() != tt.max {
			t.Errorf("MaxAt(%v) = %v, want %s", tt.t, got, tt.max)
		}
	}
}

// idAt returns an ID made by a generator whose clock reads t.
func idAt(t time.Time) ObjectID {
	return NewGenerator(func() time.Time { return t }, nil).New()
}

func in(o, lo, hi ObjectID) bool { return o.Compare(lo) >= 0 && o.Compare(hi) < 0 }

func TestRangeEdges(t *testing.T) {
	base := seedTime // 03:34:35.000
	from := base.Add(900 * time.Millisecond)
	to := base.Add(5*time.Second + 500*time.Millisecond)
	lo, hi := Range(from, to)
	if lo != MinAt(base) || hi != MinAt(base.Add(5*time.Second)) {
		t.Fatalf("Range = %v, %v", lo, hi)
	}
	tests := []struct {
		at   time.Duration // after base
		want bool
	}{
		{-time.Nanosecond, false},                     // the second before from's
		{0, true},                                     // start of from's second
		{200 * time.Millisecond, true},                // before from, same second: rounded in
		{900 * time.Millisecond, true},                // from itself
		{4*time.Second + 999999999, true},             // last instant before to's second
		{5 * time.Second, false},                      // start of to's second
		{5*time.Second + 200*time.Millisecond, false}, // before to, same second: rounded out
		{5*time.Second + 500*time.Millisecond, false}, // to itself
	}
	for _, tt := range tests {
		o := idAt(base.Add(tt.at))
		if got := in(o, lo, hi); got != tt.want {
			t.Errorf("ID made at base+%v: in range = %v, want %v", tt.at, got, tt.want)
		}
	}
	// MaxAt of the last second inside, MinAt of to's second outside.
	if !in(MaxAt(base.Add(4*time.Second)), lo, hi) || in(MinAt(to), lo, hi) || !in(lo, lo, hi) {
		t.Error("bounds themselves misplaced")
	}
}

func TestRangeWholeSecondsExact(t *testing.T) {
	from, to := seedTime, seedTime.Add(3*time.Second)
	lo, hi := Range(from, to)
	for ms := -1000; ms < 4000; ms += 100 {
		at := seedTime.Add(time.Duration(ms) * time.Millisecond)
		want := !at.Before(from) && at.Before(to)
		if got := in(idAt(at), lo, hi); got != want {
			t.Errorf("whole-second bounds, ID at %v: in = %v, want %v", at, got, want)
		}
	}
}

func TestRangeTiles(t *testing.T) {
	a := seedTime.Add(300 * time.Millisecond)
	b := seedTime.Add(2*time.Second + 700*time.Millisecond)
	c := seedTime.Add(5*time.Second + 100*time.Millisecond)
	lo1, hi1 := Range(a, b)
	lo2, hi2 := Range(b, c)
	lo, hi := Range(a, c)
	if hi1 != lo2 || lo1 != lo || hi2 != hi {
		t.Fatalf("Range(a,b), Range(b,c) do not tile Range(a,c)")
	}
	for ms := -500; ms < 6000; ms += 50 {
		o := idAt(seedTime.Add(time.Duration(ms) * time.Millisecond))
		n := 0
		if in(o, lo1, hi1) {
			n++
		}
		if in(o, lo2, hi2) {
			n++
		}
		if want := map[bool]int{true: 1, false: 0}[in(o, lo, hi)]; n != want {
			t.Errorf("ID at +%dms is in %d of the parts, want %d", ms, n, want)
		}
	}
}

func TestRangeEmpty(t *testing.T) {
	for _, d := range []time.Duration{0, 500 * time.Millisecond, -time.Second} {
		lo, hi := Range(seedTime, seedTime.Add(d))
		if hi.Compare(lo) > 0 {
			t.Errorf("Range(t, t+%v) = [%v, %v), want empty", d, lo, hi)
		}
	}
}

// TestSinceUntil: Since(t) is MinAt(t) and Until(t) the first ObjectID of
// the next second, so [Since(t), Until(t)) holds all of t's second, also IDs
// made after the bound, whatever the sub-second part of t.
func TestSinceUntil(t *testing.T) {
	for _, frac := range []time.Duration{0, 1, 999 * time.Millisecond} {
		at := time.Unix(seedUnix, 0).Add(frac)
		lo, hi := Since(at), Until(at)
		if lo != MinAt(at) || hi != MinAt(time.Unix(seedUnix+1, 0)) || hi.Unix() != seedUnix+1 {
			t.Fatalf("+%v: Since %s, Until %s", frac, lo, hi)
		}
		ids := make([]ObjectID, 500)
		NewGenerator(func() time.Time { return at }, nil).Fill(ids)
		for _, o := range ids {
			if o.Compare(lo) < 0 || o.Compare(hi) >= 0 {
				t.Fatalf("+%v: %s outside [%s, %s)", frac, o, lo, hi)
			}
		}
	}
	end := time.Unix(1<<32-1, 0)
	if got := Until(end.Add(time.Hour)); got != MaxAt(end) || Until(end.Add(-time.Second)) != MinAt(end) {
		t.Fatalf("Until at the end of time = %s", got)
	}
}
