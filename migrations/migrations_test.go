package migrations_test

import (
	"io/fs"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/pgid/pgid/migrations"
)

// released pins the SHA-256 of every versioned file: released files never
// change. A new versioned file gets its line here when it is added; an
// existing line never changes.
var released = map[string]string{
	"001_schema_and_domains.sql": "d284d8151871b3b96044940c679873496f035923c4aa263d60647a4c6261c66c",
	"002_ulid_functions.sql":     "126cdfc476ebedf9a3a90ec9a169a4e7fa8eafc823c255768fa85d1d2e810c4e",
	"003_objectid_functions.sql": "1065ecde6b49e90d13b0f0d045ce1b1374be3165e0804335284fe4981882b4f1",
	"004_partitions.sql":         "c5c15948fd4ff9cc8e4a2928bb2f2ba841c3067cceed51e72855da04cc915040",
	"005_uuidv7.sql":             "3cdde4773c26211638be8cb4f69fc71a98fae7e33cc21fa0ae36da93ac86acb3",
	"006_partition_safety.sql":   "cd02c057165fe67209327ad1092b8c5ed6969765a49ae9a09566fc074e503bb2",
	"007_objectid_counter.sql":   "1f024913e1d922d0423ce1586898a959a0456cdd019066e23ff66a1a4130af66",
}

// Every versioned file is as released, and every released file is there.
func TestReleasedChecksums(t *testing.T) {
	names, err := fs.Glob(migrations.FS, "*.sql")
	if err != nil {
		t.Fatal(err)
	}
	if len(names) != len(released) || migrations.Latest() != len(released) {
		t.Errorf("%d versioned files, Latest %d, %d released", len(names), migrations.Latest(), len(released))
	}
	for _, name := range names {
		b, err := fs.ReadFile(migrations.FS, name)
		if err != nil {
			t.Fatal(err)
		}
		want, ok := released[name]
		if got := migrations.Checksum(b); !ok || got != want {
			t.Errorf("%s has checksum %s, released %q: released files never change; "+
				"put function changes in functions/, anything else in a new versioned file", name, got, want)
		}
	}
}

// The current function definitions are the last entry of the history that
// Up uses to tell older definitions from newer ones.
func TestFunctionsHistory(t *testing.T) {
	h := migrations.FunctionsHistory()
	cur := migrations.FunctionsChecksum()
	if len(cur) != 64 {
		t.Fatalf("FunctionsChecksum %q", cur)
	}
	if len(h) == 0 || h[len(h)-1] != cur {
		t.Errorf("functions/*.sql changed: append %q to functionsHistory in history.go", cur)
	}
	seen := map[string]bool{}
	for _, c := range h {
		if seen[c] {
			t.Errorf("functionsHistory lists %s twice", c)
		}
		seen[c] = true
	}
}

// Every file is up to the marker idempotent SQL and has no tern template
// syntax (tern runs files through text/template).
func TestFiles(t *testing.T) {
	for _, name := range allFiles(t) {
		b, err := fs.ReadFile(migrations.FS, name)
		if err != nil {
			t.Fatal(err)
		}
		s := string(b)
		if strings.Count(s, "---- create above / drop below ----") != 1 {
			t.Errorf("%s: want exactly one tern up/down marker", name)
		}
		if strings.Contains(s, "{{") {
			t.Errorf("%s: contains template syntax {{", name)
		}
		up, _, _ := strings.Cut(s, "---- create above / drop below ----")
		for _, bad := range []string{"CREATE FUNCTION", "CREATE SCHEMA pgid", "CREATE TABLE"} {
			if strings.Contains(up, bad) {
				t.Errorf("%s: forward SQL contains %q; use CREATE OR REPLACE or IF NOT EXISTS", name, bad)
			}
		}
		if strings.Contains(up, "CREATE DOMAIN") && !strings.Contains(up, "DO $$") {
			t.Errorf("%s: CREATE DOMAIN outside a DO block is not idempotent", name)
		}
		for _, line := range strings.Split(s, "\n") {
			if code, _, _ := strings.Cut(line, "--"); strings.Contains(code, "DROP") && strings.Contains(code, "CASCADE") {
				t.Errorf("%s: DROP ... CASCADE could drop user data: %s", name, line)
			}
		}
	}
}

// Names in the migrations are bound at creation, not at call time: each
// part of each file first sets its own search_path for the transaction, every
// LANGUAGE sql function has an SQL-standard body (RETURN or BEGIN ATOMIC,
// parsed when created) rather than a quoted one (parsed when inlined, under
// the caller's search_path), and every plpgsql function either fixes its
// search_path or qualifies its operators.
func TestFilesBindNames(t *testing.T) {
	names := allFiles(t)
	const setPath = "SET LOCAL search_path = pg_catalog, pg_temp;"
	for _, name := range names {
		b, err := fs.ReadFile(migrations.FS, name)
		if err != nil {
			t.Fatal(err)
		}
		// Without comment lines.
		var lines []string
		for _, l := range strings.Split(string(b), "\n") {
			if !strings.HasPrefix(l, "--") || strings.HasPrefix(l, "---- create above") {
				lines = append(lines, l)
			}
		}
		up, down, _ := strings.Cut(strings.Join(lines, "\n"), "---- create above / drop below ----")
		for part, sql := range map[string]string{"forward": up, "reverse": down} {
			if !strings.HasPrefix(strings.TrimSpace(sql), setPath) {
				t.Errorf("%s, %s SQL does not start with %q", name, part, setPath)
			}
		}
		for _, fn := range strings.Split(up, "CREATE OR REPLACE FUNCTION ")[1:] {
			sig, _, _ := strings.Cut(fn, "\n")
			lang := fn[strings.Index(fn, "LANGUAGE ")+len("LANGUAGE "):]
			lang, _, _ = strings.Cut(lang, " ")
			switch lang {
			case "sql":
				if !strings.HasPrefix(fn[strings.Index(fn, "\n")+1:], "LANGUAGE sql ") ||
					!(strings.Contains(fn, "\nRETURN ") || strings.Contains(fn, "BEGIN ATOMIC")) ||
					strings.Contains(strings.SplitN(fn, "\nRETURN ", 2)[0], " AS $") {
					t.Errorf("%s: %s needs an SQL-standard body (RETURN ... or BEGIN ATOMIC)", name, sig)
				}
			case "plpgsql":
				body := fn[:strings.Index(fn, "\n$$;")]
				if !strings.Contains(body, "SET search_path = pg_catalog, pg_temp") && !strings.Contains(body, "OPERATOR(pg_catalog.") {
					t.Errorf("%s: plpgsql %s neither sets its search_path nor qualifies its operators", name, sig)
				}
			default:
				t.Errorf("%s: %s: language %q", name, sig, lang)
			}
		}
	}
}

// allFiles lists the versioned files and the function definitions.
func allFiles(t *testing.T) []string {
	t.Helper()
	v, err := fs.Glob(migrations.FS, "*.sql")
	if err != nil {
		t.Fatal(err)
	}
	f, err := fs.Glob(migrations.FS, "functions/*.sql")
	if err != nil {
		t.Fatal(err)
	}
	if len(v) == 0 || len(f) == 0 {
		t.Fatalf("%d versioned files, %d function files", len(v), len(f))
	}
	return append(v, f...)
}

// Every SQL line fits in 120 characters, so that a person can review it;
// go generate ./migrations keeps the generated parts so.
func TestLineLength(t *testing.T) {
	for _, name := range allFiles(t) {
		b, err := fs.ReadFile(migrations.FS, name)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			if n := utf8.RuneCountInString(line); n > 120 {
				t.Errorf("%s:%d: %d characters, want at most 120", name, i+1, n)
			}
		}
	}
}

// What Up and ReadStatus expect to find (Status.Missing) is read from the
// reverse SQL: it must name every function and domain the forward SQL
// creates, once.
func TestExpectedObjects(t *testing.T) {
	functions, domains := migrations.ExpectedNames()
	var creates, createDomains []string
	for _, pattern := range []string{"*.sql", "functions/*.sql"} {
		names, _ := fs.Glob(migrations.FS, pattern)
		for _, name := range names {
			b, _ := fs.ReadFile(migrations.FS, name)
			up, _, _ := strings.Cut(string(b), migrations.Marker)
			for _, line := range strings.Split(up, "\n") {
				line = strings.TrimSpace(line)
				if f, ok := strings.CutPrefix(line, "CREATE OR REPLACE FUNCTION pgid."); ok {
					creates = append(creates, f[:strings.Index(f, "(")])
				}
				if d, ok := strings.CutPrefix(line, "CREATE DOMAIN pgid."); ok {
					createDomains = append(createDomains, strings.Fields(d)[0])
				}
			}
		}
	}
	slices.Sort(functions)
	slices.Sort(creates)
	// pgid.gen_ulid_v7 has a second definition, for PostgreSQL 18, in a DO block.
	creates = slices.Compact(creates)
	slices.Sort(domains)
	slices.Sort(createDomains)
	if len(creates) < 40 || !slices.Equal(functions, creates) {
		t.Errorf("functions dropped (expected by Up):\n%v\ncreated:\n%v", functions, creates)
	}
	if !slices.Equal(domains, []string{"objectid", "ulid"}) || !slices.Equal(domains, createDomains) {
		t.Errorf("domains dropped (expected by Up) %v, created %v", domains, createDomains)
	}
}
