/*
 * ip_exchange: an application that offloads with hints, under the
 * interposer (preloaded or linked).
 *
 *   ip_exchange <expected user count>
 *
 * Checks that MPI_COMM_WORLD holds the users only (size, group), that
 * MPI_TAG_UB is the exposed bound (printed), then exchanges messages of
 * 1 B .. 4 MiB around a ring on a duplicate of MPI_COMM_WORLD with
 * wildcard_used=none, from and into MPI_Alloc_mem buffers with
 * shmbuf_regist=true, and checks every byte. Also a blocking Send/Recv, a
 * Sendrecv_replace and the MPI 4.0 Isendrecv and Isendrecv_replace per
 * size.
 *
 * Output: "result rank=<r> test=<name> ok=<0|1> ..." lines.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned char pattern(int src, int size, long i)
{
    return (unsigned char)(src * 31 + size * 7 + i * 13);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int want = argc > 1 ? atoi(argv[1]) : -1;
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    printf("result rank=%d test=world ok=%d size=%d\n", rank, want < 0 || size == want, size);

    MPI_Group g;
    int gsize;
    MPI_Comm_group(MPI_COMM_WORLD, &g);
    MPI_Group_size(g, &gsize);
    MPI_Group_free(&g);
    printf("result rank=%d test=group ok=%d size=%d\n", rank, gsize == size, gsize);

    int *ub, flag;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag);
    printf("result rank=%d test=tagub ok=%d tagub=%d\n", rank, flag && *ub >= 32767, flag ? *ub : -1);

    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "wildcard_used", "none");
    MPI_Comm comm;
    MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &comm);
    MPI_Info_free(&info);
    MPI_Info reg;
    MPI_Info_create(&reg);
    MPI_Info_set(reg, "shmbuf_regist", "true");

    /* The hints are visible in MPI_Comm_get_info. */
    MPI_Info used;
    char val[64] = "";
    MPI_Comm_get_info(comm, &used);
    MPI_Info_get(used, "wildcard_used", sizeof(val) - 1, val, &flag);
    MPI_Info_free(&used);
    printf("result rank=%d test=getinfo ok=%d value=%s\n", rank, flag && strcmp(val, "none") == 0,
           flag ? val : "unset");

    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    int bad = 0;
    for (long n = 1; n <= 4L << 20; n *= 4) {
        unsigned char *sb, *rb;
        MPI_Alloc_mem(n, reg, &sb);
        MPI_Alloc_mem(n, reg, &rb);
        for (long i = 0; i < n; i++)
            sb[i] = pattern(rank, (int)n, i);
        memset(rb, 0, n);
        MPI_Request r[2];
        MPI_Status st[2];
        MPI_Irecv(rb, (int)n, MPI_BYTE, prev, 7, comm, &r[0]);
        MPI_Isend(sb, (int)n, MPI_BYTE, next, 7, comm, &r[1]);
        MPI_Waitall(2, r, st);
        int count = -1;
        MPI_Get_count(&st[0], MPI_BYTE, &count);
        int ok = st[0].MPI_SOURCE == prev && st[0].MPI_TAG == 7 && count == n;
        for (long i = 0; i < n && ok; i++)
            ok = rb[i] == pattern(prev, (int)n, i);
        printf("result rank=%d test=isend size=%ld ok=%d src=%d tag=%d count=%d\n", rank, n, ok,
               st[0].MPI_SOURCE, st[0].MPI_TAG, count);
        bad += !ok;

        /* blocking, in ring order (rank 0 sends first) */
        memset(rb, 0, n);
        if (rank % 2 == 0) {
            MPI_Send(sb, (int)n, MPI_BYTE, next, 8, comm);
            MPI_Recv(rb, (int)n, MPI_BYTE, prev, 8, comm, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(rb, (int)n, MPI_BYTE, prev, 8, comm, MPI_STATUS_IGNORE);
            MPI_Send(sb, (int)n, MPI_BYTE, next, 8, comm);
        }
        ok = 1;
        for (long i = 0; i < n && ok; i++)
            ok = rb[i] == pattern(prev, (int)n, i);
        printf("result rank=%d test=send size=%ld ok=%d\n", rank, n, ok);
        bad += !ok;

        /* in place */
        for (long i = 0; i < n; i++)
            rb[i] = pattern(rank, (int)n, i);
        MPI_Sendrecv_replace(rb, (int)n, MPI_BYTE, next, 9, prev, 9, comm, MPI_STATUS_IGNORE);
        ok = 1;
        for (long i = 0; i < n && ok; i++)
            ok = rb[i] == pattern(prev, (int)n, i);
        printf("result rank=%d test=replace size=%ld ok=%d\n", rank, n, ok);
        bad += !ok;

        /* MPI 4.0 nonblocking sendrecv: one request over both halves */
        memset(rb, 0, n);
        MPI_Request q;
        MPI_Status qs;
        MPI_Isendrecv(sb, (int)n, MPI_BYTE, next, 10, rb, (int)n, MPI_BYTE, prev, 10, comm, &q);
        MPI_Wait(&q, &qs);
        MPI_Get_count(&qs, MPI_BYTE, &count);
        ok = qs.MPI_SOURCE == prev && qs.MPI_TAG == 10 && count == n;
        for (long i = 0; i < n && ok; i++)
            ok = rb[i] == pattern(prev, (int)n, i);
        printf("result rank=%d test=isendrecv size=%ld ok=%d\n", rank, n, ok);
        bad += !ok;
        for (long i = 0; i < n; i++)
            rb[i] = pattern(rank, (int)n, i);
        MPI_Isendrecv_replace(rb, (int)n, MPI_BYTE, next, 11, prev, 11, comm, &q);
        flag = 0;
        while (!flag)
            MPI_Test(&q, &flag, MPI_STATUS_IGNORE);
        ok = 1;
        for (long i = 0; i < n && ok; i++)
            ok = rb[i] == pattern(prev, (int)n, i);
        printf("result rank=%d test=isendrecv-replace size=%ld ok=%d\n", rank, n, ok);
        bad += !ok;
        MPI_Free_mem(sb);
        MPI_Free_mem(rb);
    }
    MPI_Info_free(&reg);
    MPI_Comm_free(&comm);
    MPI_Finalize();
    return bad != 0;
}
