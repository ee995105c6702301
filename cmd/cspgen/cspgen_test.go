package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const sample = `
#ifndef X_INCLUDED
#define X_INCLUDED
/* Begin Prototypes */
int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
                  MPICH_ATTR_POINTER_WITH_TYPE_TAG(1,3) MPICH_ATTR_POINTER_WITH_TYPE_TAG(4,6) MPICH_API_PUBLIC;
int MPI_Group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup) MPICH_API_PUBLIC;
int MPI_Comm_free(MPI_Comm *comm) MPICH_API_PUBLIC;
int MPI_Pcontrol(const int level, ...) MPICH_API_PUBLIC;
double MPI_Wtime(void) MPICH_API_PUBLIC;
typedef int (MPI_Foo_t) (MPI_Comm comm);
int MPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[],
                    int reorder, MPI_Comm *comm_cart) MPICH_API_PUBLIC;
#ifndef MPICH
int MPI_Hidden(MPI_Comm comm) MPICH_API_PUBLIC;
#else
int MPI_Shown(MPI_Comm comm, char *x) MPICH_API_PUBLIC;
#endif
int PMPI_File_open(MPI_Comm, const char *, int, MPI_Info, MPI_File *) ROMIO_API_PUBLIC;
#endif
`

func TestParse(t *testing.T) {
	ps, err := Parse(activeText(sample, map[string]bool{"MPICH": true}), "sample.h")
	require.NoError(t, err)
	byName := map[string]Proto{}
	for _, p := range ps {
		byName[p.Name] = p
	}
	require.NotContains(t, byName, "MPI_Hidden", "#ifndef MPICH branch is inactive")
	require.Contains(t, byName, "MPI_Shown")
	require.NotContains(t, byName, "MPI_Foo_t")

	ag := byName["MPI_Allgather"]
	require.Equal(t, "int", ag.Ret)
	require.Len(t, ag.Params, 7)
	require.Equal(t, "const void *buf", strings.Replace(ag.Params[0].Decl(), "sendbuf", "buf", 1))
	require.Equal(t, []int{6}, ag.CommParams())

	rg := byName["MPI_Group_range_incl"]
	require.Equal(t, Param{Type: "int", Name: "ranges", Array: "[][3]"}, rg.Params[2])
	require.Equal(t, "int ranges[][3]", rg.Params[2].Decl())

	require.Empty(t, byName["MPI_Comm_free"].CommParams(), "MPI_Comm * is not by value")
	require.True(t, byName["MPI_Pcontrol"].Variadic)
	require.Empty(t, byName["MPI_Wtime"].Params)
	require.Equal(t, "double", byName["MPI_Wtime"].Ret)

	cc := byName["MPI_Cart_create"]
	require.Equal(t, "const int dims[]", cc.Params[2].Decl())
	require.Equal(t, []int{0}, cc.CommParams())

	fo := byName["PMPI_File_open"]
	require.Equal(t, "MPI_Comm arg0", fo.Params[0].Decl())
	require.Equal(t, "const char *arg1", fo.Params[1].Decl())
	require.True(t, fo.Params[0].ByValueComm())
}

func TestParseRejectsUnknownTrailer(t *testing.T) {
	_, err := Parse("int MPI_X(MPI_Comm comm) whatever;", "x.h")
	require.ErrorContains(t, err, "after the parameter list")
}

func TestDefinitions(t *testing.T) {
	src := `
/* int MPI_Commented(MPI_Comm c) { } */
int MPI_Send(const void *buf, int count, MPI_Datatype dt, int dest, int tag,
             MPI_Comm comm)
{
    return 0;
}
int MPI_Declared(MPI_Comm comm);
static inline int helper(MPI_Comm c) { return 0; }
int MPIX_Comm_revoke(MPI_Comm comm) { return 0; }
`
	require.Equal(t, []string{"MPI_Send", "MPIX_Comm_revoke"}, Definitions(src))
}

// fakeHand writes a .c file defining every function that must be
// hand-written, as the interposer does.
func fakeHand(t *testing.T) string {
	dir := t.TempDir()
	var b strings.Builder
	for _, n := range mustHandWrite {
		b.WriteString("int " + n + "(void)\n{\n    return 0;\n}\n")
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "hand.c"), []byte(b.String()), 0o644))
	return dir
}

func TestGenerateFromMPICH(t *testing.T) {
	inc, err := includeDir()
	if err != nil {
		t.Skip(err)
	}
	src, err := Generate(inc, fakeHand(t), "zz_wrappers.c")
	require.NoError(t, err)
	s := string(src)
	for _, want := range []string{
		"int MPI_Comm_size(MPI_Comm comm, int *size)\n{\n    return PMPI_Comm_size(CSP_IP_MAP(comm), size);\n}",
		"PMPI_Allgather_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, CSP_IP_MAP(comm))",
		"PMPI_Intercomm_create_from_groups", // no by-value comm: must NOT be wrapped (checked below)
		"int MPI_File_open(MPI_Comm comm, const char *filename, int amode, MPI_Info info, MPI_File *fh)",
		"int MPIX_Comm_revoke(MPI_Comm comm)",
		"int MPI_Abort(MPI_Comm comm, int errorcode)",
		"int MPI_Psend_init(", // partitioned: not offloaded, a plain pass-through
	} {
		if strings.Contains(want, "from_groups") {
			require.NotContains(t, s, want)
			continue
		}
		require.Contains(t, s, want)
	}
	for _, not := range []string{"MPI_Type_size(", "int MPI_Isend(", "int MPI_Send_init(", "MPI_DUP_FN(", "MPI_Comm_free("} {
		require.NotContains(t, s, not)
	}
	require.Contains(t, s, "MPI_DUP_FN", "listed as having no PMPI_ counterpart")

	// RMA operations: the target translated on redirected windows, with
	// the target's count and datatype (1 and datatype for the atomics)
	// and the request of the request-based forms.
	for _, want := range []string{
		`csp_rma_target_of(w_, "MPI_Put", target_rank, target_disp, target_count, target_datatype, &g_, &gd_, &gw_)`,
		`PMPI_Put(origin_addr, origin_count, origin_datatype, g_, gd_, target_count, target_datatype, gw_)`,
		`csp_rma_local_enter(w_, target_rank, 0, gw_);
    rc_ = PMPI_Put(`,
		`csp_rma_local_leave(w_, "MPI_Accumulate", target_rank, 1, gw_, rc_)`,
		`csp_rma_local_leave(w_, "MPI_Rget", target_rank, 0, gw_, rc_)`,
		`csp_rma_target_of(w_, "MPI_Fetch_and_op", target_rank, target_disp, 1, datatype, &g_, &gd_, &gw_)`,
		`csp_rma_target_of(w_, "MPI_Rget_accumulate_c", target_rank, target_disp, target_count, target_datatype, &g_, &gd_, &gw_);
    if (rc_ == 1)
        return csp_ip_rma_null_target(request);`,
		`return PMPI_Compare_and_swap(origin_addr, compare_addr, result_addr, datatype, target_rank, target_disp, win);`,
	} {
		require.Contains(t, s, want)
	}
	require.NotContains(t, s, "int MPI_Win_lock(", "synchronization is hand-written")
}

// The checked-in zz_wrappers.c is what the generator produces from the
// installed MPICH and the hand-written wrappers.
func TestCheckedInIsCurrent(t *testing.T) {
	inc, err := includeDir()
	if err != nil {
		t.Skip(err)
	}
	dir := filepath.Join("..", "..", "internal", "interpose")
	have, err := os.ReadFile(filepath.Join(dir, "zz_wrappers.c"))
	if os.IsNotExist(err) {
		t.Skip("internal/interpose/zz_wrappers.c not generated yet")
	}
	require.NoError(t, err)
	want, err := Generate(inc, dir, "zz_wrappers.c")
	require.NoError(t, err)
	require.Equal(t, string(want), string(have), "zz_wrappers.c is stale: run go generate ./internal/interpose")
}
