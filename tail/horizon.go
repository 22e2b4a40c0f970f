package tail

import "time"

// writers is what pgid.tail_writers returns: the database clock, read
// first, then the xids of the transactions of the database that hold one
// (running or prepared), with their xact_start where the caller may see it.
type writers struct {
	at     time.Time
	xids   []int64
	starts []*time.Time // nil: not visible (another role's session, or prepared)
}

// horizon remembers, between calls of pgid.tail_writers, a lower bound on
// the time each running xid was assigned, and from it the safe horizon.
//
// The trigger of pgid.tail_enable checks every row against the clock it
// reads after the row's transaction has an xid: id >= MinAt(clock - lead).
// A transaction whose xid was assigned at time a inserts only rows with
// ids >= MinAt(a - lead). pgid.tail_writers reads the clock (at) before it
// lists the xids, so an xid absent from one call's list and present in a
// later one was assigned after the first call's at. For xids present at the
// first call, xact_start (which precedes the xid) is a bound where visible;
// where it is not, the horizon waits for them to end.
type horizon struct {
	bounds   map[int64]time.Time // xid -> assigned after this time; zero: unknown
	prev     time.Time           // the previous call's at
	havePrev bool
}

// advance takes one call's writers and returns the time below which every
// row that will ever commit has committed (ok), or ok false while an xid
// with no known bound is running. Subtract the lead before turning it into
// an ID.
func (h *horizon) advance(w writers) (safe time.Time, ok bool) {
	next := make(map[int64]time.Time, len(w.xids))
	ok = true
	safe = w.at
	for i, x := range w.xids {
		b, seen := h.bounds[x]
		if !seen && h.havePrev {
			b = h.prev
		}
		if i < len(w.starts) && w.starts[i] != nil && w.starts[i].After(b) {
			// xact_start precedes the xid's assignment: a bound as good.
			b = *w.starts[i]
		}
		next[x] = b
		if b.IsZero() {
			ok = false
			continue
		}
		if b.Before(safe) {
			safe = b
		}
	}
	h.bounds = next
	h.prev = w.at
	h.havePrev = true
	if !ok {
		return time.Time{}, false
	}
	return safe, true
}
