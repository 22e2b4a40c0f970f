package integration_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestServerChoiceDefeatsTestCache runs this package's TestServer with go
// test three times, with the test cache on: against DATABASE_URL, then
// with PGID_POSTGRES=embedded and binaries that do not exist (which must
// run, and fail, not report the first run's "ok (cached)"), then as the
// first again (which may come from the cache: the cache still works).
func TestServerChoiceDefeatsTestCache(t *testing.T) {
	if os.Getenv("PGID_INNER_GO_TEST") != "" {
		t.Skip("inside the go test this test runs")
	}
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Fatal(err)
	}
	gotest := func(env ...string) (string, error) {
		cmd := exec.Command(goCmd, "test", "-run", "^TestServer$", ".")
		cmd.Env = append(os.Environ(), "PGID_INNER_GO_TEST=1", "GOFLAGS=")
		for _, k := range serverChoice {
			cmd.Env = append(cmd.Env, k+"=")
		}
		cmd.Env = append(cmd.Env, "DATABASE_URL="+baseDSN)
		cmd.Env = append(cmd.Env, env...)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	out, err := gotest()
	if err != nil {
		t.Fatalf("first run: %v\n%s", err, out)
	}
	out, err = gotest("PGID_POSTGRES=embedded", "PGID_POSTGRES_BINARIES=/nonexistent/pgid")
	t.Logf("with PGID_POSTGRES=embedded:\n%s", out)
	if err == nil || strings.Contains(out, "(cached)") || !strings.Contains(out, "/nonexistent/pgid") {
		t.Errorf("changing the server choice did not rerun the tests (err %v)", err)
	}
	out, err = gotest()
	t.Logf("the first run again:\n%s", out)
	if err != nil || !strings.Contains(out, "(cached)") {
		t.Errorf("the same choice again was not cached, so this test proves nothing (err %v)", err)
	}
}
