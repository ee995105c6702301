/*
 * comm.c: communicator constructors, hints, MPI_Comm_free and attributes.
 *
 * A constructor calls PMPI on the mapped parent, then tells the runtime
 * (csp_go_comm_created: one Allreduce over the new communicator plans its
 * offload). A hint the runtime refuses is raised through the new
 * communicator's error handler with an MPI_ERR_INFO_VALUE-class code whose
 * error string is the runtime's one-line message; the communicator itself
 * exists (not offloaded), as MPI leaves outputs undefined on error.
 */
#include "interpose.h"
#include "rma.h"

CSP_IP_HIDDEN int csp_ip_raise(MPI_Comm comm, int code)
{
    if (code == MPI_SUCCESS)
        return code;
    char msg[MPI_MAX_ERROR_STRING];
    return csp_raise(comm, code, csp_ip_errtext_get(code, msg) ? msg : NULL);
}

CSP_IP_HIDDEN int csp_ip_created(MPI_Comm parent, MPI_Comm newcomm, MPI_Info info)
{
    if (!csp_ip_user || newcomm == MPI_COMM_NULL)
        return MPI_SUCCESS;
    return csp_ip_raise(newcomm, csp_go_comm_created((int)parent, (int)newcomm, (int)info));
}

/* After PMPI built *out from parent (rc its return code). */
static inline int created(int rc, MPI_Comm parent, MPI_Comm *out, MPI_Info info)
{
    return rc != MPI_SUCCESS ? rc : csp_ip_created(parent, *out, info);
}

int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
    MPI_Comm c = csp_ip_map(comm);
    return created(PMPI_Comm_dup(c, newcomm), c, newcomm, MPI_INFO_NULL);
}

int MPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm)
{
    MPI_Comm c = csp_ip_map(comm);
    return created(PMPI_Comm_dup_with_info(c, info, newcomm), c, newcomm, info);
}

int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    MPI_Comm c = csp_ip_map(comm);
    return created(PMPI_Comm_split(c, color, key, newcomm), c, newcomm, MPI_INFO_NULL);
}

int MPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm *newcomm)
{
    MPI_Comm c = csp_ip_map(comm);
    return created(PMPI_Comm_split_type(c, split_type, key, info, newcomm), c, newcomm, info);
}

int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm)
{
    MPI_Comm c = csp_ip_map(comm);
    return created(PMPI_Comm_create(c, group, newcomm), c, newcomm, MPI_INFO_NULL);
}

int MPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm)
{
    MPI_Comm c = csp_ip_map(comm);
    return created(PMPI_Comm_create_group(c, group, tag, newcomm), c, newcomm, MPI_INFO_NULL);
}

int MPI_Comm_create_from_group(MPI_Group group, const char *stringtag, MPI_Info info,
                               MPI_Errhandler errhandler, MPI_Comm *newcomm)
{
    return created(PMPI_Comm_create_from_group(group, stringtag, info, errhandler, newcomm),
                   MPI_COMM_NULL, newcomm, info);
}

int MPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[],
                    int reorder, MPI_Comm *comm_cart)
{
    MPI_Comm c = csp_ip_map(comm_old);
    return created(PMPI_Cart_create(c, ndims, dims, periods, reorder, comm_cart), c, comm_cart,
                   MPI_INFO_NULL);
}

int MPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm)
{
    MPI_Comm c = csp_ip_map(comm);
    return created(PMPI_Cart_sub(c, remain_dims, newcomm), c, newcomm, MPI_INFO_NULL);
}

int MPI_Graph_create(MPI_Comm comm_old, int nnodes, const int indx[], const int edges[],
                     int reorder, MPI_Comm *comm_graph)
{
    MPI_Comm c = csp_ip_map(comm_old);
    return created(PMPI_Graph_create(c, nnodes, indx, edges, reorder, comm_graph), c, comm_graph,
                   MPI_INFO_NULL);
}

int MPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[], const int degrees[],
                          const int destinations[], const int weights[], MPI_Info info,
                          int reorder, MPI_Comm *comm_dist_graph)
{
    MPI_Comm c = csp_ip_map(comm_old);
    return created(PMPI_Dist_graph_create(c, n, sources, degrees, destinations, weights, info,
                                          reorder, comm_dist_graph),
                   c, comm_dist_graph, info);
}

int MPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[],
                                   const int sourceweights[], int outdegree,
                                   const int destinations[], const int destweights[],
                                   MPI_Info info, int reorder, MPI_Comm *comm_dist_graph)
{
    MPI_Comm c = csp_ip_map(comm_old);
    return created(PMPI_Dist_graph_create_adjacent(c, indegree, sources, sourceweights,
                                                   outdegree, destinations, destweights, info,
                                                   reorder, comm_dist_graph),
                   c, comm_dist_graph, info);
}

int MPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm,
                         int remote_leader, int tag, MPI_Comm *newintercomm)
{
    MPI_Comm c = csp_ip_map(local_comm);
    return created(PMPI_Intercomm_create(c, local_leader, csp_ip_map(peer_comm), remote_leader,
                                         tag, newintercomm),
                   c, newintercomm, MPI_INFO_NULL);
}

int MPI_Intercomm_create_from_groups(MPI_Group local_group, int local_leader,
                                     MPI_Group remote_group, int remote_leader,
                                     const char *stringtag, MPI_Info info,
                                     MPI_Errhandler errhandler, MPI_Comm *newintercomm)
{
    return created(PMPI_Intercomm_create_from_groups(local_group, local_leader, remote_group,
                                                     remote_leader, stringtag, info, errhandler,
                                                     newintercomm),
                   MPI_COMM_NULL, newintercomm, info);
}

int MPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm *newintracomm)
{
    MPI_Comm c = csp_ip_map(intercomm);
    return created(PMPI_Intercomm_merge(c, high, newintracomm), c, newintracomm, MPI_INFO_NULL);
}

/* ---- hints ---- */

/* An info of exactly async_config (and symmetric) on a communicator with a
 * toggle is taken in C (internal/user/toggle.c). Once MPICH has checked
 * that info handle in such a call, later ones skip MPICH's own call: MPICH
 * applies only the hints it registered (MPII_Comm_set_hints, in 4.0.2 as
 * on its main branch; ch4's UCX and POSIX hooks take none) and keeps no
 * info to return, so that call would change nothing, and after a phase
 * that swept the caches it was 10-20% of a switch (docs/design.md section
 * 10). Every other call goes to MPICH first, for its checks (a handle
 * never checked may be invalid, and reading it first would report MPICH's
 * error from MPI_Info_get_nkeys, a call the program never made). */
int MPI_Comm_set_info(MPI_Comm comm, MPI_Info info)
{
    MPI_Comm c = csp_ip_map(comm);
    int rc = MPI_SUCCESS;
    int64_t sum[CSP_AG_N];
    enum csp_setinfo how = CSP_SETINFO_RUNTIME;
    if (csp_ip_user && csp_toggle_checked(info) &&
        (how = csp_toggle_set_info(c, info, sum, &rc)) != CSP_SETINFO_RUNTIME)
        csp_u.n_setinfo_c++;
    if (how == CSP_SETINFO_RUNTIME) {
        rc = PMPI_Comm_set_info(c, info);
        if (rc != MPI_SUCCESS || !csp_ip_user)
            return rc;
        if ((how = csp_toggle_set_info(c, info, sum, &rc)) != CSP_SETINFO_RUNTIME)
            csp_toggle_check(info);
    }
    switch (how) {
    case CSP_SETINFO_DONE:
        return MPI_SUCCESS;
    case CSP_SETINFO_FAILED:
        return csp_ip_raise(c, rc);
    case CSP_SETINFO_AGREED:
        return csp_ip_raise(c, csp_go_comm_set_info_agreed((int)c, (int)info, sum));
    default:
        return csp_ip_raise(c, csp_go_comm_set_info((int)c, (int)info));
    }
}

CSP_IP_HIDDEN int csp_ip_coll_slow(MPI_Comm comm, void *site)
{
    if (csp_u.nheld && !csp_u.nbcoll)
        csp_coop_push_held(); /* MPICH's blocking collective pushes nothing */
    if (csp_u.nrma_coll) {
        int rc = csp_rma_coll(comm);
        if (rc != MPI_SUCCESS)
            return rc; /* raised on the window */
    }
    int n = csp_u.nwatch ? csp_route_coll(comm) : 0;
    return n ? csp_ip_raise(comm, csp_go_coll_check((int)comm, n, (uintptr_t)site)) : MPI_SUCCESS;
}

int MPI_Comm_get_info(MPI_Comm comm, MPI_Info *info_used)
{
    MPI_Comm c = csp_ip_map(comm);
    int rc = PMPI_Comm_get_info(c, info_used);
    if (rc != MPI_SUCCESS || !csp_ip_user)
        return rc;
    return csp_ip_raise(c, csp_go_comm_get_info((int)c, (int)*info_used));
}

/* ---- freeing ---- */

/* Freeing the world (MPI_COMM_WORLD or the user world it stands for) is an
 * error, as MPI makes freeing MPI_COMM_WORLD one. */
static int world_free_error(void)
{
    static int code;
    if (!code)
        code = csp_go_error_code(MPI_ERR_COMM, "CasperII: MPI_COMM_WORLD cannot be freed "
                                               "(it is a predefined communicator); free only "
                                               "communicators your program created");
    return csp_ip_raise(csp_ip_world, code);
}

static int is_world(MPI_Comm c)
{
    return c == MPI_COMM_WORLD || (csp_ip_world != MPI_COMM_WORLD && c == csp_ip_world);
}

/* comm is about to be freed or disconnected: everything that knows it
 * forgets it before MPI may reuse the handle (the runtime, the agreed
 * set_info cache, the windows that agree at its collectives). */
static void forget(MPI_Comm *comm)
{
    if (csp_ip_user && comm) {
        csp_go_comm_freed((int)*comm);
        csp_agree_forget(*comm);
        csp_rma_comm_forget(*comm);
    }
}

int MPI_Comm_free(MPI_Comm *comm)
{
    if (comm && is_world(*comm))
        return world_free_error();
    forget(comm);
    return PMPI_Comm_free(comm);
}

int MPI_Comm_disconnect(MPI_Comm *comm)
{
    if (comm && is_world(*comm))
        return world_free_error();
    forget(comm);
    return PMPI_Comm_disconnect(comm);
}

/* ---- attributes ---- */

/* Predefined attributes describing the job, not a communicator: read from
 * the real MPI_COMM_WORLD (MPI caches them there). */
static int job_keyval(int keyval)
{
    return keyval == MPI_HOST || keyval == MPI_IO || keyval == MPI_WTIME_IS_GLOBAL ||
           keyval == MPI_UNIVERSE_SIZE || keyval == MPI_APPNUM || keyval == MPI_LASTUSEDCODE;
}

/* MPI_TAG_UB is the exposed bound (tag encoding reserves high bits) on
 * every communicator; the value lives in csp_ip_tag_ub, as MPI keeps its
 * own attribute values in static storage. */
static int get_attr(MPI_Comm comm, int keyval, void *val, int *flag, int deprecated)
{
    MPI_Comm c = job_keyval(keyval) ? MPI_COMM_WORLD : csp_ip_map(comm);
    int rc = deprecated ? PMPI_Attr_get(c, keyval, val, flag)
                        : PMPI_Comm_get_attr(c, keyval, val, flag);
    if (rc == MPI_SUCCESS && keyval == MPI_TAG_UB && csp_ip_tag_ub > 0) {
        *(int **)val = &csp_ip_tag_ub;
        *flag = 1;
    }
    return rc;
}

int MPI_Comm_get_attr(MPI_Comm comm, int keyval, void *val, int *flag)
{
    return get_attr(comm, keyval, val, flag, 0);
}

int MPI_Attr_get(MPI_Comm comm, int keyval, void *val, int *flag)
{
    return get_attr(comm, keyval, val, flag, 1);
}

/* ---- error handlers ---- */

/* An error in a call without a communicator (MPI_Wait on a generalized
 * request, MPI_Alloc_mem, ...) goes to the real MPI_COMM_WORLD's handler.
 * The application set its handler on what it calls MPI_COMM_WORLD, the
 * user world: mirror it onto the real world so such errors are handled as
 * the application asked. */
int MPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler)
{
    MPI_Comm c = csp_ip_map(comm);
    int rc = PMPI_Comm_set_errhandler(c, errhandler);
    if (rc == MPI_SUCCESS && c == csp_ip_world && c != MPI_COMM_WORLD)
        PMPI_Comm_set_errhandler(MPI_COMM_WORLD, errhandler);
    return rc;
}

int MPI_Errhandler_set(MPI_Comm comm, MPI_Errhandler errhandler)
{
    MPI_Comm c = csp_ip_map(comm);
    int rc = PMPI_Errhandler_set(c, errhandler);
    if (rc == MPI_SUCCESS && c == csp_ip_world && c != MPI_COMM_WORLD)
        PMPI_Errhandler_set(MPI_COMM_WORLD, errhandler);
    return rc;
}
