// Package interpose is the C interposer of libcasperii.so: the MPI_*
// symbols an unmodified C or Fortran MPI program calls, with MPICH's PMPI_*
// underneath.
//
// Every MPI function that takes a communicator maps MPI_COMM_WORLD to the
// user world (the processes that are not ghosts). Most do nothing else and
// are generated from MPICH's headers by cmd/cspgen into zz_wrappers.c. The
// rest are written by hand, each in the C file of its job:
//
//	init.c       MPI_Init, MPI_Init_thread, MPI_Finalize (the runtime starts and ends)
//	p2p.c        point-to-point calls and their large-count variants (the fast path)
//	isendrecv.c  MPI_Isendrecv(_replace): one request over two offloaded halves
//	complete.c   the Wait/Test family, Request_free, Cancel, Request_get_status
//	comm.c       communicator constructors, hints, Comm_free, attributes, error handlers
//	errhandler.c MPI_Comm_create_errhandler: handlers see MPI_COMM_WORLD, not the user world
//	fortran_attr.c  MPI_TAG_UB through MPICH's Fortran attribute getters (they bypass the C ones)
//	fortran_f08.c   mpi_f08's PMPI_* calls bound to the wrappers at load
//	idup.c       MPI_Comm_idup(_with_info), planned without blocking
//	memory.c     MPI_Alloc_mem/Free_mem, MPI_Win_allocate_shared/Win_free
//	errstring.c  MPI_Error_string for the runtime's error codes
//
// and the Go hooks: hooks.go (init, finalize, communicators), idup.go,
// memory.go, window.go (registered shared windows, see docs/design.md),
// errcode.go (one registered MPI error code per distinct message).
//
// The per-call paths are C (internal/user's fast path); the C code calls
// into Go only where the runtime must decide something (initialization,
// communicator creation and hints, memory registration), through the
// csp_go_* hooks of this package.
//
// The package is built into lib/libcasperii.so by cmd/libcasperii
// (go build -buildmode=c-shared). Adding a hand-written wrapper: define it
// in a .c file here and run go generate, which drops its generated
// pass-through.
package interpose

//go:generate go run ../../cmd/cspgen -out zz_wrappers.c
