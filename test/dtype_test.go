package test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestDatatypeLifetime: an application may free a datatype as soon as the
// call that used it returns (MPI 4.0, 5.1.9); operations, persistent
// requests and matched receives that use it keep working until they
// complete. test/cprogs/mr_dtype.c posts with fresh types of six kinds
// (contiguous and not, a lower bound, a predefined pair type), in malloc'd
// and in registered memory, frees each type right after the call and
// checks every byte and the status of every receive, in every
// wildcard_used mode, on the mr layouts; the CSP_STATS counters prove that
// every post was offloaded and which bounced. Sections (one line per peer
// of rank 0): nb (MPI_Isend, Issend, Irsend, Ibsend, Irecv), persist
// (Send_init, Ssend_init, Bsend_init, Rsend_init, Recv_init, each started
// three times), probe (Mprobe/Improbe with Imrecv or Mrecv), sendrecv
// (Isendrecv, Isendrecv_replace), activefree (MPI_Request_free of an
// active persistent receive), partial (a message ending inside an
// element), attrs (the runtime's reference to a type runs none of the
// application's attribute callbacks: MPI_Type_dup would copy them, and
// freeing the copy would delete values the application still holds).
//
// MPICH 4.0.2's own MPI_Isendrecv and MPI_Isendrecv_replace lose a type
// freed while they are pending (an assertion on the type's reference
// count), so on plain MPICH, the control, the sendrecv section is skipped.
func TestDatatypeLifetime(t *testing.T) {
	prog := mrProg{"mr_dtype", []mrSection{
		{"nb", 8, 0, mrEvery("nb")},
		{"persist", 8, 0, mrEvery("persist")},
		{"probe", 8, 0, mrEvery("probe")},
		{"sendrecv", 8, 0, mrEvery("sendrecv")},
		{"activefree", 8, 0, mrEvery("activefree")},
		{"partial", 8, 0, mrEvery("partial")},
		{"attrs", 8, 0, mrEvery("attrs")},
	}}
	for _, l := range mrLayouts {
		t.Run(fmt.Sprintf("%v", l), func(t *testing.T) { mrRun(t, l, prog) })
	}
	t.Run("plain-mpich", func(t *testing.T) {
		res := Run(t, Job{Layout: Layout{N: 2}, Prog: CProg(t, prog.name), Args: []string{"none", "skip=sendrecv"},
			Timeout: mrTimeout})
		rs := ipRequireResults(t, res, 6+2) // 6 sections on rank 0, a posts line per rank
		require.Len(t, Select(rs, "rank=0", "peer=1"), 6)
	})
}

// mrEvery: the section prints one line per peer of rank 0 in every mode.
func mrEvery(test string) func(bool, bool) []mrLine {
	return func(bool, bool) []mrLine { return mrPerPeer(1, test) }
}
