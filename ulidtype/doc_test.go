package ulidtype

import (
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"io/fs"
	"os"
	"strings"
	"testing"
)

// parsePkg parses the non-test files of the package in dir.
func parsePkg(t *testing.T, dir string) (*token.FileSet, map[string]*ast.FuncDecl, []*ast.File) {
	t.Helper()
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, dir, func(fi fs.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, parser.ParseComments)
	if err != nil || len(pkgs) != 1 {
		t.Fatalf("%s: %d packages, %v", dir, len(pkgs), err)
	}
	funcs := map[string]*ast.FuncDecl{}
	var files []*ast.File
	for _, p := range pkgs {
		for _, f := range p.Files {
			files = append(files, f)
			for _, d := range f.Decls {
				if fd, ok := d.(*ast.FuncDecl); ok {
					name := fd.Name.Name
					if fd.Recv != nil {
						recv := fd.Recv.List[0].Type
						if st, ok := recv.(*ast.StarExpr); ok {
							recv = st.X
						}
						name = recv.(*ast.Ident).Name + "." + name
					}
					funcs[name] = fd
				}
			}
		}
	}
	return fset, funcs, files
}

// TestDocs: the docs of the two type packages are for users: every exported
// type, function and method has a doc of at most 12 lines (design notes go to
// docs/IDS.md), and what the two packages both do, they do
// the same way (the same code with other names).
func TestDocs(t *testing.T) {
	fsets := map[string]*token.FileSet{}
	funcs := map[string]map[string]*ast.FuncDecl{}
	for _, dir := range []string{".", "../objectidtype"} {
		fset, fn, files := parsePkg(t, dir)
		fsets[dir], funcs[dir] = fset, fn
		for _, f := range files {
			ast.Inspect(f, func(n ast.Node) bool {
				var name *ast.Ident
				var doc *ast.CommentGroup
				switch n := n.(type) {
				case *ast.GenDecl:
					for _, s := range n.Specs {
						if ts, ok := s.(*ast.TypeSpec); ok {
							name, doc = ts.Name, ts.Doc
							if doc == nil {
								doc = n.Doc
							}
						}
					}
				case *ast.FuncDecl:
					name, doc = n.Name, n.Doc
				}
				if name != nil && name.IsExported() {
					if doc == nil {
						t.Errorf("%s: %s has no doc comment", fset.Position(name.Pos()), name.Name)
					} else if len(doc.List) > 12 {
						t.Errorf("%s: %s's doc is %d lines, want at most 12", fset.Position(name.Pos()), name.Name, len(doc.List))
					}
				}
				return true
			})
		}
	}
	for _, pair := range [][2]string{
		{"ULID.Compare", "ObjectID.Compare"},
		{"ULID.MarshalJSON", "ObjectID.MarshalJSON"},
		{"NullULID.Scan", "NullObjectID.Scan"},
		{"NullULID.UnmarshalJSON", "NullObjectID.UnmarshalJSON"},
		{"NullULID.MarshalJSON", "NullObjectID.MarshalJSON"},
		{"NullULID.String", "NullObjectID.String"},
		{"Slice.Scan", "Slice.Scan"},
		{"NullSlice.Value", "NullSlice.Value"},
	} {
		a := shape(t, fsets["."], funcs["."][pair[0]])
		b := shape(t, fsets["../objectidtype"], funcs["../objectidtype"][pair[1]])
		if a != b {
			t.Errorf("%s and %s are written differently:\n%s\n%s", pair[0], pair[1], a, b)
		}
	}
}

// shape returns the tokens of fd's body with every name and literal blanked.
func shape(t *testing.T, fset *token.FileSet, fd *ast.FuncDecl) string {
	t.Helper()
	if fd == nil {
		t.Fatal("function not found")
	}
	f := fset.File(fd.Pos())
	text, err := readRange(f.Name(), f.Offset(fd.Body.Pos()), f.Offset(fd.Body.End()))
	if err != nil {
		t.Fatal(err)
	}
	var s scanner.Scanner
	sf := token.NewFileSet().AddFile("", -1, len(text))
	s.Init(sf, text, nil, 0)
	var out []string
	for {
		_, tok, _ := s.Scan()
		switch {
		case tok == token.EOF:
			return strings.Join(out, " ")
		case tok == token.IDENT || tok.IsLiteral():
			out = append(out, "_")
		default:
			out = append(out, tok.String())
		}
	}
}

// readRange returns bytes [from, to) of the file name.
func readRange(name string, from, to int) ([]byte, error) {
	b, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	return b[from:to], nil
}
