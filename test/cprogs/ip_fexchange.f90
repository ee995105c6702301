! ip_fexchange: a Fortran MPI program under the interposer. MPICH's Fortran
! bindings call the C MPI_* symbols, so the program gets the user world and
! offload like a C program.
!
! A ring exchange of 4096 integers with MPI_Isend/MPI_Irecv/MPI_Waitall on a
! duplicate of MPI_COMM_WORLD with wildcard_used=none.
! Output: "result rank=<r> test=fortran ok=<0|1> size=<n>".
program ip_fexchange
  use mpi
  implicit none
  integer, parameter :: n = 4096
  integer :: ierr, rank, nprocs, comm, info, nxt, prv, i, ok
  integer :: reqs(2), stats(MPI_STATUS_SIZE, 2)
  integer :: sbuf(n), rbuf(n)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  call MPI_Info_create(info, ierr)
  call MPI_Info_set(info, "wildcard_used", "none", ierr)
  call MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, comm, ierr)
  call MPI_Info_free(info, ierr)

  nxt = mod(rank + 1, nprocs)
  prv = mod(rank + nprocs - 1, nprocs)
  do i = 1, n
    sbuf(i) = rank * 100000 + i
    rbuf(i) = -1
  end do
  call MPI_Irecv(rbuf, n, MPI_INTEGER, prv, 5, comm, reqs(1), ierr)
  call MPI_Isend(sbuf, n, MPI_INTEGER, nxt, 5, comm, reqs(2), ierr)
  call MPI_Waitall(2, reqs, stats, ierr)

  ok = 1
  if (stats(MPI_SOURCE, 1) /= prv) ok = 0
  do i = 1, n
    if (rbuf(i) /= prv * 100000 + i) ok = 0
  end do
  write (*, '(A,I0,A,I0,A,I0)') 'result rank=', rank, ' test=fortran ok=', ok, ' size=', nprocs

  call MPI_Comm_free(comm, ierr)
  call MPI_Finalize(ierr)
end program ip_fexchange
