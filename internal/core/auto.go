package core

import (
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/casperii/casperii/info"
	"github.com/casperii/casperii/internal/calib"
	"github.com/casperii/casperii/internal/user"
)

// The automatic choice (async_config=auto, CSP_ASYNC_CONFIG=auto): a
// communicator starts on the direct route and the runtime switches it to
// the ghosts and back at its family's collectives (family.go), when the
// members' summed estimates say offload pays, or costs, more than a share
// theta of their time. The paper's self-profiling, for point-to-point:
//
// Each member profiles, per epoch (between two evaluations of the family),
// its time inside MPI calls that wait (A = the rest, the application's
// time), how much of that was asleep, its collectives, its CPU time, and
// per communicator the messages and bytes it sent. Offload gains what the
// ghost can move while the application runs: at most the communication
// time the direct route spends waiting (measured off; on, the residual wait
// plus the transfer the ghost overlapped), at most the application time
// while messages are in flight (between a post and the next wait) that
// the ghost can have: all of it when the ghosts have cores of their own,
// the part the application leaves idle on a host whose cores it shares
// with its ghost (on such a host a ghost only runs while its user sleeps,
// docs/design.md section 7), less a wake-up per wait. It costs, per
// message, what an offloaded exchange takes more than a direct one when
// nothing overlaps (the calibration: casperii calibrate, CSP_CALIBRATION;
// built in: figures of the development machine), or, measured while on,
// what the waits took beyond a direct transfer when that is more (on a
// loaded host a ghost waits for its core). The decision is the
// members' sums: on when the gain exceeds the cost by theta of their time,
// off when the cost exceeds the gain by as much (hysteresis: noise in
// between changes nothing).

// autoTheta is the share of the members' time by which offload must win
// (or lose) before the route changes.
const autoTheta = 0.03

// autoMinVotes: evaluations in a row that must want offload before the
// automatic choice switches it on (autoTarget).
const autoMinVotes = 2

// A strong vote counts as two: an epoch whose estimate wants offload by
// autoStrong of the members' time and in which every member waited
// autoStrongWaits times on average. The second vote guards against an
// accident of one epoch (the first iteration over fresh buffers, a time
// slice lost to another process: a CPU-bound phase's first epoch of one
// iteration estimated +44%); an epoch of many waits that all wanted
// offload by far is not one, and waiting for a second such epoch cost a
// phase that few of them make its first one (osubench's halo sweep: 8
// rounds per size, the warm-up estimated +49-50%, offload on from the
// third round). Far: test/cprogs/ip_auto.c's busy phase, where offload
// loses 20-40%, reads up to +21% in epochs of 8 waits and more (at 15%
// one such epoch switched it on in a CI run). Only while no offloaded
// period of the communicator has failed beyond the first (onFailures <=
// 1): a failure still doubles the votes needed; and only where the last
// verdict was not against offload (family.go): where phases alternate,
// one epoch promises nothing for the next.
const (
	autoStrong      = 0.25
	autoStrongWaits = 8
)

// autoStrongPhase: an epoch that wants offload by this share of the
// members' time, in as many waits, counts as two verdicts for its phase's
// memory (autosite.go: learnSite), whatever the phase before it wanted:
// a phase then runs offloaded from its second occurrence, not its third.
// osubench's overlap loop gives each size 8 rounds of its phases, and two
// of them on the direct route left static offload's gain at 1 MiB with
// sleep compute at most 75%. A wrong such verdict costs one epoch: the
// next, offloaded, is measured against the direct one (autosite.go).
const autoStrongPhase = 0.10

// model is the automatic choice's cost model.
type model struct {
	table *calib.Table // ping-pong exchange times, direct and through the ghosts
	// handoffUS: the smallest exchange's extra through the ghosts (the
	// hand-offs between users and ghosts), which overlaps nothing.
	handoffUS float64
	oversub   bool // ghosts share cores with users
	// usersOversub: the host runs more users than cores and direct waits
	// spin in MPICH (CSP_DIRECT_YIELD=off), so one holds a core a late
	// peer needs; where they yield it (the default there), they do not.
	usersOversub bool
	source       string
}

// builtinCalibration: osub-latency medians (post + wait, no compute,
// untouched) on the development machine, 2 nodes x (1 user + 1 ghost) on 2
// cores, MPICH 4.0.2 ch4:ucx: casperii calibrate --reps 5, 2026-11-25.
var builtinCalibration = []calib.Point{
	{Size: 8, DirectUS: 0.63, OffloadUS: 7.52}, {Size: 64, DirectUS: 0.73, OffloadUS: 7.60},
	{Size: 512, DirectUS: 0.92, OffloadUS: 7.80}, {Size: 4096, DirectUS: 2.51, OffloadUS: 9.79},
	{Size: 16384, DirectUS: 4.72, OffloadUS: 12.29}, {Size: 65536, DirectUS: 8.04, OffloadUS: 15.91},
	{Size: 262144, DirectUS: 21.98, OffloadUS: 31.10}, {Size: 1048576, DirectUS: 85.10, OffloadUS: 107.86},
	{Size: 4194304, DirectUS: 347.93, OffloadUS: 431.96},
}

func newModel(cfg Config, oversub, usersOversub bool) (*model, error) {
	m := &model{oversub: oversub, usersOversub: usersOversub, source: "built in", table: &calib.Table{Points: builtinCalibration}}
	if cfg.Calibration != "" {
		f, err := os.Open(cfg.Calibration)
		if err != nil {
			return nil, fmt.Errorf("CasperII: CSP_CALIBRATION: %w; write one with casperii calibrate, or unset it", err)
		}
		defer f.Close()
		t, err := calib.Parse(f)
		if err != nil {
			return nil, fmt.Errorf("CasperII: CSP_CALIBRATION=%s: %w; write it again with casperii calibrate", cfg.Calibration, err)
		}
		m.table, m.source = t, cfg.Calibration
	}
	// What the ghost loses of an idle period: its user's wake-up at its
	// end takes the core for about an exchange's extra cost at the
	// smallest size (two handoffs), and the ghost must be scheduled in.
	d, o := m.table.At(0)
	m.handoffUS = math.Max(0, o-d)
	return m, nil
}

// wakeUS is what a wake-up takes from the application's idle time: two
// hand-offs (newModel).
func (m *model) wakeUS() float64 { return 2 * m.handoffUS }

// The windows' automatic choice (internal/user/rmaauto.c): its built-in
// thresholds, unless the calibration file gives an rma_auto line. A
// window is redirected when the targets it accessed spent less than half
// their time in MPI, and no longer when they spent more than 80% there
// (the band between changes nothing: hysteresis, as Casper's LOW_CR and
// HIGH_CR). A target that enters MPI at least every 500 us counts as in
// MPI: plain MPICH's epoch to it then waits for about that long, which a
// redirected epoch costs here anyway (lock + accumulate + flush + unlock
// on an idle target: about 0.4-0.8 ms, docs/design.md section 11).
const (
	rmaLowCR        = 0.50
	rmaHighCR       = 0.80
	rmaMinStretchUS = 500
)

// rmaAuto is the windows' automatic choice: def, CSP_ASYNC_CONFIG=auto.
func (m *model) rmaAuto(def bool) user.RMAAuto {
	a := user.RMAAuto{Default: def, LowCR: rmaLowCR, HighCR: rmaHighCR, MinStretchUS: rmaMinStretchUS}
	if r := m.table.RMA; r != nil {
		a.LowCR, a.HighCR, a.MinStretchUS = r.LowCRPct/100, r.HighCRPct/100, r.MinStretchUS
	}
	return a
}

// epoch is one member's profile between two evaluations of a family:
// wall time; inside MPI calls that wait, asleep there, in collectives;
// on the CPU, and runnable but waiting for it (the scheduler's run queue:
// time the core was someone else's); waiting calls; bytes sent.
type epoch struct {
	wallUS, mpiUS, sleepUS, collUS, cpuUS, queueUS, waits, bytesAll float64
	// winUS: of the application's time, the part between a post and the
	// next waiting call, when something it posted may be in flight.
	winUS float64
	// sampWinUS, sampCPUUS: of the sampled windows (internal/user/prof.c:
	// every fourth at least 20 us long), their length and the thread's
	// CPU time in them.
	sampWinUS, sampCPUUS float64
}

// epoch takes this member's profile since f's previous evaluation. The
// thread's CPU and run-queue times enter the estimate only where ghosts
// share cores with users (net: the ghost's share of the application's
// idle time); elsewhere they stay zero and their two system calls, 6-9
// us of an evaluation after a phase that swept the caches (docs/design.md
// section 10), are not made.
func (r *runtime) epoch(f *family) epoch {
	now, p := time.Now(), user.ReadProfile()
	var cpu, queue int64
	if r.model.oversub {
		cpu, queue = threadSched()
	}
	e := epoch{
		wallUS:    float64(now.Sub(f.last).Microseconds()),
		mpiUS:     float64(p.MPINS-f.snap.MPINS) / 1e3,
		sleepUS:   float64(p.SleepNS-f.snap.SleepNS) / 1e3,
		collUS:    float64(p.CollNS-f.snap.CollNS) / 1e3,
		waits:     float64(p.Waits - f.snap.Waits),
		bytesAll:  float64(p.Bytes - f.snap.Bytes),
		winUS:     float64(p.WinNS-f.snap.WinNS) / 1e3,
		sampWinUS: float64(p.SampWinNS-f.snap.SampWinNS) / 1e3,
		sampCPUUS: float64(p.SampCPUNS-f.snap.SampCPUNS) / 1e3,
		cpuUS:     float64(cpu-f.cpuNS) / 1e3,
		queueUS:   float64(queue-f.queueNS) / 1e3,
	}
	f.last, f.snap, f.cpuNS, f.queueNS = now, p, cpu, queue
	return e
}

// schedstat is the application thread's /proc/thread-self/schedstat,
// kept open: an evaluation reads it with one pread where os.ReadFile
// opened, read and closed it (BenchmarkSchedstat: 1.6 us against 11.7 us
// on the development machine; the path resolution through /proc
// dominates).
var schedstat struct {
	sync.Mutex
	tid int
	f   *os.File
	buf [128]byte
}

// readSchedstat returns the calling thread's schedstat line.
func readSchedstat() ([]byte, error) {
	s := &schedstat
	s.Lock()
	defer s.Unlock()
	if tid := unix.Gettid(); s.f == nil || s.tid != tid {
		if s.f != nil {
			s.f.Close()
		}
		f, err := os.Open("/proc/thread-self/schedstat")
		if err != nil {
			s.f = nil
			return nil, err
		}
		s.f, s.tid = f, tid
	}
	n, err := s.f.ReadAt(s.buf[:], 0)
	if n == 0 {
		return nil, err
	}
	return s.buf[:n], nil
}

// threadSched returns the calling thread's time on the CPU and in the
// run queue (the application's thread: the runtime runs in its MPI
// calls). The CPU time comes from the thread's CPU clock: schedstat's
// first field is the scheduler's sum, which for a running thread is
// brought up to date only at a tick, a switch or a read of that clock,
// so read alone it lags by up to a tick (4 ms at HZ=250). In an epoch of
// one iteration of compute the lag showed as idle time the ghost could
// use, and the automatic choice offloaded a CPU-bound phase (epochs of
// 6 ms with 0.5-0.9 ms of such idle; one of 16 us of running with no CPU
// time at all). The queue time (schedstat's second field) changes only
// while the thread is off the CPU, so it is current. Without the clock,
// schedstat's CPU time; without schedstat, getrusage and no queue time.
func threadSched() (cpuNS, queueNS int64) {
	var ts unix.Timespec
	clockErr := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts) // first: it updates schedstat too
	cpuNS = ts.Nano()
	if b, err := readSchedstat(); err == nil {
		f := strings.Fields(string(b))
		if len(f) >= 2 {
			c, err1 := strconv.ParseInt(f[0], 10, 64)
			q, err2 := strconv.ParseInt(f[1], 10, 64)
			if err1 == nil && err2 == nil {
				if clockErr != nil {
					cpuNS = c
				}
				return cpuNS, q
			}
		}
	}
	if clockErr == nil {
		return cpuNS, 0
	}
	var ru syscall.Rusage
	const rusageThread = 1 // RUSAGE_THREAD
	if syscall.Getrusage(rusageThread, &ru) != nil {
		return 0, 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano(), 0
}

// xferTimes is what an exchange took per message on a communicator's
// direct route and through the ghosts, at one size class, in epochs with
// nothing in flight while the application ran (learnXfer; 0: none
// learned). off counts once two epochs gave it (offN).
type xferTimes struct {
	direct, off float64
	offN        int
}

// app is e's application time: outside MPI's waits and collectives.
func (e epoch) app() float64 { return math.Max(0, e.wallUS-e.mpiUS-e.collUS) }

// inFlight is the part of e's application time while messages were in
// flight (between a post and the next wait).
func (e epoch) inFlight() float64 { return math.Min(e.app(), e.winUS) }

// minSampled: the sampled windows speak for the time in flight once they
// cover this share of it (one window in four of those 20 us and longer
// is sampled: where the long windows are most of that time, the samples
// are about a quarter of it).
const minSampled = 0.1

// idleShare returns the share of the time in flight that the application
// left its core to others, where the samples of its windows measure it
// (ok false: too few samples). A core it waited for (the run queue) was
// someone else's, not idle: the epoch's share of that is taken off.
func (e epoch) idleShare() (share float64, ok bool) {
	if e.sampWinUS <= 0 || e.sampWinUS < minSampled*e.inFlight() {
		return 0, false
	}
	share = (e.sampWinUS - e.sampCPUUS) / e.sampWinUS
	if e.wallUS > 0 {
		share -= e.queueUS / e.wallUS
	}
	return math.Max(0, math.Min(1, share)), true
}

// waited is the part of e's waiting in MPI that a communicator carrying
// bytes of e's bytes takes (its share of the bytes sent).
func (e epoch) waited(bytes uint64) float64 {
	share := 1.0
	if e.bytesAll > 0 {
		share = math.Min(1, float64(bytes)/e.bytesAll)
	}
	return e.mpiUS * share
}

// net estimates, in microseconds over the epoch e, what offload gains
// minus what it costs for a communicator on which this member sent msgs
// messages of bytes in all; on: the communicator is offloaded now.
// offWait is this member's memory of the direct route: its wait per
// message when it last ran off (negative: none); net updates it. x is
// what an exchange of this size took on this communicator on each route,
// learned (learnXfer): where the direct one exceeds the calibration's,
// the calibration is not this job's transport (a table of shared memory,
// messages over a network), waits the length of a network transfer are
// not stalls, and the routes' difference is the one learned.
func (m *model) net(e epoch, on bool, msgs, bytes uint64, offWait *float64, x xferTimes) float64 {
	if msgs == 0 {
		return 0
	}
	app := e.app()
	avail := 1.0 // share of the time in flight the ghost can have
	wake := m.wakeUS()
	if m.oversub {
		// The application's idle time while its messages are in flight,
		// measured in its windows where they were sampled; else its idle
		// time over the epoch (off the CPU by its own choice: not
		// running, not waiting for the CPU, less what it slept in MPI)
		// taken as spread evenly over its time. The even spread
		// underestimated a loop that sleeps between post and wait and
		// touches its buffers outside (osubench's overlap at 1 MiB: 0.63
		// of its time idle, 0.83 of its windows; static offload gained
		// 28% in the epochs the estimate put at +9%).
		avail = 0
		if share, ok := e.idleShare(); ok {
			avail = share
			// The user's own way into its sleep and out of it is CPU
			// time of its windows, counted already: the ghost loses one
			// hand-off of its own per wait, not two.
			wake = m.handoffUS
		} else if app > 0 {
			idle := math.Max(0, e.wallUS-e.cpuUS-e.queueUS-e.sleepUS)
			avail = math.Min(1, idle/app)
		}
	}
	// What the ghost can have: its share of the application's time while
	// messages are in flight (between posts and the next wait: a
	// ping-pong that writes its buffer before each post and reads it
	// after each wait leaves it none), less a wake-up per wait.
	ghost := math.Max(0, e.inFlight()*avail-e.waits*wake)
	n := float64(msgs)
	d, o := m.table.At(int64(float64(bytes) / n))
	waited := e.waited(bytes) // this communicator's share of the waiting
	if x.direct > d {         // a transfer's time: the job's, where it learned more
		o += x.direct - d
		d = x.direct
	}
	if x.offN >= 2 { // the ghosts' exchange, learned
		o = x.off
	}
	// The ghost removes the direct route's waiting in the measure it can
	// move the data while the application is idle. And a wait for a
	// rendezvous message many times its transfer is a wait for progress
	// nobody made (peers computing, or spinning in MPICH on cores they
	// share): the ghosts make it while their users sleep in their waits,
	// idle or not.
	moved := 1.0
	if n*o > 0 {
		moved = math.Min(1, ghost/(n*o))
	}
	// The route's own cost: what an offloaded exchange takes more than a
	// direct one, less what of it the ghost does in the application's
	// idle time (the share moved), but never less than the hand-offs
	// between a user and its ghost (the smallest exchange's extra), which
	// fall on the application's own time.
	extra := math.Max(0, o-d)
	fixed := math.Min(extra, m.handoffUS)
	cost := n * (fixed + (1-moved)*(extra-fixed))
	var direct float64 // what the direct route waits
	if !on {
		direct = waited
		*offWait = waited / n
	} else {
		direct = n * d // no memory: a transfer's worth
		if *offWait >= 0 {
			direct = n * *offWait
		}
		// What the wait took beyond a direct transfer is offload's cost
		// too, when it exceeds the calibration's (a loaded host, where a
		// ghost waits for its core).
		cost = math.Max(cost, waited-n*d)
	}
	stall := 0.0
	gainable := direct
	if float64(bytes)/n >= stallMinBytes {
		stall = direct - stallFactor*n*d
	} else {
		// An eager message needs no progress at its receiver: a wait
		// beyond its transfer is a late peer (a server that answers
		// between slices of compute), which no ghost makes sooner.
		gainable = math.Min(direct, n*d)
	}
	// Where users outnumber cores and direct waits spin in MPICH
	// (CSP_DIRECT_YIELD=off), a direct wait holds a core that the peer
	// it waits for may need: a wait of scheduler time slices, at any
	// size, which the ghost route's sleeping waits do not cause.
	if m.usersOversub {
		stall = math.Max(stall, direct-n*math.Max(crowdedStallFactor*d, spinStallUS))
	}
	return math.Max(gainable*moved, stall) - cost
}

// spinStallUS: on a host with more users than cores whose direct waits
// spin (CSP_DIRECT_YIELD=off), a direct wait longer than this per message
// is counted as a wait for the core (net), not for the data. Measured
// here: a halo exchange of 4 x 1 KiB among 4 users on
// 2 cores with compute on the CPU waits about 900 us per message (plain
// MPICH 4 ms per iteration; through the ghosts 0.7 ms), with sleep compute
// about 18 us (offload gains nothing).
const spinStallUS = 100

// stallMinBytes: smaller messages travel eagerly, without MPI's progress
// at the receiver; a long wait for one is a late peer, which no ghost
// makes sooner.
const stallMinBytes = 16384

// stallFactor: a direct wait longer than this many transfers is counted
// as a wait for progress (net). Measured here: a touched exchange
// overlapped with compute on the CPU waits 2.7 transfers at 1 MiB and
// 3.6-5.4 at 4 MiB (epochs of 32 iterations of test/cprogs/ip_auto.c's
// busy phase; offload loses 20-40% there), so at 4 the estimate of that
// phase voted for offload in some runs; a halo exchange of 4 x 64 KiB
// among 4 users on 2 cores waits 200 (offload gains 9x).
const stallFactor = 8

// crowdedStallFactor: stallFactor where users outnumber cores, where a
// direct wait also spins on a core a peer needs. osubench's halo (4 users
// on 2 cores) at 1 MiB: counted from 4 transfers the automatic choice
// offloads it (0.62-0.69x plain MPICH); from 8, it stayed direct in
// some runs (0.94-0.97x, static offload 0.6x).
const crowdedStallFactor = 4

// isAuto reports whether a communicator with hints h chooses its route
// itself.
func (r *runtime) isAuto(h info.Hints) bool {
	if !r.canSwitch() {
		return false
	}
	if _, set := h.AsyncConfig(); set {
		return h.AsyncAuto()
	}
	return r.cfg.AsyncAuto
}

// autoTarget turns m's summed estimate (net over wall microseconds of
// the members' time) into a pending switch, or withdraws one the
// estimate no longer wants. Called only for epochs in which some member
// sent messages on m: an epoch between two collectives with no traffic
// (a barrier right after another) is no evidence, and must neither break
// a streak of votes nor withdraw the switch it earned.
func (r *runtime) autoTarget(m *commState, net, wall float64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	m.phaseOn = false
	on := m.plan.Offloaded()
	want := on
	defer func() { m.fresh = false }() // judged: one epoch is grace enough
	switch {
	case !on && net > autoTheta*wall:
		// Two votes in a row at least: one epoch's estimate can be an
		// accident (a first touch of fresh buffers, a time slice lost to
		// another process: a CPU-bound phase's first epoch of one
		// iteration estimated +44% and switched it on). Offload that
		// turned out worse than estimated needs more each time: 2, 2, 4,
		// ... 16 evaluations.
		m.onVotes++
		need := max(autoMinVotes, 1<<min(m.onFailures, 4))
		if m.strong && m.onFailures <= 1 {
			need = 1
		}
		want = m.onVotes >= need
	case !on:
		m.onVotes = 0
	case net < -autoTheta*wall && m.fresh:
		// The first epoch on the ghosts carries the route's first
		// touches (the ghosts map and fault in the buffers; osubench's
		// halo at 1 MiB: -10% in that epoch, then +5-16% in every one
		// after), and leaving on it cost the comeback that a failure
		// doubles (4 votes, 4 of the 8 rounds). A second such epoch
		// decides.
	case net < -autoTheta*wall:
		want = false
		if !m.uncertain { // else: back to the direct route to learn its waits at these sizes
			m.onFailures++
		}
		m.onVotes = 0
	case net > autoTheta*wall:
		m.onFailures = 0 // offload confirmed itself
	}
	m.setAutoTarget(on, want)
}

// setAutoTarget makes a switch to the route want pending, or withdraws
// the one pending where want is the route in use (on). Called with r.mu
// held.
func (m *commState) setAutoTarget(on, want bool) {
	if want == on {
		m.pending = nil // a target it wanted before (it holds no resources of its own)
		return
	}
	if m.pending != nil {
		return
	}
	target := m.directPlan()
	if want {
		target = m.onPlan
	}
	m.pending = &pendingSwitch{plan: target, regist: m.regist, auto: true}
}

// noteRoute accounts the time since the last change of route to the
// route in use (called before it changes, and at the end).
func (st *commState) noteRoute() {
	now := user.MonoNS()
	if st.since != 0 {
		k := 0
		if st.plan.Offloaded() {
			k = 1
		}
		st.routeNS[k] += now - st.since
	}
	st.since = now
}

// printRoutes prints, under CSP_STATS, one casperii-route line per
// communicator that chose its route or changed it: its switches and its
// time on each route.
func (r *runtime) printRoutes(urank int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.readToggles()
	seen := map[*commState]bool{}
	for _, f := range r.famList {
		for _, st := range f.members {
			if seen[st] || (!st.auto && st.switches == 0) {
				continue
			}
			seen[st] = true
			st.noteRoute()
			fmt.Fprintf(os.Stderr, "casperii-route rank=%d comm=%#x auto=%t route=%v switches=%d on_ms=%.1f off_ms=%.1f\n",
				urank, uint32(st.comm.Raw()), st.auto, st.plan.Algorithm, st.switches,
				float64(st.routeNS[1])/1e6, float64(st.routeNS[0])/1e6)
		}
	}
}
