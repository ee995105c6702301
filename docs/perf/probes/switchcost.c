/*
 * switchcost.c: what one MPI_Comm_set_info that switches a communicator's
 * route costs, against one MPI_Barrier on the same communicator
 * (docs/design.md section 10). Every sample: MPI_Barrier (aligns the
 * members), then the timed operation; medians (and p10, p90) of the
 * members' samples, the largest over the members, and the context
 * switches of the process per operation (getrusage: all its threads).
 *
 *   barrier      MPI_Barrier
 *   iallreduce   MPI_Iallreduce of 6 int64 + MPI_Wait: what the switch's
 *                agreement is (internal/core/switch.go, agreeHints)
 *   switch       MPI_Comm_set_info(async_config=off), then =on, and so on:
 *                every call switches (nothing is in flight)
 *   switch-sym   the same with symmetric=true
 *   same         MPI_Comm_set_info(async_config=on) on a communicator on
 *                the ghosts: nothing changes
 *   unrelated    MPI_Comm_set_info with a key CasperII does not read
 *
 * The communicator is MPI_COMM_WORLD duplicated with wildcard_used=none
 * (tag encoding). <spacing_us> of compute on the CPU before each sample
 * (default 0) shows what a call costs when the process has not called
 * into the runtime for a while, as in an application's phases.
 *
 *   mpicc -O2 -o switchcost switchcost.c
 *   mpiexec -n 4 -genv CSP_NODE_SIZE 2 -genv LD_PRELOAD $PWD/lib/libcasperii.so \
 *       ./switchcost <samples> [<spacing_us>]
 *   mpiexec -n 2 ./switchcost <samples>      # plain MPICH
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

static MPI_Comm comm;
static MPI_Info inf_off, inf_on, inf_soff, inf_son, inf_wc;
static int rank;
static double *samp, spacing_us;

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void op_barrier(int i)
{
    (void)i;
    MPI_Barrier(comm);
}
static void op_iallreduce(int i)
{
    long long in[6] = {i}, out[6];
    MPI_Request r;
    MPI_Iallreduce(in, out, 6, MPI_INT64_T, MPI_SUM, comm, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
}
static void op_switch(int i) { MPI_Comm_set_info(comm, i & 1 ? inf_on : inf_off); }
static void op_switch_sym(int i) { MPI_Comm_set_info(comm, i & 1 ? inf_son : inf_soff); }
static void op_same(int i)
{
    (void)i;
    MPI_Comm_set_info(comm, inf_on);
}
static void op_unrelated(int i)
{
    (void)i;
    MPI_Comm_set_info(comm, inf_wc);
}

static void spin(double us)
{
    double end = MPI_Wtime() + us * 1e-6;
    while (MPI_Wtime() < end)
        ;
}

/* run times n samples of f (n even; after an even number of warm-up
 * calls: the switches leave the communicator on the ghosts) and prints
 * the medians. */
static void run(const char *name, void (*f)(int), int n)
{
    for (int i = 0; i < 2 * (n / 20 + 1); i++) {
        MPI_Barrier(comm);
        f(i);
    }
    struct rusage ru0, ru1;
    getrusage(RUSAGE_SELF, &ru0);
    for (int i = 0; i < n; i++) {
        if (spacing_us > 0)
            spin(spacing_us);
        MPI_Barrier(comm);
        double t0 = MPI_Wtime();
        f(i);
        samp[i] = (MPI_Wtime() - t0) * 1e6;
    }
    getrusage(RUSAGE_SELF, &ru1);
    double csw = (double)(ru1.ru_nvcsw - ru0.ru_nvcsw + ru1.ru_nivcsw - ru0.ru_nivcsw) / n;
    qsort(samp, (size_t)n, sizeof(double), cmp);
    double mine[4] = {samp[n / 2], samp[n / 10], samp[n * 9 / 10], csw}, most[4];
    MPI_Reduce(mine, most, 4, MPI_DOUBLE, MPI_MAX, 0, comm);
    if (rank == 0)
        printf("%-11s median %7.2f us  p10 %7.2f  p90 %7.2f  context switches %.2f\n", name, most[0],
               most[1], most[2], most[3]);
}

static MPI_Info info2(const char *k1, const char *v1, const char *k2, const char *v2)
{
    MPI_Info inf;
    MPI_Info_create(&inf);
    MPI_Info_set(inf, k1, v1);
    if (k2)
        MPI_Info_set(inf, k2, v2);
    return inf;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int n = argc > 1 ? atoi(argv[1]) : 2000;
    spacing_us = argc > 2 ? atof(argv[2]) : 0;
    if (n < 10)
        n = 10;
    n += n & 1;
    samp = malloc(sizeof(double) * (size_t)n);
    MPI_Info hint = info2("wildcard_used", "none", NULL, NULL);
    MPI_Comm_dup_with_info(MPI_COMM_WORLD, hint, &comm);
    MPI_Info_free(&hint);
    MPI_Comm_rank(comm, &rank);
    inf_off = info2("async_config", "off", NULL, NULL);
    inf_on = info2("async_config", "on", NULL, NULL);
    inf_soff = info2("async_config", "off", "symmetric", "true");
    inf_son = info2("async_config", "on", "symmetric", "true");
    inf_wc = info2("not_a_casperii_key", "1", NULL, NULL);
    if (rank == 0)
        printf("switchcost: %d samples, %.0f us of compute before each\n", n, spacing_us);
    run("barrier", op_barrier, n);
    run("iallreduce", op_iallreduce, n);
    run("switch", op_switch, n);
    run("switch-sym", op_switch_sym, n);
    run("same", op_same, n);
    run("unrelated", op_unrelated, n);
    run("barrier", op_barrier, n);
    MPI_Info_free(&inf_off);
    MPI_Info_free(&inf_on);
    MPI_Info_free(&inf_soff);
    MPI_Info_free(&inf_son);
    MPI_Info_free(&inf_wc);
    MPI_Comm_free(&comm);
    free(samp);
    MPI_Finalize();
    return 0;
}
