package core

import (
	"github.com/casperii/casperii/commexpand"
	"github.com/casperii/casperii/info"
	"github.com/casperii/casperii/internal/user"
)

// A communicator that has been through MPI_Comm_set_info, and whose next
// set_info can only switch it between the direct route and the offloaded
// plan it keeps reserved (commState.onPlan), is published to C
// (internal/user/toggle.c): there a set_info of async_config=on|off (and
// symmetric) agrees with the same record and collective as agreeHints,
// and when reconfigure would take the switch at once, installs a copy of
// the chosen plan's entry as takeSwitch does, without a call into Go.
// Anything else (other keys, members that disagree, messages in flight)
// comes back to reconfigure, with the agreement already summed.
//
// The toggle is withdrawn before any call that may change what it was
// built from (reconfigure, takeSwitch, CommFreed), and what it did (the
// route, switches, time on each route, the hint) is read back into the
// communicator's state before the runtime looks at it (readToggles).
// Never under MPI_THREAD_MULTIPLE (routes do not change there), for an
// automatic or pending choice, or with CSP_VERBOSE (which reports each
// switch).

// toggleValues are the async_config values a toggle takes, by its index.
var toggleValues = [2]string{"off", "on"}

// publishToggle publishes st's toggle if st is eligible. Called with r.mu
// held.
func (r *runtime) publishToggle(st *commState) {
	if st.inter || st.freed || st.auto || st.pending != nil || !r.canSwitch() || r.verbose(1) || !st.onPlan.Offloaded() {
		return
	}
	on := st.plan.Same(&st.onPlan)
	if !on && st.plan.Offloaded() {
		return
	}
	tg := st.tg
	if tg == nil || !tg.fits(st) {
		if tg = r.buildToggle(st); tg == nil {
			return
		}
		st.tg = tg
	}
	t := tg.t
	t.On, t.SinceNS = on, st.since
	st.toggled = user.PublishToggle(st.comm, &t)
}

// toggleOf is what a toggle was built from (the hints of each value, the
// reserved plan), kept so that the next publish need not build it again.
type toggleOf struct {
	t      user.Toggle
	hints  [2]info.Hints // st.hints with async_config=off, =on
	onPlan commexpand.Plan
}

// fits reports whether tg still describes st: its hints differ at most in
// async_config, and it keeps the same plan reserved.
func (tg *toggleOf) fits(st *commState) bool {
	return (st.hints == tg.hints[0] || st.hints == tg.hints[1]) && tg.onPlan.Same(&st.onPlan) && tg.t.Regist == st.regist
}

// buildToggle builds st's toggle, or returns nil if a set_info of
// async_config on st is not one toggle.c may take. Called with r.mu held.
func (r *runtime) buildToggle(st *commState) *toggleOf {
	tg := &toggleOf{onPlan: st.onPlan}
	for v, val := range toggleValues {
		h, err := info.Parse(info.Map{info.KeyAsyncConfig: val})
		if err != nil {
			return nil
		}
		h = h.Inherit(st.hints)
		alg := r.algorithm(h)
		if r.isAuto(h) || alg.Offloaded() != (v == 1) || (v == 1 && alg != st.onPlan.Algorithm) {
			return nil
		}
		if regist, _ := h.ShmbufRegist(); regist != st.regist {
			return nil
		}
		tg.hints[v] = h
		tg.t.Choice[v] = choiceOf(alg, false)
	}
	off := st.directPlan()
	var err error
	if tg.t.Direct, err = st.template(&off); err != nil {
		return nil
	}
	if tg.t.Offloaded, err = st.template(&st.onPlan); err != nil {
		return nil
	}
	tg.t.Size, tg.t.Regist = len(st.plan.Members.Ghost), st.regist
	return tg
}

// withdrawToggle withdraws st's toggle, keeping what it did. Called with
// r.mu held.
func (r *runtime) withdrawToggle(st *commState) {
	if !st.toggled {
		return
	}
	st.toggled = false
	if s, ok := user.WithdrawToggle(st.comm); ok {
		r.absorb(st, s)
	}
}

// readToggles keeps what every toggle did since the last read. Called
// with r.mu held.
func (r *runtime) readToggles() {
	if !user.TogglesUnread() {
		return
	}
	for _, st := range r.comms {
		if st.toggled {
			if s, ok := user.ReadToggle(st.comm); ok {
				r.absorb(st, s)
			}
		}
	}
}

// absorb applies what st's toggle did (s) to st, as reconfigure and
// takeSwitch would have. Called with r.mu held.
func (r *runtime) absorb(st *commState, s user.ToggleState) {
	if s.Set >= 0 && st.tg != nil {
		st.hints = st.tg.hints[s.Set]
	}
	if s.Switches == 0 {
		return
	}
	st.routeNS[0] += s.RouteNS[0]
	st.routeNS[1] += s.RouteNS[1]
	st.since = s.SinceNS
	if s.On {
		st.plan = st.onPlan
	} else {
		st.plan = st.directPlan()
	}
	st.switches += s.Switches
	r.switches += s.Switches
	r.switchesC += s.Switches
}
