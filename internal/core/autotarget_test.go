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
	ev(m, 10000, 1000, siteKey{})
	require.Nil(t, m.pending, "+10%: an ordinary vote")

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
