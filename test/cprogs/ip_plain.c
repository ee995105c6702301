/*
 * ip_plain: an unmodified MPI program that never passes a hint, under the
 * interposer. Everything it does on MPI_COMM_WORLD must see the users only
 * and behave as plain MPI would.
 *
 *   ip_plain <expected user count>
 *
 * Output: "result rank=<r> test=<name> ok=<0|1>" lines.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size, bad;

static void check(const char *name, int ok)
{
    printf("result rank=%d test=%s ok=%d\n", rank, name, ok);
    bad += !ok;
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    int want = argc > 1 ? atoi(argv[1]) : -1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    check("size", want < 0 || size == want);
    check("provided", provided >= MPI_THREAD_FUNNELED);

    char name[MPI_MAX_OBJECT_NAME];
    int len;
    MPI_Comm_get_name(MPI_COMM_WORLD, name, &len);
    check("name", strcmp(name, "MPI_COMM_WORLD") == 0);

    /* collectives */
    int v = rank + 1, sum = 0;
    MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    check("allreduce", sum == size * (size + 1) / 2);
    int root = size - 1, b = rank == root ? 4242 : 0;
    MPI_Bcast(&b, 1, MPI_INT, root, MPI_COMM_WORLD);
    check("bcast", b == 4242);
    int *all = malloc(sizeof(int) * size);
    MPI_Allgather(&rank, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD);
    int ok = 1;
    for (int i = 0; i < size; i++)
        ok &= all[i] == i;
    check("allgather", ok);
    free(all);
    MPI_Barrier(MPI_COMM_WORLD);

    /* point-to-point on the world */
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    int out[256], in[256];
    for (int i = 0; i < 256; i++)
        out[i] = rank * 1000 + i;
    MPI_Request r[2];
    MPI_Irecv(in, 256, MPI_INT, prev, 3, MPI_COMM_WORLD, &r[0]);
    MPI_Isend(out, 256, MPI_INT, next, 3, MPI_COMM_WORLD, &r[1]);
    int idx, done = 0;
    MPI_Status st;
    while (done < 2) {
        MPI_Waitany(2, r, &idx, &st);
        done++;
    }
    ok = 1;
    for (int i = 0; i < 256; i++)
        ok &= in[i] == prev * 1000 + i;
    check("isend", ok);

    MPI_Sendrecv(out, 256, MPI_INT, next, 4, in, 256, MPI_INT, MPI_ANY_SOURCE, 4,
                 MPI_COMM_WORLD, &st);
    check("sendrecv", st.MPI_SOURCE == prev && st.MPI_TAG == 4 && in[5] == prev * 1000 + 5);

    if (rank == 0)
        MPI_Send(out, 10, MPI_INT, size - 1, 5, MPI_COMM_WORLD);
    if (rank == size - 1) {
        int flag = 0, count;
        while (!flag)
            MPI_Iprobe(MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, &flag, &st);
        MPI_Get_count(&st, MPI_INT, &count);
        MPI_Recv(in, 10, MPI_INT, st.MPI_SOURCE, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        check("iprobe", count == 10 && st.MPI_SOURCE == 0 && in[9] == 9);
    }

    /* communicators built from the world */
    MPI_Comm half, dup;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    int hsize;
    MPI_Comm_size(half, &hsize);
    check("split", hsize == (size + 1 - rank % 2) / 2);
    MPI_Comm_free(&half);
    MPI_Request ir;
    MPI_Comm_idup(MPI_COMM_WORLD, &dup, &ir);
    MPI_Wait(&ir, MPI_STATUS_IGNORE);
    int cmp;
    MPI_Comm_compare(MPI_COMM_WORLD, dup, &cmp);
    check("idup", cmp == MPI_CONGRUENT);
    MPI_Barrier(dup);
    MPI_Comm_free(&dup);

    int dims[1] = {0}, periods[1] = {1};
    MPI_Dims_create(size, 1, dims);
    MPI_Comm cart;
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cart);
    int src, dst;
    MPI_Cart_shift(cart, 0, 1, &src, &dst);
    check("cart", src == prev && dst == next);
    MPI_Comm_free(&cart);

    MPI_Finalize();
    return bad != 0;
}
