package core

import (
	"math/bits"
	"sync"

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
// MPI_Comm_set_info costs one collective (agreeHints): a sum over the members
// of whether their hints parsed, what they chose, and their route counts.
// A route that needs no new internal resources (the direct route, the
// route in use, or the offloaded plan the communicator keeps reserved
// while it is off: commState.onPlan) is decided and taken in that
// collective; only a change to an offloaded algorithm the communicator
// holds no resources for adds the Allreduce that agrees on them
// (agreeSlots).
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
	phase  bool // for the phase a collective's call site opens (autosite.go)
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
// the reserved offloaded plan, or a pending switch's.
func (st *commState) holds(pl *commexpand.Plan) bool {
	return st.plan.Same(pl) || (st.onPlan.Offloaded() && st.onPlan.Same(pl)) || (st.pending != nil && st.pending.plan.Same(pl))
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
	if st.onPlan.Offloaded() {
		add(st.onPlan)
	}
	if st.pending != nil {
		add(st.pending.plan)
	}
	return out
}

// planEntry is the fast-path entry of one of a communicator's plans, built
// once and kept while the communicator holds the plan: a switch installs a
// copy (user.Entry.InstallCopy), so that switching back and forth does not
// rebuild the plan's tables.
type planEntry struct {
	plan commexpand.Plan
	e    user.Entry
}

// template returns st's entry for plan p, building it the first time.
// Called with r.mu held.
func (st *commState) template(p *commexpand.Plan) (user.Entry, error) {
	for _, t := range st.entries {
		if t.plan.Same(p) {
			return t.e, nil
		}
	}
	e, err := user.NewEntry(st.comm, st.rank, p, false)
	if err != nil {
		return user.Entry{}, err
	}
	st.entries = append(st.entries, planEntry{plan: *p, e: e})
	return e, nil
}

// pruneTemplates releases the entries of plans st no longer holds (all of
// them once it is freed), keeping the direct route's while an offloaded
// plan is reserved (a toggle installs it: toggle.go). Called with r.mu
// held.
func (st *commState) pruneTemplates() {
	kept := st.entries[:0]
	for _, t := range st.entries {
		if !st.freed && (st.holds(&t.plan) || (!t.plan.Offloaded() && st.onPlan.Offloaded())) {
			kept = append(kept, t)
			continue
		}
		t.e.Release()
	}
	clear(st.entries[len(kept):])
	st.entries = kept
}

// Fields of one member's record in MPI_Comm_set_info's agreement, summed
// over the communicator: defined in C (enum csp_agree_field), which builds
// the same record for the switches it makes (toggle.go).
const (
	agInvalid   = user.AgInvalid   // 1 where this member's hints did not parse
	agChoice    = user.AgChoice    // what its hints choose (choiceOf)
	agChoice2   = user.AgChoice2   // its square: all chose alike iff n x sum(c^2) == sum(c)^2
	agUnmatched = user.AgUnmatched // its route counts (route.c)
	agPending   = user.AgPending
	agStuck     = user.AgStuck
	agFields    = user.AgFields
)

// AgreementFields is the length of the agreement's record (for the C
// caller of CommSetInfoAgreed).
const AgreementFields = agFields

// choiceOf numbers what hints choose: the algorithm, and whether the
// automatic choice picks the route. Positive.
func choiceOf(alg info.Algorithm, auto bool) int64 {
	c := 1 + 2*int64(alg)
	if auto {
		c++
	}
	return c
}

// agBuf holds one member's record and the sum (agreeHints).
type agBuf struct{ in, sum [agFields]int64 }

var agBufs = sync.Pool{New: func() any { return new(agBuf) }}

// agreement is what MPI_Comm_set_info's collective establishes.
type agreement struct {
	valid  bool        // every member's hints parsed
	same   bool        // and chose the same algorithm and automatic choice
	counts user.Counts // the members' route counts, summed
}

// agreeHints sums, over comm's n members, whether their hints parsed (herr),
// what they chose (alg, auto) and their route counts: one Iallreduce
// (user.SumLocked: waited for as MPICH's other requests are). Under
// MPI_THREAD_MULTIPLE, where routes never change, it sums no counts and
// holds no lock. Collective over comm, unless pre holds the sum already
// (C summed this member's record: toggle.go).
func (r *runtime) agreeHints(comm mpi.Comm, n int, alg info.Algorithm, auto bool, herr error, pre *[agFields]int64) (agreement, error) {
	b := agBufs.Get().(*agBuf) // C reads and writes them: from a pool, not the heap each time
	defer agBufs.Put(b)
	in, sum := &b.in, &b.sum
	*in = [agFields]int64{}
	if herr != nil {
		in[agInvalid] = 1
	}
	c := choiceOf(alg, auto)
	in[agChoice], in[agChoice2] = c, c*c
	var err error
	switch {
	case pre != nil:
		*sum = *pre
	case !r.canSwitch():
		err = user.Sum(comm, in[:], sum[:])
	default:
		user.Lock()
		err = user.CountSumLocked(comm, in[:], sum[:], agUnmatched)
		user.Unlock()
	}
	if err != nil {
		return agreement{}, err
	}
	// n x sum(c^2) == sum(c)^2 (Cauchy-Schwarz: only when every c is the
	// same), in 128 bits.
	h1, l1 := bits.Mul64(uint64(n), uint64(sum[agChoice2]))
	h2, l2 := bits.Mul64(uint64(sum[agChoice]), uint64(sum[agChoice]))
	return agreement{
		valid:  sum[agInvalid] == 0,
		same:   h1 == h2 && l1 == l2,
		counts: user.Counts{Unmatched: sum[agUnmatched], Pending: sum[agPending], Stuck: sum[agStuck]},
	}, nil
}

// directPlan is the plan of st's direct route.
func (st *commState) directPlan() commexpand.Plan {
	return commexpand.Plan{Algorithm: info.NoOffload, Members: st.plan.Members}
}

// heldPlan returns a plan of algorithm alg that st already holds (the
// route in use, the reserved offloaded plan, a pending switch's), or nil.
func (st *commState) heldPlan(alg info.Algorithm) *commexpand.Plan {
	switch {
	case st.plan.Algorithm == alg:
		return &st.plan
	case st.onPlan.Offloaded() && st.onPlan.Algorithm == alg:
		return &st.onPlan
	case st.pending != nil && st.pending.plan.Algorithm == alg:
		return &st.pending.plan
	}
	return nil
}

// reconfigure applies new hints h to comm, on which the runtime already
// has state st (MPI_Comm_set_info); pre is the agreement's sum if C made
// it (toggle.go), else nil. Collective over comm.
func (r *runtime) reconfigure(comm mpi.Comm, st *commState, h info.Hints, herr error, sym bool, pre *[agFields]int64) error {
	r.mu.Lock()
	r.withdrawToggle(st)
	r.mu.Unlock()
	defer func() { // the next set_info may be C's
		r.mu.Lock()
		r.publishToggle(st)
		r.mu.Unlock()
	}()
	if st.inter {
		if herr == nil {
			r.mu.Lock()
			st.hints = h
			r.mu.Unlock()
		}
		return herr
	}
	alg, auto := r.algorithm(h), r.isAuto(h)
	ag, err := r.agreeHints(comm, len(st.plan.Members.Ghost), alg, auto, herr, pre)
	if err != nil {
		return err
	}
	if herr != nil { // an invalid hint changes nothing (the caller reports it)
		return herr
	}
	r.mu.Lock()
	st.hints = h
	switch {
	case !ag.valid: // another member's hint was invalid: nothing changes
		r.mu.Unlock()
		return nil
	case !r.canSwitch():
		r.mu.Unlock()
		if st.rank == 0 && alg != st.plan.Algorithm && r.verbose(1) {
			r.verbosef(1, "communicator %#x: %v asked, %v kept: routes do not change under MPI_THREAD_MULTIPLE", uint32(comm.Raw()), alg, st.plan.Algorithm)
		}
		return nil
	}
	// The plan the members chose: one they hold already, else new
	// resources (a second Allreduce).
	plan := st.directPlan()
	switch {
	case !ag.same:
		plan.Reason = "members disagree on wildcard_used or async_config"
	case alg.Offloaded():
		if p := st.heldPlan(alg); p != nil {
			plan = *p
			break
		}
		r.mu.Unlock()
		out, withheld, err := r.agreeSlots(comm, st.plan.Members.K, 0, alg, nil)
		if err != nil {
			return err
		}
		r.mu.Lock()
		if withheld != nil {
			r.slots.Restore(withheld)
		}
		plan, err = r.slots.Decide(out, st.plan.Members, commexpand.DecideOptions{TagSpace: r.tags != nil}, nil)
		if err != nil {
			r.mu.Unlock()
			return err
		}
	}
	regist, _ := h.ShmbufRegist()
	wasActive := st.active()
	oldOn, oldPending := st.onPlan, st.pending
	st.pending = nil
	st.auto = auto && ag.same && plan.Offloaded() // the automatic choice takes over from the route in use
	if plan.Offloaded() {
		st.onPlan = plan // reserved from now on
	}
	var target *commexpand.Plan
	if !st.auto && !plan.Same(&st.plan) {
		target = &plan
		st.pending = &pendingSwitch{plan: plan, regist: regist}
	}
	r.dropPlan(st, oldOn)
	if oldPending != nil {
		r.dropPlan(st, oldPending.plan)
	}
	st.pruneTemplates()
	if plan.Reason != "" && alg.Offloaded() && st.rank == 0 && r.verbose(1) {
		r.verbosef(1, "communicator %#x not offloaded: %s", uint32(comm.Raw()), plan.Reason)
	}
	if st.auto && !wasActive {
		user.ProfileOn(true)
	}
	r.mu.Unlock()
	if target == nil {
		if wasActive || st.active() {
			r.watchFamily(st.fam)
		}
		if regist != st.regist && !st.freed { // only the buffer hint changed
			st.regist = regist
			return user.SetComm(comm, st.rank, &st.plan, regist)
		}
		return nil
	}
	total := ag.counts
	if total.Quiescent() || (sym && total.Unmatched == 0 && total.Pending == 0) {
		err := r.takeSwitch(comm, st, st.pending, "at MPI_Comm_set_info")
		if wasActive {
			r.watchFamily(st.fam)
		}
		return err
	}
	r.watchFamily(st.fam)
	if st.rank == 0 && r.verbose(1) {
		if sym {
			r.verbosef(1, "communicator %#x: symmetric=true, but %d messages and %d receives are in flight: the switch waits",
				uint32(comm.Raw()), total.Unmatched, total.Pending)
		}
		r.verbosef(1, "communicator %#x: %v -> %v requested; messages are in flight, the switch waits for a later collective on it",
			uint32(comm.Raw()), st.plan.Algorithm, target.Algorithm)
	}
	return nil
}

// takeSwitch installs st's pending switch p now: the members agreed that
// the old route is quiescent.
func (r *runtime) takeSwitch(comm mpi.Comm, st *commState, p *pendingSwitch, where string) error {
	r.mu.Lock()
	r.withdrawToggle(st)
	t, err := st.template(&p.plan)
	r.mu.Unlock()
	if err == nil {
		err = t.InstallCopy(p.regist)
	}
	if err != nil {
		return err
	}
	r.mu.Lock()
	from := st.plan
	st.noteRoute()
	st.plan, st.regist, st.pending = p.plan, p.regist, nil
	st.fresh = st.plan.Offloaded() && !from.Offloaded()
	r.dropPlan(st, from)
	st.pruneTemplates()
	st.switches++
	r.switches++
	r.publishToggle(st)
	r.mu.Unlock()
	if st.fam.watched {
		user.Watch(comm, true, st.fam.count)
	}
	if st.rank == 0 && r.verbose(1) {
		r.verbosef(1, "communicator %#x: switched %v -> %v %s", uint32(comm.Raw()), from.Algorithm, p.plan.Algorithm, where)
	}
	return nil
}
