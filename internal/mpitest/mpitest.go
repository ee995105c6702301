// Package mpitest runs a package's Go tests as an MPI job under mpiexec.
//
// Use it from TestMain:
//
//	func TestMain(m *testing.M) {
//		mpitest.Main(m, 2,
//			mpitest.Init(func() error { _, err := mpi.InitThread(mpi.ThreadMultiple); return err }),
//			mpitest.Finalize(mpi.Finalize))
//	}
//
// When the test binary is started by `go test` (not as an MPI rank), Main
// re-executes it with the same arguments as `mpiexec -n <nprocs> <binary>
// <args>`, stdin closed, streams the job's output, and exits with the job's
// exit code. Inside the job (each rank), Main runs the Init hook, the tests
// (m.Run), then the Finalize hook, and exits with the tests' code.
//
// MPI initialization is left to the package under test: mpitest never calls
// MPI itself (it has no cgo or MPI dependency), so a package can initialize
// MPI through its own entry points (for example the CasperII interposer) and
// its tests can also run ranks that never initialize MPI. Pass the Init and
// Finalize hooks, or initialize in the tests.
//
// A failing rank fails the job: a rank whose tests fail exits non-zero
// without finalizing (its Finalize hook is skipped), so that mpiexec reports
// a non-zero exit code (and, for ranks that initialized MPI, kills the rest of
// the job).
//
// # Rank detection
//
// A process counts as an MPI rank when it carries the marker variable that
// Main sets for the ranks it launches (MPITEST_CHILD), or any process-manager
// variable: PMI_RANK, PMI_FD, PMI_PORT, PMI_SIZE (Hydra, Slurm PMI), PMIX_RANK
// (PMIx), OMPI_COMM_WORLD_RANK (Open MPI), HYDI_CONTROL_FD (Hydra). A test
// binary started by a user's own mpiexec therefore runs its tests in place.
//
// # Timeouts
//
// The whole job gets a deadline (default 120 s; MPITEST_TIMEOUT, a Go
// duration or a number of seconds, overrides the default and the Timeout
// option; 0 disables it). Each rank launched by Main runs a watchdog that,
// shortly before the deadline, writes all goroutine stacks to its stderr and
// exits with code 3. At the deadline the launcher stops mpiexec with SIGTERM
// and, after a grace period, SIGKILLs every remaining process of the job.
// Hydra runs each rank in its own session, so the launcher finds the job's
// processes by walking /proc from its own pid, and makes itself a child
// subreaper (prctl PR_SET_CHILD_SUBREAPER) so that ranks orphaned by a dead
// mpiexec stay its descendants. Processes of the job still alive after mpiexec
// exits are killed too, so a stray rank cannot hold go test's output pipe
// open.
//
// # Output
//
// By default only rank 0 writes to the terminal (so `go test` and `go test
// -json` see one PASS/ok stream); ranks 1..n-1 write stdout and stderr to
// per-rank files that are printed, with a header, only if the job fails.
// MPITEST_OUTPUT=all (or the AllOutput option) streams every rank.
//
// # Environment
//
//	MPITEST_NP            number of processes (overrides Main's nprocs); 0 runs the tests in place, without mpiexec
//	MPITEST_TIMEOUT       job deadline, e.g. 90s, 5m, or 300 (seconds); 0 = none
//	MPITEST_MPIEXEC       mpiexec to use (default: MPICH's, found by internal/mpich: mpiexec.mpich, else a Hydra mpiexec from PATH)
//	MPITEST_MPIEXEC_ARGS  extra mpiexec arguments, space separated, before the binary
//	MPITEST_OUTPUT        rank0 (default) or all
package mpitest

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/casperii/casperii/internal/mpich"
)

// Environment variables read by mpitest.
const (
	EnvNP          = "MPITEST_NP"
	EnvTimeout     = "MPITEST_TIMEOUT"
	EnvMPIExec     = "MPITEST_MPIEXEC"
	EnvMPIExecArgs = "MPITEST_MPIEXEC_ARGS"
	EnvOutput      = "MPITEST_OUTPUT"

	// Set by the launcher for the ranks it starts.
	envChild    = "MPITEST_CHILD"
	envDeadline = "MPITEST_DEADLINE" // unix nanoseconds
	envOutDir   = "MPITEST_OUTDIR"
	envAllOut   = "MPITEST_ALLOUT"
)

// DefaultTimeout is the job deadline used when neither MPITEST_TIMEOUT nor
// the Timeout option is given.
const DefaultTimeout = 120 * time.Second

// TimeoutExitCode is the launcher's exit code when the job hit its deadline.
const TimeoutExitCode = 124

// WatchdogExitCode is a rank's exit code when its watchdog fired.
const WatchdogExitCode = 3

type config struct {
	init, finalize func() error
	env            []string
	mpiexecArgs    []string
	timeout        time.Duration
	allOutput      bool
}

// Option configures Main.
type Option func(*config)

// Init runs f in every rank before the tests; an error fails the rank.
func Init(f func() error) Option { return func(c *config) { c.init = f } }

// Finalize runs f in every rank after the tests, only if they passed; an
// error fails the rank.
func Finalize(f func() error) Option { return func(c *config) { c.finalize = f } }

// Env adds "KEY=value" entries to the ranks' environment.
func Env(kv ...string) Option { return func(c *config) { c.env = append(c.env, kv...) } }

// MPIExecArgs adds mpiexec arguments (before the binary), for example
// "-genv", "CSP_NG", "1".
func MPIExecArgs(args ...string) Option {
	return func(c *config) { c.mpiexecArgs = append(c.mpiexecArgs, args...) }
}

// Timeout sets the job deadline (MPITEST_TIMEOUT overrides it).
func Timeout(d time.Duration) Option { return func(c *config) { c.timeout = d } }

// AllOutput streams the output of every rank instead of rank 0 only.
func AllOutput() Option { return func(c *config) { c.allOutput = true } }

// Main runs the tests of m as an MPI job of nprocs processes (see the
// package documentation). It does not return.
func Main(m *testing.M, nprocs int, opts ...Option) {
	cfg := config{timeout: DefaultTimeout}
	for _, o := range opts {
		o(&cfg)
	}
	if InJob() {
		os.Exit(runRank(m, &cfg))
	}
	np := nprocs
	if s := os.Getenv(EnvNP); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 {
			fmt.Fprintf(os.Stderr, "mpitest: bad %s=%q\n", EnvNP, s)
			os.Exit(2)
		}
		np = n
	}
	if np == 0 {
		os.Exit(runRank(m, &cfg))
	}
	timeout, err := timeoutFromEnv(cfg.timeout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "mpitest:", err)
		os.Exit(2)
	}
	cfg.timeout = timeout
	if v := os.Getenv(EnvOutput); v != "" {
		switch v {
		case "all":
			cfg.allOutput = true
		case "rank0":
			cfg.allOutput = false
		default:
			fmt.Fprintf(os.Stderr, "mpitest: bad %s=%q (want rank0 or all)\n", EnvOutput, v)
			os.Exit(2)
		}
	}
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, "mpitest:", err)
		os.Exit(2)
	}
	res := Launch(LaunchConfig{
		NP:          np,
		Binary:      exe,
		Args:        os.Args[1:],
		Env:         cfg.env,
		MPIExecArgs: cfg.mpiexecArgs,
		Timeout:     cfg.timeout,
		AllOutput:   cfg.allOutput,
		Stdout:      os.Stdout,
		Stderr:      os.Stderr,
	})
	os.Exit(res.ExitCode)
}

// timeoutFromEnv returns MPITEST_TIMEOUT if set, else def.
func timeoutFromEnv(def time.Duration) (time.Duration, error) {
	s := os.Getenv(EnvTimeout)
	if s == "" {
		return def, nil
	}
	return ParseTimeout(s)
}

// ParseTimeout parses a Go duration ("90s", "2m") or a number of seconds ("300").
func ParseTimeout(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if n, err := strconv.ParseFloat(s, 64); err == nil {
		if n < 0 {
			return 0, fmt.Errorf("negative timeout %q", s)
		}
		return time.Duration(n * float64(time.Second)), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("bad timeout %q: want a duration like 90s or a number of seconds", s)
	}
	if d < 0 {
		return 0, fmt.Errorf("negative timeout %q", s)
	}
	return d, nil
}

// rankVars are the variables telling the rank, by launcher family.
var rankVars = []string{"PMI_RANK", "PMIX_RANK", "OMPI_COMM_WORLD_RANK"}

// jobVars mark a process started by a process manager.
var jobVars = []string{"PMI_RANK", "PMI_FD", "PMI_PORT", "PMI_SIZE", "PMIX_RANK",
	"OMPI_COMM_WORLD_RANK", "HYDI_CONTROL_FD", envChild}

// inJob reports whether the environment (given by getenv) is that of an MPI rank.
func inJob(getenv func(string) string) bool {
	for _, v := range jobVars {
		if getenv(v) != "" {
			return true
		}
	}
	return false
}

func rankFrom(getenv func(string) string) int {
	for _, v := range rankVars {
		if s := getenv(v); s != "" {
			if n, err := strconv.Atoi(s); err == nil {
				return n
			}
		}
	}
	if inJob(getenv) {
		return 0
	}
	return -1
}

func sizeFrom(getenv func(string) string) int {
	for _, v := range []string{"PMI_SIZE", "OMPI_COMM_WORLD_SIZE", "PMIX_SIZE"} {
		if s := getenv(v); s != "" {
			if n, err := strconv.Atoi(s); err == nil {
				return n
			}
		}
	}
	if inJob(getenv) {
		return 1
	}
	return 0
}

// InJob reports whether this process is a rank of an MPI job (launched by
// Main or by any mpiexec).
func InJob() bool { return inJob(os.Getenv) }

// Rank returns this process's rank as told by the process manager's
// environment, 0 if in a job that does not tell, and -1 outside a job.
func Rank() int { return rankFrom(os.Getenv) }

// Size returns the job size as told by the environment (1 if in a job that
// does not tell, 0 outside a job).
func Size() int { return sizeFrom(os.Getenv) }

// LaunchedByMain reports whether this rank was started by Main's launcher.
func LaunchedByMain() bool { return os.Getenv(envChild) != "" }

// runRank runs the tests in this process (an MPI rank, or in place).
func runRank(m *testing.M, cfg *config) int {
	for _, a := range os.Args[1:] {
		if strings.HasPrefix(a, "-test.fuzzworker") {
			// A fuzzing worker spawned by a rank: not an MPI process.
			return m.Run()
		}
	}
	rank := Rank()
	outDir := os.Getenv(envOutDir)
	if outDir != "" && rank > 0 && os.Getenv(envAllOut) == "" {
		if err := redirectOutput(filepath.Join(outDir, fmt.Sprintf("rank-%d.log", rank))); err != nil {
			fmt.Fprintf(os.Stderr, "mpitest: rank %d: %v\n", rank, err)
		}
	}
	record := func(code int) {
		if outDir != "" && rank >= 0 {
			_ = os.WriteFile(filepath.Join(outDir, fmt.Sprintf("rank-%d.code", rank)), []byte(strconv.Itoa(code)), 0o644)
		}
	}
	if s := os.Getenv(envDeadline); s != "" {
		if ns, err := strconv.ParseInt(s, 10, 64); err == nil {
			startWatchdog(rank, time.Unix(0, ns), record)
		}
	}
	code := runRankTests(m, cfg, rank)
	record(code)
	return code
}

func runRankTests(m *testing.M, cfg *config, rank int) int {
	if cfg.init != nil {
		if err := cfg.init(); err != nil {
			fmt.Fprintf(os.Stderr, "mpitest: rank %d: init: %v\n", rank, err)
			return 1
		}
	}
	code := m.Run()
	if code != 0 {
		// Do not finalize: the other ranks may be stuck, and finalizing could
		// hang; a non-zero exit makes mpiexec tear the job down.
		return code
	}
	if cfg.finalize != nil {
		if err := cfg.finalize(); err != nil {
			fmt.Fprintf(os.Stderr, "mpitest: rank %d: finalize: %v\n", rank, err)
			return 1
		}
	}
	return 0
}

// startWatchdog dumps goroutines and exits shortly before the job deadline.
func startWatchdog(rank int, deadline time.Time, record func(int)) {
	d := time.Until(deadline)
	if d < 0 {
		d = 0
	}
	time.AfterFunc(d, func() {
		fmt.Fprintf(os.Stderr, "\nmpitest: rank %d (pid %d): job deadline reached; goroutines:\n", rank, os.Getpid())
		_ = pprof.Lookup("goroutine").WriteTo(os.Stderr, 2)
		record(WatchdogExitCode)
		os.Exit(WatchdogExitCode)
	})
}

// LaunchConfig describes one mpiexec job.
type LaunchConfig struct {
	NP          int
	Binary      string
	Args        []string
	Env         []string // extra KEY=value for the ranks (added to os.Environ unless BaseEnv is set)
	BaseEnv     []string // environment to start from (default os.Environ())
	MPIExecArgs []string
	Timeout     time.Duration // 0: none
	AllOutput   bool
	Stdout      io.Writer
	Stderr      io.Writer
}

// LaunchResult is the outcome of Launch.
type LaunchResult struct {
	ExitCode int
	TimedOut bool
	// RankCodes maps each rank that recorded its exit code to that code;
	// ranks missing from the map did not finish normally.
	RankCodes map[int]int
	// Killed is the number of job processes killed after mpiexec exited or
	// at the deadline.
	Killed int
}

// Launch runs cfg.Binary as an MPI job and waits for it (see the package
// documentation for deadlines and output). Its ranks see the marker that
// makes Main run their tests.
func Launch(cfg LaunchConfig) LaunchResult {
	// Our messages and the job's stderr may be written concurrently: writers
	// that are not files get serialized (files are passed to mpiexec as is).
	stdout, stderr := cfg.Stdout, cfg.Stderr
	if stderr == nil {
		stderr = io.Discard
	}
	if _, ok := stderr.(*os.File); !ok {
		lw := &lockedWriter{w: stderr}
		stderr = lw
		if stdout != nil && stdout == cfg.Stderr {
			stdout = lw
		}
	}
	fail := func(format string, a ...any) LaunchResult {
		fmt.Fprintf(stderr, "mpitest: "+format+"\n", a...)
		return LaunchResult{ExitCode: 2}
	}
	mpiexec := os.Getenv(EnvMPIExec)
	if mpiexec == "" {
		p, err := mpich.Find("mpiexec")
		if err != nil {
			return fail("%v (or set %s)", err, EnvMPIExec)
		}
		mpiexec = p
	}
	outDir, err := os.MkdirTemp("", "mpitest-")
	if err != nil {
		return fail("%v", err)
	}
	defer os.RemoveAll(outDir)

	args := []string{"-n", strconv.Itoa(cfg.NP)}
	args = append(args, cfg.MPIExecArgs...)
	if s := strings.TrimSpace(os.Getenv(EnvMPIExecArgs)); s != "" {
		args = append(args, strings.Fields(s)...)
	}
	args = append(args, cfg.Binary)
	args = append(args, cfg.Args...)

	env := cfg.BaseEnv
	if env == nil {
		env = os.Environ()
	}
	env = append(cleanEnv(env), envChild+"=1", envOutDir+"="+outDir)
	var margin time.Duration
	if cfg.Timeout > 0 {
		margin = min(5*time.Second, max(time.Second, cfg.Timeout/10), cfg.Timeout/2)
		deadline := time.Now().Add(cfg.Timeout - margin)
		env = append(env, envDeadline+"="+strconv.FormatInt(deadline.UnixNano(), 10))
	}
	if cfg.AllOutput {
		env = append(env, envAllOut+"=1")
	}
	env = append(env, cfg.Env...)

	cmd := exec.Command(mpiexec, args...)
	cmd.Env = env
	cmd.Stdin = nil // /dev/null
	cmd.Stdout = stdout
	cmd.Stderr = stderr
	// With non-file writers, Wait copies from pipes until every holder of the
	// write end (possibly a stray rank) is gone: bound that.
	cmd.WaitDelay = time.Second
	becomeSubreaper()

	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT)
	defer signal.Stop(sigs)

	if err := cmd.Start(); err != nil {
		return fail("starting %s: %v", mpiexec, err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()

	var timer <-chan time.Time
	if cfg.Timeout > 0 {
		t := time.NewTimer(cfg.Timeout)
		defer t.Stop()
		timer = t.C
	}
	res := LaunchResult{}
	var waitErr error
	stop := func(why string) {
		fmt.Fprintf(stderr, "mpitest: %s; stopping the job\n", why)
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case waitErr = <-done:
		case <-time.After(3 * time.Second):
			res.Killed += killDescendants()
			waitErr = <-done
		}
	}
	select {
	case waitErr = <-done:
	case <-timer:
		res.TimedOut = true
		stop(fmt.Sprintf("job exceeded its timeout of %v (set %s to change it)", cfg.Timeout, EnvTimeout))
	case s := <-sigs:
		stop(fmt.Sprintf("received %v", s))
	}
	// Give the job's processes a moment to finish exiting, then kill any
	// that remain: a stray rank must not keep go test's output pipe open.
	for i := 0; i < 20 && liveDescendants(); i++ {
		time.Sleep(50 * time.Millisecond)
	}
	res.Killed += killDescendants()

	res.ExitCode = exitCode(waitErr)
	res.RankCodes = readRankCodes(outDir)
	if !res.TimedOut {
		for _, c := range res.RankCodes {
			if c == WatchdogExitCode {
				res.TimedOut = true
				fmt.Fprintf(stderr, "mpitest: job exceeded its timeout of %v (set %s to change it)\n", cfg.Timeout, EnvTimeout)
				break
			}
		}
	}
	if res.TimedOut {
		res.ExitCode = TimeoutExitCode
	} else if res.ExitCode == 0 && res.Killed > 0 {
		res.ExitCode = 1
	}
	if res.ExitCode != 0 {
		for r := 0; r < cfg.NP; r++ {
			if c, ok := res.RankCodes[r]; !ok {
				fmt.Fprintf(stderr, "mpitest: rank %d did not finish\n", r)
			} else if c != 0 {
				fmt.Fprintf(stderr, "mpitest: rank %d exited with code %d\n", r, c)
			}
		}
		dumpRankLogs(stderr, outDir, cfg.NP)
		if res.Killed > 0 {
			fmt.Fprintf(stderr, "mpitest: killed %d leftover job process(es)\n", res.Killed)
		}
	}
	return res
}

// cleanEnv returns env without the variables that describe an enclosing MPI
// job or mpitest launch, so that a job can be launched from inside a rank.
func cleanEnv(env []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case strings.HasPrefix(k, "PMI_"), strings.HasPrefix(k, "PMIX_"), strings.HasPrefix(k, "HYDI_"),
			strings.HasPrefix(k, "OMPI_COMM_WORLD_"), k == "MPI_LOCALNRANKS", k == "MPI_LOCALRANKID",
			k == envChild, k == envDeadline, k == envOutDir, k == envAllOut:
			continue
		}
		out = append(out, kv)
	}
	return out
}

type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func exitCode(err error) int {
	if err == nil {
		return 0
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if c := ee.ExitCode(); c > 0 {
			return c
		}
	}
	return 1
}

func readRankCodes(dir string) map[int]int {
	codes := map[int]int{}
	files, _ := filepath.Glob(filepath.Join(dir, "rank-*.code"))
	for _, f := range files {
		var r int
		if _, err := fmt.Sscanf(filepath.Base(f), "rank-%d.code", &r); err != nil {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		if c, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
			codes[r] = c
		}
	}
	return codes
}

func dumpRankLogs(w io.Writer, dir string, np int) {
	for r := 1; r < np; r++ {
		f, err := os.Open(filepath.Join(dir, fmt.Sprintf("rank-%d.log", r)))
		if err != nil {
			continue
		}
		st, _ := f.Stat()
		if st != nil && st.Size() > 0 {
			fmt.Fprintf(w, "=== mpitest: output of rank %d ===\n", r)
			_, _ = io.Copy(w, f)
			fmt.Fprintf(w, "\n=== mpitest: end of rank %d ===\n", r)
		}
		f.Close()
	}
}
