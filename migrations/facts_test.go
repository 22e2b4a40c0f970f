package migrations_test

import (
	"bufio"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/pgid/pgid/internal/sqlstate"
	"github.com/pgid/pgid/migrations"
	"github.com/pgid/pgid/tail"
)

// repoFile is a file of the repository that names functions, files or
// SQLSTATEs: its path from the root and its lines.
type repoFile struct {
	rel   string
	lines []string
}

// repoFiles returns the Go, Markdown and SQL files of the repository, less
// what names the past: CHANGELOG.md, the frozen versioned files 001 to 006
// and the released files in integration_test/testdata/history; and less
// the tests of the references themselves, skip. It skips the test outside
// the repository and fails it if the walk finds fewer than 100 files.
func repoFiles(t *testing.T, skip ...string) []repoFile {
	t.Helper()
	root := ".."
	if _, err := os.Stat(filepath.Join(root, "go.work")); err != nil {
		t.Skip("not in the repository (no ../go.work): ", err)
	}
	var files []repoFile
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel == ".git" || rel == "integration_test/testdata/history" {
				return filepath.SkipDir
			}
			return nil
		}
		switch {
		case !slices.Contains([]string{".go", ".md", ".sql"}, path.Ext(rel)),
			rel == "CHANGELOG.md", frozen.MatchString(rel), slices.Contains(skip, rel):
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		files = append(files, repoFile{rel, strings.Split(string(b), "\n")})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 100 {
		t.Fatalf("found %d files; the walk missed the repository", len(files))
	}
	return files
}

// postgresCodes are the SQLSTATEs of PostgreSQL itself that pgid raises,
// maps or documents, with their condition names (errcodes.txt).
var postgresCodes = map[string]string{
	"08P01": "protocol_violation",
	"22021": "character_not_in_repertoire",
	"22P02": "invalid_text_representation",
	"23503": "foreign_key_violation",
	"23505": "unique_violation",
	"23514": "check_violation",
	"25006": "read_only_sql_transaction",
	"2BP01": "dependent_objects_still_exist",
	"3F000": "invalid_schema_name",
	"42501": "insufficient_privilege",
	"42883": "undefined_function",
	"42P01": "undefined_table",
	"55000": "object_not_in_prerequisite_state",
	"55P03": "lock_not_available",
	"57014": "query_canceled",
	"XX000": "internal_error",
}

// ownCodes are the SQLSTATEs of internal/sqlstate, by code.
func ownCodes() map[string]sqlstate.Code {
	m := map[string]sqlstate.Code{}
	for _, c := range sqlstate.Codes {
		m[c.Code] = c
	}
	return m
}

// raise finds a RAISE with an ERRCODE: the level and the code or
// condition name.
var raise = regexp.MustCompile(`(?s)RAISE\s+(EXCEPTION|WARNING|NOTICE)\b[^;]*?ERRCODE\s*=\s*'([^']+)'`)

// The SQL files raise, of pgid's own SQLSTATEs, exactly those of the table
// internal/sqlstate, each in the file the table says and a warning at least
// once as a WARNING (an error never: a warning's code may also be raised
// as an error that the function catches itself); every
// other SQLSTATE they raise is one of PostgreSQL's in postgresCodes; and
// package tail's exported codes are the table's.
func TestSQLStates(t *testing.T) {
	own := ownCodes()
	names := map[string]string{}
	for code, name := range postgresCodes {
		names[name] = code
	}
	raised, warned, n := map[string]bool{}, map[string]bool{}, 0
	files, err := fs.Glob(migrations.FS, "functions/*.sql")
	if err != nil || len(files) == 0 {
		t.Fatal(files, err)
	}
	for _, f := range files {
		b, err := fs.ReadFile(migrations.FS, f)
		if err != nil {
			t.Fatal(err)
		}
		up, _, _ := strings.Cut(string(b), migrations.Marker)
		for _, m := range raise.FindAllStringSubmatch(up, -1) {
			level, code := m[1], m[2]
			if c, ok := names[code]; ok {
				code = c
			}
			c, ok := own[code]
			switch {
			case ok && c.File != path.Base(f):
				t.Errorf("%s raises %s, which internal/sqlstate gives to %s", f, code, c.File)
			case ok && !c.Warning && level == "WARNING":
				t.Errorf("%s raises %s as a WARNING; internal/sqlstate says it is an error", f, code)
			case !ok && postgresCodes[code] == "":
				t.Errorf("%s raises %s (%s), neither pgid's own (internal/sqlstate) nor a PostgreSQL code of postgresCodes", f, m[2], level)
			}
			raised[code] = true
			n++
			warned[code] = warned[code] || level == "WARNING"
		}
	}
	if n < 40 {
		t.Fatalf("found %d RAISEs with an ERRCODE; the search missed them", n)
	}
	for _, c := range sqlstate.Codes {
		if !raised[c.Code] {
			t.Errorf("internal/sqlstate lists %s (%s), which no functions/*.sql raises", c.Code, c.Meaning)
		} else if c.Warning && !warned[c.Code] {
			t.Errorf("internal/sqlstate lists %s as a warning, which no functions/*.sql raises as a WARNING", c.Code)
		}
	}
	for got, want := range map[string]string{tail.CodeTooOld: sqlstate.TooOld, tail.CodeNotEnabled: sqlstate.NotEnabled,
		tail.CodeSetup: sqlstate.Setup, tail.CodeUnsafe: sqlstate.Unsafe, tail.CodeCitus: sqlstate.Citus} {
		if got != want {
			t.Errorf("package tail says %s where internal/sqlstate says %s", got, want)
		}
	}
}

// postgresCodes are PostgreSQL's, as its errcodes.txt (of the server that
// pg_config names, if any) lists them.
func TestPostgresCodes(t *testing.T) {
	out, err := exec.Command("pg_config", "--sharedir").Output()
	if err != nil {
		t.Skip("no pg_config: ", err)
	}
	f, err := os.Open(filepath.Join(strings.TrimSpace(string(out)), "errcodes.txt"))
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	listed := map[string]string{}
	for s := bufio.NewScanner(f); s.Scan(); {
		if fields := strings.Fields(s.Text()); len(fields) == 4 && len(fields[0]) == 5 {
			listed[fields[0]] = fields[3]
		}
	}
	for code, name := range postgresCodes {
		if listed[code] != name {
			t.Errorf("postgresCodes: %s %s; errcodes.txt says %q", code, name, listed[code])
		}
	}
}

var (
	// codeRef finds a SQLSTATE where code, comments and docs name one: after
	// the word SQLSTATE, as an ERRCODE, compared with an error's code, or
	// given to a sentinel. A code has a digit (which tells it from words).
	codeRef = regexp.MustCompile(`(?:SQLSTATEs? |ERRCODE\s*=\s*'|Code\s*[!=]=\s*"|SQLState\([^)]*\)\s*[!=]=\s*"|\.New\("|\bCode\w*\s*=\s*")([0-9A-Z]{5})\b`)
	// pgiRef finds a code of pgid's own class anywhere.
	pgiRef = regexp.MustCompile(`\bPG[0-9A-Z][0-9]{2}\b`)
	digit  = regexp.MustCompile(`[0-9]`)
)

// codeAllowed are SQLSTATEs that are neither pgid's nor in postgresCodes and
// are meant: the files they are in, and why.
var codeAllowed = map[string][]string{
	// The test of the mapping raises a code of its own.
	"internal/dbconn/dbconn_test.go": {"PGZ99"},
}

// Every SQLSTATE that a Go file, a Markdown file or an SQL file of the
// repository names (see codeRef; any PGxxx code) is pgid's own
// (internal/sqlstate) or a PostgreSQL code of postgresCodes.
func TestSQLStateReferences(t *testing.T) {
	own := ownCodes()
	checked := 0
	for _, f := range repoFiles(t, "migrations/facts_test.go") {
		for i, line := range f.lines {
			var codes []string
			for _, m := range codeRef.FindAllStringSubmatch(line, -1) {
				if digit.MatchString(m[1]) {
					codes = append(codes, m[1])
				}
			}
			codes = append(codes, pgiRef.FindAllString(line, -1)...)
			slices.Sort(codes)
			codes = slices.Compact(codes)
			for _, c := range codes {
				checked++
				if _, ok := own[c]; ok || postgresCodes[c] != "" || slices.Contains(codeAllowed[f.rel], c) {
					continue
				}
				t.Errorf("%s:%d names SQLSTATE %s, which no pgid SQL raises (internal/sqlstate) and which is not a PostgreSQL code pgid relies on (postgresCodes)", f.rel, i+1, c)
			}
		}
	}
	if checked < 200 {
		t.Fatalf("checked %d SQLSTATEs; the search missed them", checked)
	}
}

var (
	// funcRef finds a name in schema pgid: pgid.name, a * after it if it
	// stands for the names that start so. Not after a letter, digit, '/' or
	// '.' (file names such as db/pgid.sql).
	funcRef = regexp.MustCompile(`(?:^|[^\w/.])pgid\.([a-z_][a-z0-9_]*)(\*?)`)
	// schemaObjects are the objects of schema pgid after Up that are not
	// functions: the domains, their array types, the ObjectId counter and
	// the version table.
	schemaObjects = []string{"ulid", "objectid", "_ulid", "_objectid", "objectid_counter", "schema_migrations"}
)

// funcAllowed are names in schema pgid that Up does not make and are
// meant: the files they are in, and why.
var funcAllowed = map[string][]string{
	// Tests that make functions and sequences of their own in schema pgid.
	"migrations/privileges_db_test.go": {"trap", "counter"},
	"migrations/ownership_db_test.go":  {"trap"},
	"migrations/where_db_test.go":      {"old_thing"},
	// A placeholder: pgid.name, the form of a name.
	"migrations/trust.go": {"name"},
	// Misspellings that the tests make on purpose.
	"sqlc/outside_test.go":  {"uild"},
	"cmd/pgid/main_test.go": {"ulid_min"},
	// The test of the function definitions' reader, on made-up ones.
	"internal/sqlfunc/sqlfunc_test.go": {"not_this", "a", "_b", "c", "d"},
	// The test binary of cmd/pgid, a file.
	"cmd/pgid/keyfile_owner_test.go": {"test"},
}

// Every name in schema pgid (pgid.name) that a Go file, a Markdown file or
// an SQL file of the repository names exists after Up: a function of
// testdata/functions.txt or one of schemaObjects.
func TestFunctionReferences(t *testing.T) {
	if functionListErr != nil {
		t.Fatal(functionListErr)
	}
	var names []string
	for _, f := range functionList {
		name, _, _ := strings.Cut(strings.TrimPrefix(f, "pgid."), "(")
		names = append(names, name)
	}
	names = append(names, schemaObjects...)
	checked := 0
	for _, f := range repoFiles(t, "migrations/facts_test.go") {
		for i, line := range f.lines {
			for _, m := range funcRef.FindAllStringSubmatch(line, -1) {
				name, pattern := m[1], m[2] == "*"
				checked++
				ok := slices.Contains(names, name)
				if pattern {
					ok = slices.ContainsFunc(names, func(n string) bool { return strings.HasPrefix(n, name) })
				}
				if !ok && !slices.Contains(funcAllowed[f.rel], name) {
					t.Errorf("%s:%d names pgid.%s, which does not exist after Up (testdata/functions.txt)", f.rel, i+1, name+m[2])
				}
			}
		}
	}
	if checked < 500 {
		t.Fatalf("checked %d names; the search missed them", checked)
	}
}

// checksumRef finds a functions checksum named in the text: "checksum" and
// a backquoted hex prefix of 8 or more digits.
var checksumRef = regexp.MustCompile("checksum `([0-9a-f]{8,64})(?:…|\\.\\.\\.)?`")

// Every functions checksum that a Markdown or Go file names, the
// CHANGELOG's included, is (a prefix of) one that functionsHistory in
// history.go lists: the one place of the checksums of the editions of
// functions/*.sql.
func TestChecksumReferences(t *testing.T) {
	hist := migrations.FunctionsHistory()
	files := repoFiles(t, "migrations/facts_test.go")
	b, err := os.ReadFile("../CHANGELOG.md")
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, repoFile{"CHANGELOG.md", strings.Split(string(b), "\n")})
	for _, f := range files {
		for i, line := range f.lines {
			for _, m := range checksumRef.FindAllStringSubmatch(line, -1) {
				if !slices.ContainsFunc(hist, func(h string) bool { return strings.HasPrefix(h, m[1]) }) {
					t.Errorf("%s:%d names functions checksum %s, which functionsHistory (history.go) does not list", f.rel, i+1, m[1])
				}
			}
		}
	}
}
