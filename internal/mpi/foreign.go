package mpi

/*
#include "cspmpi.h"
*/
import "C"

import "fmt"

// ForeignMPI says why the process cannot run on this package, or "": it
// is built for MPICH's ABI (integer handles, libmpich.so.12), so a program
// built with another MPI (it brings its own MPI_*/PMPI_* symbols, which
// win the dynamic linker's lookup) would crash in the first MPI call. Open
// MPI is recognized by its own symbols. It must be called before any MPI
// function.
func ForeignMPI() string {
	if s := C.csp_openmpi_symbol(); s != nil {
		return fmt.Sprintf("this program runs on Open MPI (%s is defined), and CasperII works with MPICH only (libmpich.so.12): "+
			"build the program with MPICH's mpicc or mpifort (mpicc.mpich, mpifort.mpich where Open MPI is the default), or run it without lib/libcasperii.so", C.GoString(s))
	}
	return ""
}
