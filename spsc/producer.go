package spsc

import "sync/atomic"

// Producer is the writing end of a ring. It keeps its cursor and a cached
// copy of the consumer's head in private memory: tail == the shared tail
// after every call, and cachedHead <= the shared head. Methods must not be
// called concurrently.
type Producer struct {
	_          [64]byte // keep the hot fields off a line shared with other heap objects
	tail       uint64   // next index to write; the shared tail is stored from it
	cachedHead uint64   // last head loaded; reloaded only when it shows too little room
	mask       uint64   // capacity-1
	slots      []uint64
	sharedTail *atomic.Uint64
	sharedHead *atomic.Uint64
	_          [64]byte
}

// Producer returns the writing end of r, starting at the shared tail. There
// must be at most one live Producer for a ring, across all processes.
func (r *Ring) Producer() *Producer {
	return &Producer{
		tail:       r.tail.Load(),
		cachedHead: r.head.Load(),
		mask:       r.mask,
		slots:      r.slots,
		sharedTail: r.tail,
		sharedHead: r.head,
	}
}

// free returns the room left according to the cached head. A head that no
// consumer could have written (ahead of tail, or more than capacity behind
// it) reads as a full ring, so slots holding unconsumed items are never
// overwritten.
func (p *Producer) free() uint64 {
	used := p.tail - p.cachedHead
	if used > uint64(len(p.slots)) {
		return 0
	}
	return uint64(len(p.slots)) - used
}

// TryPush writes v and publishes it with one atomic store of tail. It
// returns false, writing nothing, if the ring is full.
func (p *Producer) TryPush(v uint64) bool {
	if p.tail-p.cachedHead >= uint64(len(p.slots)) {
		p.cachedHead = p.sharedHead.Load()
		if p.free() == 0 {
			return false
		}
	}
	p.slots[p.tail&p.mask] = v
	p.tail++
	p.sharedTail.Store(p.tail)
	return true
}

// PushBatch writes as many values from the front of vs as fit and publishes
// them with a single atomic store of tail. It returns how many it wrote; the
// rest of vs is untouched by the ring. It reloads the shared head only if
// the cached one leaves less room than len(vs).
func (p *Producer) PushBatch(vs []uint64) int {
	free := p.free()
	if free < uint64(len(vs)) {
		p.cachedHead = p.sharedHead.Load()
		free = p.free()
	}
	n := min(uint64(len(vs)), free)
	if n == 0 {
		return 0
	}
	i := p.tail & p.mask
	k := copy(p.slots[i:], vs[:n]) // up to the end of the slots
	copy(p.slots, vs[k:n])         // the rest wraps to the start
	p.tail += n
	p.sharedTail.Store(p.tail)
	return int(n)
}

// Free loads the shared head and returns how many values could be pushed
// now. The consumer can only make the room grow until the next push.
func (p *Producer) Free() int {
	p.cachedHead = p.sharedHead.Load()
	return int(p.free())
}
