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

// Range returns the half-open bounds [lo, hi) of the ObjectIDs made from the
// second of from up to, not including, the second of to:
// lo = MinAt(from), hi = MinAt(to). Use them as
//
//	WHERE id >= $1 AND id < $2
//
// which PostgreSQL answers with a range scan of the primary key index.
//
// ObjectIDs hold whole seconds, so both ends are truncated to the second
// (rounded toward the past): Range(10:00:00.9, 10:00:05.5) holds the IDs of
// seconds 10:00:00 to 10:00:04, including one made at 10:00:00.2, and not
// those of 10:00:05, including one made at 10:00:05.2. For whole-second
// bounds the range is exact, and Range(a, b) and Range(b, c) always tile
// Range(a, c) without gap or overlap. If to's second is not after from's,
// the range is empty (hi <= lo). Times before 1970 and after 2106 are clamped
// as by [MinAt], so IDs of the very last second, 2106-02-07T06:28:15Z, are
// beyond every hi.
func Range(from, to time.Time) (lo, hi ObjectID) {
	return MinAt(from), MinAt(to)
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
