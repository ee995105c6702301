package core

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// The default redirection of windows is off where UCX would carry the
// job's traffic over TCP (rma.go).
func TestOverTCP(t *testing.T) {
	env := func(kv ...string) func(string) string {
		m := map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return func(k string) string { return m[k] }
	}
	for _, c := range []struct {
		multi bool
		env   func(string) string
		tcp   bool
	}{
		{false, env(), false}, // one host, shared memory
		{false, env("MPIR_CVAR_NOLOCAL", "1", "UCX_TLS", "tcp,self"), true},   // the tcp series
		{false, env("MPIR_CVAR_NOLOCAL", "0", "UCX_TLS", "tcp,self"), false},  // NOLOCAL off
		{true, env("UCX_TLS", "rc,sm,self"), false},                           // InfiniBand
		{true, env("UCX_TLS", "rc,tcp"), false},                               // InfiniBand first
		{true, env("UCX_TLS", "tcp,sm"), true},                                // Ethernet
		{true, env("UCX_TLS", "^tcp"), false},                                 // tcp excluded
		{false, env("MPIR_CVAR_CH4_NOLOCAL", "true", "UCX_TLS", "tcp"), true}, // the other spelling
	} {
		if got := overTCP(c.multi, c.env) != ""; got != c.tcp {
			t.Errorf("overTCP(%v, UCX_TLS=%q NOLOCAL=%q) = %v, want %v", c.multi, c.env("UCX_TLS"), c.env("MPIR_CVAR_NOLOCAL"), got, c.tcp)
		}
	}
}

func TestKeepRMATargetsFresh(t *testing.T) {
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }
	setenv := func(k, v string) error { env[k] = v; return nil }

	assert.Empty(t, keepRMATargetsFresh(false, getenv, setenv))
	assert.Empty(t, env, "nothing set without redirected windows")

	assert.Empty(t, keepRMATargetsFresh(true, getenv, setenv))
	assert.Equal(t, "1", env[memEfficientVar])

	env = map[string]string{"MPICH_CH4_RMA_MEM_EFFICIENT": "1"}
	assert.Empty(t, keepRMATargetsFresh(true, getenv, setenv))
	assert.NotContains(t, env, memEfficientVar, "the alias the user set stays the only one")

	env = map[string]string{memEfficientVar: "0"}
	why := keepRMATargetsFresh(true, getenv, setenv)
	assert.Equal(t, "0", env[memEfficientVar], "the user's value stays")
	assert.Contains(t, why, "may hang at its next exclusive lock")
}
