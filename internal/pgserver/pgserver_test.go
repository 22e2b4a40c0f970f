package pgserver

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
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

// TestDownload runs the download path (no PGID_POSTGRES_BINARIES) against a
// local stand-in for Maven Central serving an archive built from the npm
// binaries, as root if the test runs as root: the first start downloads and
// extracts, the second uses the extracted copy.
func TestDownload(t *testing.T) {
	bins := binaries(t)
	for _, tool := range []string{"tar", "xz"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("this test builds a .txz with %s: %v", tool, err)
		}
	}
	base, err := os.MkdirTemp("", "pgid-download-test-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(base)
	os.Chmod(base, 0o755) // the server's user must reach the cache inside

	// The jar embedded-postgres expects: a zip holding a .txz of bin, lib
	// and share. Here bin holds scripts that exec the real binaries (which
	// find lib and share next to themselves): the archive stays tiny, and
	// extracting ~60 MB with a pure-Go xz decoder under -race would take
	// minutes.
	tree := filepath.Join(base, "tree")
	for _, d := range []string{"bin", "lib", "share"} {
		if err := os.MkdirAll(filepath.Join(tree, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, b := range []string{"initdb", "pg_ctl", "postgres"} {
		script := "#!/bin/sh\nexec " + shQuote(filepath.Join(bins, "bin", b)) + ` "$@"` + "\n"
		if err := os.WriteFile(filepath.Join(tree, "bin", b), []byte(script), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	txz := filepath.Join(base, "pg.txz")
	cmd := exec.Command("sh", "-c", `tar -C "$1" -cf - bin lib share | xz -0 > "$2"`, "sh", tree, txz)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build the archive: %v\n%s", err, out)
	}
	var jar bytes.Buffer
	zw := zip.NewWriter(&jar)
	w, _ := zw.CreateHeader(&zip.FileHeader{Name: "postgres-linux-x86_64.txz", Method: zip.Store})
	f, err := os.Open(txz)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(w, f)
	f.Close()
	zw.Close()
	var requests atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		if strings.HasSuffix(r.URL.Path, "/embedded-postgres-binaries-"+runtime.GOOS+"-"+runtime.GOARCH+"-"+string(EmbeddedVersion)+".jar") {
			w.Write(jar.Bytes())
			return
		}
		http.NotFound(w, r)
	}))
	defer srv.Close()

	o := EmbeddedOptions{
		BinaryRepositoryURL: srv.URL,
		ArchiveDir:          filepath.Join(base, "archive"),
		CacheDir:            filepath.Join(base, "cache"),
		Getenv:              env(nil),
	}
	for i := 0; i < 2; i++ {
		s, err := StartEmbedded(context.Background(), o)
		if err != nil {
			t.Fatalf("start %d: %v", i+1, err)
		}
		t.Log(s.Description)
		if err := Ping(context.Background(), s.DSN, 5*time.Second); err != nil {
			t.Error(err)
		}
		if err := s.Close(); err != nil {
			t.Error(err)
		}
		if !strings.Contains(s.Description, "downloaded by embedded-postgres") {
			t.Errorf("description %q", s.Description)
		}
	}
	if n := requests.Load(); n < 1 || n > 2 { // the jar, and maybe its .sha256
		t.Errorf("%d requests to the repository, want the jar (and its .sha256) once", n)
	}
	left, _ := filepath.Glob(filepath.Join(base, "cache", ".extract-*"))
	if len(left) > 0 {
		t.Errorf("extraction leftovers: %v", left)
	}
}
