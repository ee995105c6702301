package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParseOptions(t *testing.T) {
	o, rest, err := parseOptions("run", []string{"-ng", "2", "-node-size", "3", "-stats", "-hints", "wildcard_used=none", "-verbose", "--", "mpiexec", "-n", "6", "./app", "-x"})
	require.NoError(t, err)
	require.Equal(t, []string{"mpiexec", "-n", "6", "./app", "-x"}, rest)
	require.Equal(t, map[string]setting{
		"CSP_NG":          {value: "2", source: srcFlag, flag: "-ng"},
		"CSP_NODE_SIZE":   {value: "3", source: srcFlag, flag: "-node-size"},
		"CSP_STATS":       {value: "1", source: srcFlag, flag: "-stats"},
		"CSP_WORLD_HINTS": {value: "wildcard_used=none", source: srcFlag, flag: "-hints"},
		"CSP_VERBOSE":     {value: "1", source: srcFlag, flag: "-verbose"},
	}, o.flagSettings())

	// Without "--", parsing stops at the command.
	o, rest, err = parseOptions("run", []string{"-verbose=2", "mpiexec", "-n", "2", "./app"})
	require.NoError(t, err)
	require.Equal(t, []string{"mpiexec", "-n", "2", "./app"}, rest)
	require.Equal(t, "2", o.flagSettings()["CSP_VERBOSE"].value)

	// Flags not given set nothing; -stats=false leaves CSP_STATS alone.
	o, _, err = parseOptions("run", []string{"-stats=false", "--", "x"})
	require.NoError(t, err)
	require.Empty(t, o.flagSettings())

	// -dry-run belongs to run only.
	_, _, err = parseOptions("env", []string{"-dry-run"})
	require.ErrorContains(t, err, "unknown flag -dry-run")
}

func TestParseOptionsErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-nodesize", "2"}, "casperii run: unknown flag -nodesize; did you mean -node-size? (put the command after --)"},
		{[]string{"-stat"}, "casperii run: unknown flag -stat; did you mean -stats? (put the command after --)"},
		{[]string{"-n", "4"}, "casperii run: unknown flag -n; did you mean -ng? (put the command after --)"},
		{[]string{"-zzzzzz"}, "casperii run: unknown flag -zzzzzz; see casperii help (put the command after --)"},
		{[]string{"-ng"}, "casperii run: flag needs an argument: -ng; see casperii help"},
	} {
		_, _, err := parseOptions("run", tc.args)
		require.EqualError(t, err, tc.want, "%v", tc.args)
		require.NotContains(t, err.Error(), "\n")
	}
}

func TestSettingDescribe(t *testing.T) {
	require.Equal(t, "-ng 3", setting{value: "3", source: srcFlag, flag: "-ng"}.describe("CSP_NG"))
	require.Equal(t, "-stats", setting{value: "1", source: srcFlag, flag: "-stats"}.describe("CSP_STATS"))
	require.Equal(t, "-verbose=2", setting{value: "2", source: srcFlag, flag: "-verbose"}.describe("CSP_VERBOSE"))
	require.Equal(t, `-hints "a=b;c=d"`, setting{value: "a=b;c=d", source: srcFlag, flag: "-hints"}.describe("CSP_WORLD_HINTS"))
	require.Equal(t, "CSP_NG=3 (from the environment)", setting{value: "3", source: srcEnv}.describe("CSP_NG"))
	require.Equal(t, "-genv CSP_NG 3 (in the command)", setting{value: "3", source: srcCommand, flag: "-genv"}.describe("CSP_NG"))
}

func TestParseJob(t *testing.T) {
	noenv := func(string) string { return "" }
	j := parseJob([]string{"mpiexec", "-n", "4", "-genv", "CSP_NG", "1", "-genv", "A=b", "-l", "-ppn", "2", "./app", "-n", "9", "-genv"}, noenv)
	require.True(t, j.mpiexec)
	require.Equal(t, []string{"./app"}, j.apps)
	require.Equal(t, 4, j.nprocs)
	require.True(t, j.oneHost)
	require.Empty(t, j.unsure)
	require.Equal(t, []envOpt{{"-genv", "CSP_NG", "1"}, {"-genv", "A", "b"}}, j.env)

	// MPMD: one application per segment, the counts add up.
	j = parseJob([]string{"/usr/bin/mpiexec.hydra", "-np", "2", "./a", "x", ":", "-n", "3", "-env", "K", "V", "./b"}, noenv)
	require.Equal(t, []string{"./a", "./b"}, j.apps)
	require.Equal(t, 5, j.nprocs)
	require.Equal(t, []envOpt{{"-env", "K", "V"}}, j.env)

	// A segment without -n: the count is unknown.
	j = parseJob([]string{"mpirun", "./a", ":", "-n", "3", "./b"}, noenv)
	require.Equal(t, 0, j.nprocs)

	// Hosts: other hosts may run processes.
	require.False(t, parseJob([]string{"mpiexec", "-hosts", "a,b", "-n", "4", "./a"}, noenv).oneHost)
	require.False(t, parseJob([]string{"mpiexec", "-f", "hosts", "-n", "4", "./a"}, noenv).oneHost)
	require.False(t, parseJob([]string{"mpiexec", "-n", "4", "./a"}, func(k string) string {
		if k == "SLURM_JOB_NODELIST" {
			return "n[1-2]"
		}
		return ""
	}).oneHost)

	// Options casperii does not know make it unsure of the application.
	j = parseJob([]string{"mpiexec", "--oversubscribe", "-n", "4", "./a"}, noenv)
	require.Equal(t, "--oversubscribe", j.unsure)
	require.Equal(t, "-configfile", parseJob([]string{"mpiexec", "-configfile", "f"}, noenv).unsure)

	// Not mpiexec: the command is the application.
	j = parseJob([]string{"./app", "-n", "4"}, noenv)
	require.False(t, j.mpiexec)
	require.Equal(t, []string{"./app"}, j.apps)
}

func TestSuggest(t *testing.T) {
	vars := []string{"CSP_NG", "CSP_NODE_SIZE", "CSP_STATS", "CSP_VERBOSE", "CSP_OFFLOAD_SHMQ_NCELLS", "CSP_WORLD_HINTS", "CSP_ASYNC_MODE", "CSP_ASYNC_CONFIG"}
	for word, want := range map[string]string{
		"CSP_NODESIZE":          "CSP_NODE_SIZE",
		"CSP_NODE_SZIE":         "CSP_NODE_SIZE",
		"csp_node_size":         "CSP_NODE_SIZE",
		"CSP_STAT":              "CSP_STATS",
		"CSP_VERBOSITY":         "CSP_VERBOSE",
		"CSP_OFFLOAD_SHMQ_CELL": "CSP_OFFLOAD_SHMQ_NCELLS",
		"CSP_WORLD_HINT":        "CSP_WORLD_HINTS",
		"CSP_ASYNC_CONFG":       "CSP_ASYNC_CONFIG",
		"CSP_SOMETHING_ELSE":    "",
		"":                      "",
	} {
		require.Equal(t, want, suggest(word, vars), word)
	}
	require.Equal(t, "wildcard_used", suggest("wildcard", []string{"wildcard_used", "shmbuf_regist"}))
	require.Equal(t, "run", suggest("rnu", []string{"run", "env", "version", "help"}))
}

func TestRunMainCommands(t *testing.T) {
	st, out, errb := buffers()
	require.Equal(t, 0, runMain([]string{"help"}, st))
	require.Contains(t, out.String(), "casperii run -ng 1 -node-size 2 -stats -- mpiexec -n 4 ./app")

	st, _, errb = buffers()
	require.Equal(t, exitUsage, runMain([]string{"rnu"}, st))
	require.Equal(t, "casperii: unknown command \"rnu\"; did you mean run? (commands: run, env, calibrate, version, help)\n", errb.String())

	st, _, errb = buffers()
	require.Equal(t, exitUsage, runMain([]string{"calibrat"}, st))
	require.Contains(t, errb.String(), "did you mean calibrate?")

	st, _, errb = buffers()
	require.Equal(t, exitUsage, runMain([]string{"run"}, st))
	require.Equal(t, 1, strings.Count(errb.String(), "\n"))
	require.Contains(t, errb.String(), "no command to run")
}

func TestEnvVarsDescribed(t *testing.T) {
	// Every variable the runtime reads is described, and nothing else.
	vars := coreEnvVarsSorted()
	require.Equal(t, vars, describedVars(), "describe the runtime's variables in internal/core/envcheck.go")
	for _, v := range vars {
		require.Empty(t, caspersOwn[v], "%s is read now: drop it from caspersOwn", v)
	}
	require.True(t, slices.Contains(vars, "CSP_OFFLOAD_MIN_MSGSZ"))
}
