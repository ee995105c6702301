package core

import "testing"

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
