package spsc

import (
	"fmt"
	"testing"
)

// TestStress runs a producer goroutine against a consumer goroutine over
// rings of several capacities with several batch sizes on each side,
// including batches larger than the ring, and checks every sequence number.
// Under -race the detector also checks that slot accesses are ordered by
// the index stores and loads.
func TestStress(t *testing.T) {
	n := uint64(1 << 19)
	if raceEnabled || testing.Short() {
		n = 1 << 16
	}
	total := uint64(0)
	for _, capacity := range []int{2, 16, 1024} {
		for _, pb := range []int{1, 7, 64} {
			for _, cb := range []int{1, 5, 64} {
				count := n
				if capacity == 2 {
					count = n / 16 // a ping-pong ring: interleavings, not volume
				}
				t.Run(fmt.Sprintf("cap%d/push%d/pop%d", capacity, pb, cb), func(t *testing.T) {
					runStress(t, capacity, pb, cb, 0, count)
				})
				total += count
			}
		}
	}
	// Across the uint64 wrap of the free-running indices.
	t.Run("wrap", func(t *testing.T) { runStress(t, 64, 16, 16, ^uint64(0)-n/2, n) })
	t.Logf("%d values in total", total+n)
}

func runStress(t *testing.T, capacity, pushBatch, popBatch int, start, n uint64) {
	r := newRing(t, capacity)
	r.setIndices(start, start)
	p, c := r.Producer(), r.Consumer()
	const first = 1 // so that a never-written zero slot cannot pass for a value
	perr := make(chan error, 1)
	go func() { perr <- produce(p, first, n, pushBatch, nil) }()
	if err := consume(c, first, n, popBatch, nil); err != nil {
		t.Fatal(err)
	}
	if err := <-perr; err != nil {
		t.Fatal(err)
	}
	if l, err := c.Len(); l != 0 || err != nil {
		t.Fatalf("ring not empty at the end: Len() = %d, %v", l, err)
	}
}
