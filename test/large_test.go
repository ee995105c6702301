package test

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestLargeMessages: messages of more than INT_MAX bytes are legal MPI
// (an int count of a larger type, or the MPI-4 _c calls) and used to be
// refused on an offloaded communicator (MPICH's own test/mpi/pt2pt
// large_message and pt2pt_large found it: "a message of 2 GiB or more
// cannot be offloaded"). The ghost now posts them with MPICH's
// large-count calls. test/cprogs/ip_large.c sends 2 GiB + 16 bytes from
// user 0 to user 1 on MPI_COMM_WORLD (offloaded by default): an int
// count of 8-byte words between malloc'd buffers (the bounce path), then
// between registered buffers MPI_Isend_c/MPI_Irecv_c, persistent
// MPI_Send_init_c/MPI_Recv_init_c, and MPI_Sendrecv_c; every word is
// checked, and the counts (MPI_Get_count, MPI_Get_count_c,
// MPI_Get_elements_x, MPI_UNDEFINED where an int cannot hold it).
// CSP_STATS shows the ghosts carried every message.
func TestLargeMessages(t *testing.T) {
	if testing.Short() {
		t.Skip("moves 2 GiB messages")
	}
	// Peak: two users each with a 2 GiB buffer and a 2 GiB bounce block.
	const need = 10 << 30
	if avail := memAvailable(t); avail < need {
		t.Skipf("needs %d GiB of available memory, the machine has %d GiB", need>>30, avail>>30)
	}
	l := Layout{N: 4, NodeSize: 2}
	prog := CProg(t, "ip_large")
	res := Run(t, Job{Layout: l, Prog: prog, Env: []string{"CSP_STATS=1"}, Preload: true, Timeout: 4 * time.Minute})
	rs := relResults(t, res)
	for _, s := range []string{"int-count", "large-count", "persistent", "sendrecv"} {
		require.Len(t, Select(rs, "test="+s), 2, "section %s on both users:\n%s", s, res.Output())
	}
	st := relStats(t, res, l.Users(), true)
	// User 0 sends four large messages and receives one int back; user 1
	// the other way round.
	require.EqualValues(t, 4, st[0].IsendOffloaded, "user 0's sends went to its ghost: %s", st[0].Fields.Line())
	require.EqualValues(t, 1, st[0].IrecvOffloaded, st[0].Fields.Line())
	require.EqualValues(t, 1, st[1].IsendOffloaded, st[1].Fields.Line())
	require.EqualValues(t, 4, st[1].IrecvOffloaded, "user 1's receives went to its ghost: %s", st[1].Fields.Line())
	for r := 0; r < 2; r++ {
		// the malloc'd int-count buffer and the int on the stack
		require.EqualValues(t, 2, st[r].Bounce, "rank %d: %s", r, st[r].Fields.Line())
	}
}

// memAvailable returns /proc/meminfo's MemAvailable in bytes.
func memAvailable(t *testing.T) int64 {
	t.Helper()
	f, err := os.Open("/proc/meminfo")
	require.NoError(t, err)
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) >= 2 && fs[0] == "MemAvailable:" {
			kb, err := strconv.ParseInt(fs[1], 10, 64)
			require.NoError(t, err)
			return kb << 10
		}
	}
	t.Fatal("no MemAvailable in /proc/meminfo")
	return 0
}
