package main

import (
	"path/filepath"
	"strconv"
	"strings"
)

// job is what casperii understands of the command it runs.
type job struct {
	argv    []string
	mpiexec bool // argv[0] is mpiexec or mpirun (Hydra's options apply)
	// apps are the executables of the job: one per MPMD segment of an
	// mpiexec command, or argv[0] itself otherwise.
	apps []string
	// nprocs is the number of processes (the sum of the segments' -n);
	// 0 when unknown.
	nprocs int
	// oneHost says all processes run on this host: no host option or file
	// and no resource manager allocation.
	oneHost bool
	// env holds the variables the command sets with -genv or -env, in
	// order (a later one wins, as in Hydra).
	env []envOpt
	// unsure is set when the command has an option casperii does not know
	// (so it cannot tell the executable apart) or a -configfile; the
	// application checks are skipped then.
	unsure string
	// singleton is set when the command is itself an MPICH program started
	// without mpiexec (MPICH then runs it as one process).
	singleton bool
}

type envOpt struct{ opt, name, value string }

// launcherNames are the commands treated as Hydra's mpiexec.
var launcherNames = map[string]bool{
	"mpiexec": true, "mpirun": true, "mpiexec.hydra": true, "mpiexec.mpich": true,
	"mpirun.mpich": true, "mpiexec.mpich-hydra": true,
}

// isLauncher reports whether the command word names mpiexec or mpirun.
func isLauncher(word string) bool { return launcherNames[filepath.Base(word)] }

// Hydra's options (mpiexec -help and the strings of mpiexec.hydra, MPICH
// 4.0.2) by the number of arguments they take. -genv and -env take a name
// and a value, or one name=value argument.
var (
	hydraNoArg = setOf("genvnone", "genvall", "envnone", "envall", "enable-x", "disable-x",
		"verbose", "v", "info", "print-all-exitcodes", "profile", "prepend-rank", "l",
		"disable-auto-cleanup", "dac", "enable-auto-cleanup", "disable-hostname-propagation",
		"enable-hostname-propagation", "skip-launch-node", "pmi-port", "version", "help", "h", "debug",
		"topo-debug")
	hydraOneArg = setOf("n", "np", "genvlist", "envlist", "f", "hostfile", "machinefile", "machine",
		"machines", "machinelist", "host", "hosts", "hostlist", "wdir", "configfile", "launcher",
		"launcher-exec", "bootstrap", "bootstrap-exec", "rmk", "topolib", "bind-to", "binding",
		"map-by", "mapping", "membind", "demux", "iface", "ppn", "prepend-pattern", "outfile-pattern",
		"errfile-pattern", "outfile", "errfile", "output-from", "nameserver", "order-nodes", "localhost",
		"usize", "gpus-per-proc", "retries", "control-port", "tmpdir", "ckpointlib", "ckpoint-prefix",
		"ckpoint-num", "ckpoint-interval", "port-range")
	hydraHostOpts = setOf("f", "hostfile", "machinefile", "machine", "machines", "machinelist", "host",
		"hosts", "hostlist", "configfile")
)

func setOf(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// resourceManagerVars are variables that make Hydra take its hosts from a
// resource manager's allocation (or a host file).
var resourceManagerVars = []string{"HYDRA_HOST_FILE", "SLURM_JOB_NODELIST", "SLURM_NODELIST", "PBS_NODEFILE",
	"LSB_MCPU_HOSTS", "LSB_HOSTS", "COBALT_NODEFILE", "PE_HOSTFILE", "LOADL_HOSTFILE"}

// parseJob reads the command line argv (argv[0] is the command); getenv
// looks up casperii's environment.
func parseJob(argv []string, getenv func(string) string) job {
	j := job{argv: argv, oneHost: true}
	for _, v := range resourceManagerVars {
		if getenv(v) != "" {
			j.oneHost = false
		}
	}
	if len(argv) == 0 {
		return j
	}
	if !isLauncher(argv[0]) {
		j.apps = []string{argv[0]}
		j.oneHost = true
		return j
	}
	j.mpiexec = true
	args := argv[1:]
	segN, haveN, app := 0, false, ""
	allN := true
	endSegment := func() {
		if app != "" {
			j.apps = append(j.apps, app)
		}
		if haveN {
			j.nprocs += segN
		} else {
			allN = false
		}
		segN, haveN, app = 0, false, ""
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == ":" {
			endSegment()
			continue
		}
		if app != "" {
			continue // the application's own arguments
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			app = a
			continue
		}
		name := strings.TrimLeft(a, "-")
		next := func() string {
			if i+1 < len(args) {
				i++
				return args[i]
			}
			return ""
		}
		switch {
		case name == "genv" || name == "env":
			first := next()
			if k, v, ok := strings.Cut(first, "="); ok {
				j.env = append(j.env, envOpt{"-" + name, k, v})
			} else {
				j.env = append(j.env, envOpt{"-" + name, first, next()})
			}
		case name == "n" || name == "np":
			n, err := strconv.Atoi(next())
			if err == nil && n > 0 {
				segN, haveN = n, true
			}
		case hydraOneArg[name]:
			if hydraHostOpts[name] {
				j.oneHost = false
			}
			if name == "configfile" {
				j.unsure = "-configfile"
			}
			next()
		case hydraNoArg[name]:
		default:
			if j.unsure == "" {
				j.unsure = a
			}
		}
	}
	endSegment()
	if !allN {
		j.nprocs = 0
	}
	return j
}
