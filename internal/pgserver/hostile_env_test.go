//go:build linux

package pgserver

import (
	"context"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// hostileDir makes a directory nobody owns and anyone may write (mode
// 0777), holding shell scripts of names that record their name and uid in
// its file "ran" before they exec the real program of that name in
// safePATH: whatever pgserver runs from it shows there.
func hostileDir(t *testing.T, names ...string) (dir, ran string) {
	t.Helper()
	dir = filepath.Join(privateDir(t), "evil")
	if err := os.Mkdir(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	os.Chmod(dir, 0o777)
	os.Chown(dir, nobody, nobody)
	ran = filepath.Join(dir, "ran")
	for _, n := range names {
		real, err := lookSafe(n)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, n)
		body := "#!/bin/sh\necho \"$0 $(/usr/bin/id -u)\" >> " + shQuote(ran) + "\nexec " + shQuote(real) + " \"$@\"\n"
		if err := os.WriteFile(p, []byte(body), 0o777); err != nil {
			t.Fatal(err)
		}
		os.Chmod(p, 0o777)
		os.Chown(p, nobody, nobody)
	}
	return dir, ran
}

// environOf returns the environment of process pid.
//
// The kernel closes the close-on-exec pipe that ends cmd.Start before it
// has set the new program's environment up, so right after Start the file
// can still read empty: read again until it is not (for up to a second).
func environOf(t *testing.T, pid int) []string {
	t.Helper()
	var b []byte
	for i := 0; i < 1000 && len(b) == 0; i++ {
		if i > 0 {
			time.Sleep(time.Millisecond)
		}
		var err error
		if b, err = os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ"); err != nil {
			t.Fatal(err)
		}
	}
	return strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
}

// TestHostilePath is issue 34's item 8: root's PATH starts with a
// directory nobody owns and anyone may write, and LD_PRELOAD, PGHOST and
// other PG* variables are set. Creating the server's user runs
// /usr/sbin/useradd, not the PATH's; an installed PostgreSQL found
// through Debian's /usr/bin/pg_config (a shell script running ls and tail)
// runs none of the directory's programs; and initdb and postgres get
// PATH=safePATH and none of the LD_* and PG* variables.
func TestHostilePath(t *testing.T) {
	needRoot(t)
	if _, err := os.Stat("/usr/bin/pg_config"); err != nil {
		t.Skip("needs an installed PostgreSQL with /usr/bin/pg_config (Debian's postgresql)")
	}
	dir, ran := hostileDir(t, "useradd", "ls", "tail", "sed", "id", "cat")
	t.Setenv("PATH", dir+":"+os.Getenv("PATH"))
	hostile := map[string]string{"LD_PRELOAD": filepath.Join(dir, "evil.so"), "LD_LIBRARY_PATH": dir,
		"PGHOST": "/nonexistent", "PGPORT": "1", "PGDATA": "/nonexistent", "PGAPPNAME": "evil"}
	for k, v := range hostile {
		t.Setenv(k, v)
	}

	// useradd, for a user of the test's own (not DefaultUser, which other
	// servers may use meanwhile).
	const name = "pgid-test-useradd"
	if _, err := user.Lookup(name); err == nil {
		exec.Command("/usr/sbin/userdel", name).Run()
	}
	err := createUser(name)
	defer exec.Command("/usr/sbin/userdel", name).Run()
	if err != nil {
		t.Errorf("createUser: %v", err)
	}
	if _, err := user.Lookup(name); err != nil {
		t.Errorf("after createUser: %v", err)
	}

	envs := map[string][]string{}
	s, err := StartEmbedded(context.Background(), EmbeddedOptions{Source: SourceSystem, Getenv: env(nil),
		started: func(n string, pid int) { envs[n] = environOf(t, pid) }})
	if err != nil {
		t.Fatal(err)
	}
	t.Log(s.Description)
	s.Close()
	if !strings.Contains(s.Description, "found by /usr/bin/pg_config --bindir") {
		t.Errorf("not found through /usr/bin/pg_config: %s", s.Description)
	}
	if b, _ := os.ReadFile(ran); len(b) > 0 {
		t.Errorf("programs from the hostile PATH ran (name uid):\n%s", b)
	}
	for _, n := range []string{"initdb", "postgres"} {
		e, ok := envs[n]
		if !ok {
			t.Errorf("%s was not started", n)
		}
		t.Logf("%s's environment: %q", n, e)
		if !strings.Contains("\x00"+strings.Join(e, "\x00")+"\x00", "\x00PATH="+safePATH+"\x00") {
			t.Errorf("%s's PATH is not %s: %q", n, safePATH, e)
		}
		for _, kv := range e {
			if strings.HasPrefix(kv, "LD_") || strings.HasPrefix(kv, "PG") {
				t.Errorf("%s inherited %s", n, kv)
			}
		}
	}
}
