package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// event is one line of go test -json (cmd/test2json's TestEvent), with
// the build events of go 1.24 and later.
type event struct {
	Time       time.Time
	Action     string
	Package    string
	Test       string
	Elapsed    float64
	Output     string
	ImportPath string // build-output, build-fail
}

// pkgState is what the formatter keeps of a package under test.
type pkgState struct {
	started time.Time
	tested  bool // a test has started: TestMain's own lines are over
	passed  int  // top-level tests passed
	lines   []event
	failed  map[string]bool // tests that failed
}

// formatter prints go test -json's events as they come: a package's
// lines written before its first test at once, the result of each package
// when it ends (with the output of its failed tests), and what still
// runs when nothing was printed for a while.
type formatter struct {
	w       io.Writer
	began   time.Time
	printed time.Time // when the last line was written
	pkgs    map[string]*pkgState
	ok      int
	failed  int
	skipped int
}

func newFormatter(w io.Writer, began time.Time) *formatter {
	return &formatter{w: w, began: began, printed: began, pkgs: map[string]*pkgState{}}
}

// write writes s as it is: go test -json cuts long lines into several
// events, and only the last one ends with a newline.
func (f *formatter) write(now time.Time, s string) {
	io.WriteString(f.w, s)
	f.printed = now
}

func (f *formatter) pkg(e event) *pkgState {
	p := f.pkgs[e.Package]
	if p == nil {
		p = &pkgState{started: e.Time, failed: map[string]bool{}}
		f.pkgs[e.Package] = p
	}
	return p
}

// event handles one event; e.Time is when it happened.
func (f *formatter) event(e event) {
	now := e.Time
	if now.IsZero() {
		now = time.Now()
	}
	switch e.Action {
	case "build-output":
		f.write(now, e.Output)
		return
	case "build-fail":
		return
	}
	if e.Package == "" {
		return
	}
	p := f.pkg(e)
	switch e.Action {
	case "start":
		p.started = now
	case "run":
		p.tested = true
	case "output":
		if e.Test == "" && !p.tested && !isResultLine(e.Output) && !strings.HasPrefix(e.Output, "testing: warning: no tests to run") {
			f.write(now, e.Output) // TestMain's lines
			return
		}
		p.lines = append(p.lines, e)
	case "pass", "fail", "skip":
		if e.Test != "" {
			if e.Action == "fail" {
				p.failed[e.Test] = true
			}
			if e.Action == "pass" && !strings.Contains(e.Test, "/") {
				p.passed++
			}
			return
		}
		f.done(now, e, p)
	}
}

// isResultLine reports whether s is the line go test ends a package's
// output with: "ok", "FAIL", "?", or PASS / FAIL alone.
func isResultLine(s string) bool {
	return strings.HasPrefix(s, "ok  \t") || strings.HasPrefix(s, "FAIL\t") || strings.HasPrefix(s, "?   \t") ||
		s == "PASS\n" || s == "FAIL\n"
}

// done prints a package's end: for a failure, what go test would show
// without -v (failed tests' output, the package's own lines), then the
// result line.
func (f *formatter) done(now time.Time, e event, p *pkgState) {
	delete(f.pkgs, e.Package)
	switch e.Action {
	case "pass":
		f.ok++
	case "skip":
		f.skipped++
	default:
		f.failed++
	}
	var out []string
	for _, l := range p.lines {
		verbose := strings.HasPrefix(l.Output, "=== ") || strings.HasPrefix(l.Output, "--- PASS") ||
			strings.HasPrefix(l.Output, "--- SKIP") || l.Output == "PASS\n"
		switch {
		case e.Action != "fail" && !isResultLine(l.Output):
		case verbose:
		case l.Test == "" || p.failed[l.Test]:
			out = append(out, l.Output)
		}
	}
	if e.Action == "pass" && p.passed > 0 && len(out) > 0 {
		out[len(out)-1] = strings.TrimSuffix(out[len(out)-1], "\n") + "\t(" + tests(p.passed) + ")\n"
	}
	for _, l := range out {
		f.write(now, l)
	}
}

// tick prints what still runs when nothing was printed for quiet.
func (f *formatter) tick(now time.Time, quiet time.Duration) {
	if now.Sub(f.printed) < quiet {
		return
	}
	var running []string
	for name, p := range f.pkgs {
		s := fmt.Sprintf("%s (%s", short(name), now.Sub(p.started).Round(time.Second))
		if p.passed > 0 {
			s += ", " + tests(p.passed) + " passed"
		}
		running = append(running, s+")")
	}
	slices.Sort(running)
	what := "compiling; no package's tests have started"
	if len(running) > 0 {
		what = "still running: " + strings.Join(running, ", ")
	}
	f.write(now, fmt.Sprintf("suite: %s: %s\n", now.Sub(f.began).Round(time.Second), what))
}

// summary prints the totals.
func (f *formatter) summary(now time.Time) {
	f.write(now, fmt.Sprintf("suite: %d packages ok, %d failed, %d without tests, in %s\n",
		f.ok, f.failed, f.skipped, now.Sub(f.began).Round(time.Second)))
}

// short is a package path without the module prefix everything here has.
func short(pkg string) string {
	if s, ok := strings.CutPrefix(pkg, "github.com/pgid/pgid/"); ok {
		return s
	}
	return pkg
}

// tests is "1 test" or "n tests".
func tests(n int) string {
	if n == 1 {
		return "1 test"
	}
	return fmt.Sprintf("%d tests", n)
}
