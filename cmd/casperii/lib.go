package main

import (
	"bytes"
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

const (
	libName    = "libcasperii.so"
	modulePath = "github.com/casperii/casperii"
)

// libFinder finds lib/libcasperii.so. Its fields are the facts the search
// depends on, so that tests can set them.
type libFinder struct {
	getenv  func(string) string
	exe     string // the running executable, symlinks resolved ("" unknown)
	srcFile string // this source file's path at build time ("" unknown, e.g. -trimpath)
	cwd     string
	// build builds the library into out from the source tree at repo.
	build func(repo, out string) error
	log   io.Writer // where a build is announced
}

// libFound is a library found, and how.
type libFound struct {
	path string
	how  string // "given with -lib", "from $CASPERII_LIB", "next to the executable", ...
	repo string // the source tree the library belongs to, when it is one's lib/
}

func newLibFinder(log io.Writer) libFinder {
	f := libFinder{getenv: os.Getenv, log: log, build: buildLib}
	if exe, err := os.Executable(); err == nil {
		if r, err := filepath.EvalSymlinks(exe); err == nil {
			exe = r
		}
		f.exe = exe
	}
	if _, file, _, ok := runtime.Caller(0); ok && filepath.IsAbs(file) {
		f.srcFile = file
	}
	f.cwd, _ = os.Getwd()
	return f
}

// find returns the library to preload: explicit (the -lib flag) if given,
// else $CASPERII_LIB, else ../lib/libcasperii.so next to the executable
// (an installed bin/ and lib/, or the source tree's bin/), else the lib/
// of the source tree casperii was built from or is run in (go run), built
// there if it is missing.
func (f libFinder) find(explicit string) (libFound, error) {
	if explicit != "" {
		return f.check(explicit, "given with -lib", "-lib "+explicit)
	}
	if v := f.getenv("CASPERII_LIB"); v != "" {
		return f.check(v, "from $CASPERII_LIB", "CASPERII_LIB="+v)
	}
	var looked []string
	if f.exe != "" {
		dir := filepath.Dir(f.exe)
		for _, p := range []string{filepath.Join(dir, "..", "lib", libName), filepath.Join(dir, libName)} {
			p = filepath.Clean(p)
			looked = append(looked, p)
			if isFile(p) {
				found, err := f.check(p, "next to the executable", p)
				found.repo = f.repoOf(p)
				return found, err
			}
		}
	}
	repo := f.repo()
	if repo == "" {
		return libFound{}, fmt.Errorf("casperii: %s not found (looked at %s); set CASPERII_LIB to its path, or run make build in the CasperII source tree",
			libName, strings.Join(looked, ", "))
	}
	p := filepath.Join(repo, "lib", libName)
	if isFile(p) {
		found, err := f.check(p, "in the source tree", p)
		found.repo = repo
		return found, err
	}
	if f.build == nil {
		return libFound{}, fmt.Errorf("casperii: %s is missing; run make build in %s", p, repo)
	}
	fmt.Fprintf(f.log, "casperii: %s is missing; building it: go build -buildmode=c-shared -o lib/%s ./cmd/libcasperii (in %s)\n", p, libName, repo)
	if err := f.build(repo, p); err != nil {
		return libFound{}, fmt.Errorf("casperii: building %s failed: %v; fix the build, or run make build in %s", p, err, repo)
	}
	found, err := f.check(p, "built from the source tree", p)
	found.repo = repo
	return found, err
}

// repo returns the CasperII source tree casperii belongs to: the one its
// source file was compiled from (go run, go build), else one above the
// executable or the working directory. "" if none.
func (f libFinder) repo() string {
	for _, start := range []string{filepath.Dir(f.srcFile), filepath.Dir(f.exe), f.cwd} {
		if start == "." || start == "" {
			continue
		}
		if r := findRepo(start); r != "" {
			return r
		}
	}
	return ""
}

// repoOf returns the source tree whose lib/ holds the library p, or "".
func (f libFinder) repoOf(p string) string {
	dir := filepath.Dir(filepath.Dir(p))
	if isRepo(dir) {
		return dir
	}
	return ""
}

// findRepo walks up from dir to a directory holding CasperII's go.mod.
func findRepo(dir string) string {
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if isRepo(d) {
			return d
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
}

func isRepo(dir string) bool {
	b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	return err == nil && bytes.Contains(b, []byte("module "+modulePath+"\n"))
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

// check makes sure p is CasperII's library: a shared object that defines
// MPI_Init. what names p in messages.
func (f libFinder) check(p, how, what string) (libFound, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return libFound{}, fmt.Errorf("casperii: %s: %v", what, err)
	}
	if !isFile(abs) {
		return libFound{}, fmt.Errorf("casperii: %s: no such file; point it at lib/%s (make build writes it)", what, libName)
	}
	if err := checkLibELF(abs); err != nil {
		return libFound{}, fmt.Errorf("casperii: %s: %v; rebuild it with make build", what, err)
	}
	return libFound{path: abs, how: how}, nil
}

// checkLibELF reports whether p is a shared object defining MPI_Init.
func checkLibELF(p string) error {
	ef, err := elf.Open(p)
	if err != nil {
		return fmt.Errorf("not a shared library (%v)", err)
	}
	defer ef.Close()
	if ef.Type != elf.ET_DYN {
		return errors.New("not a shared library")
	}
	syms, err := ef.DynamicSymbols()
	if err != nil {
		return fmt.Errorf("no dynamic symbols (%v)", err)
	}
	for _, s := range syms {
		if s.Name == "MPI_Init" && s.Section != elf.SHN_UNDEF {
			return nil
		}
	}
	return errors.New("not CasperII's library (it does not define MPI_Init)")
}

// buildLib builds the library with go build.
func buildLib(repo, out string) error {
	cmd := exec.Command("go", "build", "-buildmode=c-shared", "-o", out, "./cmd/libcasperii")
	cmd.Dir = repo
	b, err := cmd.CombinedOutput()
	if err != nil {
		first, _, _ := strings.Cut(strings.TrimSpace(string(b)), "\n")
		if first == "" {
			return err
		}
		return fmt.Errorf("%v: %s", err, first)
	}
	return nil
}

// libSourceDirs are the directories of the packages the library is built
// from (go list -deps ./cmd/libcasperii; a test checks the list).
var libSourceDirs = []string{"cmd/libcasperii", "internal", "info", "commexpand", "postcell", "spsc", "tagenc", "greq"}

// staleSource returns a source file of the library (Go, C or header, not a
// test) in repo changed after the library at lib was built, or "".
func staleSource(repo, lib string) string {
	st, err := os.Stat(lib)
	if err != nil {
		return ""
	}
	built := st.ModTime()
	var newest string
	var newestT time.Time
	for _, dir := range libSourceDirs {
		filepath.WalkDir(filepath.Join(repo, dir), func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if d.IsDir() {
				if d.Name() == "testdata" || d.Name() == "mpitest" {
					return filepath.SkipDir
				}
				return nil
			}
			n := d.Name()
			if strings.HasSuffix(n, "_test.go") || !(strings.HasSuffix(n, ".go") || strings.HasSuffix(n, ".c") || strings.HasSuffix(n, ".h")) {
				return nil
			}
			if info, err := d.Info(); err == nil && info.ModTime().After(built) && info.ModTime().After(newestT) {
				newest, newestT = p, info.ModTime()
			}
			return nil
		})
	}
	if newest == "" {
		return ""
	}
	rel, err := filepath.Rel(repo, newest)
	if err != nil {
		return newest
	}
	return rel
}
