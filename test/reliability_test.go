package test

import (
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Reliability: faults, bad input, load, hostile shared memory, leaks.
// The programs are test/cprogs/rel_*.c; they reach the runtime's test
// hooks (internal/user/testhook.c) through dlsym in the preloaded library.

// relLayout: 2 nodes of 1 ghost + 2 users, so a ghost serves two users.
var relLayout = Layout{N: 6, NodeSize: 3}

// TestGhostKilled: a ghost SIGKILLed in the middle of a ring exchange
// ends the job within seconds, leaving no process and nothing in
// /dev/shm behind (Run checks both).
func TestGhostKilled(t *testing.T) {
	prog := CProg(t, "rel_fault")
	// Under mpiexec as it is, the launcher notices the dead process and
	// tears the job down.
	t.Run("mpiexec", func(t *testing.T) {
		res := Run(t, Job{Layout: relLayout, Prog: prog, Args: []string{"killghost", "wait", "fatal"},
			Preload: true, Timeout: 30 * time.Second})
		require.NotEqual(t, 0, res.ExitCode, "the job fails")
		require.Less(t, res.Duration, 10*time.Second, "the job ends promptly")
	})
	// With the launcher stopped (it can neither reap the dead ghost nor
	// kill anything), the runtime itself must notice: every user of the
	// dead ghost gets an error from its next completion call, one line
	// long, instead of hanging. The users then resume the launcher and
	// abort.
	for _, c := range []struct{ name, poll, handler string }{
		{"waitall", "wait", "return"},
		{"test-loop", "test", "return"},
		{"fatal-handler", "wait", "fatal"},
	} {
		t.Run("launcher-stopped/"+c.name, func(t *testing.T) {
			out, read := relOut(t)
			wrap, stderr := relStderr(t)
			res := Run(t, Job{Layout: relLayout, Prog: wrap, Args: []string{prog, "killghost", c.poll, c.handler, "stop"},
				Preload: true, Timeout: 30 * time.Second, Env: []string{out}})
			require.NotEqual(t, 0, res.ExitCode, "the job fails")
			rs := read()
			killed := Select(rs, "test=killed")
			require.Len(t, killed, 1, "user 0 killed its ghost")
			kt, _ := killed[0].Int("t_ms")
			if c.handler == "fatal" {
				// MPI's default handler aborts the job (the users resume
				// the launcher as they exit), after the runtime's line;
				// the first user of the dead ghost to abort ends the job.
				require.Regexp(t, `casperii: rank [01]: the ghost process serving this process has exited; the job cannot continue`, stderr())
				require.Less(t, res.Duration, 10*time.Second, "the job ends promptly")
				return
			}
			gone := Select(rs, "test=ghost-gone")
			// The first user to resume the launcher starts the teardown,
			// which may kill the live ghost before its users: from then
			// on they may report it gone too.
			teardown := int64(math.MaxInt64)
			for _, f := range Select(rs, "test=resumed") {
				if rt, ok := f.Int("t_ms"); ok && rt < teardown {
					teardown = rt
				}
			}
			require.NotEmpty(t, append(Select(gone, "rank=0"), Select(gone, "rank=1")...),
				"a user of the dead ghost reports the error")
			for _, f := range gone {
				require.True(t, f.Match("ok=1"), f.Line())
				require.Contains(t, f["msg"], "the_ghost_process_serving_this_process_has_exited", f.Line())
				r, _ := f.Int("rank")
				et, _ := f.Int("t_ms")
				if r != 0 && r != 1 {
					require.GreaterOrEqual(t, et, teardown,
						"only the dead ghost's users (0 and 1) fail while the job is held: %s", f.Line())
					continue
				}
				t.Logf("rank %d: error %d ms after the kill", r, et-kt)
				require.Less(t, et-kt, int64(2000), "the error comes fast: %s", f.Line())
			}
			require.Less(t, res.Duration, 10*time.Second, "the job ends promptly")
		})
	}
}

// TestUserKilled: a user SIGKILLed while its ghost holds offloaded
// receives for it ends the job; the ghosts exit.
func TestUserKilled(t *testing.T) {
	prog := CProg(t, "rel_fault")
	t.Run("mpiexec", func(t *testing.T) {
		res := Run(t, Job{Layout: relLayout, Prog: prog, Args: []string{"killuser", "1"}, Preload: true, Timeout: 30 * time.Second})
		require.NotEqual(t, 0, res.ExitCode)
		require.Less(t, res.Duration, 10*time.Second, "the job ends promptly")
	})
	t.Run("launcher-stopped", func(t *testing.T) {
		out, read := relOut(t)
		wrap, stderr := relStderr(t)
		res := Run(t, Job{Layout: relLayout, Prog: wrap, Args: []string{prog, "killuser", "1", "stop"}, Preload: true,
			Timeout: 30 * time.Second, Env: []string{out}})
		require.NotEqual(t, 0, res.ExitCode)
		rs := read()
		exited := Select(rs, "test=ghost-exited")
		require.Len(t, exited, 1, "user 2 saw the victim's ghost exit")
		require.True(t, exited[0].Match("ok=1"), exited[0].Line())
		ms, _ := exited[0].Int("after_ms")
		t.Logf("the victim's ghost exited %d ms after the victim", ms)
		// The ghost notices within 100 ms, calls MPI_Abort (which waits
		// for the stopped launcher) and exits by itself 2 s later: nothing
		// else ends it while the launcher is stopped.
		require.GreaterOrEqual(t, ms, int64(1900), exited[0].Line())
		require.Less(t, ms, int64(4000), exited[0].Line())
		require.Regexp(t, `casperii: ghost \d+: user \d+ \(pid \d+\) exited without MPI_Finalize; ending the job`, stderr())
		require.Less(t, res.Duration, 10*time.Second, "the job ends promptly")
	})
}

// TestAbortAnyUser: MPI_Abort from any user (not only rank 0, on
// MPI_COMM_WORLD or on MPI_COMM_SELF) ends the whole job, ghosts included,
// while the ghosts hold offloaded receives.
func TestAbortAnyUser(t *testing.T) {
	prog := CProg(t, "rel_fault")
	for _, c := range []struct{ who, comm string }{{"3", "world"}, {"1", "self"}} {
		t.Run(fmt.Sprintf("rank%s-%s", c.who, c.comm), func(t *testing.T) {
			res := Run(t, Job{Layout: relLayout, Prog: prog, Args: []string{"abort", c.who, c.comm}, Preload: true, Timeout: 30 * time.Second})
			require.NotEqual(t, 0, res.ExitCode)
			require.Less(t, res.Duration, 10*time.Second, "the job ends promptly")
			require.Len(t, Select(Results(res.Stdout), "test=ready"), relLayout.Users(), "every user got there")
		})
	}
}

// relStderr returns a wrapper that runs a program with its stderr
// appended to a file of its own per rank (output through a stopped or
// aborting launcher may be lost), and a function that returns all of it.
func relStderr(t *testing.T) (string, func() string) {
	dir := t.TempDir()
	wrap := filepath.Join(dir, "errwrap.sh")
	script := "#!/bin/sh\nexec \"$@\" 2>>" + dir + "/stderr.$PMI_RANK\n"
	require.NoError(t, os.WriteFile(wrap, []byte(script), 0o755))
	return wrap, func() string {
		files, _ := filepath.Glob(filepath.Join(dir, "stderr.*"))
		var b strings.Builder
		for _, f := range files {
			b.WriteString(readFile(f))
		}
		return b.String()
	}
}

// relOut returns the REL_OUT=<file> setting with which the rel_* programs
// also append their result lines to a file (stdout does not survive a
// stopped or aborting launcher reliably), and a function that parses it.
func relOut(t *testing.T) (string, func() []Fields) {
	path := filepath.Join(t.TempDir(), "results")
	return "REL_OUT=" + path, func() []Fields { return Results(readFile(path)) }
}

// relStats parses the casperii-stats lines, one per user, and checks that
// every user holds nothing at MPI_Finalize: no cell out of its pool, no
// operation record, no shared-heap byte (the fields printed after draining
// every operation).
func relStats(t *testing.T, res Result, users int, clean bool) map[int]Stats {
	t.Helper()
	st, err := StatsLines(res.Stderr)
	require.NoError(t, err)
	require.Len(t, st, users, "one casperii-stats line per user")
	if clean {
		for r, s := range st {
			for _, k := range []string{"cells_in_use", "ops_live", "heap_in_use"} {
				v, ok := s.Fields.Int(k)
				require.True(t, ok, "rank %d: no %s in %s", r, k, s.Fields.Line())
				require.Zero(t, v, "rank %d holds %s at MPI_Finalize: %s", r, k, s.Fields.Line())
			}
		}
	}
	return st
}

// relResults checks that the job exited 0 and that every result line says
// ok=1, and returns them.
func relResults(t *testing.T, res Result) []Fields {
	t.Helper()
	require.Equal(t, 0, res.ExitCode, "the job failed")
	rs := Results(res.Stdout)
	for _, f := range rs {
		require.True(t, f.Match("ok=1"), "a check failed: %s", f.Line())
	}
	return rs
}

// TestBadInput: the bad-input matrix (test/cprogs/rel_badinput.c) on every
// offload algorithm. Errors come back as their MPI error class with a
// one-line message, post nothing (cells, records and heap bytes in use are
// unchanged) and leave the communicator working; MPI_PROC_NULL completes
// at once with MPI's empty status; unknown hint keys are ignored, bad
// values rejected; buffers outside the shared heap are bounced, counted
// exactly in CSP_STATS bounce=. (TestInterposeErrors covers the world
// communicator and MPI_Comm_free of it; TestFailFast the Go API.)
func TestBadInput(t *testing.T) {
	l := relLayout
	res := Run(t, Job{Layout: l, Prog: CProg(t, "rel_badinput"), Preload: true, Env: []string{"CSP_STATS=1"}})
	rs := relResults(t, res)
	users, modes := l.Users(), 4
	for name, perMode := range map[string]int{
		"setup": 1, "tag-above-ub": 2, "tag-negative": 2, "count-negative": 2, "rank-invalid": 3,
		"no-side-effects": 1, "bounce": 1,
		"proc-null/recv": 1, "proc-null/irecv": 1, "proc-null/send": 1, "proc-null/isend": 1,
		"proc-null/ssend": 1, "proc-null/sendrecv": 1, "proc-null/probe": 1, "proc-null/iprobe": 1,
		"proc-null/mprobe-mrecv": 1, "proc-null/improbe-imrecv": 1, "proc-null/isendrecv": 1,
		"proc-null/persistent": 1, "proc-null/mixed-waitall": 1,
	} {
		require.Len(t, Select(rs, "test="+name), users*modes*perMode, name)
	}
	for _, key := range []string{"wildcard_used", "shmbuf_regist", "async_config", "datatype_used", "offload_min_msgsz"} {
		require.Len(t, Select(rs, "test=hint-value/"+key), users, key)
		require.Len(t, Select(rs, "test=hint-value-comm-works", "mode="+key), users, key)
	}
	require.Len(t, Select(rs, "test=hint-unknown-key"), 2*users)
	require.Len(t, Select(rs, "test=too-big"), 2*users*modes)
	require.Len(t, Select(rs, "test=zero-count-null-type"), users*modes)
	require.Len(t, Select(rs, "test=cancel-after-error"), users)
	require.Len(t, Select(rs, "test=finalize-after-error"), users)
	require.Len(t, Select(rs, "test=wildcard-ruled-out"), 3*users)
	st := relStats(t, res, users, true)
	for _, f := range Select(rs, "test=bounce-count") {
		r, _ := f.Int("rank")
		want, _ := f.Int("expect_bounce")
		require.Positive(t, want)
		require.Equal(t, want, st[int(r)].Bounce, "every operation on memory outside the shared heap is bounced, and counted: %s", st[int(r)].Fields.Line())
	}

	// Configurations that cannot run: every process ends at MPI_Init with
	// one line naming the problem and the fix.
	for _, c := range []struct {
		name   string
		layout Layout
		env    []string
		want   []string
	}{
		{"ng-too-large", Layout{N: 4, NodeSize: 2, NG: 2}, nil, []string{"CSP_NG=2 leaves no user among the 2 processes of a node", "lower CSP_NG"}},
		{"node-size-not-dividing", Layout{N: 4, NodeSize: 3}, nil, []string{"CSP_NODE_SIZE=3 does not divide the 4 processes", "use a divisor of 4"}},
		{"cells-out-of-range", Layout{N: 4, NodeSize: 2}, []string{"CSP_OFFLOAD_SHMQ_NCELLS=4"}, []string{`CSP_OFFLOAD_SHMQ_NCELLS="4" is not valid`, "between 16 and 1048576"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := RunFailing(t, Job{Layout: c.layout, Prog: CProg(t, "rel_badinput"), Preload: true, Env: c.env, Timeout: 30 * time.Second})
			require.NotEqual(t, 0, res.ExitCode)
			require.Less(t, res.Duration, 10*time.Second)
			require.Empty(t, Results(res.Stdout), "no process got past MPI_Init")
			found := false
			for _, line := range strings.Split(res.Stderr, "\n") {
				all := strings.HasPrefix(line, "casperii: ")
				for _, w := range c.want {
					all = all && strings.Contains(line, w)
				}
				found = found || all
			}
			require.True(t, found, "no line of stderr has all of %q", c.want)
		})
	}
}

// TestOtherMPI: lib/libcasperii.so loaded into a program of another MPI
// stops at MPI_Init with one line saying so, before any MPI call (which
// would crash: the library speaks MPICH's ABI). Open MPI is not installed
// here, so a stand-in library defining Open MPI's ompi_mpi_init is
// preloaded too; the library recognizes Open MPI by that symbol.
func TestOtherMPI(t *testing.T) {
	dir := t.TempDir()
	src, so := filepath.Join(dir, "fakeompi.c"), filepath.Join(dir, "libfakeompi.so")
	require.NoError(t, os.WriteFile(src, []byte("void ompi_mpi_init(void) {}\n"), 0o644))
	require.NoError(t, runTool(dir, "gcc", "-shared", "-fPIC", src, "-o", so))
	res := RunFailing(t, Job{Layout: Layout{N: 2}, Prog: CProg(t, "rel_badinput"), Timeout: 30 * time.Second,
		Env: []string{"LD_PRELOAD=" + Lib(t) + ":" + so}})
	require.NotEqual(t, 0, res.ExitCode)
	require.Empty(t, Results(res.Stdout), "no process got past MPI_Init")
	require.Contains(t, res.Stderr, "casperii: this program runs on Open MPI (ompi_mpi_init is defined), and CasperII works with MPICH only")
}

// TestHostileCells: a user that writes malformed cells (out-of-range
// segment, offset, length, peer, slot, tag, operation, mode, cancel and
// segment targets, unknown matched message; values on its ring that are no
// cell index; a cell of generation 0) gets an error completion with the
// right MPI error class for each, the ghost logs one line each, and keeps
// serving: the same user's next valid operations and the ghost's other
// user (checked ping-pongs after every case), and the other node.
func TestHostileCells(t *testing.T) {
	l := relLayout
	res := Run(t, Job{Layout: l, Prog: CProg(t, "rel_hostile"), Args: []string{"cells"}, Preload: true, Timeout: 60 * time.Second})
	rs := relResults(t, res)
	cases := Select(rs, "test=hostile")
	require.Len(t, cases, 20, "every hostile case ran")
	require.Len(t, Select(rs, "test=served"), 2*(len(cases)+1), "a ping-pong before and after every case, on both users")
	require.Len(t, Select(rs, "test=others"), 2)
	for _, want := range []string{
		"bad segment 100000: not an entry of the segment table",
		"bad segment 255: not mapped",
		"bad offset 1099511627776",
		"bad offset 18446744073709551608",
		"buffer of 1099511627776 bytes does not fit segment",
		"buffer of 2147483648 bytes does not fit segment",
		"bad length 9223372036854775808",
		"bad peer 1048576: not a world rank",
		"bad slot 1048576: not an internal communicator",
		"bad tag 2147483647",
		"bad op 77: unknown operation",
		"bad mode 9: unknown matching mode",
		"bad cancel target 1073741824",
		"message 987654 is not a matched message of this user",
		"published cell index 1099511627776, outside its",
		"published cell index 18446744073709551615, outside its",
		"bad generation 0",
	} {
		require.Contains(t, res.Stderr, want)
	}
	for _, line := range strings.Split(strings.TrimSpace(res.Stderr), "\n") {
		require.True(t, strings.HasPrefix(line, "casperii: ghost "), "every line is the ghost's: %q", line)
	}
}

// TestHostileRing: a user that corrupts its submission ring's indices is
// no longer served (one log line); the ghost keeps serving its other user
// and exits when that one finalizes; the broken user's MPI_Finalize
// returns an error instead of hanging.
func TestHostileRing(t *testing.T) {
	l := relLayout
	res := Run(t, Job{Layout: l, Prog: CProg(t, "rel_hostile"), Args: []string{"ring"}, Preload: true, Timeout: 60 * time.Second})
	rs := relResults(t, res)
	require.Len(t, Select(rs, "test=served", "case=corrupt-tail"), 1)
	require.Len(t, Select(rs, "test=others"), 2)
	fin := Select(rs, "test=finalize")
	require.Len(t, fin, 1)
	require.False(t, fin[0].Match("rc=0"), "MPI_Finalize of the broken user reports the error: %s", fin[0].Line())
	require.Contains(t, res.Stderr, "submission ring is corrupt")
	require.Contains(t, res.Stderr, "no longer serving it")
}

// TestLoad: backpressure with a small cell pool (CSP_OFFLOAD_SHMQ_NCELLS=64).
// The sender posts 1,000,000 8-byte sends without ever waiting
// (MPI_Isend + MPI_Request_free), the receiver keeps 10,000 receives
// outstanding: nothing fails, nothing is lost or reordered (receive i gets
// message i), memory grows by at most a few hundred bytes per operation
// waiting for a cell and is reused by a second burst, and everything is
// back in its pool at the end. (Plain MPICH 4.0.2 aborts on the same
// burst: its request pool runs out.)
func TestLoad(t *testing.T) {
	prog := CProg(t, "rel_load")
	for _, c := range []struct {
		name          string
		n, second, w  int
		size          int
		buf, wildcard string
		timeout       time.Duration
	}{
		{"1M-sends", 1000000, 200000, 10000, 8, "regist", "none", 120 * time.Second},
		{"bounced", 100000, 0, 10000, 64, "plain", "none", 60 * time.Second},
		{"ghost-matched", 200000, 0, 10000, 8, "regist", "any_src", 60 * time.Second},
	} {
		t.Run(c.name, func(t *testing.T) {
			l := Layout{N: 4, NodeSize: 2}
			res := Run(t, Job{Layout: l, Prog: prog, Preload: true, Timeout: c.timeout,
				Args: []string{fmt.Sprint(c.n), fmt.Sprint(c.w), fmt.Sprint(c.size), c.buf, c.wildcard, fmt.Sprint(c.second)},
				Env:  []string{"CSP_STATS=1", "CSP_OFFLOAD_SHMQ_NCELLS=64"}})
			rs := relResults(t, res)
			st := relStats(t, res, l.Users(), true)
			for _, role := range []string{"send", "recv"} {
				fs := Select(rs, "test=load", "role="+role)
				require.Len(t, fs, 1, role)
				f := fs[0]
				t.Logf("%s", f.Line())
				for _, k := range []string{"bad_seq", "errors", "cells", "ops", "heap", "held"} {
					v, ok := f.Int(k)
					require.True(t, ok && v == 0, "%s=%d: %s", k, v, f.Line())
				}
				h0, _ := f.Int("hwm0_kib")
				h1, _ := f.Int("hwm1_kib")
				h2, _ := f.Int("hwm2_kib")
				growth := (h1 - h0) * 1024
				if role == "send" {
					// Every send waits for a cell as an operation record
					// (~220 bytes here) plus its bounce copy if any; the
					// buffer itself is the program's.
					per := int64(256)
					if c.buf == "plain" {
						per += 64 + int64(c.size)
					}
					bound := int64(c.n)*(per+int64(c.size)) + 32<<20
					t.Logf("sender: VmHWM grew %d MiB for %d messages (%d bytes each; bound %d MiB)", growth>>20, c.n, growth/int64(c.n), bound>>20)
					require.LessOrEqual(t, growth, bound, f.Line())
				} else {
					t.Logf("receiver: VmHWM grew %d MiB with %d receives outstanding", growth>>20, c.w)
					require.LessOrEqual(t, growth, int64(64<<20), f.Line())
				}
				if c.second > 0 {
					require.LessOrEqual(t, (h2-h1)*1024, int64(16<<20), "a second burst reuses the memory of the first: %s", f.Line())
				}
			}
			for r, s := range st {
				if c.buf == "plain" {
					require.GreaterOrEqual(t, s.Bounce, int64(c.n), "rank %d: every message is bounced: %s", r, s.Fields.Line())
				} else {
					require.LessOrEqual(t, s.Bounce, int64(2), "rank %d: registered buffers are not bounced: %s", r, s.Fields.Line())
				}
			}
		})
	}
}

// TestBacklog: posts beyond a user's cells (held posts) go out while the
// process waits elsewhere, and the default cell count carries a deep
// backlog of synchronous sends (test/cprogs/rel_backlog.c). "barrier":
// with 16 cells the sender posts 3000 sends it never waits for, then calls
// MPI_Barrier, which its receiver reaches only after every message: the
// held sends must go out from inside the barrier, both where it runs as
// its nonblocking twin (the users lend their cores) and where it is
// MPICH's own (CSP_GHOST_NICE=0: no lending). Before, the sender sat in
// the barrier with its sends held (MPICH's threads/pt2pt mt_bsendrecv
// hung so). "crossed": 5000 MPI_Issends against 5000 receives posted in
// the opposite tag order, at the default cell count (with 1024 cells, the
// old default, the sends with cells wait for receives without: MPICH's
// mt_issendirecv hung so). Every message and status is checked, the
// counters show the posts went through the ghosts (and were held where
// cells were short), and every cell is back at the end.
func TestBacklog(t *testing.T) {
	prog := CProg(t, "rel_backlog")
	for _, c := range []struct {
		name, mode string
		n          int
		env        []string
		held       bool
	}{
		{"barrier-lending", "barrier", 3000, []string{"CSP_OFFLOAD_SHMQ_NCELLS=16"}, true},
		{"barrier-mpich", "barrier", 3000, []string{"CSP_OFFLOAD_SHMQ_NCELLS=16", "CSP_GHOST_NICE=0"}, true},
		{"crossed-default-cells", "crossed", 5000, nil, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			l := Layout{N: 4, NodeSize: 2}
			res := Run(t, Job{Layout: l, Prog: prog, Preload: true, Timeout: 90 * time.Second,
				Args: []string{c.mode, fmt.Sprint(c.n)}, Env: append([]string{"CSP_STATS=1"}, c.env...)})
			rs := relResults(t, res)
			require.Len(t, Select(rs, "test=backlog"), l.Users())
			for _, f := range rs {
				for _, k := range []string{"bad", "errors", "cells", "ops", "held"} {
					v, ok := f.Int(k)
					require.True(t, ok && v == 0, "%s=%d: %s", k, v, f.Line())
				}
			}
			st := relStats(t, res, l.Users(), true)
			for r, s := range st {
				held, _ := s.Fields.Int("held")
				if r%2 == 0 {
					require.GreaterOrEqual(t, s.IsendOffloaded, int64(c.n), "rank %d: %s", r, s.Fields.Line())
					if c.held {
						require.Greater(t, held, int64(c.n/2), "rank %d held its sends beyond the cells: %s", r, s.Fields.Line())
					}
				} else {
					require.GreaterOrEqual(t, s.IrecvOffloaded, int64(c.n), "rank %d: %s", r, s.Fields.Line())
				}
				if !c.held {
					require.Zero(t, held, "rank %d: the default cells carry %d posts: %s", r, c.n, s.Fields.Line())
				}
			}
		})
	}
}

// TestLeaks: after a long run of mixed operations every cell is back in
// its pool, every operation record returned and the shared heap's bytes in
// use back to zero (the CSP_STATS fields printed at MPI_Finalize, after
// draining): the randomized matching program (every send mode, persistent
// requests, probes, matched probes, cancels, the whole Wait/Test family,
// messages up to 1 MiB) and rel_mixed (buffered and synchronous modes,
// Isendrecv, idup, registered memory coming and going, which also checks
// the counts after every round). CSP_HEAP_ARENA=20 (1 MiB arenas) makes
// the large bounce copies take and give back segments of their own.
func TestLeaks(t *testing.T) {
	l := relLayout
	env := []string{"CSP_STATS=1", "CSP_HEAP_ARENA=20"}
	for i, mode := range []string{"any_src", "none"} {
		t.Run("rmatch/"+mode, func(t *testing.T) {
			res := Run(t, Job{Layout: l, Prog: CProg(t, "rmatch"), Args: []string{fmt.Sprint(4242 + i), "4000", mode},
				Preload: true, Env: env, Timeout: 120 * time.Second})
			require.Equal(t, 0, res.ExitCode, "rmatch failed")
			st := relStats(t, res, l.Users(), true)
			for r, s := range st {
				require.Positive(t, s.Bounce, "rank %d: the bounce path ran: %s", r, s.Fields.Line())
			}
		})
		t.Run("mixed/"+mode, func(t *testing.T) {
			res := Run(t, Job{Layout: l, Prog: CProg(t, "rel_mixed"), Args: []string{"30", mode},
				Preload: true, Env: env, Timeout: 120 * time.Second})
			rs := relResults(t, res)
			require.Len(t, Select(rs, "test=mixed", "rounds=30", "hooks=1"), l.Users())
			relStats(t, res, l.Users(), true)
		})
	}
}

// TestValgrindFastPath runs the user processes (the C fast path: posting,
// completion, the bounce heap, the interposer) under valgrind's memcheck
// and requires no invalid access, no use of uninitialised memory and no
// definite leak outside MPICH, UCX, hwloc and the Go runtime
// (test/valgrind.supp). The ghosts run natively.
func TestValgrindFastPath(t *testing.T) {
	vg, err := exec.LookPath("valgrind")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("valgrind is not installed (scripts/setup.sh installs it)")
		}
		t.Skip("valgrind is not installed (scripts/setup.sh installs it)")
	}
	supp := filepath.Join(Root(t), "test", "valgrind.supp")
	for _, c := range []struct {
		prog string
		args []string
	}{
		{"rel_mixed", []string{"3", "any_src"}},
		{"rel_badinput", nil},
	} {
		t.Run(c.prog, func(t *testing.T) {
			dir := t.TempDir()
			// Layout n4-node2: world ranks 1 and 3 are the users.
			wrap := filepath.Join(dir, "vgwrap.sh")
			script := "#!/bin/sh\ncase \"$PMI_RANK\" in\n1|3) exec " + vg +
				" --tool=memcheck --leak-check=full --show-leak-kinds=definite --errors-for-leak-kinds=definite" +
				" --num-callers=30 --suppressions=" + supp + " --log-file=" + dir + "/vg.%p.log \"$@\" ;;\n" +
				"*) exec \"$@\" ;;\nesac\n"
			require.NoError(t, os.WriteFile(wrap, []byte(script), 0o755))
			l := Layout{N: 4, NodeSize: 2}
			res := Run(t, Job{Layout: l, Prog: wrap, Args: append([]string{CProg(t, c.prog)}, c.args...),
				Preload: true, Timeout: 120 * time.Second,
				// The Go runtime's preemption signals write on goroutine
				// stacks in ways memcheck flags; Go's advice is to turn
				// them off under valgrind. So is the lending timer's
				// handler on Go's alternate signal stack: once in 5 CI
				// runs memcheck then flagged MPICH's writes on the
				// thread's own stack inside a setup collective.
				Env: []string{"CSP_HEAP_ARENA=20", "GODEBUG=asyncpreemptoff=1", "CSP_LEND_TIMER=off"}})
			rs := relResults(t, res)
			require.NotEmpty(t, rs)
			logs, _ := filepath.Glob(filepath.Join(dir, "vg.*.log"))
			require.Len(t, logs, l.Users(), "one valgrind log per user")
			for _, lg := range logs {
				text := readFile(lg)
				if !strings.Contains(text, "ERROR SUMMARY: 0 errors") || !strings.Contains(text, "definitely lost: 0 bytes") &&
					!strings.Contains(text, "All heap blocks were freed") {
					t.Errorf("valgrind found errors in our code (%s):\n%s", lg, text)
				}
			}
		})
	}
}
