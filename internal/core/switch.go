package core

import (
	"fmt"

	"github.com/casperii/casperii/commexpand"
	"github.com/casperii/casperii/info"
	"github.com/casperii/casperii/internal/mpi"
	"github.com/casperii/casperii/internal/user"
)

// A change of a communicator's route (through the ghosts by one algorithm
// or another, or straight to MPICH), asked for by MPI_Comm_set_info, is
// legal at any time: it takes effect at the first point where the members'
// counts prove the old route quiescent (internal/user/route.c states the
// invariant). That point is a collective every member enters: the
// MPI_Comm_set_info call itself, else one of the blocking collectives that
// follow on the communicator, which look at it while a change is pending
// (user.Watch; the first eight, then every eighth, see checkDue). Between
// the request and the switch the communicator keeps its old route, and
// both plans hold their internal resources.
//
// symmetric=true (Casper's collective hint) asserts that nothing is in
// flight: the switch is taken at the call even where the counts lost track
// (a receive request freed while active). Counts that prove messages in
// flight still defer it: switching then would strand them.

// pendingSwitch is an agreed change of route not taken yet.
type pendingSwitch struct {
	plan   commexpand.Plan
	regist bool
	checks int // collectives that found the old route busy
}

// switchDueEvery: after the first switchDueFirst collectives that find the
// old route busy, only every switchDueEvery-th one sums the counts again.
const (
	switchDueFirst = 8
	switchDueEvery = 8
)

// checkDue reports whether the n-th watched collective (1-based) on a
// communicator with a pending switch sums the counts. The same on every
// member: n counts the same calls everywhere.
func checkDue(n int) bool { return n <= switchDueFirst || n%switchDueEvery == 0 }

// reconfigure applies new hints h to comm, on which the runtime already
// has state st. Collective over comm.
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
	r.mu.Lock()
	r.reapZombies()
	words := r.slots.Words(commexpand.Proposal{HintsValid: herr == nil, Algorithm: alg})
	r.mu.Unlock()
	out := make([]uint64, len(words))
	if err := mpi.AllreduceUint64s(comm, words, out, mpi.OpBand); err != nil {
		return err
	}
	r.mu.Lock()
	if herr != nil { // an invalid hint changes nothing (the caller reports it)
		r.mu.Unlock()
		return herr
	}
	st.hints = h
	if st.pending != nil { // a newer request replaces one not taken yet
		r.slots.Release(&st.pending.plan)
		st.pending = nil
	}
	plan, derr := r.slots.Decide(out, st.plan.Members, commexpand.DecideOptions{TagSpace: r.tags != nil}, &st.plan)
	r.mu.Unlock()
	if derr != nil {
		return derr
	}
	regist, _ := h.ShmbufRegist()
	if plan.Algorithm == st.plan.Algorithm {
		// Same route: Decide kept the plan. Only the buffer hint may change.
		user.Watch(comm, false)
		if regist != st.regist {
			st.regist = regist
			return user.SetComm(comm, st.rank, &st.plan, regist)
		}
		return nil
	}
	if st.rank == 0 && plan.Reason != "" && alg.Offloaded() {
		r.verbosef(1, "communicator %#x not offloaded: %s", uint32(comm.Raw()), plan.Reason)
	}
	r.mu.Lock()
	st.pending = &pendingSwitch{plan: plan, regist: regist}
	r.mu.Unlock()
	switched, err := r.trySwitch(comm, st, sym, "at MPI_Comm_set_info")
	if err == nil && !switched {
		user.Watch(comm, true)
		if st.rank == 0 {
			r.verbosef(1, "communicator %#x: %v -> %v requested; messages are in flight, the switch waits for a later collective on it",
				uint32(comm.Raw()), st.plan.Algorithm, plan.Algorithm)
		}
	}
	return err
}

// trySwitch sums the members' route counts for comm (a collective) and
// takes st's pending switch if they prove the old route quiescent (or sym
// vouches for counts that lost track). Holding the fast path's lock from
// reading the counts to installing the new entry, so that no post of this
// process slips between them.
func (r *runtime) trySwitch(comm mpi.Comm, st *commState, sym bool, where string) (bool, error) {
	p := st.pending
	e, err := user.NewEntry(comm, st.rank, &p.plan, p.regist)
	if err != nil {
		return false, err
	}
	user.Lock()
	c, err := user.CountsLocked(comm)
	var sum [3]int64
	if err == nil {
		err = user.SumLocked(comm, []int64{c.Unmatched, c.Pending, c.Stuck}, sum[:])
	}
	total := user.Counts{Unmatched: sum[0], Pending: sum[1], Stuck: sum[2]}
	take := err == nil && (total.Quiescent() || (sym && total.Unmatched == 0 && total.Pending == 0))
	if take {
		err = e.InstallLocked() // the table takes e, or frees it on error
		take = err == nil
	} else {
		defer e.Release() // after Unlock: Release takes the lock
	}
	user.Unlock()
	if !take {
		if err == nil && sym && st.rank == 0 {
			r.verbosef(1, "communicator %#x: symmetric=true, but %d messages and %d receives are in flight: the switch waits",
				uint32(comm.Raw()), total.Unmatched, total.Pending)
		}
		return false, err
	}
	r.mu.Lock()
	from := st.plan.Algorithm
	r.slots.Release(&st.plan)
	st.plan, st.regist, st.pending = p.plan, p.regist, nil
	st.switches++
	r.switches++
	r.mu.Unlock()
	if st.rank == 0 {
		r.verbosef(1, "communicator %#x: switched %v -> %v %s", uint32(comm.Raw()), from, p.plan.Algorithm, where)
	}
	return true, nil
}

// CollCheck is called by the blocking collectives on a watched
// communicator, before the collective itself, on every member alike (its
// n-th watched collective). Collective over comm when it sums.
func (r *runtime) CollCheck(comm mpi.Comm, n int) error {
	if r == nil || r.role != RoleUser {
		return nil
	}
	r.mu.Lock()
	st := r.comms[comm.Raw()]
	r.mu.Unlock()
	if st == nil || st.pending == nil {
		user.Watch(comm, false)
		return nil
	}
	if !checkDue(n) {
		return nil
	}
	switched, err := r.trySwitch(comm, st, false, fmt.Sprintf("at collective %d after the request", n))
	if err == nil && !switched {
		st.pending.checks++
	}
	return err
}
