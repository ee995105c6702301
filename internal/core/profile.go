package core

import (
	"fmt"
	"os"
	"runtime/pprof"
)

// startProfile starts a CPU profile of a ghost's engine when
// CSP_GHOST_CPUPROFILE names a file prefix: ghost w writes
// <prefix>.<w>.pprof when its users have finalized (read it with
// `go tool pprof`). Samples include the MPI calls the ghost makes. It
// returns the function that stops the profile.
func startProfile(wrank int) func() {
	prefix := os.Getenv("CSP_GHOST_CPUPROFILE")
	if prefix == "" {
		return func() {}
	}
	path := fmt.Sprintf("%s.%d.pprof", prefix, wrank)
	f, err := os.Create(path)
	if err != nil {
		fmt.Fprintf(os.Stderr, "casperii: CSP_GHOST_CPUPROFILE: %v\n", err)
		return func() {}
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		fmt.Fprintf(os.Stderr, "casperii: CSP_GHOST_CPUPROFILE: %v\n", err)
		f.Close()
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}
