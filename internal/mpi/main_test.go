package mpi_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/casperii/casperii/internal/mpi"
	"github.com/casperii/casperii/internal/mpitest"
	"github.com/stretchr/testify/require"
)

// The tests run as a 2-rank MPI job; every test is collective (all ranks run
// all tests in the same order), so a test must not return early on one rank
// only.
func TestMain(m *testing.M) {
	mpitest.Main(m, 2, mpitest.Init(initMPI), mpitest.Finalize(mpi.Finalize))
}

func initMPI() error {
	prov, err := mpi.InitThread(mpi.ThreadMultiple)
	if err != nil {
		return err
	}
	if prov < mpi.ThreadSerialized {
		return fmt.Errorf("MPI provides thread level %d, tests need at least serialized", prov)
	}
	// Errors come back as *mpi.Error instead of aborting the job.
	if err := mpi.CommWorld.SetErrhandler(mpi.ErrorsReturn); err != nil {
		return err
	}
	return mpi.CommSelf.SetErrhandler(mpi.ErrorsReturn)
}

// world returns this process's rank, the job size and its peer (the other rank).
func world(t testing.TB) (rank, size, peer int) {
	t.Helper()
	rank, err := mpi.CommWorld.Rank()
	require.NoError(t, err)
	size, err = mpi.CommWorld.Size()
	require.NoError(t, err)
	require.Equal(t, 2, size, "these tests need exactly 2 ranks")
	return rank, size, 1 - rank
}

// allocMem returns n bytes of MPI memory as a byte slice, freed at cleanup.
func allocMem(t testing.TB, n int) []byte {
	t.Helper()
	p, err := mpi.AllocMem(n, mpi.InfoNull)
	require.NoError(t, err)
	require.NotNil(t, p)
	t.Cleanup(func() { require.NoError(t, mpi.FreeMem(p)) })
	return unsafeBytes(p, n)
}

// barrier synchronizes the ranks.
func barrier(t testing.TB) {
	t.Helper()
	require.NoError(t, mpi.CommWorld.Barrier())
}

// waitUntil polls cond until it holds or the deadline passes.
func waitUntil(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}
