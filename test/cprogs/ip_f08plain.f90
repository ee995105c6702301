! ip_f08plain: a `use mpi_f08` program under the interposer.
!
! MPICH's mpi_f08 bindings call PMPI_* directly (mpi_init_f08_ calls
! PMPI_Init, mpi_comm_size_f08_ PMPI_Comm_size, ...), so libcasperii.so
! never sees such a program's calls: it runs as plain MPI, every process an
! application rank, no ghost, MPICH's own MPI_TAG_UB. This program checks
! that it does run correctly that way (a ring exchange and an allreduce).
!
! Output: "result rank=<r> test=f08 ok=<0|1> size=<n> tagub=<ub>"
program ip_f08plain
  use mpi_f08
  implicit none
  integer :: rank, nprocs, nxt, prv, i, ok, total
  integer(kind=MPI_ADDRESS_KIND) :: ub
  logical :: flag
  integer :: sbuf(64), rbuf(64)
  type(MPI_Request) :: reqs(2)

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
  call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, ub, flag)
  nxt = mod(rank + 1, nprocs)
  prv = mod(rank + nprocs - 1, nprocs)
  do i = 1, 64
    sbuf(i) = rank * 1000 + i
    rbuf(i) = -1
  end do
  call MPI_Irecv(rbuf, 64, MPI_INTEGER, prv, 3, MPI_COMM_WORLD, reqs(1))
  call MPI_Isend(sbuf, 64, MPI_INTEGER, nxt, 3, MPI_COMM_WORLD, reqs(2))
  call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE)
  call MPI_Allreduce(1, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  ok = 1
  if (.not. flag .or. total /= nprocs) ok = 0
  do i = 1, 64
    if (rbuf(i) /= prv * 1000 + i) ok = 0
  end do
  write (*, '(A,I0,A,I0,A,I0,A,I0)') 'result rank=', rank, ' test=f08 ok=', ok, ' size=', nprocs, ' tagub=', ub
  call MPI_Finalize()
end program ip_f08plain
