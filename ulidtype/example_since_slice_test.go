package ulidtype_test

import (
	"fmt"
	"time"

	"github.com/pgid/pgid/ulidtype"
)

// Since bounds a window that is open at the top, so the newest rows, made in
// the current millisecond or after the query was built, are never missed.
func ExampleSince() {
	t := time.Date(2026, 11, 23, 22, 0, 0, 0, time.UTC)
	lo := ulidtype.Since(t.Add(-time.Hour)) // WHERE id >= $1
	hi := ulidtype.Until(t)                 // … AND id < $2: t's millisecond included
	fmt.Println(lo.UUIDString(), lo.Timestamp())
	fmt.Println(hi.UUIDString(), hi.Timestamp())
	// Output:
	// 01a20a35-6080-0000-0000-000000000000 2026-11-23 21:00:00 +0000 UTC
	// 01a20a6c-4f01-0000-0000-000000000000 2026-11-23 22:00:00.001 +0000 UTC
}

// A Slice is what database/sql binds for uuid[] and pgid.ulid[] parameters
// and scans array results into, with NULL elements in a NullSlice.
func ExampleSlice() {
	ids := ulidtype.Slice{ulidtype.MustParse("01ARYZ6S41TSV4RRFFQ69G5FAV")}
	v, _ := ids.Value() // the argument for "… WHERE id = ANY($1)"
	fmt.Println(v)

	var got ulidtype.NullSlice // what rows.Scan(&got) does with an array_agg(id)
	err := got.Scan("{01563df3-6481-d676-4c61-efb99302bd5b,NULL}")
	fmt.Println(got[0], got[1], err)
	// Output:
	// {01563df3-6481-d676-4c61-efb99302bd5b}
	// 01ARYZ6S41TSV4RRFFQ69G5FAV NULL <nil>
}
