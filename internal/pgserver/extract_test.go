//go:build unix

package pgserver

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// tarOf writes hs (regular files get Size bytes of "x") as a tar stream.
func tarOf(t testing.TB, hs ...*tar.Header) []byte {
	t.Helper()
	var b bytes.Buffer
	tw := tar.NewWriter(&b)
	for _, h := range hs {
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if h.Typeflag == tar.TypeReg {
			tw.Write(bytes.Repeat([]byte("x"), int(h.Size)))
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// extractInto extracts data into a new directory under the test's and
// returns the error and how long it took.
func extractInto(t *testing.T, ctx context.Context, data []byte) (error, time.Duration) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "x")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	began := time.Now()
	err = extractTar(ctx, tar.NewReader(bytes.NewReader(data)), root)
	return err, time.Since(began)
}

// deepName is depth levels of "d/", then "f".
func deepName(depth int) string {
	return strings.Repeat("d/", depth) + "f"
}

// TestExtractLimits is issue 26's item 9: an archive with a deep name (one
// entry), with more directories than PostgreSQL's tree could need, with a
// long name, or extracted under a cancelled context, is refused with a
// message naming the limit. The time each refusal took is logged (depth
// 1,000 took 2.1 s and 4,000 took 38 s before: quadratic).
func TestExtractLimits(t *testing.T) {
	ctx := context.Background()
	for _, depth := range []int{maxDepth, 1000, 4000} {
		data := tarOf(t, &tar.Header{Name: deepName(depth), Typeflag: tar.TypeReg, Mode: 0o644, Size: 1})
		err, took := extractInto(t, ctx, data)
		t.Logf("depth %d (%d bytes of name): %v in %v", depth, len(deepName(depth)), err, took.Round(time.Millisecond))
		if err == nil || !strings.Contains(err.Error(), "levels") {
			t.Errorf("depth %d: %v, want refused for its levels", depth, err)
		}
	}
	// At the limit, fine.
	ok := tarOf(t, &tar.Header{Name: deepName(maxDepth - 1), Typeflag: tar.TypeReg, Mode: 0o644, Size: 1})
	if err, _ := extractInto(t, ctx, ok); err != nil {
		t.Errorf("depth %d: %v", maxDepth, err)
	}

	long := strings.Repeat(strings.Repeat("n", 200)+"/", 3) + "f" // 604 bytes, 4 levels
	if err, _ := extractInto(t, ctx, tarOf(t, &tar.Header{Name: long, Typeflag: tar.TypeReg, Mode: 0o644, Size: 1})); err == nil || !strings.Contains(err.Error(), "bytes") {
		t.Errorf("a %d-byte name: %v, want refused for its length", len(long), err)
	}

	// Directories: given as entries, and implied by the files in them.
	var given, implied []*tar.Header
	for i := 0; i <= maxDirs; i++ {
		given = append(given, &tar.Header{Name: "d" + strconv.Itoa(i) + "/", Typeflag: tar.TypeDir, Mode: 0o755})
		implied = append(implied, &tar.Header{Name: "d" + strconv.Itoa(i) + "/f", Typeflag: tar.TypeReg, Mode: 0o644})
	}
	for name, hs := range map[string][]*tar.Header{"given": given, "implied": implied} {
		err, took := extractInto(t, ctx, tarOf(t, hs...))
		t.Logf("%d directories %s: %v in %v", len(hs), name, err, took.Round(time.Millisecond))
		if err == nil || !strings.Contains(err.Error(), "directories") {
			t.Errorf("%d directories %s: %v, want refused", len(hs), name, err)
		}
	}

	// The context: cancelled before, and during a long extraction.
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	small := tarOf(t, &tar.Header{Name: "bin/initdb", Typeflag: tar.TypeReg, Mode: 0o755, Size: 1})
	if err, _ := extractInto(t, cancelled, small); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled context: %v, want context.Canceled", err)
	}
	var many []*tar.Header
	for i := 0; i < 1000; i++ {
		many = append(many, &tar.Header{Name: "f" + strconv.Itoa(i), Typeflag: tar.TypeReg, Mode: 0o644, Size: 1})
	}
	data := tarOf(t, many...)
	during, cancel := context.WithCancel(ctx)
	n := 0
	r := &cancelAfter{r: bytes.NewReader(data), n: &n, after: len(data) / 2, cancel: cancel}
	dir := filepath.Join(t.TempDir(), "x")
	os.Mkdir(dir, 0o700)
	root, _ := os.OpenRoot(dir)
	defer root.Close()
	if err := extractTar(during, tar.NewReader(r), root); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled half-way: %v, want context.Canceled", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) >= 1000 {
		t.Errorf("cancelled half-way, yet all %d files were extracted", len(entries))
	}
}

// cancelAfter reads r and calls cancel once more than after bytes were read.
type cancelAfter struct {
	r      *bytes.Reader
	n      *int
	after  int
	cancel func()
}

func (c *cancelAfter) Read(p []byte) (int, error) {
	if len(p) > 512 {
		p = p[:512]
	}
	k, err := c.r.Read(p)
	if *c.n += k; *c.n > c.after {
		c.cancel()
	}
	return k, err
}
