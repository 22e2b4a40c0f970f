//go:build unix

package pgserver

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// An installed PostgreSQL (SourceSystem): where to look for one, and the
// checks its files must pass before pgid runs them as root or as you.

// installedBinaries returns the bin directory of the first installed
// PostgreSQL that passes the checks, noting each that does not; bin is ""
// when none does. The error is ctx's, when it ends the search.
func (o *EmbeddedOptions) installedBinaries(ctx context.Context, cred *credential, note func(src, where string, err error)) (bin, origin string, err error) {
	r := pathRule{use: "an installed PostgreSQL", fix: "set " + EnvBinaries + " to another, or " + EnvSource + "=" + SourceNPM + " to download one", othersEnter: cred != nil}
	for _, c := range o.systemCandidates(ctx, r, note) {
		bin, origin, err := systemBinaries(ctx, r, c)
		if ctx.Err() != nil {
			return "", "", ctx.Err()
		}
		if err == nil {
			return bin, origin, nil
		}
		note(SourceSystem, c.bin, err)
	}
	return "", "", nil
}

// systemCandidate is a bin directory that may hold an installed PostgreSQL.
type systemCandidate struct {
	bin   string // as found
	how   string // how it was found, for people
	major int    // from the path; 0 when not known
}

// systemCandidates lists the bin directories to try, in order: the one
// `pg_config --bindir` names, then those of o's globs, highest major
// first. A pg_config that cannot be run is noted.
func (o *EmbeddedOptions) systemCandidates(ctx context.Context, r pathRule, note func(src, where string, err error)) []systemCandidate {
	places := defaultSystemPlaces
	if o.system != nil {
		places = *o.system
	}
	var out []systemCandidate
	if pc, err := places.pgConfig(); err == nil {
		if lines, err := pgConfig(ctx, r, pc, "--bindir"); err != nil {
			note(SourceSystem, pc, err)
		} else {
			out = append(out, systemCandidate{bin: lines[0], how: pc + " --bindir"})
		}
	}
	var globbed []systemCandidate
	for _, g := range places.globs {
		matches, _ := filepath.Glob(g)
		pre, post, _ := strings.Cut(g, "*")
		for _, m := range matches {
			n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(m, pre), post))
			if err != nil {
				continue // "latest", "16.x"
			}
			if n < minMajor {
				note(SourceSystem, m, fmt.Errorf("PostgreSQL %d: pgid needs %d or later", n, minMajor))
				continue
			}
			globbed = append(globbed, systemCandidate{bin: m, how: "looking in " + g, major: n})
		}
	}
	slices.SortStableFunc(globbed, func(a, b systemCandidate) int { return b.major - a.major })
	for _, c := range globbed {
		if !slices.ContainsFunc(out, func(o systemCandidate) bool { return filepath.Clean(o.bin) == filepath.Clean(c.bin) }) {
			out = append(out, c)
		}
	}
	return out
}

// systemBinaries checks the installed PostgreSQL in c.bin as the Binaries
// option's are: every level of c.bin and of its initdb and postgres, and
// every file of the share and lib directories its pg_config names (or, with
// no pg_config, of the directory above bin), must be root's or this user's
// and writable by no one else. It returns the bin directory and how it was
// found.
func systemBinaries(ctx context.Context, r pathRule, c systemCandidate) (bin, origin string, err error) {
	bin, err = resolvePath(r, c.bin, true)
	if err != nil {
		return "", "", err
	}
	if err := executables(bin); err != nil {
		return "", "", fmt.Errorf("no %w", err)
	}
	for _, b := range []string{"initdb", "postgres"} {
		if _, err := resolvePath(r, filepath.Join(bin, b), true); err != nil {
			return "", "", err
		}
	}
	major := c.major
	if _, err := os.Lstat(filepath.Join(bin, "pg_config")); err == nil {
		lines, err := pgConfig(ctx, r, filepath.Join(bin, "pg_config"), "--version", "--sharedir", "--pkglibdir")
		if err != nil {
			return "", "", err
		}
		if m := parseMajor(lines[0]); m != 0 {
			major = m
		}
		for _, d := range lines[1:] {
			if _, err := checkTree(r, d); err != nil {
				return "", "", err
			}
		}
	} else {
		// Without pg_config, the share and lib directories are found next
		// to bin, in the directory above it: unless that is shared with
		// everything else (/usr), check it whole.
		prefix := filepath.Dir(bin)
		switch prefix {
		case "/", "/usr", "/usr/local", "/opt/homebrew", "/opt/local":
			return "", "", fmt.Errorf("no bin/pg_config to say where its share and lib directories are")
		}
		if _, err := checkTree(r, prefix); err != nil {
			return "", "", err
		}
	}
	if major != 0 && major < minMajor {
		return "", "", fmt.Errorf("PostgreSQL %d: pgid needs %d or later", major, minMajor)
	}
	what := "PostgreSQL"
	if major != 0 {
		what += " " + strconv.Itoa(major)
	}
	return bin, what + " installed in " + bin + ", found by " + c.how, nil
}

// pgConfig runs the pg_config at p, once every level of it has passed r,
// and returns its output lines (one per argument).
func pgConfig(ctx context.Context, r pathRule, p string, args ...string) ([]string, error) {
	exe, err := resolvePath(r, p, true)
	if err != nil {
		return nil, err
	}
	if fi, err := os.Stat(exe); err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 {
		return nil, fmt.Errorf("%s is not an executable file", exe)
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	var out, stderr bytes.Buffer
	cmd := command(ctx, exe, args...)
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%s %s: %w: %s", p, strings.Join(args, " "), err, tail(stderr.Bytes()))
	}
	if out.Len() > 64<<10 {
		return nil, fmt.Errorf("%s %s printed %d bytes", p, strings.Join(args, " "), out.Len())
	}
	lines := strings.Split(strings.TrimRight(out.String(), "\n"), "\n")
	if len(lines) != len(args) {
		return nil, fmt.Errorf("%s %s printed %q, want a line for each", p, strings.Join(args, " "), lines)
	}
	for i, l := range lines {
		if args[i] != "--version" && !filepath.IsAbs(l) {
			return nil, fmt.Errorf("%s %s printed %q, not an absolute path", p, args[i], l)
		}
	}
	return lines, nil
}

// parseMajor returns the major version in "PostgreSQL 15.20 (Debian...)" or
// "PostgreSQL 18beta1", or 0.
func parseMajor(version string) int {
	f := strings.Fields(version)
	if len(f) < 2 || f[0] != "PostgreSQL" {
		return 0
	}
	end := strings.IndexFunc(f[1], func(r rune) bool { return r < '0' || r > '9' })
	if end < 0 {
		end = len(f[1])
	}
	n, _ := strconv.Atoi(f[1][:end])
	return n
}
