// Package sqlfunc reads the function definitions of pgid's SQL files
// (migrations/functions/*.sql): each function's name, language and
// volatility as its header declares them. The SQL generator
// (migrations/internal/gensql) and the tests take their lists of functions
// from here, so that no list of them is kept by hand.
package sqlfunc

import "regexp"

// Func is one CREATE OR REPLACE FUNCTION pgid.Name of a file.
type Func struct {
	Name       string // without the schema
	Language   string // plpgsql or sql
	Volatility string // as pg_proc.provolatile: "i", "s" or "v"
}

// header matches a definition up to its LANGUAGE line (which starts a line
// in pgid's files) and the attributes on that line.
var header = regexp.MustCompile(`(?m)^CREATE OR REPLACE FUNCTION pgid\.(\w+)\((?s:.*?)^LANGUAGE (\w+)([^\n]*)`)

// volatility matches the volatility keyword of a LANGUAGE line.
var volatility = regexp.MustCompile(`\b(IMMUTABLE|STABLE|VOLATILE)\b`)

// Parse returns the functions src defines, in the order it defines them.
// Overloads appear once each.
func Parse(src []byte) []Func {
	var out []Func
	for _, m := range header.FindAllSubmatch(src, -1) {
		f := Func{Name: string(m[1]), Language: string(m[2]), Volatility: "v"}
		switch string(volatility.Find(m[3])) {
		case "IMMUTABLE":
			f.Volatility = "i"
		case "STABLE":
			f.Volatility = "s"
		}
		out = append(out, f)
	}
	return out
}
