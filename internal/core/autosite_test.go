package core

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/casperii/casperii/commexpand"
	"github.com/casperii/casperii/info"
)

// TestSiteMemory: a call site predicts a route only after two verdicts in
// a row agree, and a verdict against it silences it until two agree again.
func TestSiteMemory(t *testing.T) {
	m := &commState{}
	a, b := siteKey{site: 0x1000}, siteKey{site: 0x2000, prev: -1}
	require.Equal(t, 0, m.predictSite(a), "unknown site")
	m.learnSite(a, 1, false)
	require.Equal(t, 0, m.predictSite(a), "one verdict is no prediction")
	m.learnSite(a, 1, false)
	require.Equal(t, 1, m.predictSite(a))
	m.learnSite(a, -1, false)
	require.Equal(t, 0, m.predictSite(a), "a verdict against it")
	m.learnSite(a, -1, false)
	require.Equal(t, -1, m.predictSite(a))
	m.learnSite(a, 0, false)
	m.learnSite(a, 0, false)
	require.Equal(t, 0, m.predictSite(a), "draws predict nothing")

	require.False(t, m.sitesDisagree())
	m.learnSite(a, 1, false)
	m.learnSite(a, 1, false)
	m.learnSite(b, -1, false)
	require.False(t, m.sitesDisagree(), "b has one verdict")
	m.learnSite(b, -1, false)
	require.True(t, m.sitesDisagree())
	for i := 0; i <= phaseRecent; i++ {
		m.site(a) // only a is used
	}
	require.False(t, m.sitesDisagree(), "b is a phase of the past")
	m.learnSite(b, -1, false)
	require.True(t, m.sitesDisagree())

	m.learnSite(siteKey{}, 1, false) // no site: nothing learned
	require.Len(t, m.sites, 2)
	for i := 0; i < 2*siteSlots; i++ {
		m.learnSite(siteKey{site: uintptr(0x10000 + i)}, 1, false)
	}
	require.Len(t, m.sites, siteSlots, "bounded")
	require.NotContains(t, m.sites, a, "the oldest made room")
	last := siteKey{site: uintptr(0x10000 + 2*siteSlots - 1)}
	require.Equal(t, 1, m.sites[last].agree, "the newest kept")

	// Offloaded epochs of a phase that lose double the verdicts needed
	// before it is offloaded again; one that wins resets them.
	c := siteKey{site: 0x3000, prev: 10}
	m = &commState{}
	m.learnSite(c, 1, false)
	m.learnSite(c, 1, false)
	require.Equal(t, 1, m.predictSite(c))
	m.learnSite(c, -1, true) // offloaded, and worse
	for i := 0; i < 3; i++ {
		m.learnSite(c, 1, false)
	}
	require.Equal(t, 0, m.predictSite(c), "3 verdicts after a failure are not enough")
	m.learnSite(c, 1, false)
	require.Equal(t, 1, m.predictSite(c), "4 are")
	// A phase not seen yet takes the prediction of the same site after
	// messages up to 4 times smaller or larger, where those agree.
	require.Equal(t, 1, m.predictPhase(siteKey{site: c.site, prev: c.prev + 2}))
	require.Equal(t, 0, m.predictPhase(siteKey{site: c.site, prev: c.prev + 3}), "too far")
	require.Equal(t, 0, m.predictPhase(siteKey{site: c.site + 1, prev: c.prev}), "another site")
	// Seen once since: its own verdict alone predicts nothing, with the
	// neighbours' that agree it does; against them, nothing.
	e := siteKey{site: c.site, prev: c.prev + 1}
	m.learnSite(e, 1, false)
	require.Equal(t, 0, m.predictSite(e))
	require.Equal(t, 1, m.predictPhase(e), "one verdict of its own and the neighbours'")
	f := siteKey{site: c.site, prev: c.prev - 1}
	m.learnSite(f, -1, false)
	require.Equal(t, 0, m.predictPhase(f), "its one verdict against the neighbours'")
	m.learnSite(e, -1, true) // offloaded, and worse
	m.learnSite(e, 1, false)
	require.Equal(t, 0, m.predictPhase(e), "a failure of its own: its own verdicts decide")
	delete(m.sites, e)
	delete(m.sites, f)
	d := siteKey{site: c.site, prev: c.prev + 4}
	m.learnSite(d, -1, false)
	m.learnSite(d, -1, false)
	require.Equal(t, 0, m.predictPhase(siteKey{site: c.site, prev: c.prev + 2}), "neighbours disagree")
	m.learnSite(c, 1, true) // offloaded, and better
	m.learnSite(c, -1, false)
	m.learnSite(c, 1, false)
	m.learnSite(c, 1, false)
	require.Equal(t, 1, m.predictSite(c), "a success forgets the failures")

	// The communicator's failures count for every phase, new ones too.
	m.onFailures = 3 // two beyond the first: 8 verdicts in a row
	require.Equal(t, 0, m.predictSite(c))
	for i := 0; i < 6; i++ {
		m.learnSite(c, 1, false)
	}
	require.Equal(t, 1, m.predictSite(c))
}

// TestPhaseDecision drives decide through alternating phases: the sites'
// predictions, summed over the members, switch the communicator at the
// collective that opens each phase, with no streak of votes and no
// failure backoff; a prediction only some members make switches nothing.
func TestPhaseDecision(t *testing.T) {
	r := &runtime{}
	m := &commState{
		auto:       true,
		plan:       commexpand.Plan{Algorithm: info.NoOffload},
		onPlan:     commexpand.Plan{Algorithm: info.TagEncoding},
		onFailures: 1, // a streak needs 2 votes in a row, which alternating phases never give
	}
	ev := func(opened siteKey, net, msgs, predOn, predOff int64) {
		t.Helper()
		v := make([]int64, evFields)
		v[evPresent], v[evUnmatched] = 2, 1 // not quiescent: no switch is taken
		v[evNet], v[evWall], v[evMsgs] = net, 10000, msgs
		v[evPredOn], v[evPredOff] = predOn, predOff
		took, err := r.decide(m, v, 2, opened)
		require.NoError(t, err)
		require.False(t, took)
	}
	// The ping-pong phase and the overlapped one, opened by one barrier
	// (a helper's) and told apart by the messages before each.
	pp, ov := siteKey{site: 0x100, prev: sizeClass(10, 40<<20)}, siteKey{site: 0x100, prev: sizeClass(10, 80)}
	require.NotEqual(t, pp, ov)
	for i := 0; i < 2; i++ {
		ev(pp, -2000, 40, 0, 0) // the ping-pong phase: offload loses
		ev(ov, 3000, 40, 0, 0)  // the overlapped phase: it wins
	}
	require.Equal(t, -1, m.predictSite(pp))
	require.Equal(t, 1, m.predictSite(ov))
	require.True(t, m.sitesDisagree())
	require.Nil(t, m.pending, "alternating votes earn nothing")

	ev(siteKey{}, 0, 0, 2, 0) // every member predicts offload for the phase opening now
	require.NotNil(t, m.pending)
	require.Equal(t, info.TagEncoding, m.pending.plan.Algorithm)
	require.True(t, m.pending.phase)
	ev(siteKey{}, 0, 0, 0, 2) // and the direct route for the next: withdrawn (still off)
	require.Nil(t, m.pending)
	ev(siteKey{}, 0, 0, 1, 0) // one member only: no switch
	require.Nil(t, m.pending)
	require.Equal(t, 1, m.onFailures, "phase switches leave the backoff alone")

	// Verdicts that turn from one route to the other start a window in
	// which every collective is evaluated.
	m2 := &commState{auto: true, plan: commexpand.Plan{Algorithm: info.NoOffload}}
	r.learnPhase(m2, siteKey{}, 1, false)
	require.Zero(t, m2.learnLeft)
	r.learnPhase(m2, siteKey{}, -1, false)
	require.Equal(t, learnWindow, m2.learnLeft)
	r.learnPhase(m2, siteKey{}, 0, false)
	require.Equal(t, learnWindow-1, m2.learnLeft)
	m2.learnLeft = 0
	r.learnPhase(m2, siteKey{}, 0, true) // some member saw new sizes
	require.Equal(t, learnWindow, m2.learnLeft)

	// A learning window evaluates every collective while its epochs
	// carry messages, and one quiet epoch between phases; after
	// quietWindow quiet ones in a row the interval grows again.
	m4 := &commState{auto: true, plan: commexpand.Plan{Algorithm: info.NoOffload}, learnLeft: learnWindow}
	f := &family{every: 1}
	step := func(msgs int64) int {
		t.Helper()
		v := make([]int64, evFields)
		v[evPresent], v[evWall], v[evMsgs] = 2, 10000, msgs
		_, err := r.decide(m4, v, 2, siteKey{})
		require.NoError(t, err)
		return r.interval(f, []*commState{m4}, false)
	}
	require.Equal(t, 1, step(40))
	require.Equal(t, 1, step(0), "one quiet epoch: a compute phase between two exchanges")
	require.Equal(t, 2, step(0), "quiet epochs in a row: no more evaluations at every collective")
	require.Equal(t, quietEvery, step(0))
	require.Equal(t, quietEvery, step(0), "but at least every quietEvery-th while the window lasts")
	require.Equal(t, learnWindow-1, m4.learnLeft, "quiet epochs do not use the window up")
	require.Equal(t, 1, step(40), "messages again: the window goes on")

	// A communicator that never carried a message (the world kept for
	// collectives) spends its window on quiet epochs, and then lets the
	// interval grow to autoEveryMax.
	m4 = &commState{auto: true, plan: commexpand.Plan{Algorithm: info.NoOffload}, learnLeft: learnWindow}
	f = &family{every: 1}
	every := 0
	for i := 0; i < quietWindow+learnWindow; i++ {
		every = step(0)
		if m4.learnLeft > 0 {
			require.LessOrEqual(t, every, quietEvery, "while its window lasts (%d left)", m4.learnLeft)
		}
	}
	require.Zero(t, m4.learnLeft)
	for i := 0; i < 8; i++ {
		every = step(0)
	}
	require.Equal(t, autoEveryMax, every, "the window spent: evaluations grow apart")

	// New size transitions are reported once each.
	m3 := &commState{}
	require.False(t, m3.noteClass(3), "the first class follows nothing")
	require.False(t, m3.noteClass(3))
	require.True(t, m3.noteClass(20))
	require.True(t, m3.noteClass(3))
	require.False(t, m3.noteClass(20), "seen")
	require.False(t, m3.noteClass(3), "seen")
}

// TestPhaseRouteEnds: offload taken for a phase lasts that phase. At a
// collective that opens another phase (every member's key differs from
// the one offload was taken for), with no memory that predicts it, the
// communicator goes back to the direct route, whatever the ended epoch's
// estimate (it judged the predicted phase), and without a failure on
// record. Before, a size sweep's next step ran offloaded after the last
// overlapped phase of the size before, lost, and the failure doubled
// what every phase needed before it was offloaded again. The same phase
// going on without a prediction, and offload a streak of estimates
// earned, are judged by the estimate.
func TestPhaseRouteEnds(t *testing.T) {
	r := &runtime{}
	ev := func(m *commState, net, msgs, predOn, predOff, ends int64) {
		t.Helper()
		v := make([]int64, evFields)
		v[evPresent], v[evUnmatched] = 2, 1 // not quiescent: no switch is taken
		v[evNet], v[evWall], v[evMsgs] = net, 10000, msgs
		v[evPredOn], v[evPredOff], v[evPhaseEnds] = predOn, predOff, ends
		took, err := r.decide(m, v, 2, siteKey{})
		require.NoError(t, err)
		require.False(t, took)
	}
	on := commexpand.Plan{Algorithm: info.TagEncoding}
	ov := siteKey{site: 0x100, prev: 20}
	m := &commState{auto: true, plan: commexpand.Plan{Algorithm: info.NoOffload}, onPlan: on, onFailures: 1}
	m.nextKey = ov
	ev(m, 0, 0, 2, 0, 0) // every member predicts offload for the phase opening now
	require.True(t, m.phaseOn)
	require.Equal(t, ov, m.phaseKey)
	require.NotNil(t, m.pending)
	m.plan, m.pending = on, nil // the switch taken

	ev(m, 3000, 40, 0, 0, 1) // one member sees another phase: the estimate decides, and wants offload
	require.Nil(t, m.pending)
	require.False(t, m.phaseOn, "the estimate's choice from now on")

	m.phaseOn, m.onFailures = true, 1
	ev(m, -3000, 40, 0, 0, 2) // the next phase, which nothing predicts, differs
	require.NotNil(t, m.pending, "back to the direct route")
	require.Equal(t, info.NoOffload, m.pending.plan.Algorithm)
	require.True(t, m.pending.phase)
	require.False(t, m.phaseOn)
	require.Equal(t, 1, m.onFailures, "no failure counted: the estimate judged the phase that ended")

	// A pending phase switch whose phase ends before it is taken is
	// withdrawn the same way.
	m2 := &commState{auto: true, plan: commexpand.Plan{Algorithm: info.NoOffload}, onPlan: on}
	ev(m2, 0, 0, 2, 0, 0)
	require.NotNil(t, m2.pending)
	ev(m2, 0, 0, 0, 0, 2)
	require.Nil(t, m2.pending)
	require.False(t, m2.phaseOn)

	// Offload a streak earned stays while the estimates want it, also
	// where a phase confirms it, past a collective that opens a phase
	// nothing predicts (a halo sweep's next size).
	m3 := &commState{auto: true, plan: on, onPlan: on}
	ev(m3, 3000, 40, 0, 0, 0)
	require.Nil(t, m3.pending)
	require.False(t, m3.phaseOn)
	ev(m3, 3000, 40, 2, 0, 0) // every member's memory of the phase predicts offload
	require.Nil(t, m3.pending)
	require.False(t, m3.phaseOn, "still the streak's")
	ev(m3, 3000, 40, 0, 0, 0)
	require.Nil(t, m3.pending, "the estimate keeps it")
}

// TestLearnXfer: over a network the built-in (shared-memory) table's
// transfers are too short. An epoch in which the members did nothing
// while messages were in flight (a ping-pong: waits, and touches outside
// the window) is judged with its own waits as the transfer time, which it
// teaches for its size class on the route it ran; an overlapped epoch
// teaches nothing. Measured on TCP here (osubench's overlap loop, 64 KiB,
// MPIR_CVAR_NOLOCAL=1 UCX_TLS=tcp,self): the ping-pong waits 200 us an
// exchange direct, 240 through the ghosts.
func TestLearnXfer(t *testing.T) {
	md, err := newModel(Config{}, true, false)
	require.NoError(t, err)
	r := &runtime{model: md}
	m := &commState{
		auto: true, offWait: -1, onFailures: 1,
		plan:   commexpand.Plan{Algorithm: info.NoOffload},
		onPlan: commexpand.Plan{Algorithm: info.TagEncoding},
	}
	const n, size = 100, 65536
	class := sizeClass(n, n*size)
	// One member's epoch, both members' sums (the peer's the same).
	epochOf := func(on bool, e epoch) []int64 {
		t.Helper()
		net, asXfer, _, _ := m.net(md, e, n, n*size, siteKey{})
		v := make([]int64, evFields)
		v[evPresent], v[evUnmatched] = 2, 1 // not quiescent: nothing is taken
		v[evNet], v[evNetXfer], v[evWall], v[evMsgs], v[evWaits] = 2*int64(net), 2*int64(asXfer), 2*int64(e.wallUS), 2*n, 2*n
		v[evWin], v[evWaited], v[evQueue] = 2*int64(e.winUS), 2*int64(e.waited(n*size)), 2*int64(e.queueUS)
		return v
	}
	pp := epoch{wallUS: n * 214, mpiUS: n * 200, cpuUS: n * 120, waits: n, winUS: n * 0.5}
	net, asXfer, _, _ := m.net(md, pp, n, n*size, siteKey{})
	require.Greater(t, net, autoTheta*pp.wallUS, "by the table, a wait of 25 transfers is a stall")
	require.Less(t, asXfer, 0.0, "as the transfer it is, no gain")
	v := epochOf(false, pp)
	_, err = r.decide(m, v, 2, siteKey{})
	require.NoError(t, err)
	require.Less(t, v[evNet], int64(0), "judged as a transfer")
	require.Nil(t, m.pending, "no vote for offload")
	require.InDelta(t, 200, m.xfer[class].direct, 1, "the direct exchange learned")
	require.Zero(t, m.xfer[class].off)

	// Overlapped: waits that overlap compute teach nothing.
	ov := epoch{wallUS: n * 270, mpiUS: n * 125, cpuUS: n * 20, sleepUS: 0, waits: n, winUS: n * 130}
	v = epochOf(false, ov)
	_, err = r.decide(m, v, 2, siteKey{})
	require.NoError(t, err)
	require.Greater(t, v[evNet], int64(autoTheta*2*ov.wallUS), "offload pays with the learned transfer")
	require.InDelta(t, 200, m.xfer[class].direct, 1, "unchanged")

	// Through the ghosts, the ping-pong teaches the offloaded exchange,
	// but not in the first epoch there (first touches: fresh), and it
	// counts from the second such epoch, the fastest of them; the direct
	// route's estimate then costs what was learned.
	m.plan = m.onPlan
	m.pending = nil
	m.fresh = true
	slow := epoch{wallUS: n * 2014, mpiUS: n * 2000, sleepUS: n * 1900, cpuUS: n * 30, waits: n, winUS: n * 0.5}
	_, err = r.decide(m, epochOf(true, slow), 2, siteKey{})
	require.NoError(t, err)
	require.Zero(t, m.xfer[class].offN, "the first epoch on the ghosts teaches nothing")
	for i, w := range []float64{250, 240} {
		on := epoch{wallUS: n * (w + 14), mpiUS: n * w, sleepUS: n * (w - 40), cpuUS: n * 30, waits: n, winUS: n * 0.5}
		v = epochOf(true, on)
		m.pending = nil
		_, err = r.decide(m, v, 2, siteKey{})
		require.NoError(t, err)
		require.Less(t, v[evNet], int64(-autoTheta*2*on.wallUS), "offloaded ping-pong: a loss")
		require.Equal(t, i+1, m.xfer[class].offN)
	}
	require.InDelta(t, 240, m.xfer[class].off, 1, "the offloaded exchange learned, the fastest")
	mem := -1.0
	require.InDelta(t, -n*40, md.net(pp, false, n, n*size, &mem, m.xfer[class]), 1, "the learned difference, per message")

	// A halo exchange among more users than cores, compute on the CPU:
	// waits of 25 times the time in flight, but most of them in the run
	// queue (osubench's halo at 16 KiB here: waited 92 ms, in flight 3.8,
	// queued 80 over 4 members). Those waits are for the core, not
	// transfers: nothing is learned, and the stall stands.
	crowdedMd, err := newModel(Config{}, true, true)
	require.NoError(t, err)
	r.model = crowdedMd
	m3 := &commState{auto: true, offWait: -1, onFailures: 1,
		plan: commexpand.Plan{Algorithm: info.NoOffload}, onPlan: commexpand.Plan{Algorithm: info.TagEncoding}}
	m = m3
	halo := epoch{wallUS: n * 1000, mpiUS: n * 920, cpuUS: n * 300, queueUS: n * 700, waits: n / 4, winUS: n * 37}
	v = epochOf(false, halo)
	_, err = r.decide(m3, v, 2, siteKey{})
	require.NoError(t, err)
	require.Empty(t, m3.xfer, "waits for the core teach no transfer time")
	require.Greater(t, v[evNet], int64(autoTheta*2*halo.wallUS), "the stall stands")
}

// TestAutoMeasuredGain: on the ghosts, with a memory of the direct
// route's waits at these sizes, offload gains at least what the waits
// shrank by. osubench's halo at 4 MiB among 4 users on 2 cores: 21 ms an
// iteration direct, 19 through the ghosts, nearly all of it waiting; the
// model alone (a stall from 4 transfers, the cost from one) read -25%.
// Without a memory at these sizes, the model alone decides.
func TestAutoMeasuredGain(t *testing.T) {
	md, err := newModel(Config{}, true, true)
	require.NoError(t, err)
	const mib = 1 << 20
	k := siteKey{site: 0x500, prev: sizeClass(4, 16*mib)}
	m := &commState{auto: true, offWait: -1, plan: commexpand.Plan{Algorithm: info.TagEncoding}}
	m.site(k).offWait = 5250 // per message, direct
	on := epoch{wallUS: 19400, mpiUS: 19000, sleepUS: 18000, cpuUS: 400, queueUS: 200, waits: 1, winUS: 300}
	mem := m.site(k).offWait
	alone := md.net(on, true, 4, 16*mib, &mem, xferTimes{})
	require.Less(t, alone, 0.0, "the model alone: %+.0f", alone)
	net, _, unc, _ := m.net(md, on, 4, 16*mib, k)
	require.False(t, unc)
	require.InDelta(t, 4*5250-19000, net, 1, "the waits shrank by 2 ms")
	// No memory at these sizes (the communicator's is of 8 B ping-pongs):
	// the model's estimate stands.
	m2 := &commState{auto: true, offWait: 0.3, offClass: sizeClass(1, 8), plan: commexpand.Plan{Algorithm: info.TagEncoding}}
	net2, _, unc2, _ := m2.net(md, on, 4, 16*mib, siteKey{})
	require.True(t, unc2)
	mem2 := 0.3
	require.InDelta(t, md.net(on, true, 4, 16*mib, &mem2, xferTimes{}), net2, 1)
	require.Less(t, net2, 0.0)
}

// A phase run on both routes is judged by what its epochs took on each
// (autosite.go: net's measured), from its second offloaded epoch on: a
// loss beyond the band is the verdict and counts as a failure of the
// phase; within the band the model's estimate stands.
func TestPhaseMeasured(t *testing.T) {
	md, err := newModel(Config{}, true, false)
	require.NoError(t, err)
	const mib = 1 << 20
	k := siteKey{site: 0x700, prev: sizeClass(1, mib)}
	m := &commState{auto: true, offWait: -1}
	direct := epoch{wallUS: 25000, mpiUS: 8000, cpuUS: 15000, waits: 100, winUS: 12000}
	_, _, _, measured := m.net(md, direct, 100, 100*mib, k)
	require.False(t, measured, "direct: nothing to measure against")
	require.InDelta(t, 250.0, m.sites[k].directWall, 1e-9, "the direct route's wall time per message")

	m.plan = commexpand.Plan{Algorithm: info.TagEncoding}
	slower := epoch{wallUS: 30000, mpiUS: 2000, sleepUS: 1900, cpuUS: 6000, waits: 100, winUS: 12000}
	_, _, _, measured = m.net(md, slower, 100, 100*mib, k)
	require.False(t, measured, "the first offloaded epoch carries first touches")
	net, asXfer, _, measured := m.net(md, slower, 100, 100*mib, k)
	require.True(t, measured)
	require.InDelta(t, 25000-30000, net, 1e-9, "a loss of 20%%, measured")
	require.Equal(t, net, asXfer)

	even := slower
	even.wallUS = 24900
	net, _, _, measured = m.net(md, even, 100, 100*mib, k)
	require.True(t, measured)
	require.Greater(t, net, 100.0+autoTheta*even.wallUS, "within the band the estimate stands (here above the 100 us measured)")

	// A measured loss fails the phase even on a fresh route (the phase
	// switched on at its collective): more verdicts before the next try.
	m.fresh, m.measured = true, true
	m.learnSite(k, -1, true)
	require.Equal(t, 1, m.sites[k].failures)
	m.fresh, m.measured = true, false
	m.learnSite(k, -1, true)
	require.Equal(t, 1, m.sites[k].failures, "a fresh route's loss by the model is the first touches'")
}

// An epoch that wants offload strongly counts twice for its own phase's
// memory whatever came before it (strongPhase), but not for the
// communicator's next epoch (strong, which needs the last verdict not
// against offload).
func TestStrongPhase(t *testing.T) {
	m := &commState{auto: true, offWait: -1}
	k := siteKey{site: 0x800, prev: 20}
	m.strongPhase = true
	m.learnSite(k, 1, false)
	require.Equal(t, 1, m.predictSite(k), "one strong verdict predicts its phase")
	m.learnSite(k, -1, true)
	require.Equal(t, 0, m.predictSite(k))
	m.strongPhase = false
	m.learnSite(k, 1, false)
	require.Equal(t, 0, m.predictSite(k), "one ordinary verdict does not")
}
