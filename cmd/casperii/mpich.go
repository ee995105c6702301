package main

import (
	"context"
	"debug/elf"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/casperii/casperii/internal/mpich"
)

// The MPI library the application must use: the one libcasperii.so is
// linked to (MPICH's, ABI version 12).
const mpichSoname = "libmpich.so.12"

// lddRunner runs ldd on a file and returns its output (stdout and stderr);
// a variable so that tests can feed it fake output.
var lddRunner = func(path string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "ldd", path).CombinedOutput()
	return string(out), err
}

// lddDep is one line of ldd's output: a needed library and where it
// resolved ("not found" when it did not).
type lddDep struct{ name, path string }

var lddLine = regexp.MustCompile(`^\s*(\S+)\s+=>\s+(.*?)(?:\s+\(0x[0-9a-f]+\))?\s*$`)

// parseLdd reads ldd's output. static is set when ldd says the file is
// not dynamically linked (a static binary or a script).
func parseLdd(out string) (deps []lddDep, static bool) {
	for _, line := range strings.Split(out, "\n") {
		t := strings.TrimSpace(line)
		if strings.Contains(t, "not a dynamic executable") || strings.Contains(t, "statically linked") {
			static = true
			continue
		}
		if m := lddLine.FindStringSubmatch(line); m != nil {
			deps = append(deps, lddDep{m[1], m[2]})
		}
	}
	return deps, static
}

// otherMPI names the MPI implementation a library that is not MPICH's
// libmpich.so.12 belongs to, or "" if it is not an MPI library.
func otherMPI(soname string) string {
	switch soname {
	case mpichSoname, "libmpichfort.so.12", "libmpichcxx.so.12": // MPICH's C, Fortran and C++ libraries
		return ""
	}
	switch {
	case strings.HasPrefix(soname, "libmpi.so.40"), strings.HasPrefix(soname, "libmpi_mpifh.so"),
		strings.HasPrefix(soname, "libmpi_usempi"), strings.HasPrefix(soname, "libopen-rte.so"),
		strings.HasPrefix(soname, "libopen-pal.so"), strings.HasPrefix(soname, "libmpi_cxx.so"):
		return "Open MPI"
	case strings.HasPrefix(soname, "libmpi.so.12"), strings.HasPrefix(soname, "libmpifort.so.12"):
		return "an MPICH-ABI MPI other than the MPICH libcasperii.so uses (Intel MPI, or an MPICH built from source)"
	case strings.HasPrefix(soname, "libmpich.so"), strings.HasPrefix(soname, "libmpichfort.so"):
		return "another MPICH version"
	case strings.HasPrefix(soname, "libmpi.so"), strings.HasPrefix(soname, "libmpi_"),
		strings.HasPrefix(soname, "libmpitrampoline.so"):
		return "a different MPI"
	}
	return ""
}

// appMPI is what checkApp found out about an application binary.
type appMPI struct {
	mpich     string // where libmpich.so.12 resolved ("" if not linked)
	static    bool   // not dynamically linked
	definesMP bool   // the binary itself defines MPI_Init (MPI linked statically)
}

// checkLddOutput judges ldd's output for the application app: an error if
// it uses another MPI than MPICH or MPICH is not found.
func checkLddOutput(app, out string) (appMPI, error) {
	deps, static := parseLdd(out)
	var a appMPI
	a.static = static && len(deps) == 0
	for _, d := range deps {
		if d.name == mpichSoname {
			if d.path == "not found" {
				return a, fmt.Errorf("casperii: %s needs %s, which the loader does not find; add MPICH's library directory to LD_LIBRARY_PATH", app, mpichSoname)
			}
			a.mpich = d.path
		}
	}
	for _, d := range deps {
		if impl := otherMPI(d.name); impl != "" {
			return a, fmt.Errorf("casperii: %s is linked to %s (%s), but libcasperii.so works with MPICH (%s) only; rebuild it with MPICH's mpicc/mpifort (mpicc.mpich and mpifort.mpich where Open MPI is the default)",
				app, impl, d.name, mpichSoname)
		}
	}
	return a, nil
}

// checkApp checks that the application binary at path uses MPICH.
func checkApp(app, path string) (appMPI, error) {
	out, err := lddRunner(path)
	if err != nil && !strings.Contains(out, "not a dynamic executable") && !strings.Contains(out, "=>") {
		// ldd failed for another reason than a static file: say so, do
		// not guess.
		return appMPI{}, fmt.Errorf("casperii: ldd %s failed (%v: %s); check that it is a program for this machine", path, err, strings.TrimSpace(out))
	}
	a, cerr := checkLddOutput(app, out)
	if cerr != nil {
		return a, cerr
	}
	if a.mpich == "" {
		a.definesMP = definesMPIInit(path)
	}
	return a, nil
}

// definesMPIInit reports whether the ELF file at path defines MPI_Init
// itself (MPI linked into the executable statically).
func definesMPIInit(path string) bool {
	ef, err := elf.Open(path)
	if err != nil {
		return false
	}
	defer ef.Close()
	for _, get := range []func() ([]elf.Symbol, error){ef.Symbols, ef.DynamicSymbols} {
		syms, err := get()
		if err != nil {
			continue
		}
		for _, s := range syms {
			if (s.Name == "MPI_Init" || s.Name == "PMPI_Init") && s.Section != elf.SHN_UNDEF {
				return true
			}
		}
	}
	return false
}

// libMPICH returns where the library's libmpich.so.12 resolves ("" if
// ldd fails).
func libMPICH(lib string) string {
	out, err := lddRunner(lib)
	if err != nil {
		return ""
	}
	deps, _ := parseLdd(out)
	for _, d := range deps {
		if d.name == mpichSoname {
			return d.path
		}
	}
	return ""
}

// versionRunner runs a command with a timeout and returns its combined
// output; a variable for tests.
var versionRunner = func(name string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, name, args...).CombinedOutput()
	return string(out), err
}

// findMPICH finds MPICH's commands (internal/mpich); a variable for tests.
var findMPICH = mpich.Find

// checkLauncher checks that the mpiexec at path (the command word given
// as word) is MPICH's Hydra, by what its --version says. Any other
// launcher is refused, naming MPICH's mpiexec to use instead: where Debian's
// alternatives make Open MPI the default, a plain mpiexec is Open MPI's.
func checkLauncher(word, path string) error {
	out, runErr := versionRunner(path, "--version")
	impl := mpich.Launcher(out)
	if impl == mpich.MPICH {
		return nil
	}
	var what string
	switch first := mpich.FirstLine(out); {
	case impl != "":
		what = fmt.Sprintf("is %s's launcher (%s)", impl, first)
	case runErr != nil:
		what = fmt.Sprintf("does not say it is MPICH's Hydra (%s --version: %v)", word, runErr)
	default:
		what = fmt.Sprintf("is not MPICH's Hydra (%s --version: %s)", word, first)
	}
	fix := "install MPICH (apt-get install mpich) and run the job with its mpiexec.mpich"
	if p, err := findMPICH("mpiexec"); err == nil && p != path {
		fix = "run the job with MPICH's " + p
	}
	return fmt.Errorf("casperii: %s (%s) %s; %s", word, path, what, fix)
}

// mpichVersion returns MPICH's version and device from mpichversion, or
// an explanation when it is not available.
func mpichVersion() string {
	p, err := findMPICH("mpichversion")
	if err != nil {
		return fmt.Sprintf("unknown (%v)", err)
	}
	out, err := versionRunner(p)
	if err != nil {
		return fmt.Sprintf("unknown (%s: %v)", p, err)
	}
	var version, device string
	for _, line := range strings.Split(out, "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		switch strings.TrimSpace(k) {
		case "MPICH Version":
			version = strings.TrimSpace(v)
		case "MPICH Device":
			device = strings.TrimSpace(v)
		}
	}
	if version == "" {
		return "unknown (mpichversion printed no version)"
	}
	device += ", " + filepath.Dir(p)
	return fmt.Sprintf("%s (%s)", version, strings.TrimPrefix(device, ", "))
}
