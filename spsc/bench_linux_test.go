//go:build linux

package spsc

import (
	"fmt"
	"testing"
)

// BenchmarkCrossProcess moves b.N values from a producer in a child process
// to the consumer in this one over a memfd mapping; each side uses the same
// batch size. The clock starts when the first (untimed) value arrives, so
// process start-up is not counted.
func BenchmarkCrossProcess(b *testing.B) {
	for _, batch := range benchBatches {
		b.Run(fmt.Sprintf("batch=%d", batch), func(b *testing.B) {
			n := uint64(b.N)
			x := startProducerChild(b, benchCapacity, 0, n+1, batch)
			c := x.ring.Consumer()
			if err := consume(c, 0, 1, 1, x.dead); err != nil {
				b.Fatalf("%v (%v)", err, x.wait())
			}
			b.ResetTimer()
			if err := consume(c, 1, n, batch, x.dead); err != nil {
				b.Fatalf("%v (%v)", err, x.wait())
			}
			b.StopTimer()
			if err := x.wait(); err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/item")
		})
	}
}
