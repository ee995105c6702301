package postcell

// Pool is the user's private stack of free cell indices. Only the user
// process touches it: it pops a cell to post an operation and pushes it back
// after reading the result. LIFO order keeps recently used, cache-warm cells
// in circulation. The C fast path keeps the same stack (struct csp_cell_pool).
type Pool struct {
	free []uint32
}

// NewPool returns a pool holding cells 0..n-1, handing out low indices first.
func NewPool(n uint32) *Pool {
	p := &Pool{free: make([]uint32, n)}
	for i := range p.free {
		p.free[i] = n - 1 - uint32(i)
	}
	return p
}

// Get pops a free cell index; ok is false when every cell is in use.
func (p *Pool) Get() (i uint32, ok bool) {
	n := len(p.free)
	if n == 0 {
		return 0, false
	}
	i = p.free[n-1]
	p.free = p.free[:n-1]
	return i, true
}

// Put returns cell i to the pool. Returning a cell twice is a bug in the
// caller; Put does not check (the C fast path does not either).
func (p *Pool) Put(i uint32) { p.free = append(p.free, i) }

// Free returns the number of free cells.
func (p *Pool) Free() int { return len(p.free) }
