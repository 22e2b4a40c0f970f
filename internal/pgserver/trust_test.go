//go:build unix

package pgserver

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// nobody is the uid of "another user" in these tests.
const nobody = 65534

func needRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		if os.Getenv("CI") != "" {
			t.Fatal("CI runs this test as root: it makes files another user owns")
		}
		t.Skip("needs root to make files another user owns (CI runs it as root)")
	}
}

// wantUnsafe fails unless err is an *UnsafePathError for path whose message
// contains each of want.
func wantUnsafe(t *testing.T, err error, path string, want ...string) {
	t.Helper()
	var ue *UnsafePathError
	if !errors.Is(err, ErrUnsafePath) || !errors.As(err, &ue) {
		t.Fatalf("err = %v, want an UnsafePathError for %s", err, path)
	}
	if ue.Path != path {
		t.Errorf("refused %s, want %s: %v", ue.Path, path, err)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error lacks %q: %v", w, err)
		}
	}
}

// TestSecurePathLevels makes each level of a/b/c unsafe in turn (another
// owner, group- or other-writable) and checks securePath, checkTree and
// mkdirSecure refuse that level and change nothing.
func TestSecurePathLevels(t *testing.T) {
	base := privateDir(t)
	chain := filepath.Join(base, "a", "b", "c")
	if err := os.MkdirAll(filepath.Join(chain, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	r := pathRule{use: "the test path", fix: "choose another"}
	if got, err := securePath(r, chain); err != nil || got != chain {
		t.Fatalf("a safe chain: %q, %v", got, err)
	}
	for _, level := range []string{base, filepath.Join(base, "a"), filepath.Join(base, "a", "b"), chain, filepath.Join(chain, "bin")} {
		for _, mode := range []os.FileMode{0o775, 0o757, 0o777} {
			os.Chmod(level, mode)
			_, err := checkTree(r, chain)
			if level == filepath.Join(chain, "bin") {
				wantUnsafe(t, err, level, "writable by", "chmod go-w")
			} else {
				wantUnsafe(t, err, level, "writable by", "chmod go-w")
				_, err = mkdirSecure(r, filepath.Join(chain, "new"), 0o755)
				wantUnsafe(t, err, level)
				if _, err := os.Lstat(filepath.Join(chain, "new")); err == nil {
					t.Errorf("mkdirSecure made %s/new below an unsafe %s", chain, level)
				}
			}
			if fi, _ := os.Stat(level); fi.Mode().Perm() != mode {
				t.Errorf("%s: mode %v after the check, want %v left alone", level, fi.Mode().Perm(), mode)
			}
			os.Chmod(level, 0o755)
		}
	}
	if _, err := checkTree(r, chain); err != nil {
		t.Fatal(err)
	}
	// A file below that others may write.
	f := filepath.Join(chain, "bin", "initdb")
	os.WriteFile(f, []byte("#!/bin/sh\n"), 0o755)
	os.Chmod(f, 0o757)
	_, err := checkTree(r, chain)
	wantUnsafe(t, err, f, "writable by others")
	os.Chmod(f, 0o755)

	t.Run("other owner", func(t *testing.T) {
		needRoot(t)
		for _, level := range []string{filepath.Join(base, "a"), chain, filepath.Join(chain, "bin"), f} {
			os.Lchown(level, nobody, nobody)
			_, err := checkTree(r, chain)
			wantUnsafe(t, err, level, "owned by uid 65534", "remove it")
			os.Lchown(level, 0, 0)
		}
	})

	t.Run("symbolic links", func(t *testing.T) {
		// In place of the directory itself: refused.
		link := filepath.Join(base, "link")
		os.Symlink(chain, link)
		_, err := checkTree(r, link)
		wantUnsafe(t, err, link, "a symbolic link")
		_, err = mkdirSecure(r, link, 0o755)
		wantUnsafe(t, err, link, "a symbolic link")
		// In a directory of the path, to a safe place: followed and checked.
		if got, err := securePath(r, filepath.Join(link, "bin")); err != nil || got != filepath.Join(chain, "bin") {
			t.Errorf("through a safe link: %q, %v", got, err)
		}
		// To an unsafe place: refused there.
		unsafe := t.TempDir() // under /tmp, which others may write
		os.Mkdir(filepath.Join(unsafe, "bin"), 0o755)
		bad := filepath.Join(base, "bad")
		os.Symlink(unsafe, bad)
		_, err = securePath(r, filepath.Join(bad, "bin"))
		if !errors.Is(err, ErrUnsafePath) {
			t.Errorf("a link into %s: %v, want refused", unsafe, err)
		}
		// A link inside the tree that leaves it for an unsafe place.
		os.Symlink(filepath.Join(unsafe, "bin"), filepath.Join(chain, "bin", "lib"))
		_, err = checkTree(r, chain)
		if !errors.Is(err, ErrUnsafePath) {
			t.Errorf("a link out of the tree into %s: %v, want refused", unsafe, err)
		}
		os.Remove(filepath.Join(chain, "bin", "lib"))
	})

	t.Run("sticky", func(t *testing.T) {
		// /tmp-like: world-writable with the sticky bit. Accepted only
		// where the rule allows it (the parent of MkdirTemp).
		st := filepath.Join(base, "sticky")
		os.Mkdir(st, 0o755)
		os.Chmod(st, 0o777|os.ModeSticky)
		os.Mkdir(filepath.Join(st, "x"), 0o755)
		_, err := securePath(r, filepath.Join(st, "x"))
		wantUnsafe(t, err, st, "writable by group and others")
		sticky := r
		sticky.sticky = true
		if _, err := securePath(sticky, filepath.Join(st, "x")); err != nil {
			t.Error(err)
		}
	})
}

// TestUnsafeCacheRefused points StartEmbedded at caches that are unsafe in
// each way and checks the error names the cache and the fix, nothing is
// downloaded, and the directory is left as it was.
func TestUnsafeCacheRefused(t *testing.T) {
	jar := fixtureJar(t, map[string]string{"bin/initdb": "#!/bin/sh\nexit 1\n", "bin/postgres": "#!/bin/sh\nexit 1\n"})
	srv, requests := mirror(t, jar, false)
	base := privateDir(t)
	start := func(cache string, env map[string]string) error {
		s, err := StartEmbedded(context.Background(), EmbeddedOptions{Source: SourceMaven, BinaryRepositoryURL: srv.URL, CacheDir: cache, Getenv: func(k string) string { return env[k] }, pins: pinsOf(jar, nil)})
		if err == nil {
			s.Close()
		}
		return err
	}
	writable := filepath.Join(base, "writable")
	os.Mkdir(writable, 0o755)
	os.Chmod(writable, 0o777)
	wantUnsafe(t, start(writable, nil), writable, "the binaries cache (CacheDir option)", "writable by group and others (mode 0777)", "chmod go-w", "PGID_POSTGRES_CACHE")
	if fi, _ := os.Stat(writable); fi.Mode().Perm() != 0o777 {
		t.Errorf("the refused cache was changed to %v", fi.Mode())
	}
	// Under /tmp, which others may write, even if the cache itself is fine.
	tmpCache := filepath.Join(t.TempDir(), "cache")
	err := start("", map[string]string{EnvCache: tmpCache})
	if !errors.Is(err, ErrUnsafePath) || !strings.Contains(err.Error(), "PGID_POSTGRES_CACHE") {
		t.Errorf("a cache under %s: %v, want refused", os.TempDir(), err)
	}
	link := filepath.Join(base, "link")
	os.Mkdir(filepath.Join(base, "real"), 0o755)
	os.Symlink(filepath.Join(base, "real"), link)
	wantUnsafe(t, start(link, nil), link, "a symbolic link")

	t.Run("other owner", func(t *testing.T) {
		needRoot(t)
		other := filepath.Join(base, "other")
		os.Mkdir(other, 0o755)
		os.Chown(other, nobody, nobody)
		wantUnsafe(t, start(other, nil), other, "owned by uid 65534 (nobody), not root", "remove it")
		// The cached binaries' directory owned by another user.
		own := filepath.Join(base, "own")
		os.MkdirAll(filepath.Join(own, "postgresql-"+EmbeddedVersion+"-"+artifact(), "bin"), 0o755)
		os.Chown(filepath.Join(own, "postgresql-"+EmbeddedVersion+"-"+artifact(), "bin"), nobody, nobody)
		wantUnsafe(t, start(own, nil), filepath.Join(own, "postgresql-"+EmbeddedVersion+"-"+artifact(), "bin"), "owned by uid 65534")
	})
	t.Run("TMPDIR", func(t *testing.T) {
		// The data directory's parent: a symbolic link, or writable by
		// others without the sticky bit.
		bins := binaries(t)
		for _, tmp := range []string{link, writable} {
			t.Setenv("TMPDIR", tmp)
			s, err := StartEmbedded(context.Background(), EmbeddedOptions{Binaries: bins, Getenv: env(nil)})
			if err == nil {
				s.Close()
			}
			if !errors.Is(err, ErrUnsafePath) || !strings.Contains(err.Error(), "the temporary directory") {
				t.Errorf("TMPDIR=%s: %v, want refused", tmp, err)
			}
		}
	})
	if n := requests.Load(); n != 0 {
		t.Errorf("%d downloads for refused caches, want none", n)
	}
}

// TestCIBinariesScriptRefuses: .ci/pg-binaries follows the same rules as
// StartEmbedded for its cache, before it fetches anything.
func TestCIBinariesScriptRefuses(t *testing.T) {
	run := func(cache string) string {
		cmd := exec.Command("../../.ci/pg-binaries", "18")
		cmd.Env = append(os.Environ(), "PGID_PG_CACHE="+cache)
		out, err := cmd.CombinedOutput()
		if err == nil {
			t.Errorf("PGID_PG_CACHE=%s: accepted, printed %s", cache, out)
		}
		return string(out)
	}
	tmp := t.TempDir() // under os.TempDir(), /tmp or /dev/shm: others may write it
	if out := run(filepath.Join(tmp, "cache")); !strings.Contains(out, "refusing "+os.TempDir()+": writable by group or others") {
		t.Errorf("a cache under %s: %s", os.TempDir(), out)
	}
	base := privateDir(t)
	link := filepath.Join(base, "link")
	os.Symlink(base, link)
	if out := run(filepath.Join(link, "cache")); !strings.Contains(out, "refusing "+link+": a symbolic link") {
		t.Errorf("a cache through a symbolic link: %s", out)
	}
	t.Run("other owner", func(t *testing.T) {
		needRoot(t)
		other := filepath.Join(base, "other")
		os.MkdirAll(filepath.Join(other, "18.4.0-beta.17", "native", "bin"), 0o755)
		os.Chown(other, nobody, nobody)
		if out := run(other); !strings.Contains(out, "refusing "+other+": owned by uid 65534") {
			t.Errorf("a cache owned by nobody: %s", out)
		}
		// A cached version someone else planted inside a good cache.
		os.Chown(other, 0, 0)
		os.Chown(filepath.Join(other, "18.4.0-beta.17", "native", "bin"), nobody, nobody)
		os.WriteFile(filepath.Join(other, "18.4.0-beta.17", "native", "bin", "postgres"), []byte("#!/bin/sh\n"), 0o755)
		if out := run(other); !strings.Contains(out, "holds files another user owns or may write") {
			t.Errorf("a planted cached version: %s", out)
		}
	})
}

// TestLinksResolvedPhysically: links are followed as the kernel follows
// them, level by level: a link that looks inside the tree but goes out
// through another link, a link through another user's link, and a link to
// a directory outside with an unsafe file in it are all refused.
func TestLinksResolvedPhysically(t *testing.T) {
	base := privateDir(t)
	r := pathRule{use: "the test tree", fix: "choose another"}
	tree := filepath.Join(base, "tree")
	os.MkdirAll(filepath.Join(tree, "lib"), 0o755)
	outside := filepath.Join(base, "outside")
	os.MkdirAll(filepath.Join(outside, "open"), 0o755)
	os.Chmod(filepath.Join(outside, "open"), 0o777)
	os.WriteFile(filepath.Join(outside, "open", "evil.so"), nil, 0o644)
	if _, err := checkTree(r, tree); err != nil {
		t.Fatal(err)
	}
	// (a) "up/open/evil.so" reads as inside the tree; up leads out.
	os.Symlink(outside, filepath.Join(tree, "lib", "up"))
	os.Symlink("up/open/evil.so", filepath.Join(tree, "lib", "libx.so"))
	_, err := checkTree(r, tree)
	wantUnsafe(t, err, filepath.Join(outside, "open"), "writable by")
	os.Remove(filepath.Join(tree, "lib", "libx.so"))
	os.Remove(filepath.Join(tree, "lib", "up"))
	// (b) a link through a link in a place others may write.
	hop := filepath.Join(t.TempDir(), "hop") // under /tmp
	os.Symlink("/usr/lib", hop)
	os.Symlink(hop, filepath.Join(tree, "lib", "via"))
	if _, err := checkTree(r, tree); !errors.Is(err, ErrUnsafePath) {
		t.Errorf("a link through %s: %v, want refused", hop, err)
	}
	os.Remove(filepath.Join(tree, "lib", "via"))
	// (c) a link to a directory outside the tree: its contents count.
	os.Chmod(filepath.Join(outside, "open"), 0o755)
	os.Chmod(filepath.Join(outside, "open", "evil.so"), 0o666)
	os.Symlink(filepath.Join(outside, "open"), filepath.Join(tree, "lib", "dir"))
	_, err = checkTree(r, tree)
	wantUnsafe(t, err, filepath.Join(outside, "open", "evil.so"), "writable by")
}

// TestMkdirSecureUmaskAndLinkedParent: directories pgserver makes get
// their mode whatever the umask, and a symbolic link as an existing parent
// (~/.cache -> /data/cache) is followed, while the cache itself as a link
// stays refused.
func TestMkdirSecureUmaskAndLinkedParent(t *testing.T) {
	base := privateDir(t)
	r := pathRule{use: "the test cache", fix: "choose another", othersEnter: true}
	old := syscall.Umask(0o027)
	defer syscall.Umask(old)
	got, err := mkdirSecure(r, filepath.Join(base, "a", "b"), 0o755)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{filepath.Join(base, "a"), got} {
		if fi, _ := os.Stat(d); fi.Mode().Perm() != 0o755 {
			t.Errorf("%s: mode %v under umask 027, want 0755", d, fi.Mode().Perm())
		}
	}
	os.Mkdir(filepath.Join(base, "data"), 0o755)
	os.Chmod(filepath.Join(base, "data"), 0o755)
	os.Symlink(filepath.Join(base, "data"), filepath.Join(base, "cachelink"))
	if got, err := mkdirSecure(r, filepath.Join(base, "cachelink", "pgid"), 0o755); err != nil || got != filepath.Join(base, "data", "pgid") {
		t.Errorf("below a linked parent: %q, %v", got, err)
	}
	_, err = mkdirSecure(r, filepath.Join(base, "cachelink"), 0o755)
	wantUnsafe(t, err, filepath.Join(base, "cachelink"), "a symbolic link")
}
