/*
 * ip_allocmem: MPI_Alloc_mem with and without shmbuf_regist=true, used on
 * an offloaded communicator.
 *
 *   ip_allocmem regist|plain
 *
 * A ring exchange of 1 KiB .. 1 MiB on a wildcard_used=none duplicate of
 * MPI_COMM_WORLD from and into MPI_Alloc_mem buffers, allocated with
 * shmbuf_regist=true (regist: no bounce copy, CSP_STATS bounce=0) or with
 * an info without the hint (plain: every message is bounced, bounce>0).
 * MPI_Free_mem returns both kinds.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, bad = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int regist = argc > 1 && strcmp(argv[1], "regist") == 0;

    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "wildcard_used", "none");
    MPI_Comm c;
    MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &c);
    MPI_Info_free(&info);
    MPI_Info_create(&info);
    MPI_Info_set(info, "shmbuf_regist", regist ? "true" : "false");

    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    for (int n = 1024; n <= 1 << 20; n *= 8) {
        char *sb, *rb;
        MPI_Alloc_mem(n, info, &sb);
        MPI_Alloc_mem(n, info, &rb);
        for (int i = 0; i < n; i++)
            sb[i] = (char)(rank + i);
        MPI_Request r[2];
        MPI_Status st[2];
        MPI_Irecv(rb, n, MPI_BYTE, prev, 0, c, &r[0]);
        MPI_Isend(sb, n, MPI_BYTE, next, 0, c, &r[1]);
        MPI_Waitall(2, r, st);
        int ok = 1;
        for (int i = 0; i < n && ok; i++)
            ok = rb[i] == (char)(prev + i);
        printf("result rank=%d test=allocmem size=%d regist=%d ok=%d\n", rank, n, regist, ok);
        bad += !ok;
        MPI_Free_mem(sb);
        MPI_Free_mem(rb);
    }
    MPI_Info_free(&info);
    MPI_Comm_free(&c);
    MPI_Finalize();
    return bad != 0;
}
