package spsc

import (
	"fmt"
	"sync/atomic"
)

// Consumer is the reading end of a ring. It keeps its cursor and a cached
// copy of the producer's tail in private memory: head == the shared head
// after every call, and head <= cachedTail <= head+capacity always, because
// a tail is cached only after it passed that check. Methods must not be
// called concurrently.
type Consumer struct {
	_          [64]byte // keep the hot fields off a line shared with other heap objects
	head       uint64   // next index to read; the shared head is stored from it
	cachedTail uint64   // last valid tail loaded; reloaded only when it shows too few items
	mask       uint64   // capacity-1
	slots      []uint64
	sharedTail *atomic.Uint64
	sharedHead *atomic.Uint64
	_          [64]byte
}

// Consumer returns the reading end of r, starting at the shared head. There
// must be at most one live Consumer for a ring, across all processes.
func (r *Ring) Consumer() *Consumer {
	h := r.head.Load()
	return &Consumer{
		head:       h,
		cachedTail: h,
		mask:       r.mask,
		slots:      r.slots,
		sharedTail: r.tail,
		sharedHead: r.head,
	}
}

// load loads the shared tail and caches it if it is within capacity of head.
func (c *Consumer) load() error {
	t := c.sharedTail.Load()
	if t-c.head > uint64(len(c.slots)) {
		return fmt.Errorf("%w: tail %d, head %d, capacity %d: tail-head must be in [0, capacity]",
			ErrCorrupt, t, c.head, len(c.slots))
	}
	c.cachedTail = t
	return nil
}

// PopBatch copies up to len(dst) values into dst, oldest first, and hands
// their slots back to the producer with a single atomic store of head. It
// returns how many it copied, 0 if the ring is empty. It reloads the shared
// tail only if the cached one shows fewer than len(dst) values; if the
// loaded tail is corrupt it returns an error wrapping ErrCorrupt and changes
// nothing.
func (c *Consumer) PopBatch(dst []uint64) (int, error) {
	if c.cachedTail-c.head < uint64(len(dst)) {
		if err := c.load(); err != nil {
			return 0, err
		}
	}
	n := min(uint64(len(dst)), c.cachedTail-c.head)
	if n == 0 {
		return 0, nil
	}
	i := c.head & c.mask
	k := copy(dst[:n], c.slots[i:]) // up to the end of the slots
	copy(dst[k:n], c.slots)         // the rest wraps from the start
	c.head += n
	c.sharedHead.Store(c.head)
	return int(n), nil
}

// Len loads the shared tail and returns how many values are waiting. The
// producer can only make the count grow until the next pop.
func (c *Consumer) Len() (int, error) {
	if err := c.load(); err != nil {
		return 0, err
	}
	return int(c.cachedTail - c.head), nil
}
