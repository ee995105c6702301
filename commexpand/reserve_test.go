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
	pool := NewPool(4, 4)
	opt := DecideOptions{TagSpace: true}

	idup := pool.Words(Proposal{HintsValid: true, Quiet: true, Algorithm: info.TagEncoding})
	pool.Withhold(idup)
	require.Equal(t, 0, pool.FreeContexts())
	require.Equal(t, 0, pool.FreeDupSlots())

	// A blocking plan in between finds nothing free and is not offloaded.
	other, err := pool.Decide(pool.Words(Proposal{HintsValid: true, Quiet: true, Algorithm: info.TagEncoding}), m, opt, nil)
	require.NoError(t, err)
	require.False(t, other.Offloaded())

	pool.Restore(idup)
	pl, err := pool.Decide(idup, m, opt, nil)
	require.NoError(t, err)
	require.True(t, pl.Offloaded())
	require.Equal(t, 0, pl.Ctx)
	require.Equal(t, 3, pool.FreeContexts(), "only the chosen context is taken")
	require.Equal(t, 4, pool.FreeDupSlots())

	pool.Withhold([]uint64{1}) // wrong length: ignored
	require.Equal(t, 3, pool.FreeContexts())
}

func TestNarrow(t *testing.T) {
	pool := NewPool(70, 70)
	w := pool.Words(Proposal{HintsValid: true, Quiet: true, Algorithm: info.TagEncoding})
	pool.Narrow(w, info.TagEncoding, 3)
	require.Equal(t, []int{0, 1, 2}, Bitmap(w[2:4]).lowest(3))
	require.Equal(t, 3, Bitmap(w[2:4]).count())
	require.Zero(t, Bitmap(w[4:]).count(), "tag encoding offers no duplication slot")

	w = pool.Words(Proposal{HintsValid: true, Quiet: true, Algorithm: info.Duplication})
	pool.Narrow(w, info.Duplication, 66)
	require.Zero(t, Bitmap(w[2:4]).count())
	require.Equal(t, 66, Bitmap(w[4:]).count())
	require.True(t, Bitmap(w[4:]).has(65) && !Bitmap(w[4:]).has(66))

	w = pool.Words(Proposal{HintsValid: true, Quiet: true, Algorithm: info.NoOffload})
	pool.Narrow(w, info.NoOffload, 10)
	require.Zero(t, Bitmap(w[2:]).count(), "a plan without offload withholds nothing")
	require.Equal(t, uint64(statusAll), w[0], "status and algorithm words are kept")

	// An idup that withholds a narrowed offer leaves the rest to others.
	w = pool.Words(Proposal{HintsValid: true, Quiet: true, Algorithm: info.TagEncoding})
	pool.Narrow(w, info.TagEncoding, 9)
	pool.Withhold(w)
	require.Equal(t, 61, pool.FreeContexts())
	pool.Restore(w)
	require.Equal(t, 70, pool.FreeContexts())
}
