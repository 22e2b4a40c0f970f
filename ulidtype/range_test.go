package ulidtype

import (
	"testing"
	"time"

	"github.com/pgid/pgid/internal/testclock"
)

func TestMinMaxAt(t *testing.T) {
	at := time.Date(2022, 10, 16, 13, 44, 44, 272_999_999, time.UTC) // sub-millisecond part is dropped
	lo, hi := MinAt(at), MaxAt(at)
	if lo.String() != "01GFGGMBFG0000000000000000" || hi.String() != "01GFGGMBFGZZZZZZZZZZZZZZZZ" {
		t.Fatalf("MinAt %s MaxAt %s", lo, hi)
	}
	if lo.UnixMilli() != 1665927884272 || hi.UnixMilli() != 1665927884272 {
		t.Fatalf("timestamps %d %d", lo.UnixMilli(), hi.UnixMilli())
	}
	// Every ID of that millisecond lies in [MinAt, MaxAt]; the neighbours don't.
	clk := testclock.New(at)
	g := NewGenerator(clk.Now, nil)
	for range 1000 {
		u := g.New()
		if u.Compare(lo) < 0 || u.Compare(hi) > 0 {
			t.Fatalf("%s outside [%s, %s]", u, lo, hi)
		}
	}
	if MaxAt(at.Add(-time.Millisecond)).Compare(lo) >= 0 || MinAt(at.Add(time.Millisecond)).Compare(hi) <= 0 {
		t.Fatal("neighbouring milliseconds overlap")
	}
	// Clamping.
	if u := MinAt(time.Date(1969, 12, 31, 23, 59, 59, 0, time.UTC)); !u.IsZero() {
		t.Fatalf("MinAt before the epoch = %s", u)
	}
	if u := MaxAt(time.Date(20000, 1, 1, 0, 0, 0, 0, time.UTC)); u.String() != "7ZZZZZZZZZZZZZZZZZZZZZZZZZ" {
		t.Fatalf("MaxAt after year 10889 = %s", u)
	}
	if u := MinAt(time.UnixMilli(-1).Add(500 * time.Microsecond)); !u.IsZero() {
		t.Fatalf("MinAt(-0.5ms) = %s", u)
	}
}

func TestRange(t *testing.T) {
	base := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	clk := testclock.New(base)
	g := NewGenerator(clk.Now, nil)
	// IDs at base + 0, 1, 2, ... 9 ms, three per millisecond.
	var ids []ULID
	for ms := range 10 {
		clk.Set(base.Add(time.Duration(ms) * time.Millisecond))
		for range 3 {
			ids = append(ids, g.New())
		}
	}
	count := func(lo, hi ULID) (n int) {
		for _, u := range ids {
			if u.Compare(lo) >= 0 && u.Compare(hi) < 0 {
				n++
			}
		}
		return n
	}
	ms := func(n int, ns int) time.Time { return base.Add(time.Duration(n)*time.Millisecond + time.Duration(ns)) }
	tests := []struct {
		from, to time.Time
		want     int
	}{
		{ms(0, 0), ms(10, 0), 30},
		{ms(2, 0), ms(5, 0), 9},       // 2, 3, 4
		{ms(2, 999_999), ms(5, 0), 9}, // from is truncated: the IDs of ms 2 count
		{ms(2, 0), ms(5, 999_999), 9}, // to is truncated: the IDs of ms 5 do not
		{ms(5, 0), ms(5, 0), 0},
		{ms(5, 0), ms(6, 0), 3},
		{ms(7, 0), ms(3, 0), 0}, // reversed: empty
		{ms(-100, 0), ms(0, 0), 0},
		{ms(9, 0), ms(100, 0), 3},
	}
	for _, tt := range tests {
		lo, hi := Range(tt.from, tt.to)
		if lo != MinAt(tt.from) || hi != MinAt(tt.to) {
			t.Fatalf("Range(%v, %v) = [%s, %s)", tt.from, tt.to, lo, hi)
		}
		if got := count(lo, hi); got != tt.want {
			t.Errorf("Range(%s, %s) holds %d IDs, want %d", tt.from.Format(time.StampNano), tt.to.Format(time.StampNano), got, tt.want)
		}
	}
}

// TestSinceUntil: Since(t) is MinAt(t); Until(t) is the first ULID after
// t's millisecond, so every ID a generator makes at t (also its last, after
// the bound) lies in [Since(t), Until(t)), and the next millisecond does not.
func TestSinceUntil(t *testing.T) {
	at := time.Date(2022, 10, 16, 13, 44, 44, 272_999_999, time.UTC)
	if Since(at) != MinAt(at) {
		t.Fatalf("Since %s, MinAt %s", Since(at), MinAt(at))
	}
	hi := Until(at)
	if hi.String() != "01GFGGMBFH0000000000000000" || hi != MinAt(at.Add(time.Millisecond)) {
		t.Fatalf("Until = %s", hi)
	}
	g := NewGenerator(testclock.New(at).Now, nil)
	for range 1000 {
		if u := g.New(); u.Compare(Since(at)) < 0 || u.Compare(hi) >= 0 {
			t.Fatalf("%s outside [Since, Until) = [%s, %s)", u, Since(at), hi)
		}
	}
	if _, rhi := Range(at.Add(-time.Hour), at); rhi.Compare(g.New()) > 0 {
		t.Fatal("Range(…, at) holds IDs of at's millisecond; Until is then pointless")
	}
	last := time.UnixMilli(maxTimestamp)
	if got := Until(last.Add(time.Hour)); got != MaxAt(last) || Until(last.Add(-time.Millisecond)) != MinAt(last) {
		t.Fatalf("Until at the end of time = %s", got)
	}
	if got := Until(time.Unix(-5, 0)); got != MinAt(time.UnixMilli(1)) {
		t.Fatalf("Until before the epoch = %s", got)
	}
}
