package core

import (
	"errors"
	"fmt"

	"github.com/casperii/casperii/commexpand"
	"github.com/casperii/casperii/info"
	"github.com/casperii/casperii/internal/mpi"
)

// PendingPlan is the plan of a communicator being duplicated nonblockingly
// (MPI_Comm_idup). Planning is split in two so that its one collective can
// run as an Iallreduce(BAND) on the parent, started with the duplication:
//
//	p, words, err := r.ProposeDup(parent, info) // at MPI_Comm_idup
//	... Iallreduce(words -> reduced, BAND, parent) and Comm_idup complete ...
//	err = r.DecideDup(p, newcomm, reduced)      // when both are done
//
// The duplicate has the parent's members in the parent's order, so the
// reduction over the parent is the one expand would run over the new
// communicator. While the reduction is in flight, the resources this
// process offered are withheld from the pool (commexpand.Pool.Withhold):
// a communicator planned meanwhile cannot pick them. The offer is narrowed
// first (commexpand.Pool.Narrow) to the kind of resource the requested
// algorithm uses, a few more than it needs, so a pending idup leaves the
// rest of the pool to the others (and one that asks for no offload
// withholds nothing).
type PendingPlan struct {
	hints   info.Hints
	herr    error
	rank    int
	members commexpand.Members
	words   []uint64 // this process's proposal; nil for intercommunicators
	decided bool
}

// ProposeDup starts planning a duplicate of parent with the constructor's
// info (MPI_INFO_NULL when it has none). It returns the words to reduce
// with MPI_BAND over parent, or no words when no reduction is needed (an
// intercommunicator, or a process that is not a user). Not collective.
func (r *runtime) ProposeDup(parent mpi.Comm, inf mpi.Info) (*PendingPlan, []uint64, error) {
	p := &PendingPlan{}
	if r == nil || r.role != RoleUser {
		return p, nil, nil
	}
	h, herr := parseHints(inf)
	p.hints, p.herr = h.Inherit(r.hintsOf(parent)), herr
	rank, err := parent.Rank()
	if err != nil {
		return nil, nil, err
	}
	p.rank = rank
	if inter, _ := parent.TestInter(); inter {
		return p, nil, nil
	}
	r.mu.Lock()
	st := r.comms[parent.Raw()]
	r.mu.Unlock()
	if st != nil && st.inter { // members outside the world (expand): never offloaded
		return p, nil, nil
	}
	if p.members, err = r.membersOf(parent); err != nil {
		return nil, nil, err
	}
	alg := r.algorithm(p.hints)
	r.mu.Lock()
	r.reapZombies()
	p.words = r.slots.Words(commexpand.Proposal{HintsValid: herr == nil, Algorithm: alg})
	r.slots.Narrow(p.words, alg, idupSlack+resourcesNeeded(alg, p.members.K))
	r.slots.Withhold(p.words)
	r.mu.Unlock()
	return p, append([]uint64(nil), p.words...), nil
}

// DecideDup installs the plan of newcomm, the duplicate p was proposed
// for, from the reduced words (ignored when ProposeDup returned none). It
// returns the hint error of the proposal, if any, as CommCreated does.
// With newcomm MPI_COMM_NULL (the duplication failed) it only returns the
// withheld resources to the pool. Call it exactly once per proposal.
func (r *runtime) DecideDup(p *PendingPlan, newcomm mpi.Comm, reduced []uint64) error {
	if r == nil || r.role != RoleUser || p == nil {
		return nil
	}
	if p.decided {
		return errors.New("CasperII: MPI_Comm_idup's plan was already decided")
	}
	p.decided = true
	if newcomm.IsNull() { // the duplication failed: give the withheld resources back
		if p.words != nil {
			r.mu.Lock()
			r.slots.Restore(p.words)
			r.mu.Unlock()
		}
		return nil
	}
	if p.words == nil {
		r.store(newcomm, &commState{comm: newcomm, hints: p.hints, rank: p.rank, inter: true})
		return p.herr
	}
	if len(reduced) != len(p.words) {
		return fmt.Errorf("CasperII: MPI_Comm_idup: %d reduced words, want %d", len(reduced), len(p.words))
	}
	r.mu.Lock()
	r.slots.Restore(p.words)
	plan, derr := r.slots.Decide(reduced, p.members, commexpand.DecideOptions{TagSpace: r.tags != nil}, nil)
	r.mu.Unlock()
	if derr != nil {
		return derr
	}
	regist, _ := p.hints.ShmbufRegist()
	// A family of its own: an idup completes at a time of its own on each
	// member, so its place among its group's communicators is not agreed.
	if err := r.install(newcomm, p.hints, plan, p.rank, regist, true); err != nil {
		return err
	}
	if p.rank == 0 {
		if plan.Reason != "" && r.algorithm(p.hints).Offloaded() {
			r.verbosef(1, "communicator %#x (idup, %d ranks) not offloaded: %s", uint32(newcomm.Raw()), len(p.members.Ghost), plan.Reason)
		}
		r.verbosef(2, "communicator %#x (idup, %d ranks): %v, slots %v, context %d, %d members per ghost",
			uint32(newcomm.Raw()), len(p.members.Ghost), plan.Algorithm, plan.Slots, plan.Ctx, plan.Members.K)
	}
	return p.herr
}

// idupSlack is how many resources beyond its need a pending MPI_Comm_idup
// offers (and withholds): enough for members whose free sets differ a
// little, few enough to leave the rest to communicators created meanwhile.
const idupSlack = 8

// resourcesNeeded is how many contexts or slots a plan of algorithm a takes
// with k members per ghost (as commexpand assigns them).
func resourcesNeeded(a info.Algorithm, k int) int {
	switch a {
	case info.Duplication:
		return k * k
	case info.DuplicationSrc:
		return k
	case info.TagEncoding, info.GhostMatch:
		return 1
	}
	return 0
}

// membersOf places comm's members on their ghosts (as expand does).
func (r *runtime) membersOf(comm mpi.Comm) (commexpand.Members, error) {
	size, err := comm.Size()
	if err != nil {
		return commexpand.Members{}, err
	}
	grp, err := comm.Group()
	if err != nil {
		return commexpand.Members{}, err
	}
	all := make([]int, size)
	for i := range all {
		all[i] = i
	}
	wr, err := grp.TranslateRanks(all, r.worldGrp)
	grp.Free()
	if err != nil {
		return commexpand.Members{}, err
	}
	w32 := make([]int32, size)
	for i, w := range wr {
		w32[i] = int32(w)
	}
	m, err := r.layout.Members(w32)
	if err != nil {
		return commexpand.Members{}, fmt.Errorf("CasperII: planning a communicator: %w", err)
	}
	return m, nil
}
