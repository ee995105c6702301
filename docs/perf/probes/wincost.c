/*
 * wincost.c: what making and freeing a window costs (docs/design.md
 * section 11, shared windows): the median time of MPI_Win_allocate_shared
 * (or MPI_Win_allocate) and of MPI_Win_free over n windows of the given
 * bytes per process, after a barrier each, the slowest rank's median.
 *
 *   wincost shared|allocate world|self <n> <bytes> [regist]
 *
 * regist puts shmbuf_regist=true in the window's info. Run as
 *
 *   mpicc.mpich -O2 -o /tmp/wincost docs/perf/probes/wincost.c
 *   mpiexec.mpich -n 2 /tmp/wincost shared world 100 65536
 *   mpiexec.mpich -n 4 -genv CSP_NODE_SIZE 2 -genv LD_PRELOAD $PWD/lib/libcasperii.so \
 *       /tmp/wincost shared world 100 65536
 *   (and with -genv CSP_ASYNC_MODE pt2pt, with and without regist; self)
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

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (argc < 5) {
        if (rank == 0)
            fprintf(stderr, "usage: wincost shared|allocate world|self <n> <bytes> [regist]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int shared = strcmp(argv[1], "shared") == 0;
    MPI_Comm c = strcmp(argv[2], "self") == 0 ? MPI_COMM_SELF : MPI_COMM_WORLD;
    int n = atoi(argv[3]);
    MPI_Aint bytes = atol(argv[4]);
    MPI_Info info = MPI_INFO_NULL;
    if (argc > 5) {
        MPI_Info_create(&info);
        MPI_Info_set(info, "shmbuf_regist", "true");
    }
    double *tc = malloc(n * sizeof *tc), *tf = malloc(n * sizeof *tf);
    for (int i = 0; i < n + 5; i++) { /* 5 to warm up */
        void *base;
        MPI_Win w;
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        if (shared)
            MPI_Win_allocate_shared(bytes, 1, info, c, &base, &w);
        else
            MPI_Win_allocate(bytes, 1, info, c, &base, &w);
        double t1 = MPI_Wtime();
        memset(base, 1, bytes);
        MPI_Barrier(MPI_COMM_WORLD);
        double t2 = MPI_Wtime();
        MPI_Win_free(&w);
        double t3 = MPI_Wtime();
        if (i >= 5) {
            tc[i - 5] = t1 - t0;
            tf[i - 5] = t3 - t2;
        }
    }
    qsort(tc, n, sizeof *tc, cmp);
    qsort(tf, n, sizeof *tf, cmp);
    double mc = tc[n / 2], mf = tf[n / 2], ac, af;
    MPI_Reduce(&mc, &ac, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&mf, &af, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%s %s %ld bytes: create %.1f us, free %.1f us (median of %d, max over ranks)\n", argv[1],
               argv[2], (long)bytes, ac * 1e6, af * 1e6, n);
    if (info != MPI_INFO_NULL)
        MPI_Info_free(&info);
    free(tc);
    free(tf);
    MPI_Finalize();
    return 0;
}
