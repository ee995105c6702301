package greq_test

import (
	"math/rand"
	"testing"

	"github.com/casperii/casperii/greq"
	"github.com/casperii/casperii/greq/internal/cgreq"
	"github.com/stretchr/testify/require"
)

// TestTableAgainstMap drives the request table with random puts, lookups
// and deletions and compares it with a Go map after every step.
func TestTableAgainstMap(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	model := map[int32]cgreq.Op{}
	ops := make([]cgreq.Op, 64)
	for i := range ops {
		ops[i] = cgreq.Alloc()
	}
	// Keys cluster like MPICH handles (a kind prefix and small indices).
	key := func() int32 { return int32(0x2c000000 | rng.Intn(3000)) }
	for step := 0; step < 200000; step++ {
		k := key()
		switch rng.Intn(3) {
		case 0:
			op := ops[rng.Intn(len(ops))]
			require.True(t, cgreq.Put(k, op))
			model[k] = op
		case 1:
			cgreq.Forget(k)
			delete(model, k)
		case 2:
			require.Equal(t, model[k], cgreq.Get(k), "step %d key %#x", step, k)
		}
		require.Equal(t, len(model), greq.Current().Requests)
	}
	for k, v := range model {
		require.Equal(t, v, cgreq.Get(k))
		cgreq.Forget(k)
	}
	require.Zero(t, greq.Current().Requests)
	for _, op := range ops {
		cgreq.Release(op)
	}
}

func TestRecordsAreReused(t *testing.T) {
	before := greq.Current()
	a := cgreq.Alloc()
	require.Equal(t, before.Live+1, greq.Current().Live)
	cgreq.Release(a)
	b := cgreq.Alloc()
	require.Equal(t, a, b, "the last released record is handed out first")
	cgreq.Release(b)
	require.Equal(t, before.Live, greq.Current().Live)
}

func TestQueryFillsStatus(t *testing.T) {
	op := cgreq.Alloc()
	defer cgreq.Release(op)
	cgreq.SetResult(op, 3, 77, 0, 4096, false)
	rc, src, tag, err, canc := cgreq.Query(op)
	require.Zero(t, rc)
	require.Equal(t, []int{3, 77, 0}, []int{src, tag, err})
	require.False(t, canc)

	cgreq.SetResult(op, 1, 2, 15, 0, true) // MPICH's MPI_ERR_TRUNCATE class is 15
	rc, _, _, err, canc = cgreq.Query(op)
	require.Equal(t, 15, rc, "the query callback returns the operation's error")
	require.Equal(t, 15, err)
	require.True(t, canc)
}
