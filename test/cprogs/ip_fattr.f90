! ip_fattr: attributes a Fortran program caches on MPI_COMM_WORLD.
!
! MPICH's Fortran MPI_COMM_SET_ATTR and MPI_ATTR_PUT call MPICH's internal
! MPII_Comm_set_attr, not the C MPI_Comm_set_attr, while MPI_COMM_DUP and
! MPI_COMM_DELETE_ATTR call the C functions: under the interposer an
! attribute set on MPI_COMM_WORLD went to MPICH's world and a duplicate of
! the application's world did not copy it (MPICH's f77/attr/commattr4f).
! For a keyval with MPI_COMM_DUP_FN (MPI_Comm_set_attr) and one with
! MPI_DUP_FN (the deprecated MPI_Attr_put): set on MPI_COMM_WORLD, read back,
! read on a duplicate (copied), deleted from MPI_COMM_WORLD (then not
! found there, still on the duplicate).
!
! Output, one line per keyval kind:
!   "result rank=<r> test=fattr-<comm|attr> ok=<0|1> world=<v> dup=<v> deleted=<0|1>"
program ip_fattr
  use mpi
  implicit none
  integer :: ierr, rank, key, key2, dup, ok, deleted
  integer(kind=MPI_ADDRESS_KIND) :: extra, valin, valout, valdup
  integer :: ival, ivalout, ivaldup
  logical :: found, founddup, foundafter

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)

  ! MPI_Comm_set_attr with MPI_COMM_DUP_FN
  extra = 0
  call MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, key, extra, ierr)
  valin = 4711 + rank
  call MPI_Comm_set_attr(MPI_COMM_WORLD, key, valin, ierr)
  valout = -1
  call MPI_Comm_get_attr(MPI_COMM_WORLD, key, valout, found, ierr)
  call MPI_Comm_dup(MPI_COMM_WORLD, dup, ierr)
  valdup = -1
  call MPI_Comm_get_attr(dup, key, valdup, founddup, ierr)
  call MPI_Comm_delete_attr(MPI_COMM_WORLD, key, ierr)
  call MPI_Comm_get_attr(MPI_COMM_WORLD, key, valout, foundafter, ierr)
  deleted = 0
  if (.not. foundafter) deleted = 1
  ok = 0
  if (found .and. founddup .and. valdup == valin .and. deleted == 1) ok = 1
  call MPI_Comm_get_attr(dup, key, valdup, founddup, ierr)
  if (.not. founddup .or. valdup /= valin) ok = 0
  write (*, '(A,I0,A,I0,A,I0,A,I0,A,I0)') 'result rank=', rank, ' test=fattr-comm ok=', ok, &
       ' world=', valin, ' dup=', valdup, ' deleted=', deleted
  call MPI_Comm_free(dup, ierr)
  call MPI_Comm_free_keyval(key, ierr)

  ! the deprecated MPI_Attr_put with MPI_DUP_FN
  call MPI_Keyval_create(MPI_DUP_FN, MPI_NULL_DELETE_FN, key2, 0, ierr)
  ival = 815 + rank
  call MPI_Attr_put(MPI_COMM_WORLD, key2, ival, ierr)
  ivalout = -1
  call MPI_Attr_get(MPI_COMM_WORLD, key2, ivalout, found, ierr)
  call MPI_Comm_dup(MPI_COMM_WORLD, dup, ierr)
  ivaldup = -1
  call MPI_Attr_get(dup, key2, ivaldup, founddup, ierr)
  call MPI_Attr_delete(MPI_COMM_WORLD, key2, ierr)
  call MPI_Attr_get(MPI_COMM_WORLD, key2, ivalout, foundafter, ierr)
  deleted = 0
  if (.not. foundafter) deleted = 1
  ok = 0
  if (found .and. founddup .and. ivaldup == ival .and. deleted == 1) ok = 1
  write (*, '(A,I0,A,I0,A,I0,A,I0,A,I0)') 'result rank=', rank, ' test=fattr-attr ok=', ok, &
       ' world=', ival, ' dup=', ivaldup, ' deleted=', deleted
  call MPI_Comm_free(dup, ierr)
  call MPI_Keyval_free(key2, ierr)

  call MPI_Finalize(ierr)
end program ip_fattr
