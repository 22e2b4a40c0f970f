package typeid

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestTypesDoNotMix builds two programs with the go command: ok passes a
// UserID where one is wanted and must compile; mixed passes an OrderID there
// and must fail with the compiler's error naming both types at that line.
func TestTypesDoNotMix(t *testing.T) {
	goCmd := filepath.Join(runtime.GOROOT(), "bin", "go")
	build := func(dir string) (string, error) {
		cmd := exec.Command(goCmd, "build", "-o", filepath.Join(t.TempDir(), "out"), "./testdata/typecheck/"+dir)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	if out, err := build("ok"); err != nil {
		t.Fatalf("the control program does not build: %v\n%s", err, out)
	}
	out, err := build("mixed")
	if err == nil {
		t.Fatal("a program passing an OrderID as a UserID compiled")
	}
	// Go 1.26 names the wanted type by its alias, UserID; others may spell
	// it out.
	if !strings.Contains(out, "main.go:30:13: cannot use order (variable of array type typeid.ID[OrderPrefix]) as ") ||
		!strings.Contains(out, " value in argument to deleteUser") ||
		!strings.Contains(out, "UserID") && !strings.Contains(out, "typeid.ID[UserPrefix]") {
		t.Fatalf("build failed otherwise than expected:\n%s", out)
	}
}
