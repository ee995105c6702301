package user

/*
#include "user.h"
#include "route.h"
*/
import "C"

import (
	"fmt"
	"math"
	"os"
	"runtime"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/casperii/casperii/internal/mpi"
)

// Counts are one member's route counters for a communicator (route.c):
// what it sent and did not see received, what it has pending, and whether
// it lost count.
type Counts struct {
	Unmatched int64 // messages sent minus receives completed with a message
	Pending   int64 // receives and blocking probes not finished
	Stuck     int64 // 1 if something could not be counted
}

// Quiescent reports whether counts summed over all members prove that no
// message and no receive is in flight on the route.
func (c Counts) Quiescent() bool { return c.Unmatched == 0 && c.Pending == 0 && c.Stuck == 0 }

// CountsLocked returns this member's counts for comm's current entry; the
// caller holds Lock.
func CountsLocked(comm mpi.Comm) (Counts, error) {
	var out [3]C.int64_t
	if C.csp_route_counts(C.MPI_Comm(comm.Raw()), &out[0]) != 0 {
		return Counts{}, fmt.Errorf("user: no entry for communicator %#x", uint32(comm.Raw()))
	}
	return Counts{int64(out[0]), int64(out[1]), int64(out[2])}, nil
}

// SumLocked sums in over comm's members into out (len(out) == len(in)); a
// collective call. The caller holds Lock.
func SumLocked(comm mpi.Comm, in, out []int64) error { return Sum(comm, in, out) }

// Sum is SumLocked for values read without the lock: under
// MPI_THREAD_MULTIPLE it is a blocking Allreduce, which must not hold the
// lock unless no post may slip in.
func Sum(comm mpi.Comm, in, out []int64) error {
	if len(in) == 0 || len(out) != len(in) {
		return fmt.Errorf("user: SumLocked: %d values into %d", len(in), len(out))
	}
	rc := C.csp_route_sum(C.MPI_Comm(comm.Raw()), (*C.int64_t)(unsafe.Pointer(&in[0])),
		(*C.int64_t)(unsafe.Pointer(&out[0])), C.int(len(in)))
	if rc != C.MPI_SUCCESS {
		return mpi.CodeError(int(rc), "MPI_Allreduce")
	}
	return nil
}

// CountSumLocked puts this member's counts for comm's current entry into
// in[at], in[at+1], in[at+2] (Unmatched, Pending, Stuck; a member without
// an entry counts as stuck, so that it never proves quiescent but still
// takes part) and sums in over comm's members into out, as SumLocked: one
// call into C for both. The caller holds Lock.
func CountSumLocked(comm mpi.Comm, in, out []int64, at int) error {
	if len(in) == 0 || len(out) != len(in) || at < 0 || at+3 > len(in) {
		return fmt.Errorf("user: CountSumLocked: %d values into %d, counts at %d", len(in), len(out), at)
	}
	rc := C.csp_route_count_sum(C.MPI_Comm(comm.Raw()), (*C.int64_t)(unsafe.Pointer(&in[0])),
		(*C.int64_t)(unsafe.Pointer(&out[0])), C.int(len(in)), C.int(at))
	if rc != C.MPI_SUCCESS {
		return mpi.CodeError(int(rc), "MPI_Allreduce")
	}
	return nil
}

// FamCount is a family's count of the blocking collectives on its watched
// communicators, in C memory (struct csp_fam): the collectives count
// there, and call the runtime (csp_go_coll_check) only once the count
// reaches the one set with SetNext. It lives as long as the process.
type FamCount struct{ c *C.struct_csp_fam }

// NewFamCount returns a count at zero, due at once.
func NewFamCount() FamCount {
	c := (*C.struct_csp_fam)(C.calloc(1, C.sizeof_struct_csp_fam))
	if c == nil {
		panic("user: out of memory for a family count")
	}
	return FamCount{c}
}

// N returns the collectives counted so far (modulo 2^32).
func (f FamCount) N() uint32 { return uint32(f.c.ncoll) }

// SetNext makes the collective that brings the count to n call the runtime.
func (f FamCount) SetNext(n uint32) { f.c.next = C.uint32_t(n) }

// Due reports whether the count has reached the one set with SetNext.
func (f FamCount) Due() bool { return int32(f.c.ncoll-f.c.next) >= 0 }

// Watch makes the blocking collectives on comm count in f and call the
// runtime when f is due (csp_go_coll_check), or stops it.
func Watch(comm mpi.Comm, on bool, f FamCount) {
	v := C.int(0)
	if on {
		v = 1
	}
	C.csp_route_watch(C.MPI_Comm(comm.Raw()), v, f.c)
}

// Profile is the process's self-profile since the runtime started it
// (prof.c), cumulative.
type Profile struct {
	MPINS, SleepNS, CollNS, Waits, Bytes uint64
	// WinNS: the application's time between its posts and its next
	// waiting calls (prof.c), the compute a message can overlap.
	WinNS uint64
	// SampWinNS, SampCPUNS: of the sampled windows (prof.c: every
	// fourth at least sampleMinWin long), their length and the thread's
	// CPU time in them.
	SampWinNS, SampCPUNS uint64
}

// sampleMinWin: windows shorter than this are not sampled (prof.c:
// csp_prof_sample_open). Two reads of the thread's CPU clock take 0.7 us
// here, under 1% of such a window at one sample in four; and a window
// shorter than two hand-offs between a user and its ghost (about 14 us
// here) gives the ghost nothing whatever its user does in it.
const sampleMinWin = 20 * time.Microsecond

// profClock converts the profile's ticks (prof.c: csp_prof_now) into
// nanoseconds at the rate csp_prof_ns_per_tick measures since MPI_Init.
// Each reading converts only what the counters gained since the previous
// one, at the rate of the moment: the totals stay monotone while the
// rate's error (the skew of a pair over the time since MPI_Init) shrinks.
var profClock struct {
	mu                       sync.Mutex
	last                     [5]uint64 // the raw tick counters at the last reading
	mpi, sl, coll, win, samp float64   // their totals, nanoseconds
	waits, timed             uint64    // the waiting calls, and those timed, at the last reading
}

// clockIsTSC reports whether the kernel keeps its clock on the TSC (it
// then found the TSC invariant and synchronized across CPUs).
func clockIsTSC() bool {
	if runtime.GOARCH != "amd64" && runtime.GOARCH != "386" {
		return false
	}
	b, err := os.ReadFile("/sys/devices/system/clocksource/clocksource0/current_clocksource")
	return err == nil && strings.TrimSpace(string(b)) == "tsc"
}

// startProfileClock chooses the profile's clock and reads the first pair
// (at MPI_Init, before any communicator can turn the profile on).
func startProfileClock() {
	tsc := C.int(0)
	if clockIsTSC() {
		tsc = 1
	}
	C.csp_prof_clock_start(tsc)
}

// ProfileOn starts or stops the self-profile.
func ProfileOn(on bool) {
	v := C.int(0)
	if on {
		v = 1
		setSampleMin(float64(C.csp_prof_ns_per_tick()))
	}
	C.csp_u.prof = v
}

// setSampleMin sets the shortest window sampled (sampleMinWin) in the
// profile's ticks, at rate nanoseconds per tick. Under
// MPI_THREAD_MULTIPLE none is: a window's ends may be different threads',
// whose CPU clocks are not one clock (and the routes never change there).
func setSampleMin(rate float64) {
	if C.csp_u.multiple != 0 {
		C.csp_u.prof_samp_min, C.csp_u.prof_short_t = 0, 0
		return
	}
	C.csp_u.prof_samp_min = C.uint64_t(math.Max(1, float64(sampleMinWin.Nanoseconds())/rate))
	C.csp_u.prof_short_t = C.uint64_t(float64(lightBelow.Nanoseconds()) / rate)
}

// lightBelow: a timed waiting call and the window before it both shorter
// than this make the next seven light (user.h: counted, not timed). Two
// reads of the clock and the window's were 25-35 ns of a 230-320 ns
// exchange of 8-512 B here (auto's latency 1.10-1.19x plain MPICH's);
// exchanges that short are all alike, and offload never pays for them.
const lightBelow = 5 * time.Microsecond

// ReadProfile returns the process's profile counters.
func ReadProfile() Profile {
	u := &C.csp_u
	rate := float64(C.csp_prof_ns_per_tick())
	raw := [5]uint64{uint64(u.prof_mpi_t), uint64(u.prof_sleep_t), uint64(u.prof_coll_t), uint64(u.prof_win_t), uint64(u.prof_samp_win_t)}
	pc := &profClock
	pc.mu.Lock()
	defer pc.mu.Unlock()
	// Light waits (user.h) were counted but not timed, nor their
	// windows: the timed ones since the last reading stand for them.
	waits, timed := uint64(u.prof_waits), uint64(u.prof_waits_timed)
	scale := float64(C.csp_prof_scale(C.uint64_t(waits-pc.waits), C.uint64_t(timed-pc.timed)))
	pc.waits, pc.timed = waits, timed
	pc.mpi += float64(raw[0]-pc.last[0]) * rate * scale
	pc.sl += float64(raw[1]-pc.last[1]) * rate
	pc.coll += float64(raw[2]-pc.last[2]) * rate
	pc.win += float64(raw[3]-pc.last[3]) * rate * scale
	pc.samp += float64(raw[4]-pc.last[4]) * rate
	pc.last = raw
	setSampleMin(rate)
	return Profile{MPINS: uint64(pc.mpi), SleepNS: uint64(pc.sl), CollNS: uint64(pc.coll),
		Waits: waits, Bytes: uint64(u.prof_bytes), WinNS: uint64(pc.win),
		SampWinNS: uint64(pc.samp), SampCPUNS: uint64(u.prof_samp_cpu_ns)}
}

// TakeSentLocked returns the messages and bytes sent on comm's current
// entry since the last call, and resets them; the caller holds Lock.
func TakeSentLocked(comm mpi.Comm) (msgs, bytes uint64) {
	var m, b C.uint64_t
	C.csp_route_take_sent(C.MPI_Comm(comm.Raw()), &m, &b)
	return uint64(m), uint64(b)
}
