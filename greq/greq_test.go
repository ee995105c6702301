package greq_test

import (
	"testing"

	"github.com/casperii/casperii/greq"
	"github.com/casperii/casperii/greq/internal/cgreq"
	"github.com/stretchr/testify/require"
)

// TestHandles: every handle finds its record; a handle of a returned record
// (a stale one, reused later) does not; MPICH's handles are not ours.
func TestHandles(t *testing.T) {
	before := greq.Current()
	var ops []cgreq.Op
	var hs []int32
	for i := 0; i < 1000; i++ { // several chunks
		op := cgreq.Alloc()
		ops = append(ops, op)
		hs = append(hs, cgreq.Start(op))
	}
	require.Equal(t, before.Live+1000, greq.Current().Live)
	require.Equal(t, before.Handles+1000, greq.Current().Handles)
	seen := map[int32]bool{}
	for i, h := range hs {
		require.False(t, seen[h], "handle %#x issued twice", h)
		seen[h] = true
		require.Equal(t, ops[i], cgreq.Lookup(h))
	}
	cgreq.Release(ops[5])
	require.Nil(t, cgreq.Lookup(hs[5]), "a returned record's handle is stale")
	op := cgreq.Alloc() // reuses the record, not the handle's liveness
	require.Nil(t, cgreq.Lookup(hs[5]), "not started: no live handle")
	h := cgreq.Start(op)
	require.Equal(t, op, cgreq.Lookup(h))
	ops[5] = op

	for _, mpich := range []int32{cgreq.Null(), 0x2c000001, -0x54000000 /* 0xac000000 */, 0x44000000} {
		require.Nil(t, cgreq.Lookup(mpich), "%#x is MPICH's", mpich)
	}
	for _, op := range ops {
		cgreq.Release(op)
	}
	require.Equal(t, before.Live, greq.Current().Live)
	require.Equal(t, before.Handles, greq.Current().Handles)
}

func TestCompleteFillsStatusAndReturnsTheRecord(t *testing.T) {
	before := greq.Current()
	op := cgreq.Alloc()
	h := cgreq.Start(op)
	cgreq.SetResult(op, 3, 77, 0, 4096, false)
	rc, src, tag, err, canc, after := cgreq.Complete(op)
	require.Zero(t, rc)
	require.Equal(t, []int{3, 77}, []int{src, tag})
	require.Equal(t, cgreq.KeptField, err, "a single status's MPI_ERROR is not written (MPI 4.0, 3.2.5)")
	require.False(t, canc)
	require.Equal(t, cgreq.Null(), after, "the handle becomes MPI_REQUEST_NULL")
	require.Nil(t, cgreq.Lookup(h))
	require.Equal(t, before.Live, greq.Current().Live)

	op = cgreq.Alloc()
	cgreq.Start(op)
	cgreq.SetResult(op, 1, 2, 15, 0, true) // MPICH's MPI_ERR_TRUNCATE class is 15
	rc, _, _, err, canc, _ = cgreq.Complete(op)
	require.Equal(t, 15, rc, "completion returns the operation's error")
	require.Equal(t, cgreq.KeptField, err, "the error is returned, not written into the status")
	require.True(t, canc)

	op = cgreq.Alloc()
	cgreq.Start(op)
	cgreq.MarkSend(op)
	cgreq.SetResult(op, 1, 2, 0, 0, false)
	rc, src, tag, err, canc, _ = cgreq.Complete(op)
	require.Zero(t, rc)
	require.Equal(t, []int{cgreq.KeptField, cgreq.KeptField, cgreq.KeptField}, []int{src, tag, err},
		"a send's status carries only the cancelled flag, as MPICH's")
	require.False(t, canc)
}
