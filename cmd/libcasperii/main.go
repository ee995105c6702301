// Command libcasperii is built as lib/libcasperii.so (make build):
//
//	go build -buildmode=c-shared -o lib/libcasperii.so ./cmd/libcasperii
//
// The library defines the MPI_* symbols of an MPI program (package
// internal/interpose) on top of MPICH's PMPI_*. Use it unmodified with
//
//	mpiexec -n N -genv LD_PRELOAD <repo>/lib/libcasperii.so ./app
//
// or link it before the MPI library: mpicc app.c -L<repo>/lib -lcasperii
// (with -Wl,-rpath,<repo>/lib, or LD_LIBRARY_PATH, to find it at run time).
package main

import _ "github.com/casperii/casperii/internal/interpose"

func main() {}
