//go:build unix

package pgserver

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ulikunitz/xz"
)

// extractJar extracts the .txz inside jar (a zip) into dir, until ctx is
// done.
func extractJar(ctx context.Context, jar []byte, dir string) error {
	zr, err := zip.NewReader(bytes.NewReader(jar), int64(len(jar)))
	if err != nil {
		return err
	}
	var txz *zip.File
	for _, f := range zr.File {
		if strings.HasSuffix(f.Name, ".txz") && !f.FileInfo().IsDir() {
			if txz != nil {
				return fmt.Errorf("two .txz files in the jar: %s and %s", txz.Name, f.Name)
			}
			txz = f
		}
	}
	if txz == nil {
		return errors.New("no .txz file in the jar")
	}
	rc, err := txz.Open()
	if err != nil {
		return err
	}
	defer rc.Close()
	xr, err := xz.NewReader(rc)
	if err != nil {
		return err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	return extractTar(ctx, ctxReader{ctx, xr}, root)
}

// Limits on the bytes of the tar stream that are not file contents: the
// headers, with the PAX records and GNU long names archive/tar reads (any
// number of them) before an entry, and what it skips.
const (
	maxEntryHeaders = 64 << 10 // one entry's (PostgreSQL 18's: 512 bytes)
	maxHeaders      = 64 << 20 // all entries' (PostgreSQL 18's: ~1.5 MiB)
)

// errHeaderBudget is what headerBudget's reader fails with.
var errHeaderBudget = errors.New("header budget exceeded")

// extractTar writes the directories, regular files and symbolic links of
// the tar stream r into root: names and link targets must stay inside it,
// modes lose set-id bits and every write bit but the owner's, and nothing
// already there is overwritten. Names have at most maxDepth levels and
// maxName bytes, there are at most maxEntries entries and maxDirs
// directories (given or implied), the headers of an entry (PAX records and
// long names included) take at most maxEntryHeaders bytes of r and those
// of all entries maxHeaders, and ctx is checked before every entry.
func extractTar(ctx context.Context, r io.Reader, root *os.Root) (err error) {
	defer func() {
		// A read cut short by ctx says so, whatever the reader made of it.
		if err != nil && ctx.Err() != nil && !errors.Is(err, ctx.Err()) {
			err = fmt.Errorf("%w (%v)", ctx.Err(), err)
		}
	}()
	br := &budgetReader{r: r, limit: -1}
	tr := tar.NewReader(br)
	x := extractor{root: root, dirs: map[string]bool{}}
	var headers int64
	for n := 0; ; n++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		// archive/tar reads all PAX and long-name headers before an entry
		// within Next: bound what it may read there.
		before := br.n
		br.limit = before + min(maxEntryHeaders, maxHeaders-headers)
		h, err := tr.Next()
		br.limit = -1
		headers += br.n - before
		if errors.Is(err, errHeaderBudget) {
			if headers >= maxHeaders {
				return fmt.Errorf("entry %d: more than %d MiB of headers in all (PAX records, long names)", n+1, maxHeaders>>20)
			}
			return fmt.Errorf("entry %d: more than %d KiB of headers (PAX records, long names) before it", n+1, maxEntryHeaders>>10)
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if n >= maxEntries {
			return fmt.Errorf("more than %d entries", maxEntries)
		}
		if err := x.entry(h, tr); err != nil {
			return err
		}
	}
}

// extractor is the state of one extractTar: the root it writes into, the
// directories made (or found) so far and the bytes of files written.
type extractor struct {
	root *os.Root
	// Every directory made (or found) is remembered: each level of a name
	// is made once, not once per entry below it, and they are counted.
	dirs  map[string]bool
	total int64
}

// entry checks the name of h and writes it, with the file's content from tr.
func (x *extractor) entry(h *tar.Header, tr *tar.Reader) error {
	name, err := entryName(h)
	if err != nil || name == "." {
		return err
	}
	if err := x.mkdir(path.Dir(name)); err != nil {
		return err
	}
	switch h.Typeflag {
	case tar.TypeDir:
		return x.mkdir(name)
	case tar.TypeReg:
		return x.file(h, name, tr)
	case tar.TypeSymlink, tar.TypeLink:
		return x.link(h, name)
	default:
		return fmt.Errorf("entry %q has type %q, want a directory, a file or a link", h.Name, h.Typeflag)
	}
}

// entryName is the clean name of h, "." for the archive's root, or an error
// when the name leaves the directory, is too deep or too long (or its link
// target is).
func entryName(h *tar.Header) (string, error) {
	name := path.Clean(strings.TrimPrefix(h.Name, "./"))
	if name == "." {
		return name, nil
	}
	if !filepath.IsLocal(name) {
		return "", fmt.Errorf("entry %.200q leaves the directory", h.Name)
	}
	if depth := strings.Count(name, "/") + 1; depth > maxDepth {
		return "", fmt.Errorf("entry %.64q (%d bytes): %d levels, more than %d", h.Name, len(h.Name), depth, maxDepth)
	}
	if len(name) > maxName || len(h.Linkname) > maxName {
		return "", fmt.Errorf("entry %.64q (%d bytes, link to %d bytes): a name of more than %d bytes", h.Name, len(h.Name), len(h.Linkname), maxName)
	}
	return name, nil
}

// mkdir makes directory d and those above it, mode 0755, or finds them.
func (x *extractor) mkdir(d string) error {
	if d == "." || x.dirs[d] {
		return nil
	}
	if err := x.mkdir(path.Dir(d)); err != nil {
		return err
	}
	if len(x.dirs) >= maxDirs {
		return fmt.Errorf("more than %d directories", maxDirs)
	}
	if err := x.root.Mkdir(d, 0o755); err != nil {
		if !errors.Is(err, fs.ErrExist) {
			return err
		}
		if fi, err := x.root.Stat(d); err != nil || !fi.IsDir() {
			return fmt.Errorf("%s: not a directory", d)
		}
	}
	if err := x.root.Chmod(d, 0o755); err != nil { // past the umask
		return err
	}
	x.dirs[d] = true
	return nil
}

// file writes the regular file h, named name, with its content from tr.
func (x *extractor) file(h *tar.Header, name string, tr *tar.Reader) error {
	// A sparse file's Size is its logical size: a few bytes of
	// archive could make gigabytes of zeros. PostgreSQL's has none.
	for k := range h.PAXRecords {
		if strings.HasPrefix(k, "GNU.sparse.") {
			return fmt.Errorf("entry %q is a sparse file", h.Name)
		}
	}
	if x.total += h.Size; h.Size < 0 || x.total > maxExtracted {
		return fmt.Errorf("more than %d MiB of files", maxExtracted>>20)
	}
	mode := fs.FileMode(0o644)
	if h.Mode&0o111 != 0 {
		mode = 0o755
	}
	f, err := x.root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	_, err = io.CopyN(f, tr, h.Size)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	// O_CREATE's mode went through the umask.
	return x.root.Chmod(name, mode)
}

// link makes the symbolic or hard link h, named name, whose target must
// stay inside the directory.
func (x *extractor) link(h *tar.Header, name string) error {
	target := h.Linkname
	if h.Typeflag == tar.TypeSymlink {
		target = path.Join(path.Dir(name), h.Linkname)
	}
	// No ".." in a link at all: checked as text, "up/../x" after
	// "up -> .." would leave the directory.
	if path.IsAbs(h.Linkname) || !filepath.IsLocal(target) || slices.Contains(strings.Split(h.Linkname, "/"), "..") {
		return fmt.Errorf("link %q -> %q leaves the directory", h.Name, h.Linkname)
	}
	if h.Typeflag == tar.TypeSymlink {
		return x.root.Symlink(h.Linkname, name)
	}
	// A hard link to a symbolic link would move the link to another
	// directory, where its target means another place.
	if fi, err := x.root.Lstat(target); err == nil && !fi.Mode().IsRegular() {
		return fmt.Errorf("hard link %q -> %q: not to a regular file", h.Name, h.Linkname)
	}
	return x.root.Link(target, name)
}

// budgetReader is r, counting the bytes read, failing with
// errHeaderBudget rather than read past limit (when not negative).
type budgetReader struct {
	r     io.Reader
	n     int64
	limit int64
}

func (b *budgetReader) Read(p []byte) (int, error) {
	if b.limit >= 0 {
		if b.n >= b.limit {
			return 0, errHeaderBudget
		}
		if rest := b.limit - b.n; int64(len(p)) > rest {
			p = p[:rest]
		}
	}
	k, err := b.r.Read(p)
	b.n += int64(k)
	return k, err
}

// ctxReader is r, failing with ctx's error once ctx is done.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
