package spsc

import (
	"fmt"
	"testing"
)

// benchCapacity is the ring size used by the benchmarks: 32 KiB of slots,
// well inside L1+L2 of one core, large enough that a batch of 64 never
// waits for a full ring while the consumer drains the previous one.
const benchCapacity = 4096

var benchBatches = []int{1, 16, 64}

// BenchmarkInProcess moves b.N values from a producer goroutine to a
// consumer goroutine; each side uses the same batch size.
func BenchmarkInProcess(b *testing.B) {
	for _, batch := range benchBatches {
		b.Run(fmt.Sprintf("batch=%d", batch), func(b *testing.B) {
			r := newRing(b, benchCapacity)
			p, c := r.Producer(), r.Consumer()
			n := uint64(b.N)
			perr := make(chan error, 1)
			b.ResetTimer()
			go func() { perr <- produce(p, 1, n, batch, nil) }()
			if err := consume(c, 1, n, batch, nil); err != nil {
				b.Fatal(err)
			}
			if err := <-perr; err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/item")
		})
	}
}
