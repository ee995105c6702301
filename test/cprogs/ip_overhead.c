/*
 * ip_overhead: the cost of MPI calls that CasperII does not offload, to
 * compare the same program with and without the interposer. Rank 0 times
 * each call kind in batches and prints the median per call:
 *
 *   overhead call=<kind> ns=<median ns per call> batches=<n>
 *
 * Kinds: comm_rank_world (a generated wrapper mapping MPI_COMM_WORLD),
 * comm_rank (generated, another communicator), iprobe (hand-written probe
 * on a communicator with offload off, no message), self_pair (MPI_Isend +
 * MPI_Irecv to self + MPI_Waitall on that communicator, all hand-written
 * paths), test_null (MPI_Test of MPI_REQUEST_NULL).
 *
 *   ip_overhead [calls per batch] [batches]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static MPI_Comm off;
static int sink;

static void run(int kind, long n)
{
    int r, flag;
    MPI_Status st;
    MPI_Request q[2], nul = MPI_REQUEST_NULL;
    char sb[8] = {0}, rb[8];
    for (long i = 0; i < n; i++) {
        switch (kind) {
        case 0:
            MPI_Comm_rank(MPI_COMM_WORLD, &r);
            sink += r;
            break;
        case 1:
            MPI_Comm_rank(off, &r);
            sink += r;
            break;
        case 2:
            MPI_Iprobe(MPI_ANY_SOURCE, 77, off, &flag, &st);
            sink += flag;
            break;
        case 3:
            MPI_Irecv(rb, 8, MPI_BYTE, 0, 5, off, &q[0]);
            MPI_Isend(sb, 8, MPI_BYTE, 0, 5, off, &q[1]);
            MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
            break;
        case 4:
            MPI_Test(&nul, &flag, &st);
            sink += flag;
            break;
        }
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    long n = argc > 1 ? atol(argv[1]) : 100000;
    int batches = argc > 2 ? atoi(argv[2]) : 15;
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "async_config", "off");
    MPI_Comm_split(MPI_COMM_WORLD, rank, 0, &off); /* a communicator of one: self sends */
    MPI_Comm_set_info(off, info);
    MPI_Info_free(&info);
    /* Only rank 0 measures; the others wait for it asleep (a parked ghost
     * does too), so that the plain job (2 ranks) and the preloaded one (1
     * user + its ghost) give MPICH the same number of processes and rank 0
     * a core of its own. */
    static const char *names[] = {"comm_rank_world", "comm_rank", "iprobe", "self_pair", "test_null"};
    double *t = malloc(sizeof(double) * batches);
    for (int k = 0; k < 5 && rank == 0; k++) {
        long calls = k == 3 ? n / 10 : n;
        run(k, calls / 10); /* warm up */
        for (int b = 0; b < batches; b++) {
            double t0 = now_ns();
            run(k, calls);
            t[b] = (now_ns() - t0) / calls;
        }
        qsort(t, batches, sizeof(double), cmp);
        printf("overhead call=%s ns=%.2f batches=%d\n", names[k], t[batches / 2], batches);
    }
    free(t);
    MPI_Request bar;
    MPI_Ibarrier(MPI_COMM_WORLD, &bar);
    for (int done = 0; !done;) {
        MPI_Test(&bar, &done, MPI_STATUS_IGNORE);
        if (!done) {
            struct timespec ts = {0, 2000000};
            nanosleep(&ts, NULL);
        }
    }
    MPI_Comm_free(&off);
    MPI_Finalize();
    return sink == -1;
}
