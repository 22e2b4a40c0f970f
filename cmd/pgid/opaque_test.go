package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/pgid/pgid/objectidtype"
	"github.com/pgid/pgid/opaque"
	"github.com/pgid/pgid/ulidtype"
)

// cli runs pgid with the given stdin and environment.
func cli(t *testing.T, stdin string, envv map[string]string, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	e := &env{stdin: strings.NewReader(stdin), stdout: &out, stderr: &errOut, getenv: func(k string) string { return envv[k] }}
	code := runEnv(context.Background(), args, e)
	return code, out.String(), errOut.String()
}

func TestSealOpen(t *testing.T) {
	dir := t.TempDir()
	code, keyLine, _ := cli(t, "", nil, "new-key", "--id", "1")
	if code != 0 || !regexp.MustCompile(`^1:[0-9a-f]{64}\n$`).MatchString(keyLine) {
		t.Fatalf("new-key: %d %q", code, keyLine)
	}
	keyFile := filepath.Join(dir, "keys")
	if err := os.WriteFile(keyFile, []byte(keyLine), 0o600); err != nil {
		t.Fatal(err)
	}
	u, o := ulidtype.New(), objectidtype.New()
	inputs := []string{u.String(), u.UUIDString(), o.String(), o.Short()}
	code, out, errOut := cli(t, "", nil, append([]string{"seal", "--key-file", keyFile}, inputs...)...)
	if code != 0 {
		t.Fatalf("seal: %d %s", code, errOut)
	}
	codes := strings.Fields(out)
	if len(codes) != 4 || len(codes[0]) != 26 || codes[0] != codes[1] || len(codes[2]) != 16 || codes[2] != codes[3] {
		t.Fatalf("seal printed %q", out)
	}
	// Open, also from stdin and with the keys in the environment.
	code, out, errOut = cli(t, codes[0]+"\n"+codes[2]+"\n", map[string]string{envKeys: strings.TrimSpace(keyLine)}, "open")
	if code != 0 || out != u.String()+"\n"+o.String()+"\n" {
		t.Fatalf("open from stdin: %d %q %s", code, out, errOut)
	}
	// A code starting with '-' needs no "--".
	var dash string
	for i := 0; i < 1000 && dash == ""; i++ {
		id := objectidtype.New()
		_, c, _ := cli(t, "", nil, "seal", "--key-file", keyFile, id.String())
		if strings.HasPrefix(c, "-") {
			dash = strings.TrimSpace(c)
			code, out, errOut = cli(t, "", nil, "open", dash, "--key-file", keyFile)
			if code != 0 || strings.TrimSpace(out) != id.String() {
				t.Fatalf("open %s: %d %q %s", dash, code, out, errOut)
			}
		}
	}
	if dash == "" {
		t.Error("no code starting with '-' in 1,000")
	}
	// A short ObjectId starting with '-' seals without "--" too.
	for i := 0; i < 2000; i++ {
		id := objectidtype.New()
		if short := id.Short(); strings.HasPrefix(short, "-") {
			code, out, errOut := cli(t, "", nil, "seal", short, "--key-file", keyFile)
			if code != 0 || len(strings.TrimSpace(out)) != 16 {
				t.Fatalf("seal %s: %d %q %s", short, code, out, errOut)
			}
			break
		}
	}
	// A trailing --key-file without a value is a flag error, not a file "--".
	if code, _, errOut := cli(t, "", nil, "open", codes[0], "--key-file"); code != 2 || strings.Contains(errOut, "stat --") {
		t.Errorf("trailing --key-file: %d %s", code, errOut)
	}

	// Rotation: a new current key, the old one kept.
	_, newLine, _ := cli(t, "", nil, "new-key", "--id", "2")
	rotated := filepath.Join(dir, "rotated")
	os.WriteFile(rotated, []byte("# current first\n"+newLine+keyLine), 0o600)
	code, out, _ = cli(t, "", nil, "open", "--key-file", rotated, "--candidates", "--json", codes[0], codes[2])
	var got []struct {
		Kind       string   `json:"kind"`
		ID         string   `json:"id"`
		Candidates []string `json:"candidates"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &got) != nil || len(got) != 2 {
		t.Fatalf("open after rotation: %d %s", code, out)
	}
	if got[0].ID != u.String() || got[1].Kind != "objectid" || len(got[1].Candidates) != 2 || got[1].Candidates[1] != o.String() {
		t.Errorf("after rotation: %+v, want the ULID exactly and the ObjectId as the second candidate", got)
	}

	secret := strings.TrimSpace(strings.SplitN(keyLine, ":", 2)[1])
	loose := filepath.Join(dir, "loose")
	os.WriteFile(loose, []byte(keyLine), 0o644)
	os.Chmod(loose, 0o644)
	for _, c := range []struct {
		args []string
		env  map[string]string
		want string
	}{
		{[]string{"seal", "--key-file", loose, u.String()}, nil, "readable by others (mode 0644): chmod 600"},
		{[]string{"seal", u.String()}, nil, "no keys: give --key-file FILE or set PGID_OPAQUE_KEYS"},
		{[]string{"seal", u.String()}, map[string]string{envKeys: "1:" + secret[:40]}, "PGID_OPAQUE_KEYS: invalid key: line 1: the secret has 40 hex digits"},
		{[]string{"open", "--key-file", keyFile, "abc"}, nil, `pgid open: ObjectId code "abc": 3 characters, want 16`},
		{[]string{"open", "--key-file", keyFile, strings.Repeat("0", 25) + "U"}, nil, "invalid character 'U' at position 25"},
		{[]string{"open", "--key-file", keyFile, "Z" + codes[0][1:]}, nil, "made with key 3, which this codec does not have"},
		{[]string{"seal", "--key-file", keyFile, "nope"}, nil, "4 characters"},
		{[]string{"new-key", "--id", "4"}, nil, "--id 4: want 0 to 3"},
	} {
		code, out, errOut := cli(t, "", c.env, c.args...)
		if code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stderr %q, want 2 and %q", c.args, code, errOut, c.want)
		}
		if strings.Contains(out+errOut, secret[:16]) {
			t.Errorf("%v: the secret shows in the output", c.args)
		}
	}
}

// TestKeyFileSwap: a user who can write the key file's directory swaps the
// path, again and again, between the real key file and a symbolic link to
// their own world-readable key while pgid reads the keys: pgid refuses the
// link (or, where it follows links it trusts, the world-readable file, or
// a path that changed under it) or reads the real key, and never seals
// with the other key.
func TestKeyFileSwap(t *testing.T) {
	dir := t.TempDir()
	mine, theirs := "0:"+strings.Repeat("11", 32)+"\n", "0:"+strings.Repeat("22", 32)+"\n"
	real, attacker, path := filepath.Join(dir, "real"), filepath.Join(dir, "attacker"), filepath.Join(dir, "keys")
	if err := os.WriteFile(real, []byte(mine), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(attacker, []byte(theirs), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chmod(attacker, 0o644) // whatever the umask
	if err := os.Symlink(attacker, filepath.Join(dir, "probe")); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	if err := os.Link(real, path); err != nil {
		t.Skipf("no hard links here: %v", err)
	}
	codeUnder := func(text string) string {
		cur, _, err := opaque.ParseKeys(text)
		c, err2 := opaque.NewCodec(cur)
		if err != nil || err2 != nil {
			t.Fatal(err, err2)
		}
		return c.ULIDCode(ulidtype.ULID{})
	}
	myCode, theirCode := codeUnder(mine), codeUnder(theirs)

	var stop atomic.Bool
	done, swapping := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		link, sym := filepath.Join(dir, "link"), filepath.Join(dir, "sym")
		for n := 0; !stop.Load(); n++ {
			os.Link(real, link)
			os.Rename(link, path)
			os.Symlink(attacker, sym)
			os.Rename(sym, path)
			if n == 0 {
				close(swapping)
			}
		}
	}()
	defer func() { stop.Store(true); <-done }()
	<-swapping

	// At least 4,000 reads, and on until both the real key and the link
	// have been read 200 times each (or a million reads).
	e := &env{getenv: func(string) string { return "" }}
	var readMine, refused int
	var other []error
	for i := 0; i < 4000 || (readMine < 200 || refused < 200) && i < 1e6; i++ {
		c, err := loadCodec(e, path)
		switch {
		case err != nil && errors.Is(err, errKeyFile):
			refused++
		case err != nil:
			other = append(other, err)
		case c.ULIDCode(ulidtype.ULID{}) == theirCode:
			t.Fatalf("read %d (after %d of the real key, %d refused): sealed with the key the link points to", i, readMine, refused)
		case c.ULIDCode(ulidtype.ULID{}) == myCode:
			readMine++
		default:
			t.Fatalf("read %d: a codec with neither key", i)
		}
	}
	if len(other) > 0 {
		t.Errorf("%d reads failed otherwise, e.g. %v", len(other), other[0])
	}
	if readMine < 200 || refused < 200 {
		t.Errorf("%d reads of the real key, %d refused: the swap did not interleave with the reads", readMine, refused)
	}
}

// TestKeyFileRefused: a key file that is not a regular file, too large,
// readable by others or (where links are not followed) a link is refused, quickly and with a
// message that says what to do; none of its content is read.
func TestKeyFileRefused(t *testing.T) {
	dir := t.TempDir()
	keyLine := "1:" + strings.Repeat("ab", 32) + "\n"
	good := filepath.Join(dir, "good")
	if err := os.WriteFile(good, []byte(keyLine), 0o600); err != nil {
		t.Fatal(err)
	}
	loose := filepath.Join(dir, "loose")
	os.WriteFile(loose, []byte(keyLine), 0o644)
	os.Chmod(loose, 0o644)
	// 3 GiB, sparse: nothing of it is on disk, and nothing may be read.
	huge := filepath.Join(dir, "huge")
	f, err := os.OpenFile(huge, os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(3 << 30); err != nil {
		t.Fatal(err)
	}
	f.Close()
	long := filepath.Join(dir, "long")
	os.WriteFile(long, []byte(keyLine+"#"+strings.Repeat("x", maxKeyFileSize)+"\n"), 0o600)

	cases := []struct{ path, want string }{
		{dir, "is not a regular file"},
		{huge, "has 3221225472 bytes; a key file has at most 65536"},
		{long, "has 65605 bytes; a key file has at most 65536"},
		{loose, "readable by others (mode 0644): chmod 600"},
	}
	// Where links are followed (Unix), they are checked like directories:
	// TestKeyFileOwners.
	link := filepath.Join(dir, "link")
	if err := os.Symlink(good, link); err == nil && !followsTrustedLinks {
		cases = append(cases, struct{ path, want string }{link, "is a symbolic link (to " + good + "): give --key-file " + good})
	}
	for _, c := range cases {
		code, out, errOut := cli(t, "", nil, "seal", "--key-file", c.path, ulidtype.New().String())
		if code != 2 || !strings.Contains(errOut, c.want) || out != "" {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want 2 and %q", filepath.Base(c.path), code, out, errOut, c.want)
		}
		if _, err := loadCodec(&env{getenv: func(string) string { return "" }}, c.path); !errors.Is(err, errKeyFile) {
			t.Errorf("%s: %v, want errKeyFile", filepath.Base(c.path), err)
		}
	}
	if code, _, errOut := cli(t, "", nil, "seal", "--key-file", good, ulidtype.New().String()); code != 0 {
		t.Errorf("a good key file: %d %s", code, errOut)
	}
}
