package core

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/casperii/casperii/commexpand"
	"github.com/casperii/casperii/info"
)

// TestAutoEmptyEpoch: an evaluation whose epoch carried no message on the
// communicator is no evidence. It must neither break a streak of votes
// for offload nor withdraw the switch the streak earned (a barrier right
// after another made such epochs, and osubench's overlap loop never
// switched back on after one failed attempt).
func TestAutoEmptyEpoch(t *testing.T) {
	r := &runtime{}
	m := &commState{
		auto:       true,
		plan:       commexpand.Plan{Algorithm: info.NoOffload},
		onPlan:     commexpand.Plan{Algorithm: info.TagEncoding},
		onFailures: 1, // one failed attempt: two votes in a row needed
	}
	ev := func(net, wall, msgs int64) {
		t.Helper()
		v := make([]int64, evFields)
		v[evPresent], v[evUnmatched] = 2, 1 // not quiescent: no switch is taken
		v[evNet], v[evWall], v[evMsgs] = net, wall, msgs
		took, err := r.decide(m, v, 2, siteKey{})
		require.NoError(t, err)
		require.False(t, took)
	}
	ev(10000, 50000, 40)
	require.Equal(t, 1, m.onVotes)
	require.Nil(t, m.pending)
	ev(0, 300, 0) // empty: the streak stands
	require.Equal(t, 1, m.onVotes)
	ev(12000, 50000, 40)
	require.Equal(t, 2, m.onVotes)
	require.NotNil(t, m.pending, "two votes in a row earn the switch")
	require.Equal(t, info.TagEncoding, m.pending.plan.Algorithm)
	ev(0, 300, 0) // empty: the switch stays pending
	require.NotNil(t, m.pending)
	ev(-5000, 50000, 40) // evidence against withdraws it and ends the streak
	require.Nil(t, m.pending)
	require.Equal(t, 0, m.onVotes)
}

// TestAutoTwoVotes: even after offload confirmed itself (no failure on
// record), one epoch that wants it does not switch it on: a single
// estimate can be an accident. Two in a row do.
func TestAutoTwoVotes(t *testing.T) {
	r := &runtime{}
	m := &commState{
		auto:   true,
		plan:   commexpand.Plan{Algorithm: info.NoOffload},
		onPlan: commexpand.Plan{Algorithm: info.TagEncoding},
	}
	r.autoTarget(m, 10000, 20000)
	require.Nil(t, m.pending, "one vote")
	r.autoTarget(m, -100, 20000) // inside the band: ends the streak
	r.autoTarget(m, 10000, 20000)
	require.Nil(t, m.pending, "one vote again")
	r.autoTarget(m, 10000, 20000)
	require.NotNil(t, m.pending, "two in a row")
}

// TestAutoStrongVote: an epoch of many waits whose estimate wants offload
// by far (autoStrong) is a vote that counts as two, for the streak and for
// a phase's memory; an epoch of few waits is not, whatever its estimate
// (one iteration over fresh buffers can promise +44%), and neither is any
// epoch once an offloaded period has failed beyond the first.
func TestAutoStrongVote(t *testing.T) {
	r := &runtime{}
	on := commexpand.Plan{Algorithm: info.TagEncoding}
	ev := func(m *commState, net, waits int64, opened siteKey) {
		t.Helper()
		v := make([]int64, evFields)
		v[evPresent], v[evUnmatched] = 2, 1 // not quiescent: no switch is taken
		v[evNet], v[evWall], v[evMsgs], v[evWaits] = net, 100000, 40, waits
		took, err := r.decide(m, v, 2, opened)
		require.NoError(t, err)
		require.False(t, took)
	}
	fresh := func() *commState {
		return &commState{auto: true, plan: commexpand.Plan{Algorithm: info.NoOffload}, onPlan: on, onFailures: 1}
	}

	m := fresh()
	ev(m, 50000, 2*autoStrongWaits, siteKey{})
	require.NotNil(t, m.pending, "a strong vote: +50%, 8 waits per member")
	require.Equal(t, info.TagEncoding, m.pending.plan.Algorithm)

	m = fresh()
	ev(m, 50000, 2*autoStrongWaits-1, siteKey{})
	require.Nil(t, m.pending, "too few waits: one vote")
	ev(m, 50000, 2, siteKey{})
	require.NotNil(t, m.pending, "two votes")

	m = fresh()
	ev(m, 21000, 1000, siteKey{})
	require.Nil(t, m.pending, "+21%: an ordinary vote (ip_auto's busy phase, where offload loses, read up to +21%)")

	m = fresh()
	m.onFailures = 2
	ev(m, 50000, 1000, siteKey{})
	require.Nil(t, m.pending, "after a failure beyond the first, strong votes are ordinary")

	m = fresh()
	m.lastVerdict = -1
	ev(m, 50000, 1000, siteKey{})
	require.Nil(t, m.pending, "after a verdict against offload (phases that alternate), strong votes are ordinary")

	// A phase's memory: one strong verdict predicts, unless offloading
	// the phase failed.
	k := siteKey{site: 0x200, prev: 21}
	m = fresh()
	ev(m, 50000, 1000, k)
	require.Equal(t, 1, m.predictSite(k))
	m = fresh()
	ev(m, 50000, 10, k)
	require.Equal(t, 0, m.predictSite(k), "few waits: one verdict")
	m = fresh()
	m.learnSite(k, -1, true) // offloaded, and worse
	ev(m, 50000, 1000, k)
	require.Equal(t, 0, m.predictSite(k))
}

// TestAutoUncertain: an offloaded epoch at sizes the communicator's memory
// of the direct route was not taken at (and no memory of its phase) is
// judged with another size's wait per message. It may send the
// communicator back to the direct route, to learn the waits there, but
// counts as no failure of offload, for the communicator or the phase.
// (osubench's halo, offloaded at 1 MiB, went on at 4 MiB: with the 1 MiB
// wait the estimate said -54%, where offload was 10% faster, and the
// failure doubled the votes needed to come back.)
func TestAutoUncertain(t *testing.T) {
	md, _ := newModel(Config{}, true, false)
	on := commexpand.Plan{Algorithm: info.TagEncoding}
	const mib = 1 << 20
	m := &commState{auto: true, plan: commexpand.Plan{Algorithm: info.NoOffload}, onPlan: on, offWait: -1}
	k1 := siteKey{site: 0x300, prev: sizeClass(4, 4*mib)}
	_, _, unc, _ := m.net(md, epoch{wallUS: 9500, mpiUS: 9200, cpuUS: 300, waits: 4}, 4, 4*mib, k1)
	require.False(t, unc, "off: measured, not judged")
	require.Equal(t, sizeClass(4, 4*mib), m.offClass)
	m.plan = on
	onEp := epoch{wallUS: 5000, mpiUS: 4700, sleepUS: 4500, cpuUS: 300, waits: 4}
	_, _, unc, _ = m.net(md, onEp, 4, 4*mib, siteKey{site: 0x301, prev: 3})
	require.False(t, unc, "on at the size of the memory")
	_, _, unc, _ = m.net(md, onEp, 4, 16*mib, siteKey{site: 0x301, prev: 3})
	require.True(t, unc, "on at 4 MiB with a memory of 1 MiB")
	_, _, unc, _ = m.net(md, onEp, 4, 16*mib, k1)
	require.False(t, unc, "the phase's own memory")

	r := &runtime{}
	ev := func(m *commState, uncertain int64) {
		t.Helper()
		v := make([]int64, evFields)
		v[evPresent], v[evUnmatched] = 2, 1 // not quiescent: no switch is taken
		v[evNet], v[evWall], v[evMsgs], v[evUncertain] = -50000, 100000, 40, uncertain
		took, err := r.decide(m, v, 2, k1)
		require.NoError(t, err)
		require.False(t, took)
	}
	m2 := &commState{auto: true, plan: on, onPlan: on, onFailures: 1}
	ev(m2, 1)
	require.NotNil(t, m2.pending, "back to the direct route")
	require.Equal(t, info.NoOffload, m2.pending.plan.Algorithm)
	require.Equal(t, 1, m2.onFailures, "no failure")
	require.Zero(t, m2.sites[k1].failures)
	m3 := &commState{auto: true, plan: on, onPlan: on, onFailures: 1}
	ev(m3, 0)
	require.NotNil(t, m3.pending)
	require.Equal(t, 2, m3.onFailures, "a failure")
	require.Equal(t, 1, m3.sites[k1].failures)
}

// TestAutoFreshGrace: the first epoch judged after offload came on
// carries the ghosts' first touches of the buffers; its verdict against
// offload does not end offload, nor count as a failure. A second does.
func TestAutoFreshGrace(t *testing.T) {
	r := &runtime{}
	on := commexpand.Plan{Algorithm: info.TagEncoding}
	k := siteKey{site: 0x400, prev: 21}
	ev := func(m *commState, net int64) {
		t.Helper()
		v := make([]int64, evFields)
		v[evPresent], v[evUnmatched] = 2, 1 // not quiescent: no switch is taken
		v[evNet], v[evWall], v[evMsgs] = net, 100000, 40
		took, err := r.decide(m, v, 2, k)
		require.NoError(t, err)
		require.False(t, took)
	}
	m := &commState{auto: true, plan: on, onPlan: on, onFailures: 1, fresh: true}
	ev(m, -10000)
	require.Nil(t, m.pending, "grace for the first epoch")
	require.False(t, m.fresh)
	require.Equal(t, 1, m.onFailures)
	require.Zero(t, m.sites[k].failures)
	ev(m, -10000)
	require.NotNil(t, m.pending, "the second decides")
	require.Equal(t, 2, m.onFailures)
	require.Equal(t, 1, m.sites[k].failures)

	m = &commState{auto: true, plan: on, onPlan: on, onFailures: 1, fresh: true}
	ev(m, 10000)
	require.False(t, m.fresh, "a good first epoch uses the grace up")
	ev(m, -10000)
	require.NotNil(t, m.pending)
}
