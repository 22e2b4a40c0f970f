package objectidtype

import (
	"errors"
	"slices"
	"testing"
)

// TestSliceRoundTrip: Slices and NullSlices of random IDs, every third one
// NULL, survive Value and Scan, from a string (pgx stdlib) or a []byte
// (lib/pq), and PostgreSQL's own bytea[] output reads the same.
func TestSliceRoundTrip(t *testing.T) {
	all := randomIDs(200)
	for n := range 40 {
		ids := Slice(all[n : n+n%9])
		nulls := NullSlice{}
		for i, o := range ids {
			nulls = append(nulls, NullObjectID{o, i%3 != 1})
			if i%3 == 1 {
				nulls[i].ObjectID = ObjectID{}
			}
		}
		v, _ := ids.Value()
		nv, _ := nulls.Value()
		for _, src := range []any{v, []byte(v.(string))} {
			got := Slice{seedBytes}
			if err := got.Scan(src); err != nil || !slices.Equal(got, ids) {
				t.Fatalf("%s: %v, %v", v, got, err)
			}
		}
		for _, src := range []any{nv, []byte(nv.(string))} {
			var got NullSlice
			if err := got.Scan(src); err != nil || !slices.Equal(got, nulls) {
				t.Fatalf("%s: %v, %v", nv, got, err)
			}
		}
	}
	var s Slice
	if err := s.Scan(`{"\\x4e7020cb7cac81af7136236b",` + seedShort + `,` + seedHex + `}`); err != nil || !slices.Equal(s, Slice{seedBytes, seedBytes, seedBytes}) {
		t.Errorf("bytea[] output and text forms: %v, %v", s, err)
	}
	if v, _ := (NullSlice{{seedBytes, true}, {}}).Value(); v != `{"\\x4e7020cb7cac81af7136236b",NULL}` {
		t.Errorf("NullSlice Value = %v", v)
	}
}

func TestSliceScanErrors(t *testing.T) {
	for _, tt := range []struct {
		src  any
		want error
	}{
		{`{"\\x4e7020cb7cac81af7136236b",NULL}`, ErrNull},
		{`{"\\x4e7020cb7cac81af7136236"}`, ErrLength},
		{`{"\\x4e7020cb7cac81af7136236g"}`, ErrCharacter},
		{"{" + seedHex + "}}", ErrArray},
		{[]byte(seedHex), ErrArray},
		{3.5, ErrScanType},
	} {
		s := Slice{seedBytes}
		if err := s.Scan(tt.src); !errors.Is(err, tt.want) || len(s) != 1 {
			t.Errorf("Scan(%v) = %v, left %v; want %v, unchanged", tt.src, err, s, tt.want)
		}
	}
	// A NULL array, as lib/pq (nil []byte) or pgx stdlib (nil) hands it
	// over, is a nil slice both ways.
	n := NullSlice{{seedBytes, true}}
	errs := []error{n.Scan([]byte(nil))}
	nv, err := n.Value()
	if errs = append(errs, err); n != nil || nv != nil || errors.Join(errs...) != nil {
		t.Errorf("NULL array: %v, Value %v, %v", n, nv, errs)
	}
}
