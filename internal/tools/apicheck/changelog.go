package main

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// The rule for breaking changes (pre-1.0: a minor version may break the
// API, and every break is named in the CHANGELOG under that version):
//
// A line of the baseline's listing that the new listing lacks (a removed
// name or a changed signature, type, field or value) is a break. It is
// allowed only if the CHANGELOG names its identifier in a bullet that
// starts with "**Breaking:**", under "### Changed" or "### Removed" of
// "## [Unreleased]" (or of a version newer than the baseline's), inside
// backquotes, package-qualified: `ulidtype.ULID.IsZero` names that
// method, `opaque.Key` names the type and all its fields and methods.

// A bullet is one "- " item of a CHANGELOG section, continuation lines
// joined.
type bullet struct {
	Version string // "Unreleased" or the release's version, without the v
	Sub     string // "Changed", "Removed", …
	Text    string
	Line    int
}

var headingRE = regexp.MustCompile(`^## \[([^\]]+)\]`)

// parseChangelog returns the bullets of [Unreleased] and of the versions
// newer than stop (the baseline release; "" for [Unreleased] only).
func parseChangelog(text, stop string) []bullet {
	var out []bullet
	version, sub := "", ""
	var cur *bullet
	flush := func() {
		if cur != nil {
			out = append(out, *cur)
			cur = nil
		}
	}
	for i, line := range strings.Split(text, "\n") {
		if m := headingRE.FindStringSubmatch(line); m != nil {
			flush()
			v := strings.TrimPrefix(m[1], "v")
			if v != "Unreleased" && (stop == "" || !newer(v, stop)) {
				break
			}
			version, sub = v, ""
			continue
		}
		if strings.HasPrefix(line, "## ") {
			flush()
			if version != "" {
				break
			}
			continue
		}
		if version == "" {
			continue
		}
		switch {
		case strings.HasPrefix(line, "### "):
			flush()
			sub = strings.TrimSpace(strings.TrimPrefix(line, "### "))
		case strings.HasPrefix(line, "- "):
			flush()
			cur = &bullet{Version: version, Sub: sub, Text: strings.TrimPrefix(line, "- "), Line: i + 1}
		case cur != nil && strings.HasPrefix(line, "  "):
			cur.Text += " " + strings.TrimSpace(line)
		default:
			flush()
		}
	}
	flush()
	return out
}

// newer reports whether version v (X.Y.Z, with or without the v) is newer
// than stop; a heading that is no version counts as older.
func newer(v, stop string) bool {
	a, okA := parseVersion(v)
	b, okB := parseVersion(stop)
	if !okA || !okB {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return a[i] > b[i]
		}
	}
	return false
}

func parseVersion(v string) ([3]int, bool) {
	var out [3]int
	parts := strings.Split(strings.TrimPrefix(v, "v"), ".")
	if len(parts) != 3 {
		return out, false
	}
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return out, false
		}
		out[i] = n
	}
	return out, true
}

var (
	codeRE  = regexp.MustCompile("`([^`]+)`")
	identRE = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+`)
)

// breakingNames returns the package-qualified names the breaking bullets
// mention in backquotes, each with the bullet naming it.
func breakingNames(bullets []bullet) map[string]bullet {
	names := map[string]bullet{}
	for _, b := range bullets {
		if (b.Sub != "Changed" && b.Sub != "Removed") || !strings.HasPrefix(b.Text, "**Breaking:**") {
			continue
		}
		for _, code := range codeRE.FindAllStringSubmatch(b.Text, -1) {
			for _, id := range identRE.FindAllString(code[1], -1) {
				if _, ok := names[id]; !ok {
					names[id] = b
				}
			}
		}
	}
	return names
}

// covered returns the bullet that names ident (pkg.Name, pkg.Type.Member),
// itself or a prefix of it of at least two parts.
func covered(ident string, names map[string]bullet) (bullet, bool) {
	for id := ident; strings.Contains(id, "."); id = id[:strings.LastIndex(id, ".")] {
		if b, ok := names[id]; ok {
			return b, true
		}
	}
	return bullet{}, false
}

// identOf returns the package-qualified identifier a listing line is about:
// "pkg P, method (*T) M(…)" is about name.T.M, "pkg P, type T struct, F int"
// about name.T.F.
func identOf(line string) (string, error) {
	rest, ok := strings.CutPrefix(line, "pkg ")
	if !ok {
		return "", fmt.Errorf("not a listing line: %q", line)
	}
	i := strings.IndexAny(rest, " ,")
	if i < 0 {
		return "", fmt.Errorf("not a listing line: %q", line)
	}
	pkgPath, rest := rest[:i], rest[i:]
	if strings.HasPrefix(rest, " (") { // the targets
		_, rest, _ = strings.Cut(rest, ")")
	}
	rest, ok = strings.CutPrefix(rest, ", ")
	if !ok {
		return "", fmt.Errorf("not a listing line: %q", line)
	}
	pkg := pkgPath[strings.LastIndex(pkgPath, "/")+1:]
	kind, rest, _ := strings.Cut(rest, " ")
	name := func(s string) string {
		end := strings.IndexAny(s, " [(=,")
		if end < 0 {
			return s
		}
		return s[:end]
	}
	switch kind {
	case "const", "var", "func":
		return pkg + "." + name(rest), nil
	case "method":
		recv, m, ok := strings.Cut(rest, ") ")
		if !ok {
			return "", fmt.Errorf("not a method line: %q", line)
		}
		recv = strings.TrimLeft(strings.TrimPrefix(recv, "("), "*")
		return pkg + "." + name(recv) + "." + name(m), nil
	case "type":
		t := name(rest)
		member := ""
		if _, after, ok := strings.Cut(rest, " struct, "); ok {
			member = strings.TrimPrefix(after, "embedded ")
			member = strings.TrimLeft(member, "*")
			if j := strings.LastIndex(name(member), "."); j >= 0 && strings.HasPrefix(after, "embedded ") {
				member = member[j+1:]
			}
			member = name(member)
		} else if _, after, ok := strings.Cut(rest, " interface, "); ok {
			member = name(after)
		}
		if member != "" {
			return pkg + "." + t + "." + member, nil
		}
		return pkg + "." + t, nil
	}
	return "", fmt.Errorf("unknown kind %q in %q", kind, line)
}
