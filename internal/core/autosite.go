package core

import (
	"math"
	"math/bits"
)

// Phases: the automatic choice remembers which route the epochs after
// each collective wanted, keyed by the collective's call site and the
// size of the messages of the phase before it.
//
// Applications alternate phases, each opened by collectives: a
// latency-bound exchange, then an exchange overlapped with compute
// (osubench's overlap loop and phases benchmark, a solver's halo step then
// its reductions). The members' estimate (auto.go) judges the epoch that
// just ended, which is the phase that comes next only where phases are
// long; where they alternate at every few collectives the votes alternate
// too, no streak ever earns a switch, and each switch "fails" in the next
// phase and backs the choice off. What follows a collective, though, is
// what followed it last time in the same context, as a branch's address
// and the branches before it predict its direction (a global-history
// predictor): the key is the collective's call site (its return address)
// and the size class of the messages this member sent in the last epoch
// that carried any. The site alone does not tell phases apart that a
// helper opens with the same barrier (osubench's phases does); the
// history does: the small-message phase follows the large exchanges, the
// overlapped one the small messages. (The previous phase's verdict would
// be history too, but it depends on the route and on the estimate, and a
// verdict near the threshold made the phases' keys collide.)
//
// So each member keeps, per communicator, the verdicts of the
// one-collective epochs each key opened, learned from the members' agreed
// sums, and the direct route's wait per message in them. At an evaluation
// a key whose last two verdicts agree predicts the route of the epoch it
// opens, and where every member predicts the same route the communicator
// switches to it at once, no streak needed: the two agreeing verdicts are
// the hysteresis, and a verdict against the key silences it until two
// agree again. Addresses differ between processes (ASLR); the members'
// predictions are summed with the rest, so a switch needs all of them,
// each by its own keys.
//
// Verdicts come only from epochs one collective long (the communicator's
// evaluation before was at the family's previous collective), so that an
// epoch is the phase its key opened. Evaluations are that frequent after
// a switch and while a streak of votes or a switch is pending (interval);
// while a communicator's keys disagree (some predict offload, some the
// direct route) every collective of its family is evaluated, at one
// Allreduce of a few words each; and for learnWindow evaluations after
// the verdicts turned from one route to the other or the messages changed
// size in a way not seen before, and every relearnEvery evaluations
// otherwise, so that phases are found even where long epochs mix them
// into one verdict.

// siteKey is a phase: the call site of the collective that opens it and
// the size class of the messages before it.
type siteKey struct {
	site uintptr
	prev int8
}

// sizeClass is the class of an epoch's messages, msgs > 0 of bytes in
// all: 1 + the bit length of their mean size (1: empty messages, 2: 1
// byte, ... 22: 1-2 MiB).
func sizeClass(msgs, bytes uint64) int8 {
	return int8(1 + bits.Len64(bytes/msgs))
}

// siteSlots bounds the phases remembered per communicator; a new one
// then replaces the one used longest ago.
const siteSlots = 128

// siteMemory is what the epochs of one phase wanted.
type siteMemory struct {
	verdict int // +1: offload won, -1: the direct route won, 0: neither by autoTheta
	agree   int // verdicts in a row equal to verdict
	// failures: epochs of this phase run offloaded that turned out worse
	// than direct since the last that did not. The estimate made while
	// direct can promise what offload then does not deliver (compute on
	// the CPU the model took for idle time, a server polling MPI_Iprobe);
	// each failure doubles the verdicts in a row needed before the phase
	// is offloaded again, and so does each of the communicator's own
	// (auto.go's onFailures beyond the first), which a phase never seen
	// (new sizes) starts with: the choice cannot flap.
	failures int
	// The direct route's wait per message in the last such epoch it ran
	// (-1: none): what offload saves in this phase, which the
	// communicator's last direct epoch (another phase, other sizes) does
	// not tell.
	offWait float64
	// directWall: this member's wall time per message in the phase's
	// last epoch run direct (-1: none); onSeen: the phase's epochs run
	// offloaded. From the second such epoch on, the estimate of an
	// offloaded epoch is the difference (measured, not modelled).
	directWall float64
	onSeen     int
	used       uint64 // m.siteClock when last learned or made
}

// verdictOf turns the members' summed estimate into a verdict.
func verdictOf(net, wall float64) int {
	switch {
	case net > autoTheta*wall:
		return 1
	case net < -autoTheta*wall:
		return -1
	}
	return 0
}

// opened returns the phase of the epoch that ends at the family's
// collective n: the key of m's previous evaluation if that was at
// collective n-1, else the zero key (not known).
func (m *commState) opened(n uint32) siteKey {
	if m.openN+1 != n {
		return siteKey{}
	}
	return m.openKey
}

// site returns m's memory of phase k, made (in place of the one used
// longest ago if there is no room) unless k is the zero key.
func (m *commState) site(k siteKey) *siteMemory {
	if k.site == 0 {
		return nil
	}
	m.siteClock++
	s := m.sites[k]
	if s == nil {
		if m.sites == nil {
			m.sites = make(map[siteKey]*siteMemory)
		}
		if len(m.sites) >= siteSlots {
			var old siteKey
			oldest := ^uint64(0)
			for k2, s2 := range m.sites {
				if s2.used < oldest {
					old, oldest = k2, s2.used
				}
			}
			delete(m.sites, old)
		}
		s = &siteMemory{offWait: -1, directWall: -1}
		m.sites[k] = s
	}
	s.used = m.siteClock
	return s
}

// net is the model's estimate for m over the epoch e (auto.go), with
// the memory of the direct route of phase opened where there is one.
// uncertain: the epoch ran offloaded and the only memory of the direct
// route is the communicator's, taken at another size class. The wait per
// message of one size says little about another's (osubench's halo:
// 2.3 ms at 1 MiB, 4.8 at 4 MiB, 27 and 14 transfers), so such an
// estimate may send the communicator back to the direct route to learn
// what it waits there, but is no failure of offload (autoTarget).
//
// asXfer is the same estimate taking the epoch's own waits, if it ran
// direct, for the transfers they were (learnXfer decides whether they
// were, from the members' sums): the first epoch of a ping-pong at a new
// size is judged by what it teaches.
//
// measured: the epoch ran offloaded, its phase ran direct before and
// offloaded at least once before this epoch, and the estimate is the
// difference of the two routes' wall time per message where that is a
// loss beyond autoTheta of the epoch (else the larger of it and the
// model's); the first offloaded epoch carries the ghosts' first touches
// of the buffers.
// The model's terms are estimates; the loop a phase repeats is what
// either route costs in fact: where the model promised what offload then
// does not deliver (osubench's overlap loop at 16-64 KiB with sleep
// compute, where a wake-up after every sleep and the ghost's copies
// stretching the sleeps cost more than the wait it hid), this finds it
// in one epoch.
func (m *commState) net(md *model, e epoch, msgs, bytes uint64, opened siteKey) (net, asXfer float64, uncertain, measured bool) {
	m.xferNext = 0
	if msgs == 0 {
		return 0, 0, false, false // no evidence (md.net), and no phase to remember
	}
	s := m.site(opened)
	w := m.directWait(s)
	class := sizeClass(msgs, bytes)
	if (s == nil || s.offWait < 0) && m.plan.Offloaded() && w >= 0 && m.offClass != class {
		uncertain = true
	}
	x := m.xfer[class]
	net = md.net(e, m.plan.Offloaded(), msgs, bytes, &w, x)
	asXfer = net
	m.xferClass = class
	if !m.plan.Offloaded() {
		m.offWait, m.offClass = w, class
		if s != nil {
			s.offWait = w
			s.directWall = e.wallUS / float64(msgs)
		}
		m.xferNext = w
		x.direct = math.Max(x.direct, w)
		asXfer = md.net(e, false, msgs, bytes, &w, x)
	} else {
		waited := e.waited(bytes)
		m.xferNext = waited / float64(msgs)
		if w >= 0 && !uncertain {
			// Measured: offload gains at least what the waits shrank by
			// against the direct route's at these sizes. The model's
			// stall counts from 4 or 8 transfers of waiting and its cost
			// from one, so where offload gains less than those
			// transfers it read a loss: osubench's halo at 4 MiB, 19 ms
			// of waits an iteration on the ghosts against 21 direct,
			// read -25%.
			net = math.Max(net, float64(msgs)*w-waited)
			asXfer = net
		}
		if s != nil {
			if s.directWall > 0 && s.onSeen > 0 {
				// A loss beyond the band is the verdict; within it, the
				// routes are even as far as one epoch can tell, and the
				// estimate stands (ip_auto's 4 MiB exchanges overlapped
				// with sleep: 1-3% either way from epoch to epoch, and
				// taking that for the verdict broke every agreement).
				d := float64(msgs)*s.directWall - e.wallUS
				if d < -autoTheta*e.wallUS {
					net = d
				} else {
					net = math.Max(net, d)
				}
				asXfer, measured = net, true
			}
			s.onSeen++
		}
	}
	return net, asXfer, uncertain, measured
}

// directWait is m's memory of the direct route's wait per message for
// the phase whose memory is s (nil: none): the phase's own if it has one,
// else the communicator's last (negative: none).
func (m *commState) directWait(s *siteMemory) float64 {
	if s != nil && s.offWait >= 0 {
		return s.offWait
	}
	return m.offWait
}

// xferIdle: an epoch teaches the exchange time of its messages' size
// (learnXfer) when the members' summed time outside MPI while messages
// were in flight (between posts and waits), and their summed time in the
// run queue, are each at most this share of their summed waits. A
// ping-pong that touches its buffers does so outside that time (TCP here:
// in flight 7%, queued 1-5%); osubench's overlapped loop, compute as long
// as an exchange between post and wait, has 0.6-2 in flight; its halo
// among 4 users on 2 cores with compute on the CPU only 4%, but waits in
// the run queue for 80% of its waits: for the core, not for transfers.
const xferIdle = 0.25

// learnXfer keeps what this member's messages waited per message in the
// epoch just decided as the exchange time of their size class on the
// route it ran, where the members' sums say nobody did anything else
// while messages were in flight and nobody waited for a core (win: time
// outside MPI then, waited: time waiting in it, queue: time runnable but
// not running, summed): a wait then is the transfer, not a peer computing
// or a core taken. The built-in calibration is this machine's shared
// memory; over a network the waits of a ping-pong are many of its
// transfers (TCP here: 64 KiB 200 us against 8), the stall rule (auto.go)
// took them for missing progress, and the table's difference between the
// routes (8 us) for what offload costs (40 us): osubench's overlap loop
// over TCP offloaded its calibration ping-pongs at every size, lost
// there, and flapped. On the direct route the latest such epoch wins
// (the transport is the job's, a regime of the host may change it, and a
// time too long only makes the choice cautious); through the ghosts the
// shortest. It
// reports whether the epoch was such a one and ran direct (the same on
// every member: the route and the sums are agreed).
func (m *commState) learnXfer(win, waited, queue int64) bool {
	if waited <= 0 || float64(win) > xferIdle*float64(waited) || float64(queue) > xferIdle*float64(waited) {
		return false
	}
	if m.xferNext > 0 {
		if m.xfer == nil {
			m.xfer = make(map[int8]xferTimes)
		}
		x := m.xfer[m.xferClass]
		switch {
		case m.plan.Offloaded() && (m.fresh || m.uncertain):
			// The first epoch on the ghosts, or the first at new sizes,
			// carries their first touches of the buffers (autoTarget):
			// osubench's halo at 4 MiB waited 1.2-1.5 s in it, and taken
			// for the exchange's time that cost stopped every later
			// offload at that size.
		case m.plan.Offloaded():
			// The fastest seen, used from the second on (xferTimes.offN):
			// a slower epoch may be a host's hiccup, and where the route
			// did get slower, the epochs on it measure their own cost
			// (auto.go).
			if x.offN == 0 || m.xferNext < x.off {
				x.off = m.xferNext
			}
			x.offN++
		default:
			x.direct = m.xferNext
		}
		m.xfer[m.xferClass] = x
	}
	return !m.plan.Offloaded()
}

// learnSite records the verdict of an epoch of phase k, run offloaded
// (on) or direct.
func (m *commState) learnSite(k siteKey, verdict int, on bool) {
	s := m.site(k)
	if s == nil {
		return
	}
	switch {
	case on && verdict < 0 && (m.measured || !m.uncertain && !m.fresh):
		s.failures++
	case on && verdict > 0:
		s.failures = 0
	}
	if s.agree > 0 && s.verdict == verdict {
		s.agree++
	} else {
		s.verdict, s.agree = verdict, 1
	}
	// A strong vote for offload of a phase never offloaded in vain
	// counts as two verdicts (auto.go, autoStrong).
	if verdict > 0 && (m.strong || m.strongPhase) && !on && s.failures == 0 {
		s.agree = max(s.agree, 2)
	}
}

// predictSite returns the route phase k is expected to want: +1
// offload, -1 direct, 0 no prediction (unknown, verdicts that disagree,
// or a draw).
func (m *commState) predictSite(k siteKey) int { return m.predicts(m.sites[k]) }

// predicts is predictSite for the memory s of a phase (nil: unknown).
func (m *commState) predicts(s *siteMemory) int {
	switch {
	case s == nil || s.agree < 2:
		return 0
	case s.verdict > 0 && s.agree < 2<<min(s.failures+max(0, m.onFailures-1), 4):
		return 0 // offloading it (or the communicator) failed: more verdicts first
	}
	return s.verdict
}

// predictPhase returns the route the epoch of phase k is expected to
// want: its own memory's prediction if it has one, else that of the
// phases opened at the same call site after messages up to 4 times
// smaller or larger (a size sweep, sizes that vary from step to step)
// where those that predict agree, if k was not seen or its one verdict
// so far agrees with them. (The neighbours predicted a size sweep's first
// round at a new size, and its second ran on the direct route because
// one verdict of its own predicts nothing: 1 round in 8 of osubench's
// overlap loop at 4 MiB.)
func (m *commState) predictPhase(k siteKey) int {
	own := m.sites[k]
	if own != nil {
		if p := m.predictSite(k); p != 0 || own.agree != 1 || own.verdict == 0 || own.failures > 0 {
			return p
		}
	}
	p := m.nearPhases(k)
	if own != nil && p != own.verdict {
		return 0
	}
	return p
}

// nearPhases is the prediction of the phases opened at k's call site
// after messages up to 4 times smaller or larger than k's, where those
// that predict agree (0: none predicts, or they disagree).
func (m *commState) nearPhases(k siteKey) int {
	p := 0
	for d := int8(-2); d <= 2; d++ {
		q := 0
		if d != 0 && k.prev+d > 0 {
			q = m.predictSite(siteKey{site: k.site, prev: k.prev + d})
		}
		switch {
		case q == 0:
		case p != 0 && q != p:
			return 0
		default:
			p = q
		}
	}
	return p
}

// sitesDisagree reports whether m has phases predicting opposite routes:
// they alternate, and each collective is a point to switch at. This
// member's view only (its keys are its own): evaluate sums it (phased).
func (m *commState) sitesDisagree() bool {
	on, off := false, false
	for _, s := range m.sites {
		if m.siteClock-s.used > phaseRecent {
			continue // a phase of the past
		}
		switch m.predicts(s) {
		case 1:
			on = true
		case -1:
			off = true
		}
	}
	return on && off
}

// noteClass records the size class c of this member's messages in an
// epoch and reports whether it follows the previous class in a way not
// seen before (a new phase, or new sizes: worth a learning window).
func (m *commState) noteClass(c int8) bool {
	prev := m.lastClass
	m.lastClass = c
	if prev == 0 || prev == c {
		return false
	}
	t := [2]int8{prev, c}
	if m.classSeen[t] || len(m.classSeen) >= siteSlots {
		return false
	}
	if m.classSeen == nil {
		m.classSeen = make(map[[2]int8]bool)
	}
	m.classSeen[t] = true
	return true
}

// phaseRecent: phases used this many evaluations ago or more no longer
// keep every collective evaluated (sitesDisagree).
const phaseRecent = 64

// learnWindow is how many evaluations in a row every collective is
// evaluated to learn phases: long enough to see each of a few
// alternating phases twice.
const learnWindow = 16

// relearnEvery: evaluations with messages between two learning windows
// while nothing suggests phases (at autoEveryMax collectives apart, one
// collective in 32 evaluated more).
const relearnEvery = 16

// learnPhase records the verdict of the epoch just ended, of phase k
// (the zero key: unknown), for communicator m; newPhase: some member's
// messages changed size in a way not seen before. Everything it changes
// that decides when the next evaluation comes is agreed (the summed
// verdict and newPhase).
func (r *runtime) learnPhase(m *commState, k siteKey, verdict int, newPhase bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	m.learnSite(k, verdict, m.plan.Offloaded())
	switch {
	case newPhase, verdict != 0 && m.lastVerdict != 0 && verdict != m.lastVerdict:
		m.learnLeft = learnWindow // new sizes, or the verdicts turned: learn the phases
	case m.learnLeft > 0:
		m.learnLeft--
	default:
		m.evals++
		if m.evals >= relearnEvery {
			m.learnLeft, m.evals = learnWindow, 0
		}
	}
	if verdict != 0 {
		m.lastVerdict = verdict
	}
}

// phaseTarget makes the route every member's memory of this phase
// predicts the communicator's, from this collective on.
func (r *runtime) phaseTarget(m *commState, want bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case !want:
		m.phaseOn = false
	case !m.plan.Offloaded() || m.phaseOn:
		m.phaseOn, m.phaseKey = true, m.nextKey
	}
	// else offload a streak of estimates earned (autoTarget), which the
	// phase confirms: it stays the estimate's to end, so a long phase
	// keeps it past a collective that opens one not seen yet (a halo
	// sweep's next size).
	m.setAutoTarget(m.plan.Offloaded(), want)
	if m.pending != nil {
		m.pending.phase = true
	}
}
