/*
 * comms: point-to-point on communicators made every way: MPI_Comm_dup,
 * MPI_Comm_dup_with_info, MPI_Comm_idup, MPI_Comm_split (odd and even
 * ranks, keys reversing the order), MPI_Comm_split_type(SHARED),
 * MPI_Comm_create and MPI_Comm_create_group (a subgroup), MPI_Cart_create
 * (a ring with MPI_Cart_shift). On each, a ring exchange with ranks of
 * that communicator. Messages with the same source and tag on different
 * communicators match only receives of their own communicator. An
 * operation outlives its communicator's MPI_Comm_free (MPI 6.4.3).
 *
 * Checklist (MPICH test/mpi/pt2pt and comm): huge_dupcomm, the comm
 * suite's pt2pt-on-new-communicator cases.
 *
 * np: 4
 */
#include "conf.h"

/* A ring exchange on comm: send to the next rank, receive from the
 * previous; seed identifies the communicator. */
static void ring(MPI_Comm comm, int seed, const char *what)
{
    int me, n;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &n);
    int right = (me + 1) % n, left = (me + n - 1) % n;
    int sb[300], rb[300];
    MPI_Request r[2];
    MPI_Status st[2];
    conf_fill(sb, 300, seed * 100 + me);
    MPI_Irecv(rb, 300, MPI_INT, left, 3, comm, &r[0]);
    MPI_Isend(sb, 300, MPI_INT, right, 3, comm, &r[1]);
    CHECK_RC(MPI_Waitall(2, r, st), what);
    if (conf_check_status(&st[0], left, 3, MPI_INT, 300, what))
        conf_check_data(rb, 300, seed * 100 + left, what);
    conf_fill(sb, 300, seed * 100 + 50 + me);
    CHECK_RC(MPI_Sendrecv(sb, 300, MPI_INT, left, 4, rb, 300, MPI_INT, right, 4, comm, &st[0]),
             what);
    if (conf_check_status(&st[0], right, 4, MPI_INT, 300, what))
        conf_check_data(rb, 300, seed * 100 + 50 + right, what);
}

int main(int argc, char **argv)
{
    conf_init(&argc, &argv, "comms", 4);
    int me = conf_rank, n = conf_size;
    MPI_Comm c[8];
    MPI_Request req;

    MPI_Comm_dup(MPI_COMM_WORLD, &c[0]);
    MPI_Comm_dup_with_info(MPI_COMM_WORLD, MPI_INFO_NULL, &c[1]);
    MPI_Comm_idup(MPI_COMM_WORLD, &c[2], &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Comm_split(MPI_COMM_WORLD, me % 2, n - me, &c[3]);
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &c[4]);
    MPI_Group wg, sub;
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    int first3[3] = {0, 1, 2};
    MPI_Group_incl(wg, 3, first3, &sub);
    MPI_Comm_create(MPI_COMM_WORLD, sub, &c[5]);
    c[6] = MPI_COMM_NULL;
    if (me < 3)
        MPI_Comm_create_group(MPI_COMM_WORLD, sub, 7, &c[6]);
    int dims[1] = {n}, periods[1] = {1};
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &c[7]);

    static const char *names[8] = {"MPI_Comm_dup",   "MPI_Comm_dup_with_info", "MPI_Comm_idup",
                                   "MPI_Comm_split", "MPI_Comm_split_type",    "MPI_Comm_create",
                                   "MPI_Comm_create_group", "MPI_Cart_create"};
    for (int i = 0; i < 8; i++)
        if (c[i] != MPI_COMM_NULL)
            ring(c[i], i + 1, names[i]);

    /* The split reverses the order: rank in it is (n - me) ordering. */
    int sr, ss;
    MPI_Comm_rank(c[3], &sr);
    MPI_Comm_size(c[3], &ss);
    int want = 0;
    for (int r = me + 2; r < n; r += 2)
        want++; /* members with a larger world rank have smaller keys */
    CHECK(sr == want && ss == (n + 1 - me % 2) / 2, "MPI_Comm_split: rank %d of %d, want %d", sr,
          ss, want);

    /* MPI_Cart_shift names the neighbours the ring used. */
    int src, dst;
    MPI_Cart_shift(c[7], 0, 1, &src, &dst);
    CHECK(src == (me + n - 1) % n && dst == (me + 1) % n, "MPI_Cart_shift: %d %d", src, dst);

    /* Same source and tag on world and a duplicate: each receive gets its
     * own communicator's message, whatever the posting order. */
    if (me == 0) {
        int a[10], b[10];
        conf_fill(a, 10, 901);
        conf_fill(b, 10, 902);
        MPI_Send(a, 10, MPI_INT, 1, 9, MPI_COMM_WORLD);
        MPI_Send(b, 10, MPI_INT, 1, 9, c[0]);
    } else if (me == 1) {
        int a[10], b[10];
        MPI_Request r[2];
        MPI_Irecv(b, 10, MPI_INT, 0, 9, c[0], &r[1]);
        MPI_Irecv(a, 10, MPI_INT, 0, 9, MPI_COMM_WORLD, &r[0]);
        MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
        conf_check_data(a, 10, 901, "the world's message, beside a duplicate's");
        conf_check_data(b, 10, 902, "the duplicate's message, beside the world's");
    }

    /* Operations outlive MPI_Comm_free. */
    {
        MPI_Comm t;
        MPI_Request r[2];
        int sb[100], rb[100];
        MPI_Comm_dup(MPI_COMM_WORLD, &t);
        int right = (me + 1) % n, left = (me + n - 1) % n;
        conf_fill(sb, 100, 950 + me);
        MPI_Irecv(rb, 100, MPI_INT, left, 1, t, &r[0]);
        MPI_Isend(sb, 100, MPI_INT, right, 1, t, &r[1]);
        CHECK_RC(MPI_Comm_free(&t), "MPI_Comm_free with operations pending");
        CHECK_RC(MPI_Waitall(2, r, MPI_STATUSES_IGNORE), "MPI_Waitall after MPI_Comm_free");
        conf_check_data(rb, 100, 950 + left, "an exchange across MPI_Comm_free");
    }

    for (int i = 0; i < 8; i++)
        if (c[i] != MPI_COMM_NULL)
            MPI_Comm_free(&c[i]);
    MPI_Group_free(&sub);
    MPI_Group_free(&wg);
    return conf_finish();
}
