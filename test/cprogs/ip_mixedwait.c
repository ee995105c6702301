/*
 * ip_mixedwait: a receive MPICH serves directly stays pending while its
 * process waits for a message the ghosts carry; the direct message's
 * rendezvous progresses only in the receiver's MPI calls, as under plain
 * MPICH (internal/user/block.c: mpich_work).
 *
 *   ip_mixedwait <iters> <bytes>
 *
 * Ranks 0 and 1 (of 2 users) per iteration: rank 1 computes 1 ms (so
 * that rank 0 waits past its spinning and sleeps), fills <bytes>, sends
 * them with a blocking MPI_Send on a duplicate of MPI_COMM_WORLD made with
 * async_config=off (direct), then 8 bytes on a plain duplicate (offloaded);
 * rank 0 has posted MPI_Irecv for the first, receives the second with
 * MPI_Recv, then waits for the first and checks every byte.
 *
 * Output: "result name=mixedwait ok=<0|1> iters=<n>" (rank 0), "time
 * name=mixedwait bytes=<b> us=<mean per iteration>" (rank 0), and
 * "route rank=<r> direct=<algo> offloaded=<algo>" (csp_test_comm_algo: 0 not
 * offloaded; -1 without the library).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int algo(MPI_Comm c)
{
    int (*f)(MPI_Comm) = (int (*)(MPI_Comm))dlsym(RTLD_DEFAULT, "csp_test_comm_algo");
    return f ? f(c) : -1;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int iters = argc > 1 ? atoi(argv[1]) : 100;
    int bytes = argc > 2 ? atoi(argv[2]) : 256 * 1024;
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "async_config", "off");
    MPI_Comm direct, offl;
    MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &direct);
    MPI_Comm_dup(MPI_COMM_WORLD, &offl);
    MPI_Info_free(&info);
    printf("route rank=%d direct=%d offloaded=%d\n", rank, algo(direct), algo(offl));
    unsigned char *buf = malloc((size_t)bytes);
    long small = 0;
    int ok = 1;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = now_s();
    for (int i = 0; i < iters && size >= 2; i++) {
        if (rank == 1) {
            double until = now_s() + 1e-3;
            while (now_s() < until)
                ;
            for (int k = 0; k < bytes; k++)
                buf[k] = (unsigned char)(i * 7 + k);
            MPI_Send(buf, bytes, MPI_BYTE, 0, 1, direct);
            small = i;
            MPI_Send(&small, 1, MPI_LONG, 0, 2, offl);
        } else if (rank == 0) {
            MPI_Request r;
            MPI_Status st;
            memset(buf, 0, (size_t)bytes);
            MPI_Irecv(buf, bytes, MPI_BYTE, 1, 1, direct, &r);
            MPI_Recv(&small, 1, MPI_LONG, 1, 2, offl, MPI_STATUS_IGNORE);
            MPI_Wait(&r, &st);
            int n = -1;
            MPI_Get_count(&st, MPI_BYTE, &n);
            ok &= small == i && n == bytes && st.MPI_SOURCE == 1 && st.MPI_TAG == 1;
            for (int k = 0; k < bytes; k++)
                ok &= buf[k] == (unsigned char)(i * 7 + k);
        }
    }
    double us = (now_s() - t0) / (iters > 0 ? iters : 1) * 1e6;
    if (rank == 0) {
        printf("result name=mixedwait ok=%d iters=%d\n", ok, iters);
        printf("time name=mixedwait bytes=%d us=%.1f\n", bytes, us);
    }
    free(buf);
    MPI_Comm_free(&direct);
    MPI_Comm_free(&offl);
    MPI_Finalize();
    return ok ? 0 : 1;
}
