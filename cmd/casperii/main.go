// Command casperii runs unmodified MPI programs with CasperII: it sets the
// runtime's environment, preloads lib/libcasperii.so, checks the job
// before it starts, and explains what the library will do.
//
//	casperii run [flags] -- mpiexec -n 4 ./app args...
//	casperii env [flags]
//	casperii calibrate [--out FILE] | --check FILE
//	casperii version
//	casperii help
//
// run sets CSP_NG, CSP_NODE_SIZE, CSP_STATS, CSP_WORLD_HINTS and CSP_VERBOSE
// from its flags and LD_PRELOAD to the library, both in the environment it
// passes on and, when the command is mpiexec or mpirun, as -genv options
// right after the mpiexec word. Before it starts the job it checks, each
// problem explained in one line that names the fix:
//
//   - every CSP_* value (flags, the environment, -genv/-env options of the
//     command), by the runtime's own rules (internal/core.ReadConfigFrom),
//     and the world hints (package info);
//   - the layout: CSP_NG against CSP_NODE_SIZE and mpiexec's -n;
//   - that the library exists (found next to the executable, in the source
//     tree, or through $CASPERII_LIB; built with go build when run from the
//     source tree and missing);
//   - that the application is an MPICH program (ldd shows libmpich.so.12,
//     no other MPI) and mpiexec is MPICH's Hydra.
//
// It then runs the command with stdin, stdout and stderr passed through,
// forwards SIGINT and SIGTERM to it, and exits with its exit code (128+n
// if a signal n ended it). Its own errors exit with code 2.
//
// calibrate measures the nonblocking ping-pong with plain MPICH and with
// static offload (osubench's runner, as a library) and writes the
// calibration file the library reads for CSP_ASYNC_CONFIG=auto
// (CSP_CALIBRATION=path; format: package internal/calib); --check FILE
// reports a file's errors with line numbers.
package main

import (
	"fmt"
	"io"
	"os"
)

// Version is CasperII's version.
const Version = "0.1.0"

// exitUsage is the exit code of a misconfiguration or a usage error.
const exitUsage = 2

// stdio is where a command reads and writes (the process's own streams,
// or buffers in tests).
type stdio struct {
	in       io.Reader
	out, err io.Writer
}

func main() {
	argv0 = os.Args[0]
	os.Exit(runMain(os.Args[1:], stdio{os.Stdin, os.Stdout, os.Stderr}))
}

func runMain(args []string, st stdio) int {
	if len(args) == 0 {
		fmt.Fprint(st.err, usage)
		return exitUsage
	}
	switch args[0] {
	case "run":
		return cmdRun(args[1:], st)
	case "env":
		return cmdEnv(args[1:], st)
	case "calibrate":
		return cmdCalibrate(args[1:], st)
	case "version", "-version", "--version":
		return cmdVersion(st)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(st.out, usage)
		return 0
	}
	msg := fmt.Sprintf("casperii: unknown command %q; use run, env, calibrate, version or help", args[0])
	if s := suggest(args[0], []string{"run", "env", "calibrate", "version", "help"}); s != "" {
		msg = fmt.Sprintf("casperii: unknown command %q; did you mean %s? (commands: run, env, calibrate, version, help)", args[0], s)
	}
	fmt.Fprintln(st.err, msg)
	return exitUsage
}

const usage = `casperii: run unmodified MPI programs with CasperII's ghost processes.

Usage:
  casperii run [flags] -- mpiexec -n N [mpiexec options] ./app [args]
  casperii env [flags]     what the library will do with this environment
  casperii calibrate       measure direct and offloaded ping-pong times on this machine and
                           write casperii-calibration.txt (CSP_ASYNC_CONFIG=auto reads it with
                           CSP_CALIBRATION=path); calibrate --check FILE checks a file;
                           casperii calibrate -help for its flags
  casperii version         versions of CasperII, Go and MPICH; the library used
  casperii help            this text

Flags of run and env:
  -ng N           ghost processes per node (CSP_NG, default 1; 0 = plain MPI)
  -node-size K    every K consecutive ranks of a host form a node (CSP_NODE_SIZE)
  -stats          print a casperii-stats line per user at MPI_Finalize (CSP_STATS=1)
  -hints "k=v;.." hints of MPI_COMM_WORLD (CSP_WORLD_HINTS), e.g. "wildcard_used=none;shmbuf_regist=true"
  -verbose[=N]    runtime messages on stderr (CSP_VERBOSE, 1 without a level)
  -lib PATH       the library to preload (default: found as 'casperii version' shows)
  -dry-run        (run) print the command and environment, run nothing

Examples:
  casperii run -- mpiexec -n 4 ./app
      4 processes, 1 ghost per host: 3 application ranks
  casperii run -ng 1 -node-size 2 -stats -- mpiexec -n 4 ./app
      2 virtual nodes of 1 ghost + 1 application rank, with statistics
  casperii run -hints "wildcard_used=none" -- mpiexec -n 8 ./app
      MPI_COMM_WORLD offloaded with tag encoding (the app never uses wildcards)
  CSP_NG=2 casperii env
      check and explain a configuration without running anything

Other CSP_* variables of the environment are passed on and checked too
(casperii env lists them all). Exit status: the command's; 2 when casperii
refuses to start it.
`
