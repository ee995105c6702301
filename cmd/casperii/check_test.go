package main

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/casperii/casperii/internal/core"
)

func coreEnvVarsSorted() []string {
	v := core.EnvVars()
	slices.Sort(v)
	return v
}

func describedVars() []string { return core.DescribedEnvVars() }

func mustOptions(t *testing.T, args ...string) options {
	t.Helper()
	o, _, err := parseOptions("run", append(args, "--", "x"))
	require.NoError(t, err)
	return o
}

func mpiexecJob(args ...string) job {
	return parseJob(append([]string{"mpiexec"}, args...), func(string) string { return "" })
}

// Every misconfiguration is one line that names the fix.
func TestValidateMessages(t *testing.T) {
	for _, tc := range []struct {
		environ []string
		flags   []string
		job     job
		want    string
	}{
		{nil, []string{"-ng", "3", "-node-size", "2"}, mpiexecJob("-n", "4", "./a"),
			"casperii: -ng 3 with -node-size 2 leaves no user per node; use -ng 1 or a larger -node-size"},
		{[]string{"CSP_NG=3", "CSP_NODE_SIZE=2"}, nil, mpiexecJob("-n", "4", "./a"),
			"casperii: CSP_NG=3 (from the environment) with CSP_NODE_SIZE=2 (from the environment) leaves no user per node; use CSP_NG 1 or a larger CSP_NODE_SIZE"},
		{nil, []string{"-node-size", "1"}, mpiexecJob("-n", "4", "./a"),
			"casperii: 1 ghost per node (the default) with -node-size 1 leaves no user per node; use a larger -node-size, or -ng 0 for plain MPI"},
		{nil, []string{"-ng", "4"}, mpiexecJob("-n", "4", "./a"),
			"casperii: -ng 4 leaves no user among the 4 processes of mpiexec -n 4 on this host; use -ng 3 or less, or start more processes"},
		{nil, nil, mpiexecJob("-n", "1", "./a"),
			"casperii: 1 ghost per node (the default) leaves no user among the 1 process of mpiexec -n 1 on this host; start at least 2 processes with mpiexec, or use -ng 0 for plain MPI"},
		{nil, []string{"-node-size", "3"}, mpiexecJob("-n", "4", "./a"),
			"casperii: -node-size 3 does not divide the 4 processes of mpiexec -n 4 on this host; use a -node-size that divides 4 (2, 4), or a multiple of 3 processes"},
		{nil, []string{"-ng", "two"}, mpiexecJob("-n", "4", "./a"),
			"casperii: -ng two is not valid; use a number of ghosts per node >= 0 (0 turns offload off)"},
		{[]string{"CSP_STATS=maybe"}, nil, job{},
			"casperii: CSP_STATS=maybe (from the environment) is not valid; use 1 or 0"},
		{[]string{"CSP_OFFLOAD_SHMQ_NCELLS=8"}, nil, job{},
			"casperii: CSP_OFFLOAD_SHMQ_NCELLS=8 (from the environment) is not valid; use a cell count between 16 and 1048576"},
		{nil, nil, mpiexecJob("-genv", "CSP_ASYNC_CONFIG", "maybe", "-n", "4", "./a"),
			"casperii: -genv CSP_ASYNC_CONFIG maybe (in the command) is not valid; use on, off or auto"},
		{nil, []string{"-hints", "wildcard_used=nne"}, job{},
			`casperii: -hints wildcard_used=nne: wildcard_used="nne" is not valid; accepted: any_src, any_tag_same_tag, any_src|any_tag_same_tag, none (Casper spellings anysrc, anytag_notag also accepted)`},
		{nil, []string{"-hints", "wildcard_used"}, job{},
			`casperii: -hints wildcard_used: "wildcard_used" is not a key=value pair (pairs are separated by ';' or newlines, so a value joins its parts with '|' or ',')`},
	} {
		j := tc.job
		m, err := gather(tc.environ, j, mustOptions(t, tc.flags...))
		require.NoError(t, err)
		_, err = validate(m, j)
		require.EqualError(t, err, tc.want, "%v %v", tc.environ, tc.flags)
		require.NotContains(t, err.Error(), "\n")
	}
}

func TestValidateAccepts(t *testing.T) {
	for _, tc := range []struct {
		environ []string
		flags   []string
		job     job
	}{
		{nil, []string{"-ng", "1", "-node-size", "2"}, mpiexecJob("-n", "4", "./a")},
		{nil, nil, mpiexecJob("-n", "2", "./a")},
		{nil, []string{"-ng", "0"}, mpiexecJob("-n", "1", "./a")}, // pass-through
		{[]string{"CSP_ASYNC_MODE=rma"}, nil, mpiexecJob("-n", "1", "./a")},
		{nil, []string{"-ng", "2"}, mpiexecJob("-hosts", "a,b", "-n", "4", "./a")}, // per-host count unknown
		{nil, []string{"-hints", "wildcard_used=any_src|any_tag_same_tag;shmbuf_regist=true"}, mpiexecJob("-n", "3", "./a")},
	} {
		m, err := gather(tc.environ, tc.job, mustOptions(t, tc.flags...))
		require.NoError(t, err)
		_, err = validate(m, tc.job)
		require.NoError(t, err, "%v %v", tc.environ, tc.flags)
	}
}

func TestGatherConflicts(t *testing.T) {
	j := mpiexecJob("-genv", "CSP_NG", "1", "-n", "4", "./a")
	_, err := gather(nil, j, mustOptions(t, "-ng", "2"))
	require.EqualError(t, err, "casperii: -ng 2 conflicts with -genv CSP_NG 1 (in the command); give CSP_NG once")
	// The same value twice is fine; a flag overrides the environment.
	m, err := gather([]string{"CSP_NG=3"}, j, mustOptions(t, "-ng", "1"))
	require.NoError(t, err)
	require.Equal(t, setting{value: "1", source: srcFlag, flag: "-ng"}, m["CSP_NG"])
	m, err = gather([]string{"CSP_NG=3", "PATH=/bin"}, job{}, mustOptions(t))
	require.NoError(t, err)
	require.Equal(t, map[string]setting{"CSP_NG": {value: "3", source: srcEnv}}, m)
}

func TestWarnings(t *testing.T) {
	environ := []string{"CSP_NODESIZE=2", "CSP_OFFLOAD_MIN_MSGSZ=8192", "CSP_RUMTIME_LOAD_OPT=op", "CSP_GHOST_NAP_US=10", "CSP_ZZZZZZZZZZ=1"}
	m, err := gather(environ, job{}, mustOptions(t, "-hints", "wildcard=none"))
	require.NoError(t, err)
	c, err := validate(m, job{})
	require.NoError(t, err)
	all := strings.Join(c.warnings, "\n")
	for _, want := range []string{
		`casperii: warning: -hints wildcard=none: "wildcard" is not a CasperII hint and is ignored; did you mean wildcard_used?`,
		"casperii: warning: CSP_NODESIZE=2 (from the environment) is not a CasperII variable and is ignored; did you mean CSP_NODE_SIZE?",
		"casperii: warning: CSP_OFFLOAD_MIN_MSGSZ=8192 (from the environment) is accepted and ignored: CasperII decides offload per communicator, never per message",
		"casperii: warning: CSP_RUMTIME_LOAD_OPT=op (from the environment) is ignored: it is Casper's RMA load balancing",
		"casperii: warning: CSP_ZZZZZZZZZZ=1 (from the environment) is not a CasperII variable and is ignored (casperii env lists the variables)",
	} {
		require.Contains(t, all, want)
	}
	require.Len(t, c.warnings, 5, "CSP_GHOST_NAP_US is the runtime's: no warning")
}

func TestDescribeEnv(t *testing.T) {
	lib := fakeLib(t)
	finder := libFinder{getenv: func(string) string { return "" }}
	var b bytes.Buffer
	code := describeEnv(&b, []string{"CSP_NG=2", "CSP_VERBOSE=y", "CSP_NODESIZE=4"}, mustEnvOptions(t, "-lib", lib, "-hints", "wildcard_used=none", "-stats"), finder)
	out := b.String()
	require.Equal(t, 0, code, out)
	for _, want := range []string{
		"CSP_NG  ", "CSP_VERBOSE", "y = 1", "wildcard_used=none (-hints)",
		"offloaded with tag encoding (wildcard_used=none)",
		"the first 2 local rank(s) of every node",
		"statistics           on",
		"library              " + lib + " (given with -lib)",
		"did you mean CSP_NODE_SIZE?",
	} {
		require.Contains(t, out, want)
	}
	// Every variable the runtime reads is listed.
	for _, v := range core.EnvVars() {
		require.Contains(t, out, v+" ")
	}

	b.Reset()
	code = describeEnv(&b, []string{"CSP_ASYNC_CONFIG=sometimes"}, mustEnvOptions(t, "-lib", lib), finder)
	require.Equal(t, exitUsage, code)
	require.Contains(t, b.String(), "casperii: CSP_ASYNC_CONFIG=sometimes (from the environment) is not valid; use on, off or auto")

	b.Reset()
	require.Equal(t, 0, describeEnv(&b, []string{"CSP_ANYSRC_OFFLOAD=0"}, mustEnvOptions(t, "-lib", lib), finder))
	require.Contains(t, b.String(), "not offloaded (wildcard_used unset, i.e. any_src with CSP_ANYSRC_OFFLOAD=0")
	b.Reset()
	require.Equal(t, 0, describeEnv(&b, nil, mustEnvOptions(t, "-lib", lib, "-ng", "0"), finder))
	require.Contains(t, b.String(), "off: pass-through")
}

func mustEnvOptions(t *testing.T, args ...string) options {
	t.Helper()
	o, rest, err := parseOptions("env", args)
	require.NoError(t, err)
	require.Empty(t, rest)
	return o
}
