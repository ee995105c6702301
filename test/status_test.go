package test

import (
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// statusRows are the lines of test/cprogs/mr_status.c, one check each of
// the rules in docs/status-fields.md (the table names them).
var statusRows = []string{
	"err-recv", "err-wait", "err-test", "err-waitany", "err-testany", "err-getstatus",
	"err-probe", "err-iprobe", "err-mprobe-mrecv", "err-improbe-imrecv", "err-sendrecv",
	"err-isendrecv", "err-persist",
	"ok-waitall", "ok-testall", "ok-waitsome", "ok-testsome",
	"in-status-waitall", "in-status-testall", "in-status-waitsome", "in-status-testsome",
	"in-status-ignore-waitall", "in-status-ignore-testall", "in-status-ignore-waitsome", "in-status-ignore-testsome",
	"truncate-recv", "truncate-wait", "truncate-waitany", "truncate-testany", "truncate-getstatus",
	"empty-wait-null", "empty-test-null", "empty-getstatus-null", "empty-wait-inactive",
	"empty-test-inactive", "empty-getstatus-inactive", "empty-waitany", "empty-testany",
	"empty-waitall-null", "empty-waitall-inactive", "empty-testall", "empty-waitsome", "empty-testsome",
	"procnull-recv", "procnull-irecv", "procnull-persist", "procnull-sendrecv", "procnull-probe",
	"procnull-iprobe", "procnull-mprobe-mrecv", "procnull-improbe-imrecv",
	"count-derived", "count-partial", "count-zero", "count-send", "count-send-procnull", "cancelled-recv",
}

// statusMPICHDeparts are the rows where MPICH 4.0.2 departs from MPI and
// the library follows MPI (docs/status-fields.md says why): plain MPICH's
// line may differ there.
var statusMPICHDeparts = map[string]string{
	"err-probe":              "MPICH's MPI_Probe writes MPI_SUCCESS into MPI_ERROR",
	"err-iprobe":             "MPICH's MPI_Iprobe writes MPI_SUCCESS into MPI_ERROR",
	"err-isendrecv":          "MPICH's MPI_Isendrecv status is not its receive's",
	"ok-waitall":             "MPICH's MPI_Waitall writes MPI_SUCCESS into MPI_ERROR when it succeeds",
	"empty-waitall-inactive": "MPICH's MPI_Waitall writes MPI_SUCCESS into an inactive request's MPI_ERROR",
	"empty-testany":          "MPICH's MPI_Testany leaves the status of null and inactive requests",
	"procnull-irecv":         "MPICH's MPI_Irecv from MPI_PROC_NULL may give source 0, tag 0 (pmodels/mpich#6805)",
	"procnull-persist":       "MPICH's persistent receive from MPI_PROC_NULL gives source MPI_ANY_SOURCE",
}

// TestStatusFields runs mr_status on plain MPICH (2 processes) and under
// the library (2 nodes x (1 ghost + 1 user)), in every wildcard_used mode:
// every line of the library's run is ok=1 (the rule of
// docs/status-fields.md holds) and, but for the rows where MPICH 4.0.2
// departs from MPI, the same as plain MPICH's, field for field. The
// CSP_STATS counters prove that the library's run offloaded every post.
func TestStatusFields(t *testing.T) {
	prog := CProg(t, "mr_status")
	args := []string{strings.Join(matchModes, ",")}
	plain := Run(t, Job{Layout: Layout{N: 2}, Prog: prog, Args: args, Timeout: mrTimeout})
	// 1: a check failed (where MPICH departs); anything else: it died
	require.Contains(t, []int{0, 1}, plain.ExitCode, "plain MPICH: the program died")
	l := Layout{N: 4, NodeSize: 2}
	lib := Run(t, Job{Layout: l, Prog: prog, Args: args, Preload: true, Env: []string{"CSP_STATS=1"},
		Timeout: mrTimeout})
	require.Equal(t, 0, lib.ExitCode, "the library: a check failed or the program died")

	byRow := func(res Result) map[string]Fields {
		m := map[string]Fields{}
		for _, f := range Results(res.Stdout) {
			if f["test"] != "posts" {
				m[f["test"]+" "+f["mode"]] = f
			}
		}
		return m
	}
	want, got := byRow(plain), byRow(lib)
	for _, mode := range matchModes {
		for _, row := range statusRows {
			key := row + " " + mode
			t.Run(strings.ReplaceAll(mode, "|", "+")+"/"+row, func(t *testing.T) {
				g, ok := got[key]
				require.True(t, ok, "the library's run printed no line %s", key)
				require.True(t, g.Match("ok=1"), "the rule does not hold: %s", g.Line())
				w, ok := want[key]
				require.True(t, ok, "plain MPICH printed no line %s", key)
				if why := statusMPICHDeparts[row]; why != "" {
					if w.Line() != g.Line() {
						t.Logf("MPICH departs (%s):\n  plain:   %s\n  library: %s", why, w.Line(), g.Line())
					}
					return
				}
				require.Equal(t, w.Line(), g.Line(), "the library differs from plain MPICH")
			})
		}
	}
	// No line that no rule names.
	var extra []string
	rows := map[string]bool{}
	for _, r := range statusRows {
		rows[r] = true
	}
	for _, f := range got {
		if !rows[f["test"]] {
			extra = append(extra, f["test"])
		}
	}
	sort.Strings(extra)
	require.Empty(t, extra, "lines of mr_status missing from statusRows (and the doc's table)")

	rs := Results(lib.Stdout)
	mrRequireOffloaded(t, lib, rs, l.Users(), func(string) bool { return true })
}
