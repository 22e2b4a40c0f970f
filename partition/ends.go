package partition

import (
	"errors"
	"fmt"
	"time"
)

// ErrRangeEnd: the partitions a plan asks for reach past the last time
// the key's IDs can hold: ObjectIds hold 32-bit Unix seconds and end at
// 2106-02-07T06:28:15Z, ULIDs hold 48-bit Unix milliseconds and end at
// 10889-08-02T05:31:50.655Z. [Ensure] made those that can exist, the one
// holding the last time up to MAXVALUE, and returns the complete Report
// with this error (SQL: pgid.ensure_partitions returns a row with action
// 'end' and a WARNING of SQLSTATE PGI09).
var ErrRangeEnd = errors.New("partition: past the last time the IDs can hold")

// rangeEnd is the error for an 'end' row of pgid.ensure_partitions, whose
// lower column is last, the last time an ID of the key's kind holds.
func rangeEnd(p Plan, last *time.Time) error {
	kind, bits, layout := "ObjectIds", "32-bit Unix seconds", time.RFC3339
	if last != nil && last.Year() > 2106 {
		kind, bits, layout = "ULIDs", "48-bit Unix milliseconds", "2006-01-02T15:04:05.000Z07:00"
	}
	at := "?"
	if last != nil {
		at = last.UTC().Format(layout)
	}
	return fmt.Errorf("%w: %s hold %s and end at %s: the partitions of %s asked for after the one holding that time "+
		"cannot exist (that one runs to MAXVALUE); ask for fewer partitions ahead to silence this",
		ErrRangeEnd, kind, bits, at, p.Parent)
}
