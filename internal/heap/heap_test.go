package heap

import (
	"math/rand"
	"testing"
	"unsafe"

	"github.com/casperii/casperii/internal/shm"
	"github.com/stretchr/testify/require"
)

// newTestHeap returns a heap with a table in Go-visible, non-moving memory.
func newTestHeap(t *testing.T, arenaShift int) (*Heap, []Entry) {
	t.Helper()
	seg, err := shm.Create("heap-test-table", MaxSegments*16)
	require.NoError(t, err)
	t.Cleanup(func() { seg.Close() })
	h, err := New(seg.Base(), MaxSegments, arenaShift)
	require.NoError(t, err)
	t.Cleanup(h.Destroy)
	table := unsafe.Slice((*Entry)(seg.Base()), MaxSegments)
	return h, table
}

func TestAllocFreeAccounting(t *testing.T) {
	h, table := newTestHeap(t, 20)
	p, err := h.Alloc(100)
	require.NoError(t, err)
	require.Equal(t, 128, h.BlockSize(p), "100 bytes come from the 128-byte class")
	require.Zero(t, uintptr(p)%64, "blocks are at least 64-byte aligned")
	seg, off, ok := h.Find(p, 100)
	require.True(t, ok)
	require.Equal(t, uint64(1<<20), table[seg].Size, "arena published in the table")
	require.NotZero(t, table[seg].Gen)
	require.Less(t, off, uint64(1<<20))
	_, _, ok = h.Find(p, 1<<21)
	require.False(t, ok, "a range running past the segment is not found")

	st := h.Stats()
	require.Equal(t, uint64(128), st.InUse)
	require.NoError(t, h.Free(p))
	require.Zero(t, h.Stats().InUse)
	require.Error(t, h.Free(unsafe.Add(p, 64)), "interior pointer of a 128-byte block")
	var x int
	require.Error(t, h.Free(unsafe.Pointer(&x)), "foreign pointer")

	q, err := h.Alloc(120)
	require.NoError(t, err)
	require.Equal(t, p, q, "freed block is reused first")
}

func TestLargeAndHuge(t *testing.T) {
	h, table := newTestHeap(t, 20) // 1 MiB arenas: > 512 KiB is huge
	big, err := h.Alloc(200 << 10)
	require.NoError(t, err)
	require.Equal(t, 256<<10, h.BlockSize(big))
	huge, err := h.Alloc(3 << 20)
	require.NoError(t, err)
	seg, off, ok := h.Find(huge, 3<<20)
	require.True(t, ok)
	require.Zero(t, off)
	require.Equal(t, uint64(3<<20), table[seg].Size)
	gen := table[seg].Gen
	require.NoError(t, h.Free(huge))
	require.Zero(t, table[seg].Size, "freed huge segment leaves the table")
	require.Equal(t, gen+1, table[seg].Gen)
	require.NoError(t, h.Free(big))
	require.Zero(t, h.Stats().InUse)
}

// TestGhostView maps a segment a second time, as the ghost does through
// /proc/<pid>/fd, and checks both views share the bytes.
func TestGhostView(t *testing.T) {
	h, table := newTestHeap(t, 20)
	p, err := h.Alloc(4096)
	require.NoError(t, err)
	seg, off, ok := h.Find(p, 4096)
	require.True(t, ok)
	view, err := shm.Open(shm.Pid(), int(table[seg].Fd), int(table[seg].Size))
	require.NoError(t, err)
	defer view.Close()
	copy(unsafe.Slice((*byte)(p), 4096), "hello ghost")
	require.Equal(t, "hello ghost", string(view.Bytes()[off:off+11]))
}

func TestExternal(t *testing.T) {
	h, table := newTestHeap(t, 20)
	s, err := shm.Create("ext", 1<<16)
	require.NoError(t, err)
	defer s.Close()
	seg, err := h.AddExternal(s.Fd(), s.Base(), 1<<16)
	require.NoError(t, err)
	require.Equal(t, int32(s.Fd()), table[seg].Fd)
	got, off, ok := h.Find(unsafe.Add(s.Base(), 100), 10)
	require.True(t, ok)
	require.Equal(t, seg, got)
	require.Equal(t, uint64(100), off)
	require.Error(t, h.Free(s.Base()), "external memory is not the heap's to free")

	// Hidden (MPI_Win_free of a registered window, before MPI unmaps it):
	// no address is found in it, the ghost's entry stays, and a new segment
	// cannot take its slot; shown again, it is found as before.
	entry := table[seg]
	require.NoError(t, h.HideExternal(seg, true))
	require.NoError(t, h.HideExternal(seg, true), "hiding twice keeps the size")
	_, _, ok = h.Find(unsafe.Add(s.Base(), 100), 10)
	require.False(t, ok, "a hidden segment holds no address")
	require.Equal(t, entry, table[seg], "the ghost's entry is unchanged")
	s2, err := shm.Create("ext2", 1<<16)
	require.NoError(t, err)
	defer s2.Close()
	seg2, err := h.AddExternal(s2.Fd(), s2.Base(), 1<<16)
	require.NoError(t, err)
	require.NotEqual(t, seg, seg2, "a hidden segment keeps its slot")
	require.NoError(t, h.RemoveExternal(seg2))
	require.NoError(t, h.HideExternal(seg, false))
	got, off, ok = h.Find(unsafe.Add(s.Base(), 100), 10)
	require.True(t, ok)
	require.Equal(t, seg, got)
	require.Equal(t, uint64(100), off)
	require.Error(t, h.HideExternal(seg2, true), "only external segments")

	require.NoError(t, h.HideExternal(seg, true))
	require.NoError(t, h.RemoveExternal(seg), "a hidden segment is removed as any")
	_, _, ok = h.Find(s.Base(), 1)
	require.False(t, ok)
	require.Error(t, h.RemoveExternal(seg))
}

// TestRandomAgainstModel allocates and frees at random, writing a pattern
// into each block: blocks never overlap, every free succeeds, and the heap
// returns to zero bytes in use.
func TestRandomAgainstModel(t *testing.T) {
	h, _ := newTestHeap(t, 21)
	rng := rand.New(rand.NewSource(1))
	type blk struct {
		p    unsafe.Pointer
		n    int
		mark byte
	}
	var live []blk
	check := func(b blk) {
		s := unsafe.Slice((*byte)(b.p), b.n)
		for i := range s {
			if s[i] != b.mark {
				t.Fatalf("block %p of %d bytes corrupted at %d", b.p, b.n, i)
			}
		}
	}
	for i := 0; i < 20000; i++ {
		if len(live) > 0 && rng.Intn(3) == 0 {
			j := rng.Intn(len(live))
			check(live[j])
			require.NoError(t, h.Free(live[j].p))
			live[j] = live[len(live)-1]
			live = live[:len(live)-1]
			continue
		}
		n := 1 + rng.Intn(1<<uint(rng.Intn(20)))
		p, err := h.Alloc(n)
		require.NoError(t, err)
		b := blk{p, n, byte(i)}
		s := unsafe.Slice((*byte)(p), n)
		for k := range s {
			s[k] = b.mark
		}
		live = append(live, b)
	}
	for _, b := range live {
		check(b)
		require.NoError(t, h.Free(b.p))
	}
	st := h.Stats()
	require.Zero(t, st.InUse, "every byte returned")
	require.Equal(t, st.Allocs, st.Frees)
}
