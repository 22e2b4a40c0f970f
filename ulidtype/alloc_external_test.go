package ulidtype_test

import (
	"testing"

	"github.com/pgid/pgid/ulidtype"
)

var sinkExternal ulidtype.ULID

// TestAllocsFromAnotherPackage checks the allocation counts as a caller in
// another package sees them: inlining across packages can move a result to
// the heap where the package's own tests see none.
func TestAllocsFromAnotherPackage(t *testing.T) {
	u := ulidtype.New()
	s, us := u.String(), u.UUIDString()
	text := []byte(s)
	buf := make([]byte, 0, 64)
	var src any = text
	checks := []struct {
		name string
		fn   func()
	}{
		{"New", func() { sinkExternal = ulidtype.New() }},
		{"Parse base32", func() { sinkExternal, _ = ulidtype.Parse(s) }},
		{"Parse uuid", func() { sinkExternal, _ = ulidtype.Parse(us) }},
		{"UnmarshalText", func() { _ = sinkExternal.UnmarshalText(text) }},
		{"Scan", func() { _ = sinkExternal.Scan(src) }},
		{"AppendText", func() { buf, _ = u.AppendText(buf[:0]) }},
	}
	for _, c := range checks {
		if n := testing.AllocsPerRun(200, c.fn); n != 0 {
			t.Errorf("%s: %v allocations, want 0", c.name, n)
		}
	}
}
