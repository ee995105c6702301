// Package mpichtest writes stand-ins for MPI commands into a directory, for
// the tests of what finds and checks them: Open MPI's, as Debian's
// alternatives make them the default mpicc, mpifort, mpiexec and mpirun
// once any package pulls Open MPI in, and MPICH's. Put the directory first
// in PATH to make a machine look like one where Open MPI is the default.
//
// Every stand-in appends its name and arguments to the file Calls(dir), so
// that a test can tell whether a build or a job went through it.
package mpichtest

import (
	"os"
	"path/filepath"
	"strings"
)

// Calls is the file the stand-ins in dir log their command lines to, one
// per line.
func Calls(dir string) string { return filepath.Join(dir, "calls.log") }

// OpenMPIVersion is what the Open MPI launchers print for --version (Open
// MPI 4.1's mpiexec).
const OpenMPIVersion = "mpiexec (OpenRTE) 4.1.4\n\nReport bugs to http://www.open-mpi.org/community/help/\n"

// OpenMPI writes mpicc, mpifort, mpiexec and mpirun into dir that answer as
// Open MPI 4.1's: the wrappers print a command linking -lmpi for -show or
// --showme and their version for --showme:version, and compile without
// MPICH's headers (so an MPI program does not build); the launchers print
// OpenRTE's --version and stop at Hydra's -genv with Open MPI's "unknown
// option" error. With showFails the wrappers pass -show on to the compiler,
// which rejects it (the behaviour of some wrappers), and only --showme
// works.
func OpenMPI(dir string, showFails bool) error {
	show := `-show|--show|-showme|--showme) echo "$cc -I/usr/lib/x86_64-linux-gnu/openmpi/include -L/usr/lib/x86_64-linux-gnu/openmpi/lib $libs"; exit 0 ;;`
	if showFails {
		show = `-showme|--showme) echo "$cc -I/usr/lib/x86_64-linux-gnu/openmpi/include -L/usr/lib/x86_64-linux-gnu/openmpi/lib $libs"; exit 0 ;;
  -show|--show) echo "$cc: error: unrecognized command-line option '$1'" >&2; exit 1 ;;`
	}
	wrapper := func(cc, lang, libs string) string {
		return script(dir, `cc=`+cc+` libs="`+libs+`"
case "$1" in
  --showme:version|-showme:version) echo "${0##*/}: Open MPI 4.1.4 (Language: `+lang+`)"; exit 0 ;;
  `+show+`
esac
exec $cc -I/usr/lib/x86_64-linux-gnu/openmpi/include "$@" -L/usr/lib/x86_64-linux-gnu/openmpi/lib $libs
`)
	}
	launcher := script(dir, `case "$1" in
  --version|-V) printf '`+strings.ReplaceAll(OpenMPIVersion, "\n", `\n`)+`'; exit 0 ;;
esac
for a in "$@"; do
  case "$a" in
    -genv|-genvlist|-genvall|-genvnone) printf '%s: Error: unknown option "%s"\nType '\''%s --help'\'' for usage.\n' "${0##*/}" "$a" "${0##*/}" >&2; exit 1 ;;
  esac
done
echo "${0##*/}: Open MPI stand-in (mpichtest): not starting $*" >&2
exit 1
`)
	return write(dir, map[string]string{
		"mpicc":   wrapper("gcc", "C", "-lmpi"),
		"mpifort": wrapper("gfortran", "Fortran", "-lmpi_usempif08 -lmpi_usempi_ignore_tkr -lmpi_mpifh -lmpi"),
		"mpiexec": launcher,
		"mpirun":  launcher,
	})
}

// HydraVersion is the beginning of what MPICH's mpiexec prints for
// --version.
const HydraVersion = "HYDRA build details:\n    Version:                                 4.0.2\n"

// MPICH writes MPICH's mpicc, mpifort, mpiexec and mpirun into dir under
// their plain names with suffix appended (".mpich" for Debian's names), and
// mpichversion. They answer -show, --version and mpichversion as MPICH
// 4.0.2's do and run nothing else (exit code 1).
func MPICH(dir, suffix string) error {
	wrapper := func(show string) string {
		return script(dir, `case "$1" in
  -show) echo "`+show+`"; exit 0 ;;
esac
echo "${0##*/}: MPICH stand-in (mpichtest): not compiling $*" >&2
exit 1
`)
	}
	launcher := script(dir, `case "$1" in
  --version) printf '`+strings.ReplaceAll(HydraVersion, "\n", `\n`)+`'; exit 0 ;;
esac
echo "${0##*/}: MPICH stand-in (mpichtest): not starting $*" >&2
exit 1
`)
	return write(dir, map[string]string{
		"mpicc" + suffix:   wrapper("gcc -Wl,-z,relro -I/usr/include/x86_64-linux-gnu/mpich -L/usr/lib/x86_64-linux-gnu -lmpich"),
		"mpifort" + suffix: wrapper("gfortran -O2 -I/usr/include/x86_64-linux-gnu/mpich -L/usr/lib/x86_64-linux-gnu -lmpichfort -lmpich"),
		"mpiexec" + suffix: launcher,
		"mpirun" + suffix:  launcher,
		"mpichversion":     script(dir, "printf 'MPICH Version:    \\t4.0.2\\nMPICH Release date:\\tThu Apr  7 12:34:45 CDT 2022\\nMPICH Device:    \\tch4:ucx\\n'\n"),
	})
}

// script is a shell script that logs its command line to Calls(dir), then
// runs body.
func script(dir, body string) string {
	return "#!/bin/sh\necho \"${0##*/} $*\" >> '" + Calls(dir) + "'\n" + body
}

func write(dir string, files map[string]string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o755); err != nil {
			return err
		}
	}
	return nil
}
