package ghost

import (
	"sync/atomic"
	"time"

	"github.com/casperii/casperii/postcell"
)

// Serving redirected windows. Origins on other nodes reach a ghost only
// through MPI, so a ghost exposing a redirected window must call MPI's
// progress engine often enough for their operations to complete while its
// users compute, and a round trip of an epoch (lock, flush, release)
// takes one to two progress calls here. How often depends on whom the
// ghost shares its CPUs with (Config.RMASpin, decided at MPI_Init):
//
//   - RMASpinAlone: no user and no other ghost runs on its CPUs (a core
//     per ghost, Casper's layout): it calls progress on every round and
//     never parks while it serves windows. It costs nobody anything.
//   - RMASpinNo: it shares a core with users, whose compute every poll
//     takes time from (a wake-up preempts a computing user: polling every
//     100 us stretched a computing target's compute by 22-27% here, every
//     1 ms by 3.5%). Idle, it polls on a timer (a park with a timeout)
//     that starts at rmaPollMin after an epoch and doubles at every poll
//     that sees none, up to Config.RMAPoll (rmaPollMin while one of its
//     users waits in a blocking MPI call, the in-MPI word of channel.h:
//     then nobody computes that a poll would delay); while an epoch is active on
//     one of its users' windows it polls on every round (a burst), so that
//     the rest of the epoch does not wait for the next poll.
//
// A ghost that shares its CPUs with other ghosts only is RMASpinNo too.
// Polling on every round, yielding, shares the CPU with the idle ghosts
// beside it: two ghosts on one CPU, one serving epochs back to back, took
// 45 us per epoch that way, the idle one making 3 of every 4 rounds; with
// the idle one polling every 10 us, 190 us (its wake-ups preempt the
// serving one); polling in bursts, 11 us.
//
// An epoch is seen through the windows' lock words (internal/user/rma.h):
// every user asks its ghost to watch the word of each redirected window
// it exposes (CSP_OP_WIN_WATCH), and the ghost loads them on every round.
// A change (a lock taken or given back) starts a burst, which lasts
// rmaGrace after the last change, and up to rmaHold while a lock is held:
// an epoch's operations follow its lock within microseconds, and a lock
// held for a long time without change (lock_all for the whole run) must
// not keep the ghost polling a computing user's core.
//
// Invariant: g.watches holds exactly the words users asked for that lie in
// segments the ghost maps; an entry is dropped before its mapping goes
// away (user.unmap), so every word it loads is mapped.

// RMASpin says how a ghost serving windows shares its CPUs.
type RMASpin int

const (
	RMASpinNo    RMASpin = iota // shares its CPUs: poll, and burst on epochs
	RMASpinAlone                // its CPUs are its own: poll every round
)

func (s RMASpin) String() string {
	switch s {
	case RMASpinAlone:
		return "alone"
	}
	return "no"
}

const (
	// rmaGrace: a burst goes on this long after the last change of a lock
	// word (the next epoch of a loop of epochs starts within it).
	rmaGrace = 50 * time.Microsecond
	// rmaHold: while a lock is held, a burst goes on this long after the
	// last change, then waits for the next change or poll.
	rmaHold = 2 * time.Millisecond
	// rmaPollMin: the idle poll right after an epoch (Config.RMAPoll if
	// smaller); it doubles up to Config.RMAPoll.
	rmaPollMin = 100 * time.Microsecond
)

// watch is a lock word the ghost loads to see epochs.
type watch struct {
	u    *user
	seg  uint32
	off  uint64
	word *int64
	last int64
}

// rmaState is the ghost's view of activity on its windows.
type rmaState struct {
	watches []watch
	change  time.Time     // the last change seen in a lock word
	held    bool          // a watched lock word was nonzero at the last scan
	burst   bool          // the last decision was to poll on every round
	poll    time.Duration // the next idle poll (RMASpinNo)
	serving bool          // a window was ever watched (priority and timer slack set)
}

// watchWord answers CSP_OP_WIN_WATCH: start (NBytes 8) or stop watching the
// word at (Seg, Off), which Validate checked lies in a mapped segment.
func (g *Ghost) watchWord(u *user, cell uint32, r *postcell.Request) {
	if r.NBytes == 0 {
		g.unwatch(u, func(w *watch) bool { return w.seg == r.Seg && w.off == r.Off })
		g.completeOK(u, cell, r.Gen)
		return
	}
	p := (*int64)(u.addr(r.Seg, r.Off))
	v := atomic.LoadInt64(p)
	g.rma.watches = append(g.rma.watches, watch{u: u, seg: r.Seg, off: r.Off, word: p, last: v})
	if !g.rma.serving {
		g.rma.serving = true
		// Window polls end when asked, not up to 50 us later (the
		// default timer slack): an origin's operation waits for them.
		// This is Run's thread (setTimerSlack).
		setTimerSlack(time.Microsecond)
		if g.cfg.RMABoost != nil {
			g.cfg.RMABoost()
			g.cfg.RMABoost = nil
		}
	}
	g.completeOK(u, cell, r.Gen)
}

// servingRMA reports whether a redirected window is exposed here: the
// users watch the lock word of exactly their redirected windows
// (internal/user/rma.c: csp_rma_watch), so a window of async_config=off,
// or one the automatic choice turned off, costs its ghost no polling.
func (g *Ghost) servingRMA() bool { return len(g.rma.watches) > 0 }

// unwatch drops u's watches that drop says.
func (g *Ghost) unwatch(u *user, drop func(*watch) bool) {
	ws := g.rma.watches[:0]
	for i := range g.rma.watches {
		w := &g.rma.watches[i]
		if w.u == u && drop(w) {
			continue
		}
		ws = append(ws, *w)
	}
	clear(g.rma.watches[len(ws):])
	g.rma.watches = ws
}

// unwatchSegment drops u's watches in segment s, before it is unmapped.
func (g *Ghost) unwatchSegment(u *user, s uint32) {
	if len(g.rma.watches) > 0 {
		g.unwatch(u, func(w *watch) bool { return w.seg == s })
	}
}

// scanRMA loads every watched lock word (acquire: the value is the
// target's ghost's own MPI progress or a local load/store; any value is
// fine, it only steers polling) and notes a change.
func (g *Ghost) scanRMA(now time.Time) {
	held := false
	for i := range g.rma.watches {
		w := &g.rma.watches[i]
		v := atomic.LoadInt64(w.word)
		if v != w.last {
			w.last = v
			g.rma.change = now
		}
		held = held || v != 0
	}
	g.rma.held = held
}

// serveRMA reports whether the ghost should call MPI's progress on this
// round instead of resting (a redirected window is exposed), and does it.
func (g *Ghost) serveRMA() bool {
	if !g.servingRMA() {
		return false
	}
	switch g.cfg.RMASpin {
	case RMASpinAlone:
		g.progress()
		g.Stats.RMARounds++
		return true
	}
	// Progress first: a poll's call may apply the lock an origin asked
	// for, which the scan then sees.
	g.progress()
	g.Stats.RMARounds++
	now := time.Now()
	g.scanRMA(now)
	since := now.Sub(g.rma.change)
	burst := since < rmaGrace || (g.rma.held && since < rmaHold)
	if burst && !g.rma.burst {
		g.Stats.RMABursts++
	}
	g.rma.burst = burst
	switch {
	case burst:
		g.rma.poll = min(rmaPollMin, g.cfg.RMAPoll)
	case g.rma.poll < g.cfg.RMAPoll:
		g.rma.poll = min(2*g.rma.poll, g.cfg.RMAPoll)
	}
	return burst
}

// rmaPollNext is the longest the ghost may sleep while windows are
// attached: its next idle poll.
func (g *Ghost) rmaPollNext() time.Duration {
	if g.cfg.RMASpin == RMASpinAlone || g.rma.poll == 0 {
		return g.cfg.RMAPoll
	}
	if g.rma.poll > rmaPollMin && g.usersInMPI() {
		// A user waiting in MPI computes nothing a poll could delay.
		g.Stats.RMAInMPIPolls++
		return min(rmaPollMin, g.cfg.RMAPoll)
	}
	return g.rma.poll
}

// usersInMPI reports whether a user of this ghost waits in a blocking MPI
// call (the in-MPI word, channel.h).
func (g *Ghost) usersInMPI() bool {
	for _, u := range g.users {
		if !u.done && !u.broken && u.ch.Hdr.InMPI() {
			return true
		}
	}
	return false
}
