package nullid

import (
	"database/sql/driver"
	"errors"
	"testing"
)

// id stands for an ID type: Scan takes a string of 2 bytes.
type id [2]byte

var errBad = errors.New("bad")

func (v *id) Scan(src any) error {
	s, ok := src.(string)
	if !ok || len(s) != 2 {
		return errBad
	}
	copy(v[:], s)
	return nil
}

func (v *id) UnmarshalJSON(data []byte) error { return v.Scan(string(data)) }

func (v id) Value() (driver.Value, error) { return string(v[:]), nil }

func (v id) String() string { return string(v[:]) }

func (v id) MarshalJSON() ([]byte, error) { return []byte(`"` + string(v[:]) + `"`), nil }

type nullID struct {
	ID    id
	Valid bool
}

func (n *nullID) Scan(src any) error { return Scan(&n.ID, &n.Valid, src, (*id).Scan) }

func (n *nullID) UnmarshalJSON(data []byte) error {
	return UnmarshalJSON(&n.ID, &n.Valid, data, (*id).UnmarshalJSON)
}

func TestNull(t *testing.T) {
	n := nullID{ID: id{'x', 'y'}, Valid: true}
	if err := n.Scan("ab"); err != nil || n != (nullID{id{'a', 'b'}, true}) {
		t.Fatalf("Scan = %v, %v", n, err)
	}
	if err := n.Scan("abc"); !errors.Is(err, errBad) || n != (nullID{id{'a', 'b'}, true}) {
		t.Fatalf("a failed Scan changed n: %v, %v", n, err)
	}
	for _, src := range []any{nil, []byte(nil)} {
		n = nullID{ID: id{'a', 'b'}, Valid: true}
		if err := n.Scan(src); err != nil || n != (nullID{}) {
			t.Fatalf("Scan(%#v) = %v, %v", src, n, err)
		}
	}
	n = nullID{ID: id{'a', 'b'}, Valid: true}
	if err := n.UnmarshalJSON([]byte("null")); err != nil || n != (nullID{}) {
		t.Fatalf("UnmarshalJSON(null) = %v, %v", n, err)
	}
	if err := n.UnmarshalJSON([]byte("cd")); err != nil || n != (nullID{id{'c', 'd'}, true}) {
		t.Fatalf("UnmarshalJSON = %v, %v", n, err)
	}
	if err := n.UnmarshalJSON([]byte("cde")); err == nil || n != (nullID{id{'c', 'd'}, true}) {
		t.Fatalf("a failed UnmarshalJSON changed n: %v, %v", n, err)
	}
	if v, _ := Value(n.ID, false, id.Value); v != nil {
		t.Errorf("Value of NULL = %v", v)
	}
	if v, _ := Value(n.ID, true, id.Value); v != "cd" {
		t.Errorf("Value = %v", v)
	}
	if s := String(n.ID, false, id.String); s != "NULL" {
		t.Errorf("String of NULL = %s", s)
	}
	if b, _ := MarshalJSON(n.ID, false, id.MarshalJSON); string(b) != "null" {
		t.Errorf("MarshalJSON of NULL = %s", b)
	}
	if b, _ := MarshalJSON(n.ID, true, id.MarshalJSON); string(b) != `"cd"` {
		t.Errorf("MarshalJSON = %s", b)
	}
}
