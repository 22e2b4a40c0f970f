package main

import (
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"slices"
	"strings"
	"testing"
)

const src = `package p

import "time"

const C = 3
const D time.Duration = 5

var V, w int

type S struct {
	A, b int
	*inner
	time.Time
}

type inner struct{ F string }

func (inner) Promoted(x int) {}

type I interface {
	M(a, b int) (n int, err error)
	m()
}

type G[T any, U ~int | ~string] []T

func (g G[T, U]) Len() int { return 0 }
func (s *S) Ptr(f func(x int) error, rest ...string) {}
func New[T comparable](t T) map[T]chan<- int { return nil }

type A = []S

type TS interface{ ~int | ~string; *S }

type E interface{}
`

func TestPackageAPI(t *testing.T) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	conf := types.Config{Importer: importer.Default()}
	pkg, err := conf.Check("example.com/p", fset, []*ast.File{f}, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := packageAPI(pkg)
	slices.Sort(got)
	want := []string{
		"const C untyped int = 3",
		"const D time.Duration = 5",
		"func New[T comparable](T) map[T]chan<- int",
		"method (*S) Ptr(func(int) error, ...string)",
		"method (G[T, U]) Len() int",
		"method (S) Promoted(int)",
		"type A = []S",
		"type TS interface { ~int | ~string, *S }",
		"type E interface {}",
		"type G[T any, U ~int | ~string] []T",
		"type I interface { M, unexported methods }",
		"type I interface, M(int, int) (int, error)",
		"type S struct",
		"type S struct, A int",
		"type S struct, F string",
		"type S struct, embedded time.Time",
		"var V int",
	}
	for i := range want {
		want[i] = "pkg example.com/p, " + want[i]
	}
	slices.Sort(want)
	// time.Time's methods are promoted to S: check a few, then drop them.
	var own []string
	for _, l := range got {
		if strings.Contains(l, ") Unix() int64") {
			continue
		}
		if strings.HasPrefix(l, "pkg example.com/p, method (S) ") || strings.HasPrefix(l, "pkg example.com/p, method (*S) ") {
			if !strings.Contains(l, "Ptr(") && !strings.Contains(l, "Promoted(") {
				continue
			}
		}
		own = append(own, l)
	}
	if !slices.Equal(own, want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(own, "\n"), strings.Join(want, "\n"))
	}
	if !slices.Contains(got, "pkg example.com/p, method (S) Unix() int64") {
		t.Errorf("time.Time's Unix is not promoted to S:\n%s", strings.Join(got, "\n"))
	}
}

func TestIdentOf(t *testing.T) {
	for line, want := range map[string]string{
		"pkg github.com/pgid/pgid/ulidtype, method (ULID) IsZero() bool":                                       "ulidtype.ULID.IsZero",
		"pkg github.com/pgid/pgid/typeid, method (*ID[P]) Scan(any) error":                                     "typeid.ID.Scan",
		"pkg github.com/pgid/pgid/typeid, func New[P Prefix]() ID[P]":                                          "typeid.New",
		"pkg github.com/pgid/pgid/opaque, type Key struct, ID uint32":                                          "opaque.Key.ID",
		"pkg github.com/pgid/pgid/opaque, type Key struct":                                                     "opaque.Key",
		"pkg example.com/p, type S struct, embedded *github.com/x/y.Foo[int]":                                  "p.S.Foo",
		"pkg example.com/p, type I interface, M(int) error":                                                    "p.I.M",
		"pkg example.com/p, type I interface { M }":                                                            "p.I",
		"pkg github.com/pgid/pgid/internal/pgserver (darwin, linux), const DefaultUser untyped string = \"x\"": "pgserver.DefaultUser",
		"pkg github.com/pgid/pgid/tail, var ErrUnsafe error":                                                   "tail.ErrUnsafe",
	} {
		got, err := identOf(line)
		if err != nil || got != want {
			t.Errorf("identOf(%q) = %q, %v; want %q", line, got, err, want)
		}
	}
}

const changelog = `# Changelog

## [Unreleased]

### Changed
- **Breaking:** ` + "`opaque.Key`" + ` is an opaque handle: use
  ` + "`ulidtype.ULID.IsZero`" + ` instead.
- ` + "`tail.Tailer`" + ` reads differently (not marked breaking).

### Added
- **Breaking:** ` + "`typeid.New`" + ` (wrong section).

## [0.2.0] - 2026-11-25

### Removed
- **Breaking:** ` + "`ulidtype.ULID.Time`" + ` is gone.

## [0.1.0] - 2026-11-22

### Removed
- **Breaking:** ` + "`objectidtype.Old`" + `.
`

func TestChangelogRule(t *testing.T) {
	for _, c := range []struct {
		stop, ident string
		ok          bool
	}{
		{"", "opaque.Key.ID", true},
		{"", "opaque.Key", true},
		{"", "opaque.KeyX", false},
		{"", "ulidtype.ULID.IsZero", true}, // continuation line
		{"", "ulidtype.ULID", false},       // a member does not cover its type
		{"", "tail.Tailer.Next", false},    // not marked breaking
		{"", "typeid.New", false},          // under Added
		{"", "ulidtype.ULID.Time", false},  // released before the baseline
		{"v0.1.0", "ulidtype.ULID.Time", true},
		{"v0.1.0", "objectidtype.Old", false},
		{"v0.2.0", "ulidtype.ULID.Time", false},
		{"v0.1.5", "ulidtype.ULID.Time", true}, // no heading of the baseline's own
		{"v0.3.0", "opaque.Key", true},
		{"v0.3.0", "ulidtype.ULID.Time", false},
	} {
		_, ok := covered(c.ident, breakingNames(parseChangelog(changelog, c.stop)))
		if ok != c.ok {
			t.Errorf("since %q, %s covered = %v, want %v", c.stop, c.ident, ok, c.ok)
		}
	}
}

func TestInternal(t *testing.T) {
	for pkg, want := range map[string]bool{
		"github.com/pgid/pgid/internal/idtext":          true,
		"github.com/pgid/pgid/migrations/internal/gen":  true,
		"github.com/pgid/pgid/migrations":               false,
		"github.com/pgid/pgid/internal/pgserver":        true,
		"github.com/pgid/pgid/internal/pgserver/pgtest": true,
	} {
		mod := "github.com/pgid/pgid"
		if got := internal(mod, pkg); got != want {
			t.Errorf("internal(%q, %q) = %v", mod, pkg, got)
		}
	}
}
