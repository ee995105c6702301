/*
 * state.c: the user side's state (struct csp_user, user.h), its set-up
 * from Go at MPI_Init (user.go), and the progress poke every wait uses.
 */
#define _GNU_SOURCE
#include "user.h"

#include <limits.h>
#include <linux/futex.h>
#include <linux/membarrier.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

struct csp_user csp_u;

int csp_user_attach_ring(void *mem, size_t len)
{
    int rc = spsc_attach(mem, len, &csp_u.ring);
    if (rc != 0)
        return rc;
    spsc_producer_init(&csp_u.prod, &csp_u.ring);
    return 0;
}

/*
 * Posts may skip their fence if the ghost issues global membarriers and
 * this process is registered to receive them (channel.h: membarrier).
 *
 * Registering (MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED) waits for an RCU
 * grace period once the process has more than one thread, which a user
 * always has by then (the Go runtime's, MPICH's transport thread): 12-47
 * ms here, on the critical path of every user's MPI_Init (its "user" step
 * took 9-17 ms of a 140-155 ms MPI_Init with CSP_VERBOSE=2, 3 processes).
 * The wait is a sleep, not work, so the runtime's Init starts it on a
 * short-lived thread of its own before PMPI_Init (csp_fence_register_start,
 * from internal/core), where it overlaps MPICH's initialization, and
 * csp_user_setup_fence takes its result (or registers in place if nothing
 * started it).
 *
 * mb_state: 0 not started, 1 running, 2 done (mb_ok then holds whether it
 * succeeded; written before the release store, read after the acquire).
 */
static uint32_t mb_state;
static int mb_ok;

static int mb_register_now(void)
{
    return syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED, 0, 0) == 0;
}

static void *mb_register(void *arg)
{
    (void)arg;
    mb_ok = mb_register_now();
    __atomic_store_n(&mb_state, 2, __ATOMIC_RELEASE);
    syscall(SYS_futex, &mb_state, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
    return NULL;
}

void csp_fence_register_start(void)
{
    if (__atomic_load_n(&mb_state, __ATOMIC_ACQUIRE) != 0)
        return;
    pthread_attr_t a;
    if (pthread_attr_init(&a) != 0)
        return;
    /* Detached, small, and with every signal blocked: no signal meant for
     * the application (or the lending timer's, which targets the main
     * thread) is delivered to it. */
    pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&a, 64 * 1024);
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pthread_t t;
    __atomic_store_n(&mb_state, 1, __ATOMIC_RELAXED);
    if (pthread_create(&t, &a, mb_register, NULL) != 0)
        __atomic_store_n(&mb_state, 0, __ATOMIC_RELAXED);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_attr_destroy(&a);
}

/* Whether this process is registered for global membarriers: the started
 * registration's result (waited for), else one made now. */
static int fence_registered(void)
{
    uint32_t s;
    while ((s = __atomic_load_n(&mb_state, __ATOMIC_ACQUIRE)) == 1)
        syscall(SYS_futex, &mb_state, FUTEX_WAIT_PRIVATE, 1, NULL, NULL, 0);
    if (s == 0) {
        mb_ok = mb_register_now();
        __atomic_store_n(&mb_state, 2, __ATOMIC_RELEASE);
    }
    return mb_ok;
}

void csp_user_setup_fence(void)
{
    int ok = fence_registered();
    csp_u.fence_free = csp_u.ghost->membarrier == 1 && ok;
}

void csp_user_init_globals(void)
{
    pthread_mutex_init(&csp_u.lock, NULL);
}

void csp_poke_progress(void)
{
    if (!csp_u.on) /* no offload: the caller's PMPI calls make progress */
        return;
    int flag;
    PMPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, csp_u.progress_comm, &flag, MPI_STATUS_IGNORE);
}
