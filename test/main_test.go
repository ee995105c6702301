package test

import (
	"fmt"
	"os"
	"os/exec"
	"testing"
)

// TestMain removes the programs the tests built. (Only one TestMain may
// exist in the package: add to this one.)
func TestMain(m *testing.M) {
	if _, err := exec.LookPath("mpiexec"); err != nil {
		fmt.Fprintln(os.Stderr, "test: mpiexec is not in PATH; these tests run real MPI jobs (install MPICH)")
		os.Exit(1)
	}
	code := m.Run()
	Cleanup()
	os.Exit(code)
}
