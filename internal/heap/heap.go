// Package heap is the user's shared heap: memory its ghost can map, for
// registered buffers (MPI_Alloc_mem with shmbuf_regist=true) and bounce
// copies. The allocator is C (heap.c), because the fast path allocates
// bounce space on every unregistered send; this file is its Go handle.
package heap

/*
#cgo CFLAGS: -O3 -Wall -Werror
#include <stdlib.h>
#include "heap.h"
*/
import "C"

import (
	"fmt"
	"syscall"
	"unsafe"

	"github.com/casperii/casperii/internal/channel"
)

// Heap is a handle on a C struct csp_heap.
type Heap struct {
	h *C.struct_csp_heap
}

// Entry is one row of the shared segment table, struct csp_seg_entry, as
// generated from channel.h.
type Entry = channel.SegEntry

// MaxSegments is the number of rows in a segment table.
const MaxSegments = C.CSP_MAX_SEGS

// New makes a heap publishing its segments in table, which must hold
// maxSegs entries (at most MaxSegments) and must not move (shared or C
// memory). Arenas are 2^arenaShift bytes.
func New(table unsafe.Pointer, maxSegs, arenaShift int) (*Heap, error) {
	h := (*C.struct_csp_heap)(C.calloc(1, C.sizeof_struct_csp_heap))
	if h == nil {
		return nil, fmt.Errorf("heap: out of memory for the heap descriptor")
	}
	if rc := C.csp_heap_init(h, (*C.struct_csp_seg_entry)(table), C.uint32_t(maxSegs), C.uint32_t(arenaShift)); rc != 0 {
		C.free(unsafe.Pointer(h))
		return nil, fmt.Errorf("heap: init with %d segments, arena 2^%d: %w", maxSegs, arenaShift, syscall.Errno(-rc))
	}
	return &Heap{h: h}, nil
}

// C returns the C descriptor, for the runtime's C code.
func (h *Heap) C() unsafe.Pointer { return unsafe.Pointer(h.h) }

// Alloc returns n bytes of shared memory.
func (h *Heap) Alloc(n int) (unsafe.Pointer, error) {
	if n <= 0 {
		return nil, fmt.Errorf("heap: cannot allocate %d bytes", n)
	}
	p, err := C.csp_heap_alloc(h.h, C.size_t(n))
	if p == nil {
		return nil, fmt.Errorf("heap: allocating %d bytes: %w", n, err)
	}
	return p, nil
}

// Free returns a block to the heap.
func (h *Heap) Free(p unsafe.Pointer) error {
	if rc := C.csp_heap_free(h.h, p); rc != 0 {
		return fmt.Errorf("heap: %p is not a live block of this heap", p)
	}
	return nil
}

// BlockSize returns the usable size of the block at p, 0 if p is not one.
func (h *Heap) BlockSize(p unsafe.Pointer) int { return int(C.csp_heap_block_size(h.h, p)) }

// Find locates [p, p+n) in a segment: its index and offset.
func (h *Heap) Find(p unsafe.Pointer, n int) (seg uint32, off uint64, ok bool) {
	var s C.uint32_t
	var o C.uint64_t
	if C.csp_heap_find(h.h, p, C.size_t(n), &s, &o) == 0 {
		return 0, 0, false
	}
	return uint32(s), uint64(o), true
}

// AddExternal registers memory backed by descriptor fd (mapped at base) as
// a segment the ghost may map.
func (h *Heap) AddExternal(fd int, base unsafe.Pointer, size uint64) (uint32, error) {
	rc := C.csp_heap_add_external(h.h, C.int(fd), base, C.uint64_t(size))
	if rc < 0 {
		return 0, fmt.Errorf("heap: registering %d bytes at %p: %w", size, base, syscall.Errno(-rc))
	}
	return uint32(rc), nil
}

// RemoveExternal unregisters an external segment.
func (h *Heap) RemoveExternal(seg uint32) error {
	if C.csp_heap_remove_external(h.h, C.uint32_t(seg)) != 0 {
		return fmt.Errorf("heap: segment %d is not an external segment", seg)
	}
	return nil
}

// HideExternal hides an external segment from Find (hide) or shows it
// again; its table entry, which the ghost reads, stays as it is.
func (h *Heap) HideExternal(seg uint32, hide bool) error {
	v := C.int(0)
	if hide {
		v = 1
	}
	if C.csp_heap_hide_external(h.h, C.uint32_t(seg), v) != 0 {
		return fmt.Errorf("heap: segment %d is not an external segment", seg)
	}
	return nil
}

// Stats reports the heap's accounting.
type Stats struct {
	InUse, Reserved uint64 // bytes handed out; bytes held in segments
	Allocs, Frees   uint64
	Segments        int // segments in use
}

// Stats returns the current accounting.
func (h *Heap) Stats() Stats {
	s := Stats{InUse: uint64(h.h.in_use), Reserved: uint64(h.h.reserved),
		Allocs: uint64(h.h.allocs), Frees: uint64(h.h.frees)}
	for i := 0; i < int(h.h.nsegs); i++ {
		if h.h.seg[i].kind != C.CSP_SEG_FREE {
			s.Segments++
		}
	}
	return s
}

// Destroy unmaps every segment the heap created and frees the descriptor.
func (h *Heap) Destroy() {
	if h.h == nil {
		return
	}
	C.csp_heap_destroy(h.h)
	C.free(unsafe.Pointer(h.h))
	h.h = nil
}
