package ulidtype

import "time"

// MinAt returns the smallest ULID of t's millisecond: t's timestamp followed
// by 80 zero bits. t is truncated to the millisecond ([time.Time.UnixMilli])
// and clamped to the ULID range, from the Unix epoch to 2^48-1 ms (year
// 10889).
func MinAt(t time.Time) ULID {
	return fromHalves(clampMilli(t)<<16, 0)
}

// MaxAt returns the largest ULID of t's millisecond: t's timestamp followed by
// 80 one bits. t is truncated and clamped as by [MinAt].
func MaxAt(t time.Time) ULID {
	return fromHalves(clampMilli(t)<<16|0xFFFF, ^uint64(0))
}

// Range returns the half-open bounds [lo, hi) = [MinAt(from), MinAt(to)) of
// the ULIDs made from the millisecond of from up to, not including, that of
// to, for a range scan of the primary key index:
//
//	WHERE id >= $1 AND id < $2
//
// It is for closed windows: Range(from, time.Now()) leaves out the current
// millisecond; use [Since] or [Until] for a window that ends now. Both ends
// are truncated to the millisecond; if to's is not after from's, the range
// is empty (hi <= lo). Times are clamped as by [MinAt], so IDs of the very
// last millisecond, in the year 10889, are beyond every hi.
func Range(from, to time.Time) (lo, hi ULID) {
	return MinAt(from), MinAt(to)
}

// Since returns the lower bound of the ULIDs made at or after t's
// millisecond, MinAt(t), for a window open at the top:
//
//	WHERE id >= $1
//
// It cannot miss the newest rows: an ID made in the current millisecond, or
// after the query was built, is inside. Use it for "everything since t";
// Range(t, time.Now()) leaves out the current millisecond.
func Since(t time.Time) (lo ULID) { return MinAt(t) }

// Until returns the upper bound for "up to and including t's millisecond":
// MinAt of the next millisecond, so that
//
//	WHERE id >= $1 AND id < $2 -- lo = Since(from), hi = Until(time.Now())
//
// includes every ID made in the current millisecond, also those made after
// the call in it, which Range(from, time.Now()) leaves out. If t is in the
// last millisecond a ULID can hold (year 10889) or later, hi is MaxAt(t) and
// only that one largest ULID is beyond it.
func Until(t time.Time) (hi ULID) {
	ms := clampMilli(t)
	if ms == maxTimestamp {
		return MaxAt(t)
	}
	return fromHalves((ms+1)<<16, 0)
}

// clampMilli returns t in Unix milliseconds, clamped to [0, 2^48-1].
func clampMilli(t time.Time) uint64 {
	ms := t.UnixMilli()
	switch {
	case ms < 0:
		return 0
	case ms > maxTimestamp:
		return maxTimestamp
	}
	return uint64(ms)
}
