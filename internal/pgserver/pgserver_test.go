package pgserver

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// localDSN is the local trust-auth cluster CI starts; tests of steps 1 and
// 2 point at it.
func localDSN(t *testing.T) string {
	t.Helper()
	dsn := os.Getenv("DATABASE_URL")
	if dsn == "" {
		dsn = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
	}
	if err := Ping(context.Background(), dsn, 5*time.Second); err != nil {
		t.Fatalf("these tests need a PostgreSQL at DATABASE_URL or %s: %v", dsn, err)
	}
	return dsn
}

// env returns a Getenv reading only m.
func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

// binaries returns PGID_POSTGRES_BINARIES or fetches PostgreSQL 18 with
// .ci/pg-binaries; it fails rather than skips.
func binaries(t *testing.T) string {
	t.Helper()
	if d := os.Getenv(EnvBinaries); d != "" {
		return d
	}
	out, err := exec.Command("../../.ci/pg-binaries", "18").Output()
	if err != nil {
		t.Fatalf("set %s, or let ../../.ci/pg-binaries 18 fetch the binaries: %v", EnvBinaries, err)
	}
	return strings.TrimSpace(string(out))
}

const deadDSN = "postgres://postgres@127.0.0.1:1/postgres?sslmode=disable&connect_timeout=1"

func TestFindOrder(t *testing.T) {
	ctx := context.Background()
	dsn := localDSN(t)
	hookCalls := 0
	hook := func(context.Context) (string, string, func(), error) {
		hookCalls++
		return dsn, "the hook's server", nil, nil
	}
	failHook := func(context.Context) (string, string, func(), error) {
		hookCalls++
		return "", "", nil, errors.New("no Docker engine")
	}
	emptyBins := Options{Embedded: EmbeddedOptions{Binaries: t.TempDir()}}

	cases := []struct {
		name    string
		o       Options
		env     map[string]string
		via     string
		hook    int
		errLike []string
	}{
		{"flag before env", Options{DatabaseURL: dsn}, map[string]string{"DATABASE_URL": deadDSN}, ViaFlag, 0, nil},
		{"env", Options{Hook: hook}, map[string]string{"DATABASE_URL": dsn}, ViaEnv, 0, nil},
		{"env set but dead: no fallback", Options{ComposeDSN: dsn}, map[string]string{"DATABASE_URL": deadDSN}, "", 0, []string{"DATABASE_URL is set but does not answer"}},
		{"compose before hook", Options{ComposeDSN: dsn, Hook: hook}, nil, ViaCompose, 0, nil},
		{"hook when compose is dead", Options{ComposeDSN: deadDSN, Hook: hook}, nil, ViaHook, 1, nil},
		{"none: all four named", Options{ComposeDSN: deadDSN, Hook: failHook, HookName: "testcontainers-go", Embedded: emptyBins.Embedded}, nil, "", 1,
			[]string{"no PostgreSQL server found", "1. --database-url or DATABASE_URL", "2. docker compose up", "3. (tests only) testcontainers-go (failed: no Docker engine)", "4. an embedded PostgreSQL", "has no bin/initdb", "PGID_POSTGRES=embedded skips 1 to 3"}},
		{"forced embedded skips 1 to 3", Options{DatabaseURL: dsn, ComposeDSN: dsn, Hook: hook, Embedded: emptyBins.Embedded}, map[string]string{"PGID_POSTGRES": "embedded", "DATABASE_URL": dsn}, "", 0,
			[]string{"PGID_POSTGRES=embedded: ", "has no bin/initdb", "1. --database-url"}},
		{"bad mode", Options{}, map[string]string{"PGID_POSTGRES": "docker"}, "", 0, []string{`PGID_POSTGRES="docker": want embedded`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			hookCalls = 0
			c.o.Getenv = env(c.env)
			s, err := Find(ctx, c.o)
			if c.errLike != nil {
				if err == nil {
					s.Close()
					t.Fatalf("Find: %s, want an error", s.Via)
				}
				for _, want := range c.errLike {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("error lacks %q:\n%v", want, err)
					}
				}
			} else {
				if err != nil {
					t.Fatal(err)
				}
				defer s.Close()
				if s.Via != c.via {
					t.Errorf("Via = %q, want %q (%s)", s.Via, c.via, s.Description)
				}
				if err := Ping(ctx, s.DSN, 5*time.Second); err != nil {
					t.Error(err)
				}
			}
			if hookCalls != c.hook {
				t.Errorf("hook called %d times, want %d", hookCalls, c.hook)
			}
		})
	}
}

// TestForcedEmbedded starts the embedded server the way CI does
// (PGID_POSTGRES=embedded, PGID_POSTGRES_BINARIES), as root if the test
// runs as root, and checks Close leaves nothing behind.
func TestForcedEmbedded(t *testing.T) {
	ctx := context.Background()
	bins := binaries(t)
	var logs []string
	s, err := Find(ctx, Options{
		DatabaseURL: localDSN(t),
		Getenv:      env(map[string]string{EnvMode: "embedded", EnvBinaries: bins}),
		Embedded:    EmbeddedOptions{Logf: func(f string, a ...any) { logs = append(logs, f) }},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	t.Log(s.Description)
	if s.Via != ViaEmbedded || !strings.Contains(s.Description, "forced by PGID_POSTGRES=embedded") ||
		!strings.Contains(s.Description, "embedded PostgreSQL 18") {
		t.Errorf("Via %q, Description %q", s.Via, s.Description)
	}
	if err := Ping(ctx, s.DSN, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	pidFile := filepath.Join(s.DataDir, "postmaster.pid")
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.SplitN(string(b), "\n", 2)[0])
	if os.Geteuid() == 0 {
		status, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(status), "\nUid:\t65534\t") {
			t.Errorf("the server does not run as nobody:\n%s", status)
		}
	}
	logFiles := newLogFiles(map[string]bool{})
	work := filepath.Dir(filepath.Dir(s.DataDir))

	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal("second Close:", err)
	}
	if _, err := os.Stat(work); !os.IsNotExist(err) {
		t.Errorf("%s still exists after Close: %v", work, err)
	}
	if state := processState(pid, 5*time.Second); state != "" {
		t.Errorf("postmaster %d still running after Close: %s", pid, state)
	}
	if err := Ping(ctx, s.DSN, 2*time.Second); err == nil {
		t.Errorf("%s still answers after Close", s.DSN)
	}
	for _, f := range logFiles {
		if _, err := os.Stat(f); !os.IsNotExist(err) {
			t.Errorf("log file %s left behind", f)
		}
	}
	if len(logFiles) == 0 {
		t.Error("found no embedded-postgres log file to remove")
	}
}

// processState waits up to d for process pid to end and returns "" once it
// has (or is a zombie nobody reaped yet), else its State line.
func processState(pid int, d time.Duration) string {
	deadline := time.Now().Add(d)
	for {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
		if err != nil {
			return ""
		}
		for _, line := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(line, "State:") && strings.Contains(line, "Z") {
				return ""
			}
		}
		if time.Now().After(deadline) {
			for _, line := range strings.Split(string(b), "\n") {
				if strings.HasPrefix(line, "State:") {
					return line
				}
			}
			return "running"
		}
		time.Sleep(50 * time.Millisecond)
	}
}
