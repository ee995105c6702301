package greq_test

import (
	"testing"

	"github.com/casperii/casperii/internal/mpi"
	"github.com/casperii/casperii/internal/mpitest"
)

// The status callbacks call MPI, so the tests run as a 1-process MPI job.
func TestMain(m *testing.M) {
	mpitest.Main(m, 1,
		mpitest.Init(func() error { _, err := mpi.InitThread(mpi.ThreadSingle); return err }),
		mpitest.Finalize(mpi.Finalize))
}
