package objectidtype

import (
	"encoding/binary"
	"time"
)

// MinAt returns the smallest ObjectID of t's second: t's timestamp followed by
// 64 zero bits. t is truncated to the second ([time.Time.Unix], which rounds
// toward the past) and clamped to the ObjectID range, from the Unix epoch to
// 2^32-1 seconds (2106-02-07T06:28:15Z).
func MinAt(t time.Time) ObjectID {
	var o ObjectID
	binary.BigEndian.PutUint32(o[:4], uint32(clampUnix(t)))
	return o
}

// MaxAt returns the largest ObjectID of t's second: t's timestamp followed by
// 64 one bits. t is truncated and clamped as by [MinAt].
func MaxAt(t time.Time) ObjectID {
	o := ObjectID{4: 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF}
	binary.BigEndian.PutUint32(o[:4], uint32(clampUnix(t)))
	return o
}

// Range returns the half-open bounds [lo, hi) = [MinAt(from), MinAt(to)) of
// the ObjectIDs made from the second of from up to, not including, that of
// to, for a range scan of the primary key index:
//
//	WHERE id >= $1 AND id < $2
//
// It is for closed windows: Range(from, time.Now()) leaves out the current
// second; use [Since] or [Until] for a window that ends now. Both ends are
// truncated to the second (toward the past, so for whole-second bounds
// the range is exact); if to's second is not after from's, the range is
// empty (hi <= lo).
func Range(from, to time.Time) (lo, hi ObjectID) {
	return MinAt(from), MinAt(to)
}

// Since returns the lower bound of the ObjectIDs made at or after t's
// second, MinAt(t), for a window open at the top:
//
//	WHERE id >= $1
//
// It cannot miss the newest rows: an ID made in the current second, or after
// the query was built, is inside. Use it for "everything since t";
// Range(t, time.Now()) leaves out the current second, which for ObjectIDs
// is every row of the last up to 999 ms.
func Since(t time.Time) (lo ObjectID) { return MinAt(t) }

// Until returns the upper bound for "up to and including t's second": MinAt
// of the next second, so that
//
//	WHERE id >= $1 AND id < $2 -- lo = Since(from), hi = Until(time.Now())
//
// includes every ID made in the current second, also those made after the
// call in it, which Range(from, time.Now()) leaves out. If t is in the last
// second an ObjectID can hold (2106-02-07T06:28:15Z) or later, hi is
// MaxAt(t) and only that one largest ObjectID is beyond it.
func Until(t time.Time) (hi ObjectID) {
	s := clampUnix(t)
	if s == 1<<32-1 {
		return MaxAt(t)
	}
	var o ObjectID
	binary.BigEndian.PutUint32(o[:4], uint32(s+1))
	return o
}

// clampUnix returns t in Unix seconds, clamped to [0, 2^32-1].
func clampUnix(t time.Time) uint64 {
	s := t.Unix()
	switch {
	case s < 0:
		return 0
	case s > 1<<32-1:
		return 1<<32 - 1
	}
	return uint64(s)
}
