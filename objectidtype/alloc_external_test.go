package objectidtype_test

import (
	"testing"

	"github.com/pgid/pgid/objectidtype"
)

var sinkExternal objectidtype.ObjectID

// TestAllocsFromAnotherPackage checks the allocation counts as a caller in
// another package sees them: inlining across packages can move a result to
// the heap where the package's own tests see none.
func TestAllocsFromAnotherPackage(t *testing.T) {
	o := objectidtype.New()
	hex, short := o.String(), o.Short()
	text := []byte(hex)
	buf := make([]byte, 0, 64)
	var src, textSrc any = o[:], hex
	checks := []struct {
		name string
		fn   func()
	}{
		{"New", func() { sinkExternal = objectidtype.New() }},
		{"Parse hex", func() { sinkExternal, _ = objectidtype.Parse(hex) }},
		{"Parse short", func() { sinkExternal, _ = objectidtype.Parse(short) }},
		{"UnmarshalText", func() { _ = sinkExternal.UnmarshalText(text) }},
		{"Scan raw", func() { _ = sinkExternal.Scan(src) }},
		{"Scan text", func() { _ = sinkExternal.Scan(textSrc) }},
		{"AppendText", func() { buf, _ = o.AppendText(buf[:0]) }},
	}
	for _, c := range checks {
		if n := testing.AllocsPerRun(200, c.fn); n != 0 {
			t.Errorf("%s: %v allocations, want 0", c.name, n)
		}
	}
}
