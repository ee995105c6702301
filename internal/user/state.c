/*
 * state.c: the user side's state (struct csp_user, user.h), its set-up
 * from Go at MPI_Init (user.go), and the progress poke every wait uses.
 */
#define _GNU_SOURCE
#include "user.h"

#include <linux/membarrier.h>
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

/* Posts may skip their fence if the ghost issues global membarriers and
 * this process is registered to receive them (channel.h: membarrier). */
void csp_user_setup_fence(void)
{
    csp_u.fence_free = csp_u.ghost->membarrier == 1 &&
                       syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED, 0, 0) == 0;
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
