package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"

	"github.com/casperii/casperii/internal/proc"
	"github.com/casperii/casperii/internal/shellquote"
	"golang.org/x/sys/unix"
)

// launch is a job ready to start: the command line and its environment.
type launch struct {
	argv    []string
	environ []string
	set     [][2]string // the variables casperii sets, in order (the -genv options)
	export  [][2]string // those of set put into the command's environment (for -dry-run)
	lib     libFound
}

// prepare checks everything casperii can check before a job starts and
// returns the job to start. Errors are one line naming the fix; warnings
// are written to st.err.
func prepare(args []string, st stdio, environ []string, finder libFinder) (launch, options, error) {
	var l launch
	o, rest, err := parseOptions("run", args)
	if err != nil {
		return l, o, err
	}
	if len(rest) == 0 {
		return l, o, errors.New("casperii run: no command to run; usage: casperii run [flags] -- mpiexec -n 4 ./app")
	}
	getenv := envLookup(environ)
	j := parseJob(rest, getenv)

	// The runtime's variables, by the runtime's rules.
	m, err := gather(environ, j, o)
	if err != nil {
		return l, o, err
	}
	c, err := validate(m, j)
	if err != nil {
		return l, o, err
	}

	// The command and the application.
	cmdPath, err := exec.LookPath(rest[0])
	if err != nil {
		return l, o, fmt.Errorf("casperii: %s: command not found; install MPICH's mpiexec (Hydra) or give the command's path", rest[0])
	}
	if j.mpiexec {
		if err := checkLauncher(rest[0], cmdPath); err != nil {
			return l, o, err
		}
	}
	if j.unsure != "" {
		c.warnings = append(c.warnings, fmt.Sprintf("casperii: warning: cannot tell the application from mpiexec's option %s; the MPICH check of the application is skipped", j.unsure))
	}
	var appMPICH string
	if j.unsure == "" {
		for _, app := range j.apps {
			p, err := exec.LookPath(app)
			if err != nil {
				return l, o, fmt.Errorf("casperii: the application %s is not found (%v); give its path, e.g. ./%s", app, unwrapExecErr(err), filepath.Base(app))
			}
			a, err := checkApp(app, p)
			if err != nil {
				return l, o, err
			}
			switch {
			case a.definesMP:
				c.warnings = append(c.warnings, fmt.Sprintf("casperii: warning: %s has MPI linked in statically (it defines MPI_Init); the preloaded library cannot interpose it: link it with MPICH's shared library and -lcasperii", app))
			case a.mpich == "" && !a.static:
				c.warnings = append(c.warnings, fmt.Sprintf("casperii: warning: %s does not link an MPI library (fine if it loads MPICH at run time, as Python's mpi4py does); CasperII acts only in MPICH programs", app))
			}
			if a.mpich != "" {
				appMPICH = a.mpich
			}
		}
		if appMPICH != "" && !j.mpiexec {
			// An MPICH program started without mpiexec is one process.
			j.singleton = true
			if err := checkLayout(m, c.cfg, j); err != nil {
				return l, o, err
			}
		}
	}

	// The library.
	lib, err := finder.find(o.lib)
	if err != nil {
		return l, o, err
	}
	l.lib = lib
	if lib.repo != "" {
		if f := staleSource(lib.repo, lib.path); f != "" {
			c.warnings = append(c.warnings, fmt.Sprintf("casperii: warning: %s is older than %s; run make build to rebuild it", lib.path, f))
		}
	}
	if libM := libMPICH(lib.path); appMPICH != "" && libM != "" && !sameFile(appMPICH, libM) {
		c.warnings = append(c.warnings, fmt.Sprintf("casperii: warning: the application loads %s but %s was linked against %s; use one MPICH installation for both", appMPICH, filepath.Base(lib.path), libM))
	}
	for _, w := range c.warnings {
		fmt.Fprintln(st.err, w)
	}

	// What casperii sets: the flags' variables, then LD_PRELOAD.
	fs := o.flagSettings()
	var names []string
	for k := range fs {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		l.set = append(l.set, [2]string{k, fs[k].value})
	}
	preload := lib.path
	if old := getenv("LD_PRELOAD"); old != "" && !containsPath(old, lib.path) {
		preload += ":" + old
	} else if old != "" {
		preload = old
	}
	l.set = append(l.set, [2]string{"LD_PRELOAD", preload})

	// mpiexec gets LD_PRELOAD for the ranks through -genv only: in its own
	// environment the library would be loaded into mpiexec, its proxies
	// and whatever they start (ssh), none of them MPI programs.
	l.export = l.set
	if j.mpiexec {
		l.export = l.set[:len(l.set)-1]
	}
	l.environ = setEnv(environ, l.export)
	// The command word stays as given (exec resolves it through the same
	// PATH); Hydra's -genv options go right after it.
	l.argv = slices.Clone(rest)
	if j.mpiexec {
		var genv []string
		for _, kv := range l.set {
			genv = append(genv, "-genv", kv[0], kv[1])
		}
		l.argv = append(append([]string{rest[0]}, genv...), rest[1:]...)
	}
	return l, o, nil
}

func unwrapExecErr(err error) error {
	var ee *exec.Error
	if errors.As(err, &ee) {
		return ee.Err
	}
	return err
}

func sameFile(a, b string) bool {
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	if err1 != nil || err2 != nil {
		return a == b
	}
	return os.SameFile(sa, sb)
}

func containsPath(list, p string) bool {
	for _, e := range strings.FieldsFunc(list, func(r rune) bool { return r == ':' || r == ' ' }) {
		if e == p {
			return true
		}
	}
	return false
}

// envLookup returns a getenv over environ.
func envLookup(environ []string) func(string) string {
	return func(k string) string {
		for i := len(environ) - 1; i >= 0; i-- {
			if v, ok := strings.CutPrefix(environ[i], k+"="); ok {
				return v
			}
		}
		return ""
	}
}

// setEnv returns environ with the variables of set set (replacing earlier
// values).
func setEnv(environ []string, set [][2]string) []string {
	out := make([]string, 0, len(environ)+len(set))
	for _, kv := range environ {
		k, _, _ := strings.Cut(kv, "=")
		replaced := false
		for _, s := range set {
			if s[0] == k {
				replaced = true
			}
		}
		if !replaced {
			out = append(out, kv)
		}
	}
	for _, s := range set {
		out = append(out, s[0]+"="+s[1])
	}
	return out
}

func cmdRun(args []string, st stdio) int {
	l, o, err := prepare(args, st, os.Environ(), newLibFinder(st.err))
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(st.out, usage)
		return 0
	}
	if err != nil {
		fmt.Fprintln(st.err, err)
		return exitUsage
	}
	if o.dryRun || o.verbose.level != "" && o.verbose.level != "0" {
		fmt.Fprintf(st.err, "casperii: library %s (%s)\n", l.lib.path, l.lib.how)
		for _, kv := range l.export {
			fmt.Fprintf(st.err, "casperii: export %s=%s\n", kv[0], quoteIfNeeded(kv[1]))
		}
		fmt.Fprintf(st.err, "casperii: %s\n", shellJoin(l.argv))
	}
	if o.dryRun {
		return 0
	}
	return execute(l, st)
}

// execute runs the job with the streams passed through, forwards SIGINT
// and SIGTERM, and returns its exit code (128+n if signal n ended it).
func execute(l launch, st stdio) int {
	cmd := exec.Command(l.argv[0], l.argv[1:]...)
	cmd.Env = l.environ
	cmd.Stdin, cmd.Stdout, cmd.Stderr = st.in, st.out, st.err
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	defer signal.Stop(sigs)
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(st.err, "casperii: starting %s: %v\n", l.argv[0], err)
		return 127
	}
	done := make(chan struct{})
	go func() {
		for {
			select {
			case s := <-sigs:
				// A Ctrl-C at the terminal reaches the job's processes
				// already (they share our process group); a second SIGINT
				// would make Hydra abort at once instead of ending the job
				// cleanly.
				if s == syscall.SIGINT && terminalForeground() {
					continue
				}
				cmd.Process.Signal(s)
			case <-done:
				return
			}
		}
	}()
	err := cmd.Wait()
	close(done)
	if ps := cmd.ProcessState; ps != nil {
		return proc.ExitCode(ps, err)
	}
	fmt.Fprintf(st.err, "casperii: %s: %v\n", l.argv[0], err)
	return 1
}

// terminalForeground reports whether this process is in the foreground
// process group of its terminal (so that the terminal's SIGINT reaches
// its children too).
func terminalForeground() bool {
	for _, fd := range []int{0, 1, 2} {
		pg, err := unix.IoctlGetInt(fd, unix.TIOCGPGRP)
		if err == nil {
			return pg == unix.Getpgrp()
		}
	}
	return false
}

// shellJoin quotes a command line for a POSIX shell.
func shellJoin(argv []string) string { return shellquote.Join(argv) }
