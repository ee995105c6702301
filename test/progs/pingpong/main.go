// pingpong times a nonblocking ping-pong through the Go API: post time
// (Isend+Irecv) and wait time (Waitall) separately, medians over
// iterations. A quick diagnostic, not the benchmark suite (see osubench).
package main

import (
	"flag"
	"fmt"
	"os"
	"sort"
	"time"

	"github.com/casperii/casperii/casperii"
)

func median(d []time.Duration) time.Duration {
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	return d[len(d)/2]
}

func main() {
	iters := flag.Int("iters", 2000, "iterations per size")
	hint := flag.String("wildcard", "none", "wildcard_used hint")
	compute := flag.Duration("compute", 0, "sleep between post and wait")
	flag.Parse()
	if err := casperii.Init(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	c, _ := casperii.World().DupWithInfo(casperii.Info{"wildcard_used": *hint})
	me := c.Rank()
	peer := 1 - me
	for _, size := range []int{8, 65536, 1 << 20} {
		sb, _ := casperii.AllocMem(size, casperii.Info{"shmbuf_regist": "true"})
		rb, _ := casperii.AllocMem(size, casperii.Info{"shmbuf_regist": "true"})
		post := make([]time.Duration, 0, *iters)
		wait := make([]time.Duration, 0, *iters)
		total := make([]time.Duration, 0, *iters)
		c.Barrier()
		for i := 0; i < *iters+100; i++ {
			t0 := time.Now()
			var rr, sr *casperii.Request
			if me == 0 {
				sr, _ = casperii.Isend(sb.Bytes(), peer, 1, c)
				rr, _ = casperii.Irecv(rb.Bytes(), peer, 1, c)
			} else {
				rr, _ = casperii.Irecv(rb.Bytes(), peer, 1, c)
			}
			t1 := time.Now()
			if *compute > 0 {
				time.Sleep(*compute)
			}
			t2 := time.Now()
			if me == 0 {
				casperii.Waitall(sr, rr)
			} else {
				rr.Wait()
				sr, _ = casperii.Isend(sb.Bytes(), peer, 1, c)
				sr.Wait()
			}
			t3 := time.Now()
			if i >= 100 {
				post = append(post, t1.Sub(t0))
				wait = append(wait, t3.Sub(t2))
				total = append(total, t3.Sub(t0))
			}
		}
		if me == 0 {
			fmt.Printf("size %8d post %8v wait %10v total %10v (%s)\n", size, median(post), median(wait), median(total), c.Algorithm())
		}
		sb.Free()
		rb.Free()
	}
	c.Free()
	casperii.Finalize()
}
