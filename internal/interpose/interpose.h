/*
 * interpose.h: what the C wrappers of libcasperii.so share.
 *
 * Every MPI function that takes a communicator passes each communicator
 * argument through csp_ip_map, which turns MPI_COMM_WORLD into the user
 * world (the processes that are not ghosts). The mapping is one compare
 * against a global set once by MPI_Init; nothing on a per-call path enters
 * Go. Until MPI_Init returns (and in pass-through jobs) csp_ip_world is
 * MPI_COMM_WORLD itself, so the mapping is the identity.
 *
 * Internal C symbols are hidden (CSP_IP_HIDDEN): the shared library exports
 * the MPI_* wrappers and the csp_go_* hooks Go exports, nothing else of ours.
 */
#ifndef CASPERII_INTERPOSE_H
#define CASPERII_INTERPOSE_H

#include <mpi.h>
#include <stdint.h>

#include "user.h"

#define CSP_IP_HIDDEN __attribute__((visibility("hidden")))

/* ---- state set by MPI_Init (init.c) ---- */

/* COMM_USER_WORLD, what MPI_COMM_WORLD means to the application. */
extern CSP_IP_HIDDEN MPI_Comm csp_ip_world;
/* This process runs the offload fast path: the runtime's hooks apply. */
extern CSP_IP_HIDDEN int csp_ip_user;
/* The MPI_TAG_UB the application sees (0 before MPI_Init). */
extern CSP_IP_HIDDEN int csp_ip_tag_ub;
/* Registered shared windows (window.go keeps the list): MPI_Win_free and
 * MPI_Win_get_attr call into Go only while there is one. */
extern CSP_IP_HIDDEN int csp_ip_nwins;
/* Slots of MPICH's Fortran library bound to the wrappers at load
 * (fortran_f08.c). */
extern CSP_IP_HIDDEN int csp_f08_nbound;

/* A window of this process was made (d = 1) or freed (d = -1): keeps
 * csp_u.nwins_live (user.h), which blocked waits read. A window made past
 * the interposer (by a library that calls PMPI) is not counted but may be
 * freed through it: the count stops at 0. */
static inline void csp_ip_win_live(int d)
{
    uint32_t n = __atomic_load_n(&csp_u.nwins_live, __ATOMIC_RELAXED);
    while ((d > 0 || n > 0) &&
           !__atomic_compare_exchange_n(&csp_u.nwins_live, &n, n + (uint32_t)d, 1, __ATOMIC_RELAXED,
                                        __ATOMIC_RELAXED))
        ;
}

/* csp_ip_win_made counts a window if its creation succeeded (rc, which it
 * passes on); csp_ip_win_freed uncounts one MPI_Win_free freed. */
static inline int csp_ip_win_made(int rc)
{
    if (rc == MPI_SUCCESS)
        csp_ip_win_live(1);
    return rc;
}
static inline int csp_ip_win_freed(int rc)
{
    if (rc == MPI_SUCCESS)
        csp_ip_win_live(-1);
    return rc;
}

static inline MPI_Comm csp_ip_map(MPI_Comm c)
{
    return c == MPI_COMM_WORLD ? csp_ip_world : c;
}
#define CSP_IP_MAP(c) csp_ip_map(c)

/* Does comm carry its point-to-point traffic through the ghosts? */
static inline int csp_ip_offloaded(MPI_Comm comm)
{
    if (csp_u.ctab_used == 0)
        return 0;
    CSP_LOCK();
    struct csp_comm *c = csp_comm_get(comm);
    int on = c && c->algo != CSP_ALGO_OFF;
    CSP_UNLOCK();
    return on;
}

/* Return call's code, its time counted in the self-profile when it is on
 * (internal/user/prof.c) and closed with end (csp_prof_end, or
 * csp_prof_end_poll for the calls that poll), or, a light call after a
 * short one (user.h: prof_light), counted by light without a clock. */
#define CSP_IP_PROFILED(end, light, call)                                                          \
    do {                                                                                           \
        if (csp_u.prof_light) {                                                                    \
            int rc_ = (call);                                                                      \
            light();                                                                               \
            return rc_;                                                                            \
        }                                                                                          \
        uint64_t t_ = csp_prof_enter();                                                            \
        int rc_ = (call);                                                                          \
        end(t_);                                                                                   \
        return rc_;                                                                                \
    } while (0)
#define CSP_IP_TIMED_BY(end, light, call)                                                          \
    do {                                                                                           \
        if (__builtin_expect(!csp_u.prof, 1))                                                      \
            return (call);                                                                         \
        CSP_IP_PROFILED(end, light, call);                                                         \
    } while (0)
/* For the calls that may wait or block, and for those that poll. */
#define CSP_IP_TIMED(call) CSP_IP_TIMED_BY(csp_prof_end, csp_prof_light_wait, call)
#define CSP_IP_POLLED(call) CSP_IP_TIMED_BY(csp_prof_end_poll, csp_prof_light_poll, call)

/* The same for the calls an exchange makes every time (Send, Recv, the
 * Wait/Test family), with the timed form a function of its own:
 * CSP_IP_TIMED_FN(name, params, call) defines it as static int name
 * params, and a wrapper returns CSP_IP_UNTIMED(call, name(args)). The
 * untimed call, the usual case, is then a tail call and the wrapper keeps
 * no stack frame (in one function, GCC sets one up for the timed form's
 * sake on both). Not cold: under auto the timed form is the usual one. */
#define CSP_IP_TIMED_FN_BY(end, light, name, params, call)                                         \
    static __attribute__((noinline)) int name params { CSP_IP_PROFILED(end, light, call); }
#define CSP_IP_TIMED_FN(name, params, call)                                                        \
    CSP_IP_TIMED_FN_BY(csp_prof_end, csp_prof_light_wait, name, params, call)
#define CSP_IP_POLLED_FN(name, params, call)                                                       \
    CSP_IP_TIMED_FN_BY(csp_prof_end_poll, csp_prof_light_poll, name, params, call)
#define CSP_IP_UNTIMED(call, timed) (csp_u.prof ? (timed) : (call))

/* ---- helpers (comm.c, p2p.c, complete.c) ---- */

/* Report code through comm's error handler (if code is an error) and
 * return it. */
CSP_IP_HIDDEN int csp_ip_raise(MPI_Comm comm, int code);
/* Tell the runtime newcomm was created from parent with info; raises a
 * hint error through newcomm's error handler. */
CSP_IP_HIDDEN int csp_ip_created(MPI_Comm parent, MPI_Comm newcomm, MPI_Info info);
/* Pack count elements of buf into a block of the shared heap (the send
 * half of a replace then needs no bounce copy); *tmp is NULL when there are
 * no bytes. Errors are raised on c. Free with csp_ip_free_tmp. */
CSP_IP_HIDDEN int csp_ip_pack_tmp(const void *buf, MPI_Count count, MPI_Datatype dt, MPI_Comm c,
                                  void **tmp, MPI_Count *bytes);
CSP_IP_HIDDEN void csp_ip_free_tmp(void *tmp);
/* Remember code's message for MPI_Error_string (errstring.c). */
CSP_IP_HIDDEN void csp_ip_errtext_add(int code, const char *msg);
CSP_IP_HIDDEN int csp_ip_errtext_get(int code, char *msg);
/* MPICH's MPI_Win_allocate_shared (its _c twin when large), and
 * MPI_Win_create (or _c) over base standing in for it (memory.c). */
CSP_IP_HIDDEN int csp_ip_win_allocate_shared(MPI_Aint size, MPI_Aint disp_unit, int large,
                                             MPI_Info info, MPI_Comm comm, void *baseptr,
                                             MPI_Win *win);
CSP_IP_HIDDEN int csp_ip_win_create_shared(void *base, MPI_Aint size, MPI_Aint disp_unit, int large,
                                           MPI_Info info, MPI_Comm comm, MPI_Win *win);

/* MPI_PROC_NULL as an RMA operation's target: *req (if any) becomes
 * MPI_REQUEST_NULL; returns MPI_SUCCESS (rma.c, for zz_wrappers.c). */
CSP_IP_HIDDEN int csp_ip_rma_null_target(MPI_Request *req);

/* ---- hooks exported by Go (hooks.go, idup.go, memory.go, window.go) ---- */

#define CSP_IP_INIT_FAILED (-1) /* csp_go_init: the runtime printed why; abort */

extern int csp_go_init(int required, int *provided, int *world, int *user, int *tag_ub);
extern int csp_go_finalize(void);
extern int csp_go_comm_created(int parent, int newcomm, int info);
extern int csp_go_comm_set_info(int comm, int info);
extern int csp_go_comm_set_info_agreed(int comm, int info, int64_t *sum);
extern int csp_go_comm_get_info(int comm, int info);
extern void csp_go_comm_freed(int comm);
extern int csp_go_error_code(int errclass, char *msg);
extern int csp_go_idup_propose(int parent, int info, uintptr_t *plan, uint64_t **words, int *nwords);
extern int csp_go_idup_decide(uintptr_t plan, int newcomm, uint64_t *reduced);
extern int csp_go_alloc_regist(int info, int *regist);
extern int csp_go_win_allocate_shared(int64_t size, int64_t disp_unit, int large, int info, int comm,
                                      int redirect, void *baseptr, int *win, int *raise, int *mappable);
extern uint64_t csp_go_win_freeing(int win);
extern void csp_go_win_freed(uint64_t token, int ok);
extern int csp_go_win_stands_in(int win);
extern int csp_go_coll_check(int comm, int n, uintptr_t site);

/* ---- collectives (comm.c) ---- */

/* A blocking collective on comm begins (every generated wrapper calls
 * this first, with its return address: the call site in the application,
 * by which the automatic choice tells phases apart, internal/core/
 * autosite.go): while a change of its route is pending, the runtime may
 * take it here (internal/core/switch.go), and the auto windows made on
 * comm agree (internal/user/rmaauto.c). One test when nothing is pending
 * anywhere. Errors go to comm's error handler (a window's to the
 * window's). */
CSP_IP_HIDDEN int csp_ip_coll_slow(MPI_Comm comm, void *site);
static inline int csp_ip_coll(MPI_Comm comm, void *site)
{
    if (__builtin_expect((csp_u.nwatch | csp_u.nheld | csp_u.nrma_coll) != 0, 0))
        return csp_ip_coll_slow(comm, site);
    return MPI_SUCCESS;
}

#endif /* CASPERII_INTERPOSE_H */
