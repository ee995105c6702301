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
