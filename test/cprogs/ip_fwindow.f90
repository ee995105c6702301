! ip_fwindow: a registered window of MPI_COMM_SELF as a Fortran program
! sees it under the interposer.
!
! With shmbuf_regist=true the interposer makes the window with
! MPI_Win_create over its shared heap (MPICH would allocate it with
! malloc), and MPICH's Fortran MPI_WIN_GET_ATTR bypasses the C
! MPI_Win_get_attr, so the interposer wraps it (fortran_attr.c). This
! program asks for MPI_WIN_CREATE_FLAVOR through `use mpi`, mpif.h and
! `use mpi_f08`, each in its own program unit: MPI_WIN_FLAVOR_SHARED for a
! window of MPI_Win_allocate_shared (1000 bytes, displacement unit 4, with
! the hint), MPI_WIN_FLAVOR_CREATE for one of MPI_Win_create (the wrappers
! change nothing else). MPI_Win_shared_query reports the window's size,
! unit and base through `use mpi` and both of mpi_f08's (whose bindings
! call PMPI_*, bound to the wrappers: fortran_f08.c). The window is freed
! through mpi_f08; a
! window of MPI_Win_create made next (MPICH gives it the freed handle) is
! of flavor MPI_WIN_FLAVOR_CREATE.
!
! Output, one line per check:
!   "result rank=<r> test=fwin-<binding> ok=<0|1> flavor=<f> create=<f>"
!     for binding = mpi, mpif, f08
!   "result rank=<r> test=fwin-query ok=<0|1>"        (use mpi)
!   "result rank=<r> test=fwin-query-f08 ok=<0|1>"    (both mpi_f08 forms)
!   "result rank=<r> test=fwin-after-free ok=<0|1> flavor=<f>"
program ip_fwindow
  use mpi
  implicit none
  integer :: ierr, rank, info, win, cwin, du, ok
  integer(kind=MPI_ADDRESS_KIND) :: sz, base, qsz, qbase, fl, cfl
  integer :: arr(10)
  logical :: flag

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Info_create(info, ierr)
  call MPI_Info_set(info, 'shmbuf_regist', 'true', ierr)
  sz = 1000
  call MPI_Win_allocate_shared(sz, 4, info, MPI_COMM_SELF, base, win, ierr)
  call MPI_Info_free(info, ierr)
  sz = 40
  call MPI_Win_create(arr, sz, 4, MPI_INFO_NULL, MPI_COMM_SELF, cwin, ierr)

  fl = -1
  cfl = -1
  call MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, fl, flag, ierr)
  call MPI_Win_get_attr(cwin, MPI_WIN_CREATE_FLAVOR, cfl, flag, ierr)
  call report('fwin-mpi', fl, cfl)
  call get_mpif(win, cwin, fl, cfl)
  call report('fwin-mpif', fl, cfl)
  call get_f08(win, cwin, fl, cfl)
  call report('fwin-f08', fl, cfl)

  call MPI_Win_shared_query(win, 0, qsz, du, qbase, ierr)
  ok = 0
  if (ierr == MPI_SUCCESS .and. qsz == 1000 .and. du == 4 .and. qbase == base) ok = 1
  write (*, '(A,I0,A,I0)') 'result rank=', rank, ' test=fwin-query ok=', ok
  call query_f08(win, base, ok)
  write (*, '(A,I0,A,I0)') 'result rank=', rank, ' test=fwin-query-f08 ok=', ok

  call MPI_Win_free(cwin, ierr)
  call free_f08(win, ok)
  sz = 40
  call MPI_Win_create(arr, sz, 4, MPI_INFO_NULL, MPI_COMM_SELF, cwin, ierr)
  call MPI_Win_get_attr(cwin, MPI_WIN_CREATE_FLAVOR, fl, flag, ierr)
  if (fl /= MPI_WIN_FLAVOR_CREATE) ok = 0
  write (*, '(A,I0,A,I0,A,I0)') 'result rank=', rank, ' test=fwin-after-free ok=', ok, ' flavor=', fl
  call MPI_Win_free(cwin, ierr)
  call MPI_Finalize(ierr)

contains

  subroutine report(name, flavor, create)
    character(len=*), intent(in) :: name
    integer(kind=MPI_ADDRESS_KIND), intent(in) :: flavor, create
    integer :: g
    g = 0
    if (flavor == MPI_WIN_FLAVOR_SHARED .and. create == MPI_WIN_FLAVOR_CREATE) g = 1
    write (*, '(A,I0,A,A,A,I0,A,I0,A,I0)') 'result rank=', rank, ' test=', name, ' ok=', g, &
      ' flavor=', flavor, ' create=', create
  end subroutine report

end program ip_fwindow

! mpif.h: MPI_WIN_GET_ATTR.
subroutine get_mpif(win, cwin, fl, cfl)
  implicit none
  include 'mpif.h'
  integer, intent(in) :: win, cwin
  integer(kind=MPI_ADDRESS_KIND), intent(out) :: fl, cfl
  integer :: ierr
  logical :: flag

  fl = -1
  cfl = -1
  call MPI_WIN_GET_ATTR(win, MPI_WIN_CREATE_FLAVOR, fl, flag, ierr)
  call MPI_WIN_GET_ATTR(cwin, MPI_WIN_CREATE_FLAVOR, cfl, flag, ierr)
end subroutine get_mpif

! use mpi_f08: MPI_Win_get_attr, with and without the optional ierror.
subroutine get_f08(win, cwin, fl, cfl)
  use mpi_f08
  implicit none
  integer, intent(in) :: win, cwin
  integer(kind=MPI_ADDRESS_KIND), intent(out) :: fl, cfl
  type(MPI_Win) :: w, cw
  integer :: ierr
  logical :: flag

  w%MPI_VAL = win
  cw%MPI_VAL = cwin
  fl = -1
  cfl = -1
  call MPI_Win_get_attr(w, MPI_WIN_CREATE_FLAVOR, fl, flag, ierr)
  call MPI_Win_get_attr(cw, MPI_WIN_CREATE_FLAVOR, cfl, flag)
end subroutine get_f08

! use mpi_f08: MPI_Win_shared_query with an INTEGER and an address-sized
! displacement unit, with and without the optional ierror.
subroutine query_f08(win, base, ok)
  use mpi_f08
  use, intrinsic :: iso_c_binding, only: c_ptr, c_intptr_t, c_associated
  implicit none
  integer, intent(in) :: win
  integer(kind=MPI_ADDRESS_KIND), intent(in) :: base
  integer, intent(out) :: ok
  type(MPI_Win) :: w
  type(c_ptr) :: p1, p2
  integer(kind=MPI_ADDRESS_KIND) :: sz1, sz2, du2
  integer :: du1, ierr

  w%MPI_VAL = win
  ok = 0
  call MPI_Win_shared_query(w, 0, sz1, du1, p1, ierr)
  call MPI_Win_shared_query(w, MPI_PROC_NULL, sz2, du2, p2)
  if (ierr == MPI_SUCCESS .and. sz1 == 1000 .and. du1 == 4 .and. sz2 == 1000 .and. du2 == 4 &
      .and. transfer(p1, 0_c_intptr_t) == base .and. transfer(p2, 0_c_intptr_t) == base) ok = 1
end subroutine query_f08

! use mpi_f08: MPI_Win_free.
subroutine free_f08(win, ok)
  use mpi_f08
  implicit none
  integer, intent(in) :: win
  integer, intent(out) :: ok
  type(MPI_Win) :: w
  integer :: ierr

  w%MPI_VAL = win
  call MPI_Win_free(w, ierr)
  ok = 0
  if (ierr == MPI_SUCCESS .and. w == MPI_WIN_NULL) ok = 1
end subroutine free_f08
