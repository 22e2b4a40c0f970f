package typeid

import (
	"time"

	"github.com/pgid/pgid/ulidtype"
)

// The time helpers give IDs of type P as bounds of a time window, for a range
// scan of the primary key index (WHERE id >= $1 AND id < $2). They are
// [ulidtype]'s functions of the same names, with the same rounding: times
// are truncated to the millisecond and clamped to the 48-bit range.

// MinAt returns the smallest ID of t's millisecond, as [ulidtype.MinAt].
func MinAt[P Prefix](t time.Time) ID[P] { return ID[P]{b: ulidtype.MinAt(t)} }

// MaxAt returns the largest ID of t's millisecond, as [ulidtype.MaxAt].
func MaxAt[P Prefix](t time.Time) ID[P] { return ID[P]{b: ulidtype.MaxAt(t)} }

// Range returns the half-open bounds [lo, hi) of the IDs made from the
// millisecond of from up to, not including, that of to, as [ulidtype.Range]:
// for closed windows; use [Since] and [Until] for one that ends now.
func Range[P Prefix](from, to time.Time) (lo, hi ID[P]) {
	l, h := ulidtype.Range(from, to)
	return ID[P]{b: l}, ID[P]{b: h}
}

// Since returns the lower bound of the IDs made at or after t's
// millisecond, as [ulidtype.Since]: WHERE id >= $1 misses no newer row.
func Since[P Prefix](t time.Time) (lo ID[P]) { return ID[P]{b: ulidtype.Since(t)} }

// Until returns the upper bound of the IDs made up to and including t's
// millisecond, as [ulidtype.Until].
func Until[P Prefix](t time.Time) (hi ID[P]) { return ID[P]{b: ulidtype.Until(t)} }
