//go:build unix

package pgserver

import (
	"archive/tar"
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzExtractTar feeds arbitrary tar streams to the extractor: whatever it
// accepts or refuses, nothing lands outside its directory, no file inside
// is writable by group or others or carries a set-id bit, no link inside
// points out of it, nothing is deeper than maxDepth levels, there are at
// most maxDirs directories, and it never panics. The seeds include deep
// names (in PAX records), which the fuzzer lengthens and nests.
func FuzzExtractTar(f *testing.F) {
	seed := func(hs ...*tar.Header) []byte {
		var b bytes.Buffer
		tw := tar.NewWriter(&b)
		for _, h := range hs {
			tw.WriteHeader(h)
			if h.Typeflag == tar.TypeReg {
				tw.Write(bytes.Repeat([]byte("x"), int(h.Size)))
			}
		}
		tw.Close()
		return b.Bytes()
	}
	f.Add(seed(&tar.Header{Name: "bin/", Typeflag: tar.TypeDir, Mode: 0o777},
		&tar.Header{Name: "bin/initdb", Typeflag: tar.TypeReg, Mode: 0o6777, Size: 3},
		&tar.Header{Name: "lib/libpq.so", Typeflag: tar.TypeSymlink, Linkname: "libpq.so.5"},
		&tar.Header{Name: "lib/libpq.so.5", Typeflag: tar.TypeReg, Mode: 0o644, Size: 1},
		&tar.Header{Name: "lib/hard", Typeflag: tar.TypeLink, Linkname: "lib/libpq.so.5"}))
	f.Add(seed(&tar.Header{Name: "../x", Typeflag: tar.TypeReg, Size: 1}))
	f.Add(seed(&tar.Header{Name: "a", Typeflag: tar.TypeSymlink, Linkname: ".."},
		&tar.Header{Name: "a/b", Typeflag: tar.TypeReg, Size: 1}))
	f.Add(seed(&tar.Header{Name: "a", Typeflag: tar.TypeSymlink, Linkname: "/etc"},
		&tar.Header{Name: "a/passwd", Typeflag: tar.TypeReg, Size: 1}))
	f.Add(seed(&tar.Header{Name: deepName(maxDepth - 1), Typeflag: tar.TypeReg, Size: 1}))
	f.Add(seed(&tar.Header{Name: deepName(maxDepth), Typeflag: tar.TypeReg, Size: 1}))
	f.Add(seed(&tar.Header{Name: deepName(300), Typeflag: tar.TypeReg, Size: 1}))
	f.Add(seed(&tar.Header{Name: strings.Repeat("d/", 40), Typeflag: tar.TypeDir},
		&tar.Header{Name: strings.Repeat("d/", 20) + "l", Typeflag: tar.TypeSymlink, Linkname: strings.Repeat("d/", 19) + "d"}))
	// One directory for the whole run, in memory where there is a tmpfs:
	// t.TempDir and a disk for every input made this ~100 times slower.
	base := os.TempDir()
	if fi, err := os.Stat("/dev/shm"); err == nil && fi.IsDir() {
		base = "/dev/shm"
	}
	top, err := os.MkdirTemp(base, "pgid-fuzz-extract-")
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { os.RemoveAll(top) })
	f.Fuzz(func(t *testing.T, data []byte) {
		parent, err := os.MkdirTemp(top, "")
		if err != nil {
			t.Fatal(err)
		}
		defer os.RemoveAll(parent)
		dir := filepath.Join(parent, "x")
		if err := os.Mkdir(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		root, err := os.OpenRoot(dir)
		if err != nil {
			t.Fatal(err)
		}
		defer root.Close()
		_ = extractTar(context.Background(), bytes.NewReader(data), root)
		if entries, _ := os.ReadDir(parent); len(entries) != 1 {
			t.Fatalf("something landed beside the directory: %v", entries)
		}
		dirs := 0
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if rel, _ := filepath.Rel(dir, p); rel != "." && strings.Count(rel, "/")+1 > maxDepth {
				t.Fatalf("%s is %d levels deep, more than %d", rel, strings.Count(rel, "/")+1, maxDepth)
			}
			if d.IsDir() {
				if dirs++; dirs > maxDirs+1 {
					t.Fatalf("more than %d directories", maxDirs)
				}
			}
			fi, err := d.Info()
			if err != nil {
				return err
			}
			if fi.Mode()&fs.ModeSymlink != 0 {
				target, _ := os.Readlink(p)
				rel, err := filepath.Rel(dir, filepath.Join(filepath.Dir(p), target))
				if filepath.IsAbs(target) || err != nil || !filepath.IsLocal(rel) {
					t.Fatalf("link %s -> %s leaves the directory", p, target)
				}
				return nil
			}
			if fi.Mode()&(fs.ModeSetuid|fs.ModeSetgid) != 0 || fi.Mode().Perm()&0o022 != 0 {
				t.Fatalf("%s has mode %v", p, fi.Mode())
			}
			return nil
		})
	})
}
