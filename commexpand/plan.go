package commexpand

import (
	"fmt"

	"github.com/casperii/casperii/info"
)

// Status bits of a Proposal: a member clears a bit to veto.
const (
	statusHintsValid uint64 = 1 << 0 // this member's hints parsed
	statusAll               = statusHintsValid
)

// Proposal is one member's input to the plan of a communicator: what it
// asks for and what it has free. The runtime reduces the members'
// proposals with Allreduce(MPI_BAND) over the communicator (Words gives the
// uint64 words) and passes the result to Pool.Decide.
type Proposal struct {
	HintsValid bool           // this member's hints parsed without error
	Algorithm  info.Algorithm // what this member's hints select
}

// Words encodes p and the pool's free resources: a status word, the
// algorithm as a one-hot word (ANDs to zero unless all members agree),
// then the free resources of every kind.
func (pool *Pool) Words(p Proposal) []uint64 {
	status := uint64(0)
	if p.HintsValid {
		status |= statusHintsValid
	}
	w := make([]uint64, 0, pool.words())
	w = append(w, status, 1<<p.Algorithm)
	for _, b := range pool.free {
		w = append(w, b...)
	}
	return w
}

// Plan is how a communicator's point-to-point traffic is carried.
type Plan struct {
	Algorithm info.Algorithm
	// Slots are the internal communicators used, as pool indices: one for
	// tag encoding (SlotTagNative) and ghost matching (SlotTagGhost); K*K
	// slots indexed src*K+dst for Duplication; K slots indexed by
	// destination offset for DuplicationSrc.
	Slots   []int
	Ctx     int // tag context in its slot (tag encoding and ghost matching)
	Members Members
	dupIdx  []int // duplication: the pool's bitmap indices of Slots
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

// Decide turns the reduced proposal words into the plan of a communicator
// with members m and takes its slots and context from the pool. Every
// member computes the same plan from the same words. When offload is
// impossible or the members disagree, the plan is NoOffload with a Reason.
// With replace non-nil (a hints change), invalid hints or an unchanged
// algorithm return *replace as it is; otherwise the new plan's resources
// are taken and replace keeps its own: the communicator goes on using it
// until the change of route takes effect (internal/core/switch.go), and
// the caller then releases it (Release).
func (pool *Pool) Decide(words []uint64, m Members, opt DecideOptions, replace *Plan) (Plan, error) {
	if len(words) != pool.words() {
		return Plan{}, fmt.Errorf("commexpand: %d proposal words, want %d", len(words), pool.words())
	}
	status, algo := words[0], words[1]
	free := pool.split(words)

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
		pl.Reason = pool.assign(&pl, want, free, opt)
	}
	if replace != nil && samePlan(&pl, replace) {
		return *replace, nil
	}
	if pl.Offloaded() {
		if err := pool.take(&pl); err != nil {
			return Plan{}, err
		}
	}
	return pl, nil
}

// assign gives pl the resources algorithm a needs, or returns why it can't.
func (pool *Pool) assign(pl *Plan, a info.Algorithm, free [nKinds]Bitmap, opt DecideOptions) string {
	k, _ := kindOf(a)
	if a != info.Duplication && !opt.TagSpace {
		return "no tag layout fits this many users per ghost"
	}
	switch a {
	case info.TagEncoding, info.GhostMatch:
		c := free[k].lowest(1)
		if c == nil {
			return fmt.Sprintf("all %d %v contexts are in use by communicators sharing members with this one", pool.n[k], a)
		}
		pl.Algorithm, pl.Slots, pl.Ctx = a, []int{pool.base[k]}, c[0]
	case info.Duplication, info.DuplicationSrc:
		need := pl.Members.K
		if a == info.Duplication {
			need *= need
		}
		idx := free[k].lowest(need)
		if idx == nil {
			return fmt.Sprintf("%s needs %d free internal communicators, %d are free on every member (raise CSP_COMM_POOL)", a, need, free[k].count())
		}
		slots := make([]int, len(idx))
		for i, b := range idx {
			slots[i] = pool.base[k] + b
		}
		pl.Algorithm, pl.Slots, pl.Ctx, pl.dupIdx = a, slots, -1, idx
	}
	return ""
}

// Same reports whether pl and q are the same plan: the same algorithm on
// the same internal resources.
func (pl *Plan) Same(q *Plan) bool { return samePlan(pl, q) }

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
