//go:build linux

package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/pgid/pgid/opaque"
	"github.com/pgid/pgid/ulidtype"
)

const (
	uidNobody = 65534
	uidOther  = 4242 // a user with no name, neither root nor nobody
)

// keyTree builds files, directories and links under base, each with its
// mode and owner set whatever the umask.
type keyTree struct {
	t    *testing.T
	base string
}

func (k keyTree) path(rel string) string { return filepath.Join(k.base, rel) }

func (k keyTree) dir(rel string, mode os.FileMode, uid int) string {
	k.t.Helper()
	p := k.path(rel)
	if err := os.Mkdir(p, 0o700); err != nil {
		k.t.Fatal(err)
	}
	k.own(p, mode, uid)
	return p
}

func (k keyTree) file(rel, text string, mode os.FileMode, uid int) string {
	k.t.Helper()
	p := k.path(rel)
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		k.t.Fatal(err)
	}
	k.own(p, mode, uid)
	return p
}

func (k keyTree) link(rel, to string, uid int) string {
	k.t.Helper()
	p := k.path(rel)
	if err := os.Symlink(to, p); err != nil {
		k.t.Fatal(err)
	}
	if err := os.Lchown(p, uid, uid); err != nil {
		k.t.Fatal(err)
	}
	return p
}

func (k keyTree) own(p string, mode os.FileMode, uid int) {
	k.t.Helper()
	if err := os.Chown(p, uid, uid); err != nil {
		k.t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil {
		k.t.Fatal(err)
	}
}

// newKeyTree returns a tree in a directory everyone may enter (so that a
// test can run pgid as nobody), whose parents are root's.
func newKeyTree(t *testing.T) keyTree {
	if os.Geteuid() != 0 {
		t.Skip("builds files owned by other users: needs root")
	}
	k := keyTree{t, t.TempDir()}
	for d := k.base; d != filepath.Dir(d); d = filepath.Dir(d) {
		if fi, err := os.Stat(d); err == nil && fi.Mode().Perm()&0o005 != 0o005 && fi.Mode()&os.ModeSticky == 0 {
			os.Chmod(d, fi.Mode().Perm()|0o005)
		}
	}
	return k
}

// codeUnder is the ULID code of the zero ULID under the key line text.
func codeUnder(t *testing.T, text string) string {
	t.Helper()
	cur, _, err := opaque.ParseKeys(text)
	if err != nil {
		t.Fatal(err)
	}
	c, err := opaque.NewCodec(cur)
	if err != nil {
		t.Fatal(err)
	}
	return c.ULIDCode(ulidtype.ULID{})
}

var (
	rootKey   = "0:" + strings.Repeat("11", 32) + "\n"
	nobodyKey = "0:" + strings.Repeat("22", 32) + "\n"
)

// TestKeyFileOwners: as root, a key file that someone else owns, or that
// someone else could replace (a directory on its path they own or may
// write, a link they own), is refused, with the element at fault named;
// a key file in root's directories, in a sticky directory like /tmp, and
// behind Kubernetes' secret-volume links is read.
func TestKeyFileOwners(t *testing.T) {
	k := newKeyTree(t)
	shared := k.dir("shared", 0o777, 0)
	k.file("shared/keys", nobodyKey, 0o600, uidNobody)
	group := k.dir("group", 0o770, 0)
	k.file("group/keys", rootKey, 0o600, 0)
	mine := k.dir("mine", 0o700, 0)
	k.file("mine/keys", rootKey, 0o600, 0)
	k.file("mine/theirs", nobodyKey, 0o600, uidNobody)
	k.link("mine/their-link", "keys", uidNobody)
	k.link("mine/my-link", "keys", 0)
	nob := k.dir("nobody", 0o755, uidNobody)
	k.file("nobody/keys", nobodyKey, 0o600, uidNobody)
	k.link("via", "nobody", 0) // root's link into nobody's directory
	k.link("mine/via-abs", nob, 0)
	sticky := k.dir("sticky", os.ModeSticky|0o777, 0)
	k.file("sticky/keys", rootKey, 0o600, 0)
	k.file("sticky/theirs", nobodyKey, 0o600, uidNobody)
	k.dir("sticky/theirdir", 0o700, uidNobody)
	k.file("sticky/theirdir/keys", rootKey, 0o600, 0)

	// A Kubernetes secret volume: key -> ..data/key, ..data -> the
	// timestamped directory the kubelet swaps atomically.
	secret := k.dir("secret", os.ModeSticky|0o777, 0)
	k.dir("secret/..2024_01_01_00_00_00.000000001", 0o755, 0)
	k.file("secret/..2024_01_01_00_00_00.000000001/key", rootKey, 0o400, 0)
	k.link("secret/..data", "..2024_01_01_00_00_00.000000001", 0)
	k.link("secret/key", "..data/key", 0)
	// The same, with ..data replaced by nobody's link.
	k.dir("secret2", os.ModeSticky|0o777, 0)
	k.dir("secret2/..2024_01_01_00_00_00.000000001", 0o755, 0)
	k.file("secret2/..2024_01_01_00_00_00.000000001/key", rootKey, 0o400, 0)
	k.link("secret2/..data", "..2024_01_01_00_00_00.000000001", uidNobody)
	k.link("secret2/key", "..data/key", 0)

	for _, c := range []struct{ path, want string }{
		{shared + "/keys", "the directory " + shared + " is writable by group or others (mode 0777)"},
		{group + "/keys", "the directory " + group + " is writable by group or others (mode 0770)"},
		{mine + "/theirs", "the file " + mine + "/theirs is owned by uid 65534, not by you (uid 0) or root: it may be another user's key"},
		{mine + "/their-link", "the symbolic link " + mine + "/their-link is owned by uid 65534"},
		{k.path("via/keys"), "the directory " + nob + " is owned by uid 65534, not by you (uid 0) or root: its owner could replace the key file"},
		{mine + "/via-abs/keys", "the directory " + nob + " is owned by uid 65534"},
		{mine + "/../via/keys", "the directory " + nob + " is owned by uid 65534"},
		{sticky + "/theirs", "the file " + sticky + "/theirs is owned by uid 65534"},
		{sticky + "/theirdir/keys", "the directory " + sticky + "/theirdir is owned by uid 65534"},
		{k.path("secret2/key"), "the symbolic link " + k.path("secret2/..data") + " is owned by uid 65534"},
	} {
		code, out, errOut := cli(t, "", nil, "seal", "--key-file", c.path, ulidtype.ULID{}.String())
		if code != 2 || out != "" || !strings.Contains(errOut, "key file refused: "+c.path+": "+c.want) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want 2 and %q", c.path, code, out, errOut, c.want)
		}
		if _, err := loadCodec(&env{getenv: func(string) string { return "" }}, c.path); !errors.Is(err, errKeyFile) {
			t.Errorf("%s: %v, want errKeyFile", c.path, err)
		}
	}

	t.Chdir(secret)
	want := codeUnder(t, rootKey)
	for _, path := range []string{
		mine + "/keys", mine + "/my-link", sticky + "/keys",
		secret + "/key", "key", "./..data/key", "../secret/key",
		secret + "/..2024_01_01_00_00_00.000000001/key",
	} {
		code, out, errOut := cli(t, "", nil, "seal", "--key-file", path, ulidtype.ULID{}.String())
		if code != 0 || strings.TrimSpace(out) != want {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want the code under root's key", path, code, out, errOut)
		}
	}
}

// TestKeyFileOwnersAsNobody: the same checks for a user who is not root:
// pgid, run as nobody, reads nobody's key file in nobody's directory, and
// refuses one that another user owns or could replace.
func TestKeyFileOwnersAsNobody(t *testing.T) {
	k := newKeyTree(t)
	// The test binary, as pgid, somewhere nobody may run it from.
	self, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	bin := k.file("pgid.test", string(self), 0o755, 0)

	home := k.dir("home", 0o700, uidNobody)
	k.file("home/keys", nobodyKey, 0o600, uidNobody)
	k.file("home/other", nobodyKey, 0o600, uidOther)
	k.file("home/rootkeys", nobodyKey, 0o600, 0) // nobody cannot read it
	k.link("home/link", "keys", uidNobody)
	k.link("home/their-link", "keys", uidOther)
	other := k.dir("other", 0o755, uidOther)
	k.file("other/keys", nobodyKey, 0o600, uidNobody)
	k.link("home/via", other, uidNobody)
	open := k.dir("open", 0o777, 0)
	k.file("open/keys", nobodyKey, 0o600, uidNobody)

	asNobody := func(args ...string) (int, string, string) {
		cmd := exec.Command(bin)
		cmd.Env = append(os.Environ(), "PGID_TEST_CLI="+strings.Join(args, "\n"))
		cmd.Dir = "/"
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uidNobody, Gid: uidNobody, Groups: []uint32{}}}
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		err := cmd.Run()
		var exit *exec.ExitError
		if err != nil && !errors.As(err, &exit) {
			t.Fatalf("running pgid as nobody: %v", err)
		}
		return cmd.ProcessState.ExitCode(), out.String(), errOut.String()
	}

	want := codeUnder(t, nobodyKey)
	for _, path := range []string{home + "/keys", home + "/link"} {
		code, out, errOut := asNobody("seal", "--key-file", path, ulidtype.ULID{}.String())
		if code != 0 || strings.TrimSpace(out) != want {
			t.Errorf("as nobody, %s: exit %d, stdout %q, stderr %q; want nobody's code", path, code, out, errOut)
		}
	}
	for _, c := range []struct{ path, want string }{
		{home + "/other", "the file " + home + "/other is owned by uid 4242, not by you (uid 65534) or root"},
		{home + "/their-link", "the symbolic link " + home + "/their-link is owned by uid 4242"},
		{home + "/via/keys", "the directory " + other + " is owned by uid 4242, not by you (uid 65534) or root"},
		{open + "/keys", "the directory " + open + " is writable by group or others (mode 0777)"},
		{home + "/rootkeys", "permission denied"},
	} {
		code, out, errOut := asNobody("seal", "--key-file", c.path, ulidtype.ULID{}.String())
		if code != 2 || out != "" || !strings.Contains(errOut, c.want) {
			t.Errorf("as nobody, %s: exit %d, stdout %q, stderr %q; want 2 and %q", c.path, code, out, errOut, c.want)
		}
	}
}
