/*
 * ip_cancel: MPI_Cancel of offloaded receives, many times.
 *
 *   ip_cancel <n>
 *
 * Two users on a duplicate of MPI_COMM_WORLD (wildcard_used=none, offload
 * on): each posts an MPI_Irecv from its peer with a tag nobody sends,
 * cancels it, waits for it and checks MPI_Test_cancelled, n times; then one
 * exchange on the same communicator checks that its channel still carries
 * data. The cancel is a control cell the ghost answers (internal/user/
 * control.c). Output per rank: "cancel rank=<r> n=<n> cancelled=<k>
 * exchange_ok=<0|1>".
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, n = argc > 1 ? atoi(argv[1]) : 100;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int peer = rank ^ 1;
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "wildcard_used", "none");
    MPI_Comm comm;
    MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &comm);
    MPI_Info_free(&info);

    int cancelled = 0, buf = 0;
    for (int i = 0; i < n; i++) {
        MPI_Request r;
        MPI_Status st;
        MPI_Irecv(&buf, 1, MPI_INT, peer, 77, comm, &r);
        MPI_Cancel(&r);
        MPI_Wait(&r, &st);
        int flag = 0;
        MPI_Test_cancelled(&st, &flag);
        cancelled += flag;
    }
    int out = 1000 + rank, in = -1;
    MPI_Sendrecv(&out, 1, MPI_INT, peer, 5, &in, 1, MPI_INT, peer, 5, comm, MPI_STATUS_IGNORE);
    printf("cancel rank=%d n=%d cancelled=%d exchange_ok=%d\n", rank, n, cancelled, in == 1000 + peer);
    fflush(stdout);
    MPI_Comm_free(&comm);
    MPI_Finalize();
    return 0;
}
