package commexpand

import (
	"testing"

	"github.com/casperii/casperii/info"
	"github.com/stretchr/testify/require"
)

// twoNodes is 2 nodes x (1 ghost + 2 users): ranks 0 and 3 are ghosts.
func twoNodes(t *testing.T) *Layout {
	l, err := NewLayout([]int32{-1, 0, 0, -1, 3, 3})
	require.NoError(t, err)
	return l
}

func TestLayout(t *testing.T) {
	l := twoNodes(t)
	require.Equal(t, 6, l.Size())
	require.True(t, l.IsGhost(3))
	require.Equal(t, 3, l.GhostOf(5))
	require.Equal(t, []int32{4, 5}, l.UsersOf(3))
	require.Equal(t, 2, l.MaxUsersPerGhost())

	_, err := NewLayout([]int32{-1, 2, -1, 1})
	require.ErrorContains(t, err, "not a ghost")
	_, err = NewLayout([]int32{-1, 7})
	require.ErrorContains(t, err, "not a world rank")
}

func TestMembersGhostOffsets(t *testing.T) {
	l := twoNodes(t)
	// A communicator ordered 5, 1, 4 (comm ranks 0, 1, 2).
	m, err := l.Members([]int32{5, 1, 4})
	require.NoError(t, err)
	require.Equal(t, []int32{3, 0, 3}, m.Ghost)
	require.Equal(t, []int32{1, 0, 0}, m.Offset, "offsets are the ghost's, by world rank")
	require.Equal(t, 2, m.K)

	// A row communicator keeps the ghost's offsets: world rank 2 is its
	// ghost's second user in every communicator.
	m, err = l.Members([]int32{2, 5})
	require.NoError(t, err)
	require.Equal(t, []int32{1, 1}, m.Offset)
	require.Equal(t, 2, m.K)

	_, err = l.Members([]int32{1, 3})
	require.ErrorContains(t, err, "a ghost")
	_, err = l.Members([]int32{1, 1})
	require.ErrorContains(t, err, "twice")
	_, err = l.Members([]int32{9})
	require.ErrorContains(t, err, "outside")
}

// TestDisjointCommunicatorsStayApart: two communicators without a common
// member may get the same slot and context, and then the (ghost, offset)
// pairs of their members never coincide, so their messages cannot mix.
func TestDisjointCommunicatorsStayApart(t *testing.T) {
	l := twoNodes(t)
	a, _ := l.Members([]int32{1, 4}) // first users of both ghosts
	b, _ := l.Members([]int32{2, 5}) // second users of both ghosts
	type key struct{ ghost, off int32 }
	seen := map[key]bool{}
	for _, m := range []Members{a, b} {
		for i := range m.Ghost {
			k := key{m.Ghost[i], m.Offset[i]}
			require.False(t, seen[k], "two users share (ghost %d, offset %d)", k.ghost, k.off)
			seen[k] = true
		}
	}
	opt := DecideOptions{TagSpace: true}
	p := NewPool(PoolConfig{Contexts: 4, DupSlots: 8, DupSrcSlots: 8})
	pa, _ := p.Decide(p.Words(ok(info.TagEncoding)), a, opt, nil)
	q := NewPool(PoolConfig{Contexts: 4, DupSlots: 8, DupSrcSlots: 8})
	pb, _ := q.Decide(q.Words(ok(info.TagEncoding)), b, opt, nil)
	require.Equal(t, pa.Ctx, pb.Ctx, "disjoint communicators may share a context")
}

// reduce ANDs the members' words, as Allreduce(MPI_BAND) does.
func reduce(ws ...[]uint64) []uint64 {
	out := append([]uint64(nil), ws[0]...)
	for _, w := range ws[1:] {
		for i := range out {
			out[i] &= w[i]
		}
	}
	return out
}

func ok(a info.Algorithm) Proposal { return Proposal{HintsValid: true, Algorithm: a} }

func TestDecideAlgorithms(t *testing.T) {
	l := twoNodes(t)
	m, err := l.Members([]int32{1, 2, 4, 5})
	require.NoError(t, err)
	opt := DecideOptions{TagSpace: true}

	p := NewPool(PoolConfig{Contexts: 4, DupSlots: 8, DupSrcSlots: 8})
	pl, err := p.Decide(p.Words(ok(info.TagEncoding)), m, opt, nil)
	require.NoError(t, err)
	require.Equal(t, info.TagEncoding, pl.Algorithm)
	require.Equal(t, []int{0}, pl.Slots)
	require.Equal(t, 0, pl.Ctx)
	require.Equal(t, 3, p.Free(info.TagEncoding))

	pl2, err := p.Decide(p.Words(ok(info.TagEncoding)), m, opt, nil)
	require.NoError(t, err)
	require.Equal(t, 1, pl2.Ctx, "a second tag-encoded communicator gets the next context")

	gm, err := p.Decide(p.Words(ok(info.GhostMatch)), m, opt, nil)
	require.NoError(t, err)
	require.Equal(t, []int{SlotTagGhost}, gm.Slots, "ghost matching never shares a slot with native matching")
	require.Equal(t, 0, gm.Ctx, "ghost-matched contexts are counted apart")
	require.Equal(t, 2, p.Free(info.TagEncoding))

	dup, err := p.Decide(p.Words(ok(info.Duplication)), m, opt, nil)
	require.NoError(t, err)
	require.Equal(t, []int{2, 3, 4, 5}, dup.Slots, "K=2: one slot per (src, dst) pair")
	require.Equal(t, 4, dup.Slot(1, 0), "src 1 -> dst 0")
	require.Equal(t, 4, p.Free(info.Duplication))

	src, err := p.Decide(p.Words(ok(info.DuplicationSrc)), m, opt, nil)
	require.NoError(t, err)
	require.Equal(t, []int{10, 11}, src.Slots, "ghost-matched duplication slots follow the native ones")
	require.Equal(t, 11, src.Slot(0, 1))
	require.Equal(t, 18, p.Size())

	p.Release(&dup)
	require.Equal(t, 8, p.Free(info.Duplication))
	p.Release(&pl)
	require.Equal(t, 3, p.Free(info.TagEncoding))
	p.Release(&src)
	require.Equal(t, 8, p.Free(info.DuplicationSrc))
}

func TestDecideAgreesAcrossMembers(t *testing.T) {
	l := twoNodes(t)
	all, _ := l.Members([]int32{1, 2, 4, 5})
	pair, _ := l.Members([]int32{1, 4})
	opt := DecideOptions{TagSpace: true}
	pools := []*Pool{NewPool(PoolConfig{Contexts: 4, DupSlots: 4, DupSrcSlots: 4}), NewPool(PoolConfig{Contexts: 4, DupSlots: 4, DupSrcSlots: 4}), NewPool(PoolConfig{Contexts: 4, DupSlots: 4, DupSrcSlots: 4}), NewPool(PoolConfig{Contexts: 4, DupSlots: 4, DupSrcSlots: 4})}

	// Ranks 1 and 4 first build a communicator of their own: its context
	// and slot are taken on them only.
	w := reduce(pools[0].Words(ok(info.TagEncoding)), pools[2].Words(ok(info.TagEncoding)))
	for _, i := range []int{0, 2} {
		pl, err := pools[i].Decide(w, pair, opt, nil)
		require.NoError(t, err)
		require.Equal(t, 0, pl.Ctx)
	}
	// Then all four build one: the AND skips context 0, on every member.
	var ws [][]uint64
	for _, p := range pools {
		ws = append(ws, p.Words(ok(info.TagEncoding)))
	}
	w = reduce(ws...)
	for _, p := range pools {
		pl, err := p.Decide(w, all, opt, nil)
		require.NoError(t, err)
		require.Equal(t, info.TagEncoding, pl.Algorithm)
		require.Equal(t, 1, pl.Ctx, "context 0 is busy on two members")
	}
}

func TestDecideFallsBackToNoOffload(t *testing.T) {
	l := twoNodes(t)
	m, _ := l.Members([]int32{1, 2, 4, 5})
	opt := DecideOptions{TagSpace: true}
	p, q := NewPool(PoolConfig{Contexts: 1, DupSlots: 2, DupSrcSlots: 2}), NewPool(PoolConfig{Contexts: 1, DupSlots: 2, DupSrcSlots: 2})

	pl, err := p.Decide(reduce(p.Words(ok(info.TagEncoding)), q.Words(ok(info.Duplication))), m, opt, nil)
	require.NoError(t, err)
	require.Equal(t, info.NoOffload, pl.Algorithm)
	require.Contains(t, pl.Reason, "disagree")

	bad := Proposal{HintsValid: false, Algorithm: info.TagEncoding}
	pl, err = p.Decide(reduce(p.Words(ok(info.TagEncoding)), q.Words(bad)), m, opt, nil)
	require.NoError(t, err)
	require.Equal(t, info.NoOffload, pl.Algorithm)
	require.Contains(t, pl.Reason, "invalid hint")

	pl, err = p.Decide(p.Words(ok(info.Duplication)), m, opt, nil)
	require.NoError(t, err)
	require.Equal(t, info.NoOffload, pl.Algorithm, "K=2 needs 4 slots, the pool has 2")
	require.Contains(t, pl.Reason, "CSP_COMM_POOL")
	require.Equal(t, 2, p.Free(info.Duplication), "nothing taken")

	pl, err = p.Decide(p.Words(ok(info.TagEncoding)), m, DecideOptions{TagSpace: false}, nil)
	require.NoError(t, err)
	require.Equal(t, info.NoOffload, pl.Algorithm)

	_, err = p.Decide(p.Words(ok(info.TagEncoding)), m, opt, nil)
	require.NoError(t, err)
	pl, err = p.Decide(p.Words(ok(info.TagEncoding)), m, opt, nil)
	require.NoError(t, err)
	require.Equal(t, info.NoOffload, pl.Algorithm, "the only context is taken")
	require.Contains(t, pl.Reason, "contexts")

	_, err = p.Decide([]uint64{1}, m, opt, nil)
	require.Error(t, err)
}

func TestDecideReplace(t *testing.T) {
	l := twoNodes(t)
	m, _ := l.Members([]int32{1, 4})
	opt := DecideOptions{TagSpace: true}
	p := NewPool(PoolConfig{Contexts: 2, DupSlots: 4, DupSrcSlots: 4})
	old, err := p.Decide(p.Words(ok(info.TagEncoding)), m, opt, nil)
	require.NoError(t, err)

	same, err := p.Decide(p.Words(ok(info.TagEncoding)), m, opt, &old)
	require.NoError(t, err)
	require.Equal(t, old.Ctx, same.Ctx, "unchanged hints keep the plan")

	invalid := Proposal{HintsValid: false, Algorithm: info.Duplication}
	kept, err := p.Decide(p.Words(invalid), m, opt, &old)
	require.NoError(t, err)
	require.Equal(t, old, kept, "an invalid hint leaves a communicator's plan as it was")
	require.Equal(t, 1, p.Free(info.TagEncoding))

	nw, err := p.Decide(p.Words(ok(info.Duplication)), m, opt, &old)
	require.NoError(t, err)
	require.Equal(t, info.Duplication, nw.Algorithm)
	require.Equal(t, 1, p.Free(info.TagEncoding), "the old plan keeps its context until the switch")
	require.Equal(t, 0, p.Free(info.Duplication), "K=2: four slots")
	p.Release(&old)
	require.Equal(t, 2, p.Free(info.TagEncoding), "old context released by the caller")
}

func TestBitmap(t *testing.T) {
	b := newBitmap(130)
	for _, i := range []int{3, 64, 129} {
		b.set(i)
	}
	require.Equal(t, []int{3, 64}, b.lowest(2))
	require.Nil(t, b.lowest(4))
	b.clear(64)
	require.Equal(t, 2, b.count())
	require.True(t, b.has(129))
	require.False(t, b.has(500))
}
