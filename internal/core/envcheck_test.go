package core

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/casperii/casperii/info"
)

// ReadConfigFrom applies ReadConfig's rules: same configuration, same
// error, for the same variables.
func TestReadConfigFromMatchesReadConfig(t *testing.T) {
	for _, env := range []map[string]string{
		{},
		{"CSP_NG": "2", "CSP_NODE_SIZE": "3", "CSP_STATS": "yes", "CSP_VERBOSE": "conf_g", "CSP_ASYNC_MODE": "rma|pt2pt"},
		{"CSP_NG": "x"},
		{"CSP_OFFLOAD_SHMQ_NCELLS": "8"},
		{"CSP_WORLD_HINTS": "wildcard_used=none", "CSP_ANYSRC_OFFLOAD": "0", "CSP_OFFLOAD_MIN_MSGSZ": "100"},
		{"CSP_WORLD_HINTS": "wildcard_used=nope"},
	} {
		for _, k := range EnvVars() {
			t.Setenv(k, env[k])
		}
		want, werr := ReadConfig()
		got, gerr := ReadConfigFrom(env)
		require.Equal(t, want, got, "%v", env)
		require.Equal(t, werr, gerr, "%v", env)
	}
}

// EnvVars is what readConfig looks up, and every one is described.
func TestEnvVarsDescribed(t *testing.T) {
	vars := EnvVars()
	for _, v := range []string{"CSP_NG", "CSP_NODE_SIZE", "CSP_STATS", "CSP_WORLD_HINTS", "CSP_VERBOSE", "CSP_ASYNC_MODE"} {
		require.Contains(t, vars, v)
	}
	sorted := slices.Clone(vars)
	slices.Sort(sorted)
	require.Equal(t, sorted, DescribedEnvVars(), "describe every variable ReadConfig reads in envDocs, and only those")
	def := DefaultConfig()
	for i, d := range EnvDocs() {
		require.Equal(t, vars[i], d.Name)
		require.NotEmpty(t, d.Meaning, d.Name)
		require.NotEmpty(t, d.Show(def), d.Name)
	}
}

// A bad CSP_WORLD_HINTS is a configuration error (MPI_Init fails on every
// process before ghosts start), in one line naming the accepted values.
func TestWorldHintsChecked(t *testing.T) {
	_, err := ReadConfigFrom(map[string]string{"CSP_WORLD_HINTS": "wildcard_used=nope"})
	var ce *ConfigError
	require.ErrorAs(t, err, &ce)
	require.Equal(t, "CSP_WORLD_HINTS", ce.Var)
	require.Equal(t, `CasperII: CSP_WORLD_HINTS="wildcard_used=nope": wildcard_used="nope" is not valid; accepted: any_src, any_tag_same_tag, any_src|any_tag_same_tag, none (Casper spellings anysrc, anytag_notag also accepted)`, err.Error())

	_, err = ReadConfigFrom(map[string]string{"CSP_WORLD_HINTS": "wildcard_used"})
	require.ErrorContains(t, err, `"wildcard_used" is not a key=value pair`)
	require.NotContains(t, err.Error(), "\n")

	c, err := ReadConfigFrom(map[string]string{"CSP_WORLD_HINTS": "wildcard_used=none; shmbuf_regist=true"})
	require.NoError(t, err)
	require.True(t, c.WorldHintsS)
	h, err := WorldHints(c.WorldHints)
	require.NoError(t, err)
	w, _ := h.Wildcard()
	require.Equal(t, info.WildcardNone, w)

	// Other variables keep the generic form.
	_, err = ReadConfigFrom(map[string]string{"CSP_STATS": "maybe"})
	require.EqualError(t, err, `CasperII: CSP_STATS="maybe" is not valid; use 1 or 0`)

	// The switches that are on unless set to 0 or off.
	for _, name := range []string{"CSP_ANYSRC_OFFLOAD", "CSP_RMA_LOCAL"} {
		_, err = ReadConfigFrom(map[string]string{name: "maybe"})
		require.EqualError(t, err, `CasperII: `+name+`="maybe" is not valid; use 1 or 0`)
	}
	c, err = ReadConfigFrom(map[string]string{"CSP_RMA_LOCAL": "off", "CSP_ANYSRC_OFFLOAD": "1"})
	require.NoError(t, err)
	require.True(t, c.RMALocalOff)
	require.False(t, c.AnySrcOff)
}

// Config.Algorithm: CSP_ASYNC_CONFIG and CSP_ANYSRC_OFFLOAD applied to
// the hints' table.
func TestConfigAlgorithm(t *testing.T) {
	hints := func(s string) info.Hints {
		t.Helper()
		h, err := WorldHints(s)
		require.NoError(t, err)
		return h
	}
	cfg := func(env ...string) Config {
		t.Helper()
		m := map[string]string{}
		for _, kv := range env {
			k, v, _ := strings.Cut(kv, "=")
			m[k] = v
		}
		c, err := ReadConfigFrom(m)
		require.NoError(t, err)
		return c
	}
	for _, tc := range []struct {
		env   []string
		hints string
		want  info.Algorithm
	}{
		{nil, "", info.GhostMatch},
		{nil, "wildcard_used=none", info.TagEncoding},
		{nil, "wildcard_used=any_tag_same_tag", info.Duplication},
		{nil, "wildcard_used=any_src|any_tag_same_tag", info.DuplicationSrc},
		{nil, "async_config=off", info.NoOffload},
		{[]string{"CSP_ANYSRC_OFFLOAD=0"}, "", info.NoOffload},
		{[]string{"CSP_ANYSRC_OFFLOAD=0"}, "wildcard_used=none", info.TagEncoding},
		{[]string{"CSP_ASYNC_CONFIG=off"}, "wildcard_used=none", info.NoOffload},
		{[]string{"CSP_ASYNC_CONFIG=off"}, "wildcard_used=none;async_config=on", info.TagEncoding},
	} {
		require.Equal(t, tc.want, cfg(tc.env...).Algorithm(hints(tc.hints)), "%v %q", tc.env, tc.hints)
	}
}
