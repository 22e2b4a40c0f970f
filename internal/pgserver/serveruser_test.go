//go:build linux

package pgserver

import (
	"bufio"
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
)

// postmasterPID reads the postmaster's pid from s's postmaster.pid, as root.
func postmasterPID(t *testing.T, s *Server) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(s.DataDir, "postmaster.pid"))
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.SplitN(string(b), "\n", 2)[0])
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

// asUser runs the shell script as uid:gid, with no supplementary groups,
// and returns its combined output and error.
func asUser(uid, gid int, script string) (string, error) {
	cmd := exec.Command("/bin/sh", "-c", script)
	cmd.Dir = "/"
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), Groups: []uint32{}}}
	out, err := cmd.CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

// TestServerUnreachableByNobody is issue 26's item 4: root starts the
// embedded server, and a process of nobody, the uid daemons share, tries
// what took the server over before: rewrite pg_hba.conf to trust, send the
// postmaster SIGHUP and connect as postgres without the password. Each step
// must fail.
func TestServerUnreachableByNobody(t *testing.T) {
	needRoot(t)
	t.Parallel()
	ctx := context.Background()
	s, err := StartEmbedded(ctx, EmbeddedOptions{Binaries: binaries(t), Getenv: env(nil)})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	pid := postmasterPID(t, s)
	hba := filepath.Join(s.DataDir, "pg_hba.conf")
	t.Logf("postmaster %d runs as uid %s; the attacker is uid %d", pid, procUID(t, pid), nobody)
	// As root, by default, DefaultUser: not nobody, which daemons share.
	if got, want := procUID(t, pid), serverUserUID(t); got != want {
		t.Errorf("the postmaster runs as uid %s, want %s's (%s)", got, DefaultUser, want)
	}

	steps := []struct{ what, script string }{
		{"read the data directory", "ls " + shQuote(s.DataDir)},
		{"rewrite pg_hba.conf to trust", "printf 'host all all 127.0.0.1/32 trust\\n' > " + shQuote(hba+".new") + " && cat " + shQuote(hba) + " >> " + shQuote(hba+".new") + " && mv " + shQuote(hba+".new") + " " + shQuote(hba)},
		{"send the postmaster SIGHUP", "kill -HUP " + strconv.Itoa(pid)},
	}
	succeeded := 0
	for _, st := range steps {
		out, err := asUser(nobody, nobody, st.script)
		if err == nil {
			succeeded++
			t.Errorf("nobody could %s", st.what)
		} else {
			t.Logf("nobody could not %s: %s", st.what, out)
		}
	}
	u, _ := url.Parse(s.DSN)
	u.User = url.User("postgres")
	if succeeded == len(steps) {
		// The reload is asynchronous: wait for it, as the attacker would.
		for i := 0; i < 100; i++ {
			if Ping(ctx, u.String(), time.Second) == nil {
				t.Fatalf("nobody rewrote pg_hba.conf, reloaded it and connected as postgres without the password")
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	if err := Ping(ctx, u.String(), 5*time.Second); err == nil {
		t.Error("postgres connects without the password")
	}
	if err := Ping(ctx, s.DSN, 5*time.Second); err != nil {
		t.Errorf("the server no longer answers with its password: %v", err)
	}
}

// serverUID starts and stops a server with o and returns the uid and gid
// its postmaster ran as.
func serverUID(t *testing.T, o EmbeddedOptions) (uid, gid int) {
	t.Helper()
	s, err := StartEmbedded(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	uid, _ = strconv.Atoi(procUID(t, postmasterPID(t, s)))
	u, err := user.LookupId(strconv.Itoa(uid))
	if err != nil {
		t.Fatal(err)
	}
	gid, _ = strconv.Atoi(u.Gid)
	return uid, gid
}

// TestSharedUserRefused: a process that already runs as the server's user
// (not one of pgid's servers) makes StartEmbedded refuse, naming it; when
// it is gone, the server starts again. nobody, shared by definition, is
// refused as RunAsUser and as PGID_POSTGRES_USER. pgid's own servers, in
// this process and in another, do not count as sharing. The server's user
// is one of the test's own, named by PGID_POSTGRES_USER: the process that
// shares it would make the other tests' servers, as DefaultUser, refuse.
func TestSharedUserRefused(t *testing.T) {
	needRoot(t)
	t.Parallel()
	const sharedUser = "pgid-test-shared"
	sharedUID, _ := ensureUser(t, sharedUser)
	ctx := context.Background()
	bins := binaries(t)
	o := EmbeddedOptions{Binaries: bins, Getenv: env(map[string]string{EnvUser: sharedUser})}
	uid, gid := serverUID(t, o)
	if uid != sharedUID {
		t.Errorf("the server ran as uid %d, not as %s (uid %d)", uid, sharedUser, sharedUID)
	}

	other := exec.Command("sleep", "300")
	other.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), Groups: []uint32{}}}
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	s, err := StartEmbedded(ctx, o)
	if err == nil {
		s.Close()
		other.Process.Kill()
		other.Wait()
		t.Fatalf("started as uid %d while process %d (sleep) runs as that uid", uid, other.Process.Pid)
	}
	other.Process.Kill()
	other.Wait()
	t.Log(err)
	if !errors.Is(err, ErrSharedUser) {
		t.Errorf("err = %v, want ErrSharedUser", err)
	}
	for _, want := range []string{strconv.Itoa(other.Process.Pid), "sleep", EnvUser} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q: %v", want, err)
		}
	}
	if u2, _ := serverUID(t, o); u2 != uid {
		t.Errorf("after the other process ended: uid %d, want %d", u2, uid)
	}

	for name, o := range map[string]EmbeddedOptions{
		"RunAsUser":  {Binaries: bins, RunAsUser: "nobody", Getenv: env(nil)},
		"EnvUser":    {Binaries: bins, Getenv: env(map[string]string{EnvUser: "nobody"})},
		"root":       {Binaries: bins, RunAsUser: "root", Getenv: env(nil)},
		"not a user": {Binaries: bins, Getenv: env(map[string]string{EnvUser: "no such user!"})},
	} {
		s, err := StartEmbedded(ctx, o)
		if err == nil {
			s.Close()
			t.Errorf("%s: started", name)
			continue
		}
		t.Logf("%s: %v", name, err)
		if name != "not a user" && !errors.Is(err, ErrSharedUser) && !strings.Contains(err.Error(), "unprivileged") {
			t.Errorf("%s: %v, want a refusal", name, err)
		}
	}

	// pgid's own servers: one of this process, one of another.
	s1, err := StartEmbedded(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	defer s1.Close()
	holder := exec.Command(os.Args[0], "-test.run=^TestHoldServer$", "-test.count=1")
	holder.Env = append(os.Environ(), "PGID_HOLD_SERVER=1", EnvBinaries+"="+bins, EnvUser+"="+sharedUser)
	stdin, _ := holder.StdinPipe()
	stdout, _ := holder.StdoutPipe()
	holder.Stderr = os.Stderr
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { stdin.Close(); holder.Wait() }()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if !strings.HasPrefix(line, "ready") {
		t.Fatalf("the other process's server: %q, %v", line, err)
	}
	s2, err := StartEmbedded(ctx, o)
	if err != nil {
		t.Fatalf("beside two servers of pgid's (this process's and %s): %v", strings.TrimSpace(line), err)
	}
	s2.Close()
}

// TestHoldServer is TestSharedUserRefused's other process: it starts a
// server, says so and keeps it until its standard input closes.
func TestHoldServer(t *testing.T) {
	if os.Getenv("PGID_HOLD_SERVER") == "" {
		t.Skip("run by TestSharedUserRefused")
	}
	s, err := StartEmbedded(context.Background(), EmbeddedOptions{Getenv: os.Getenv})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	fmt.Printf("ready: server of process %d\n", os.Getpid())
	bufio.NewReader(os.Stdin).ReadString('\n')
}
