package commexpand

import (
	"github.com/casperii/casperii/info"
)

// Withhold takes out of the pool the free resources offered in words (this
// process's Words, not yet reduced), so that no other proposal offers them
// while the reduction of words is in flight. It exists for plans agreed
// nonblockingly (MPI_Comm_idup): between Words and Decide another
// communicator sharing members may be planned, and without withholding both
// could pick the same slot or context.
//
// Invariant: every resource set in words is free in the pool when Withhold
// is called (words came from Words with no take in between), so Restore
// puts back exactly what Withhold removed.
func (p *Pool) Withhold(words []uint64) { p.apply(words, false) }

// Restore returns what Withhold took for words. Call it right before Decide
// with the reduced words, under the same lock: Decide then takes the chosen
// resources, which are a subset of words.
func (p *Pool) Restore(words []uint64) { p.apply(words, true) }

func (p *Pool) apply(words []uint64, set bool) {
	if len(words) != p.words() {
		return
	}
	for k, w := range p.split(words) {
		for i, x := range w {
			if set {
				p.free[k][i] |= x
			} else {
				p.free[k][i] &^= x
			}
		}
	}
}

// Narrow reduces a proposal (this process's Words) to what a plan of
// algorithm a can use, keeping at most keep resources of that kind (the
// lowest) and none of the other kinds. A proposal whose reduction is in
// flight withholds what it offers (Withhold); narrowing it first leaves the
// rest to communicators planned meanwhile. The members' offers may then
// share fewer resources than their free sets do; keep some slack above what
// the plan needs.
func (p *Pool) Narrow(words []uint64, a info.Algorithm, keep int) { p.NarrowFrom(words, a, keep, 0) }

// NarrowFrom is Narrow keeping the first keep resources at or after index
// (from*keep) mod the kind's size, wrapping past the end: proposals made at
// once on one process (threads planning communicators of their own) that
// pass different from values offer different resources, and the members
// of one communicator, passing the same from, still offer the same ones
// where their free sets agree.
func (p *Pool) NarrowFrom(words []uint64, a info.Algorithm, keep, from int) {
	if len(words) != p.words() {
		return
	}
	k, ok := kindOf(a)
	for kk, w := range p.split(words) {
		if !ok || kind(kk) != k {
			clear(w)
			continue
		}
		start := 0
		if n := p.n[kk]; n > 0 {
			start = int((uint64(from) * uint64(max(keep, 1))) % uint64(n))
		}
		w.keepFrom(keep, start, p.n[kk])
	}
}

// keepFrom clears every member of b (of n bits) but the first k at or
// after start, in the order start..n-1, 0..start-1.
func (b Bitmap) keepFrom(k, start, n int) {
	for j := 0; j < n; j++ {
		i := (start + j) % n
		if !b.has(i) {
			continue
		}
		if k > 0 {
			k--
		} else {
			b.clear(i)
		}
	}
}
