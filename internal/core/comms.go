package core

import (
	"errors"
	"fmt"
	"slices"

	"github.com/casperii/casperii/commexpand"
	"github.com/casperii/casperii/info"
	"github.com/casperii/casperii/internal/mpi"
	"github.com/casperii/casperii/internal/user"
)

// HintError is an invalid CasperII hint: MPI_ERR_INFO_VALUE with a message
// naming the key, the value and the accepted values.
type HintError struct{ Err error }

func (e *HintError) Error() string { return "CasperII: " + e.Err.Error() }
func (e *HintError) Unwrap() error { return e.Err }

// algorithm applies the environment's defaults to a communicator's hints
// (Config.Algorithm, which casperii env uses too).
func (r *runtime) algorithm(h info.Hints) info.Algorithm { return r.cfg.Algorithm(h) }

// hintKeys are the keys parseHints reads, all in one call into C.
var hintKeys = mpi.NewKeySet(info.Keys()...)

// parseHints reads the CasperII hints of an MPI info object.
func parseHints(inf mpi.Info) (info.Hints, error) {
	if inf.IsNull() {
		return info.Hints{}, nil
	}
	vals, err := inf.Values(hintKeys)
	if err != nil {
		return info.Hints{}, err
	}
	h, err := info.Parse(vals)
	vals.Release()
	if err != nil {
		return info.Hints{}, &HintError{err}
	}
	return h, nil
}

// hintsOf returns the hints recorded for comm (none for unknown ones).
func (r *runtime) hintsOf(comm mpi.Comm) info.Hints {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.readToggles()
	if st := r.comms[comm.Raw()]; st != nil {
		return st.hints
	}
	return info.Hints{}
}

// CommCreated plans a communicator just created from parent: it inherits
// parent's CasperII hints (as in Casper), overridden by the constructor's
// info argument (MPI_INFO_NULL when it has none). Collective over newcomm.
func (r *runtime) CommCreated(parent, newcomm mpi.Comm, inf mpi.Info) error {
	if r == nil || r.role != RoleUser || newcomm.IsNull() {
		return nil
	}
	h, herr := parseHints(inf)
	return r.expand(newcomm, h.Inherit(r.hintsOf(parent)), herr, r.planSeed(parent))
}

// planSeed is a number the members of comm agree on and that differs
// between communicators sharing members: one more than the tag context of
// its plan (or its first slot), 0 for a communicator without either. A
// communicator created from comm narrows its offer from there when
// threads plan at once (agreeSlots).
func (r *runtime) planSeed(comm mpi.Comm) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	st := r.comms[comm.Raw()]
	if st == nil {
		return 0
	}
	p := &st.plan
	if !p.Offloaded() && st.onPlan.Offloaded() {
		p = &st.onPlan
	}
	switch {
	case p.Ctx >= 0 && p.Offloaded():
		return p.Ctx + 1
	case len(p.Slots) > 0:
		return p.Slots[0] + 1
	}
	return 0
}

// CommSetInfo applies MPI_Comm_set_info's hints to comm itself (and, by
// inheritance, to communicators created from it later). A change of route
// takes effect when the communicator is quiescent (switch.go).
func (r *runtime) CommSetInfo(comm mpi.Comm, inf mpi.Info) error {
	return r.CommSetInfoAgreed(comm, inf, nil)
}

// CommSetInfoAgreed is CommSetInfo where the agreement (agreeHints) was
// already summed into sum by C (internal/user/toggle.c), or nil.
func (r *runtime) CommSetInfoAgreed(comm mpi.Comm, inf mpi.Info, sum *[agFields]int64) error {
	if r == nil || r.role != RoleUser {
		return nil
	}
	h, herr := parseHints(inf)
	h, sym := h.TakeSymmetric()
	r.mu.Lock()
	st := r.comms[comm.Raw()]
	r.mu.Unlock()
	if st == nil {
		return r.expand(comm, h, herr, 0)
	}
	return r.reconfigure(comm, st, h.Inherit(st.hints), herr, sym, sum)
}

// CommInfoPairs returns the CasperII hints to report in MPI_Comm_get_info:
// the effective values for comm.
func (r *runtime) CommInfoPairs(comm mpi.Comm) [][2]string {
	if r == nil || r.role != RoleUser {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.readToggles()
	st := r.comms[comm.Raw()]
	if st == nil {
		return nil
	}
	return st.hints.Pairs()
}

// CommFreed forgets comm (MPI_Comm_free). Its slots return to the pool
// once its pending offloaded operations have finished.
func (r *runtime) CommFreed(comm mpi.Comm) {
	if r == nil || r.role != RoleUser {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	st := r.comms[comm.Raw()]
	if st == nil {
		return
	}
	r.withdrawToggle(st)
	delete(r.comms, comm.Raw())
	// It stays in its family, absent, until every member freed it
	// (family.go); its resources wait for its last operations.
	st.freed = true
	st.pruneTemplates()
	r.zombies = append(r.zombies, zombie{entry: user.Detach(comm), plans: st.heldPlans()})
	r.reapZombies()
}

// zombie is a freed communicator whose operations are still pending.
type zombie struct {
	entry user.Entry
	plans []commexpand.Plan
}

// reapZombies releases the slots of freed communicators whose operations
// have all finished. Called with r.mu held.
func (r *runtime) reapZombies() {
	kept := r.zombies[:0]
	for _, z := range r.zombies {
		if z.entry.Pending() {
			kept = append(kept, z)
			continue
		}
		z.entry.Release()
		for i := range z.plans {
			r.slots.Release(&z.plans[i])
		}
	}
	r.zombies = kept
}

// agreeSlots proposes algorithm alg for comm's plan (k members per ghost;
// herr: its hints were invalid) with the slots this member has free, and
// returns the members' proposals reduced (one Allreduce, MPI_BAND), which
// commexpand's Decide takes. Collective over comm. Under
// MPI_THREAD_MULTIPLE, other threads may plan communicators of their own
// meanwhile (MPICH's threads/comm dup_leak_test: four threads each
// duplicating its own communicator): the offer is then narrowed, from a
// place the members agree on (seed: planSeed of the parent, so that
// threads offer different resources), and withheld from the pool while the
// reduction runs, as an MPI_Comm_idup's is (idup.go); withheld is returned
// and the caller gives it back (Restore) under r.mu right before Decide.
// Without it, two threads offered the same free context and both took it.
func (r *runtime) agreeSlots(comm mpi.Comm, k, seed int, alg info.Algorithm, herr error) (out, withheld []uint64, err error) {
	r.mu.Lock()
	r.reapZombies()
	words := r.slots.Words(commexpand.Proposal{HintsValid: herr == nil, Algorithm: alg})
	if r.provided == mpi.ThreadMultiple {
		r.slots.NarrowFrom(words, alg, idupSlack+resourcesNeeded(alg, k), seed)
		r.slots.Withhold(words)
		withheld = words
	}
	r.mu.Unlock()
	out = make([]uint64, len(words))
	if err := mpi.AllreduceUint64s(comm, words, out, mpi.OpBand); err != nil {
		if withheld != nil {
			r.mu.Lock()
			r.slots.Restore(withheld)
			r.mu.Unlock()
		}
		return nil, nil, err
	}
	return out, withheld, nil
}

// expand plans a new comm: one Allreduce(BAND) over comm agrees on the
// algorithm and the internal resources, then the fast path's entry is
// installed.
func (r *runtime) expand(comm mpi.Comm, h info.Hints, herr error, seed int) error {
	rank, err := comm.Rank()
	if err != nil {
		return err
	}
	size, _ := comm.Size()
	if inter, _ := comm.TestInter(); inter || !r.cfg.PT2PT {
		// An intercommunicator, or no point-to-point offload at all
		// (CSP_ASYNC_MODE=rma): MPICH's as is, whatever its hints say.
		r.store(comm, &commState{comm: comm, hints: h, rank: rank, inter: true})
		return herr
	}
	grp, err := comm.Group()
	if err != nil {
		return err
	}
	all := make([]int, size)
	for i := range all {
		all[i] = i
	}
	wr, err := grp.TranslateRanks(all, r.worldGrp)
	grp.Free()
	if err != nil {
		return err
	}
	if slices.ContainsFunc(wr, func(w int) bool { return w < 0 }) {
		// Members of another job (MPI_Intercomm_merge with processes of
		// MPI_Comm_spawn, MPI_Comm_connect/accept): no ghost serves them
		// and they run no agreement, so every member of this job, seeing
		// the same members, takes the direct route alone.
		r.store(comm, &commState{comm: comm, hints: h, rank: rank, inter: true})
		if rank == 0 {
			r.verbosef(1, "communicator %#x (%d ranks) not offloaded: it has members outside this job's MPI_COMM_WORLD", uint32(comm.Raw()), size)
		}
		return herr
	}
	w32 := make([]int32, size)
	for i, w := range wr {
		w32[i] = int32(w)
	}
	members, err := r.layout.Members(w32)
	if err != nil {
		return fmt.Errorf("CasperII: planning a communicator: %w", err)
	}
	alg := r.algorithm(h)
	out, withheld, err := r.agreeSlots(comm, members.K, seed, alg, herr)
	if err != nil {
		return err
	}
	r.mu.Lock()
	if withheld != nil {
		r.slots.Restore(withheld)
	}
	plan, derr := r.slots.Decide(out, members, commexpand.DecideOptions{TagSpace: r.tags != nil}, nil)
	r.mu.Unlock()
	if derr != nil {
		return derr
	}
	regist, _ := h.ShmbufRegist()
	if err := r.install(comm, h, plan, rank, regist, false); err != nil {
		return err
	}
	if rank == 0 {
		if plan.Reason != "" && alg.Offloaded() {
			r.verbosef(1, "communicator %#x (%d ranks) not offloaded: %s", uint32(comm.Raw()), size, plan.Reason)
		}
		r.verbosef(2, "communicator %#x (%d ranks): %v, slots %v, context %d, %d members per ghost",
			uint32(comm.Raw()), size, plan.Algorithm, plan.Slots, plan.Ctx, plan.Members.K)
	}
	if v, set := h.OffloadMinMsgsz(); set && rank == 0 {
		r.verbosef(1, "offload_min_msgsz=%d ignored: offload is decided per communicator, never per message", v)
	}
	return herr
}

// install builds the state of a new intracommunicator comm carried by
// plan, installs its fast-path entry and puts it in its family (alone: a
// family of its own). A communicator that chooses its route itself starts
// on the direct route with plan reserved (auto.go).
func (r *runtime) install(comm mpi.Comm, h info.Hints, plan commexpand.Plan, rank int, regist, alone bool) error {
	st := &commState{comm: comm, hints: h, plan: plan, rank: rank, regist: regist, since: user.MonoNS(), offWait: -1, onFailures: 1, learnLeft: learnWindow}
	if plan.Offloaded() {
		st.onPlan = plan
	}
	// Offload on a core the ghosts share costs more when wrong than it
	// gains when right: the first switch on needs two favourable
	// evaluations in a row (auto.go).
	if r.isAuto(h) && plan.Offloaded() {
		st.auto = true
		st.plan = st.directPlan()
	}
	if err := user.SetComm(comm, rank, &st.plan, regist); err != nil {
		r.mu.Lock()
		r.slots.Release(&plan)
		r.mu.Unlock()
		return err
	}
	r.mu.Lock()
	r.comms[comm.Raw()] = st
	r.join(st, alone)
	watched := st.fam.watched
	r.mu.Unlock()
	if st.auto {
		user.ProfileOn(true)
		r.watchFamily(st.fam)
	}
	if watched { // its collectives look at the family's pending choices too
		user.Watch(comm, true, st.fam.count)
	}
	return nil
}

func (r *runtime) store(comm mpi.Comm, st *commState) {
	r.mu.Lock()
	r.comms[comm.Raw()] = st
	r.mu.Unlock()
}

// ErrorClass returns the MPI error class of an error from the runtime.
func ErrorClass(err error) int {
	var he *HintError
	if errors.As(err, &he) {
		return mpi.ErrInfoValue
	}
	return mpi.ClassOf(err)
}
