/*
 * liveness.c: is the ghost serving this process still there?
 *
 * A ghost that dies (killed, crashed) never completes the cells it holds:
 * every wait on them must turn into an error instead of a hang. The waits
 * ask csp_ghost_alive before a sleep that follows one that ran out its
 * timeout (block.c; a ghost that rings is alive), and the Test family asks
 * every so often while an offloaded request stays pending (csp_test_miss).
 *
 * A dead process stays a zombie until its parent (the launcher's proxy)
 * reaps it, and kill(pid, 0) succeeds on a zombie: a launcher that is slow
 * to reap, or stopped, would hide the death. A pidfd (Linux 5.3) becomes
 * readable as soon as the process exits, reaped or not, so it is the
 * primary test; kill(pid, 0) is the fallback where pidfd_open fails.
 */
#define _GNU_SOURCE
#include "user.h"
#include "liveness.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

static int ghost_pidfd = -1;

/* csp_liveness_start opens the pidfd of the ghost (at MPI_Init, while the
 * ghost is certainly alive, so the pid cannot have been reused). */
void csp_liveness_start(void)
{
    if (ghost_pidfd < 0)
        ghost_pidfd = (int)syscall(SYS_pidfd_open, (pid_t)csp_u.ghost->ghost_pid, 0);
}

/* csp_liveness_stop closes it (MPI_Finalize). */
void csp_liveness_stop(void)
{
    if (ghost_pidfd >= 0)
        close(ghost_pidfd);
    ghost_pidfd = -1;
}

int csp_ghost_running(void)
{
    return __atomic_load_n(&csp_u.ghost->state, __ATOMIC_ACQUIRE) == CSP_GHOST_RUNNING;
}

int csp_ghost_alive(void)
{
    if (!csp_ghost_running())
        return 0;
    if (ghost_pidfd >= 0) {
        struct pollfd p = {.fd = ghost_pidfd, .events = POLLIN};
        int n = poll(&p, 1, 0);
        if (n > 0)
            return 0; /* exited */
        if (n == 0 || errno == EINTR)
            return 1;
    }
    return !(kill(csp_u.ghost->ghost_pid, 0) != 0 && errno == ESRCH);
}

/* csp_test_miss is called by the Test family each time an offloaded
 * request it looked at is not done. Every 256th call checks the ghost (a
 * program polling MPI_Test in a loop would otherwise spin forever once
 * its ghost is gone). Returns MPI_SUCCESS, or the ghost-gone error raised
 * on the world's error handler. */
int csp_test_miss(void)
{
    static uint32_t misses;
    if ((++misses & 255) != 0 || csp_ghost_alive())
        return MPI_SUCCESS;
    return csp_error(csp_u.world, CSP_E_GHOST_GONE);
}
