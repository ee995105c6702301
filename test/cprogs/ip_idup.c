/*
 * ip_idup: MPI_Comm_idup_with_info stays nonblocking and its communicator
 * is offloaded once the request completes.
 *
 *   ip_idup
 *
 * Starts MPI_Comm_idup_with_info(MPI_COMM_WORLD, wildcard_used=none),
 * creates another communicator with a blocking MPI_Comm_dup_with_info
 * while the first is pending (the two must not pick the same internal
 * resources), completes the idup with an MPI_Test loop, then exchanges
 * messages on both. A plain MPI_Comm_idup of the idup'ed communicator
 * (inheriting its hints) completes with MPI_Wait and carries traffic too.
 * With CSP_STATS=1 isend_offloaded counts every message.
 */
#include <mpi.h>
#include <stdio.h>

static int rank, size, bad;

static void ring(MPI_Comm c, const char *name, int tag)
{
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    int out[1000], in[1000];
    for (int i = 0; i < 1000; i++)
        out[i] = rank * 7 + i + tag;
    MPI_Request r[2];
    MPI_Status st[2];
    MPI_Irecv(in, 1000, MPI_INT, prev, tag, c, &r[0]);
    MPI_Isend(out, 1000, MPI_INT, next, tag, c, &r[1]);
    MPI_Waitall(2, r, st);
    int ok = st[0].MPI_SOURCE == prev && st[0].MPI_TAG == tag;
    for (int i = 0; i < 1000; i++)
        ok &= in[i] == prev * 7 + i + tag;
    printf("result rank=%d test=%s ok=%d\n", rank, name, ok);
    bad += !ok;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "wildcard_used", "none");

    MPI_Comm a, b, c;
    MPI_Request req;
    MPI_Comm_idup_with_info(MPI_COMM_WORLD, info, &a, &req);
    MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &b);
    MPI_Info_free(&info);
    int flag = 0, polls = 0;
    while (!flag) {
        MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
        polls++;
    }
    printf("result rank=%d test=idup-test ok=%d polls=%d\n", rank, req == MPI_REQUEST_NULL, polls);
    ring(a, "idup-ring", 11);
    ring(b, "dup-ring", 12);

    MPI_Comm_idup(a, &c, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    ring(c, "idup-inherit-ring", 13);

    MPI_Comm_free(&c);
    MPI_Comm_free(&b);
    MPI_Comm_free(&a);
    MPI_Finalize();
    return bad != 0;
}
