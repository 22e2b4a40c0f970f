package tail

import (
	"math/rand/v2"
	"testing"
	"time"
)

var t0 = time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)

func at(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }

func TestHorizonFirstCall(t *testing.T) {
	var h horizon
	// No writers: the clock.
	if safe, ok := h.advance(writers{at: at(0)}); !ok || !safe.Equal(at(0)) {
		t.Fatalf("no writers: %v %v, want %v true", safe, ok, at(0))
	}
	// A fresh Tailer cannot bound an xid it sees at its first call
	// without its xact_start.
	var fresh horizon
	start := at(-5000)
	if _, ok := fresh.advance(writers{at: at(0), xids: []int64{7, 8}, starts: []*time.Time{&start, nil}}); ok {
		t.Fatal("first call with an xid of unknown start: ok")
	}
	// Still unknown at the next call, even though 9 is new.
	if _, ok := fresh.advance(writers{at: at(100), xids: []int64{8, 9}, starts: []*time.Time{nil, nil}}); ok {
		t.Fatal("second call, xid 8 still unknown: ok")
	}
	// 8 ended: 9 was assigned after the first call's clock.
	if safe, ok := fresh.advance(writers{at: at(200), xids: []int64{9}, starts: []*time.Time{nil}}); !ok || !safe.Equal(at(0)) {
		t.Fatalf("after 8 ended: %v %v, want %v true", safe, ok, at(0))
	}
	// 9 ended, 10 is new: assigned after the previous call's clock.
	if safe, ok := fresh.advance(writers{at: at(300), xids: []int64{10}, starts: []*time.Time{nil}}); !ok || !safe.Equal(at(200)) {
		t.Fatalf("10 new: %v %v, want %v true", safe, ok, at(200))
	}
	// A visible xact_start later than the previous call is a tighter bound.
	s := at(250)
	if safe, ok := fresh.advance(writers{at: at(400), xids: []int64{10, 11}, starts: []*time.Time{nil, &s}}); !ok || !safe.Equal(at(200)) {
		t.Fatalf("11 with start: %v %v, want %v (10 still running)", safe, ok, at(200))
	}
	if safe, ok := fresh.advance(writers{at: at(500), xids: []int64{11}, starts: []*time.Time{nil}}); !ok || !safe.Equal(at(300)) {
		t.Fatalf("only 11: %v %v, want %v (first seen after the call at 300)", safe, ok, at(300))
	}
}

// A simulation: transactions are assigned xids at random times and end at
// random later times; a reader calls advance at random times with what
// pgid.tail_writers would return (the clock, then the xids assigned by then
// and not ended; xact_start, no later than the assignment, visible or not).
// Every horizon is at most the assignment time of every xid that has not
// ended by the call, and never after the clock; and the horizon moves on
// once old transactions end.
func TestHorizonProperty(t *testing.T) {
	for seed := range uint64(200) {
		r := rand.New(rand.NewPCG(seed, 22))
		type txn struct {
			xid           int64
			start, assign time.Time
			end           time.Time
			visible       bool
		}
		var txns []txn
		for i := range 200 {
			start := at(r.IntN(10000))
			assign := start.Add(time.Duration(r.IntN(500)) * time.Millisecond)
			txns = append(txns, txn{xid: int64(i), start: start, assign: assign,
				end: assign.Add(time.Duration(r.IntN(2000)) * time.Millisecond), visible: r.IntN(2) == 0})
		}
		var h horizon
		now := at(-100)
		progressed := false
		for now.Before(at(13000)) {
			now = now.Add(time.Duration(1+r.IntN(200)) * time.Millisecond)
			// The list is read just after the clock: include xids assigned
			// up to 1 ms after it.
			scan := now.Add(time.Millisecond)
			w := writers{at: now}
			var running []txn
			for _, x := range txns {
				if !x.assign.After(scan) && x.end.After(scan) {
					running = append(running, x)
					w.xids = append(w.xids, x.xid)
					if x.visible {
						s := x.start
						w.starts = append(w.starts, &s)
					} else {
						w.starts = append(w.starts, nil)
					}
				}
			}
			safe, ok := h.advance(w)
			if !ok {
				continue
			}
			if safe.After(now) {
				t.Fatalf("seed %d: horizon %v after the clock %v", seed, safe, now)
			}
			for _, x := range running {
				if safe.After(x.assign) {
					t.Fatalf("seed %d: horizon %v after xid %d's assignment %v (visible %v)", seed, safe, x.xid, x.assign, x.visible)
				}
			}
			if len(running) == 0 && !safe.Equal(now) {
				t.Fatalf("seed %d: no writers, horizon %v, want the clock %v", seed, safe, now)
			}
			if now.After(at(12600)) {
				progressed = true
			}
		}
		if !progressed {
			t.Fatalf("seed %d: the horizon never moved once every transaction had ended", seed)
		}
	}
}

// FuzzHorizon drives advance with call sequences decoded from the input:
// each byte is one event, the clock moving on by its low 3 bits (ms), and
// its high bits starting or ending a transaction (whose xact_start is
// visible or not) or reading. It checks what TestHorizonProperty checks:
// the horizon is never after the clock nor after the assignment of a
// running xid.
func FuzzHorizon(f *testing.F) {
	f.Add([]byte{0x10, 0x21, 0x32, 0x08, 0xf3, 0x43, 0x18, 0xf5, 0xe0})
	f.Add([]byte{0x00, 0xf0, 0xa1, 0x11, 0xff, 0x01, 0xf8})
	f.Fuzz(func(t *testing.T, events []byte) {
		if len(events) > 512 {
			return
		}
		type txn struct {
			start, assign time.Time
			visible       bool
		}
		running := map[int64]txn{}
		next := int64(1)
		now := t0
		var h horizon
		for _, e := range events {
			now = now.Add(time.Duration(1+e&7) * time.Millisecond)
			switch op := e >> 3; {
			case op < 12: // a transaction gets its xid now; it started up to 3 ms ago
				running[next] = txn{start: now.Add(-time.Duration(op&3) * time.Millisecond), assign: now, visible: op&4 != 0}
				next++
			case op < 28: // the oldest running transaction ends
				oldest := int64(0)
				for x := range running {
					if oldest == 0 || x < oldest {
						oldest = x
					}
				}
				delete(running, oldest)
			default: // a read: the clock, then the list
				w := writers{at: now}
				for x, tx := range running {
					w.xids = append(w.xids, x)
					if tx.visible {
						s := tx.start
						w.starts = append(w.starts, &s)
					} else {
						w.starts = append(w.starts, nil)
					}
				}
				safe, ok := h.advance(w)
				if !ok {
					continue
				}
				if safe.After(now) {
					t.Fatalf("horizon %v after the clock %v", safe, now)
				}
				for x, tx := range running {
					if safe.After(tx.assign) {
						t.Fatalf("horizon %v after xid %d's assignment %v", safe, x, tx.assign)
					}
				}
			}
		}
	})
}
