package core

import (
	goruntime "runtime"
	"strings"
)

// goProcs is the GOMAXPROCS the library's Go runtime runs with in every
// process of the job, unless the environment sets GOMAXPROCS.
//
// Go's system monitor (sysmon) takes the P of a thread that stays in a
// system call or a C call for one of its ticks (20 us) when no other P is
// idle, and polls every 20 us again after each such take. With one P, the
// thread that calls MPI through cgo holds the only P the whole time it is
// in MPICH, so the monitor takes it again and again: a ghost's monitor
// woke 3,000-5,100 times a second and used 3-6% of the ghost's core
// (osubench phases at 1 MiB under auto; with two Ps its busiest runtime
// thread woke 1,100-1,600 times and used 1-2%). Go 1.25
// and later set GOMAXPROCS from the process's CPU affinity and follow it
// as it changes, so binding a process to one CPU (CSP_BIND, or a
// launcher's binding) gave it one P. Two Ps leave one idle while the
// thread is in MPI; setting them explicitly also stops the runtime from
// following the affinity. The library's Go code runs on one thread at a
// time, so more Ps would buy nothing.
const goProcs = 2

// setGoProcs fixes GOMAXPROCS at goProcs unless the environment sets it,
// and returns what it did, for CSP_VERBOSE.
func setGoProcs(getenv func(string) string) string {
	if v := strings.TrimSpace(getenv("GOMAXPROCS")); v != "" {
		return "GOMAXPROCS=" + v + " as the environment sets it"
	}
	goruntime.GOMAXPROCS(goProcs)
	return "GOMAXPROCS=2: the Go runtime's monitor leaves the thread in MPI its P"
}
