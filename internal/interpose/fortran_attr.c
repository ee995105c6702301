/*
 * fortran_attr.c: MPI_TAG_UB and window flavors for Fortran programs.
 *
 * MPICH's Fortran bindings of the attribute getters do not call the C
 * MPI_Comm_get_attr (comm.c) but MPICH's internal MPII_Comm_get_attr, so
 * without these wrappers a Fortran program would see MPICH's own
 * MPI_TAG_UB instead of the exposed bound (tag encoding reserves high
 * bits), and could pick tags the runtime then refuses. Each wrapper calls
 * MPICH's profiling entry of the same binding and, when the key is
 * MPI_TAG_UB and the call found it, replaces the value with the exposed
 * bound. Keyvals of the program's on MPI_COMM_WORLD go to the user world,
 * where the C calls and MPI_Comm_dup put and look for them (attr_comm);
 * MPICH's Fortran MPI_COMM_SET_ATTR and MPI_ATTR_PUT call MPII_Comm_set_attr
 * too, so they are wrapped the same way, and so are mpi_f08's
 * MPI_Comm_get_attr and MPI_Comm_set_attr (the other mpi_f08 bindings
 * reach the C wrappers: fortran_f08.c).
 *
 * The symbols (nm -D libmpichfort.so.12, MPICH 4.0.2):
 *
 *   mpif.h and `use mpi`: mpi_comm_get_attr, mpi_comm_get_attr_,
 *   mpi_comm_get_attr__, MPI_COMM_GET_ATTR (one function; the attribute
 *   value is INTEGER(KIND=MPI_ADDRESS_KIND), 8 bytes) over
 *   pmpi_comm_get_attr_; the deprecated MPI_ATTR_GET in the same four
 *   spellings (a default INTEGER value, 4 bytes) over pmpi_attr_get_.
 *
 *   `use mpi_f08`: mpi_comm_get_attr_f08_ over pmpir_comm_get_attr_f08_,
 *   mpi_comm_set_attr_f08_ over pmpir_comm_set_attr_f08_ (type(MPI_Comm)
 *   is one INTEGER; ierror is optional, so may be NULL).
 *
 * The pmpi entries are weak references: a C program has no libmpichfort,
 * never calls these wrappers, and must still load the library.
 *
 * Fortran's keyvals for the predefined attributes are the C ones plus one
 * (mpif.h: MPI_TAG_UB=1681915906, mpi.h: 0x64400001); the flag is a
 * LOGICAL, which MPICH sets to 1 or 0.
 *
 * MPI_WIN_GET_ATTR likewise calls MPII_Win_get_attr: its wrappers report
 * MPI_WIN_CREATE_FLAVOR as MPI_WIN_FLAVOR_SHARED for a window the runtime
 * created with MPI_Win_create in place of MPI_Win_allocate_shared
 * (memory.c, window.go), as the C MPI_Win_get_attr does. Same symbols:
 * mpi_win_get_attr{,_,__}, MPI_WIN_GET_ATTR over pmpi_win_get_attr_, and
 * mpi_win_get_attr_f08_ over pmpir_win_get_attr_f08_ (type(MPI_Win) is one
 * INTEGER, the C handle).
 */
#include "interpose.h"

#define CSP_F_TAG_UB 1681915906 /* mpif.h's MPI_TAG_UB */
_Static_assert(CSP_F_TAG_UB == MPI_TAG_UB + 1, "Fortran's MPI_TAG_UB keyval is not C's plus one");
#define CSP_F_WIN_CREATE_FLAVOR 1711276040 /* mpif.h's MPI_WIN_CREATE_FLAVOR */
_Static_assert(CSP_F_WIN_CREATE_FLAVOR == MPI_WIN_CREATE_FLAVOR + 1,
               "Fortran's MPI_WIN_CREATE_FLAVOR keyval is not C's plus one");

typedef MPI_Fint csp_fint;

extern void pmpi_comm_get_attr_(csp_fint *comm, csp_fint *keyval, MPI_Aint *val, csp_fint *flag,
                                csp_fint *ierr) __attribute__((weak));
extern void pmpi_comm_set_attr_(csp_fint *comm, csp_fint *keyval, MPI_Aint *val, csp_fint *ierr)
    __attribute__((weak));
extern void pmpi_attr_put_(csp_fint *comm, csp_fint *keyval, csp_fint *val, csp_fint *ierr)
    __attribute__((weak));
extern void pmpi_attr_get_(csp_fint *comm, csp_fint *keyval, csp_fint *val, csp_fint *flag,
                           csp_fint *ierr) __attribute__((weak));
extern void pmpir_comm_get_attr_f08_(csp_fint *comm, csp_fint *keyval, MPI_Aint *val,
                                     csp_fint *flag, csp_fint *ierr) __attribute__((weak));
extern void pmpir_comm_set_attr_f08_(csp_fint *comm, csp_fint *keyval, MPI_Aint *val,
                                     csp_fint *ierr) __attribute__((weak));
extern void pmpi_win_get_attr_(csp_fint *win, csp_fint *keyval, MPI_Aint *val, csp_fint *flag,
                               csp_fint *ierr) __attribute__((weak));
extern void pmpir_win_get_attr_f08_(csp_fint *win, csp_fint *keyval, MPI_Aint *val,
                                    csp_fint *flag, csp_fint *ierr) __attribute__((weak));

/* The communicator a keyval of the program's lives on: MPI_COMM_WORLD
 * is the user world, as in the C calls (comm.c maps it, and so does the C
 * MPI_Comm_delete_attr that MPICH's Fortran MPI_COMM_DELETE_ATTR calls,
 * and MPI_Comm_dup, which copies the attributes). The predefined keyvals
 * (MPI_TAG_UB ... MPI_APPNUM, C's 0x64400001-0x6440000d, Fortran's one
 * more) describe the job and stay on the real world. *buf holds the mapped
 * handle. */
static csp_fint *attr_comm(csp_fint *comm, const csp_fint *keyval, csp_fint *buf)
{
    if (((uint32_t)*keyval & 0xfffffff0u) == 0x64400000u)
        return comm;
    *buf = PMPI_Comm_c2f(csp_ip_map(PMPI_Comm_f2c(*comm)));
    return buf;
}

/* The exposed bound applies: MPI_TAG_UB was asked for and found. */
static inline int tag_ub_applies(const csp_fint *keyval, int rc, const csp_fint *flag)
{
    return rc == MPI_SUCCESS && *keyval == CSP_F_TAG_UB && *flag && csp_ip_tag_ub > 0;
}

/* The four names libmpichfort exports for a binding of mpif.h and `use
 * mpi` (lower case with no, one and two trailing underscores, upper case),
 * each an alias of impl, as MPICH's own are weak aliases of one function. */
#define CSP_F_SPELLINGS(lower, upper, impl)                                                        \
    extern __typeof__(impl) lower __attribute__((alias(#impl)));                                   \
    extern __typeof__(impl) lower##_ __attribute__((alias(#impl)));                                \
    extern __typeof__(impl) lower##__ __attribute__((alias(#impl)));                               \
    extern __typeof__(impl) upper __attribute__((alias(#impl)));

/* ---- mpif.h and `use mpi`: MPI_COMM_GET_ATTR ---- */

static void comm_get_attr_f(csp_fint *comm, csp_fint *keyval, MPI_Aint *val, csp_fint *flag,
                            csp_fint *ierr)
{
    if (!pmpi_comm_get_attr_) {
        *ierr = MPI_ERR_INTERN;
        return;
    }
    csp_fint mapped;
    pmpi_comm_get_attr_(attr_comm(comm, keyval, &mapped), keyval, val, flag, ierr);
    if (tag_ub_applies(keyval, *ierr, flag))
        *val = (MPI_Aint)csp_ip_tag_ub;
}
CSP_F_SPELLINGS(mpi_comm_get_attr, MPI_COMM_GET_ATTR, comm_get_attr_f)

/* ---- mpif.h and `use mpi`: MPI_ATTR_GET (deprecated) ---- */

static void attr_get_f(csp_fint *comm, csp_fint *keyval, csp_fint *val, csp_fint *flag,
                       csp_fint *ierr)
{
    if (!pmpi_attr_get_) {
        *ierr = MPI_ERR_INTERN;
        return;
    }
    csp_fint mapped;
    pmpi_attr_get_(attr_comm(comm, keyval, &mapped), keyval, val, flag, ierr);
    if (tag_ub_applies(keyval, *ierr, flag))
        *val = (csp_fint)csp_ip_tag_ub;
}
CSP_F_SPELLINGS(mpi_attr_get, MPI_ATTR_GET, attr_get_f)

/* ---- mpif.h and `use mpi`: MPI_COMM_SET_ATTR, MPI_ATTR_PUT ---- */

/* MPICH's bindings call MPII_Comm_set_attr, not the C MPI_Comm_set_attr:
 * without these, an attribute a Fortran program set on MPI_COMM_WORLD
 * went to the real world, and MPI_COMM_DUP of the world (the C
 * MPI_Comm_dup, on the user world) did not copy it (MPICH's
 * f77/attr/commattr4f). */
static void comm_set_attr_f(csp_fint *comm, csp_fint *keyval, MPI_Aint *val, csp_fint *ierr)
{
    if (!pmpi_comm_set_attr_) {
        *ierr = MPI_ERR_INTERN;
        return;
    }
    csp_fint mapped;
    pmpi_comm_set_attr_(attr_comm(comm, keyval, &mapped), keyval, val, ierr);
}
CSP_F_SPELLINGS(mpi_comm_set_attr, MPI_COMM_SET_ATTR, comm_set_attr_f)

static void attr_put_f(csp_fint *comm, csp_fint *keyval, csp_fint *val, csp_fint *ierr)
{
    if (!pmpi_attr_put_) {
        *ierr = MPI_ERR_INTERN;
        return;
    }
    csp_fint mapped;
    pmpi_attr_put_(attr_comm(comm, keyval, &mapped), keyval, val, ierr);
}
CSP_F_SPELLINGS(mpi_attr_put, MPI_ATTR_PUT, attr_put_f)

/* ---- `use mpi_f08`: MPI_Comm_get_attr ---- */

void mpi_comm_get_attr_f08_(csp_fint *comm, csp_fint *keyval, MPI_Aint *val, csp_fint *flag,
                            csp_fint *ierr)
{
    if (!pmpir_comm_get_attr_f08_) {
        if (ierr)
            *ierr = MPI_ERR_INTERN;
        return;
    }
    csp_fint rc = MPI_SUCCESS, mapped;
    pmpir_comm_get_attr_f08_(attr_comm(comm, keyval, &mapped), keyval, val, flag, &rc);
    if (ierr)
        *ierr = rc;
    if (tag_ub_applies(keyval, rc, flag))
        *val = (MPI_Aint)csp_ip_tag_ub;
}

/* ---- `use mpi_f08`: MPI_Comm_set_attr ---- */

void mpi_comm_set_attr_f08_(csp_fint *comm, csp_fint *keyval, MPI_Aint *val, csp_fint *ierr)
{
    if (!pmpir_comm_set_attr_f08_) {
        if (ierr)
            *ierr = MPI_ERR_INTERN;
        return;
    }
    csp_fint rc = MPI_SUCCESS, mapped;
    pmpir_comm_set_attr_f08_(attr_comm(comm, keyval, &mapped), keyval, val, &rc);
    if (ierr)
        *ierr = rc;
}

/* ---- MPI_WIN_GET_ATTR: every binding ---- */

/* The window's flavor is to be reported as MPI_WIN_FLAVOR_SHARED. */
static inline int shared_flavor_applies(const csp_fint *win, const csp_fint *keyval, int rc,
                                        const csp_fint *flag)
{
    return rc == MPI_SUCCESS && *keyval == CSP_F_WIN_CREATE_FLAVOR && *flag && csp_ip_nwins > 0 &&
           csp_go_win_stands_in((int)*win);
}

static void win_get_attr_f(csp_fint *win, csp_fint *keyval, MPI_Aint *val, csp_fint *flag,
                           csp_fint *ierr)
{
    if (!pmpi_win_get_attr_) {
        *ierr = MPI_ERR_INTERN;
        return;
    }
    pmpi_win_get_attr_(win, keyval, val, flag, ierr);
    if (shared_flavor_applies(win, keyval, *ierr, flag))
        *val = MPI_WIN_FLAVOR_SHARED;
}
CSP_F_SPELLINGS(mpi_win_get_attr, MPI_WIN_GET_ATTR, win_get_attr_f)

void mpi_win_get_attr_f08_(csp_fint *win, csp_fint *keyval, MPI_Aint *val, csp_fint *flag,
                           csp_fint *ierr)
{
    if (!pmpir_win_get_attr_f08_) {
        if (ierr)
            *ierr = MPI_ERR_INTERN;
        return;
    }
    csp_fint rc = MPI_SUCCESS;
    pmpir_win_get_attr_f08_(win, keyval, val, flag, &rc);
    if (ierr)
        *ierr = rc;
    if (shared_flavor_applies(win, keyval, rc, flag))
        *val = MPI_WIN_FLAVOR_SHARED;
}
