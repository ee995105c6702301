/*
 * agree.c: a sum of a few int64 over a communicator's members, as cheap as
 * MPICH's barrier: the runtime's agreements (MPI_Comm_set_info's, the
 * automatic choice's evaluations) are one such sum each.
 *
 * MPICH's MPI_Iallreduce of a few words costs twice its barrier here (1.9
 * against 0.9 us, 2 processes: a schedule built and run for each call),
 * and its blocking MPI_Allreduce cannot lend the core to a ghost that has
 * work (coop.c) or be mixed with the nonblocking form across members. So
 * the sum is point to point: recursive doubling (members beyond a power
 * of two fold into a partner first), each step one Isend and one Irecv on
 * a private communicator with comm's group, waited for as MPICH's other
 * requests are (csp_coop_waitall). Two members: one exchange, 0.5 us.
 *
 * The private communicator is made (MPI_Comm_split: a dup would run the
 * application's attribute copy callbacks) at comm's first sum, a point
 * every member reaches alike, and freed with comm (csp_agree_forget, from
 * MPI_Comm_free). Its messages cannot meet the application's: they have a
 * context of their own. Integer sums do not depend on the order they are
 * added in, so every member gets the same out.
 *
 * Not thread-safe by itself: the caller holds the fast path's lock or runs
 * without MPI_THREAD_MULTIPLE (switch.c uses a blocking Allreduce there).
 */
#include "user.h"

#include <stdlib.h>
#include <string.h>

struct agree_comm {
    MPI_Comm comm, priv; /* priv: MPI_COMM_NULL for an intercommunicator */
    int rank, size;
};

static struct csp_commtab tab = {.size = sizeof(struct agree_comm)};

/* A scratch buffer for the partner's values. */
static int64_t *scratch;
static int nscratch;

/* The private communicator of comm, made at its first sum (collective). */
static int private_of(MPI_Comm comm, struct agree_comm **out)
{
    struct agree_comm *a = csp_commtab_find(&tab, comm);
    if (a) {
        *out = a;
        return MPI_SUCCESS;
    }
    struct agree_comm e = {.comm = comm, .priv = MPI_COMM_NULL};
    int inter = 0, rc = PMPI_Comm_test_inter(comm, &inter);
    if (rc == MPI_SUCCESS && !inter) {
        if ((rc = PMPI_Comm_rank(comm, &e.rank)) == MPI_SUCCESS &&
            (rc = PMPI_Comm_size(comm, &e.size)) == MPI_SUCCESS)
            rc = PMPI_Comm_split(comm, 0, e.rank, &e.priv);
    }
    if (rc != MPI_SUCCESS)
        return rc;
    if (!(a = csp_commtab_add(&tab, comm))) {
        if (e.priv != MPI_COMM_NULL)
            PMPI_Comm_free(&e.priv);
        return MPI_ERR_NO_MEM;
    }
    *a = e;
    *out = a;
    return MPI_SUCCESS;
}

void csp_agree_forget(MPI_Comm comm)
{
    struct agree_comm *a = csp_commtab_find(&tab, comm);
    if (!a)
        return;
    if (a->priv != MPI_COMM_NULL)
        PMPI_Comm_free(&a->priv);
    csp_commtab_del(&tab, a);
}

/* One step of the doubling: send n values to peer, add its n into acc. */
static int exchange(MPI_Comm priv, int peer, int64_t *acc, int n)
{
    MPI_Request r[2];
    MPI_Status st[2]; /* not MPI_STATUSES_IGNORE: GCC's bounds check of PMPI_Waitall */
    int rc = PMPI_Irecv(scratch, n, MPI_INT64_T, peer, 0, priv, &r[0]);
    if (rc != MPI_SUCCESS)
        return rc;
    if ((rc = PMPI_Isend(acc, n, MPI_INT64_T, peer, 0, priv, &r[1])) != MPI_SUCCESS) {
        PMPI_Cancel(&r[0]);
        PMPI_Request_free(&r[0]);
        return rc;
    }
    if ((rc = csp_coop_waitall(2, r, st)) != MPI_SUCCESS)
        return rc;
    for (int i = 0; i < n; i++)
        acc[i] += scratch[i];
    return MPI_SUCCESS;
}

/* Send n values to peer, or receive them from it (into acc, or added). */
static int one_way(MPI_Comm priv, int peer, int64_t *acc, int n, int send, int add)
{
    MPI_Request r;
    int rc = send ? PMPI_Isend(acc, n, MPI_INT64_T, peer, 0, priv, &r)
                  : PMPI_Irecv(scratch, n, MPI_INT64_T, peer, 0, priv, &r);
    if (rc != MPI_SUCCESS || (rc = csp_coop_wait(&r, MPI_STATUS_IGNORE)) != MPI_SUCCESS)
        return rc;
    if (!send) {
        if (add)
            for (int i = 0; i < n; i++)
                acc[i] += scratch[i];
        else
            memcpy(acc, scratch, (size_t)n * sizeof *acc);
    }
    return MPI_SUCCESS;
}

int csp_agree_sum(MPI_Comm comm, const int64_t *in, int64_t *out, int n)
{
    struct agree_comm *a;
    int rc = private_of(comm, &a);
    if (rc != MPI_SUCCESS)
        return rc;
    if (a->priv == MPI_COMM_NULL) { /* an intercommunicator: MPICH's */
        MPI_Request r;
        rc = PMPI_Iallreduce(in, out, n, MPI_INT64_T, MPI_SUM, comm, &r);
        return rc != MPI_SUCCESS ? rc : csp_coop_wait(&r, MPI_STATUS_IGNORE);
    }
    if (out != in)
        memmove(out, in, (size_t)n * sizeof *out);
    if (a->size == 1 || n <= 0)
        return MPI_SUCCESS;
    if (n > nscratch) {
        int64_t *s = realloc(scratch, (size_t)n * sizeof *s);
        if (!s)
            return MPI_ERR_NO_MEM;
        scratch = s;
        nscratch = n;
    }
    /* pof2: the largest power of two <= size. The first 2 * rem members
     * pair up (even sends to odd, which sums); the odd ones and the members
     * past them take part in the doubling as member `v` of pof2. */
    int size = a->size, rank = a->rank, pof2 = 1;
    while (2 * pof2 <= size)
        pof2 *= 2;
    int rem = size - pof2, v;
    if (rank < 2 * rem) {
        if (rank % 2 == 0) {
            if ((rc = one_way(a->priv, rank + 1, out, n, 1, 0)) != MPI_SUCCESS)
                return rc;
            return one_way(a->priv, rank + 1, out, n, 0, 0); /* the total */
        }
        if ((rc = one_way(a->priv, rank - 1, out, n, 0, 1)) != MPI_SUCCESS)
            return rc;
        v = rank / 2;
    } else {
        v = rank - rem;
    }
    for (int mask = 1; mask < pof2; mask <<= 1) {
        int pv = v ^ mask;
        int peer = pv < rem ? 2 * pv + 1 : pv + rem;
        if ((rc = exchange(a->priv, peer, out, n)) != MPI_SUCCESS)
            return rc;
    }
    if (rank < 2 * rem) /* an odd member returns the total to its partner */
        return one_way(a->priv, rank - 1, out, n, 1, 0);
    return MPI_SUCCESS;
}
