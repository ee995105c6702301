package commexpand

import (
	"fmt"

	"github.com/casperii/casperii/info"
)

// Status bits of a Proposal: a member clears a bit to veto.
const (
	statusHintsValid uint64 = 1 << 0 // this member's hints parsed
	statusQuiet      uint64 = 1 << 1 // no offloaded operation pending here
	statusAll               = statusHintsValid | statusQuiet
)

// Proposal is one member's input to the plan of a communicator: what it
// asks for and what it has free. The runtime reduces the members'
// proposals with Allreduce(MPI_BAND) over the communicator (Words gives the
// uint64 words) and passes the result to Pool.Decide.
type Proposal struct {
	HintsValid bool           // this member's hints parsed without error
	Quiet      bool           // no offloaded operation pending (for set_info)
	Algorithm  info.Algorithm // what this member's hints select
}

// Words encodes p and the pool's free resources: a status word, the
// algorithm as a one-hot word (ANDs to zero unless all members agree), the
// free contexts, then the free duplication slots.
func (pool *Pool) Words(p Proposal) []uint64 {
	status := uint64(0)
	if p.HintsValid {
		status |= statusHintsValid
	}
	if p.Quiet {
		status |= statusQuiet
	}
	w := make([]uint64, 0, 2+len(pool.ctx)+len(pool.dup))
	w = append(w, status, 1<<p.Algorithm)
	w = append(w, pool.ctx...)
	return append(w, pool.dup...)
}

// Plan is how a communicator's point-to-point traffic is carried.
type Plan struct {
	Algorithm info.Algorithm
	// Slots are the internal communicators used, as pool indices: [0] for
	// tag encoding and ghost matching; K*K slots indexed src*K+dst for
	// Duplication; K slots indexed by destination offset for DuplicationSrc.
	Slots   []int
	Ctx     int // tag context in slot 0 (tag encoding and ghost matching)
	Members Members
	// Reason says why a communicator asking for offload is not offloaded
	// (empty otherwise), for CSP_VERBOSE warnings.
	Reason string
}

// Offloaded reports whether the plan sends traffic through the ghosts.
func (pl *Plan) Offloaded() bool { return pl.Algorithm.Offloaded() }

// Slot returns the internal communicator for a message from source offset
// src to destination offset dst.
func (pl *Plan) Slot(src, dst int) int {
	switch pl.Algorithm {
	case info.Duplication:
		return pl.Slots[src*pl.Members.K+dst]
	case info.DuplicationSrc:
		return pl.Slots[dst]
	}
	return pl.Slots[0]
}

// DecideOptions are the runtime facts a decision depends on, identical on
// all processes.
type DecideOptions struct {
	// TagSpace is false when no tag layout fits (too many users per
	// ghost): the algorithms that encode tags are then unavailable.
	TagSpace bool
}

// ErrPending is returned by Decide when a member still has offloaded
// operations pending and the plan would change (MPI_Comm_set_info).
var ErrPending = fmt.Errorf("commexpand: offloaded operations are still pending on the communicator; complete them before changing wildcard_used")

// Decide turns the reduced proposal words into the plan of a communicator
// with members m and takes its slots and context from the pool. Every
// member computes the same plan from the same words. When offload is
// impossible or the members disagree, the plan is NoOffload with a Reason.
// With replace non-nil (a hints change), invalid hints or an unchanged
// algorithm keep *replace as it is; a plan that would differ while a member vetoed with
// Quiet == false yields ErrPending and leaves everything as it was;
// otherwise replace's resources are released and the new ones taken.
func (pool *Pool) Decide(words []uint64, m Members, opt DecideOptions, replace *Plan) (Plan, error) {
	if len(words) != 2+len(pool.ctx)+len(pool.dup) {
		return Plan{}, fmt.Errorf("commexpand: %d proposal words, want %d", len(words), 2+len(pool.ctx)+len(pool.dup))
	}
	status, algo := words[0], words[1]
	ctxFree := Bitmap(words[2 : 2+len(pool.ctx)])
	dupFree := Bitmap(words[2+len(pool.ctx):])

	pl := Plan{Algorithm: info.NoOffload, Members: m}
	var want info.Algorithm
	switch {
	case status&statusHintsValid == 0:
		pl.Reason = "a member passed an invalid hint"
	case algo == 0 || algo&(algo-1) != 0:
		pl.Reason = "members disagree on wildcard_used or async_config"
	default:
		for algo > 1 {
			algo >>= 1
			want++
		}
	}
	if replace != nil && (status&statusHintsValid == 0 || (pl.Reason == "" && want == replace.Algorithm)) {
		// Invalid hints change nothing (the caller reports them); the same
		// algorithm keeps slots, context and traffic as they are.
		return *replace, nil
	}
	if want.Offloaded() {
		pl.Reason = pool.assign(&pl, want, ctxFree, dupFree, opt)
	}
	if replace != nil {
		if status&statusQuiet == 0 && !samePlan(&pl, replace) {
			return *replace, ErrPending
		}
		pool.Release(replace)
	}
	if pl.Offloaded() {
		if err := pool.take(&pl); err != nil {
			return Plan{}, err
		}
	}
	return pl, nil
}

// assign gives pl the resources algorithm a needs, or returns why it can't.
func (pool *Pool) assign(pl *Plan, a info.Algorithm, ctxFree, dupFree Bitmap, opt DecideOptions) string {
	k := pl.Members.K
	switch a {
	case info.TagEncoding, info.GhostMatch:
		if !opt.TagSpace {
			return "no tag layout fits this many users per ghost"
		}
		c := ctxFree.lowest(1)
		if c == nil {
			return fmt.Sprintf("all %d tag contexts are in use by communicators sharing members with this one", pool.nCtx)
		}
		pl.Algorithm, pl.Slots, pl.Ctx = a, []int{0}, c[0]
	case info.Duplication, info.DuplicationSrc:
		need := k
		if a == info.Duplication {
			need = k * k
		}
		if !opt.TagSpace && a == info.DuplicationSrc {
			return "no tag layout fits this many users per ghost"
		}
		s := dupFree.lowest(need)
		if s == nil {
			return fmt.Sprintf("%s needs %d free internal communicators, %d are free on every member (raise CSP_COMM_POOL)", a, need, dupFree.count())
		}
		for i := range s {
			s[i]++ // bit i is slot i+1
		}
		pl.Algorithm, pl.Slots, pl.Ctx = a, s, -1
	}
	return ""
}

func samePlan(a, b *Plan) bool {
	if a.Algorithm != b.Algorithm || a.Ctx != b.Ctx || len(a.Slots) != len(b.Slots) {
		return false
	}
	for i := range a.Slots {
		if a.Slots[i] != b.Slots[i] {
			return false
		}
	}
	return true
}
