/*
 * ip_fatal: one error under MPI's default handler (MPI_ERRORS_ARE_FATAL),
 * so the job aborts; the test reads what it printed.
 *
 *   ip_fatal tag      MPI_Isend with a tag above the exposed MPI_TAG_UB on
 *                     an offloaded communicator (MPI_ERR_TAG)
 *   ip_fatal hint     MPI_Comm_dup_with_info with wildcard_used=bogus
 *                     (MPI_ERR_INFO_VALUE)
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    const char *what = argc > 1 ? argv[1] : "tag";
    int rank, x = 1, ub, flag;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "wildcard_used", strcmp(what, "hint") == 0 ? "bogus" : "none");
    MPI_Comm comm;
    MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &comm);
    MPI_Request r = MPI_REQUEST_NULL;
    if (strcmp(what, "tag") == 0 && rank == 0) {
        int *p;
        MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &p, &flag);
        ub = *p;
        MPI_Isend(&x, 1, MPI_INT, 0, ub + 1, comm, &r);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    printf("result rank=%d test=fatal what=%s survived=1\n", rank, what);
    MPI_Finalize();
    return 0;
}
