! ip_f08: a `use mpi_f08` program under the interposer.
!
! MPICH's mpi_f08 bindings call PMPI_* directly (mpi_init_f08_ calls
! PMPI_Init, mpi_wait_f08_ PMPI_Wait, ...); libcasperii.so binds those
! calls to its wrappers when it loads (internal/interpose/fortran_f08.c), so
! the program gets the user world, the exposed MPI_TAG_UB and offload like
! a C or `use mpi` program. Each step prints a result line:
!
!   world      MPI_COMM_WORLD's size and rank, MPI_TAG_UB
!   ring       4096 integers to the next rank with Isend/Irecv/Waitall on a
!              duplicate with wildcard_used=none: every value, each
!              status's source and tag, MPI_Get_count
!   probe      an 8-integer MPI_Send found by an MPI_Iprobe loop, then
!              received: the probe's and the receive's status
!   persistent two rounds of MPI_Send_init/MPI_Recv_init/MPI_Startall
!   attr       a keyval of the program's set on MPI_COMM_WORLD and copied by
!              MPI_Comm_dup (MPI_COMM_DUP_FN) to the duplicate
!   split      MPI_Comm_split by parity: the part's size; MPI_Allreduce
!
! Output: "result rank=<r> test=<step> ok=<0|1> ..."
program ip_f08
  use mpi_f08
  implicit none
  integer, parameter :: n = 4096
  integer :: rank, nprocs, nxt, prv, i, ok, cnt, total, keyval, psize, want, round
  integer(kind=MPI_ADDRESS_KIND) :: ub, val, extra
  logical :: flag
  integer :: sbuf(n), rbuf(n), small(8)
  type(MPI_Comm) :: comm, dup, part
  type(MPI_Info) :: info
  type(MPI_Request) :: reqs(2)
  type(MPI_Status) :: stats(2), st

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
  call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, ub, flag)
  ok = 1
  if (.not. flag) ok = 0
  write (*, '(A,I0,A,I0,A,I0,A,I0)') 'result rank=', rank, ' test=world ok=', ok, ' size=', nprocs, ' tagub=', ub

  call MPI_Info_create(info)
  call MPI_Info_set(info, "wildcard_used", "none")
  call MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, comm)
  call MPI_Info_free(info)
  nxt = mod(rank + 1, nprocs)
  prv = mod(rank + nprocs - 1, nprocs)

  ! ring
  do i = 1, n
    sbuf(i) = rank * 100000 + i
    rbuf(i) = -1
  end do
  call MPI_Irecv(rbuf, n, MPI_INTEGER, prv, 5, comm, reqs(1))
  call MPI_Isend(sbuf, n, MPI_INTEGER, nxt, 5, comm, reqs(2))
  call MPI_Waitall(2, reqs, stats)
  call MPI_Get_count(stats(1), MPI_INTEGER, cnt)
  ok = 1
  if (stats(1)%MPI_SOURCE /= prv .or. stats(1)%MPI_TAG /= 5 .or. cnt /= n) ok = 0
  if (reqs(1) /= MPI_REQUEST_NULL .or. reqs(2) /= MPI_REQUEST_NULL) ok = 0
  do i = 1, n
    if (rbuf(i) /= prv * 100000 + i) ok = 0
  end do
  write (*, '(A,I0,A,I0,A,I0,A,I0)') 'result rank=', rank, ' test=ring ok=', ok, ' source=', &
    stats(1)%MPI_SOURCE, ' count=', cnt

  ! probe
  small = rank
  call MPI_Isend(small, 8, MPI_INTEGER, nxt, 9, comm, reqs(2))
  flag = .false.
  do while (.not. flag)
    call MPI_Iprobe(prv, 9, comm, flag, st)
  end do
  call MPI_Get_count(st, MPI_INTEGER, cnt)
  ok = 1
  if (st%MPI_SOURCE /= prv .or. st%MPI_TAG /= 9 .or. cnt /= 8) ok = 0
  small = -1
  call MPI_Wait(reqs(2), MPI_STATUS_IGNORE)
  call MPI_Recv(small, 8, MPI_INTEGER, prv, 9, comm, st)
  if (st%MPI_SOURCE /= prv .or. any(small /= prv)) ok = 0
  write (*, '(A,I0,A,I0)') 'result rank=', rank, ' test=probe ok=', ok

  ! persistent
  call MPI_Recv_init(rbuf, n, MPI_INTEGER, prv, 6, comm, reqs(1))
  call MPI_Send_init(sbuf, n, MPI_INTEGER, nxt, 6, comm, reqs(2))
  ok = 1
  do round = 1, 2
    do i = 1, n
      sbuf(i) = rank * 100000 + round * 10000 + i
      rbuf(i) = -1
    end do
    call MPI_Startall(2, reqs)
    call MPI_Waitall(2, reqs, stats)
    if (stats(1)%MPI_SOURCE /= prv .or. stats(1)%MPI_TAG /= 6) ok = 0
    do i = 1, n
      if (rbuf(i) /= prv * 100000 + round * 10000 + i) ok = 0
    end do
  end do
  call MPI_Request_free(reqs(1))
  call MPI_Request_free(reqs(2))
  write (*, '(A,I0,A,I0)') 'result rank=', rank, ' test=persistent ok=', ok

  ! attr
  extra = 0
  call MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, keyval, extra)
  val = 42 + rank
  call MPI_Comm_set_attr(MPI_COMM_WORLD, keyval, val)
  call MPI_Comm_dup(MPI_COMM_WORLD, dup)
  val = -1
  call MPI_Comm_get_attr(dup, keyval, val, flag)
  ok = 1
  if (.not. flag .or. val /= 42 + rank) ok = 0
  call MPI_Comm_free(dup)
  call MPI_Comm_free_keyval(keyval)
  write (*, '(A,I0,A,I0,A,I0)') 'result rank=', rank, ' test=attr ok=', ok, ' val=', val

  ! split
  call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), rank, part)
  call MPI_Comm_size(part, psize)
  want = (nprocs + 1 - mod(rank, 2)) / 2
  call MPI_Allreduce(1, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  ok = 1
  if (psize /= want .or. total /= nprocs) ok = 0
  call MPI_Comm_free(part)
  write (*, '(A,I0,A,I0,A,I0)') 'result rank=', rank, ' test=split ok=', ok, ' part=', psize

  call MPI_Comm_free(comm)
  call MPI_Finalize()
end program ip_f08
