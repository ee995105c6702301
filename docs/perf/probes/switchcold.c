/*
 * switchcold.c: what an MPI_Comm_set_info costs where the phases benchmark
 * takes it, after an exchange that swept the caches, against the MPICH
 * operations it is made of (docs/design.md section 10, "What a switch
 * costs"). Every sample: 4 exchanges of <bytes> on the communicator
 * (buffers written before each), MPI_Barrier, then, timed one after the
 * other:
 *
 *   cold exchange   one Isend/Irecv pair of 48 B with the partner on a
 *                   communicator of MPICH's own (PMPI): what the
 *                   agreement's sum is, in the same place
 *   set_info        MPI_Comm_set_info(async_config=<on|off>) that keeps
 *                   the route (the communicator is already there), so
 *                   that its agreement and not an install is timed
 *   barrier         MPI_Barrier
 *   warm exchange   the same exchange again, right after
 *
 * Medians over the samples, member 0's. The communicator is MPI_COMM_WORLD
 * duplicated with wildcard_used=none; <route> on carries the exchanges
 * through the ghosts, off straight to MPICH. Two members only.
 *
 *   mpicc -O2 -o switchcold switchcold.c
 *   mpiexec -n 4 -genv CSP_NODE_SIZE 2 -genv LD_PRELOAD $PWD/lib/libcasperii.so \
 *       ./switchcold <samples> <bytes> <on|off>
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp);
    return v[n / 2];
}

static void exchange48(MPI_Comm c, int peer, long long tag)
{
    long long in[6] = {tag}, out[6];
    MPI_Request q[2];
    MPI_Status st[2];
    PMPI_Irecv(out, 6, MPI_INT64_T, peer, 0, c, &q[0]);
    PMPI_Isend(in, 6, MPI_INT64_T, peer, 0, c, &q[1]);
    PMPI_Waitall(2, q, st);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    if (argc < 4) {
        fprintf(stderr, "usage: switchcold <samples> <bytes> <on|off>\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int n = atoi(argv[1]), bytes = atoi(argv[2]), on = strcmp(argv[3], "on") == 0;
    MPI_Info hint, route;
    MPI_Info_create(&hint);
    MPI_Info_set(hint, "wildcard_used", "none");
    MPI_Info_create(&route);
    MPI_Info_set(route, "async_config", on ? "on" : "off");
    MPI_Comm comm, mine;
    int rank, size;
    MPI_Comm_dup_with_info(MPI_COMM_WORLD, hint, &comm);
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    if (size != 2) {
        fprintf(stderr, "switchcold: 2 members, not %d\n", size);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    PMPI_Comm_split(comm, 0, rank, &mine);
    MPI_Comm_set_info(comm, route);
    char *sb = malloc((size_t)bytes), *rb = malloc((size_t)bytes);
    double *t[4];
    for (int k = 0; k < 4; k++)
        t[k] = malloc(sizeof(double) * (size_t)n);
    int peer = rank ^ 1;
    for (int i = 0; i < n; i++) {
        for (int k = 0; k < 4; k++) {
            MPI_Request q[2];
            MPI_Status st[2];
            memset(sb, i + k, (size_t)bytes);
            MPI_Irecv(rb, bytes, MPI_CHAR, peer, 0, comm, &q[0]);
            MPI_Isend(sb, bytes, MPI_CHAR, peer, 0, comm, &q[1]);
            MPI_Waitall(2, q, st);
        }
        MPI_Barrier(comm);
        double t0 = MPI_Wtime();
        exchange48(mine, peer, i);
        double t1 = MPI_Wtime();
        MPI_Comm_set_info(comm, route);
        double t2 = MPI_Wtime();
        MPI_Barrier(comm);
        double t3 = MPI_Wtime();
        exchange48(mine, peer, i);
        double t4 = MPI_Wtime();
        t[0][i] = (t1 - t0) * 1e6;
        t[1][i] = (t2 - t1) * 1e6;
        t[2][i] = (t3 - t2) * 1e6;
        t[3][i] = (t4 - t3) * 1e6;
    }
    if (rank == 0)
        printf("switchcold: %d samples after 4 exchanges of %d B, route %s: cold exchange %.2f us, "
               "set_info %.2f, barrier %.2f, warm exchange %.2f\n",
               n, bytes, on ? "on" : "off", median(t[0], n), median(t[1], n), median(t[2], n),
               median(t[3], n));
    MPI_Comm_free(&mine);
    MPI_Comm_free(&comm);
    MPI_Finalize();
    return 0;
}
