// Package layoutgen turns a C header's shared-memory layout into Go, so that
// the header stays the one definition of every layout that C and Go
// processes map together (the ring, the post cell, the channel).
//
// The input is a Go file that names what the Go side needs from the
// header, written as cgo references and excluded from every build by
// "//go:build ignore":
//
//	// Size is the size of a cell in bytes.
//	const Size = C.CSP_CELL_SIZE
//
//	// Cell is struct csp_cell.
//	type Cell C.struct_csp_cell
//
// Generate runs "go tool cgo -godefs" on it, which asks the C compiler for
// the value of every constant and the offset, size and type of every struct
// member, and writes the input back with each C reference replaced by what
// the compiler said: constants become literals, structs become Go structs
// with the same members at the same offsets. Comments and declarations of
// the input are kept as they are; C member names become Go names (tag_mask
// becomes TagMask) and members named pad* or reserved* become blank fields.
// The result carries a "Code generated ... DO NOT EDIT." line and imports
// nothing: packages built from it stay pure Go.
//
// layoutgen must not import any package of this module.
package layoutgen

import (
	"bytes"
	"debug/dwarf"
	"debug/elf"
	"errors"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// Generate reads the definitions file in (a path) and returns the Go
// source generated from it. The C compiler runs in the directory of in, so
// #include "x.h" finds headers beside it; the headers included with quotes
// are named in the "Code generated" line.
func Generate(in string) ([]byte, error) {
	src, err := os.ReadFile(in)
	if err != nil {
		return nil, err
	}
	defs, err := godefs(in)
	if err != nil {
		return nil, err
	}
	values, types, err := resolved(defs)
	if err != nil {
		return nil, err
	}
	members, err := memberNames(in, src)
	if err != nil {
		return nil, err
	}
	// Read the headers here too, though cgo already did: a test calling
	// Generate then records them as its inputs, so the go command's test
	// cache is invalidated by an edit to a header.
	for _, h := range includes(string(src)) {
		if _, err := os.ReadFile(filepath.Join(filepath.Dir(in), h)); err != nil {
			return nil, err
		}
	}
	return rewrite(filepath.Base(in), src, values, types, members)
}

// Check regenerates out from in and returns an error saying how to
// refresh out if the file on disk differs from what Generate returns.
func Check(in, out string) error {
	want, err := Generate(in)
	if err != nil {
		return err
	}
	have, err := os.ReadFile(out)
	if err != nil {
		return err
	}
	if bytes.Equal(want, have) {
		return nil
	}
	w, h := strings.Split(string(want), "\n"), strings.Split(string(have), "\n")
	line := 0
	for line < len(w) && line < len(h) && w[line] == h[line] {
		line++
	}
	get := func(l []string) string {
		if line < len(l) {
			return l[line]
		}
		return "(end of file)"
	}
	return fmt.Errorf("%s is stale: line %d is %q, %s gives %q; run go generate in %s",
		out, line+1, get(h), filepath.Base(in), get(w), filepath.Dir(out))
}

// godefs runs "go tool cgo -godefs" on in and returns its output.
func godefs(in string) ([]byte, error) {
	tmp, err := os.MkdirTemp("", "layoutgen")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	cmd := exec.Command(goTool(), "tool", "cgo", "-godefs", "-objdir", tmp+string(filepath.Separator), filepath.Base(in))
	cmd.Dir = filepath.Dir(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("layoutgen: go tool cgo -godefs %s: %v\n%s", in, err, stderr.Bytes())
	}
	return out, nil
}

// goTool returns the go command: the one of this toolchain if present.
func goTool() string {
	if p := filepath.Join(runtime.GOROOT(), "bin", "go"); runtime.GOROOT() != "" {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return "go"
}

// RequireFresh is the stale check of a package whose layout is generated
// (go generate: layoutgen layout_defs.go layout_gen.go): it regenerates
// layout_gen.go from the header and fails t if the checked-in file
// differs, or skips t where Generate cannot run. Each such package calls
// it from its TestLayoutGenerated.
func RequireFresh(t testing.TB) {
	t.Helper()
	if err := Available(); err != nil {
		t.Skipf("cannot run cgo -godefs here: %v", err)
	}
	if err := Check("layout_defs.go", "layout_gen.go"); err != nil {
		t.Fatal(err)
	}
}

// Available reports why Generate cannot run here (no go command, no C
// compiler), or nil if it can.
func Available() error {
	if _, err := exec.LookPath(goTool()); err != nil {
		return err
	}
	cc, err := compiler()
	if err != nil {
		return err
	}
	_, err = exec.LookPath(cc[0])
	return err
}

// resolved parses the output of cgo -godefs: the value of every constant
// and the struct type of every type, by Go name.
func resolved(defs []byte) (map[string]string, map[string]*ast.StructType, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "godefs.go", defs, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("layoutgen: parsing cgo -godefs output: %v\n%s", err, defs)
	}
	values := map[string]string{}
	types := map[string]*ast.StructType{}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok {
			continue
		}
		for _, s := range g.Specs {
			switch s := s.(type) {
			case *ast.ValueSpec:
				for i, n := range s.Names {
					if i < len(s.Values) {
						if lit, ok := s.Values[i].(*ast.BasicLit); ok && lit.Kind == token.INT {
							values[n.Name] = lit.Value
						}
					}
				}
			case *ast.TypeSpec:
				if st, ok := s.Type.(*ast.StructType); ok {
					types[s.Name.Name] = st
				}
			}
		}
	}
	return values, types, nil
}

// edit replaces src[from:to] with text.
type edit struct {
	from, to int
	text     string
}

// rewrite writes src back with the build constraint, the cgo import and
// every C reference replaced.
func rewrite(name string, src []byte, values map[string]string, types map[string]*ast.StructType, members map[string][]string) ([]byte, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, parser.ParseComments)
	if err != nil {
		return nil, err
	}
	off := func(p token.Pos) int { return fset.Position(p).Offset }
	var edits []edit
	var errs []error
	var headers []string
	for _, cg := range f.Comments {
		for _, c := range cg.List {
			if strings.HasPrefix(c.Text, "//go:build") || strings.HasPrefix(c.Text, "//go:generate") {
				edits = append(edits, edit{off(c.Pos()), off(c.End()), ""})
			}
		}
	}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok {
			errs = append(errs, fmt.Errorf("%s: only const and type declarations are allowed", fset.Position(d.Pos())))
			continue
		}
		switch g.Tok {
		case token.IMPORT:
			from := g.Pos()
			if g.Doc != nil {
				from = g.Doc.Pos() // the cgo preamble
				headers = append(headers, includes(g.Doc.Text())...)
			}
			edits = append(edits, edit{off(from), off(g.End()), ""})
		case token.CONST:
			for _, s := range g.Specs {
				vs := s.(*ast.ValueSpec)
				for i, v := range vs.Values {
					if !isC(v) {
						continue
					}
					val, ok := values[vs.Names[i].Name]
					if !ok {
						errs = append(errs, fmt.Errorf("%s: cgo gave no integer value for %s", fset.Position(v.Pos()), vs.Names[i].Name))
						continue
					}
					edits = append(edits, edit{off(v.Pos()), off(v.End()), literal(val)})
				}
			}
		case token.TYPE:
			for _, s := range g.Specs {
				ts := s.(*ast.TypeSpec)
				if !isC(ts.Type) {
					continue
				}
				st, ok := types[ts.Name.Name]
				if !ok {
					errs = append(errs, fmt.Errorf("%s: cgo gave no struct for %s", fset.Position(ts.Pos()), ts.Name.Name))
					continue
				}
				cname := ts.Type.(*ast.SelectorExpr).Sel.Name
				text, err := structText(st, members[strings.TrimPrefix(cname, "struct_")])
				if err != nil {
					errs = append(errs, fmt.Errorf("%s: %s: %v", fset.Position(ts.Pos()), cname, err))
					continue
				}
				edits = append(edits, edit{off(ts.Type.Pos()), off(ts.Type.End()), text})
			}
		default:
			errs = append(errs, fmt.Errorf("%s: only const and type declarations are allowed", fset.Position(d.Pos())))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("layoutgen: %w", err)
	}
	sort.Slice(edits, func(i, j int) bool { return edits[i].from > edits[j].from })
	out := append([]byte(nil), src...)
	for _, e := range edits {
		out = append(out[:e.from], append([]byte(e.text), out[e.to:]...)...)
	}
	head := fmt.Sprintf("// Code generated by layoutgen from %s via %s; DO NOT EDIT.\n\n", strings.Join(headers, ", "), name)
	res, err := format.Source(append([]byte(head), out...))
	if err != nil {
		return nil, fmt.Errorf("layoutgen: formatting the result: %v\n%s", err, out)
	}
	if bytes.Contains(res, []byte("C.")) && hasCRef(res) {
		return nil, fmt.Errorf("layoutgen: a C reference is left in the result:\n%s", res)
	}
	return res, nil
}

// includes returns the files a cgo preamble includes with quotes.
func includes(preamble string) []string {
	var hs []string
	for _, l := range strings.Split(preamble, "\n") {
		l = strings.TrimSpace(l)
		if rest, ok := strings.CutPrefix(l, "#include"); ok {
			rest = strings.TrimSpace(rest)
			if len(rest) > 2 && rest[0] == '"' {
				hs = append(hs, strings.Trim(rest, `"`))
			}
		}
	}
	return hs
}

// isC reports whether e is a cgo reference, C.x.
func isC(e ast.Expr) bool {
	sel, ok := e.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	id, ok := sel.X.(*ast.Ident)
	return ok && id.Name == "C"
}

// hasCRef reports whether the Go source src still refers to package C.
func hasCRef(src []byte) bool {
	f, err := parser.ParseFile(token.NewFileSet(), "", src, 0)
	if err != nil {
		return true
	}
	found := false
	ast.Inspect(f, func(n ast.Node) bool {
		if e, ok := n.(ast.Expr); ok && isC(e) {
			found = true
		}
		return !found
	})
	return found
}

// literal writes an integer from cgo (always hex) in decimal when small.
func literal(v string) string {
	n, err := strconv.ParseUint(v, 0, 64)
	if err != nil || n >= 1<<16 {
		return v
	}
	return strconv.FormatUint(n, 10)
}

// structText writes a godefs struct with Go member names. cgo -godefs
// names members itself, stripping a prefix that all members with an
// underscore share (ghost_wrank and ghost_pid would become Wrank and Pid),
// so the names come from the C compiler's debug information instead, in
// member order; the padding cgo adds (Pad_cgo_*) has no C member.
func structText(st *ast.StructType, members []string) (string, error) {
	var b strings.Builder
	b.WriteString("struct {\n")
	i := 0
	for _, fl := range st.Fields.List {
		var typ bytes.Buffer
		format.Node(&typ, token.NewFileSet(), fl.Type)
		for _, n := range fl.Names {
			name := "_"
			if !strings.HasPrefix(n.Name, "Pad_cgo_") && n.Name != "_" {
				if i >= len(members) {
					return "", fmt.Errorf("cgo gave more members than the C compiler (%v)", members)
				}
				name = GoName(members[i])
				i++
			}
			fmt.Fprintf(&b, "\t%s %s\n", name, typ.String())
		}
	}
	if i != len(members) {
		return "", fmt.Errorf("cgo gave %d members, the C compiler %d (%v)", i, len(members), members)
	}
	b.WriteString("}")
	return b.String(), nil
}

// memberNames compiles the preamble of the definitions file src (at path
// in) with debug information and returns the member names of every struct
// it names as C.struct_x, by x, in declaration order.
func memberNames(in string, src []byte) (map[string][]string, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, in, src, parser.ParseComments)
	if err != nil {
		return nil, err
	}
	var preamble string
	want := map[string]bool{}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok {
			continue
		}
		if g.Tok == token.IMPORT && g.Doc != nil {
			preamble = g.Doc.Text()
		}
		for _, s := range g.Specs {
			if ts, ok := s.(*ast.TypeSpec); ok && isC(ts.Type) {
				if n, ok := strings.CutPrefix(ts.Type.(*ast.SelectorExpr).Sel.Name, "struct_"); ok {
					want[n] = true
				}
			}
		}
	}
	if len(want) == 0 {
		return nil, nil
	}
	tmp, err := os.MkdirTemp("", "layoutgen")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	var c strings.Builder
	c.WriteString(preamble + "\n")
	for n := range want {
		fmt.Fprintf(&c, "struct %s *layoutgen_%s;\n", n, n)
	}
	cfile, obj := filepath.Join(tmp, "names.c"), filepath.Join(tmp, "names.o")
	if err := os.WriteFile(cfile, []byte(c.String()), 0o644); err != nil {
		return nil, err
	}
	cc, err := compiler()
	if err != nil {
		return nil, err
	}
	args := append(cc[1:], "-g", "-c", "-I", filepath.Dir(in), "-o", obj, cfile)
	if out, err := exec.Command(cc[0], args...).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("layoutgen: %s %v: %v\n%s", cc[0], args, err, out)
	}
	return structMembers(obj, want)
}

// structMembers reads the members of the wanted structs from the DWARF
// information of the object file obj.
func structMembers(obj string, want map[string]bool) (map[string][]string, error) {
	ef, err := elf.Open(obj)
	if err != nil {
		return nil, err
	}
	defer ef.Close()
	d, err := ef.DWARF()
	if err != nil {
		return nil, err
	}
	res := map[string][]string{}
	r := d.Reader()
	for {
		e, err := r.Next()
		if err != nil {
			return nil, err
		}
		if e == nil {
			break
		}
		name, _ := e.Val(dwarf.AttrName).(string)
		if e.Tag != dwarf.TagStructType || !want[name] || !e.Children || res[name] != nil {
			if e.Children && e.Tag != dwarf.TagCompileUnit {
				r.SkipChildren()
			}
			continue
		}
		ms := []string{}
		for {
			m, err := r.Next()
			if err != nil {
				return nil, err
			}
			if m == nil || m.Tag == 0 {
				break
			}
			if m.Tag == dwarf.TagMember {
				n, _ := m.Val(dwarf.AttrName).(string)
				ms = append(ms, n)
			}
			if m.Children {
				r.SkipChildren()
			}
		}
		res[name] = ms
	}
	for n := range want {
		if res[n] == nil {
			return nil, fmt.Errorf("layoutgen: the C compiler describes no struct %s", n)
		}
	}
	return res, nil
}

// compiler returns the C compiler command, as cgo would run it.
func compiler() ([]string, error) {
	cc := os.Getenv("CC")
	if cc == "" {
		out, err := exec.Command(goTool(), "env", "CC").Output()
		if err != nil {
			return nil, err
		}
		cc = strings.TrimSpace(string(out))
	}
	f := strings.Fields(cc)
	if len(f) == 0 {
		return nil, errors.New("layoutgen: no C compiler (go env CC is empty)")
	}
	return f, nil
}

// GoName is the Go name of a C struct member as cgo -godefs writes it
// (first letter upper-cased): snake_case becomes CamelCase, and padding
// (pad*, reserved*, cgo's Pad_cgo_*) becomes the blank identifier.
func GoName(c string) string {
	l := strings.ToLower(c)
	if strings.HasPrefix(l, "pad") || strings.HasPrefix(l, "reserved") || strings.HasPrefix(l, "_") {
		return "_"
	}
	var b strings.Builder
	for _, part := range strings.Split(c, "_") {
		if part != "" {
			b.WriteString(strings.ToUpper(part[:1]) + part[1:])
		}
	}
	return b.String()
}
