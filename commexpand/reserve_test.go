package commexpand

import (
	"testing"

	"github.com/casperii/casperii/info"
	"github.com/stretchr/testify/require"
)

// A plan agreed nonblockingly withholds what it offered, so a plan agreed
// in between (sharing members) cannot pick the same context, and Restore
// followed by Decide takes exactly the chosen resources.
func TestWithholdKeepsConcurrentPlansApart(t *testing.T) {
	l := twoNodes(t)
	m, err := l.Members([]int32{1, 4})
	require.NoError(t, err)
	pool := NewPool(PoolConfig{Contexts: 4, DupSlots: 4, DupSrcSlots: 4})
	opt := DecideOptions{TagSpace: true}

	idup := pool.Words(Proposal{HintsValid: true, Algorithm: info.TagEncoding})
	pool.Withhold(idup)
	require.Equal(t, 0, pool.Free(info.TagEncoding))
	require.Equal(t, 0, pool.Free(info.Duplication))

	// A blocking plan in between finds nothing free and is not offloaded.
	other, err := pool.Decide(pool.Words(Proposal{HintsValid: true, Algorithm: info.TagEncoding}), m, opt, nil)
	require.NoError(t, err)
	require.False(t, other.Offloaded())

	pool.Restore(idup)
	pl, err := pool.Decide(idup, m, opt, nil)
	require.NoError(t, err)
	require.True(t, pl.Offloaded())
	require.Equal(t, 0, pl.Ctx)
	require.Equal(t, 3, pool.Free(info.TagEncoding), "only the chosen context is taken")
	require.Equal(t, 4, pool.Free(info.Duplication))

	pool.Withhold([]uint64{1}) // wrong length: ignored
	require.Equal(t, 3, pool.Free(info.TagEncoding))
}

func TestNarrow(t *testing.T) {
	pool := NewPool(PoolConfig{Contexts: 70, DupSlots: 70, DupSrcSlots: 70})
	count := func(w []uint64) [nKinds]int {
		var n [nKinds]int
		for k, b := range pool.split(w) {
			n[k] = b.count()
		}
		return n
	}
	w := pool.Words(Proposal{HintsValid: true, Algorithm: info.TagEncoding})
	pool.Narrow(w, info.TagEncoding, 3)
	require.Equal(t, [nKinds]int{3, 0, 0, 0}, count(w), "tag encoding offers 3 native contexts, nothing else")
	require.Equal(t, []int{0, 1, 2}, pool.split(w)[kindCtxNative].lowest(3))

	w = pool.Words(Proposal{HintsValid: true, Algorithm: info.Duplication})
	pool.Narrow(w, info.Duplication, 66)
	require.Equal(t, [nKinds]int{0, 0, 66, 0}, count(w))
	require.True(t, pool.split(w)[kindDupNative].has(65) && !pool.split(w)[kindDupNative].has(66))

	w = pool.Words(Proposal{HintsValid: true, Algorithm: info.GhostMatch})
	pool.Narrow(w, info.GhostMatch, 5)
	require.Equal(t, [nKinds]int{0, 5, 0, 0}, count(w))

	w = pool.Words(Proposal{HintsValid: true, Algorithm: info.NoOffload})
	pool.Narrow(w, info.NoOffload, 10)
	require.Equal(t, [nKinds]int{}, count(w), "a plan without offload withholds nothing")
	require.Equal(t, uint64(statusAll), w[0], "status and algorithm words are kept")

	// An idup that withholds a narrowed offer leaves the rest to others.
	w = pool.Words(Proposal{HintsValid: true, Algorithm: info.TagEncoding})
	pool.Narrow(w, info.TagEncoding, 9)
	pool.Withhold(w)
	require.Equal(t, 61, pool.Free(info.TagEncoding))
	pool.Restore(w)
	require.Equal(t, 70, pool.Free(info.TagEncoding))
}

// Threads planning at once narrow from different places: their offers are
// disjoint, each member of one communicator offers the same, and the
// window wraps past the end of the pool.
func TestNarrowFrom(t *testing.T) {
	pool := NewPool(PoolConfig{Contexts: 40, DupSlots: 40, DupSrcSlots: 40})
	offer := func(from int) []int {
		w := pool.Words(Proposal{HintsValid: true, Algorithm: info.TagEncoding})
		pool.NarrowFrom(w, info.TagEncoding, 9, from)
		b := pool.split(w)[kindCtxNative]
		require.Equal(t, 9, b.count(), "from %d", from)
		return b.lowest(9)
	}
	require.Equal(t, []int{0, 1, 2, 3, 4, 5, 6, 7, 8}, offer(0))
	require.Equal(t, []int{9, 10, 11, 12, 13, 14, 15, 16, 17}, offer(1))
	require.Equal(t, []int{0, 1, 2, 3, 4, 36, 37, 38, 39}, offer(4), "36..39 then 0..4")

	// What another thread withholds is skipped: the next free ones count.
	w := pool.Words(Proposal{HintsValid: true, Algorithm: info.TagEncoding})
	pool.NarrowFrom(w, info.TagEncoding, 9, 1)
	pool.Withhold(w)
	require.Equal(t, []int{18, 19, 20, 21, 22, 23, 24, 25, 26}, offer(1))
	pool.Restore(w)
	require.Equal(t, 40, pool.Free(info.TagEncoding))
}
