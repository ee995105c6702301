/*
 * session.c: MPI-4 sessions beside the world model. A session's process
 * set "mpi://WORLD" is every process mpiexec started; once MPI_Init has
 * made some of them ghosts, a communicator built from that set would wait
 * forever for processes that run no application (MPICH's threads/init
 * mult_session: threads building communicators from sessions while the
 * main thread uses MPI_COMM_WORLD timed out). So, as MPI_COMM_WORLD is,
 * "mpi://WORLD" is the user world: its group and its "mpi_size" are the
 * application's. Other process sets ("mpi://SELF", MPICH's own) are left
 * as they are. A session initialized before MPI_Init and used after
 * still sees whatever its calls see then: the mapping applies from
 * MPI_Init on (csp_ip_world), and in pass-through jobs (no ghosts) it is
 * the identity.
 */
#include "interpose.h"

#include <stdio.h>
#include <strings.h>

/* The world process set (MPI-4.0 section 11.3.2; names compare as MPICH
 * compares them, ignoring case). */
static int world_pset(const char *name) { return name && strcasecmp(name, "mpi://WORLD") == 0; }

/* Is "mpi://WORLD" the user world here? */
static int mapped(void) { return csp_ip_world != MPI_COMM_WORLD; }

int MPI_Group_from_session_pset(MPI_Session session, const char *pset_name, MPI_Group *newgroup)
{
    /* MPICH's call first: a bad session or name gets its error, through
     * the session's error handler, as without the library. */
    int rc = PMPI_Group_from_session_pset(session, pset_name, newgroup);
    if (rc != MPI_SUCCESS || !world_pset(pset_name) || !mapped())
        return rc;
    PMPI_Group_free(newgroup);
    return PMPI_Comm_group(csp_ip_world, newgroup);
}

int MPI_Session_get_pset_info(MPI_Session session, const char *pset_name, MPI_Info *info)
{
    int rc = PMPI_Session_get_pset_info(session, pset_name, info);
    if (rc != MPI_SUCCESS || !world_pset(pset_name) || !mapped())
        return rc;
    int size = 0;
    char v[16];
    PMPI_Comm_size(csp_ip_world, &size);
    snprintf(v, sizeof v, "%d", size);
    return PMPI_Info_set(*info, "mpi_size", v);
}
