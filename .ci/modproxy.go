//go:build ignore

// Modproxy writes a Go module proxy on disk (the GOPROXY protocol's files:
// MODULE/@v/list, VERSION.info, VERSION.mod, VERSION.zip) holding pgid's
// released modules as the working tree has them, so that they can be
// installed without go.work and replace directives before the version is
// on proxy.golang.org. Use the directory as
// GOPROXY=file://DIR,https://proxy.golang.org with GONOSUMDB=github.com/pgid.
//
//	go run .ci/modproxy.go -out DIR -tree VERSION [-write]
//
// The working tree (tracked and untracked-but-not-ignored files, as on
// disk) is served as VERSION; every require of the library or sqlc is
// rewritten to VERSION in the served go.mod and go.sum, as a release does.
// -write also writes those go.mod/go.sum changes into the working tree, in
// every module of go.work, and VERSION into go.work's replace lines (what
// .ci/release commits).
//
// The zips follow the module zip format (golang.org/x/mod/zip): names are
// MODULE@VERSION/PATH; files of nested modules, vendor directories and
// anything but regular files are left out; a module in a subdirectory
// without a LICENSE gets the repository's (as cmd/go and proxy.golang.org
// do). It prints each module's h1: hash, the one go.sum records; .ci/release
// checks them against cmd/go's own zips of the tags.
//
// Standard library only, so `go run` needs nothing from the network.
package main

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"
)

// tagged are the directories of the modules that are tagged in lockstep, in
// an order in which every module comes after the modules it requires (a
// module's zip holds its go.sum, which holds the hashes of those): the
// library, which requires no other module of the repository, first.
// Released: the library and cmd/pgid. sqlc is tagged only because
// integration_test requires it; it is an example, not a supported API.
var tagged = []string{".", "sqlc", "cmd/pgid"}

const repoPath = "github.com/pgid/pgid"

func modulePath(dir string) string {
	if dir == "." {
		return repoPath
	}
	return repoPath + "/" + dir
}

// file is one file of the repository: its slash path from the repository
// root and its content.
type file struct {
	name string
	data []byte
}

func main() {
	out := flag.String("out", "", "proxy `directory` to write (versions already there stay)")
	tree := flag.String("tree", "", "zip the working tree as `version`")
	write := flag.Bool("write", false, "write the rewritten go.mod/go.sum/go.work into the working tree")
	flag.Parse()
	if *out == "" || *tree == "" || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: go run .ci/modproxy.go -out DIR -tree VERSION [-write]")
		os.Exit(2)
	}
	if err := fromTree(*out, *tree, *write); err != nil {
		fmt.Fprintln(os.Stderr, "modproxy:", err)
		os.Exit(1)
	}
}

var versionRE = regexp.MustCompile(`^v(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z.-]+)?$`)

func fromTree(out, version string, write bool) error {
	if !versionRE.MatchString(version) {
		return fmt.Errorf("version %q is not a semantic version vX.Y.Z[-pre]", version)
	}
	files, err := worktree()
	if err != nil {
		return err
	}
	byName := map[string]int{}
	for i, f := range files {
		byName[f.name] = i
	}
	mods, err := workModules(files, byName)
	if err != nil {
		return err
	}
	// go.work's replace directives name the versions the go.mods require
	// (the workspace never asks a proxy for them). go.work is a file of
	// the root module: rewritten before the root is zipped.
	w := byName["go.work"]
	files[w].data = rewriteRequires(files[w].data, version)
	sums := map[string][2]string{} // module path -> h1 of the zip, of the go.mod
	// First the tagged modules in order, so each go.sum gets the hashes
	// of the zips before its own module is zipped, then the others.
	order := append(slices.Clone(tagged), mods...)
	done := map[string]bool{}
	for _, dir := range order {
		if done[dir] {
			continue
		}
		done[dir] = true
		if err := checkNoReplace(files, dir); err != nil {
			return err
		}
		gomod := path.Join(dir, "go.mod")
		i, ok := byName[gomod]
		if !ok {
			return fmt.Errorf("%s: no such file", gomod)
		}
		newMod := rewriteRequires(files[i].data, version)
		files[i].data = newMod
		needs := requiredSiblings(newMod)
		if s, ok := byName[path.Join(dir, "go.sum")]; ok || len(needs) > 0 {
			var old []byte
			if ok {
				old = files[s].data
			}
			newSum, err := rewriteSum(old, needs, version, sums)
			if err != nil {
				return fmt.Errorf("%s: %w", dir, err)
			}
			if ok {
				files[s].data = newSum
			} else {
				files = append(files, file{path.Join(dir, "go.sum"), newSum})
				byName[path.Join(dir, "go.sum")] = len(files) - 1
			}
		}
		if write {
			for _, n := range []string{"go.mod", "go.sum"} {
				if j, ok := byName[path.Join(dir, n)]; ok {
					if err := os.WriteFile(filepath.FromSlash(files[j].name), files[j].data, 0o644); err != nil {
						return err
					}
				}
			}
		}
		if slices.Contains(tagged, dir) {
			h, err := publish(out, dir, version, files, time.Now().UTC().Truncate(time.Second))
			if err != nil {
				return err
			}
			sums[modulePath(dir)] = h
		}
	}
	if write {
		return os.WriteFile("go.work", files[w].data, 0o644)
	}
	return nil
}

// workModules returns the directories of go.work's modules.
func workModules(files []file, byName map[string]int) ([]string, error) {
	i, ok := byName["go.work"]
	if !ok {
		return nil, errors.New("go.work: no such file (run from the repository root)")
	}
	var dirs []string
	inUse := false
	for _, line := range strings.Split(string(files[i].data), "\n") {
		line, _, _ = strings.Cut(line, "//")
		line = strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(line, "use ("):
			inUse = true
		case inUse && line == ")":
			inUse = false
		case inUse && line != "":
			dirs = append(dirs, path.Clean(strings.TrimPrefix(line, "./")))
		case strings.HasPrefix(line, "use "):
			dirs = append(dirs, path.Clean(strings.TrimPrefix(strings.TrimSpace(line[4:]), "./")))
		}
	}
	return dirs, nil
}

// requireRE matches a require line: in a block or on its own.
var requireRE = regexp.MustCompile(`(?m)^(\s*(?:require\s+)?)(\S+)(\s+)(v\S+)`)

func isSibling(p string) bool {
	return slices.ContainsFunc(tagged, func(d string) bool { return modulePath(d) == p })
}

// rewriteRequires sets every require of a tagged module to version.
func rewriteRequires(gomod []byte, version string) []byte {
	return requireRE.ReplaceAllFunc(gomod, func(m []byte) []byte {
		g := requireRE.FindSubmatch(m)
		if !isSibling(string(g[2])) {
			return m
		}
		return []byte(string(g[1]) + string(g[2]) + string(g[3]) + version)
	})
}

// requiredSiblings returns the tagged modules a go.mod requires.
func requiredSiblings(gomod []byte) []string {
	var out []string
	for _, g := range requireRE.FindAllSubmatch(gomod, -1) {
		if p := string(g[2]); isSibling(p) && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

// rewriteSum replaces a go.sum's lines for tagged modules with the hashes
// of the required ones at version, keeping go's order (by module path).
func rewriteSum(old []byte, needs []string, version string, sums map[string][2]string) ([]byte, error) {
	var lines []string
	for _, l := range strings.Split(string(old), "\n") {
		if f := strings.Fields(l); len(f) == 3 && !isSibling(f[0]) {
			lines = append(lines, l)
		}
	}
	for _, p := range needs {
		h, ok := sums[p]
		if !ok {
			return nil, fmt.Errorf("requires %s, which is not zipped before it (fix the order of tagged in .ci/modproxy.go)", p)
		}
		lines = append(lines, p+" "+version+" "+h[0], p+" "+version+"/go.mod "+h[1])
	}
	sort.SliceStable(lines, func(i, j int) bool {
		return strings.Fields(lines[i])[0] < strings.Fields(lines[j])[0]
	})
	if len(lines) == 0 {
		return nil, nil
	}
	return []byte(strings.Join(lines, "\n") + "\n"), nil
}

func checkNoReplace(files []file, dir string) error {
	for _, f := range files {
		if f.name != path.Join(dir, "go.mod") {
			continue
		}
		for _, l := range strings.Split(string(f.data), "\n") {
			if strings.HasPrefix(strings.TrimSpace(l), "replace") {
				return fmt.Errorf("%s has a replace directive (%q): go install and go get ignore or refuse it; develop through go.work instead", f.name, strings.TrimSpace(l))
			}
		}
	}
	return nil
}

// moduleFiles returns the files of the module in dir, named relative to it.
func moduleFiles(files []file, dir string) []file {
	nested := map[string]bool{} // directories of other modules
	for _, f := range files {
		if path.Base(f.name) == "go.mod" && path.Dir(f.name) != dir {
			nested[path.Dir(f.name)] = true
		}
	}
	var out []file
	hasLicense := false
	for _, f := range files {
		rel := f.name
		if dir != "." {
			if !strings.HasPrefix(f.name, dir+"/") {
				continue
			}
			rel = strings.TrimPrefix(f.name, dir+"/")
		}
		skip := false
		for d := path.Dir(f.name); d != "." && d != dir; d = path.Dir(d) {
			if nested[d] || path.Base(d) == "vendor" {
				skip = true
				break
			}
		}
		if skip {
			continue
		}
		if rel == "LICENSE" {
			hasLicense = true
		}
		out = append(out, file{rel, f.data})
	}
	if !hasLicense && dir != "." {
		for _, f := range files {
			if f.name == "LICENSE" {
				out = append(out, file{"LICENSE", f.data})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// publish writes the module in dir at version into the proxy directory and
// returns the h1: hashes of its zip and of its go.mod.
func publish(out, dir, version string, files []file, t time.Time) ([2]string, error) {
	mod := modulePath(dir)
	mf := moduleFiles(files, dir)
	var gomod []byte
	for _, f := range mf {
		if f.name == "go.mod" {
			gomod = f.data
		}
	}
	if gomod == nil {
		return [2]string{}, fmt.Errorf("%s: no go.mod", dir)
	}
	if !bytes.Contains(gomod, []byte("module "+mod+"\n")) {
		return [2]string{}, fmt.Errorf("%s/go.mod does not declare module %s", dir, mod)
	}
	prefix := mod + "@" + version + "/"
	var zbuf bytes.Buffer
	zw := zip.NewWriter(&zbuf)
	var hashed []file
	for _, f := range mf {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: prefix + f.name, Method: zip.Deflate, Modified: time.Date(2019, 10, 30, 0, 0, 0, 0, time.UTC)})
		if err != nil {
			return [2]string{}, err
		}
		if _, err := w.Write(f.data); err != nil {
			return [2]string{}, err
		}
		hashed = append(hashed, file{prefix + f.name, f.data})
	}
	if err := zw.Close(); err != nil {
		return [2]string{}, err
	}
	h := [2]string{hash1(hashed), hash1([]file{{"go.mod", gomod}})}
	vdir := filepath.Join(out, filepath.FromSlash(mod), "@v")
	if err := os.MkdirAll(vdir, 0o755); err != nil {
		return h, err
	}
	info, _ := json.Marshal(struct {
		Version string
		Time    time.Time
	}{version, t.UTC()})
	for name, data := range map[string][]byte{".info": info, ".mod": gomod, ".zip": zbuf.Bytes()} {
		if err := os.WriteFile(filepath.Join(vdir, version+name), data, 0o644); err != nil {
			return h, err
		}
	}
	list, _ := os.ReadFile(filepath.Join(vdir, "list"))
	versions := strings.Fields(string(list))
	if !slices.Contains(versions, version) {
		versions = append(versions, version)
	}
	if err := os.WriteFile(filepath.Join(vdir, "list"), []byte(strings.Join(versions, "\n")+"\n"), 0o644); err != nil {
		return h, err
	}
	fmt.Printf("%s %s %s (%d files)\n", mod, version, h[0], len(mf))
	return h, nil
}

// hash1 is golang.org/x/mod/sumdb/dirhash.Hash1: the SHA-256 of the sorted
// lines "SHA256(content)  NAME\n", base64, prefixed "h1:".
func hash1(files []file) string {
	sort.Slice(files, func(i, j int) bool { return files[i].name < files[j].name })
	h := sha256.New()
	for _, f := range files {
		fmt.Fprintf(h, "%x  %s\n", sha256.Sum256(f.data), f.name)
	}
	return "h1:" + base64.StdEncoding.EncodeToString(h.Sum(nil))
}

// worktree returns the tracked and the untracked-but-not-ignored regular
// files of the working tree, as they are on disk.
func worktree() ([]file, error) {
	out, err := git("ls-files", "-z", "--cached", "--others", "--exclude-standard")
	if err != nil {
		return nil, err
	}
	var files []file
	seen := map[string]bool{}
	for _, name := range strings.Split(string(out), "\x00") {
		if name == "" || seen[name] {
			continue
		}
		seen[name] = true
		fi, err := os.Lstat(filepath.FromSlash(name))
		if errors.Is(err, os.ErrNotExist) {
			continue // deleted, not yet committed
		}
		if err != nil {
			return nil, err
		}
		if !fi.Mode().IsRegular() {
			continue
		}
		data, err := os.ReadFile(filepath.FromSlash(name))
		if err != nil {
			return nil, err
		}
		files = append(files, file{name, data})
	}
	return files, nil
}

func git(args ...string) ([]byte, error) {
	cmd := exec.Command("git", args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}
