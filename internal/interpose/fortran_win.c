/*
 * fortran_win.c: mpi_f08's window calls that must see registered windows.
 *
 * MPICH's mpi_f08 bindings call PMPI_* directly, past the interposer. A
 * program that makes a registered window through the C or `use mpi`
 * bindings (mpi_f08's MPI_Win_allocate_shared makes plain ones) and uses
 * it through mpi_f08 would then get MPICH's answers about a stand-in
 * window (window.go): MPI_Win_shared_query refused with a flavor error, and
 * MPI_Win_free leaving the runtime's record of the window behind (the heap
 * block, or the memfd, kept until MPI_Finalize; a later window with the same
 * handle taken for it). These wrappers give the same calls the C wrappers'
 * behaviour. The bindings (nm -D libmpichfort.so.12, objdump, MPICH 4.0.2)
 * pass the C arguments by reference, type(MPI_Win) being the C handle, and
 * the optional ierror as NULL when absent:
 *
 *   mpi_win_shared_query_f08_(win, rank, size, disp_unit, baseptr, ierror)
 *     over PMPI_Win_shared_query, disp_unit an INTEGER;
 *   mpi_win_shared_query_f08_large_(...) over PMPI_Win_shared_query_c,
 *     disp_unit an INTEGER(KIND=MPI_ADDRESS_KIND);
 *   mpi_win_free_f08_(win, ierror) over PMPI_Win_free.
 */
#include "interpose.h"

void mpi_win_shared_query_f08_(MPI_Fint *win, MPI_Fint *rank, MPI_Aint *size, MPI_Fint *disp_unit,
                               void *baseptr, MPI_Fint *ierr)
{
    int rc = MPI_Win_shared_query((MPI_Win)*win, *rank, size, disp_unit, baseptr);
    if (ierr)
        *ierr = rc;
}

void mpi_win_shared_query_f08_large_(MPI_Fint *win, MPI_Fint *rank, MPI_Aint *size,
                                     MPI_Aint *disp_unit, void *baseptr, MPI_Fint *ierr)
{
    int rc = MPI_Win_shared_query_c((MPI_Win)*win, *rank, size, disp_unit, baseptr);
    if (ierr)
        *ierr = rc;
}

void mpi_win_free_f08_(MPI_Fint *win, MPI_Fint *ierr)
{
    int rc = MPI_Win_free((MPI_Win *)win);
    if (ierr)
        *ierr = rc;
}
