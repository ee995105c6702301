package user

/*
#include "user.h"
*/
import "C"

import (
	"github.com/casperii/casperii/internal/mpi"
)

// The fields of one member's record in MPI_Comm_set_info's agreement
// (enum csp_agree_field, user.h): the runtime builds it in Go
// (internal/core/switch.go), toggle.c in C, and both sum it with
// CountSumLocked.
const (
	AgInvalid   = int(C.CSP_AG_INVALID)
	AgChoice    = int(C.CSP_AG_CHOICE)
	AgChoice2   = int(C.CSP_AG_CHOICE2)
	AgUnmatched = int(C.CSP_AG_UNMATCHED)
	AgPending   = int(C.CSP_AG_PENDING)
	AgStuck     = int(C.CSP_AG_STUCK)
	AgFields    = int(C.CSP_AG_N)
)

// A Toggle lets MPI_Comm_set_info switch a communicator between its direct
// route and the offloaded plan it keeps reserved in C (toggle.c), without
// calling the runtime.
type Toggle struct {
	Direct, Offloaded Entry    // the entries a switch installs copies of
	Choice            [2]int64 // the agreement's AgChoice for async_config=off, =on
	Size              int      // members
	Regist            bool     // shmbuf_regist of both entries
	On                bool     // the route in use is Offloaded's
	SinceNS           int64    // MonoNS() at the last change of route
}

// ToggleState is what the switches made in C did since the runtime last
// read them.
type ToggleState struct {
	On       bool     // the route in use is the offloaded one
	Set      int      // the async_config a call took: -1 none, 0 off, 1 on
	Switches int      // switches taken
	SinceNS  int64    // MonoNS() at the last change of route
	RouteNS  [2]int64 // time direct and offloaded before SinceNS
}

// PublishToggle lets MPI_Comm_set_info on comm switch in C as t says,
// replacing what was published for comm. The caller keeps t's entries
// until it withdraws the toggle.
func PublishToggle(comm mpi.Comm, t *Toggle) bool {
	var c C.struct_csp_toggle
	c.comm = C.MPI_Comm(comm.Raw())
	c.tmpl[0], c.tmpl[1] = t.Direct.c, t.Offloaded.c
	c.choice[0], c.choice[1] = C.int64_t(t.Choice[0]), C.int64_t(t.Choice[1])
	c.size = C.int(t.Size)
	if t.Regist {
		c.regist = 1
	}
	if t.On {
		c.cur = 1
	}
	c.set = -1
	c.since_ns = C.int64_t(t.SinceNS)
	return C.csp_toggle_publish(&c) == 0
}

func toggleState(c *C.struct_csp_toggle) ToggleState {
	return ToggleState{On: c.cur != 0, Set: int(c.set), Switches: int(c.switches), SinceNS: int64(c.since_ns),
		RouteNS: [2]int64{int64(c.route_ns[0]), int64(c.route_ns[1])}}
}

// ReadToggle returns what comm's toggle did since the last read (ok false
// if none is published).
func ReadToggle(comm mpi.Comm) (s ToggleState, ok bool) {
	var c C.struct_csp_toggle
	if C.csp_toggle_read(C.MPI_Comm(comm.Raw()), &c) == 0 {
		return ToggleState{}, false
	}
	return toggleState(&c), true
}

// WithdrawToggle removes comm's toggle, returning what it did since the
// last read (ok false if none was published).
func WithdrawToggle(comm mpi.Comm) (s ToggleState, ok bool) {
	var c C.struct_csp_toggle
	if C.csp_toggle_withdraw(C.MPI_Comm(comm.Raw()), &c) == 0 {
		return ToggleState{}, false
	}
	return toggleState(&c), true
}

// TogglesUnread reports whether some toggle did something since it was
// last read.
func TogglesUnread() bool { return C.csp_toggle_unread != 0 }

// MonoNS is CLOCK_MONOTONIC in nanoseconds, the clock of toggles.
func MonoNS() int64 { return int64(C.csp_mono_ns()) }
