//go:build linux

package pgserver

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// attackUser is the server's user in the same-uid attack tests: one of
// their own, so that servers other tests run meanwhile as DefaultUser are
// neither attacked nor counted.
const attackUser = "pgid-test-attack"

// ensureUser returns the uid and gid of the test user name, creating it
// (a system user, as pgid makes DefaultUser) if missing.
func ensureUser(t *testing.T, name string) (uid, gid int) {
	t.Helper()
	if _, err := user.Lookup(name); err != nil {
		if err := createUser(name); err != nil {
			t.Fatal(err)
		}
	}
	u, err := user.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	uid, _ = strconv.Atoi(u.Uid)
	gid, _ = strconv.Atoi(u.Gid)
	return uid, gid
}

// attackScript is what a process of the server's user does to log in
// without the password: put a trust line first in pg_hba.conf, in the data
// directory and in work/conf; point hba_file at a file of its own in
// postgresql.auto.conf; and send the postmaster (found by its command
// line, in whatever PID namespace) SIGHUP.
func attackScript(dataDir string) string {
	d, c := shQuote(dataDir), shQuote(filepath.Join(filepath.Dir(filepath.Dir(dataDir)), confDir))
	return `D=` + d + `; C=` + c + `
for f in "$D/pg_hba.conf" "$C/pg_hba.conf"; do
  if { printf 'host all all 127.0.0.1/32 trust\n'; cat "$f" 2>/dev/null; true; } > "$f.new" 2>/dev/null && mv -f "$f.new" "$f" 2>/dev/null; then
    echo "rewrote $f"
  else
    echo "could not rewrite $f"
  fi
done
if printf 'host all all 127.0.0.1/32 trust\n' > "$D/evil_hba.conf" && printf "hba_file = '%s'\n" "$D/evil_hba.conf" >> "$D/postgresql.auto.conf"; then
  echo "set hba_file in postgresql.auto.conf"
fi
for p in /proc/[0-9]*; do
  if tr '\0' ' ' < "$p/cmdline" 2>/dev/null | grep -qF -- "-D $D "; then
    kill -HUP "${p#/proc/}" && echo "sent SIGHUP to ${p#/proc/}"
  fi
done
`
}

// loginWithoutPassword waits until the server at dsn (with its password)
// has reloaded its configuration after before, as an attacker's SIGHUP
// makes it do, for up to 10 s, and then tries once to connect as postgres
// without the password. reloaded says whether the reload was seen.
func loginWithoutPassword(dsn string, before time.Time) (reloaded bool, err error) {
	for i := 0; i < 200 && !reloaded; i++ {
		if t, err := confLoadTime(dsn); err == nil && t.After(before) {
			reloaded = true
		} else {
			time.Sleep(50 * time.Millisecond)
		}
	}
	u, _ := url.Parse(dsn)
	u.User = url.User("postgres")
	return reloaded, Ping(context.Background(), u.String(), 5*time.Second)
}

// confLoadTime returns pg_conf_load_time() of the server at dsn, as a new
// session sees it: when the postmaster last read its configuration.
func confLoadTime(dsn string) (time.Time, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return time.Time{}, err
	}
	defer conn.Close(ctx)
	var t time.Time
	err = conn.QueryRow(ctx, "SELECT pg_conf_load_time()").Scan(&t)
	return t, err
}

// zombieLeader is a program whose main thread calls pthread_exit while its
// other thread waits for the file argv[1] and then runs the shell command
// argv[2]: the process's leader is a zombie (state Z) while it runs.
const zombieLeader = `#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>
static char **args;
static void *run(void *x) {
	while (access(args[1], F_OK) != 0)
		usleep(20000);
	exit(system(args[2]) == 0 ? 0 : 1);
}
int main(int argc, char **argv) {
	pthread_t t;
	args = argv;
	if (argc != 3 || pthread_create(&t, NULL, run, NULL) != 0)
		return 2;
	pthread_exit(NULL);
}
`

// procState is the state letter of /proc/<pid>/stat, and the number of
// its threads.
func procState(pid int) (string, int) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return "gone", 0
	}
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	tasks, _ := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/task")
	return f[0], len(tasks)
}

// TestZombieLeaderCounts is issue 34's item 7, first half: a process of
// the server's user whose main thread called pthread_exit (its leader a
// zombie, its other thread running) counts as running: StartEmbedded
// refuses with ErrSharedUser naming it. Were the server started, that
// thread would rewrite pg_hba.conf, reload the server and log in without
// the password.
func TestZombieLeaderCounts(t *testing.T) {
	needRoot(t)
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("needs gcc to build the attacker")
	}
	uid, gid := ensureUser(t, attackUser)
	dir := privateDir(t)
	src, exe := filepath.Join(dir, "zl.c"), filepath.Join(dir, "zl")
	os.WriteFile(src, []byte(zombieLeader), 0o644)
	if out, err := exec.Command("gcc", "-pthread", "-o", exe, src).CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	goFile, scriptFile := filepath.Join(dir, "go"), filepath.Join(dir, "attack.sh")
	var out bytes.Buffer
	att := exec.Command(exe, goFile, "/bin/sh "+scriptFile)
	att.Dir, att.Env, att.Stdout, att.Stderr = "/", []string{"PATH=" + safePATH}, &out, &out
	att.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), Groups: []uint32{}}}
	if err := att.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { att.Process.Kill(); att.Wait() }()
	state, threads := procState(att.Process.Pid)
	for i := 0; i < 100 && state != "Z"; i++ {
		time.Sleep(10 * time.Millisecond)
		state, threads = procState(att.Process.Pid)
	}
	t.Logf("the attacker, process %d of uid %d: state %s, %d threads", att.Process.Pid, uid, state, threads)
	if state != "Z" || threads != 2 {
		t.Fatalf("the attacker's leader is in state %s with %d threads, want a zombie (Z) with 2", state, threads)
	}

	s, err := StartEmbedded(context.Background(), EmbeddedOptions{Binaries: binaries(t), RunAsUser: attackUser, Getenv: env(nil)})
	if err == nil {
		defer s.Close()
		os.WriteFile(scriptFile, []byte(attackScript(s.DataDir)), 0o644)
		os.WriteFile(goFile, nil, 0o644)
		att.Wait()
		t.Logf("the attacker's run:\n%s", out.String())
		if _, err := loginWithoutPassword(s.DSN, time.Time{}); err == nil {
			t.Fatalf("started beside process %d of uid %d (a zombie leader with a running thread), which then logged in as postgres without the password", att.Process.Pid, uid)
		}
		t.Fatalf("started beside process %d of uid %d, a zombie leader with a running thread", att.Process.Pid, uid)
	}
	t.Log(err)
	if !errors.Is(err, ErrSharedUser) || !strings.Contains(err.Error(), strconv.Itoa(att.Process.Pid)+" (zl)") {
		t.Errorf("err = %v, want ErrSharedUser naming process %d (zl)", err, att.Process.Pid)
	}
}

// TestOtherPIDNamespace is issue 34's item 7, second half: pgid runs in a
// PID namespace of its own (unshare --pid --fork --mount-proc), so its
// /proc scan cannot see a process of the server's user outside it. The
// server starts; that process then does what took a server over before
// (a trust line first in pg_hba.conf, hba_file in postgresql.auto.conf,
// SIGHUP) and must still not log in without the password: the server's
// configuration files are root's, outside the data directory.
func TestOtherPIDNamespace(t *testing.T) {
	if os.Getenv("PGID_PIDNS_ROLE") == "victim" {
		pidnsVictim(t)
		return
	}
	needRoot(t)
	t.Parallel() // after TestZombieLeaderCounts, the other test of attackUser
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		t.Skip("needs unshare (util-linux)")
	}
	uid, gid := ensureUser(t, attackUser)
	if _, err := mkdirSecure(pathRule{use: "tests"}, registryDir, 0o700); err != nil {
		t.Fatal(err)
	}
	// The process pgid cannot see: started first, outside its namespace.
	unseen := exec.Command("sleep", "300")
	unseen.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), Groups: []uint32{}}}
	if err := unseen.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { unseen.Process.Kill(); unseen.Wait() }()

	victim := exec.Command(unshare, "--pid", "--fork", "--mount", "--propagation", "private", "--mount-proc",
		os.Args[0], "-test.run=^TestOtherPIDNamespace$", "-test.v", "-test.count=1")
	victim.Env = append(os.Environ(), "PGID_PIDNS_ROLE=victim", EnvBinaries+"="+binaries(t))
	stdin, _ := victim.StdinPipe()
	stdout, _ := victim.StdoutPipe()
	var verr bytes.Buffer
	victim.Stderr = &verr
	if err := victim.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { stdin.Close(); victim.Wait() }()
	var dsn, dataDir string
	sc := bufio.NewScanner(stdout)
	for (dsn == "" || dataDir == "") && sc.Scan() {
		line := sc.Text()
		if v, ok := strings.CutPrefix(line, "dsn "); ok {
			dsn = v
		} else if v, ok := strings.CutPrefix(line, "data "); ok {
			dataDir = v
		} else if strings.HasPrefix(line, "error ") {
			t.Fatalf("in its PID namespace, pgid did not start the server: %s", line)
		}
	}
	if dsn == "" || dataDir == "" {
		stdin.Close()
		victim.Wait()
		t.Fatalf("no server from the victim:\n%s", verr.String())
	}
	t.Logf("in its PID namespace, pgid started the server beside process %d of uid %d, which it cannot see", unseen.Process.Pid, uid)

	before, err := confLoadTime(dsn)
	if err != nil {
		t.Fatal(err)
	}
	out, _ := asUser(uid, gid, attackScript(dataDir))
	t.Logf("the attack, as uid %d outside pgid's namespace:\n%s", uid, out)
	if !strings.Contains(out, "sent SIGHUP") {
		t.Errorf("the attacker found no postmaster to signal")
	}
	reloaded, err := loginWithoutPassword(dsn, before)
	if !reloaded {
		t.Errorf("the server did not reload its configuration after the attacker's SIGHUP")
	}
	if err == nil {
		t.Fatalf("a process of the server's user outside pgid's PID namespace logged in as postgres without the password")
	} else {
		t.Logf("login without the password: %v", err)
	}
	if err := Ping(context.Background(), dsn, 5*time.Second); err != nil {
		t.Errorf("the server no longer answers with its password: %v", err)
	}
}

// pidnsVictim is TestOtherPIDNamespace's pgid, in its own PID and mount
// namespaces (a registry of its own, so that it does not prune the host's
// servers, whose processes it cannot see): it starts a server, prints its
// DSN and data directory and keeps it until its standard input closes.
func pidnsVictim(t *testing.T) {
	if err := syscall.Mount("tmpfs", registryDir, "tmpfs", 0, "mode=0700"); err != nil {
		fmt.Println("error mount a registry:", err)
		return
	}
	s, err := StartEmbedded(context.Background(), EmbeddedOptions{RunAsUser: attackUser, Getenv: os.Getenv})
	if err != nil {
		fmt.Println("error", err)
		return
	}
	defer s.Close()
	fmt.Printf("dsn %s\ndata %s\n", s.DSN, s.DataDir)
	bufio.NewReader(os.Stdin).ReadString('\n')
}
