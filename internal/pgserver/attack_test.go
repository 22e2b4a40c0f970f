//go:build linux

package pgserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The local attacker of issue 16, in the repository: TestLocalAttacker runs
// itself again as root in a private mount namespace (unshare -m) with
// tmpfs on /var/tmp (world-writable, sticky) and on /var/cache, where a
// third copy of the test binary runs as nobody and attacks: it prepares
// /var/tmp/pgid-postgres and a payload tree before root's first run, and
// races renames and symlinks over every directory that appears in the
// caches while root runs the embedded path attackRuns times per scenario.
// The payload's programs, if anything ever executes them, create PWNED-<uid>
// in the log directory. Nothing may; pgid must refuse what it cannot trust
// with an UnsafePathError, and start every server it does start as its
// server's user (victimUser), not as nobody.
const attackRuns = 20

// victimUser is the server's user in TestLocalAttacker: one of its own.
// The victim's registry of servers is in its mount namespace; with
// DefaultUser, servers the other tests start meanwhile would be processes
// of that user it does not list (and the victim's theirs), so the test
// could not run beside them.
const victimUser = "pgid-test-victim"

// Roles of the test binary, in PGID_ATTACK_ROLE.
const (
	roleVictim   = "victim"   // root, inside the namespace
	roleAttacker = "attacker" // nobody, inside the namespace
)

// attackDirs is what the attacker watches and writes where it can.
var attackDirs = []string{"/var/tmp/pgid-postgres", RootCacheDir}

func TestLocalAttacker(t *testing.T) {
	switch os.Getenv("PGID_ATTACK_ROLE") {
	case roleVictim:
		victim(t)
		return
	case roleAttacker:
		attacker(t)
		return
	}
	needRoot(t)
	ensureUser(t, victimUser)
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		t.Fatal("the attack test needs unshare (util-linux):", err)
	}
	bins := binaries(t)
	base, err := os.MkdirTemp("", "pgid-attack-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(base)
	os.Chmod(base, 0o755)
	// The log directory is the one place both users write: the fixture's
	// wrappers and the attacker's payload record who ran them there.
	logDir := filepath.Join(base, "log")
	os.Mkdir(logDir, 0o755)
	os.Chmod(logDir, 0o1777)

	cmd := exec.Command(unshare, "-m", "--propagation", "private", os.Args[0], "-test.run=^TestLocalAttacker$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), "PGID_ATTACK_ROLE="+roleVictim, "PGID_ATTACK_BASE="+base, EnvBinaries+"="+bins)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	// Started before t.Parallel, with this process's environment as it is
	// now: the longest test of the package runs while the sequential
	// tests do (their t.Setenv does not reach it), instead of after them.
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Parallel()
	err = cmd.Wait()
	t.Logf("the victim's run, in its mount namespace:\n%s", out.Bytes())
	if err != nil {
		t.Fatalf("the attack succeeded or the test broke: %v", err)
	}
	if !strings.Contains(out.String(), "--- PASS: TestLocalAttacker") {
		t.Fatal("the victim's run did not pass")
	}
}

// victim is root in the namespace: it mounts the scene, starts the
// attacker and runs the embedded path.
func victim(t *testing.T) {
	base := os.Getenv("PGID_ATTACK_BASE")
	logDir := filepath.Join(base, "log")
	// The real binaries stay reachable where the fixture's wrappers expect
	// them, under base, before tmpfs hides /var/cache.
	real := filepath.Join(base, "real")
	os.Mkdir(real, 0o755)
	if err := syscall.Mount(os.Getenv(EnvBinaries), real, "", syscall.MS_BIND|syscall.MS_REC, ""); err != nil {
		t.Fatal("bind the binaries:", err)
	}
	if err := syscall.Mount("tmpfs", "/var/tmp", "tmpfs", 0, "mode=1777"); err != nil {
		t.Fatal("tmpfs on /var/tmp:", err)
	}
	if err := syscall.Mount("tmpfs", "/var/cache", "tmpfs", 0, "mode=0755"); err != nil {
		t.Fatal("tmpfs on /var/cache:", err)
	}
	// The jar the mirror serves: wrappers that record who runs them.
	record := "echo \"$0 $(id -u)\" >> " + shQuote(filepath.Join(logDir, "ran")) + "\n"
	jar := wrapperJar(t, real, record)
	srv, downloads := mirror(t, jar, false)
	pins := pinsOf(jar, nil)

	// The attacker: this binary again, as nobody (go test's build
	// directory is root's alone, so from a copy).
	self, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	attBin := filepath.Join(base, "attacker.test")
	if err := os.WriteFile(attBin, self, 0o755); err != nil {
		t.Fatal(err)
	}
	att := exec.Command(attBin, "-test.run=^TestLocalAttacker$", "-test.v", "-test.count=1")
	att.Env = append(os.Environ(), "PGID_ATTACK_ROLE="+roleAttacker)
	att.Dir = "/"
	att.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody, Groups: []uint32{}}}
	attOut, err := os.Create(filepath.Join(base, "attacker.out"))
	if err != nil {
		t.Fatal(err)
	}
	att.Stdout, att.Stderr = attOut, attOut
	if err := att.Start(); err != nil {
		t.Fatal(err)
	}
	defer att.Process.Kill()
	waitFor(t, filepath.Join(logDir, "ready"))

	ctx := context.Background()
	var uids []string
	started := func(name string, pid int) { uids = append(uids, name+" "+procUID(t, pid)) }

	// A: the cache the attacker prepared in /var/tmp, as PGID_POSTGRES_CACHE.
	scenario(t, "A: cache /var/tmp/pgid-postgres, prepared by the attacker", func() error {
		s, err := StartEmbedded(ctx, EmbeddedOptions{RunAsUser: victimUser, Source: SourceMaven, BinaryRepositoryURL: srv.URL, Getenv: env(map[string]string{EnvCache: "/var/tmp/pgid-postgres"}), started: started, pins: pins})
		return closeOr(s, err)
	}, true)
	// B: the attacker's own binaries, as PGID_POSTGRES_BINARIES.
	scenario(t, "B: PGID_POSTGRES_BINARIES=/var/tmp/evil, the attacker's tree", func() error {
		s, err := StartEmbedded(ctx, EmbeddedOptions{RunAsUser: victimUser, Binaries: "/var/tmp/evil", Getenv: env(nil), started: started})
		return closeOr(s, err)
	}, true)
	// E: an installed PostgreSQL the attacker made where SourceSystem
	// looks, and a pg_config on PATH that is the attacker's payload.
	scenario(t, "E: installed PostgreSQL /var/tmp/pgsql-16 and its pg_config, the attacker's", func() error {
		s, err := StartEmbedded(ctx, EmbeddedOptions{RunAsUser: victimUser, Source: SourceSystem, Getenv: env(nil), started: started,
			system: &systemPlaces{pgConfig: func() (string, error) { return "/var/tmp/pgsql-16/bin/postgres", nil }, globs: []string{"/var/tmp/pgsql-*/bin"}}})
		return closeOr(s, err)
	}, true)
	// C: the default cache, downloaded afresh on every run while the
	// attacker races over it: every run must succeed, as victimUser.
	n := downloads.Load()
	scenario(t, "C: the default cache "+RootCacheDir+", a fresh download each run", func() error {
		if err := os.RemoveAll(RootCacheDir); err != nil {
			return err
		}
		s, err := StartEmbedded(ctx, EmbeddedOptions{RunAsUser: victimUser, Source: SourceMaven, BinaryRepositoryURL: srv.URL, Getenv: env(nil), started: started, pins: pins})
		if err != nil {
			return err
		}
		if err := Ping(ctx, s.DSN, 5*time.Second); err != nil {
			s.Close()
			return err
		}
		return s.Close()
	}, false)
	if got := downloads.Load() - n; got != attackRuns {
		t.Errorf("scenario C downloaded %d times, want %d", got, attackRuns)
	}
	// D: a cache directory another user owns (made for it, as if by an
	// earlier mistake), holding the attacker's tree under the cached name.
	os.RemoveAll(RootCacheDir)
	if err := os.MkdirAll(RootCacheDir, 0o755); err != nil {
		t.Fatal(err)
	}
	os.Chown(RootCacheDir, nobody, nobody)
	waitFor(t, filepath.Join(RootCacheDir, "postgresql-"+EmbeddedVersion+"-"+artifact(), "bin", "initdb"))
	scenario(t, "D: the default cache, owned by the attacker", func() error {
		s, err := StartEmbedded(ctx, EmbeddedOptions{RunAsUser: victimUser, Source: SourceMaven, BinaryRepositoryURL: srv.URL, Getenv: env(nil), started: started, pins: pins})
		return closeOr(s, err)
	}, true)

	os.WriteFile(filepath.Join(logDir, "stop"), nil, 0o644)
	att.Wait()
	attOut.Close()
	var stats map[string]int
	b, _ := os.ReadFile(filepath.Join(logDir, "stats.json"))
	if err := json.Unmarshal(b, &stats); err != nil {
		o, _ := os.ReadFile(filepath.Join(base, "attacker.out"))
		t.Fatalf("no statistics from the attacker (%v):\n%s", err, o)
	}
	t.Logf("attacker: %d rounds (%d woken by inotify), %d swaps tried, %d succeeded (%d in /var/tmp/pgid-postgres, %d in %s), %d payload plants",
		stats["rounds"], stats["woken by inotify"], stats["swaps"], stats["swapped"], stats["swapped in /var/tmp/pgid-postgres"], stats["swapped in "+RootCacheDir], RootCacheDir, stats["plants"])
	// Each run of scenario C makes the default cache and extracts into it:
	// the attacker must have seen every one of them.
	if stats["rounds"] < 1000 || stats["woken by inotify"] < attackRuns || stats["swaps"] < attackRuns || stats["plants"] < 1 {
		t.Errorf("the attacker hardly ran: %v", stats)
	}

	pwned, _ := filepath.Glob(filepath.Join(logDir, "PWNED-*"))
	if len(pwned) > 0 {
		t.Errorf("the attacker's programs ran: %v", pwned)
	}
	ran, _ := os.ReadFile(filepath.Join(logDir, "ran"))
	lines := strings.Split(strings.TrimSpace(string(ran)), "\n")
	uid, _ := ensureUser(t, victimUser)
	server := strconv.Itoa(uid)
	for _, l := range lines {
		if !strings.HasSuffix(l, " "+server) {
			t.Errorf("a fixture program ran as another user than %s (uid %s): %q", victimUser, server, l)
		}
	}
	wantUIDs := 2 * attackRuns // initdb and postgres in C
	bad := 0
	for _, u := range uids {
		if !strings.HasSuffix(u, " "+server) {
			bad++
		}
	}
	t.Logf("processes started: %d, as %s: %d; fixture programs run: %d, all as uid %s: %v", len(uids), victimUser, len(uids)-bad, len(lines), server, bad == 0)
	if len(uids) != wantUIDs || bad > 0 {
		t.Errorf("processes started (name uid): %v, want %d, all as %s (uid %s)", uids, wantUIDs, victimUser, server)
	}
}

// scenario runs f attackRuns times and checks each run refuses with an
// UnsafePathError (refuse) or succeeds (!refuse).
func scenario(t *testing.T, name string, f func() error, refuse bool) {
	t.Helper()
	refused, ok := 0, 0
	var first error
	for i := 0; i < attackRuns; i++ {
		err := f()
		switch {
		case err == nil:
			ok++
		case errors.Is(err, ErrUnsafePath):
			refused++
			if first == nil {
				first = err
			}
		default:
			t.Errorf("%s, run %d: %v", name, i+1, err)
		}
	}
	t.Logf("%s: %d/%d refused, %d/%d started", name, refused, attackRuns, ok, attackRuns)
	if first != nil {
		t.Logf("  error: %v", first)
	}
	if (refuse && refused != attackRuns) || (!refuse && ok != attackRuns) {
		t.Errorf("%s: want all %d runs %s", name, attackRuns, map[bool]string{true: "refused", false: "started"}[refuse])
	}
}

func closeOr(s *Server, err error) error {
	if err != nil {
		return err
	}
	return s.Close()
}

func waitFor(t *testing.T, path string) {
	t.Helper()
	for i := 0; i < 500; i++ {
		if _, err := os.Stat(path); err == nil {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("%s did not appear", path)
}

// attacker is nobody in the namespace: it prepares its payload and the
// cache directory it can make, then swaps and plants until told to stop.
func attacker(t *testing.T) {
	logDir := filepath.Join(os.Getenv("PGID_ATTACK_BASE"), "log")
	payload := "#!/bin/sh\ntouch " + shQuote(logDir) + "/PWNED-$(id -u)\nexit 1\n"
	plant := func(dir string) error {
		if err := os.MkdirAll(filepath.Join(dir, "bin"), 0o777); err != nil {
			return err
		}
		for _, b := range []string{"initdb", "pg_ctl", "postgres"} {
			if err := os.WriteFile(filepath.Join(dir, "bin", b), []byte(payload), 0o777); err != nil {
				return err
			}
		}
		return nil
	}
	stats := map[string]int{}
	for _, d := range []string{"/var/tmp/evil", "/var/tmp/pgsql-16"} {
		if err := plant(d); err != nil {
			t.Fatal(err)
		}
	}
	os.Mkdir("/var/tmp/pgid-postgres", 0o777)
	os.Chmod("/var/tmp/pgid-postgres", 0o777)
	cached := "postgresql-" + EmbeddedVersion + "-" + artifact()
	for _, d := range attackDirs {
		for _, name := range []string{cached, "embedded-18-linux-amd64"} {
			if plant(filepath.Join(d, name)) == nil {
				stats["plants"]++
			}
		}
	}
	// What the attacker made itself is not worth a swap: swapping its own
	// trees over and over only burned a CPU the victim needs.
	mine := map[uint64]bool{}
	remember := func(p string) {
		if fi, err := os.Lstat(p); err == nil {
			mine[fi.Sys().(*syscall.Stat_t).Ino] = true
		}
	}
	for _, d := range attackDirs {
		remember(filepath.Join(d, cached))
		remember(filepath.Join(d, "embedded-18-linux-amd64"))
	}
	// It sweeps the caches as soon as inotify reports a change in one of
	// them (or in /var/cache, where the default cache reappears), and every
	// few milliseconds in case a watch was lost with its directory.
	changed := watch(t, append([]string{filepath.Dir(RootCacheDir)}, attackDirs...))
	os.WriteFile(filepath.Join(logDir, "ready"), nil, 0o644)
	stop := filepath.Join(logDir, "stop")
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for n := 0; ; n++ {
		select {
		case <-changed:
			stats["woken by inotify"]++
		case <-tick.C:
			if _, err := os.Stat(stop); err == nil {
				b, _ := json.Marshal(stats)
				os.WriteFile(filepath.Join(logDir, "stats.json"), b, 0o644)
				fmt.Println("attacker done:", string(b))
				return
			}
		}
		stats["rounds"]++
		for _, d := range attackDirs {
			// Whenever a cache becomes ours (scenario D), fill it.
			if _, err := os.Stat(filepath.Join(d, cached, "bin", "initdb")); err != nil {
				if plant(filepath.Join(d, cached)) == nil {
					stats["plants"]++
					remember(filepath.Join(d, cached))
				}
			}
			entries, err := os.ReadDir(d)
			if err != nil {
				continue
			}
			for _, e := range entries {
				name := e.Name()
				if !strings.HasPrefix(name, ".extract-") && !strings.HasPrefix(name, "temp_") && name != cached {
					continue
				}
				target := filepath.Join(d, name)
				if fi, err := os.Lstat(target); err != nil || mine[fi.Sys().(*syscall.Stat_t).Ino] {
					continue
				}
				stats["swaps"]++
				evil := filepath.Join(d, ".evil-"+strconv.Itoa(n))
				if plant(evil) != nil {
					// Not writable for us: try the swap anyway.
					evil = "/var/tmp/evil"
				}
				os.Rename(target, target+".gone")
				if os.Rename(evil, target) == nil || os.Symlink("/var/tmp/evil", target) == nil {
					stats["swapped"]++
					stats["swapped in "+d]++
					remember(target)
				}
				os.RemoveAll(target + ".gone")
			}
		}
	}
}

// watch reports on the returned channel (coalesced) each change inotify
// sees in dirs, and adds a watch on each directory named in dirs when it
// is created, as the default cache is on every run of scenario C.
func watch(t *testing.T, dirs []string) <-chan struct{} {
	fd, err := syscall.InotifyInit1(syscall.IN_CLOEXEC)
	if err != nil {
		t.Fatal("inotify:", err)
	}
	const mask = syscall.IN_CREATE | syscall.IN_MOVED_TO | syscall.IN_MOVED_FROM | syscall.IN_ATTRIB | syscall.IN_DELETE_SELF
	add := func() {
		for _, d := range dirs {
			syscall.InotifyAddWatch(fd, d, mask) // again is harmless; missing is retried
		}
	}
	add()
	changed := make(chan struct{}, 1)
	go func() {
		buf := make([]byte, 64<<10)
		for {
			if _, err := syscall.Read(fd, buf); err != nil && err != syscall.EINTR {
				return
			}
			add()
			select {
			case changed <- struct{}{}:
			default:
			}
		}
	}()
	return changed
}
