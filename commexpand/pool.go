package commexpand

import "fmt"

// Pool is one process's view of which internal resources are free: the
// duplication slots 1..DupSlots of the world-dup pool, and the contexts of
// slot 0. Each process keeps its own Pool; communicators agree by ANDing
// the members' offers (see Proposal).
type Pool struct {
	dup  Bitmap // bit i: slot i+1 is free
	ctx  Bitmap // bit i: context i of slot 0 is free
	nDup int
	nCtx int
}

// NewPool returns a pool with dupSlots duplication slots (numbered 1..dupSlots
// in the world-dup pool; slot 0 is the tag-encoding slot) and contexts
// tag contexts, all free.
func NewPool(dupSlots, contexts int) *Pool {
	p := &Pool{dup: newBitmap(dupSlots), ctx: newBitmap(contexts), nDup: dupSlots, nCtx: contexts}
	for i := 0; i < dupSlots; i++ {
		p.dup.set(i)
	}
	for i := 0; i < contexts; i++ {
		p.ctx.set(i)
	}
	return p
}

// DupSlots returns the number of duplication slots; the world-dup pool has
// DupSlots()+1 internal communicators.
func (p *Pool) DupSlots() int { return p.nDup }

// Contexts returns the number of tag contexts of slot 0.
func (p *Pool) Contexts() int { return p.nCtx }

// FreeDupSlots and FreeContexts count what is free.
func (p *Pool) FreeDupSlots() int { return p.dup.count() }
func (p *Pool) FreeContexts() int { return p.ctx.count() }

// take marks the resources of a plan as used.
func (p *Pool) take(pl *Plan) error {
	for _, s := range pl.Slots {
		if s == 0 {
			if !p.ctx.has(pl.Ctx) {
				return fmt.Errorf("commexpand: context %d is not free", pl.Ctx)
			}
			continue
		}
		if !p.dup.has(s - 1) {
			return fmt.Errorf("commexpand: slot %d is not free", s)
		}
	}
	for _, s := range pl.Slots {
		if s == 0 {
			p.ctx.clear(pl.Ctx)
		} else {
			p.dup.clear(s - 1)
		}
	}
	return nil
}

// Release returns the slots and context of a plan to the pool, when its
// communicator is freed (or its plan replaced).
func (p *Pool) Release(pl *Plan) {
	for _, s := range pl.Slots {
		if s == 0 {
			if pl.Ctx >= 0 && pl.Ctx < p.nCtx {
				p.ctx.set(pl.Ctx)
			}
		} else if s-1 < p.nDup {
			p.dup.set(s - 1)
		}
	}
}
