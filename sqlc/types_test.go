package sqlc

import (
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// sqlc never checks a column type or an override: a misspelled db_type, or a
// query whose parameter sqlc cannot tie to a pgid column, silently yields
// interface{}, pgtype.UUID or []byte. These tests read the generated code
// and fail on any of that.

// idName matches the Go names sqlc gives ID columns and ID parameters.
var idName = regexp.MustCompile(`^(ID|Ids|Lo|Hi|Cursor)$|(ID|Ids|IDs)$|^(id|ids|lo|hi|cursor)$`)

// wantIDs is every ID field and parameter of both generated packages with
// its Go type, as "Owner.Name" (Owner: a struct, or the method for a
// parameter that is not in a Params struct). Both packages must match it,
// apart from the entries of onlyPgx and onlySQL.
var wantIDs = map[string]string{
	"Event.ID":                            "ulidtype.ULID",
	"Event.LinkID":                        "objectidtype.NullObjectID",
	"Link.ID":                             "objectidtype.ObjectID",
	"Link.LastEventID":                    "ulidtype.NullULID",
	"CreateLinkParams.ID":                 "objectidtype.ObjectID",
	"GetLink.id":                          "objectidtype.ObjectID",
	"GetLinksByIDs.ids":                   "[]objectidtype.ObjectID",
	"ListLinksInWindowParams.Lo":          "objectidtype.ObjectID",
	"ListLinksInWindowParams.Hi":          "objectidtype.ObjectID",
	"IncrementHits.id":                    "objectidtype.ObjectID",
	"SetLastEventParams.EventID":          "ulidtype.NullULID",
	"SetLastEventParams.ID":               "objectidtype.ObjectID",
	"CreateEventParams.ID":                "ulidtype.ULID",
	"CreateEventParams.LinkID":            "objectidtype.NullObjectID",
	"CreateEventDefaultIDParams.LinkID":   "objectidtype.NullObjectID",
	"GetEvent.id":                         "ulidtype.ULID",
	"GetEventsByIDs.ids":                  "[]ulidtype.ULID",
	"ListEventsInWindowParams.Lo":         "ulidtype.ULID",
	"ListEventsInWindowParams.Hi":         "ulidtype.ULID",
	"CountEventsInWindowParams.Lo":        "ulidtype.ULID",
	"CountEventsInWindowParams.Hi":        "ulidtype.ULID",
	"CountEventsPerLinkBetweenRow.LinkID": "objectidtype.NullObjectID",
	"ListEventsBeforeParams.Cursor":       "ulidtype.ULID",
	"ListEventsAfterParams.Cursor":        "ulidtype.ULID",
	"EventIDsPerLinkRow.LinkID":           "objectidtype.NullObjectID",
	"EventIDsPerLinkRow.EventIds":         "[]ulidtype.ULID",
	"User.ID":                             "ids.UserID",
	"CreateUserParams.ID":                 "ids.UserID",
	"GetUser.id":                          "ids.UserID",
}

// onlyPgx: the :copyfrom queries, which sqlc generates for pgx/v5 only.
var onlyPgx = map[string]string{
	"CopyLinksParams.ID":      "objectidtype.ObjectID",
	"CopyEventsParams.ID":     "ulidtype.ULID",
	"CopyEventsParams.LinkID": "objectidtype.NullObjectID",
}

// onlySQL: GetLinksByRawIDs, the database/sql alternative to GetLinksByIDs,
// whose pq.Array([]objectidtype.ObjectID) fails in every driver. Its bytea[]
// parameter is the one ID parameter that is not a pgid type, on purpose.
var onlySQL = map[string]string{
	"GetLinksByRawIDs.ids": "[][]byte",
}

// Result types of methods that return an ID directly.
var wantResults = map[string]string{
	"NewULID": "ulidtype.ULID",
}

// banned are types that must not appear anywhere in the generated API
// (fields, parameters, results), but for onlySQL's entry.
var banned = []string{"interface{}", "any", "[]byte", "[][]byte", "pgtype.UUID", "uuid.UUID", "[16]byte", "[12]byte", "pqtype.NullRawMessage"}

type generated struct {
	ids     map[string]string // ID-named fields and parameters
	results map[string]string // method -> first result type
	all     map[string]string // every exported field and parameter
}

func readGenerated(t *testing.T, dir string) generated {
	t.Helper()
	fset := token.NewFileSet()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no generated files in %s: %v", dir, err)
	}
	g := generated{map[string]string{}, map[string]string{}, map[string]string{}}
	typeString := func(e ast.Expr) string {
		var b strings.Builder
		if err := printer.Fprint(&b, fset, e); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	add := func(owner, name string, typ ast.Expr) {
		key, ts := owner+"."+name, typeString(typ)
		g.all[key] = ts
		if idName.MatchString(name) {
			g.ids[key] = ts
		}
	}
	for _, path := range files {
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			switch d := decl.(type) {
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					ts, ok := spec.(*ast.TypeSpec)
					if !ok || !ts.Name.IsExported() {
						continue
					}
					if st, ok := ts.Type.(*ast.StructType); ok {
						for _, field := range st.Fields.List {
							for _, n := range field.Names {
								add(ts.Name.Name, n.Name, field.Type)
							}
						}
					}
				}
			case *ast.FuncDecl:
				if d.Recv == nil || !d.Name.IsExported() {
					continue
				}
				for _, field := range d.Type.Params.List {
					for _, n := range field.Names {
						add(d.Name.Name, n.Name, field.Type)
					}
				}
				if r := d.Type.Results; r != nil && len(r.List) > 0 {
					g.results[d.Name.Name] = typeString(r.List[0].Type)
				}
			}
		}
	}
	return g
}

func TestGeneratedIDTypes(t *testing.T) {
	for _, pkg := range []struct {
		dir   string
		extra map[string]string
	}{{"pgxdb", onlyPgx}, {"sqldb", onlySQL}} {
		t.Run(pkg.dir, func(t *testing.T) {
			g := readGenerated(t, pkg.dir)
			want := maps.Clone(wantIDs)
			maps.Copy(want, pkg.extra)
			for _, key := range slices.Sorted(maps.Keys(g.ids)) {
				if w, ok := want[key]; !ok {
					t.Errorf("%s: ID field or parameter %s %s is not in the expected table; add it (a pgid type)", pkg.dir, key, g.ids[key])
				} else if g.ids[key] != w {
					t.Errorf("%s: %s is %s, want %s (misspelled or missing override?)", pkg.dir, key, g.ids[key], w)
				}
			}
			for _, key := range slices.Sorted(maps.Keys(want)) {
				if _, ok := g.ids[key]; !ok {
					t.Errorf("%s: %s (%s) not generated", pkg.dir, key, want[key])
				}
			}
			for m, w := range wantResults {
				if got := g.results[m]; got != w {
					t.Errorf("%s: %s returns %s, want %s", pkg.dir, m, got, w)
				}
			}
			for _, key := range slices.Sorted(maps.Keys(g.all)) {
				if _, allowed := pkg.extra[key]; allowed {
					continue
				}
				if slices.Contains(banned, g.all[key]) {
					t.Errorf("%s: %s has type %s", pkg.dir, key, g.all[key])
				}
			}
			for m, r := range g.results {
				if slices.Contains(banned, r) {
					t.Errorf("%s: %s returns %s", pkg.dir, m, r)
				}
			}
		})
	}
}

// TestIDNamePattern guards the pattern itself: a field it missed would escape
// the check above.
func TestIDNamePattern(t *testing.T) {
	for _, n := range []string{"ID", "LinkID", "LastEventID", "EventID", "EventIds", "Ids", "id", "ids", "Lo", "Hi", "lo", "Cursor", "cursor"} {
		if !idName.MatchString(n) {
			t.Errorf("%s not matched", n)
		}
	}
	for _, n := range []string{"Url", "Kind", "Hits", "N", "Payload", "code", "url", "FromTime"} {
		if idName.MatchString(n) {
			t.Errorf("%s matched", n)
		}
	}
}
