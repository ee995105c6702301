! ip_ftagub: MPI_TAG_UB as a Fortran program sees it under the interposer.
!
! MPICH's Fortran attribute getters do not go through the C
! MPI_Comm_get_attr, so the interposer wraps them (fortran_attr.c). This
! program asks for MPI_TAG_UB through every Fortran binding: `use mpi`
! (MPI_Comm_get_attr and the deprecated MPI_Attr_get), mpif.h
! (MPI_COMM_GET_ATTR, MPI_ATTR_GET) and `use mpi_f08`, each in its own
! program unit, then uses the bound: a ring exchange with tag = MPI_TAG_UB on
! a duplicate of MPI_COMM_WORLD with wildcard_used=none succeeds, and a send
! with tag MPI_TAG_UB+1 fails with MPI_ERR_TAG (MPI_ERRORS_RETURN is set).
!
! Output, one line per check:
!   "result rank=<r> test=tagub-<binding> ok=<0|1> tagub=<value>"
!     for binding = mpi, mpi-attr, mpif, mpif-attr, f08
!   "result rank=<r> test=tagub-same ok=<0|1>"       (all five agree)
!   "result rank=<r> test=tagub-send ok=<0|1> tag=<tag>"
!   "result rank=<r> test=tagub-above ok=<0|1> class=<error class>"
program ip_ftagub
  use mpi
  implicit none
  integer :: ierr, rank, nprocs, comm, info, nxt, prv, ok, cls, ierr2, i
  integer :: ub_attr, ub_fattr, req, reqs(2), stats(MPI_STATUS_SIZE, 2)
  integer(kind=MPI_ADDRESS_KIND) :: ub_mpi, ub_f, ub_f08
  integer :: sbuf(8), rbuf(8)
  logical :: flag

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)

  ub_mpi = -1
  call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, ub_mpi, flag, ierr)
  call report('tagub-mpi', flag .and. ierr == MPI_SUCCESS .and. ub_mpi > 0, ub_mpi)

  ub_attr = -1
  call MPI_Attr_get(MPI_COMM_WORLD, MPI_TAG_UB, ub_attr, flag, ierr)
  call report('tagub-mpi-attr', flag .and. ierr == MPI_SUCCESS .and. ub_attr > 0, int(ub_attr, MPI_ADDRESS_KIND))

  call get_mpif(ub_f, ub_fattr, ok)
  call report('tagub-mpif', ok == 1 .and. ub_f > 0, ub_f)
  call report('tagub-mpif-attr', ok == 1 .and. ub_fattr > 0, int(ub_fattr, MPI_ADDRESS_KIND))

  call get_f08(ub_f08, ok)
  call report('tagub-f08', ok == 1 .and. ub_f08 > 0, ub_f08)

  ok = 0
  if (ub_attr == ub_mpi .and. ub_f == ub_mpi .and. ub_fattr == ub_mpi .and. ub_f08 == ub_mpi) ok = 1
  write (*, '(A,I0,A,I0)') 'result rank=', rank, ' test=tagub-same ok=', ok

  ! The bound is usable: tag = MPI_TAG_UB on a communicator that encodes tags.
  call MPI_Info_create(info, ierr)
  call MPI_Info_set(info, 'wildcard_used', 'none', ierr)
  call MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, comm, ierr)
  call MPI_Info_free(info, ierr)
  call MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN, ierr)
  nxt = mod(rank + 1, nprocs)
  prv = mod(rank + nprocs - 1, nprocs)
  do i = 1, 8
    sbuf(i) = rank * 100 + i
    rbuf(i) = -1
  end do
  call MPI_Irecv(rbuf, 8, MPI_INTEGER, prv, int(ub_mpi), comm, reqs(1), ierr)
  ok = 0
  if (ierr == MPI_SUCCESS) ok = 1
  call MPI_Isend(sbuf, 8, MPI_INTEGER, nxt, int(ub_mpi), comm, reqs(2), ierr)
  if (ierr /= MPI_SUCCESS) ok = 0
  call MPI_Waitall(2, reqs, stats, ierr)
  if (ierr /= MPI_SUCCESS) ok = 0
  if (stats(MPI_TAG, 1) /= ub_mpi .or. stats(MPI_SOURCE, 1) /= prv) ok = 0
  do i = 1, 8
    if (rbuf(i) /= prv * 100 + i) ok = 0
  end do
  write (*, '(A,I0,A,I0,A,I0)') 'result rank=', rank, ' test=tagub-send ok=', ok, ' tag=', ub_mpi

  ! One above the bound is refused.
  call MPI_Isend(sbuf, 8, MPI_INTEGER, nxt, int(ub_mpi) + 1, comm, req, ierr)
  cls = MPI_SUCCESS
  if (ierr /= MPI_SUCCESS) call MPI_Error_class(ierr, cls, ierr2)
  ok = 0
  if (cls == MPI_ERR_TAG) ok = 1
  write (*, '(A,I0,A,I0,A,I0)') 'result rank=', rank, ' test=tagub-above ok=', ok, ' class=', cls

  call MPI_Comm_free(comm, ierr)
  call MPI_Finalize(ierr)

contains

  subroutine report(name, good, value)
    character(len=*), intent(in) :: name
    logical, intent(in) :: good
    integer(kind=MPI_ADDRESS_KIND), intent(in) :: value
    integer :: g
    g = 0
    if (good) g = 1
    write (*, '(A,I0,A,A,A,I0,A,I0)') 'result rank=', rank, ' test=', name, ' ok=', g, ' tagub=', value
  end subroutine report

end program ip_ftagub

! mpif.h: MPI_COMM_GET_ATTR (an address-sized value) and MPI_ATTR_GET (INTEGER).
subroutine get_mpif(ub, ub_attr, ok)
  implicit none
  include 'mpif.h'
  integer(kind=MPI_ADDRESS_KIND), intent(out) :: ub
  integer, intent(out) :: ub_attr, ok
  integer :: ierr
  logical :: flag, flag2

  ub = -1
  ub_attr = -1
  call MPI_COMM_GET_ATTR(MPI_COMM_WORLD, MPI_TAG_UB, ub, flag, ierr)
  ok = 0
  if (flag .and. ierr == MPI_SUCCESS) ok = 1
  call MPI_ATTR_GET(MPI_COMM_WORLD, MPI_TAG_UB, ub_attr, flag2, ierr)
  if (.not. flag2 .or. ierr /= MPI_SUCCESS) ok = 0
end subroutine get_mpif

! use mpi_f08: MPI_Comm_get_attr, with and without the optional ierror.
subroutine get_f08(ub, ok)
  use mpi_f08
  implicit none
  integer(kind=MPI_ADDRESS_KIND), intent(out) :: ub
  integer, intent(out) :: ok
  integer(kind=MPI_ADDRESS_KIND) :: ub2
  integer :: ierr
  logical :: flag, flag2

  ub = -1
  ub2 = -2
  call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, ub, flag, ierr)
  call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, ub2, flag2)
  ok = 0
  if (flag .and. flag2 .and. ierr == MPI_SUCCESS .and. ub2 == ub) ok = 1
end subroutine get_f08
