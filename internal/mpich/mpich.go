// Package mpich finds MPICH's commands: the compiler wrappers (mpicc,
// mpifort, ...), the launcher (mpiexec, mpirun) and mpichversion. It is the
// one way everything in this repository that builds or launches MPI
// programs gets them: the test harness (test/harness.go), mpitest, osubench,
// the casperii launcher and scripts/setup.sh (through cmd/mpichtools). Its
// C flags, for cgo and cspgen, come from `pkg-config mpich`, which is
// MPICH's whatever MPI is the default.
//
// Debian installs MPICH's commands with a .mpich suffix (mpicc.mpich,
// mpiexec.mpich, ...) and points the plain names at the MPI its
// alternatives prefer: Open MPI, as soon as any package pulls it in. So a
// command is looked up as <name>.mpich first, then as <name>, each through
// all of PATH in order, and the first found is taken whose own output says
// it is MPICH's:
// a compiler wrapper's -show names -lmpich, a launcher's --version is
// Hydra's, mpichversion prints an MPICH version. MPICH built from source
// (plain names only, its bin directory first in PATH) is found that way
// too.
package mpich

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Implementations a command's output can name.
const (
	MPICH    = "MPICH"
	OpenMPI  = "Open MPI"
	IntelMPI = "Intel MPI"
)

// Install is what to do when MPICH's commands are missing.
const Install = "install MPICH (bash scripts/setup.sh, or apt-get install mpich libmpich-dev) or put its bin directory first in PATH"

// kind is how a command tells whose it is.
type kind int

const (
	compiler   kind = iota // -show prints the compile command
	launcher               // --version
	versionCmd             // mpichversion
)

// kinds are the commands Find knows, by their plain name.
var kinds = map[string]kind{
	"mpicc": compiler, "mpicxx": compiler, "mpic++": compiler, "mpiCC": compiler,
	"mpifort": compiler, "mpif77": compiler, "mpif90": compiler,
	"mpiexec": launcher, "mpirun": launcher,
	"mpichversion": versionCmd,
}

// Find returns the path of MPICH's command name (mpicc, mpicxx, mpifort,
// mpiexec, mpirun or mpichversion) found through $PATH, or an error of one
// line saying what was found instead and what to do. The answer is
// remembered for the life of the process (per value of PATH).
func Find(name string) (string, error) {
	path := os.Getenv("PATH")
	key := name + "\x00" + path
	mu.Lock()
	defer mu.Unlock()
	if r, ok := cache[key]; ok {
		return r.path, r.err
	}
	p, err := Lookup(name, path)
	cache[key] = result{p, err}
	return p, err
}

type result struct {
	path string
	err  error
}

var (
	mu    sync.Mutex
	cache = map[string]result{}
)

// Lookup is Find in the directories of path (a list in PATH's syntax),
// without remembering the answer.
func Lookup(name, path string) (string, error) {
	if _, ok := kinds[name]; !ok {
		return "", fmt.Errorf("mpich: %s is not one of MPICH's commands this package knows", name)
	}
	var others []string
	for _, cand := range candidates(name) {
		for _, p := range LookPath(cand, path) {
			impl, detail := Identify(name, p)
			if impl == MPICH {
				return p, nil
			}
			others = append(others, fmt.Sprintf("%s is %s", p, Whose(impl, detail)))
		}
	}
	if len(others) == 0 {
		return "", fmt.Errorf("MPICH's %s is not on PATH (no %s); %s", name, strings.Join(candidates(name), " or "), Install)
	}
	return "", fmt.Errorf("MPICH's %s is not on PATH: %s; %s", name, strings.Join(others, "; "), Install)
}

// candidates are the names name is looked up under, in order.
func candidates(name string) []string {
	if name == "mpichversion" {
		return []string{name}
	}
	return []string{name + ".mpich", name}
}

// Whose describes the implementation impl (from Identify) for a message:
// "Open MPI's (mpiexec (OpenRTE) 4.1.4)", "not MPICH's (...)".
func Whose(impl, detail string) string {
	s := "not MPICH's"
	if impl != "" {
		s = impl + "'s"
	}
	if detail != "" {
		s += " (" + detail + ")"
	}
	return s
}

// LookPath returns every executable file called name in the absolute
// directories of path (a list in PATH's syntax), in order: exec.LookPath
// returns the first of them for $PATH.
func LookPath(name, path string) []string {
	var found []string
	seen := map[string]bool{}
	for _, dir := range filepath.SplitList(path) {
		if !filepath.IsAbs(dir) || seen[dir] {
			continue // as exec.LookPath, never a command of the working directory
		}
		seen[dir] = true
		p := filepath.Join(dir, name)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
			found = append(found, p)
		}
	}
	return found
}

// Identify runs the command at path the way commands called name (mpicc,
// mpiexec.hydra, ...) tell whose they are, and returns the implementation (MPICH,
// OpenMPI, IntelMPI or "" when the output names none) and the line of
// output that says so (or why it could not tell).
func Identify(name, path string) (impl, detail string) {
	plain, _, _ := strings.Cut(filepath.Base(name), ".") // mpiexec.hydra, mpicc.mpich
	k, ok := kinds[plain]
	switch {
	case !ok:
		return "", fmt.Sprintf("%s is not one of MPICH's commands this package knows", name)
	case k == compiler:
		// MPICH's wrappers print the command with -show; Open MPI's
		// accept -show too (and print -lmpi), or fail on it, and name
		// themselves with --showme:version.
		out, err := output(path, "-show")
		if err == nil && compilerIsMPICH(out) {
			return MPICH, FirstLine(out)
		}
		if v, verr := output(path, "--showme:version"); verr == nil {
			if impl := Names(v); impl != "" {
				return impl, FirstLine(v)
			}
		}
		if err != nil {
			return "", fmt.Sprintf("%s -show: %v", filepath.Base(path), errLine(err, out))
		}
		return Names(out), FirstLine(out)
	case k == launcher:
		out, err := output(path, "--version")
		if impl := Launcher(out); impl != "" {
			return impl, FirstLine(out)
		}
		if err != nil {
			return "", fmt.Sprintf("%s --version: %v", filepath.Base(path), errLine(err, out))
		}
		return "", FirstLine(out)
	default:
		out, err := output(path)
		if err == nil && strings.Contains(out, "MPICH Version:") {
			return MPICH, FirstLine(out)
		}
		if err != nil {
			return "", fmt.Sprintf("%s: %v", filepath.Base(path), errLine(err, out))
		}
		return "", FirstLine(out)
	}
}

// compilerIsMPICH reports whether a wrapper's -show output links MPICH
// (-lmpich, or -lmpichfort -lmpich for Fortran).
func compilerIsMPICH(show string) bool {
	for _, w := range strings.Fields(show) {
		if w == "-lmpich" {
			return true
		}
	}
	return false
}

// Launcher says whose launcher printed out (the output of its --version):
// MPICH for Hydra, OpenMPI, IntelMPI, or "" when it does not say.
func Launcher(out string) string {
	if strings.Contains(out, "HYDRA") && !strings.Contains(out, "Intel(R) MPI") {
		return MPICH
	}
	return Names(out)
}

// Names returns the MPI other than MPICH that out names (OpenMPI,
// IntelMPI) or "".
func Names(out string) string {
	switch {
	case strings.Contains(out, "Open MPI"), strings.Contains(out, "OpenRTE"), strings.Contains(out, "PRRTE"),
		strings.Contains(out, "open-mpi.org"):
		return OpenMPI
	case strings.Contains(out, "Intel(R) MPI"):
		return IntelMPI
	}
	return ""
}

// output runs path with args (stdin closed, 20 s at most) and returns its
// combined output.
func output(path string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Stdin = nil
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// errLine is err with the first line of the command's output, if any.
func errLine(err error, out string) error {
	var ee *exec.ExitError
	if l := FirstLine(out); l != "" && errors.As(err, &ee) {
		return fmt.Errorf("%v: %s", err, l)
	}
	return err
}

// FirstLine is the first non-empty line of s, trimmed.
func FirstLine(s string) string {
	l, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(l)
}
