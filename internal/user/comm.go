package user

/*
#include <stdlib.h>
#include "user.h"
*/
import "C"

import (
	"fmt"
	"slices"
	"unsafe"

	"github.com/casperii/casperii/commexpand"
	"github.com/casperii/casperii/info"
	"github.com/casperii/casperii/internal/mpi"
)

// The C enum csp_algo follows info.Algorithm.
var _ = [1]int{}[int(info.GhostMatch)-C.CSP_ALGO_MATCH]
var _ = [1]int{}[int(info.Duplication)-C.CSP_ALGO_DUP]

func cInts(v []int32) *C.int32_t {
	p := (*C.int32_t)(C.malloc(C.size_t(max(len(v), 1)) * 4))
	copy(unsafe.Slice((*int32)(unsafe.Pointer(p)), len(v)), v)
	return p
}

// SetComm installs the fast path's entry for comm, where this process has
// rank rank, replacing any previous entry. Operations already posted keep
// the entry they were posted with. A plan that does not offload installs
// an entry of the direct route: the fast path sends the communicator
// straight to MPI, counting what a later switch of route needs (route.c).
func SetComm(comm mpi.Comm, rank int, pl *commexpand.Plan, regist bool) error {
	if !started {
		return nil
	}
	e, err := NewEntry(comm, rank, pl, regist)
	if err != nil {
		return err
	}
	Lock()
	defer Unlock()
	return e.InstallLocked()
}

// NewEntry builds, without installing it, the fast path's entry for comm
// carried as pl says (see SetComm). Install it with InstallLocked, or drop
// it with Release.
func NewEntry(comm mpi.Comm, rank int, pl *commexpand.Plan, regist bool) (Entry, error) {
	c := (*C.struct_csp_comm)(C.calloc(1, C.sizeof_struct_csp_comm))
	if c == nil {
		return Entry{}, fmt.Errorf("user: out of memory for a communicator entry")
	}
	c.comm = C.MPI_Comm(comm.Raw())
	c.refs = 1
	c.rank = C.int(rank)
	if regist {
		c.regist = 1
	}
	if !pl.Offloaded() {
		c.algo = C.CSP_ALGO_OFF
		return Entry{c}, nil
	}
	m := pl.Members
	c.algo = C.uint8_t(pl.Algorithm)
	c.mode = C.CSP_MATCH_NATIVE
	if pl.Algorithm == info.GhostMatch || pl.Algorithm == info.DuplicationSrc {
		c.mode = C.CSP_MATCH_GHOST
	}
	c.size = C.int(len(m.Ghost))
	c.my_off, c.K, c.ctx = C.int(m.Offset[rank]), C.int(m.K), C.int(max(pl.Ctx, 0))
	slots := make([]int32, len(pl.Slots))
	for i, s := range pl.Slots {
		slots[i] = int32(s)
	}
	c.nslots = C.int(len(slots))
	c.slots = cInts(slots)
	c.ghost = cInts(m.Ghost)
	c.off = cInts(m.Offset)

	type rev struct {
		key  int64
		rank int32
	}
	revs := make([]rev, len(m.Ghost))
	for r := range m.Ghost {
		revs[r] = rev{int64(m.Ghost[r])<<16 | int64(m.Offset[r]), int32(r)}
	}
	slices.SortFunc(revs, func(a, b rev) int { return int(a.key - b.key) })
	c.rev = (*C.struct_csp_rev)(C.malloc(C.size_t(max(len(revs), 1)) * C.sizeof_struct_csp_rev))
	cr := unsafe.Slice(c.rev, len(revs))
	for i, r := range revs {
		cr[i].key, cr[i].rank = C.int64_t(r.key), C.int32_t(r.rank)
	}
	c.nrev = C.int(len(revs))
	return Entry{c}, nil
}

// InstallLocked puts e in the table in place of its communicator's entry,
// under the fast path's lock (Lock). The table takes e's reference.
func (e Entry) InstallLocked() error {
	if C.csp_comm_put(e.c) != 0 {
		C.csp_comm_unref(e.c)
		return fmt.Errorf("user: out of memory for the communicator table")
	}
	return nil
}

// InstallCopy installs in the table a copy of e, an entry NewEntry built
// and nobody installed (kept as the template of its plan), with the
// shmbuf_regist hint regist: one call into C where NewEntry and
// InstallLocked take several. It takes the lock itself; e stays the
// caller's.
func (e Entry) InstallCopy(regist bool) error {
	r := C.int(0)
	if regist {
		r = 1
	}
	if C.csp_comm_install_copy(e.c, r) != 0 {
		return fmt.Errorf("user: out of memory for a communicator entry")
	}
	return nil
}

// Lock takes the fast path's lock (under MPI_THREAD_MULTIPLE; otherwise
// there is nothing to take): no post, wait or completion of this process
// runs until Unlock.
func Lock() {
	if C.csp_u.multiple != 0 {
		C.pthread_mutex_lock(&C.csp_u.lock)
	}
}

// Unlock releases what Lock took.
func Unlock() {
	if C.csp_u.multiple != 0 {
		C.pthread_mutex_unlock(&C.csp_u.lock)
	}
}

// Entry is a reference to a communicator entry removed from the table.
type Entry struct{ c *C.struct_csp_comm }

// Detach removes comm's entry from the table and returns the table's
// reference to it; the caller must Release it.
func Detach(comm mpi.Comm) Entry {
	return Entry{C.csp_comm_detach(C.MPI_Comm(comm.Raw()))}
}

// Pending reports whether operations posted on the entry are pending.
func (e Entry) Pending() bool {
	if e.c == nil {
		return false
	}
	if C.csp_u.multiple != 0 {
		C.pthread_mutex_lock(&C.csp_u.lock)
		defer C.pthread_mutex_unlock(&C.csp_u.lock)
	}
	return e.c.refs > 1
}

// Release drops the reference.
func (e Entry) Release() {
	if e.c != nil {
		C.csp_comm_release(e.c)
	}
}

// Pending reports whether operations are pending on comm.
func Pending(comm mpi.Comm) bool { return C.csp_comm_refs(C.MPI_Comm(comm.Raw())) > 1 }
