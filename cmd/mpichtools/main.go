// Command mpichtools reports which MPI the plain commands mpicc, mpifort,
// mpiexec and mpirun run on this machine (and whether Debian's
// alternatives chose it), and which of MPICH's commands CasperII's builds,
// tests and launcher use instead: the ones internal/mpich finds. It also
// checks mpichversion and `pkg-config mpich`, where cgo takes MPICH's
// mpi.h and -lmpich from. scripts/setup.sh prints its report.
//
//	go run ./cmd/mpichtools
//
// It exits with 1 when one of MPICH's commands is missing, the line of that
// command saying what was found instead and what to do.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/casperii/casperii/internal/mpich"
)

// tools are the commands reported, by their plain names.
var tools = []string{"mpicc", "mpifort", "mpiexec", "mpirun"}

// Variables for tests: Debian's directory of alternatives' links, and
// pkg-config.
var (
	alternatives = "/etc/alternatives"
	pkgConfig    = "pkg-config"
)

func main() {
	os.Exit(report(os.Stdout, os.Getenv("PATH")))
}

// report writes a line per command to w, searching path, then the lines of
// mpichversion and pkg-config; it returns the exit code.
func report(w io.Writer, path string) int {
	code := 0
	for _, name := range tools {
		line := name + " -> " + plain(name, path)
		if p, err := mpich.Lookup(name, path); err != nil {
			line += "; " + err.Error()
			code = 1
		} else {
			line += "; CasperII uses " + p
		}
		fmt.Fprintln(w, line)
	}
	if p, err := mpich.Lookup("mpichversion", path); err != nil {
		fmt.Fprintln(w, err)
		code = 1
	} else {
		_, detail := mpich.Identify("mpichversion", p)
		fmt.Fprintf(w, "%s (%s)\n", strings.Join(strings.Fields(detail), " "), p)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if out, err := exec.CommandContext(ctx, pkgConfig, "--modversion", "mpich").Output(); err != nil {
		fmt.Fprintf(w, "pkg-config mpich: %v; cgo needs MPICH's pkg-config file (apt-get install pkg-config libmpich-dev)\n", err)
		code = 1
	} else {
		fmt.Fprintf(w, "pkg-config mpich %s: cgo builds with MPICH's mpi.h and -lmpich\n", strings.TrimSpace(string(out)))
	}
	return code
}

// plain says which MPI the plain command name of path runs, and through
// which alternative: "Open MPI (alternatives: /usr/bin/mpicc.openmpi)",
// "MPICH (/opt/mpich/bin/mpicc)", "none".
func plain(name, path string) string {
	found := mpich.LookPath(name, path)
	if len(found) == 0 {
		return "none"
	}
	p := found[0]
	impl, detail := mpich.Identify(name, p)
	what := impl
	if impl == "" {
		what = mpich.Whose(impl, detail)
	}
	if alt := alternative(p); alt != "" {
		return fmt.Sprintf("%s (alternatives: %s)", what, alt)
	}
	return fmt.Sprintf("%s (%s)", what, p)
}

// alternative returns where Debian's alternatives point the command at p
// ("" if its symbolic links do not go through them).
func alternative(p string) string {
	for range 8 {
		t, err := os.Readlink(p)
		if err != nil {
			return ""
		}
		if !filepath.IsAbs(t) {
			t = filepath.Join(filepath.Dir(p), t)
		}
		if filepath.Dir(t) == alternatives {
			if v, err := os.Readlink(t); err == nil {
				if !filepath.IsAbs(v) {
					v = filepath.Join(alternatives, v)
				}
				return v
			}
			return t
		}
		p = t
	}
	return ""
}
