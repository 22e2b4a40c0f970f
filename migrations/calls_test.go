package migrations_test

import (
	"io/fs"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/pgid/pgid/migrations"
)

// shortType is how a parameter type that regprocedure shows is cast to in
// pgid's SQL: x::pg_catalog.<shortType>.
var shortType = map[string]string{
	"timestamp with time zone": "timestamptz", "integer": "int4", "smallint": "int2",
	"bigint": "int8", "boolean": "bool",
}

// Every call to a pgid function inside a plpgsql function of
// functions/*.sql passes every parameter, defaulted ones too, each cast to
// the parameter's exact type (x::pg_catalog.text): plpgsql resolves a call
// when it runs, and an uncast one could pick a better-matching overload
// that another role put in schema pgid (integration_test's
// TestInternalCallsNameTheirTypes plants them). SQL-standard bodies are
// bound when the functions step creates them, and calls inside string
// literals (messages) are not calls.
func TestCallsNameArgumentTypes(t *testing.T) {
	if functionListErr != nil {
		t.Fatal(functionListErr)
	}
	params := map[string][]string{}
	for _, f := range functionList {
		name, args, _ := strings.Cut(strings.TrimPrefix(f, "pgid."), "(")
		var types []string
		for _, a := range strings.Split(strings.TrimSuffix(args, ")"), ",") {
			if a == "" {
				continue
			}
			base, array := strings.CutSuffix(a, "[]")
			if s, ok := shortType[base]; ok {
				base = s
			}
			if array {
				base += "[]"
			}
			types = append(types, base)
		}
		params[name] = types
	}
	files, err := fs.Glob(migrations.FS, "functions/*.sql")
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	for _, file := range files {
		b, err := fs.ReadFile(migrations.FS, file)
		if err != nil {
			t.Fatal(err)
		}
		src, _, _ := strings.Cut(string(b), migrations.Marker)
		for _, def := range plpgsqlBodies(src) {
			for _, c := range pgidCalls(src, def[0], def[1]) {
				calls++
				where := file + ":" + strconv.Itoa(strings.Count(src[:c.at], "\n")+1)
				want, ok := params[c.name]
				if !ok {
					t.Errorf("%s: pgid.%s is not in testdata/functions.txt", where, c.name)
					continue
				}
				if len(c.args) != len(want) {
					t.Errorf("%s: pgid.%s gets %d arguments, has %d parameters: pass the defaulted ones too",
						where, c.name, len(c.args), len(want))
					continue
				}
				for i, a := range c.args {
					if want[i] != "anyelement" && !strings.HasSuffix(a, "::pg_catalog."+want[i]) {
						t.Errorf("%s: pgid.%s argument %d, %q, is not cast to pg_catalog.%s", where, c.name, i+1, a, want[i])
					}
				}
			}
		}
	}
	if calls < 80 {
		t.Errorf("%d calls found in the plpgsql bodies; want at least 80 (is the scanner broken?)", calls)
	}
}

// functionStart matches the start of each function definition.
var functionStart = regexp.MustCompile(`(?m)^CREATE OR REPLACE FUNCTION pgid\.`)

// plpgsqlBodies returns the start and end offsets in src of the body of
// every plpgsql function.
func plpgsqlBodies(src string) [][2]int {
	var out [][2]int
	starts := functionStart.FindAllStringIndex(src, -1)
	for i, s := range starts {
		end := len(src)
		if i+1 < len(starts) {
			end = starts[i+1][0]
		}
		def := src[s[0]:end]
		open := strings.Index(def, "$$")
		if open < 0 || !strings.Contains(def[:open], "LANGUAGE plpgsql") {
			continue
		}
		closing := strings.Index(def[open+2:], "$$")
		out = append(out, [2]int{s[0] + open + 2, s[0] + open + 2 + closing})
	}
	return out
}

// call is a call to a pgid function: where its name starts in the file,
// the name and its arguments as written.
type call struct {
	at   int
	name string
	args []string
}

var callName = regexp.MustCompile(`^pgid\.(\w+)\s*\(`)

// pgidCalls returns the calls to pgid functions in src[from:to], nested
// ones too, outside string literals and comments.
func pgidCalls(src string, from, to int) []call {
	var out []call
	for i := from; i < to; {
		if n := skip(src, i); n > i {
			i = n
			continue
		}
		if m := callName.FindStringSubmatch(src[i:to]); m != nil && (i == 0 || !isIdent(src[i-1])) {
			args, _ := splitArgs(src, i+len(m[0]))
			out = append(out, call{at: i, name: m[1], args: args})
			i += len(m[0]) // the arguments are scanned too, for nested calls
			continue
		}
		i++
	}
	return out
}

// skip returns the offset after the string literal or comment starting at
// src[i], or i if none does.
func skip(src string, i int) int {
	switch {
	case strings.HasPrefix(src[i:], "--"):
		if n := strings.IndexByte(src[i:], '\n'); n >= 0 {
			return i + n
		}
		return len(src)
	case src[i] == '\'':
		escapes := i > 0 && (src[i-1] == 'E' || src[i-1] == 'e')
		for j := i + 1; j < len(src); j++ {
			switch {
			case escapes && src[j] == '\\':
				j++
			case src[j] == '\'' && j+1 < len(src) && src[j+1] == '\'':
				j++
			case src[j] == '\'':
				return j + 1
			}
		}
		return len(src)
	}
	return i
}

// splitArgs splits the argument list that starts at src[i] (after its
// opening parenthesis) at its top-level commas, and returns the arguments,
// trimmed, and the offset after the closing parenthesis.
func splitArgs(src string, i int) ([]string, int) {
	var args []string
	depth, start := 0, i
	for j := i; j < len(src); {
		if n := skip(src, j); n > j {
			j = n
			continue
		}
		switch src[j] {
		case '(', '[':
			depth++
		case ')', ']':
			if depth == 0 {
				if a := strings.TrimSpace(src[start:j]); a != "" || len(args) > 0 {
					args = append(args, a)
				}
				return args, j + 1
			}
			depth--
		case ',':
			if depth == 0 {
				args = append(args, strings.TrimSpace(src[start:j]))
				start = j + 1
			}
		}
		j++
	}
	return args, len(src)
}

func isIdent(c byte) bool {
	return c == '_' || c == '.' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
