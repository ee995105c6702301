package core

import (
	"fmt"
	"strings"
	"time"

	"github.com/casperii/casperii/commexpand"
	"github.com/casperii/casperii/internal/mpi"
	"github.com/casperii/casperii/internal/user"
)

// A family is the communicators of one group, in the order they were
// created: a blocking collective on any of them is a point every member of
// every one of them enters, so it may take the pending switches and the
// automatic choices of them all (the paper's window-wide synchronization,
// for communicators). Libraries and benchmarks typically send on a
// duplicate of MPI_COMM_WORLD and synchronize on MPI_COMM_WORLD itself:
// both are one family.
//
// Invariant: every member of the group sees the same family, in the same
// order: communicators of one group are created by collectives over a
// group that contains it, which every member calls in the same order
// (MPI_Comm_idup, which completes at a time of its own, makes a family of
// one). The layout of the evaluation's sum depends only on state all
// members agreed on (auto flags, pending switches, retirements); a
// communicator one member freed stays in place, reported absent, until
// every member has freed it.
type family struct {
	key     string
	members []*commState
	watched bool
	// Watched collectives on the family's communicators, counted in C: only
	// the one at which the next evaluation is due calls the runtime.
	count   user.FamCount
	every   int          // the automatic choice's interval, in collectives
	last    time.Time    // this member's previous evaluation
	snap    user.Profile // the process's profile then
	cpuNS   int64        // this thread's CPU time then
	queueNS int64        // and its time in the run queue
	act     []*commState // scratch: the active members of an evaluation
}

// quietWindow: a learning window stops evaluating every collective after
// this many evaluations in a row whose epochs carried no messages, and
// evaluates every quietEvery-th one until messages come or the window
// runs out on quiet evaluations (interval, decide).
const (
	quietWindow = 2
	quietEvery  = 4
)

// familySlots is the most communicators one family holds; later ones of
// the same group make families of their own.
const familySlots = 32

// autoEveryMax is the longest interval between two evaluations of the
// automatic choice that found nothing to change (in collectives).
const autoEveryMax = 32

// groupKey names a communicator's group by its members' (ghost, offset)
// pairs, which name users uniquely (commexpand.Members).
func groupKey(m commexpand.Members) string {
	var b strings.Builder
	for i := range m.Ghost {
		fmt.Fprintf(&b, "%d.%d,", m.Ghost[i], m.Offset[i])
	}
	return b.String()
}

// join puts st into the family of its group (a family of its own when
// alone is true or that family is full). Called with r.mu held.
func (r *runtime) join(st *commState, alone bool) {
	key := groupKey(st.plan.Members)
	f := r.families[key]
	if alone || f == nil || len(f.members) >= familySlots {
		f = &family{key: key, every: 1, last: time.Now(), count: user.NewFamCount()}
		r.famList = append(r.famList, f)
		if !alone && r.families[key] == nil {
			r.families[key] = f
		}
	}
	f.members = append(f.members, st)
	st.fam = f
}

// active reports whether m takes part in its family's evaluations.
func (m *commState) active() bool { return !m.retired && (m.auto || m.pending != nil) }

// watchFamily makes the collectives of f's communicators call the runtime
// while a member of f is active, and stops them otherwise.
func (r *runtime) watchFamily(f *family) {
	if f == nil {
		return
	}
	r.mu.Lock()
	want := false
	for _, m := range f.members {
		want = want || m.active()
	}
	changed := want != f.watched
	f.watched = want
	if want && changed {
		f.count.SetNext(f.count.N() + 1)
	}
	var comms []mpi.Comm
	for _, m := range f.members {
		if !m.freed {
			comms = append(comms, m.comm)
		}
	}
	r.mu.Unlock()
	if changed {
		for _, c := range comms {
			user.Watch(c, want, f.count)
		}
	}
}

// CollCheck is called by a blocking collective on a watched communicator
// at which its family's evaluation is due (the count in C: user.FamCount),
// before the collective itself, on every member alike; site is the
// collective's call site in the application (autosite.go). Collective
// over comm when the evaluation is due.
func (r *runtime) CollCheck(comm mpi.Comm, _ int, site uintptr) error {
	if r == nil || r.role != RoleUser {
		return nil
	}
	r.mu.Lock()
	r.readToggles()
	st := r.comms[comm.Raw()]
	if st == nil || st.fam == nil || !st.fam.watched {
		r.mu.Unlock()
		user.Watch(comm, false, user.FamCount{})
		return nil
	}
	f := st.fam
	due := f.count.Due()
	r.mu.Unlock()
	if !due {
		return nil
	}
	return r.evaluate(comm, f, site)
}

// Fields of one active member in an evaluation's sum.
const (
	evPresent = iota // 1 where the communicator is not freed
	evUnmatched
	evPending
	evStuck
	evNet  // the automatic choice's estimate, microseconds (auto.go)
	evWall // the epoch's length, microseconds
	evMsgs // messages the member sent on it in the epoch
	// Members whose memory of the phase this collective opens predicts
	// offload, or the direct route (autosite.go).
	evPredOn
	evPredOff
	// Members whose phases predict opposite routes, and members whose
	// messages changed size class in a way not seen before (autosite.go):
	// summed, because the next evaluation's collective must be the same
	// on every member.
	evPhased
	evNewPhase
	// Members for which offload is the target because a phase predicted
	// it, and the collective opens another phase.
	evPhaseEnds
	evWaits     // waiting calls the member made in the epoch
	evUncertain // members whose estimate had no memory of the direct route at these sizes
	// The members' time outside MPI while messages were in flight
	// (between posts and waits) and their waits on the communicator in the
	// epoch, microseconds: whether the direct route's waits were transfers
	// (learnXfer).
	evWin
	evWaited
	evQueue    // the members' time runnable but not running (0 where ghosts have cores)
	evNetXfer  // evNet, had the direct route's waits of the epoch been its transfers
	evMeasured // members whose estimate is their phase's routes measured (autosite.go)
	evFields
)

// evaluate sums, over comm (one of f's communicators), every active
// member's route counts and automatic-choice estimates, and takes the
// switches they allow. Collective over comm; site is its call site.
func (r *runtime) evaluate(comm mpi.Comm, f *family, site uintptr) error {
	r.mu.Lock()
	act := f.act[:0]
	for _, m := range f.members {
		if m.active() {
			act = append(act, m)
		}
	}
	f.act = act
	r.mu.Unlock()
	if len(act) == 0 {
		r.watchFamily(f)
		return nil
	}
	in := make([]int64, len(act)*evFields)
	sums := make([]int64, len(in))
	ep := r.epoch(f)
	n := f.count.N()
	opened := make([]siteKey, len(act)) // the phase each epoch that ends here began
	keys := make([]siteKey, len(act))   // the phase each epoch that begins here is
	user.Lock()
	for i, m := range act {
		v := in[i*evFields : (i+1)*evFields]
		if m.freed {
			continue
		}
		c, err := user.CountsLocked(m.comm)
		if err != nil {
			continue // reported absent
		}
		v[evPresent], v[evUnmatched], v[evPending], v[evStuck] = 1, c.Unmatched, c.Pending, c.Stuck
		if m.auto {
			msgs, bytes := user.TakeSentLocked(m.comm)
			opened[i] = m.opened(n)
			if msgs > 0 && m.noteClass(sizeClass(msgs, bytes)) {
				v[evNewPhase] = 1
			}
			if m.sitesDisagree() {
				v[evPhased] = 1
			}
			keys[i] = siteKey{site: site, prev: m.lastClass}
			m.nextKey = keys[i]
			if m.phaseOn && keys[i] != m.phaseKey {
				v[evPhaseEnds] = 1
			}
			net, asXfer, uncertain, measured := m.net(r.model, ep, msgs, bytes, opened[i])
			v[evNet], v[evNetXfer] = int64(net), int64(asXfer)
			if uncertain {
				v[evUncertain] = 1
			}
			if measured {
				v[evMeasured] = 1
			}
			v[evWall] = int64(ep.wallUS)
			v[evMsgs] = int64(msgs)
			v[evWaits] = int64(ep.waits)
			v[evWin] = int64(ep.inFlight())
			v[evWaited] = int64(ep.waited(bytes))
			v[evQueue] = int64(ep.queueUS)
			if r.verbose(4) { // every member's terms (auto.go), to see what an estimate rests on
				r.verbosef(4, "communicator %#x rank %d: msgs %d bytes %d wall %.0f mpi %.0f sleep %.0f coll %.0f cpu %.0f queue %.0f in-flight %.0f (sampled %.0f, on the CPU %.0f) waits %.0f; direct wait/msg %.1f, learned %+v; estimate %+.0f (as transfers %+.0f, measured %t)",
					uint32(m.comm.Raw()), m.rank, msgs, bytes, ep.wallUS, ep.mpiUS, ep.sleepUS, ep.collUS, ep.cpuUS, ep.queueUS, ep.winUS, ep.sampWinUS, ep.sampCPUUS, ep.waits, m.directWait(m.sites[opened[i]]), m.xfer[sizeClass(max(msgs, 1), bytes)], net, asXfer, measured)
			}
			switch m.predictPhase(keys[i]) {
			case 1:
				v[evPredOn] = 1
			case -1:
				v[evPredOff] = 1
			}
		}
	}
	err := user.SumLocked(comm, in, sums)
	user.Unlock()
	if err != nil {
		return err
	}
	size, _ := comm.Size()
	switched := false
	for i, m := range act {
		v := sums[i*evFields : (i+1)*evFields]
		ok, err := r.decide(m, v, int64(size), opened[i])
		if err != nil {
			return err
		}
		switched = switched || ok
		if m.auto {
			m.openKey, m.openN = keys[i], n
		}
	}
	r.mu.Lock()
	f.count.SetNext(n + uint32(r.interval(f, act, switched)))
	r.mu.Unlock()
	r.watchFamily(f)
	return nil
}

// interval returns the collectives until f's next evaluation: soon while
// a switch waits for quiescence, else the automatic choice's interval,
// doubled each time nothing changed. Called with r.mu held.
func (r *runtime) interval(f *family, act []*commState, switched bool) int {
	if switched {
		f.every = 1
	} else {
		f.every = min(2*f.every, autoEveryMax)
	}
	for _, m := range act {
		if m.onVotes > 0 { // a streak of votes for offload: count them soon
			f.every = 1
		}
		// Phases: every collective may switch (autosite.go). While a
		// learning window's epochs carry no messages it evaluates every
		// quietEvery-th collective instead: only epochs with messages
		// teach anything (decide), and a program whose collectives mostly
		// have none between them (NWChem under Global Arrays: 7,000
		// evaluations per process, one Allreduce each, for 743 messages)
		// would otherwise evaluate every one of them until the window's
		// epochs came. One quiet epoch between two phases (osubench's
		// compute phase) keeps every collective evaluated; a run of
		// reductions between two sizes delays the next at most
		// quietEvery-1 collectives.
		switch {
		case !m.auto:
		case m.phased || m.learnLeft > 0 && m.quiet < quietWindow:
			f.every = 1
		case m.learnLeft > 0:
			f.every = min(f.every, quietEvery)
		}
		if m.pending != nil {
			m.pending.checks++
			if m.pending.checks < switchDueFirst {
				return 1
			}
			return min(switchDueEvery, f.every)
		}
	}
	return f.every
}

// decide applies the summed fields v of m (size members): retire a
// communicator every member freed, let the automatic choice pick a
// target, and take a pending switch once the old route is quiescent.
// opened is the phase of the epoch just ended (autosite.go; the zero
// key: not known, or the epoch spanned several collectives).
func (r *runtime) decide(m *commState, v []int64, size int64, opened siteKey) (bool, error) {
	switch {
	case v[evPresent] == 0:
		r.mu.Lock()
		m.retired = true
		r.mu.Unlock()
		return false, nil
	case v[evPresent] < size:
		return false, nil // some member freed it: it never switches again
	}
	if m.auto {
		m.uncertain = v[evUncertain] > 0
		// Strong only where no verdict against offload came last: where
		// phases alternate a strong epoch is no promise for the next
		// (osubench's overlap sweep: a calibration's overlapped
		// exchanges, then ping-pongs, offloaded on one vote and failed).
		m.strong = v[evWaits] >= autoStrongWaits*size && float64(v[evNet]) > autoStrong*float64(v[evWall]) && m.lastVerdict >= 0
		// For the memory of the epoch's own phase, though, the phase
		// before it says nothing: it is keyed apart (autosite.go).
		m.strongPhase = v[evWaits] >= autoStrongWaits*size && float64(v[evNet]) > autoStrongPhase*float64(v[evWall])
		m.measured = v[evMeasured] == size
		if v[evMsgs] > 0 { // an epoch without messages on it says nothing either way
			if m.learnXfer(v[evWin], v[evWaited], v[evQueue]) {
				v[evNet] = v[evNetXfer] // judged by what it teaches: nothing to overlap, no stall
			}
			r.learnPhase(m, opened, verdictOf(float64(v[evNet]), float64(v[evWall])), v[evNewPhase] > 0)
			m.quiet, m.carried = 0, true
		} else {
			m.quiet++
			if !m.carried && m.quiet > quietWindow && m.learnLeft > 0 {
				// A communicator that never carried a message (its
				// members' sums: agreed) spends its first learning window
				// on quiet epochs too, at every quietEvery-th collective:
				// MPI_COMM_WORLD kept for collectives under
				// CSP_ASYNC_CONFIG=auto otherwise held its family at every
				// fourth collective for good (a loop of an exchange and a
				// barrier on a duplicate of the world evaluated 41% of its
				// barriers, 4.6 us each). One that carried messages keeps
				// its window through quiet stretches (a sweep's reductions
				// between two sizes).
				r.mu.Lock()
				m.learnLeft--
				r.mu.Unlock()
			}
		}
		m.phased = v[evPhased] > 0
		switch {
		case v[evPredOn] == size:
			r.phaseTarget(m, true)
		case v[evPredOff] == size:
			r.phaseTarget(m, false)
		case m.phaseOn && v[evPhaseEnds] == size:
			// Offload was taken for a phase that every member sees end
			// here (the ended epoch's estimate judged that phase, not the
			// next), and no memory predicts the one this collective
			// opens: it runs on the direct route, the choice's home,
			// until its own verdicts or a streak say otherwise. Kept on,
			// a size sweep's next step (a ping-pong after the overlapped
			// phase) ran offloaded, lost, and the failure doubled the
			// verdicts every phase then needed before it was offloaded
			// again. The same phase going on without a prediction (a
			// verdict in the band broke its agreement) is judged by its
			// estimate, as before.
			r.phaseTarget(m, false)
		case v[evMsgs] > 0:
			r.autoTarget(m, float64(v[evNet]), float64(v[evWall]))
		}
		if m.rank == 0 {
			r.verbosef(3, "communicator %#x: auto: %v, estimated %+d us over %d us of the members' time (win %d waited %d queue %d)", uint32(m.comm.Raw()), m.plan.Algorithm, v[evNet], v[evWall], v[evWin], v[evWaited], v[evQueue])
		}
	}
	if m.pending == nil {
		return false, nil
	}
	total := user.Counts{Unmatched: v[evUnmatched], Pending: v[evPending], Stuck: v[evStuck]}
	if !total.Quiescent() {
		return false, nil
	}
	where := "at a collective"
	switch {
	case m.pending.phase:
		where = "by the automatic choice, for the phase this collective's call site opens"
	case m.pending.auto:
		where = fmt.Sprintf("by the automatic choice (estimated %+.0f us over %.1f ms)", float64(v[evNet]), float64(v[evWall])/1000)
	}
	return true, r.takeSwitch(m.comm, m, m.pending, where)
}
