// Command latency is the Go-API variant of osubench's latency test: the
// nonblocking ping-pong of csrc/latency.c (post MPI_Isend + MPI_Irecv, then
// Waitall) written against package casperii, with the same options and the
// same output lines, so the osubench driver runs it as the go-tag and go-dup
// modes:
//
//	mpiexec -n 4 -genv CSP_NODE_SIZE 2 -genv CSP_NG 1 ./latency -s 8,64K -H none
//
// User i is paired with user (i + n/2) mod n. Buffers come from
// casperii.AllocMem with shmbuf_regist=true (shared with the ghost). With -t
// every iteration writes the whole send buffer before the post and reads
// the whole receive buffer after the wait, as csrc/common.h does (touch_us).
package main

import (
	"encoding/binary"
	"flag"
	"fmt"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"

	"github.com/casperii/casperii/casperii"
)

var (
	sizesFlag = flag.String("s", "0,8,1K,64K,1M", "message sizes")
	hint      = flag.String("H", "-", "wildcard_used hint of the benchmark communicator (- for none)")
	budgetMs  = flag.Float64("b", 200, "time budget per size, ms")
	maxIters  = flag.Int("i", 100000, "maximum iterations per size")
	minIters  = flag.Int("m", 10, "minimum iterations per size")
	check     = flag.Bool("C", false, "check the received data")
	waitEach  = flag.Bool("wait-each", false, "complete the requests one by one (Request.Wait) instead of casperii.Waitall")
	_         = flag.String("c", "sleep", "compute emulation (unused: the latency test does not compute)")
	touch     = flag.Bool("t", false, "touch the buffers: write the send buffer before each post, read the receive buffer after each wait")
)

// sink receives the sums of the touched receive buffers, so the reads
// cannot be dropped; touchGen makes every write differ from the last.
var (
	sink     uint64
	touchGen uint64
)

// words views the first n/8*8 bytes of b as 64-bit words (the buffers come
// from casperii.AllocMem, aligned for any word).
func words(b []byte) []uint64 {
	if len(b) < 8 {
		return nil
	}
	return unsafe.Slice((*uint64)(unsafe.Pointer(&b[0])), len(b)/8)
}

// touchWrite writes every byte of b, 8 at a time, with a value that
// changes on every call (the buffer is handed to Isend next, so the stores
// are observable and kept).
func touchWrite(b []byte) {
	touchGen++
	g := touchGen * 0x9E3779B97F4A7C15
	w := words(b)
	for i := range w {
		w[i] = g + uint64(i)
	}
	for i := len(w) * 8; i < len(b); i++ {
		b[i] = byte(g + uint64(i))
	}
}

// touchRead reads every byte of b into sink.
func touchRead(b []byte) {
	var s uint64
	w := words(b)
	for _, x := range w {
		s += x
	}
	for i := len(w) * 8; i < len(b); i++ {
		s += uint64(b[i])
	}
	sink += s
}

func parseSize(s string) (int, error) {
	mul := 1
	switch {
	case strings.HasSuffix(s, "K"):
		mul, s = 1<<10, strings.TrimSuffix(s, "K")
	case strings.HasSuffix(s, "M"):
		mul, s = 1<<20, strings.TrimSuffix(s, "M")
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("bad size %q", s)
	}
	return n * mul, nil
}

func die(rank int, err error) {
	fmt.Fprintf(os.Stderr, "osub: rank %d: %v\n", rank, err)
	os.Exit(2)
}

// world is the users' communicator for the driver's own small messages
// (iteration agreement and averages): rank 0 collects, then answers.
type world struct {
	c          casperii.Comm
	rank, size int
	reg        *casperii.Buffer // registered, so these messages need no bounce copy either
}

func (w world) exchange(vals []float64, combine func(all [][]float64) []float64) []float64 {
	if 8*len(vals) > len(w.reg.Bytes()) {
		die(w.rank, fmt.Errorf("registered control buffer of %d bytes too small for %d values", len(w.reg.Bytes()), len(vals)))
	}
	buf := w.reg.Bytes()[:8*len(vals)]
	enc := func(v []float64) {
		for i, x := range v {
			binary.LittleEndian.PutUint64(buf[8*i:], math.Float64bits(x))
		}
	}
	dec := func() []float64 {
		v := make([]float64, len(vals))
		for i := range v {
			v[i] = math.Float64frombits(binary.LittleEndian.Uint64(buf[8*i:]))
		}
		return v
	}
	if w.rank != 0 {
		enc(vals)
		if err := casperii.Send(buf, 0, 900, w.c); err != nil {
			die(w.rank, err)
		}
		if _, err := casperii.Recv(buf, 0, 901, w.c); err != nil {
			die(w.rank, err)
		}
		return dec()
	}
	all := [][]float64{vals}
	for r := 1; r < w.size; r++ {
		if _, err := casperii.Recv(buf, r, 900, w.c); err != nil {
			die(w.rank, err)
		}
		all = append(all, dec())
	}
	out := combine(all)
	enc(out)
	for r := 1; r < w.size; r++ {
		if err := casperii.Send(buf, r, 901, w.c); err != nil {
			die(w.rank, err)
		}
	}
	return out
}

func mean(all [][]float64) []float64 {
	out := make([]float64, len(all[0]))
	for _, v := range all {
		for i, x := range v {
			out[i] += x / float64(len(all))
		}
	}
	return out
}

func maxOf(all [][]float64) []float64 {
	out := append([]float64(nil), all[0]...)
	for _, v := range all[1:] {
		for i, x := range v {
			out[i] = math.Max(out[i], x)
		}
	}
	return out
}

type times struct {
	post, wait, touch, total time.Duration
	sp, sw, st               []float64 // per-iteration samples (seconds), if recording
	record                   bool
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// usage is the process's CPU seconds and voluntary and involuntary
// context switches so far.
func usage() (cpu float64, nvcsw, nivcsw int64) {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return float64(ru.Utime.Sec+ru.Stime.Sec) + 1e-6*float64(ru.Utime.Usec+ru.Stime.Usec), ru.Nvcsw, ru.Nivcsw
}

func main() {
	flag.Parse()
	var sizes []int
	for _, f := range strings.Split(*sizesFlag, ",") {
		n, err := parseSize(strings.TrimSpace(f))
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		sizes = append(sizes, n)
	}
	if err := casperii.Init(); err != nil {
		die(-1, err)
	}
	uw := casperii.World()
	reg, err := casperii.AllocMem(256, casperii.Info{"shmbuf_regist": "true"}) // up to 32 values per exchange
	if err != nil {
		die(-1, err)
	}
	w := world{c: uw, rank: uw.Rank(), size: uw.Size(), reg: reg}
	if w.size%2 != 0 {
		die(w.rank, fmt.Errorf("the ping-pong needs an even number of users"))
	}
	hints := casperii.Info{}
	if *hint != "-" {
		hints["wildcard_used"] = *hint
	}
	comm, err := uw.DupWithInfo(hints)
	if err != nil {
		die(w.rank, err)
	}
	if w.rank == 0 {
		host, _ := os.Hostname()
		fmt.Printf("osub-info bench=latency users=%d thread=1 hint=%s hint_used=%s algorithm=%s compute=none touch=%s budget_ms=%g host=%s api=go\n",
			w.size, *hint, orDash(comm.Hints()["wildcard_used"]), comm.Algorithm(), onOff(*touch), *budgetMs, host)
	}
	maxSize := 1
	for _, s := range sizes {
		maxSize = max(maxSize, s)
	}
	sb, err := casperii.AllocMem(maxSize, casperii.Info{"shmbuf_regist": "true"})
	if err != nil {
		die(w.rank, err)
	}
	rb, err := casperii.AllocMem(maxSize, casperii.Info{"shmbuf_regist": "true"})
	if err != nil {
		die(w.rank, err)
	}
	peer := (w.rank + w.size/2) % w.size
	xchg := func(size, iters int, doTouch bool, t *times) {
		s, r := sb.Bytes()[:size], rb.Bytes()[:size]
		for i := 0; i < iters; i++ {
			ts := time.Now()
			t0 := ts
			if doTouch {
				touchWrite(s)
				t0 = time.Now()
			}
			rs, err := casperii.Isend(s, peer, 1, comm)
			if err != nil {
				die(w.rank, err)
			}
			rr, err := casperii.Irecv(r, peer, 1, comm)
			if err != nil {
				die(w.rank, err)
			}
			t1 := time.Now()
			if err := waitall(rs, rr); err != nil {
				die(w.rank, err)
			}
			t2 := time.Now()
			t3 := t2
			if doTouch {
				touchRead(r)
				t3 = time.Now()
			}
			t.post += t1.Sub(t0)
			t.wait += t2.Sub(t1)
			t.touch += t0.Sub(ts) + t3.Sub(t2)
			t.total += t3.Sub(ts)
			if t.record {
				t.sp = append(t.sp, t1.Sub(t0).Seconds())
				t.sw = append(t.sw, t2.Sub(t1).Seconds())
				t.st = append(t.st, t3.Sub(ts).Seconds())
			}
		}
	}
	for _, size := range sizes {
		if *check {
			s, r := sb.Bytes()[:size], rb.Bytes()[:size]
			for i := range s {
				s[i] = byte((w.rank+1)*31 + i*7)
				r[i] = 0
			}
			xchg(size, 1, false, &times{})
			for i := range r {
				if r[i] != byte((peer+1)*31+i*7) {
					die(w.rank, fmt.Errorf("data check failed at size %d", size))
				}
			}
		}
		warm := 100
		if size > 8192 {
			warm = 20
		}
		if size > 262144 {
			warm = 5
		}
		warm = min(warm, *maxIters)
		xchg(size, warm, *touch, &times{})
		var wt times
		xchg(size, warm, *touch, &wt)
		worst := w.exchange([]float64{wt.total.Seconds()}, maxOf)[0]
		iters := *maxIters
		if per := worst / float64(warm); per > 0 {
			iters = int(*budgetMs * 1e-3 / per)
		}
		iters = min(max(iters, *minIters), *maxIters)
		if err := uw.Barrier(); err != nil {
			die(w.rank, err)
		}
		t := times{record: true, sp: make([]float64, 0, iters), sw: make([]float64, 0, iters), st: make([]float64, 0, iters)}
		c0, v0, i0 := usage()
		w0 := time.Now()
		xchg(size, iters, *touch, &t)
		wall := time.Since(w0).Seconds()
		c1, v1, i1 := usage()
		n := float64(iters)
		v := []float64{t.post.Seconds() / n, t.wait.Seconds() / n, t.total.Seconds() / n, (c1 - c0) / wall,
			median(t.sp), median(t.sw), median(t.st), float64(v1-v0) / n, float64(i1-i0) / n, t.touch.Seconds() / n}
		avg := w.exchange(v, mean)
		mx := w.exchange(v, maxOf)
		if w.rank == 0 {
			fmt.Printf("osub bench=latency size=%d iters=%d post_us=%.4f wait_us=%.4f lat_us=%.4f lat_max_us=%.4f "+
				"post_p50_us=%.4f wait_p50_us=%.4f lat_p50_us=%.4f touch_us=%.4f cpu_pct=%.1f vcsw=%.3f ivcsw=%.3f\n",
				size, iters, avg[0]*1e6, avg[1]*1e6, avg[2]*1e6, mx[2]*1e6, avg[4]*1e6, avg[5]*1e6, avg[6]*1e6,
				avg[9]*1e6, avg[3]*100, avg[7], avg[8])
		}
	}
	sb.Free()
	rb.Free()
	reg.Free()
	comm.Free()
	if err := casperii.Finalize(); err != nil {
		die(w.rank, err)
	}
}

// waitall completes the requests with casperii.Waitall, as the C program
// does with MPI_Waitall (-wait-each: one by one with Request.Wait).
func waitall(reqs ...*casperii.Request) error {
	if !*waitEach {
		return casperii.Waitall(reqs...)
	}
	for _, r := range reqs {
		if _, err := r.Wait(); err != nil {
			return err
		}
	}
	return nil
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
