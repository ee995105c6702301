package spsc

import (
	"fmt"
	"runtime"
	"testing"
	"unsafe"
)

// backoff spins for a while, then yields the CPU: a blocked side must never
// sleep, and must not burn a time slice its peer needs when the machine has
// more runnable threads than cores. It yields to the kernel (sched_yield),
// not to the Go scheduler: runtime.Gosched queues the goroutine globally and
// wakes idle Ps, whose spinning threads then compete with the peer for the
// cores (measured: 2x slower at batch 64 on 2 cores). Gosched is used only
// where a peer goroutine may be waiting for this P: always with GOMAXPROCS=1,
// and now and then otherwise.
type backoff struct{ n int }

var singleP = runtime.GOMAXPROCS(0) == 1

func (b *backoff) wait() {
	b.n++
	switch {
	case b.n <= 64:
	case singleP || b.n%64 == 0:
		runtime.Gosched()
	default:
		osYield()
	}
}

func (b *backoff) reset() { b.n = 0 }

// produce pushes first, first+1, ..., first+n-1 in batches of batch values
// (TryPush when batch is 1). stop, if not nil, is polled while blocked.
func produce(p *Producer, first, n uint64, batch int, stop func() bool) error {
	buf := padded(batch)
	var bo backoff
	for done := uint64(0); done < n; {
		var w int
		if batch == 1 {
			if p.TryPush(first + done) {
				w = 1
			}
		} else {
			k := min(uint64(batch), n-done)
			for i := range k {
				buf[i] = first + done + i
			}
			w = p.PushBatch(buf[:k])
		}
		if w == 0 {
			if stop != nil && bo.n%1024 == 1023 && stop() {
				return fmt.Errorf("producer stopped after %d of %d values", done, n)
			}
			bo.wait()
			continue
		}
		bo.reset()
		done += uint64(w)
	}
	return nil
}

// consume pops n values in batches of up to batch and checks that they are
// first, first+1, ...: nothing lost, duplicated or reordered. stop, if not
// nil, is polled while the ring is empty.
func consume(c *Consumer, first, n uint64, batch int, stop func() bool) error {
	buf := padded(batch)
	var bo backoff
	for done := uint64(0); done < n; {
		k := min(uint64(batch), n-done)
		got, err := c.PopBatch(buf[:k])
		if err != nil {
			return fmt.Errorf("after %d values: %w", done, err)
		}
		if got == 0 {
			if stop != nil && bo.n%1024 == 1023 && stop() {
				return fmt.Errorf("consumer stopped after %d of %d values", done, n)
			}
			bo.wait()
			continue
		}
		bo.reset()
		for _, v := range buf[:got] {
			if want := first + done; v != want {
				return fmt.Errorf("value %d is %d, want %d", done, v, want)
			}
			done++
		}
	}
	return nil
}

// padded returns a slice of n values with a cache line of margin on both
// sides, so that two goroutines' small buffers never share a line.
func padded(n int) []uint64 { return make([]uint64, n+16)[8 : 8+n] }

// newRing returns a ring on the Go heap, visible to the race detector.
func newRing(t testing.TB, capacity int) *Ring {
	t.Helper()
	r, err := New(capacity)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// alignedBytes returns n zero bytes starting on an Alignment boundary.
func alignedBytes(n int) []byte {
	buf := make([]byte, n+Alignment)
	skip := Alignment - int(uintptr(unsafe.Pointer(&buf[0]))%Alignment)
	return buf[skip : skip+n : skip+n]
}

// setIndices stores head and tail into the shared header, as a peer would.
func (r *Ring) setIndices(head, tail uint64) {
	r.head.Store(head)
	r.tail.Store(tail)
}
