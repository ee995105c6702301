package spsc

//go:generate go run ../cmd/layoutgen layout_defs.go layout_gen.go

// Size returns the size in bytes of a region holding a ring of capacity
// slots: HeaderSize + SlotSize*capacity, as SPSC_SIZE. It does not validate
// capacity.
func Size(capacity int) int { return HeaderSize + SlotSize*capacity }

// validCapacity reports whether c is a power of two in [MinCapacity, MaxCapacity].
func validCapacity(c uint64) bool {
	return c >= MinCapacity && c <= MaxCapacity && c&(c-1) == 0
}
