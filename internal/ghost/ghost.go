// Package ghost is the ghost side of CasperII: the engine that drains its
// users' submission rings, validates each cell, reposts the operation on an
// internal communicator, tests outstanding operations in batches, writes
// results back and wakes users that sleep.
//
// A ghost shares its node's cores with the users it serves. When it has
// nothing queued and nothing outstanding it parks on its doorbell (a futex
// the users ring only after reading that it is parked); with outstanding
// operations it polls MPI, backing off to yields and short sleeps when
// nothing happens for a while.
package ghost

import (
	"fmt"
	"os"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/casperii/casperii/internal/channel"
	"github.com/casperii/casperii/internal/mpi"
	"github.com/casperii/casperii/internal/shm"
	"github.com/casperii/casperii/postcell"
	"github.com/casperii/casperii/spsc"
	"github.com/casperii/casperii/tagenc"
)

// UserInfo identifies a user served by the ghost.
type UserInfo struct {
	WRank, Pid, Fd int
}

// Config is what the ghost needs from MPI_Init.
type Config struct {
	WRank     int
	WorldSize int
	Users     []UserInfo
	Control   *channel.Ghost
	Pool      []mpi.Comm // internal communicators, by slot
	TagUB     int        // the implementation's MPI_TAG_UB
	Tags      *tagenc.Layout
	Log       func(format string, args ...any) // warnings and errors; never nil
	Verbose   bool
	// Backoff with outstanding operations, by time since the last event:
	// poll without pause for Spin, then yield the core between polls until
	// Yield, then nap for Nap between polls (a user's post ends a nap at
	// once). Without outstanding operations the ghost parks after Spin.
	Spin, Yield, Nap time.Duration
	// Park: with nothing outstanding, poll this long after the last event
	// before parking (a post then needs no doorbell).
	Park    time.Duration
	HandOff bool // yield the core after waking a user
	// RMAWin is the internal window of redirected RMA (rma.go; WinNull
	// when off); while it exposes memory, no sleep is longer than RMAPoll,
	// and RMASpin says how it polls (rmaserve.go).
	RMAWin  mpi.Win
	RMAPoll time.Duration
	RMASpin RMASpin
	// RMABoost, if set, runs when the first redirected window is exposed
	// (rmaserve.go: the first lock word watched; the
	// runtime raises the ghost's priority: core/priority.go).
	RMABoost func()
}

// Ghost is one ghost process's engine.
type Ghost struct {
	cfg   Config
	users []*user
	live  int // users that have not finalized
	bell  shm.Bell
	hdr   *channel.GhostHdr

	// Outstanding MPI operations, in parallel arrays for Testsome.
	reqs []mpi.Request
	pend []pending
	idx  []int32
	sts  []mpi.Status
	// largest is the largest buffer among the outstanding operations
	// (track raises it, test lowers it as they complete).
	largest uint64

	probes []probe // blocking native probes waiting for a message
	match  *matcher
	batch  [64]uint64
	busy   uint32  // last value stored in hdr.Busy (give.go)
	watch  watcher // users that die without MPI_Finalize (liveness.go)

	rmaAttached int      // segments exposed in Config.RMAWin (rma.go)
	rma         rmaState // activity on the windows (rmaserve.go)

	Stats Stats
}

// Stats counts the ghost's work.
type Stats struct {
	Cells, Posted, Completed, Rejected, Parks, Wakes uint64
	ParkProgress                                     uint64 // MPI progress calls just before an idle park
	Unrung                                           uint64 // parks that timed out on cells posted without a ring
	GiveBacks                                        uint64 // users that lent their core, woken when a round found nothing to do
	RMARounds                                        uint64 // progress calls made to serve windows (rmaserve.go)
	RMABursts                                        uint64 // epochs seen on a watched lock word that started polling on every round
	RMAInMPIPolls                                    uint64 // idle window polls kept short because a user waited in MPI
}

// pending is an outstanding MPI request; u is nil for the ghost's own
// (acks), sync is set for ghost-matched synchronous sends.
type pending struct {
	u     *user
	cell  uint32
	gen   uint32
	op    postcell.Op
	sync  *syncSend
	bytes uint64 // the buffer's length (transferWindow)
}

type probe struct {
	u    *user
	cell uint32
	req  postcell.Request
}

// New attaches the users' channels.
func New(cfg Config) (*Ghost, error) {
	g := &Ghost{cfg: cfg, hdr: cfg.Control.Hdr}
	bell, err := shm.NewBell(unsafeAddr(&g.hdr.Doorbell))
	if err != nil {
		return nil, err
	}
	g.bell = bell
	for _, ui := range cfg.Users {
		u, err := newUser(g, ui)
		if err != nil {
			g.Close()
			return nil, err
		}
		g.users = append(g.users, u)
	}
	g.live = len(g.users)
	g.match = newMatcher(g)
	// Errors of the ghost's operations must come back as codes (and be
	// passed to the user), never abort the job: on the internal
	// communicators, and on the world, where MPICH reports errors of calls
	// without a communicator (MPI_Testsome).
	for _, c := range append([]mpi.Comm{mpi.CommWorld}, cfg.Pool...) {
		if err := c.SetErrhandler(mpi.ErrorsReturn); err != nil {
			return nil, fmt.Errorf("ghost: error handler on an internal communicator: %w", err)
		}
	}
	return g, nil
}

// Close unmaps everything.
func (g *Ghost) Close() {
	for _, u := range g.users {
		u.close()
	}
}

// Run serves the users until all have finalized and nothing is
// outstanding.
func (g *Ghost) Run() error {
	last := time.Now()
	for g.live > 0 || len(g.reqs) > 0 {
		g.watchUsers()
		did := g.drain()
		did += g.test()
		did += g.retryProbes()
		did += g.match.poll()
		g.publishBusy()
		if did > 0 {
			last = time.Now()
			continue
		}
		g.giveBack()
		g.rest(time.Since(last))
	}
	atomic.StoreUint32(&g.hdr.State, channel.GhostExited)
	return nil
}

// drain takes new cells from every live user's ring.
func (g *Ghost) drain() int {
	n := 0
	for _, u := range g.users {
		if u.done || u.broken {
			continue
		}
		k, err := u.cons.PopBatch(g.batch[:])
		if err != nil {
			g.cfg.Log("ghost %d: user %d: submission ring is corrupt (%v); no longer serving it", g.cfg.WRank, u.wrank, err)
			u.broken = true
			g.live--
			continue
		}
		for _, v := range g.batch[:k] {
			g.dispatch(u, v)
		}
		n += k
	}
	g.Stats.Cells += uint64(n)
	return n
}

// idleSpin is how long a ghost with nothing outstanding polls without
// yielding the core (less if Config.Spin is less).
const idleSpin = 200 * time.Microsecond

// maxPark bounds one sleep of an idle ghost: it then looks at its users
// (liveness) and gives MPI a progress call.
const maxPark = 200 * time.Millisecond

// rest backs off when a round found no work, idle being the time since
// the last event. With nothing outstanding the ghost parks until a user
// rings; otherwise it keeps polling MPI (a message can arrive any time),
// first without pause, then yielding the core between polls, then napping.
func (g *Ghost) rest(idle time.Duration) {
	if g.serveRMA() {
		return
	}
	if len(g.reqs) == 0 && len(g.probes) == 0 && !g.match.busy() {
		// Nothing of our users is outstanding, but MPI's progress engine
		// may still owe a peer the last steps of a transfer that
		// completed here: a rendezvous receive is done once the data
		// landed, and the sender's request only once this side's
		// progress engine sends the acknowledgement. The sender's user
		// may wait for that while ours waits for the sender (a barrier):
		// without progress here, a deadlock (seen: TestTwoNodes hung 1
		// time in 25 when the ghost was descheduled past Park). So an
		// idle ghost keeps calling MPI's progress: at every yield, and
		// on every wake from parks that lengthen with idleness (about
		// twice per doubling of idle time, at most maxPark apart).
		switch {
		case idle >= g.cfg.Park:
			g.progress()
			g.Stats.ParkProgress++
			g.park(g.rmaPoll(min(max(idle, time.Millisecond), maxPark)))
		case idle >= min(idleSpin, g.cfg.Spin):
			g.progress()
			yieldCPU()
		}
		return
	}
	switch {
	case idle < g.cfg.Spin:
	case idle < max(g.cfg.Yield, g.transferWindow()):
		yieldCPU()
	default:
		g.park(g.rmaPoll(g.cfg.Nap))
	}
}

// minTransferRate is a floor on how fast MPI moves a message the ghost
// has posted (shared memory here: 2.2-3.5 GB/s for 0.5-2 GiB, plain
// MPICH; over TCP about 1 GB/s).
const minTransferRate = 256 << 20 // bytes per second

// transferWindow is how long a transfer of the largest outstanding
// buffer may take at minTransferRate. A transfer completes nothing until
// its end, while every poll moves it on (MPICH pipelines a large message
// through its progress engine on both sides): a ghost that napped
// between polls after Config.Yield without an event moved 512 MiB at
// 1.4 GB/s instead of plain MPICH's 2.5 (and 2 GiB at 0.9-1.6), so it
// keeps yielding instead, for as long as such a transfer can last.
func (g *Ghost) transferWindow() time.Duration {
	return time.Duration(float64(g.largest) / minTransferRate * float64(time.Second))
}

// progress gives MPI's progress engine one turn (an Iprobe on the world,
// where no ghost receives, so it matches nothing of ours).
func (g *Ghost) progress() {
	if _, err := mpi.Iprobe(mpi.AnySource, mpi.AnyTag, mpi.CommWorld, nil); err != nil {
		g.cfg.Log("ghost %d: Iprobe for progress: %v", g.cfg.WRank, err)
	}
}

// park sleeps on the doorbell: the ghost's half of the park handshake
// (channel.h states it; GhostHdr.Park here, csp_ghost_unpark on the user's
// side). The parked flag is set before the last look at the rings, so a
// user publishing after that look sees it and rings. When the header says
// Membarrier, the user's barrier is only a compiler barrier and this side
// pays for both with a global membarrier (0.5 us, once per park, against
// a fence on every post).
//
// A short sleep that serves windows (rmaPark) skips the membarrier: it
// interrupts every CPU running a user, and a ghost polling windows every
// 100 us paid it 10,000 times a second, stretching a computing target's
// compute by a tenth. Without it a post that races the park may not ring;
// its cell then waits for the sleep's end, at most the timeout.
func (g *Ghost) park(timeout time.Duration) {
	seq := g.bell.Seq()
	g.hdr.Park() // release the flag before the last look at the rings
	if g.hdr.Membarrier == 1 && !g.rmaPark(timeout) {
		if err := shm.GlobalBarrier(); err != nil {
			// Worked at start: the system changed under us. Users
			// skip their fence, so never sleep without it.
			g.hdr.Unpark()
			yieldCPU()
			return
		}
	}
	if !g.queued() {
		g.Stats.Parks++
		g.bell.Sleep(seq, timeout)
		// Nobody rang (the flag is still up, the bell unchanged) yet a
		// ring holds cells: published without a ring, unless its poster
		// is right between publishing and its look at the flag.
		if g.hdr.StillParked() && g.bell.Seq() == seq && g.queued() {
			g.Stats.Unrung++
		}
		if timeout > time.Millisecond {
			g.checkUsers()
		}
	}
	g.hdr.Unpark() // up again: posts need no ring
}

// queued reports whether any live user's ring holds cells.
func (g *Ghost) queued() bool {
	for _, u := range g.users {
		if u.done || u.broken {
			continue
		}
		if n, err := u.cons.Len(); err != nil || n > 0 {
			return true
		}
	}
	return false
}

// checkUsers notices users that died without finalizing.
func (g *Ghost) checkUsers() {
	for _, u := range g.users {
		if u.done || u.broken {
			continue
		}
		if processGone(u.pid) {
			g.userDied(u)
		}
	}
}

// wakeUsers rings the users whose operations completed and who sleep,
// unless the user sleeps for one cell (its WaitCell) that is not done yet:
// then its other completions need not wake it.
// Having woken someone, the ghost yields its core: on a node where users
// and ghosts share cores, the woken user should run now, not after the
// ghost's time slice.
func (g *Ghost) wakeUsers() {
	woke := false
	for _, u := range g.users {
		if !u.completed {
			continue
		}
		u.completed = false
		// The wake handshake (channel.h): the cells are complete; load
		// what the user sleeps for, then bump its wake word.
		h := u.ch.Hdr
		if h.Sleeping() && u.waitOver() {
			if seq, lending := h.Lending(); lending {
				u.gaveBack = seq // answered (give.go)
			}
			if h.WakeUser() > 0 {
				woke = true
			}
			g.Stats.Wakes++
		}
	}
	if woke && g.cfg.HandOff {
		yieldCPU()
	}
}

// complete publishes the result of a cell to its user.
func (g *Ghost) complete(u *user, cell uint32, gen uint32) {
	u.ch.Cells.At(cell).Complete(gen)
	u.completed = true
	g.Stats.Completed++
}

// fail completes a cell with an MPI error class and logs why.
func (g *Ghost) fail(u *user, cell uint32, gen uint32, class int, why error) {
	c := u.ch.Cells.At(cell)
	c.StError = int32(class)
	c.StFlags = 0
	c.StBytes = 0
	g.cfg.Log("ghost %d: user %d cell %d: %v", g.cfg.WRank, u.wrank, cell, why)
	g.Stats.Rejected++
	g.complete(u, cell, gen)
}

func logToStderr(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "casperii: "+format+"\n", args...)
}

var _ = spsc.ErrCorrupt
var _ = logToStderr

// yieldCPU gives the core to another runnable thread. It is a raw system
// call: sched_yield never blocks, and telling the Go runtime about it
// (entersyscall) lets sysmon take the processor away whenever the yield
// lasts a scheduler tick, which starts a spinning runtime thread on this
// core for nothing.
func yieldCPU() {
	syscall.RawSyscall(syscall.SYS_SCHED_YIELD, 0, 0, 0)
}

// setTimerSlack sets how late the calling thread's timed sleeps may end
// (PR_SET_TIMERSLACK; called from Run's thread, to which the cgo call that
// started the ghost locks it). Best effort: the default is 50 us.
func setTimerSlack(d time.Duration) {
	const prSetTimerSlack = 29
	syscall.RawSyscall(syscall.SYS_PRCTL, prSetTimerSlack, uintptr(d.Nanoseconds()), 0)
}
