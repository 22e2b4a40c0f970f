package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pgid/pgid/objectidtype"
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
