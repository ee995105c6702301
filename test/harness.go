// Package test holds CasperII's integration tests: real programs (Go
// programs under test/progs, C programs under test/cprogs) run under a real
// mpiexec, with the runtime's environment variables set per job.
//
// The harness (this file) builds the programs once per test binary, runs
// each job with a timeout that kills every process of the job, and checks
// after every job that it left no entry in /dev/shm and no process behind.
// Programs report what they checked as machine-readable lines:
//
//	result rank=1 test=sizes size=4096 ok=1 src=0 tag=7 count=4096
//
// which Results parses, and CSP_STATS=1 makes every user process print at
// MPI_Finalize
//
//	casperii-stats rank=<user world rank> isend_offloaded=<n> irecv_offloaded=<n> direct=<n> bounce=<n> ...
//
// which StatsLines parses.
//
// Environment of the test binary:
//
//	CASPERII_TEST_GENV   extra KEY=VALUE pairs (space separated) passed to every job with -genv, for example "CSP_VERBOSE=2"
//	CASPERII_TEST_KEEP   keep the build directory of the programs (its path is logged)
//
// CSP_* variables of the environment go test runs in are not passed to the
// jobs (a job's runtime configuration is exactly its Layout and Env), nor is
// LD_PRELOAD.
//
// test owns the integration tests under real mpiexec and their harness.
// Like osubench it drives the library from outside, so it may import only
// the process and MPICH helpers (internal/mpich, internal/proc,
// internal/shellquote); the Go programs its jobs run (test/progs, with
// test/internal/csptest) use the Go API, casperii, as applications do.
// Neither imports internal/core, internal/ghost or internal/interpose.
package test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/casperii/casperii/internal/mpich"
	"github.com/casperii/casperii/internal/proc"
	"github.com/casperii/casperii/internal/shellquote"
)

// Layout is the shape of a job: N processes in all, CSP_NODE_SIZE (0: not
// set, the whole host is one node) and CSP_NG (0: not set, the default of 1
// ghost per node; pass Env "CSP_NG=0" for pass-through).
type Layout struct{ N, NodeSize, NG int }

// Users returns the number of user processes the layout leaves when every
// node (of NodeSize processes, or all N) has NG ghosts (1 if NG is 0).
func (l Layout) Users() int {
	ng := l.NG
	if ng == 0 {
		ng = 1
	}
	k := l.NodeSize
	if k == 0 {
		k = l.N
	}
	return l.N - ng*(l.N/k)
}

func (l Layout) String() string {
	s := fmt.Sprintf("n%d", l.N)
	if l.NodeSize > 0 {
		s += fmt.Sprintf("-node%d", l.NodeSize)
	}
	if l.NG > 0 {
		s += fmt.Sprintf("-ng%d", l.NG)
	}
	return s
}

// Job is one mpiexec run.
type Job struct {
	Layout  Layout
	Prog    string   // path of the program (GoProg, CProg)
	Args    []string // the program's arguments
	Env     []string // KEY=VALUE, passed with -genv
	Preload bool     // LD_PRELOAD lib/libcasperii.so (built by Lib)
	Launch  []string // mpiexec options before -n (e.g. -bind-to core)
	Wrap    []string // a command that runs mpiexec (e.g. taskset -c 0)
	Timeout time.Duration
}

// DefaultTimeout is a Job's timeout when it sets none.
const DefaultTimeout = 60 * time.Second

// Result is the outcome of a job.
type Result struct {
	Stdout, Stderr string
	ExitCode       int // mpiexec's exit code; 128+signal if it was killed
	Duration       time.Duration
	Cmd            string // the command line, shell-quoted, to reproduce the job
}

// Output returns stdout and stderr, labelled, for failure messages.
func (r Result) Output() string {
	return "--- stdout:\n" + r.Stdout + "--- stderr:\n" + r.Stderr
}

// root is the repository root (the directory holding go.mod), found from
// the working directory of the test (the package directory).
var root = sync.OnceValues(func() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := dir; ; d = filepath.Dir(d) {
		b, err := os.ReadFile(filepath.Join(d, "go.mod"))
		if err == nil && bytes.Contains(b, []byte("module github.com/casperii/casperii")) {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("no go.mod of github.com/casperii/casperii above %s", dir)
		}
	}
})

// Root returns the repository root.
func Root(t testing.TB) string {
	t.Helper()
	r, err := root()
	if err != nil {
		t.Fatalf("harness: %v", err)
	}
	return r
}

var (
	binMu  sync.Mutex
	binDir string
)

// buildDir returns the directory the programs are built into, created
// once per test binary; Cleanup removes it.
func buildDir(t testing.TB) string {
	t.Helper()
	binMu.Lock()
	defer binMu.Unlock()
	if binDir == "" {
		d, err := os.MkdirTemp("", "casperii-test-bin-")
		if err != nil {
			t.Fatalf("harness: %v", err)
		}
		binDir = d
	}
	return binDir
}

// Cleanup removes the programs built by this test binary (unless
// CASPERII_TEST_KEEP is set). TestMain calls it after the tests.
func Cleanup() {
	binMu.Lock()
	defer binMu.Unlock()
	if binDir != "" && os.Getenv("CASPERII_TEST_KEEP") == "" {
		os.RemoveAll(binDir)
		binDir = ""
	}
}

// build is one artifact built at most once per test binary.
type build struct {
	once sync.Once
	path string
	err  error
	skip string
}

var (
	buildsMu sync.Mutex
	builds   = map[string]*build{}
)

func buildOnce(key string, f func() (path, skip string, err error)) *build {
	buildsMu.Lock()
	b := builds[key]
	if b == nil {
		b = &build{}
		builds[key] = b
	}
	buildsMu.Unlock()
	b.once.Do(func() { b.path, b.skip, b.err = f() })
	return b
}

// runTool runs a build command in the repository root.
func runTool(dir string, name string, args ...string) error {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return nil
}

// GoProg builds ./test/progs/<name> once per test binary and returns the
// path of the program.
func GoProg(t *testing.T, name string) string {
	t.Helper()
	r := Root(t)
	dir := buildDir(t)
	b := buildOnce("go:"+name, func() (string, string, error) {
		out := filepath.Join(dir, "go-"+name)
		return out, "", runTool(r, "go", "build", "-o", out, "./test/progs/"+name)
	})
	if b.err != nil {
		t.Fatalf("harness: building Go program %s: %v", name, b.err)
	}
	return b.path
}

// MPICH returns the path of MPICH's command name (mpicc, mpifort,
// mpiexec), found as everything in the repository finds it
// (internal/mpich: mpicc.mpich before an mpicc that Debian's alternatives
// may point at Open MPI), and fails the test if there is none.
func MPICH(t T, name string) string {
	t.Helper()
	p, err := mpich.Find(name)
	if err != nil {
		t.Fatalf("harness: %v", err)
	}
	return p
}

// mpichTool runs MPICH's command name (see MPICH) with args in dir.
func mpichTool(dir, name string, args ...string) error {
	p, err := mpich.Find(name)
	if err != nil {
		return err
	}
	return runTool(dir, p, args...)
}

// CProg compiles test/cprogs/<name>.c with MPICH's mpicc -O2 and opts once
// per distinct (name, opts) and returns the path of the program.
func CProg(t testing.TB, name string, opts ...string) string {
	t.Helper()
	return CFile(t, filepath.Join("test", "cprogs", name+".c"), opts...)
}

// CFile compiles the C program at path (relative to the repository root)
// with mpicc -O2 and opts once per distinct (path, opts) and returns the
// path of the program.
func CFile(t testing.TB, path string, opts ...string) string {
	t.Helper()
	r := Root(t)
	dir := buildDir(t)
	key := "c:" + path + "\x00" + strings.Join(opts, "\x00")
	sum := sha256.Sum256([]byte(key))
	name := strings.TrimSuffix(filepath.Base(path), ".c")
	b := buildOnce(key, func() (string, string, error) {
		out := filepath.Join(dir, "c-"+name+"-"+hex.EncodeToString(sum[:6]))
		args := append([]string{"-O2", path}, opts...)
		args = append(args, "-o", out)
		return out, "", mpichTool(r, "mpicc", args...)
	})
	if b.err != nil {
		t.Fatalf("harness: compiling C program %s: %v", path, b.err)
	}
	return b.path
}

// Lib builds lib/libcasperii.so (the interposer) once per test binary and
// returns its absolute path. It skips the test if ./cmd/libcasperii does
// not exist yet.
func Lib(t testing.TB) string {
	t.Helper()
	r := Root(t)
	b := buildOnce("lib", func() (string, string, error) {
		if _, err := os.Stat(filepath.Join(r, "cmd", "libcasperii")); err != nil {
			return "", "the interposer is not written yet: ./cmd/libcasperii does not exist", nil
		}
		out := filepath.Join(r, "lib", "libcasperii.so")
		return out, "", runTool(r, "go", "build", "-buildmode=c-shared", "-o", out, "./cmd/libcasperii")
	})
	if b.skip != "" {
		t.Skip("harness: " + b.skip)
	}
	if b.err != nil {
		t.Fatalf("harness: building lib/libcasperii.so: %v", b.err)
	}
	return b.path
}

// Run runs the job under mpiexec (stdin closed), waits for it, and returns
// its outcome. A job that exceeds its timeout is killed, every process of
// it, and fails t (fatally). Run also fails t if the job left new entries
// in /dev/shm (they are removed) or a process of the job alive after
// mpiexec exited (it is killed). The job's output is logged if t fails.
func Run(t testing.TB, j Job) Result {
	t.Helper()
	lib := ""
	if j.Preload {
		lib = Lib(t)
	}
	return run(t, j, lib)
}

// RunFailing runs a job expected to fail with output (a fatal error
// handler's line), as Run. A job that failed without any output at all is
// run again, at most twice: MPICH's launcher can drop what a job's
// processes wrote when one of them aborts (TestRMAEpochType's fatalepoch
// in one fresh-clone CI run: exit code 1 after 222 ms, neither the
// library's line nor MPICH's own "Abort(...)" line; 0 of 30 runs here).
// A job that never prints still fails the caller's checks.
func RunFailing(t testing.TB, j Job) Result {
	t.Helper()
	res := Run(t, j)
	for again := 0; again < 2 && res.ExitCode != 0 && res.Stdout == "" && res.Stderr == ""; again++ {
		t.Logf("the job failed without any output (the launcher may drop it at an abort); running it again")
		res = Run(t, j)
	}
	return res
}

// Collected is the outcome of a job run by RunCollected: its result, if
// the job ended by itself, and the findings with which Run would have
// failed the test.
type Collected struct {
	Result
	Finished bool     // the job ended by itself (false: it timed out, or the harness could not run it)
	Problems []string // the harness's findings: a timeout, leftover processes or /dev/shm entries
	Log      string   // what the harness logged about the job (its command line, environment, exit code)
}

// RunCollected runs the job as Run does, with the same timeout, kills and
// leftover checks, but returns the harness's findings instead of failing
// t, and keeps what it logs out of t's log: for a runner that tabulates
// the outcomes of many jobs (conformance/). A job that timed out has
// Finished false and its processes killed.
func RunCollected(t testing.TB, j Job) Collected {
	t.Helper()
	lib := ""
	if j.Preload {
		lib = Lib(t)
	}
	rec := &recorder{tb: t}
	var c Collected
	done := make(chan struct{})
	go func() {
		defer close(done)
		c.Result = run(rec, j, lib)
		c.Finished = true
	}()
	<-done
	rec.runCleanups()
	c.Problems, c.Log = rec.findings()
	return c
}

// recorder is a T that records failures and logs; its FailNow ends the
// goroutine running the job, as testing.T's does.
type recorder struct {
	tb       testing.TB // for TempDir
	mu       sync.Mutex
	errors   []string
	log      strings.Builder
	failed   bool
	cleanups []func()
}

func (r *recorder) Helper() {}

func (r *recorder) Logf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	fmt.Fprintf(&r.log, format+"\n", args...)
}

func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
	r.failed = true
}

func (r *recorder) Fatalf(format string, args ...any) {
	r.Errorf(format, args...)
	r.FailNow()
}

func (r *recorder) FailNow() {
	r.mu.Lock()
	r.failed = true
	r.mu.Unlock()
	runtime.Goexit()
}

func (r *recorder) Failed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.failed
}

func (r *recorder) TempDir() string { return r.tb.TempDir() }

// Cleanup keeps f for RunCollected to run once the job is over, as
// testing.T runs its cleanups at the end of the test: run's log of a
// failed job's output then reaches the recorder's log too.
func (r *recorder) Cleanup(f func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cleanups = append(r.cleanups, f)
}

// runCleanups runs the kept cleanups, last registered first.
func (r *recorder) runCleanups() {
	r.mu.Lock()
	fs := r.cleanups
	r.cleanups = nil
	r.mu.Unlock()
	for i := len(fs) - 1; i >= 0; i-- {
		fs[i]()
	}
}

func (r *recorder) findings() ([]string, string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.errors...), r.log.String()
}

// T is what run needs of a test; *testing.T has it. (The harness's own
// tests pass a recorder, to check that a bad job fails its test.)
type T interface {
	Helper()
	Logf(format string, args ...any)
	Errorf(format string, args ...any)
	Fatalf(format string, args ...any)
	FailNow()
	Failed() bool
	TempDir() string
	Cleanup(func())
}

func run(t T, j Job, lib string) Result {
	t.Helper()
	if j.Timeout <= 0 {
		j.Timeout = DefaultTimeout
	}
	mpiexec := MPICH(t, "mpiexec")
	var genv []string
	if j.Layout.NodeSize > 0 {
		genv = append(genv, "CSP_NODE_SIZE="+strconv.Itoa(j.Layout.NodeSize))
	}
	if j.Layout.NG > 0 {
		genv = append(genv, "CSP_NG="+strconv.Itoa(j.Layout.NG))
	}
	genv = append(genv, j.Env...)
	genv = append(genv, strings.Fields(os.Getenv("CASPERII_TEST_GENV"))...)
	if lib != "" {
		genv = append(genv, "LD_PRELOAD="+lib)
	}
	args := append(append([]string(nil), j.Launch...), "-n", strconv.Itoa(j.Layout.N))
	for _, kv := range genv {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			t.Fatalf("harness: Env entry %q is not KEY=VALUE", kv)
		}
		args = append(args, "-genv", k, v)
	}
	args = append(args, j.Prog)
	args = append(args, j.Args...)

	t.Logf("job env: %s (layout %v: %d users; inherited CSP_* and LD_PRELOAD removed; timeout %v)",
		strings.Join(genv, " "), j.Layout, j.Layout.Users(), j.Timeout)
	if len(j.Wrap) > 0 {
		bin, err := exec.LookPath(j.Wrap[0])
		if err != nil {
			t.Fatalf("harness: %s not found: %v", j.Wrap[0], err)
		}
		args = append(append(append([]string(nil), j.Wrap[1:]...), mpiexec), args...)
		mpiexec = bin
	}
	return supervise(t, "job", mpiexec, args, nil, j.Timeout)
}

// supervise runs bin with args as a job of the test (stdin closed; the
// test's environment without CSP_*, LD_PRELOAD and MPI job variables, plus
// env) and applies the harness's checks: past timeout every process of the
// job is killed and the test fails at once; processes of the job that
// outlive bin are killed and fail the test; so do new /dev/shm entries no
// live process holds. what names the job in messages.
func supervise(t T, what, bin string, args, env []string, timeout time.Duration) Result {
	t.Helper()
	res := Result{Cmd: shellQuote(append([]string{filepath.Base(bin)}, args...)), ExitCode: -1}
	t.Logf("%s: %s", what, res.Cmd)
	shmBefore := listShm(t)
	dir := t.TempDir()
	stdout, err := os.Create(filepath.Join(dir, "stdout"))
	if err != nil {
		t.Fatalf("harness: %v", err)
	}
	defer stdout.Close()
	stderr, err := os.Create(filepath.Join(dir, "stderr"))
	if err != nil {
		t.Fatalf("harness: %v", err)
	}
	defer stderr.Close()

	cmd := exec.Command(bin, args...)
	marker := fmt.Sprintf("%s=%d-%d", jobMarkerVar, os.Getpid(), jobSeq.Add(1))
	cmd.Env = append(append(jobEnv(os.Environ()), marker), env...)
	cmd.Stdin = nil // /dev/null
	cmd.Stdout, cmd.Stderr = stdout, stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatalf("harness: starting %s: %v", bin, err)
	}
	tr := proc.NewTracker(cmd.Process.Pid, marker)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	timedOut := false
	var waitErr error
wait:
	for {
		select {
		case waitErr = <-done:
			break wait
		case <-tick.C:
			tr.Scan()
		case <-timer.C:
			timedOut = true
			tr.Scan()
			killed := tr.KillAll()
			_ = cmd.Process.Kill()
			waitErr = <-done
			t.Errorf("harness: %s timed out after %v; killed %d process(es) of it: %s", what, timeout, len(killed), strings.Join(killed, ", "))
			break wait
		}
	}
	res.Duration = time.Since(start)
	res.ExitCode = proc.ExitCode(cmd.ProcessState, waitErr)

	// Processes of the job must be gone once bin has exited.
	if !timedOut {
		// Done when three looks 20 ms apart find none: one look can miss
		// a process caught in execve (its environ reads empty then).
		deadline := time.Now().Add(2 * time.Second)
		for quiet := 0; quiet < 3 && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if len(tr.Alive()) > 0 {
				quiet = 0
			} else {
				quiet++
			}
		}
		if left := tr.Alive(); len(left) > 0 {
			killed := tr.KillAll()
			t.Errorf("harness: %d process(es) of the %s outlived %s by 2s and were killed: %s", len(left), what, filepath.Base(bin), strings.Join(killed, ", "))
		}
	}
	res.Stdout = readFile(filepath.Join(dir, "stdout"))
	res.Stderr = readFile(filepath.Join(dir, "stderr"))

	// /dev/shm must not have gained entries. Entries that a live process
	// holds belong to another job running at the same time: not ours.
	var added []string
	for range 10 {
		added = proc.NewShmEntries(shmBefore, listShm(t))
		if len(added) == 0 {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if len(added) > 0 {
		var ours []string
		holders := proc.ShmHolders()
		for _, e := range added {
			if pid := holders[e]; pid > 0 {
				t.Logf("harness: /dev/shm/%s appeared during the %s but process %d (not of it) holds it; ignored", e, what, pid)
			} else {
				ours = append(ours, e)
			}
		}
		added = ours
	}
	if len(added) > 0 {
		t.Errorf("harness: the %s left %d new entries in /dev/shm (removed now): %s", what, len(added), strings.Join(added, " "))
		for _, e := range added {
			os.RemoveAll(filepath.Join("/dev/shm", e))
		}
	}
	t.Logf("%s: exit code %d after %v", what, res.ExitCode, res.Duration.Round(time.Millisecond))
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("output of %s %s (exit code %d):\n%s", what, res.Cmd, res.ExitCode, res.Output())
		}
	})
	if timedOut {
		t.FailNow()
	}
	return res
}

// jobEnv is the environment of mpiexec: ours without the variables of an
// enclosing MPI job, CSP_* and LD_PRELOAD (a job's configuration is its
// -genv list).
func jobEnv(env []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case strings.HasPrefix(k, "CSP_"), k == "LD_PRELOAD",
			strings.HasPrefix(k, "PMI_"), strings.HasPrefix(k, "PMIX_"), strings.HasPrefix(k, "HYDI_"),
			strings.HasPrefix(k, "OMPI_COMM_WORLD_"), k == "MPI_LOCALNRANKS", k == "MPI_LOCALRANKID",
			strings.HasPrefix(k, "MPITEST_"):
			continue
		}
		out = append(out, kv)
	}
	return out
}

func readFile(p string) string {
	b, _ := os.ReadFile(p)
	return string(b)
}

func listShm(t T) map[string]bool {
	m, err := proc.ShmEntries()
	if err != nil {
		t.Fatalf("harness: listing /dev/shm: %v", err)
	}
	return m
}

func shellQuote(args []string) string { return shellquote.Join(args) }

// jobMarkerVar is set, to a value unique to the job, in the environment of
// mpiexec, which passes it on to every process of the job.
const jobMarkerVar = "CASPERII_TEST_JOB"

var jobSeq atomic.Int64

// Fields are the key=value pairs of one output line, plus the line itself
// under the key "" .
type Fields map[string]string

// Line returns the line the fields came from.
func (f Fields) Line() string { return f[""] }

// Int returns the value of key as an integer, and whether it is there and
// is one.
func (f Fields) Int(key string) (int64, bool) {
	v, ok := f[key]
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(v, 10, 64)
	return n, err == nil
}

// Match reports whether f has every key=value of kv.
func (f Fields) Match(kv ...string) bool {
	for _, p := range kv {
		k, v, _ := strings.Cut(p, "=")
		if got, ok := f[k]; !ok || got != v {
			return false
		}
	}
	return true
}

// ParseLines returns the key=value fields of every line of out whose first
// word is kind (for example "result" or "casperii-stats"). Lines may carry
// a prefix before kind (some launchers add one); words without '=' are
// ignored.
func ParseLines(out, kind string) []Fields {
	var rs []Fields
	for _, line := range strings.Split(out, "\n") {
		line = strings.TrimRight(line, "\r")
		i := strings.Index(line, kind+" ")
		if i < 0 || (i > 0 && line[i-1] != ' ' && line[i-1] != ':' && line[i-1] != ']') {
			continue
		}
		f := Fields{"": line}
		for _, w := range strings.Fields(line[i+len(kind):]) {
			if k, v, ok := strings.Cut(w, "="); ok && k != "" {
				f[k] = v
			}
		}
		rs = append(rs, f)
	}
	return rs
}

// Results returns the "result" lines of out.
func Results(out string) []Fields { return ParseLines(out, "result") }

// SortedLines returns the lines of kind in out, from the kind on (without
// any prefix a launcher adds), sorted: what several processes printed, in
// an order that does not depend on who printed first.
func SortedLines(out, kind string) []string {
	var ls []string
	for _, f := range ParseLines(out, kind) {
		line := f.Line()
		ls = append(ls, line[strings.Index(line, kind+" "):])
	}
	sort.Strings(ls)
	return ls
}

// Select returns the fields of rs that match every key=value of kv.
func Select(rs []Fields, kv ...string) []Fields {
	var out []Fields
	for _, f := range rs {
		if f.Match(kv...) {
			out = append(out, f)
		}
	}
	return out
}

// Stats is one casperii-stats line.
type Stats struct {
	Rank                                           int
	IsendOffloaded, IrecvOffloaded, Direct, Bounce int64
	Fields                                         Fields // every field of the line
}

// StatsLines parses the casperii-stats lines of out (the job's stderr) by
// user world rank. A malformed line (a missing or non-numeric required
// field) or two lines for one rank is an error.
func StatsLines(out string) (map[int]Stats, error) {
	m := map[int]Stats{}
	for _, f := range ParseLines(out, "casperii-stats") {
		var s Stats
		var vals [5]int64
		for i, k := range []string{"rank", "isend_offloaded", "irecv_offloaded", "direct", "bounce"} {
			v, ok := f.Int(k)
			if !ok {
				return m, fmt.Errorf("casperii-stats line without a numeric %s: %q", k, f.Line())
			}
			vals[i] = v
		}
		s.Rank = int(vals[0])
		s.IsendOffloaded, s.IrecvOffloaded, s.Direct, s.Bounce = vals[1], vals[2], vals[3], vals[4]
		s.Fields = f
		if _, dup := m[s.Rank]; dup {
			return m, fmt.Errorf("two casperii-stats lines for rank %d", s.Rank)
		}
		m[s.Rank] = s
	}
	return m, nil
}
