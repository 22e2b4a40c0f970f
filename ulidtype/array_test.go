package ulidtype

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSliceRoundTrip: random Slices and NullSlices, Valued and Scanned back
// from a string (pgx stdlib) and a []byte (lib/pq), are unchanged.
func TestSliceRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(19, 2))
	for n := range 300 {
		ids := make(Slice, n%17)
		nulls := make(NullSlice, len(ids))
		for i := range ids {
			ids[i] = randomULID(r)
			nulls[i] = NullULID{ids[i], r.IntN(3) > 0}
			if !nulls[i].Valid {
				nulls[i].ULID = ULID{}
			}
		}
		v, err := ids.Value()
		nv, nerr := nulls.Value()
		if err != nil || nerr != nil {
			t.Fatal(err, nerr)
		}
		for _, src := range []any{v, []byte(v.(string))} {
			var got Slice
			if err := got.Scan(src); err != nil || !slices.Equal(got, ids) || got == nil {
				t.Fatalf("%s: %v, %v", v, got, err)
			}
		}
		for _, src := range []any{nv, []byte(nv.(string))} {
			var got NullSlice
			if err := got.Scan(src); err != nil || !slices.Equal(got, nulls) || got == nil {
				t.Fatalf("%s: %v, %v", nv, got, err)
			}
		}
	}
}

func TestSliceScan(t *testing.T) {
	a, b := MustParse("01ARYZ6S41TSV4RRFFQ69G5FAV"), MustParse("7ZZZZZZZZZZZZZZZZZZZZZZZZZ")
	var s Slice
	if err := s.Scan(`{01563e3a-b5d3-d676-4c61-efb99302bd5b, "01ARYZ6S41TSV4RRFFQ69G5FAV",ffffffffffffffffffffffffffffffff}`); err != nil || len(s) != 3 || s[1] != a || s[2] != b {
		t.Fatalf("mixed forms: %v, %v", s, err)
	}
	if v, _ := (Slice{a, b}).Value(); v != "{01563df3-6481-d676-4c61-efb99302bd5b,ffffffff-ffff-ffff-ffff-ffffffffffff}" {
		t.Errorf("Value = %v", v)
	}
	if v, _ := (NullSlice{{}, {a, true}}).Value(); v != "{NULL,01563df3-6481-d676-4c61-efb99302bd5b}" {
		t.Errorf("NullSlice Value = %v", v)
	}
	for _, src := range []any{nil, []byte(nil)} {
		s, n := Slice{a}, NullSlice{{a, true}}
		if s.Scan(src) != nil || n.Scan(src) != nil || s != nil || n != nil {
			t.Errorf("NULL array %#v: %v, %v", src, s, n)
		}
	}
	if v, err := Slice(nil).Value(); v != nil || err != nil {
		t.Errorf("nil Slice Value = %v, %v", v, err)
	}
	if v, _ := (Slice{}).Value(); v != "{}" {
		t.Errorf("empty Slice Value = %v", v)
	}
	for _, tt := range []struct {
		src  any
		want error
	}{
		{"{01ARYZ6S41TSV4RRFFQ69G5FAV,NULL}", ErrNull},
		{"{01ARYZ6S41TSV4RRFFQ69G5FAU}", ErrCharacter},
		{"{01ARYZ6S41}", ErrLength},
		{"{{01ARYZ6S41TSV4RRFFQ69G5FAV}}", ErrArray},
		{"01ARYZ6S41TSV4RRFFQ69G5FAV", ErrArray},
		{[]byte("{01ARYZ6S41TSV4RRFFQ69G5FAV"), ErrArray},
		{42, ErrScanType},
	} {
		s := Slice{b}
		if err := s.Scan(tt.src); !errors.Is(err, tt.want) || len(s) != 1 || s[0] != b {
			t.Errorf("Scan(%v) = %v, left %v; want %v, unchanged", tt.src, err, s, tt.want)
		}
	}
	var n NullSlice
	if err := n.Scan("{NULL,01ARYZ6S41TSV4RRFFQ69G5FAV,null}"); err != nil || len(n) != 3 || n[0].Valid || n[1] != (NullULID{a, true}) || n[2].Valid {
		t.Errorf("NullSlice: %v, %v", n, err)
	}
}
