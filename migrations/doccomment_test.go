package migrations_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// maxDocLines is the longest doc comment the repository keeps: a doc comment
// says what a name does, its key contract and its errors (net/netip's
// length); the long story is in README.md and docs/*.md, and the comment
// points there.
const maxDocLines = 25

// TestDocCommentLength: no doc comment in a non-test, non-generated Go file
// of any module of the repository (package clauses, funcs, types, vars,
// consts, their specs, struct fields and interface methods) is longer than
// maxDocLines lines.
func TestDocCommentLength(t *testing.T) {
	root := ".."
	if _, err := os.Stat(filepath.Join(root, "go.work")); err != nil {
		t.Skip("not in the repository (no ../go.work): ", err)
	}
	var long []string
	files := 0
	modules := map[string]bool{} // module directory: a Go file of it was checked
	if err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Name() == "go.mod" {
			modules[filepath.Dir(p)] = false
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == ".git" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, p, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		if ast.IsGenerated(f) {
			return nil
		}
		files++
		for dir := filepath.Dir(p); ; dir = filepath.Dir(dir) {
			if _, ok := modules[dir]; ok {
				modules[dir] = true
				break
			}
			if dir == root || dir == "." {
				break
			}
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		check := func(doc *ast.CommentGroup, what string) {
			if doc == nil {
				return
			}
			start, end := fset.Position(doc.Pos()), fset.Position(doc.End())
			if n := end.Line - start.Line + 1; n > maxDocLines {
				long = append(long, fmt.Sprintf("%s:%d: %s: %d lines", rel, start.Line, what, n))
			}
		}
		check(f.Doc, "package "+f.Name.Name)
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncDecl:
				check(n.Doc, "func "+n.Name.Name)
			case *ast.GenDecl:
				check(n.Doc, n.Tok.String()+" declaration")
			case *ast.TypeSpec:
				check(n.Doc, "type "+n.Name.Name)
			case *ast.ValueSpec:
				check(n.Doc, "value "+n.Names[0].Name)
			case *ast.Field:
				name := "field"
				if len(n.Names) > 0 {
					name += " " + n.Names[0].Name
				}
				check(n.Doc, name)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(modules) < 5 {
		t.Fatalf("found %d modules (go.mod files); the repository has 5: is the walk wrong?", len(modules))
	}
	for dir, seen := range modules {
		if !seen {
			t.Errorf("no Go file of module %s was checked: is the walk wrong?", dir)
		}
	}
	for _, l := range long {
		t.Errorf("%s (at most %d: say what it does, the contract and the errors; point to docs/*.md for the rest)", l, maxDocLines)
	}
}
