package test

import (
	"fmt"
	"os"
	"testing"

	"github.com/casperii/casperii/internal/mpich"
)

// TestMain removes the programs the tests built. (Only one TestMain may
// exist in the package: add to this one.)
func TestMain(m *testing.M) {
	if _, err := mpich.Find("mpiexec"); err != nil {
		fmt.Fprintf(os.Stderr, "test: these tests run real MPI jobs with MPICH: %v\n", err)
		os.Exit(1)
	}
	code := m.Run()
	Cleanup()
	os.Exit(code)
}
