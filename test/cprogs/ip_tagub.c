/*
 * ip_tagub: the tags a program may use are MPI_TAG_UB's, whatever route
 * carries them.
 *
 *   ip_tagub
 *
 * Prints MPI_TAG_UB, then passes a message around a ring on a duplicate
 * of MPI_COMM_WORLD (no hints) with tag MPI_TAG_UB, and another with tag
 * 424242 (OpenCoarrays' tag for image status, which it uses without
 * asking) where MPI_TAG_UB allows it, and checks what arrived.
 *
 * Output: "result rank=<r> test=<name> ok=<0|1> ..." lines.
 */
#include <mpi.h>
#include <stdio.h>

static int ring(MPI_Comm comm, int rank, int size, int tag)
{
    int out = 1000 * rank + tag % 1000, in = -1;
    MPI_Request r[2];
    MPI_Status st;
    MPI_Irecv(&in, 1, MPI_INT, (rank + size - 1) % size, tag, comm, &r[0]);
    MPI_Isend(&out, 1, MPI_INT, (rank + 1) % size, tag, comm, &r[1]);
    MPI_Wait(&r[0], &st);
    MPI_Wait(&r[1], MPI_STATUS_IGNORE);
    int from = (rank + size - 1) % size;
    return in == 1000 * from + tag % 1000 && st.MPI_TAG == tag && st.MPI_SOURCE == from;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, *ub, flag;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag);
    printf("result rank=%d test=tagub ok=%d tagub=%d\n", rank, flag && *ub >= 32767, flag ? *ub : -1);
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    printf("result rank=%d test=ring-ub ok=%d\n", rank, ring(comm, rank, size, *ub));
    if (*ub >= 424242)
        printf("result rank=%d test=ring-424242 ok=%d\n", rank, ring(comm, rank, size, 424242));
    MPI_Comm_free(&comm);
    MPI_Finalize();
    return 0;
}
