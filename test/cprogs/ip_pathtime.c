/*
 * ip_pathtime: the direct route's time per message against MPICH's own
 * calls in the same job. Under the library with offload off (or auto
 * while it stays direct), two users run each pattern in batches that
 * alternate between the MPI_ calls (through the interposer) and the same
 * PMPI_ calls (straight to MPICH), on the same communicator, so that both
 * see the same host, the same placement of the processes and the same
 * regime of the machine (docs/design.md section 7, "Two regimes"): the
 * difference is what the library adds per call.
 *
 *   latency   osub-latency's exchange: Irecv + Isend + Waitall(2)
 *   rate      osub-rate's window: rank 0 posts W Isend, rank 1 W Irecv,
 *             both Waitall, then a 4-byte ack (Recv / Send)
 *   blocking  Send / Recv ping-pong
 *
 *   ip_pathtime <iterations per batch> <batches> <bytes> [window]
 *
 * Rank 0 prints per pattern, medians over the batches:
 *
 *   pathtime pattern=<p> mpi_ns=<ns per iteration, MPI_> pmpi_ns=<PMPI_>
 *            ratio=<median of the batches' MPI_/PMPI_ ratios> added_ns=<mpi - pmpi>
 *
 * (an iteration: one exchange, one window, or one round trip).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static MPI_Comm comm;
static int rank, peer, w;
static char *sbuf, *rbuf, ack[4];
static MPI_Request *req;

typedef int (*isend_fn)(const void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request *);
typedef int (*irecv_fn)(void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request *);
typedef int (*waitall_fn)(int, MPI_Request *, MPI_Status *);
typedef int (*send_fn)(const void *, int, MPI_Datatype, int, int, MPI_Comm);
typedef int (*recv_fn)(void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Status *);

struct calls {
    isend_fn isend;
    irecv_fn irecv;
    waitall_fn waitall;
    send_fn send;
    recv_fn recv;
};
static const struct calls via_mpi = {MPI_Isend, MPI_Irecv, MPI_Waitall, MPI_Send, MPI_Recv};
static const struct calls via_pmpi = {PMPI_Isend, PMPI_Irecv, PMPI_Waitall, PMPI_Send, PMPI_Recv};

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void latency(const struct calls *c, long n, int bytes)
{
    for (long i = 0; i < n; i++) {
        c->irecv(rbuf, bytes, MPI_BYTE, peer, 7, comm, &req[0]);
        c->isend(sbuf, bytes, MPI_BYTE, peer, 7, comm, &req[1]);
        c->waitall(2, req, MPI_STATUSES_IGNORE);
    }
}

static void rate(const struct calls *c, long n, int bytes)
{
    for (long i = 0; i < n; i++) {
        for (int j = 0; j < w; j++) {
            if (rank == 0)
                c->isend(sbuf, bytes, MPI_BYTE, peer, 100, comm, &req[j]);
            else
                c->irecv(rbuf, bytes, MPI_BYTE, peer, 100, comm, &req[j]);
        }
        c->waitall(w, req, MPI_STATUSES_IGNORE);
        if (rank == 0)
            c->recv(ack, 4, MPI_BYTE, peer, 101, comm, MPI_STATUS_IGNORE);
        else
            c->send(ack, 4, MPI_BYTE, peer, 101, comm);
    }
}

static void blocking(const struct calls *c, long n, int bytes)
{
    for (long i = 0; i < n; i++) {
        if (rank == 0) {
            c->send(sbuf, bytes, MPI_BYTE, peer, 9, comm);
            c->recv(rbuf, bytes, MPI_BYTE, peer, 9, comm, MPI_STATUS_IGNORE);
        } else {
            c->recv(rbuf, bytes, MPI_BYTE, peer, 9, comm, MPI_STATUS_IGNORE);
            c->send(sbuf, bytes, MPI_BYTE, peer, 9, comm);
        }
    }
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, n, sizeof(double), cmp);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    long iters = argc > 1 ? atol(argv[1]) : 2000;
    int batches = argc > 2 ? atoi(argv[2]) : 40;
    int bytes = argc > 3 ? atoi(argv[3]) : 8;
    w = argc > 4 ? atoi(argv[4]) : 64;
    int size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0)
            fprintf(stderr, "ip_pathtime: needs 2 processes (users), got %d\n", size);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    peer = 1 - rank;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    sbuf = calloc(1, (size_t)bytes + 1);
    rbuf = calloc(1, (size_t)bytes + 1);
    req = malloc(sizeof(MPI_Request) * (size_t)(w > 2 ? w : 2));
    double *mpi = malloc(sizeof(double) * batches), *pmpi = malloc(sizeof(double) * batches),
           *ratio = malloc(sizeof(double) * batches);
    static const char *names[] = {"latency", "rate", "blocking"};
    void (*pat[])(const struct calls *, long, int) = {latency, rate, blocking};
    for (int p = 0; p < 3; p++) {
        long n = p == 1 ? iters / 20 + 1 : iters;
        pat[p](&via_mpi, n / 4 + 1, bytes); /* warm up both */
        pat[p](&via_pmpi, n / 4 + 1, bytes);
        for (int b = 0; b < batches; b++) {
            double t[2];
            for (int k = 0; k < 2; k++) {
                /* alternate which goes first */
                const struct calls *c = (k ^ (b & 1)) ? &via_pmpi : &via_mpi;
                PMPI_Barrier(comm);
                double t0 = now_ns();
                pat[p](c, n, bytes);
                t[c == &via_pmpi] = (now_ns() - t0) / (double)n;
            }
            mpi[b] = t[0];
            pmpi[b] = t[1];
            ratio[b] = t[0] / t[1];
        }
        double rr = median(ratio, batches), m = median(mpi, batches), q = median(pmpi, batches);
        if (rank == 0) {
            printf("pathtime pattern=%s mpi_ns=%.1f pmpi_ns=%.1f ratio=%.4f added_ns=%.1f batches=%d iters=%ld\n",
                   names[p], m, q, rr, m - q, batches, n);
            fflush(stdout);
        }
    }
    free(mpi);
    free(pmpi);
    free(ratio);
    free(sbuf);
    free(rbuf);
    free(req);
    MPI_Comm_free(&comm);
    MPI_Finalize();
    return 0;
}
