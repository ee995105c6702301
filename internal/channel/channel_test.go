package channel

import (
	"testing"

	"github.com/casperii/casperii/internal/shm"
	"github.com/stretchr/testify/require"
)

func TestCreateAttach(t *testing.T) {
	u, err := CreateUser(64, 3)
	require.NoError(t, err)
	defer u.Close()
	u.Cells.At(63).Gen = 77
	require.True(t, u.Ring.Producer().TryPush(63))

	g, err := AttachUser(shm.Pid(), u.Seg.Fd(), 3)
	require.NoError(t, err)
	defer g.Close()
	require.Equal(t, uint32(64), g.Hdr.Ncells)
	var got [1]uint64
	n, err := g.Ring.Consumer().PopBatch(got[:])
	require.NoError(t, err)
	require.Equal(t, 1, n)
	require.Equal(t, uint32(77), g.Cells.At(uint32(got[0])).Gen, "the ghost sees the user's cell")

	_, err = AttachUser(shm.Pid(), u.Seg.Fd(), 4)
	require.ErrorContains(t, err, "expected pid")
	_, err = CreateUser(3, 0)
	require.ErrorContains(t, err, "CSP_OFFLOAD_SHMQ_NCELLS")
}

func TestAttachRejectsTamperedHeaders(t *testing.T) {
	for name, tamper := range map[string]func(h *ChanHdr){
		"magic":     func(h *ChanHdr) { h.Magic = 0 },
		"version":   func(h *ChanHdr) { h.Version = 9 },
		"cells":     func(h *ChanHdr) { h.Ncells = 1 << 30 },
		"ring off":  func(h *ChanHdr) { h.RingOff = 12 },
		"cells off": func(h *ChanHdr) { h.CellsOff += 64 },
		"size":      func(h *ChanHdr) { h.Size = 1 << 40 },
		"ncells":    func(h *ChanHdr) { h.Ncells = 32 },
	} {
		t.Run(name, func(t *testing.T) {
			u, err := CreateUser(64, 0)
			require.NoError(t, err)
			defer u.Close()
			tamper(u.Hdr)
			_, err = AttachUser(shm.Pid(), u.Seg.Fd(), 0)
			require.Error(t, err)
		})
	}
}

func TestGhostBlock(t *testing.T) {
	g, err := CreateGhost(5)
	require.NoError(t, err)
	defer g.Close()
	v, err := AttachGhost(shm.Pid(), g.Seg.Fd(), 5)
	require.NoError(t, err)
	defer v.Close()
	g.Hdr.Parked = 1
	require.Equal(t, uint32(1), v.Hdr.Parked)
	_, err = AttachGhost(shm.Pid(), g.Seg.Fd(), 6)
	require.Error(t, err)
}
