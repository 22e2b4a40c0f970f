package typeid

import (
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestSliceRoundTrip: random Slices and NullSlices, Valued and Scanned back
// from a string (pgx stdlib) and a []byte (lib/pq), are unchanged.
func TestSliceRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(28, 2))
	for n := range 300 {
		ids := make(Slice[userPrefix], n%17)
		nulls := make(NullSlice[userPrefix], len(ids))
		for i := range ids {
			for j := range ids[i].b {
				ids[i].b[j] = byte(r.Uint32())
			}
			if r.IntN(3) > 0 {
				nulls[i] = NullID[userPrefix]{ids[i], true}
			}
		}
		v, err := ids.Value()
		nv, nerr := nulls.Value()
		if err != nil || nerr != nil {
			t.Fatal(err, nerr)
		}
		for _, src := range []any{v, []byte(v.(string))} {
			var got Slice[userPrefix]
			if err := got.Scan(src); err != nil || !slices.Equal(got, ids) || got == nil {
				t.Fatalf("%s: %v, %v", v, got, err)
			}
		}
		for _, src := range []any{nv, []byte(nv.(string))} {
			var got NullSlice[userPrefix]
			if err := got.Scan(src); err != nil || !slices.Equal(got, nulls) || got == nil {
				t.Fatalf("%s: %v, %v", nv, got, err)
			}
		}
	}
}

// binaryUUIDArray is a uuid[] in PostgreSQL's binary format, as pgx hands
// it to a sql.Scanner; a nil element is NULL.
func binaryUUIDArray(elems ...[]byte) []byte {
	b := binary.BigEndian.AppendUint32(nil, 1)
	b = binary.BigEndian.AppendUint32(b, 1)    // has nulls
	b = binary.BigEndian.AppendUint32(b, 2950) // uuid
	b = binary.BigEndian.AppendUint32(b, uint32(len(elems)))
	b = binary.BigEndian.AppendUint32(b, 1)
	for _, e := range elems {
		if e == nil {
			b = binary.BigEndian.AppendUint32(b, 0xFFFFFFFF)
			continue
		}
		b = binary.BigEndian.AppendUint32(b, uint32(len(e)))
		b = append(b, e...)
	}
	return b
}

func TestSliceScan(t *testing.T) {
	a := MustParse[userPrefix](exampleText)
	b := New[userPrefix]()
	var s Slice[userPrefix]
	if err := s.Scan(`{` + exampleUUID + `, "` + b.String() + `"}`); err != nil || !slices.Equal(s, Slice[userPrefix]{a, b}) {
		t.Fatalf("uuid and TypeID text: %v, %v", s, err)
	}
	if err := s.Scan(binaryUUIDArray(b.Bytes(), a.Bytes())); err != nil || !slices.Equal(s, Slice[userPrefix]{b, a}) {
		t.Fatalf("binary: %v, %v", s, err)
	}
	var n NullSlice[userPrefix]
	if err := n.Scan(binaryUUIDArray(nil, a.Bytes())); err != nil || !slices.Equal(n, NullSlice[userPrefix]{{}, {a, true}}) {
		t.Fatalf("binary NullSlice: %v, %v", n, err)
	}
	if v, _ := (Slice[userPrefix]{a}).Value(); v != "{"+exampleUUID+"}" {
		t.Errorf("Value = %v", v)
	}
	if v, _ := (NullSlice[userPrefix]{{}, {a, true}}).Value(); v != "{NULL,"+exampleUUID+"}" {
		t.Errorf("NullSlice Value = %v", v)
	}
	if v, err := Slice[userPrefix](nil).Value(); v != nil || err != nil {
		t.Errorf("nil Slice Value = %v, %v", v, err)
	}
	if v, _ := (Slice[userPrefix]{}).Value(); v != "{}" {
		t.Errorf("empty Slice Value = %v", v)
	}
	for _, src := range []any{nil, []byte(nil)} {
		s, n := Slice[userPrefix]{a}, NullSlice[userPrefix]{{a, true}}
		if s.Scan(src) != nil || n.Scan(src) != nil || s != nil || n != nil {
			t.Errorf("NULL array %#v: %v, %v", src, s, n)
		}
	}
	for _, c := range []struct {
		src  any
		want error
		msg  string
	}{
		{"{" + exampleUUID + ",NULL}", ErrNull, "element 2: typeid: NULL element: use NullSlice"},
		{"{order_01h455vb4pex5vsknk084sn02q}", ErrWrongPrefix, `element 1: typeid: parse "order_01h455vb4pex5vsknk084sn02q": prefix "order", want "user"`},
		{"{01890a5d-ac96-774b-bcce-b302099a805g}", ErrCharacter, "position 35"},
		{"{{" + exampleUUID + "}}", ErrArray, "typeid: invalid array"},
		{exampleUUID, ErrArray, "typeid: invalid array"},
		{binaryUUIDArray(make([]byte, 15)), ErrLength, "element 1"},
		{42, ErrScanType, "cannot scan int into Slice"},
	} {
		s := Slice[userPrefix]{b}
		if err := s.Scan(c.src); !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.msg) || !slices.Equal(s, Slice[userPrefix]{b}) {
			t.Errorf("Scan(%v) = %v, %v; want %v saying %q, no change", c.src, s, err, c.want, c.msg)
		}
	}
	if err := n.Scan(42); !errors.Is(err, ErrScanType) || !strings.Contains(err.Error(), "NullSlice") {
		t.Errorf("NullSlice.Scan(42) = %v", err)
	}
}
