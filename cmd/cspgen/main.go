// Command cspgen generates the MPI_COMM_WORLD-mapping wrappers of the C
// interposer (internal/interpose/zz_wrappers.c) from MPICH's headers.
//
// It reads the prototypes of mpi_proto.h and mpio.h (multi-line
// prototypes, const, array parameters, attribute macros such as
// MPICH_ATTR_POINTER_WITH_TYPE_TAG; preprocessor conditionals evaluated
// against the macros mpi.h defines) and, for every MPI_ or MPIX_ function
// that
//
//   - has at least one MPI_Comm parameter passed by value,
//   - has a PMPI_ counterpart declared in the headers,
//   - is not defined by hand in the directory's other .c files, and
//   - is not in the skip list (skip.go),
//
// emits a definition that calls the PMPI_ function with every by-value
// MPI_Comm argument passed through CSP_IP_MAP (MPI_COMM_WORLD becomes the
// user world). Functions without a communicator are not wrapped: MPI's own
// definitions serve them.
//
// Hand-written wrappers are found by scanning the directory's .c files for
// definitions, so adding one (say MPI_Send_init) needs no change here:
// rerun go generate and the generated pass-through disappears. The
// functions listed in mustHandWrite (skip.go) must be hand-written; the
// generator fails if one is missing, because a generated pass-through would
// silently bypass the runtime.
//
// Usage (from internal/interpose, by go generate):
//
//	go run ../../cmd/cspgen -out zz_wrappers.c
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

func main() {
	inc := flag.String("include", "", "directory holding mpi.h, mpi_proto.h and mpio.h (default: from pkg-config mpich)")
	dir := flag.String("dir", ".", "directory of the hand-written wrappers (*.c)")
	out := flag.String("out", "zz_wrappers.c", "output file, written in -dir")
	flag.Parse()
	if err := run(*inc, *dir, *out); err != nil {
		fmt.Fprintln(os.Stderr, "cspgen:", err)
		os.Exit(1)
	}
}

func run(inc, dir, out string) error {
	if inc == "" {
		var err error
		if inc, err = includeDir(); err != nil {
			return err
		}
	}
	src, err := Generate(inc, dir, out)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, out), src, 0o644)
}

// includeDir finds mpi_proto.h in the include path pkg-config gives for
// mpich.
func includeDir() (string, error) {
	b, err := exec.Command("pkg-config", "--cflags-only-I", "mpich").Output()
	if err != nil {
		return "", fmt.Errorf("pkg-config --cflags-only-I mpich: %v (install MPICH's development package, or pass -include)", err)
	}
	for _, f := range strings.Fields(string(b)) {
		d := strings.TrimPrefix(f, "-I")
		if _, err := os.Stat(filepath.Join(d, "mpi_proto.h")); err == nil {
			return d, nil
		}
	}
	return "", fmt.Errorf("no mpi_proto.h in the include path of pkg-config mpich (%s); pass -include", strings.TrimSpace(string(b)))
}

// Generate returns the contents of the generated file for the headers in
// inc and the hand-written wrappers in dir (out itself excluded).
func Generate(inc, dir, out string) ([]byte, error) {
	mpih, err := os.ReadFile(filepath.Join(inc, "mpi.h"))
	if err != nil {
		return nil, err
	}
	defs := defines(string(mpih))
	var protos []Proto
	for _, h := range []string{"mpi_proto.h", "mpio.h"} {
		b, err := os.ReadFile(filepath.Join(inc, h))
		if err != nil {
			return nil, err
		}
		ps, err := Parse(activeText(string(b), defs), h)
		if err != nil {
			return nil, err
		}
		protos = append(protos, ps...)
	}
	hand, err := handWritten(dir, out)
	if err != nil {
		return nil, err
	}
	return Emit(protos, hand)
}

// handWritten returns the MPI_/MPIX_ functions defined in dir's .c files
// other than out.
func handWritten(dir, out string) (map[string]string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.c"))
	if err != nil {
		return nil, err
	}
	found := map[string]string{}
	for _, f := range files {
		if filepath.Base(f) == out {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		for _, name := range Definitions(string(b)) {
			found[name] = filepath.Base(f)
		}
	}
	return found, nil
}

// Definitions returns the names of the MPI_/MPIX_ functions defined (not
// just declared) in C source src.
func Definitions(src string) []string {
	src = blockComment.ReplaceAllString(src, "")
	src = lineComment.ReplaceAllString(src, "")
	var out []string
	for _, m := range definition.FindAllStringSubmatch(src, -1) {
		out = append(out, m[1])
	}
	return out
}
