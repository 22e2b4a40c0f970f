package typeid

import (
	"errors"
	"regexp"
	"strings"
	"testing"
)

// specRE is the specification's grammar, written independently of the
// parser: its prefix regular expression, the separator, and a suffix of 26
// characters of the lower-case alphabet whose first is 0-7.
var specRE = regexp.MustCompile(`^(?:([a-z](?:[a-z_]{0,61}[a-z])?)_)?([0-7][0-9a-hjkmnp-tv-z]{25})$`)

func FuzzParse(f *testing.F) {
	for _, file := range []string{"valid.json", "invalid.json"} {
		b, err := loadSpec(file)
		if err != nil {
			f.Fatal(err)
		}
		for _, c := range b {
			f.Add(c.TypeID)
		}
	}
	f.Add(exampleText)
	f.Add("order_01h455vb4pex5vsknk084sn02q")
	f.Add("01890a5d-ac96-774b-bcce-b302099a8057")
	f.Fuzz(func(t *testing.T, in string) {
		m := specRE.FindStringSubmatch(in)
		check := func(prefix string, id [16]byte, err error, s string) {
			t.Helper()
			valid := m != nil && m[1] == prefix
			if err != nil {
				sentinel := errors.Is(err, ErrPrefix) || errors.Is(err, ErrWrongPrefix) || errors.Is(err, ErrLength) ||
					errors.Is(err, ErrCharacter) || errors.Is(err, ErrOverflow)
				if valid || !sentinel || id != [16]byte{} || !strings.Contains(err.Error(), "typeid: parse") {
					t.Fatalf("prefix %q: Parse(%q): %v (valid by the grammar: %v)", prefix, in, err, valid)
				}
				return
			}
			if !valid || s != in {
				t.Fatalf("prefix %q: Parse(%q) accepted it, writing %q back (valid by the grammar: %v)", prefix, in, s, valid)
			}
		}
		u, err := Parse[userPrefix](in)
		check("user", u.b, err, u.String())
		e, err := Parse[emptyPrefix](in)
		check("", e.b, err, e.String())
		sn, err := Parse[snakePrefix](in)
		check("pre_fix", sn.b, err, sn.String())
		// Any prefix: valid by the grammar, with the grammar's prefix, and
		// written back unchanged; or refused with a sentinel.
		a, err := ParseAny(in)
		if m == nil {
			check("\x00not a prefix", a.b, err, a.String())
		} else {
			check(m[1], a.b, err, a.String())
			if err == nil && a.Prefix() != m[1] {
				t.Fatalf("ParseAny(%q): prefix %q, want %q", in, a.Prefix(), m[1])
			}
		}
		var b ID[userPrefix]
		err = b.UnmarshalText([]byte(in))
		if (err == nil) != (u == b && m != nil && m[1] == "user") {
			t.Fatalf("UnmarshalText(%q) = %v, %v; Parse gave %v", in, b, err, u)
		}
	})
}
