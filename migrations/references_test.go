package migrations_test

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

var (
	// sqlRef: a migration file as code and docs name it: NNN_name.sql (a
	// versioned file), NN_name.sql or functions/name.sql (a function file),
	// optionally after migrations/.
	sqlRef = regexp.MustCompile(`(?:^|[^\w/.-])((?:migrations/)?(?:functions/)?\w+\.sql)\b`)
	// goRef: a Go file named by its path in the repository (dir/name.go).
	goRef = regexp.MustCompile(`(?:^|[^\w/.-])((?:[\w.-]+/)+[\w.-]+\.go)\b`)
	// frozen: the released versioned files, which never change: their
	// comments name the function files of their release (see the package
	// doc).
	frozen = regexp.MustCompile(`^migrations/00[1-6]_\w+\.sql$`)
	// empty: the versioned files that hold no statement (the functions of
	// their versions are in functions/*.sql now): only tests name them, as
	// rows of the version table.
	empty = regexp.MustCompile(`^migrations/00[2-6]_\w+\.sql$`)
	// numbered: a migration file's name (NN_ a function file, NNN_ a
	// versioned one).
	numbered  = regexp.MustCompile(`^\d{2,3}_`)
	versioned = regexp.MustCompile(`^\d{3}_`)
)

// referenceAllowed are names that do not exist in the repository and are
// meant: the files they are in, and why.
var referenceAllowed = map[string][]string{
	// doc.go explains, below the package clause, what the frozen files'
	// comments name.
	"migrations/doc.go": {"functions/04_partitions.sql", "functions/06_partition_safety.sql", "functions/05_uuidv7.sql"},
	// A version from a newer pgid, made up by the test.
	"migrations/migrations_db_test.go": {"999_future.sql"},
	// What entc writes in the user's project.
	"integration_test/orm/ent_test.go": {"ent/migrate/schema.go"},
}

// TestFileReferences: every migration file (NNN_*.sql, functions/*.sql) and
// every Go file path that a Go file (code, comments, tests), a Markdown file
// or an SQL file of the repository names exists, and only tests name the
// empty versioned files 002 to 006. Left out: CHANGELOG.md (it names the
// files of past releases), the frozen versioned files 001 to 006, and the
// released files in integration_test/testdata/history.
func TestFileReferences(t *testing.T) {
	for _, f := range repoFiles(t, "migrations/references_test.go") {
		for i, line := range f.lines {
			for _, name := range references(line) {
				if slices.Contains(referenceAllowed[f.rel], name) {
					continue
				}
				if _, err := os.Stat(filepath.Join("..", filepath.FromSlash(resolve(name)))); err != nil {
					t.Errorf("%s:%d names %s, which does not exist (%s)", f.rel, i+1, name, resolve(name))
				} else if empty.MatchString(resolve(name)) && !strings.HasSuffix(f.rel, "_test.go") {
					t.Errorf("%s:%d names %s, which holds no statement: name the functions/*.sql file that defines what it means", f.rel, i+1, name)
				}
			}
		}
	}
}

// references returns the migration files and Go file paths line names.
func references(line string) []string {
	var out []string
	for _, m := range sqlRef.FindAllStringSubmatch(line, -1) {
		name := strings.TrimPrefix(m[1], "migrations/")
		if strings.HasPrefix(name, "functions/") || numbered.MatchString(name) {
			out = append(out, m[1])
		}
	}
	for _, m := range goRef.FindAllStringSubmatch(line, -1) {
		if first, _, _ := strings.Cut(m[1], "/"); !strings.Contains(first, ".") { // not github.com/...
			out = append(out, m[1])
		}
	}
	return out
}

// resolve returns the path in the repository of a name references found.
func resolve(name string) string {
	if !strings.HasSuffix(name, ".sql") {
		return name
	}
	base := strings.TrimPrefix(name, "migrations/")
	switch {
	case strings.HasPrefix(base, "functions/"):
		return "migrations/" + base
	case versioned.MatchString(base):
		return "migrations/" + base
	}
	return "migrations/functions/" + base
}
