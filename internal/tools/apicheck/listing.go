package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/importer"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"sort"
	"strings"
)

// A module is a released module whose exported API is listed in one file.
type module struct {
	Path string // module path
	Dir  string // directory, relative to the repository root
	File string // the listing, relative to the repository root
}

// released are the modules users import. cmd/pgid is released too, but
// it is a main package: it has no importable API. internal/pgserver is a
// package of the library's module, internal like the others: no API.
var released = []module{
	{Path: "github.com/pgid/pgid", Dir: ".", File: "api/pgid.txt"},
}

// A target is a GOOS/GOARCH pair the API is listed for. A line that exists
// for some targets only is marked with those targets' GOOS. A module whose
// files are the same for every target is compiled for the first only (an
// API that differs by target through a dependency alone, such as a constant
// set to os.PathSeparator, would be missed).
type target struct{ GOOS, GOARCH string }

// targets cover the build-constraint variants the modules have: Linux,
// another Unix, and Windows (no Unix at all).
var targets = []target{{"linux", "amd64"}, {"darwin", "arm64"}, {"windows", "amd64"}}

// listPackage is what go list -json says about one package.
type listPackage struct {
	ImportPath string
	Name       string
	Export     string
	GoFiles    []string
	DepOnly    bool
	Standard   bool
	Module     *struct{ Path string }
	Error      *struct{ Err string }
}

// listModule returns the exported API of m's packages for every target:
// sorted lines of the form "pkg PATH, KIND ...", the lines present only
// for some targets suffixed with them.
func listModule(root string, m module) ([]string, error) {
	count := map[string]int{}
	osOf := map[string][]string{}
	var first []string // the first target's lines
	var firstFiles string
	for i, t := range targets {
		// Compiling for another target costs a minute on a cold cache: do
		// it only when the module's files differ for it (build constraints).
		files, err := goFiles(root, m, t)
		if err != nil {
			return nil, err
		}
		var lines []string
		if i > 0 && files == firstFiles {
			lines = first
		} else if lines, err = listTarget(root, m, t); err != nil {
			return nil, err
		}
		if i == 0 {
			first, firstFiles = lines, files
		}
		for _, l := range lines {
			count[l]++
			osOf[l] = append(osOf[l], t.GOOS)
		}
	}
	var out []string
	for l, n := range count {
		if n == len(targets) {
			out = append(out, l)
			continue
		}
		// "pkg P, rest" becomes "pkg P (darwin, linux), rest".
		i := strings.Index(l, ", ")
		oss := osOf[l]
		sort.Strings(oss)
		out = append(out, l[:i]+" ("+strings.Join(oss, ", ")+")"+l[i:])
	}
	sort.Strings(out)
	return out, nil
}

// goFiles lists the files of m's packages that build for t: one line per
// package, its import path and files.
func goFiles(root string, m module, t target) (string, error) {
	out, err := goList(root, m, t, "-f", "{{.ImportPath}} {{.GoFiles}}")
	return string(out), err
}

// goList runs go list with flags on m's packages (./...) in root for
// target t, without cgo, and returns its output; its error names the
// command's flags, m's directory and t, and quotes go list's stderr.
func goList(root string, m module, t target, flags ...string) ([]byte, error) {
	cmd := exec.Command("go", append(append([]string{"list"}, flags...), "./...")...)
	cmd.Dir = root + "/" + m.Dir
	cmd.Env = append(os.Environ(), "GOOS="+t.GOOS, "GOARCH="+t.GOARCH, "CGO_ENABLED=0")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		what := "go list"
		if flags[0] == "-export" {
			what = "go list -export"
		}
		return nil, fmt.Errorf("%s in %s for %s/%s: %v\n%s", what, m.Dir, t.GOOS, t.GOARCH, err, stderr.String())
	}
	return out, nil
}

// listTarget compiles m's packages for t (go list -export, so the build
// cache makes it fast) and lists their API from the compiler's export data.
func listTarget(root string, m module, t target) ([]string, error) {
	out, err := goList(root, m, t, "-export", "-deps", "-json=ImportPath,Name,Export,GoFiles,DepOnly,Standard,Module,Error")
	if err != nil {
		return nil, err
	}
	exports := map[string]string{}
	var mine []listPackage
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p listPackage
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			return nil, fmt.Errorf("reading go list's output: %v", err)
		}
		if p.Error != nil {
			return nil, fmt.Errorf("package %s: %s", p.ImportPath, p.Error.Err)
		}
		exports[p.ImportPath] = p.Export
		if !p.DepOnly && p.Module != nil && p.Module.Path == m.Path && p.Name != "main" && len(p.GoFiles) > 0 && !internal(m.Path, p.ImportPath) {
			// (A directory of tests alone has no GoFiles and no API.)
			mine = append(mine, p)
		}
	}
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		file := exports[path]
		if file == "" {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(file)
	})
	var lines []string
	for _, p := range mine {
		pkg, err := imp.Import(p.ImportPath)
		if err != nil {
			return nil, fmt.Errorf("reading the export data of %s: %v", p.ImportPath, err)
		}
		lines = append(lines, packageAPI(pkg)...)
	}
	return lines, nil
}

// internal reports whether pkg is an internal package of module mod, one
// that mod's users cannot import.
func internal(mod, pkg string) bool {
	rel := strings.TrimPrefix(strings.TrimPrefix(pkg, mod), "/")
	return rel == "internal" || strings.HasPrefix(rel, "internal/") || strings.Contains(rel, "/internal/") || strings.HasSuffix(rel, "/internal")
}

// packageAPI lists pkg's exported API, one line per feature: every
// exported constant (type and value), variable, function, type (its
// underlying type, every exported field, every method of an interface),
// and every method in the method set of an exported type or a pointer to
// it, promoted ones included. Parameter names are left out: renaming a
// parameter breaks no caller.
func packageAPI(pkg *types.Package) []string {
	w := &writer{pkg: pkg}
	prefix := "pkg " + pkg.Path() + ", "
	var lines []string
	add := func(s string) { lines = append(lines, prefix+s) }
	scope := pkg.Scope()
	for _, name := range scope.Names() {
		obj := scope.Lookup(name)
		if !obj.Exported() {
			continue
		}
		switch obj := obj.(type) {
		case *types.Const:
			add("const " + name + " " + w.typ(obj.Type()) + " = " + obj.Val().ExactString())
		case *types.Var:
			add("var " + name + " " + w.typ(obj.Type()))
		case *types.Func:
			sig := obj.Type().(*types.Signature)
			add("func " + name + w.typeParams(sig.TypeParams()) + w.signature(sig))
		case *types.TypeName:
			lines = append(lines, w.typeName(prefix, obj)...)
		}
	}
	return lines
}

// typeName lists a type's declaration, fields, interface methods and methods.
func (w *writer) typeName(prefix string, obj *types.TypeName) []string {
	var lines []string
	add := func(s string) { lines = append(lines, prefix+s) }
	name := obj.Name()
	if obj.IsAlias() {
		add("type " + name + " = " + w.typ(types.Unalias(obj.Type())))
		return lines
	}
	named := obj.Type().(*types.Named)
	decl := "type " + name + w.typeParams(named.TypeParams())
	switch u := named.Underlying().(type) {
	case *types.Struct:
		add(decl + " struct")
		for _, f := range exportedFields(u) {
			if f.Embedded() {
				add("type " + name + " struct, embedded " + w.typ(f.Type()))
			} else {
				add("type " + name + " struct, " + f.Name() + " " + w.typ(f.Type()))
			}
		}
	case *types.Interface:
		var names []string
		if !u.IsMethodSet() {
			// A constraint: its type set is API too (D DB accepts these).
			for i := 0; i < u.NumEmbeddeds(); i++ {
				names = append(names, w.typ(u.EmbeddedType(i)))
			}
		}
		unexported := false
		for i := 0; i < u.NumMethods(); i++ {
			m := u.Method(i)
			if !m.Exported() {
				unexported = true
				continue
			}
			names = append(names, m.Name())
			add("type " + name + " interface, " + m.Name() + w.signature(m.Type().(*types.Signature)))
		}
		if unexported {
			// Only the package can implement it: adding a method breaks nobody.
			names = append(names, "unexported methods")
		}
		if len(names) == 0 {
			add(decl + " interface {}")
		} else {
			add(decl + " interface { " + strings.Join(names, ", ") + " }")
		}
	default:
		add(decl + " " + w.typ(u))
	}
	if _, ok := named.Underlying().(*types.Interface); ok {
		return lines
	}
	recv := name
	if tp := named.TypeParams(); tp.Len() > 0 {
		var ps []string
		for i := 0; i < tp.Len(); i++ {
			ps = append(ps, tp.At(i).Obj().Name())
		}
		recv += "[" + strings.Join(ps, ", ") + "]"
	}
	value := types.NewMethodSet(named)
	ptr := types.NewMethodSet(types.NewPointer(named))
	for i := 0; i < ptr.Len(); i++ {
		m := ptr.At(i).Obj().(*types.Func)
		if !m.Exported() {
			continue
		}
		r := "*" + recv
		if value.Lookup(m.Pkg(), m.Name()) != nil {
			r = recv
		}
		add("method (" + r + ") " + m.Name() + w.signature(m.Type().(*types.Signature)))
	}
	return lines
}

// exportedFields returns s's exported fields, and those promoted from its
// unexported embedded structs (users reach them through s).
func exportedFields(s *types.Struct) []*types.Var {
	var fs []*types.Var
	for i := 0; i < s.NumFields(); i++ {
		f := s.Field(i)
		if f.Exported() {
			fs = append(fs, f)
			continue
		}
		if f.Embedded() {
			t := f.Type()
			if p, ok := t.(*types.Pointer); ok {
				t = p.Elem()
			}
			if inner, ok := t.Underlying().(*types.Struct); ok {
				fs = append(fs, exportedFields(inner)...)
			}
		}
	}
	return fs
}

// A writer writes types as Go source without parameter names, qualifying
// names of other packages by their package name.
type writer struct{ pkg *types.Package }

func (w *writer) typ(t types.Type) string {
	var b strings.Builder
	w.write(&b, t)
	return b.String()
}

func (w *writer) write(b *strings.Builder, t types.Type) {
	switch t := t.(type) {
	case *types.Basic:
		b.WriteString(t.Name())
	case *types.Alias:
		w.writeName(b, t.Obj(), t.TypeArgs())
	case *types.Named:
		w.writeName(b, t.Obj(), t.TypeArgs())
	case *types.TypeParam:
		b.WriteString(t.Obj().Name())
	case *types.Pointer:
		b.WriteString("*")
		w.write(b, t.Elem())
	case *types.Slice:
		b.WriteString("[]")
		w.write(b, t.Elem())
	case *types.Array:
		fmt.Fprintf(b, "[%d]", t.Len())
		w.write(b, t.Elem())
	case *types.Map:
		b.WriteString("map[")
		w.write(b, t.Key())
		b.WriteString("]")
		w.write(b, t.Elem())
	case *types.Chan:
		switch t.Dir() {
		case types.SendRecv:
			b.WriteString("chan ")
		case types.SendOnly:
			b.WriteString("chan<- ")
		case types.RecvOnly:
			b.WriteString("<-chan ")
		}
		w.write(b, t.Elem())
	case *types.Signature:
		b.WriteString("func")
		b.WriteString(w.signature(t))
	case *types.Struct:
		b.WriteString("struct{")
		for i := 0; i < t.NumFields(); i++ {
			if i > 0 {
				b.WriteString("; ")
			}
			f := t.Field(i)
			if !f.Embedded() {
				b.WriteString(f.Name() + " ")
			}
			w.write(b, f.Type())
		}
		b.WriteString("}")
	case *types.Interface:
		if t.IsImplicit() { // [T ~int | ~string]
			w.write(b, t.EmbeddedType(0))
			return
		}
		if t.Empty() && t.IsMethodSet() {
			b.WriteString("any")
			return
		}
		// Type sets and embedded interfaces, as declared.
		b.WriteString("interface{")
		first := true
		sep := func() {
			if !first {
				b.WriteString("; ")
			}
			first = false
		}
		for i := 0; i < t.NumEmbeddeds(); i++ {
			sep()
			w.write(b, t.EmbeddedType(i))
		}
		for i := 0; i < t.NumExplicitMethods(); i++ {
			sep()
			m := t.ExplicitMethod(i)
			b.WriteString(m.Name() + w.signature(m.Type().(*types.Signature)))
		}
		b.WriteString("}")
	case *types.Union:
		for i := 0; i < t.Len(); i++ {
			if i > 0 {
				b.WriteString(" | ")
			}
			if t.Term(i).Tilde() {
				b.WriteString("~")
			}
			w.write(b, t.Term(i).Type())
		}
	case *types.Tuple:
		w.tuple(b, t, false)
	default:
		panic(fmt.Sprintf("apicheck: unexpected type %T %v", t, t))
	}
}

func (w *writer) writeName(b *strings.Builder, obj *types.TypeName, args *types.TypeList) {
	if obj.Pkg() != nil && obj.Pkg() != w.pkg {
		b.WriteString(obj.Pkg().Path() + ".")
	}
	b.WriteString(obj.Name())
	if args.Len() > 0 {
		b.WriteString("[")
		for i := 0; i < args.Len(); i++ {
			if i > 0 {
				b.WriteString(", ")
			}
			w.write(b, args.At(i))
		}
		b.WriteString("]")
	}
}

// signature writes "(params) results" without names.
func (w *writer) signature(sig *types.Signature) string {
	var b strings.Builder
	w.tuple(&b, sig.Params(), sig.Variadic())
	switch res := sig.Results(); res.Len() {
	case 0:
	case 1:
		b.WriteString(" ")
		w.write(&b, res.At(0).Type())
	default:
		b.WriteString(" ")
		w.tuple(&b, res, false)
	}
	return b.String()
}

func (w *writer) tuple(b *strings.Builder, t *types.Tuple, variadic bool) {
	b.WriteString("(")
	for i := 0; i < t.Len(); i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		typ := t.At(i).Type()
		if variadic && i == t.Len()-1 {
			b.WriteString("...")
			typ = typ.(*types.Slice).Elem()
		}
		w.write(b, typ)
	}
	b.WriteString(")")
}

func (w *writer) typeParams(tp *types.TypeParamList) string {
	if tp.Len() == 0 {
		return ""
	}
	var ps []string
	for i := 0; i < tp.Len(); i++ {
		p := tp.At(i)
		ps = append(ps, p.Obj().Name()+" "+w.typ(p.Constraint()))
	}
	return "[" + strings.Join(ps, ", ") + "]"
}
