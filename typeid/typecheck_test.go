package typeid

import (
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

// TestTypesDoNotMix builds two programs with the go command: ok passes a
// UserID where one is wanted and must compile; mixed passes an OrderID there
// and must fail with the compiler's error naming both types at that line.
func TestTypesDoNotMix(t *testing.T) {
	if out, err := buildTypecheck(t, "ok"); err != nil {
		t.Fatalf("the control program does not build: %v\n%s", err, out)
	}
	out, err := buildTypecheck(t, "mixed")
	if err == nil {
		t.Fatal("a program passing an OrderID as a UserID compiled")
	}
	// Go 1.26 names the wanted type by its alias, UserID; others may spell
	// it out.
	if !strings.Contains(out, "main.go:30:13: cannot use order (variable of struct type typeid.ID[OrderPrefix]) as ") ||
		!strings.Contains(out, " value in argument to deleteUser") ||
		!strings.Contains(out, "UserID") && !strings.Contains(out, "typeid.ID[UserPrefix]") {
		t.Fatalf("build failed otherwise than expected:\n%s", out)
	}
}

// TestTypesDoNotConvert: converted, which writes UserID(order) for an
// OrderID, must not compile. The compiler's wording differs between
// versions, so the test asks only that the build fails and that its error
// is at the conversion's line, main.go:29, where ../ok (the control) builds.
func TestTypesDoNotConvert(t *testing.T) {
	if out, err := buildTypecheck(t, "ok"); err != nil {
		t.Fatalf("the control program does not build: %v\n%s", err, out)
	}
	out, err := buildTypecheck(t, "converted")
	if err == nil {
		t.Fatal("a program converting an OrderID into a UserID compiled")
	}
	if !strings.Contains(out, "main.go:29:") {
		t.Fatalf("the build failed, but not at the conversion on line 29:\n%s", out)
	}
}
