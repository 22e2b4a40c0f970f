package main

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/pgid/pgid/internal/pgserver/pgtest"
)

// shellDocs are the files whose shell blocks TestReadmeCommands keeps
// true: the README and the guides its shell blocks moved to. The other
// guides' shell blocks (docs/CLI.md, docs/BENCHMARKS.md) show commands
// with placeholders and are not run.
var shellDocs = []string{"README.md", "docs/IDS.md", "docs/DRIVERS.md", "docs/TESTING.md"}

// TestReadmeCommands keeps the shell blocks of shellDocs true: every pgid
// command they show (but the demo) runs here and must succeed, and every
// other command, the demo included, must be one that CI runs, in .ci/run or
// the GitHub workflow (environment settings and -race / -count flags aside).
func TestReadmeCommands(t *testing.T) {
	var readme []byte
	for _, name := range shellDocs {
		b, err := os.ReadFile("../../" + name)
		if err != nil {
			t.Fatal(err)
		}
		readme = append(readme, b...)
	}
	var ci []string
	for _, name := range []string{"../../.ci/run", "../../.github/workflows/ci.yml"} {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(string(b), "\n") {
			ci = append(ci, normalizeCommand(l))
		}
	}
	// The sqlc section's commands run, as written, in sqlc/'s
	// TestServiceOutsideTheRepository, listed in its testdata.
	sqlcCommands, err := pgtest.ReadList("../../sqlc/testdata/readme_commands.txt")
	if err != nil || len(sqlcCommands) == 0 {
		t.Fatalf("sqlc's README commands: %d, %v", len(sqlcCommands), err)
	}
	for _, c := range sqlcCommands {
		ci = append(ci, normalizeCommand(c))
	}
	blocks := regexp.MustCompile("(?s)```sh\n(.*?)```").FindAllStringSubmatch(string(readme), -1)
	n := 0
	for _, b := range blocks {
		for _, line := range strings.Split(b[1], "\n") {
			line = strings.TrimSpace(line)
			if line == "" || strings.HasPrefix(line, "#") {
				continue
			}
			n++
			if args, ok := strings.CutPrefix(line, "go run ./cmd/pgid "); ok && !strings.HasPrefix(args, "demo") {
				code, out, errOut := runCLI(t, strings.Fields(args)...)
				if code != 0 || out == "" {
					t.Errorf("README or guide: %s: exit %d, stdout %q, stderr %q", line, code, out, errOut)
				}
				continue
			}
			found := false
			for _, c := range ci {
				if c == normalizeCommand(line) {
					found = true
					break
				}
			}
			if !found {
				t.Errorf("README or guide shows %q, which neither this test nor CI (.ci/run, .github/workflows/ci.yml) runs", line)
			}
		}
	}
	if n < 12 {
		t.Errorf("%d commands in the sh blocks of %v; the test expects at least 12", n, shellDocs)
	}
}

var (
	envPrefix = regexp.MustCompile(`^(run:\s*)?([A-Z_][A-Z0-9_]*=("[^"]*"|\S*)\s+)*`)
	ciFlags   = regexp.MustCompile(`\s-(race|count=\d+)\b`)
)

// normalizeCommand drops a YAML "run:", leading VAR=value settings and the
// -race / -count flags CI adds, so "go test -race -count=1 work" in CI is
// the README's "go test work".
func normalizeCommand(l string) string {
	l = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), "- "))
	l = envPrefix.ReplaceAllString(l, "")
	l = ciFlags.ReplaceAllString(l, "")
	return strings.Join(strings.Fields(l), " ")
}
