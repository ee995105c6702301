/*
 * ip_waitall: an exchange's send and receive finish close together, so a
 * user sleeping in MPI_Waitall should be woken once for the pair, not
 * once per half. Users pair up (user i with user i + n/2) and run <iters>
 * exchanges of <bytes> (MPI_Isend + MPI_Irecv + MPI_Waitall) from
 * registered buffers, checking the data of every exchange. The test
 * compares the number of sleeps (CSP_STATS) with the number of exchanges.
 *
 *   ip_waitall <iters> <bytes>
 *
 * Output: "result rank=<r> test=waitall ok=<0|1> iters=<n> bad=<n>".
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    long iters = argc > 1 ? atol(argv[1]) : 500;
    int bytes = argc > 2 ? atoi(argv[2]) : 262144;
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "wildcard_used", "none");
    MPI_Info_set(info, "shmbuf_regist", "true");
    MPI_Comm comm;
    MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &comm);
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int peer = (rank + size / 2) % size;
    unsigned char *sbuf, *rbuf;
    MPI_Alloc_mem(bytes, info, &sbuf);
    MPI_Alloc_mem(bytes, info, &rbuf);
    long bad = 0;
    for (long i = 0; i < iters; i++) {
        sbuf[0] = (unsigned char)(i + rank);
        sbuf[bytes - 1] = (unsigned char)(i * 3 + rank);
        rbuf[0] = rbuf[bytes - 1] = 0xee;
        MPI_Request r[2];
        MPI_Isend(sbuf, bytes, MPI_BYTE, peer, 5, comm, &r[0]);
        MPI_Irecv(rbuf, bytes, MPI_BYTE, peer, 5, comm, &r[1]);
        MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
        bad += rbuf[0] != (unsigned char)(i + peer) || rbuf[bytes - 1] != (unsigned char)(i * 3 + peer);
    }
    printf("result rank=%d test=waitall ok=%d iters=%ld bad=%ld\n", rank, bad == 0, iters, bad);
    MPI_Free_mem(sbuf);
    MPI_Free_mem(rbuf);
    MPI_Info_free(&info);
    MPI_Comm_free(&comm);
    MPI_Finalize();
    return 0;
}
