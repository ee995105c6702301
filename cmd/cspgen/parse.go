package main

import (
	"fmt"
	"regexp"
	"strings"
)

// Param is one parameter of a prototype.
type Param struct {
	Type  string // the declaration without its name and array suffix, e.g. "const void *"
	Name  string // the parameter name; generated ("arg2") when the header omits it
	Array string // array suffix, e.g. "[]" or "[][3]"
}

// Decl returns the parameter as a C declaration.
func (p Param) Decl() string {
	t := p.Type
	if !strings.HasSuffix(t, "*") {
		t += " "
	}
	return t + p.Name + p.Array
}

// ByValueComm reports whether the parameter is an MPI_Comm passed by value.
func (p Param) ByValueComm() bool {
	return p.Array == "" && (p.Type == "MPI_Comm" || p.Type == "const MPI_Comm")
}

// Proto is one function prototype of an MPI header.
type Proto struct {
	Ret      string
	Name     string
	Params   []Param
	Variadic bool
	Header   string // file it was declared in
}

// CommParams returns the indices of the by-value MPI_Comm parameters.
func (p Proto) CommParams() []int {
	var out []int
	for i, q := range p.Params {
		if q.ByValueComm() {
			out = append(out, i)
		}
	}
	return out
}

// defines collects the macro names #define'd in a header, so conditionals
// of the prototype headers (#ifndef MPICH, #ifndef HAVE_MPI_INFO) can be
// evaluated.
func defines(src string) map[string]bool {
	out := map[string]bool{}
	for _, line := range strings.Split(src, "\n") {
		f := strings.Fields(strings.TrimPrefix(strings.TrimSpace(line), "#"))
		if strings.HasPrefix(strings.TrimSpace(line), "#") && len(f) >= 2 && f[0] == "define" {
			name := f[1]
			if i := strings.IndexByte(name, '('); i >= 0 {
				name = name[:i]
			}
			out[name] = true
		}
	}
	return out
}

var (
	blockComment = regexp.MustCompile(`(?s)/\*.*?\*/`)
	lineComment  = regexp.MustCompile(`//[^\n]*`)
	definedCall  = regexp.MustCompile(`^(!?)\s*defined\s*\(?\s*(\w+)\s*\)?$`)
)

// activeText returns the C text of src outside preprocessor directives and
// inside the branches of #if/#ifdef/#ifndef that are taken, given the
// macros defined so far (updated by the #define and #undef lines it
// passes). A condition it cannot evaluate counts as true; the compiler
// checks the result anyway.
func activeText(src string, defs map[string]bool) string {
	src = blockComment.ReplaceAllStringFunc(src, func(c string) string {
		return strings.Repeat("\n", strings.Count(c, "\n")) // keep line numbers
	})
	src = lineComment.ReplaceAllString(src, "")
	src = strings.ReplaceAll(src, "\\\n", " ")
	type frame struct{ parentOn, taken, on bool }
	var stack []frame
	on := true
	var b strings.Builder
	for _, line := range strings.Split(src, "\n") {
		t := strings.TrimSpace(line)
		if !strings.HasPrefix(t, "#") {
			if on {
				b.WriteString(line)
			}
			b.WriteByte('\n')
			continue
		}
		f := strings.Fields(strings.TrimSpace(t[1:]))
		if len(f) == 0 {
			continue
		}
		rest := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(t[1:]), f[0]))
		switch f[0] {
		case "ifdef", "ifndef", "if":
			cond := evalCond(f[0], rest, defs)
			stack = append(stack, frame{parentOn: on, taken: cond, on: on && cond})
			on = on && cond
		case "elif":
			if n := len(stack); n > 0 {
				top := &stack[n-1]
				cond := !top.taken && evalCond("if", rest, defs)
				top.taken = top.taken || cond
				top.on = top.parentOn && cond
				on = top.on
			}
		case "else":
			if n := len(stack); n > 0 {
				top := &stack[n-1]
				top.on = top.parentOn && !top.taken
				top.taken = true
				on = top.on
			}
		case "endif":
			if n := len(stack); n > 0 {
				on = stack[n-1].parentOn
				stack = stack[:n-1]
			}
		case "define":
			if on && len(f) >= 2 {
				name := f[1]
				if i := strings.IndexByte(name, '('); i >= 0 {
					name = name[:i]
				}
				defs[name] = true
			}
		case "undef":
			if on && len(f) >= 2 {
				delete(defs, f[1])
			}
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func evalCond(kind, expr string, defs map[string]bool) bool {
	switch kind {
	case "ifdef":
		return defs[strings.TrimSpace(expr)]
	case "ifndef":
		return !defs[strings.TrimSpace(expr)]
	}
	expr = strings.TrimSpace(expr)
	if m := definedCall.FindStringSubmatch(expr); m != nil {
		return defs[m[2]] != (m[1] == "!")
	}
	if expr == "0" {
		return false
	}
	return true
}

var (
	funcName  = regexp.MustCompile(`\b((?:P?MPIX?)_\w+)\s*\($`)
	attrMacro = regexp.MustCompile(`^[A-Z][A-Z0-9_]*(\s*\([^()]*\))?`)
	ident     = regexp.MustCompile(`[A-Za-z_]\w*$`)
	arraySfx  = regexp.MustCompile(`(\s*\[[^\]]*\])+$`)
)

// Parse returns the MPI, MPIX, PMPI and PMPIX function prototypes of a
// header's active text, in order. Typedefs and anything that is not a
// function prototype are ignored; a prototype it cannot understand is an
// error (so a new header never silently loses a wrapper).
func Parse(text, header string) ([]Proto, error) {
	var out []Proto
	for _, stmt := range strings.Split(text, ";") {
		s := strings.Join(strings.Fields(stmt), " ")
		if i := strings.LastIndexAny(s, "{}"); i >= 0 {
			s = strings.TrimSpace(s[i+1:])
		}
		if s == "" || strings.HasPrefix(s, "typedef") || !strings.Contains(s, "(") {
			continue
		}
		open := strings.IndexByte(s, '(')
		m := funcName.FindStringSubmatch(s[:open+1])
		if m == nil {
			continue
		}
		name := m[1]
		ret := strings.TrimSpace(s[:open-len(m[0])+1])
		if ret == "" || strings.Contains(ret, "(") || strings.HasPrefix(ret, "extern \"") {
			continue
		}
		close := matching(s, open)
		if close < 0 {
			return nil, fmt.Errorf("%s: %s: unbalanced parentheses", header, name)
		}
		tail := strings.TrimSpace(s[close+1:])
		for tail != "" {
			a := attrMacro.FindString(tail)
			if a == "" {
				return nil, fmt.Errorf("%s: %s: cannot read %q after the parameter list", header, name, tail)
			}
			tail = strings.TrimSpace(tail[len(a):])
		}
		p := Proto{Ret: ret, Name: name, Header: header}
		params, err := splitParams(s[open+1 : close])
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %w", header, name, err)
		}
		for i, raw := range params {
			switch raw {
			case "void":
				if len(params) == 1 {
					continue
				}
			case "...":
				p.Variadic = true
				continue
			}
			q, err := parseParam(raw, i)
			if err != nil {
				return nil, fmt.Errorf("%s: %s: %w", header, name, err)
			}
			p.Params = append(p.Params, q)
		}
		out = append(out, p)
	}
	return out, nil
}

// matching returns the index of the parenthesis closing s[open].
func matching(s string, open int) int {
	depth := 0
	for i := open; i < len(s); i++ {
		switch s[i] {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

func splitParams(s string) ([]string, error) {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(', '[':
			depth++
		case ')', ']':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, strings.TrimSpace(s[start:i]))
				start = i + 1
			}
		}
	}
	if last := strings.TrimSpace(s[start:]); last != "" || len(out) > 0 {
		out = append(out, last)
	}
	for _, p := range out {
		if p == "" {
			return nil, fmt.Errorf("empty parameter in %q", s)
		}
	}
	return out, nil
}

// parseParam splits "const int ranges[][3]" into type "const int", name
// "ranges" and suffix "[][3]". A parameter without a name ("MPI_Comm",
// "const char *") gets the name arg<i>.
func parseParam(raw string, i int) (Param, error) {
	if strings.Contains(raw, "(") {
		return Param{}, fmt.Errorf("parameter %q: function pointer syntax is not supported (use its typedef)", raw)
	}
	p := Param{}
	if sfx := arraySfx.FindString(raw); sfx != "" {
		p.Array = strings.ReplaceAll(sfx, " ", "")
		raw = strings.TrimSpace(raw[:len(raw)-len(sfx)])
	}
	words := strings.Fields(strings.ReplaceAll(raw, "*", " * "))
	last := ""
	if len(words) >= 2 {
		last = words[len(words)-1]
	}
	if last != "" && ident.MatchString(last) && !typeWord[last] && !isTypeName(last) {
		p.Name = last
		words = words[:len(words)-1]
	} else {
		p.Name = fmt.Sprintf("arg%d", i)
	}
	p.Type = strings.Join(words, " ")
	for strings.Contains(p.Type, "* *") {
		p.Type = strings.ReplaceAll(p.Type, "* *", "**")
	}
	return p, nil
}

// isTypeName reports whether w is spelled like an MPI type (MPI_Comm,
// MPIX_Grequest_class, MPIO_Request), which is never a parameter name.
func isTypeName(w string) bool {
	for _, p := range []string{"MPI_", "MPIX_", "MPIO_", "QMPI_"} {
		if strings.HasPrefix(w, p) {
			return true
		}
	}
	return false
}

// typeWord lists words that end a type, never a parameter name.
var typeWord = map[string]bool{
	"*": true, "int": true, "char": true, "long": true, "short": true, "double": true,
	"float": true, "void": true, "unsigned": true, "signed": true, "const": true,
}
