//go:build !race

package nullid

import "testing"

// TestNullAllocs checks that Scan and UnmarshalJSON inline, so that the
// method expression is called directly and the copy they scan into stays
// on the stack.
func TestNullAllocs(t *testing.T) {
	var n nullID
	src, data := any("ab"), []byte("cd")
	if a := testing.AllocsPerRun(100, func() { _ = n.Scan(src) }); a != 0 {
		t.Errorf("Scan: %v allocations, want 0", a)
	}
	if a := testing.AllocsPerRun(100, func() { _ = n.UnmarshalJSON(data) }); a != 0 {
		t.Errorf("UnmarshalJSON: %v allocations, want 0", a)
	}
}
