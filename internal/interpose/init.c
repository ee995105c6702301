/*
 * init.c: MPI_Init, MPI_Init_thread and MPI_Finalize.
 *
 * The runtime (Go, internal/core) initializes MPI, lays the job out and
 * turns ghosts into ghosts: in a ghost, csp_go_init never returns. In a user
 * it returns the user world, which from then on stands in for
 * MPI_COMM_WORLD in every wrapper.
 */
#include "interpose.h"
#include "rma.h"

#include <stddef.h>
#include <time.h>

CSP_IP_HIDDEN MPI_Comm csp_ip_world = MPI_COMM_WORLD;
CSP_IP_HIDDEN int csp_ip_user;
CSP_IP_HIDDEN int csp_ip_tag_ub;
CSP_IP_HIDDEN int csp_ip_nwins;

/* The windows' hint and epoch errors carry their line (internal/user/rma.c). */
static int rma_errcode(int cls, const char *msg) { return csp_go_error_code(cls, (char *)msg); }

static int init(int required, int *provided)
{
    int prov = MPI_THREAD_SINGLE, world = (int)MPI_COMM_WORLD, user = 0, ub = 0;
    /* Until the runtime is up, every process of an oversubscribed host
     * spins in MPICH beside others that need its core: lend it on a
     * timer (internal/user/lendtimer.c). The runtime stops the timer and
     * reports it (a ghost before it starts serving); the stop here is for
     * an initialization that failed before the runtime could. */
    if (csp_init_oversubscribed())
        csp_lend_timer_start(1);
    int rc = csp_go_init(required, &prov, &world, &user, &ub);
    int sig, lends;
    csp_lend_timer_stop(&sig, &lends);
    if (rc == CSP_IP_INIT_FAILED) {
        /* Every process gets the InitError (the runtime agrees on it); the
         * rank that found the problem printed the one-line reason. Hydra
         * stops forwarding output once a process aborts: the barrier and a
         * short pause let that line reach mpiexec first. */
        PMPI_Barrier(MPI_COMM_WORLD);
        nanosleep(&(struct timespec){0, 200 * 1000 * 1000}, NULL);
        PMPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (rc != MPI_SUCCESS)
        return rc;
    csp_ip_world = (MPI_Comm)world;
    csp_rma.errcode = rma_errcode;
    csp_ip_user = user;
    csp_ip_tag_ub = ub;
    if (csp_ip_world != MPI_COMM_WORLD)
        PMPI_Comm_set_name(csp_ip_world, "MPI_COMM_WORLD");
    if (provided)
        *provided = prov;
    return MPI_SUCCESS;
}

int MPI_Init(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    return init(MPI_THREAD_SINGLE, NULL);
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    (void)argc;
    (void)argv;
    return init(required, provided);
}

int MPI_Finalize(void)
{
    int rc = csp_go_finalize();
    csp_ip_user = 0;
    csp_ip_world = MPI_COMM_WORLD;
    return rc;
}
