package typeid

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// buildTypecheck builds ./testdata/typecheck/dir with the go command and
// returns its output.
func buildTypecheck(t *testing.T, dir string) (string, error) {
	t.Helper()
	goCmd := filepath.Join(runtime.GOROOT(), "bin", "go")
	cmd := exec.Command(goCmd, "build", "-o", filepath.Join(t.TempDir(), "out"), "./testdata/typecheck/"+dir)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// buildErrorAt builds the program in ./testdata/typecheck/dir, which
// must fail to compile with its errors at line of main.go and nowhere
// else, and returns those error lines. It asks nothing of the compiler's
// wording, which changes between Go releases: only where the errors are.
func buildErrorAt(t *testing.T, dir string, line int) []string {
	t.Helper()
	if out, err := buildTypecheck(t, "ok"); err != nil {
		t.Fatalf("the control program does not build: %v\n%s", err, out)
	}
	out, err := buildTypecheck(t, dir)
	if err == nil {
		t.Fatalf("%s compiled", dir)
	}
	at := fmt.Sprintf("main.go:%d:", line)
	var errs []string
	for _, l := range strings.Split(out, "\n") {
		if !strings.Contains(l, ".go:") {
			continue // "# package" headers, notes without a position
		}
		if !strings.Contains(l, at) {
			t.Fatalf("%s fails to build elsewhere than at %s:\n%s", dir, at, out)
		}
		errs = append(errs, l)
	}
	if len(errs) == 0 {
		t.Fatalf("%s failed to build without an error at %s:\n%s", dir, at, out)
	}
	return errs
}

// namesBoth reports whether one of errs names both ID types: the OrderID
// given (typeid.ID[OrderPrefix], or its alias) and the UserID wanted (by
// its alias, as Go 1.26 does, or spelt out).
func namesBoth(errs []string) bool {
	for _, e := range errs {
		if strings.Contains(e, "OrderPrefix") || strings.Contains(e, "OrderID") {
			if strings.Contains(e, "UserID") || strings.Contains(e, "UserPrefix") {
				return true
			}
		}
	}
	return false
}

// TestTypesDoNotMix: mixed passes an OrderID where a UserID is wanted and
// must fail to compile at that call, main.go:30, with an error naming both
// types, where ok (the control, a UserID there) builds.
func TestTypesDoNotMix(t *testing.T) {
	if errs := buildErrorAt(t, "mixed", 30); !namesBoth(errs) {
		t.Fatalf("the error does not name both ID types:\n%s", strings.Join(errs, "\n"))
	}
}

// TestTypesDoNotConvert: converted, which writes UserID(order) for an
// OrderID, must fail to compile at the conversion, main.go:29, with an
// error naming both types, where ok (the control) builds.
func TestTypesDoNotConvert(t *testing.T) {
	if errs := buildErrorAt(t, "converted", 29); !namesBoth(errs) {
		t.Fatalf("the error does not name both ID types:\n%s", strings.Join(errs, "\n"))
	}
}
