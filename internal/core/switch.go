package core

import (
	"github.com/casperii/casperii/commexpand"
	"github.com/casperii/casperii/info"
	"github.com/casperii/casperii/internal/mpi"
	"github.com/casperii/casperii/internal/user"
)

// A change of a communicator's route (through the ghosts by one algorithm
// or another, or straight to MPICH) is legal at any time: asked for by
// MPI_Comm_set_info, or decided by the automatic choice (auto.go), it
// takes effect at the first point where the members' counts prove the old
// route quiescent (internal/user/route.c states the invariant). That point
// is a collective every member enters: the MPI_Comm_set_info call itself,
// else a blocking collective that follows on the communicator or on
// another with the same group (family.go). Between the request and the
// switch the communicator keeps its old route, and both plans hold their
// internal resources.
//
// symmetric=true (Casper's collective hint) asserts that nothing is in
// flight: the switch is taken at the call even where the counts lost track
// (a receive request freed while active). Counts that prove messages in
// flight still defer it: switching then would strand them.
//
// Under MPI_THREAD_MULTIPLE the runtime does not switch: another thread
// could post on the old route between the members' counts and the switch,
// and making it wait would make a legal program deadlock. Hints keep the
// route the communicator was created with there (CSP_VERBOSE says so).

// pendingSwitch is an agreed change of route not taken yet.
type pendingSwitch struct {
	plan   commexpand.Plan
	regist bool
	auto   bool // the automatic choice wants it (and may change its mind)
	checks int  // evaluations that found the old route busy
}

// switchDueFirst: the first collectives after a request all look; after
// that only every switchDueEvery-th one (family.go).
const (
	switchDueFirst = 8
	switchDueEvery = 8
)

// canSwitch reports whether this process may change routes at all.
func (r *runtime) canSwitch() bool { return r.provided != mpi.ThreadMultiple }

// holds reports whether st uses pl in one of its roles: the current plan,
// the automatic choice's offloaded plan, or a pending switch's.
func (st *commState) holds(pl *commexpand.Plan) bool {
	return st.plan.Same(pl) || (st.auto && st.onPlan.Same(pl)) || (st.pending != nil && st.pending.plan.Same(pl))
}

// dropPlan returns pl's resources to the pool unless st still holds it.
// Called with r.mu held.
func (r *runtime) dropPlan(st *commState, pl commexpand.Plan) {
	if !st.holds(&pl) {
		r.slots.Release(&pl)
	}
}

// heldPlans are the distinct plans st holds (for MPI_Comm_free).
func (st *commState) heldPlans() []commexpand.Plan {
	out := []commexpand.Plan{st.plan}
	add := func(p commexpand.Plan) {
		for i := range out {
			if out[i].Same(&p) {
				return
			}
		}
		out = append(out, p)
	}
	if st.auto {
		add(st.onPlan)
	}
	if st.pending != nil {
		add(st.pending.plan)
	}
	return out
}

// reconfigure applies new hints h to comm, on which the runtime already
// has state st (MPI_Comm_set_info). Collective over comm.
func (r *runtime) reconfigure(comm mpi.Comm, st *commState, h info.Hints, herr error, sym bool) error {
	if st.inter {
		if herr == nil {
			r.mu.Lock()
			st.hints = h
			r.mu.Unlock()
		}
		return herr
	}
	alg := r.algorithm(h)
	out, err := r.agreeSlots(comm, alg, herr)
	if err != nil {
		return err
	}
	if herr != nil { // an invalid hint changes nothing (the caller reports it)
		return herr
	}
	r.mu.Lock()
	st.hints = h
	if !r.canSwitch() {
		r.mu.Unlock()
		if st.rank == 0 && alg != st.plan.Algorithm {
			r.verbosef(1, "communicator %#x: %v asked, %v kept: routes do not change under MPI_THREAD_MULTIPLE", uint32(comm.Raw()), alg, st.plan.Algorithm)
		}
		return nil
	}
	// The wanted offloaded plan: the one in use or reserved when the
	// algorithm is the same, else new resources.
	have := &st.plan
	if st.auto && !st.plan.Offloaded() {
		have = &st.onPlan
	}
	plan, derr := r.slots.Decide(out, st.plan.Members, commexpand.DecideOptions{TagSpace: r.tags != nil}, have)
	if derr != nil {
		r.mu.Unlock()
		return derr
	}
	regist, _ := h.ShmbufRegist()
	oldAuto, oldOn, oldPending := st.auto, st.onPlan, st.pending
	st.pending = nil
	var target *commexpand.Plan
	if r.isAuto(h) && plan.Offloaded() {
		// The automatic choice takes over from the route in use.
		st.auto, st.onPlan = true, plan
	} else {
		st.auto = false
		if !plan.Same(&st.plan) {
			target = &plan
			st.pending = &pendingSwitch{plan: plan, regist: regist}
		}
	}
	if oldAuto {
		r.dropPlan(st, oldOn)
	}
	if oldPending != nil {
		r.dropPlan(st, oldPending.plan)
	}
	r.dropPlan(st, plan) // a plan Decide made that no role took
	if plan.Reason != "" && alg.Offloaded() && st.rank == 0 {
		r.verbosef(1, "communicator %#x not offloaded: %s", uint32(comm.Raw()), plan.Reason)
	}
	r.mu.Unlock()
	r.watchFamily(st.fam)
	if target == nil {
		if regist != st.regist && !st.freed { // only the buffer hint changed
			st.regist = regist
			return user.SetComm(comm, st.rank, &st.plan, regist)
		}
		return nil
	}
	switched, err := r.trySwitch(comm, st, sym, "at MPI_Comm_set_info")
	if err == nil && !switched && st.rank == 0 {
		r.verbosef(1, "communicator %#x: %v -> %v requested; messages are in flight, the switch waits for a later collective on it",
			uint32(comm.Raw()), st.plan.Algorithm, target.Algorithm)
	}
	return err
}

// trySwitch sums the members' route counts for comm (a collective over
// comm) and takes st's pending switch if they prove the old route
// quiescent (or sym vouches for counts that lost track).
func (r *runtime) trySwitch(comm mpi.Comm, st *commState, sym bool, where string) (bool, error) {
	p := st.pending
	user.Lock()
	c, err := user.CountsLocked(comm)
	var sum [3]int64
	if err == nil {
		err = user.SumLocked(comm, []int64{c.Unmatched, c.Pending, c.Stuck}, sum[:])
	}
	user.Unlock()
	if err != nil {
		return false, err
	}
	total := user.Counts{Unmatched: sum[0], Pending: sum[1], Stuck: sum[2]}
	if !total.Quiescent() && !(sym && total.Unmatched == 0 && total.Pending == 0) {
		if sym && st.rank == 0 {
			r.verbosef(1, "communicator %#x: symmetric=true, but %d messages and %d receives are in flight: the switch waits",
				uint32(comm.Raw()), total.Unmatched, total.Pending)
		}
		return false, nil
	}
	return true, r.takeSwitch(comm, st, p, where)
}

// takeSwitch installs st's pending switch p now: the members agreed that
// the old route is quiescent.
func (r *runtime) takeSwitch(comm mpi.Comm, st *commState, p *pendingSwitch, where string) error {
	e, err := user.NewEntry(comm, st.rank, &p.plan, p.regist)
	if err == nil {
		user.Lock()
		err = e.InstallLocked()
		user.Unlock()
	}
	if err != nil {
		return err
	}
	r.mu.Lock()
	from := st.plan
	st.noteRoute()
	st.plan, st.regist, st.pending = p.plan, p.regist, nil
	r.dropPlan(st, from)
	st.switches++
	r.switches++
	r.mu.Unlock()
	if st.fam.watched {
		user.Watch(comm, true)
	}
	if st.rank == 0 {
		r.verbosef(1, "communicator %#x: switched %v -> %v %s", uint32(comm.Raw()), from.Algorithm, p.plan.Algorithm, where)
	}
	return nil
}
