package channel

import (
	"sync/atomic"

	"github.com/casperii/casperii/internal/shm"
)

// The ghost's halves of the handshakes across the two sides. channel.h
// states each invariant and holds the user's halves beside it, in C (user
// processes are C): csp_ghost_unpark, csp_user_sleep_begin,
// csp_user_lend_begin, csp_user_sleep_end, csp_ghost_busy, csp_seg_publish,
// csp_seg_clear.
// Go's atomics are sequentially consistent, at least as strong as the
// acquire and release each half needs.

// Park is the ghost's half of the doorbell handshake: it stores Parked = 1
// before the ghost's last look at the rings and its sleep on Doorbell. The
// store is sequentially consistent, so it is ordered before that look
// (unless the header says Membarrier, where the ghost's global barrier
// orders both sides). A user that publishes after the look sees the flag
// (csp_ghost_unpark), takes it down and rings.
func (h *GhostHdr) Park() { atomic.StoreUint32(&h.Parked, 1) }

// Unpark takes the flag down when the ghost is up again (or gives up
// parking): posts from now on need no ring.
func (h *GhostHdr) Unpark() { atomic.StoreUint32(&h.Parked, 0) }

// StillParked reports whether no user took the flag down since Park.
func (h *GhostHdr) StillParked() bool { return atomic.LoadUint32(&h.Parked) == 1 }

// Sleeping is the ghost's first load in the wake handshake: whether the
// user announced a sleep on Wake (csp_user_sleep_begin). Load it after
// completing cells, before WaitsFor and Lending.
func (h *ChanHdr) Sleeping() bool { return atomic.LoadUint32(&h.UserSleeping) != 0 }

// WaitsFor returns what a sleeping user waits for: WaitCell and WaitAlso,
// each a cell index or WaitAny (WaitCell may be WaitGive: see Lending).
func (h *ChanHdr) WaitsFor() (cell, also uint32) {
	cell = atomic.LoadUint32(&h.WaitCell)
	also = atomic.LoadUint32(&h.WaitAlso)
	return cell, also
}

// Lending reports whether the sleeping user only lends its core to the
// ghost (WaitCell == WaitGive, csp_user_lend_begin) and, if so, the GiveSeq
// of this lending: each is answered with one WakeUser.
func (h *ChanHdr) Lending() (seq uint32, lending bool) {
	if atomic.LoadUint32(&h.WaitCell) != WaitGive {
		return 0, false
	}
	return atomic.LoadUint32(&h.GiveSeq), true
}

// WakeUser is the ghost's closing half of the wake handshake: it bumps
// Wake, so that a user between its announcement and its sleep does not
// sleep, and wakes the user's futex. It returns how many sleepers it woke.
func (h *ChanHdr) WakeUser() int {
	atomic.AddUint32(&h.Wake, 1)
	return shm.Wake(&h.Wake, 1<<30)
}

// InMPI is the ghost's half of the in-MPI word (channel.h): whether the
// user waits in a blocking MPI call now, so its core computes nothing.
func (h *ChanHdr) InMPI() bool { return atomic.LoadUint32(&h.InMpi) != 0 }

// PublishBusy is the ghost's half of the busy word: it stores n, the
// operations it has outstanding in MPI, which users read (csp_ghost_busy)
// to decide whether to lend it their core. Call it only when n changes,
// so an idle ghost writes nothing.
func (h *GhostHdr) PublishBusy(n uint32) { atomic.StoreUint32(&h.Busy, n) }

// Load is the ghost's half of the segment table handshake: it loads Gen
// (acquire) and then Size and Fd, which the user stored before that Gen
// (csp_seg_publish, csp_seg_clear). A different Gen than the one a mapping
// was made with means the entry changed since.
func (e *SegEntry) Load() (gen uint32, size uint64, fd int32) {
	gen = atomic.LoadUint32(&e.Gen)
	size = atomic.LoadUint64(&e.Size)
	fd = atomic.LoadInt32(&e.Fd)
	return gen, size, fd
}
