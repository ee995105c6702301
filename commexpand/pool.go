package commexpand

import (
	"fmt"

	"github.com/casperii/casperii/info"
)

// kind is a class of internal resource. Natively matched and ghost-matched
// traffic never share an internal communicator: a ghost matching arrivals
// probes its communicators with MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG),
// which would take messages meant for a receive MPI matches natively.
type kind int

const (
	kindCtxNative kind = iota // contexts of slot SlotTagNative (tag encoding)
	kindCtxGhost              // contexts of slot SlotTagGhost (ghost matching)
	kindDupNative             // duplication slots, natively matched
	kindDupGhost              // duplication slots, ghost-matched (duplication-src)
	nKinds
)

// Fixed slots of the world-dup pool.
const (
	SlotTagNative = 0 // tag-encoded communicators matched by MPI
	SlotTagGhost  = 1 // tag-encoded communicators matched by the ghosts
	firstDupSlot  = 2
)

// kindOf returns the resource kind algorithm a uses.
func kindOf(a info.Algorithm) (kind, bool) {
	switch a {
	case info.TagEncoding:
		return kindCtxNative, true
	case info.GhostMatch:
		return kindCtxGhost, true
	case info.Duplication:
		return kindDupNative, true
	case info.DuplicationSrc:
		return kindDupGhost, true
	}
	return 0, false
}

// PoolConfig sizes a pool.
type PoolConfig struct {
	Contexts    int // tag contexts of each of the two tag slots
	DupSlots    int // natively matched duplication slots
	DupSrcSlots int // ghost-matched duplication slots
}

// Pool is one process's view of which internal resources are free: the
// contexts of the two tag-encoding slots and the duplication slots of each
// matching mode. Each process keeps its own Pool; communicators agree by
// ANDing the members' offers (see Proposal).
type Pool struct {
	free [nKinds]Bitmap
	n    [nKinds]int
	base [nKinds]int // slot of a context kind; first slot of a duplication kind
}

// NewPool returns a pool with everything free. Its world-dup pool has
// Size() internal communicators: slot 0 and 1 for tag encoding (native and
// ghost-matched), then the native duplication slots, then the ghost-matched
// ones.
func NewPool(c PoolConfig) *Pool {
	p := &Pool{}
	p.n = [nKinds]int{c.Contexts, c.Contexts, c.DupSlots, c.DupSrcSlots}
	p.base = [nKinds]int{SlotTagNative, SlotTagGhost, firstDupSlot, firstDupSlot + c.DupSlots}
	for k := range p.free {
		p.free[k] = newBitmap(p.n[k])
		for i := 0; i < p.n[k]; i++ {
			p.free[k].set(i)
		}
	}
	return p
}

// Size returns the number of internal communicators the pool needs.
func (p *Pool) Size() int { return firstDupSlot + p.n[kindDupNative] + p.n[kindDupGhost] }

// Contexts returns the number of tag contexts of each tag slot.
func (p *Pool) Contexts() int { return p.n[kindCtxNative] }

// DupSlots returns the numbers of natively matched and ghost-matched
// duplication slots.
func (p *Pool) DupSlots() (native, ghost int) { return p.n[kindDupNative], p.n[kindDupGhost] }

// Free counts what is free of the kind algorithm a uses.
func (p *Pool) Free(a info.Algorithm) int {
	k, ok := kindOf(a)
	if !ok {
		return 0
	}
	return p.free[k].count()
}

// indices returns the bitmap indices a plan holds, of its kind.
func (pl *Plan) indices() (kind, []int, bool) {
	k, ok := kindOf(pl.Algorithm)
	if !ok {
		return 0, nil, false
	}
	if k == kindCtxNative || k == kindCtxGhost {
		return k, []int{pl.Ctx}, true
	}
	return k, pl.dupIdx, true
}

// take marks the resources of a plan as used.
func (p *Pool) take(pl *Plan) error {
	k, idx, ok := pl.indices()
	if !ok {
		return nil
	}
	for _, i := range idx {
		if !p.free[k].has(i) {
			return fmt.Errorf("commexpand: %v resource %d is not free", pl.Algorithm, i)
		}
	}
	for _, i := range idx {
		p.free[k].clear(i)
	}
	return nil
}

// Release returns the resources of a plan to the pool, when its
// communicator is freed (or its plan replaced).
func (p *Pool) Release(pl *Plan) {
	k, idx, ok := pl.indices()
	if !ok {
		return
	}
	for _, i := range idx {
		if i >= 0 && i < p.n[k] {
			p.free[k].set(i)
		}
	}
}

// words returns the number of proposal words: status, algorithm, then the
// free bitmaps of every kind.
func (p *Pool) words() int {
	n := 2
	for _, b := range p.free {
		n += len(b)
	}
	return n
}

// split views the bitmaps of a proposal, by kind.
func (p *Pool) split(words []uint64) [nKinds]Bitmap {
	var out [nKinds]Bitmap
	at := 2
	for k, b := range p.free {
		out[k] = Bitmap(words[at : at+len(b)])
		at += len(b)
	}
	return out
}
