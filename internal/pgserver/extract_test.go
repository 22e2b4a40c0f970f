//go:build unix

package pgserver

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
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
	err = extractTar(ctx, bytes.NewReader(data), root)
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
	t.Parallel()
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
	if err := extractTar(during, r, root); !errors.Is(err, context.Canceled) {
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

// rawHeader is a ustar header block of type typeflag for name, of size
// bytes: the test writes what tar.Writer would not (PAX and long-name
// headers of its own).
func rawHeader(typeflag byte, name string, size int) []byte {
	b := make([]byte, 512)
	copy(b, name)
	copy(b[100:], "0000644\x00")
	copy(b[108:], "0000000\x00")
	copy(b[116:], "0000000\x00")
	copy(b[124:], fmt.Sprintf("%011o\x00", size))
	copy(b[136:], "00000000000\x00")
	b[156] = typeflag
	copy(b[257:], "ustar\x0000")
	copy(b[148:], "        ")
	sum := 0
	for _, c := range b {
		sum += int(c)
	}
	copy(b[148:], fmt.Sprintf("%06o\x00 ", sum))
	return b
}

// padded is b padded to whole blocks.
func padded(b []byte) []byte { return append(b, make([]byte, (512-len(b)%512)%512)...) }

// paxRecords is about size bytes of PAX records "comment=...".
func paxRecords(size int) []byte {
	var b bytes.Buffer
	rec := "100 comment=" + strings.Repeat("v", 87) + "\n" // 100 bytes
	for b.Len()+len(rec) <= size {
		b.WriteString(rec)
	}
	return b.Bytes()
}

// countingReader counts the bytes read from r.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	k, err := c.r.Read(p)
	c.n += int64(k)
	return k, err
}

// TestExtractPAXBudget is issue 34's item 10: PAX headers (and GNU long
// names), which archive/tar reads itself, any number of them before an
// entry, count against limits: 500 MiB of PAX and long-name headers
// before one entry, and 60 KiB of PAX records before each of 2,000
// entries (117 MiB), are refused quickly, having read little more than
// the limits.
func TestExtractPAXBudget(t *testing.T) {
	ctx := context.Background()
	extract := func(r io.Reader) (error, time.Duration) {
		dir := filepath.Join(t.TempDir(), "x")
		os.Mkdir(dir, 0o700)
		root, err := os.OpenRoot(dir)
		if err != nil {
			t.Fatal(err)
		}
		defer root.Close()
		began := time.Now()
		err = extractTar(ctx, r, root)
		return err, time.Since(began)
	}
	end := append(append(rawHeader('0', "f", 1), padded([]byte("x"))...), make([]byte, 1024)...)

	// Before one entry: 250 PAX headers and 250 long names of ~1 MiB each
	// (archive/tar's limit for one), one buffer read again and again.
	rec := paxRecords(1<<20 - 1024)
	name := bytes.Repeat([]byte("n"), 1<<20-1024)
	pax := append(rawHeader('x', "pax", len(rec)), padded(rec)...)
	long := append(rawHeader('L', "././@LongLink", len(name)), padded(name)...)
	var parts []io.Reader
	for i := 0; i < 250; i++ {
		parts = append(parts, bytes.NewReader(pax), bytes.NewReader(long))
	}
	in := &countingReader{r: io.MultiReader(append(parts, bytes.NewReader(end))...)}
	err, took := extract(in)
	t.Logf("%d MiB of headers before one entry: %v in %v, %d KiB read", 500, err, took.Round(time.Millisecond), in.n>>10)
	if err == nil || !strings.Contains(err.Error(), "headers") {
		t.Errorf("500 MiB of headers before one entry: %v, want refused for its headers", err)
	}
	if took > 2*time.Second || in.n > 2*maxEntryHeaders {
		t.Errorf("refusing took %v and %d KiB, want under 2 s and %d KiB", took, in.n>>10, 2*maxEntryHeaders>>10)
	}

	// Before each of 2,000 entries, 60 KiB of records (one buffer read
	// again and again, as above).
	rec = paxRecords(60 << 10)
	pax = append(rawHeader('x', "pax", len(rec)), padded(rec)...)
	parts, size := nil, 0
	for i := 0; i < 2000; i++ {
		entry := append(rawHeader('0', "f"+strconv.Itoa(i), 1), padded([]byte("x"))...)
		parts = append(parts, bytes.NewReader(pax), bytes.NewReader(entry))
		size += len(pax) + len(entry)
	}
	parts = append(parts, bytes.NewReader(make([]byte, 1024)))
	size += 1024
	in = &countingReader{r: io.MultiReader(parts...)}
	err, took = extract(in)
	t.Logf("%d entries with 60 KiB of PAX records each (%d MiB): %v in %v, %d MiB read", 2000, size>>20, err, took.Round(time.Millisecond), in.n>>20)
	if err == nil || !strings.Contains(err.Error(), "headers in all") {
		t.Errorf("%d MiB of PAX records over 2,000 entries: %v, want refused for its headers", size>>20, err)
	}
	if in.n > maxHeaders+2<<20 {
		t.Errorf("read %d MiB, want little more than %d MiB", in.n>>20, maxHeaders>>20)
	}
}
