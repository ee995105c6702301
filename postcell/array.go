package postcell

import (
	"fmt"
	"unsafe"
)

// Array is a view of n consecutive cells in a mapped region.
type Array struct {
	base unsafe.Pointer
	n    uint32
}

// NewArray views mem as cells. mem must be 64-byte aligned and hold a whole
// number of cells; its memory must outlive the Array and must not be Go heap
// memory that can move (an mmap'd region, or memory from C).
func NewArray(mem []byte) (Array, error) {
	if len(mem) == 0 || len(mem)%Size != 0 {
		return Array{}, fmt.Errorf("postcell: region of %d bytes is not a whole number of %d-byte cells", len(mem), Size)
	}
	if uintptr(unsafe.Pointer(&mem[0]))%64 != 0 {
		return Array{}, fmt.Errorf("postcell: region at %p is not 64-byte aligned", &mem[0])
	}
	n := len(mem) / Size
	if n > MaxCells {
		return Array{}, fmt.Errorf("postcell: %d cells exceed the limit of %d", n, MaxCells)
	}
	return Array{base: unsafe.Pointer(&mem[0]), n: uint32(n)}, nil
}

// MaxCells bounds the cells of one channel (indices fit the ring's slots
// with room to spare, and a hostile index is rejected before use).
const MaxCells = 1 << 20

// Len returns the number of cells.
func (a Array) Len() uint32 { return a.n }

// At returns cell i. It panics if i is out of range: callers holding an
// index from shared memory check it with Valid first.
func (a Array) At(i uint32) *Cell {
	if i >= a.n {
		panic(fmt.Sprintf("postcell: cell %d out of range [0,%d)", i, a.n))
	}
	return (*Cell)(unsafe.Add(a.base, uintptr(i)*Size))
}

// Valid reports whether i names a cell of the array.
func (a Array) Valid(i uint64) bool { return i < uint64(a.n) }
