/*
 * sendcopy.c: where the 4 KiB message rate loses with the library loaded
 * and offload off. osubench's rate cell at 4 KiB read 1.21-1.23x plain
 * MPICH with CSP_ASYNC_CONFIG=off (stop 45), where 1 and 64 bytes read
 * 1.00-1.13x: the sender's post time per MPI_Isend was 0.505 us against
 * 0.412, 90 ns a message, where interposing costs 3-4 ns.
 *
 * Rank 0 posts windows of 64 MPI_Isend of <size> bytes from one buffer
 * (written before each window), MPI_Waitall, then receives a 1-int ack;
 * rank 1 posts the 64 MPI_Irecv, MPI_Waitall, reads the buffer, sends the
 * ack: osubench's rate window. The buffer is, in turn, of malloc, of
 * posix_memalign(4096), a MAP_SHARED page of a memfd, and of
 * MPI_Alloc_mem with shmbuf_regist=true (the library's shared heap).
 * <how> says which calls go through the interposer: mpi (all), isend
 * (the sender calls PMPI_Isend), waitall (the sender calls
 * PMPI_Waitall), recv (the receiver calls PMPI_Irecv and PMPI_Waitall),
 * pmpi (every call PMPI's), wrap (the sender calls PMPI_Isend through a
 * function of this program's, no library needed). Prints, per buffer, the median and the 2nd
 * and 8th of 9 blocks' mean time per MPI_Isend, in us.
 *
 *   mpicc -O2 -o sendcopy sendcopy.c
 *   mpiexec -n 2 ./sendcopy 4096 mpi
 *   mpiexec -n 2 -genv CSP_NG 0 -genv LD_PRELOAD lib/libcasperii.so ./sendcopy 4096 mpi
 *
 * Development machine, 2026-11-28, interleaved jobs (the host's regimes
 * put plain MPICH at 0.12-0.15 us or 0.40-0.49 us, from one job to the
 * next; compare within a regime):
 *   - the buffer's kind changes nothing (all four within 1%, plain MPICH
 *     and the library alike), nor its alignment (offsets 0-64);
 *   - pass-through (CSP_NG=0): 0.51-0.53 us against plain MPICH's
 *     0.41-0.48 in the slow regime, 0.153-0.161 against 0.123-0.145 in
 *     the fast one; at 1 byte 0.029 against 0.025-0.026;
 *   - an empty Go c-shared library preloaded, or a C one whose MPI_Isend,
 *     MPI_Irecv and MPI_Waitall only call PMPI's: as plain MPICH;
 *   - four interleaved rounds of the five ways: plain MPICH 0.132-0.145
 *     (fast) and 0.406 (slow); the library (mpi) 0.148-0.156 and 0.522;
 *     every call PMPI's (pmpi) 0.140-0.146 and 0.415; the sender's
 *     MPI_Isend PMPI's (isend) 0.134-0.143 and 0.407-0.412, as plain
 *     MPICH; the sender's MPI_Waitall (waitall) or the receiver's calls
 *     (recv) PMPI's 0.149-0.153 and 0.509-0.530, as the library.
 * perf record (cpu-clock; this guest has no hardware counters) puts the
 * difference in UCX's uct_mm_ep_am_bcopy (26% of the sender's samples
 * -> 31%: the lock cmpxchg on the receiver's FIFO head and the load
 * before it) and in the copy itself (memmove 10.9% -> 12.2%); the
 * library's own functions are 0.3-0.5% of the samples, and the interposed
 * MPI_Isend's common case is twenty instructions ending in a jump to
 * PMPI_Isend. A library whose MPI_Isend jumps to PMPI_Isend at once
 * (built for the experiment) is as plain MPICH; one whose csp_isend
 * jumps to PMPI_Isend at once, reached through the interposer's
 * MPI_Isend, is as the library. And plain MPICH alone pays most of it:
 * the same window posted through a function of the program's own (wrap,
 * no library) took 0.143 us against 0.130 posted directly in the fast
 * regime, 0.481-0.495 against 0.412-0.418 in the slow one, where the
 * library took 0.146 and 0.510-0.535 (four interleaved rounds; a
 * stand-alone variant put 0-2048 bytes of stack between, which changed
 * nothing). So code between the application's loop and MPICH's call
 * costs the 4 KiB send 10-15 ns (fast regime) to 70 ns (slow), spent in
 * MPICH's and UCX's own branches and copy rather than in the code added
 * (this guest has no counters to say how); an interposer pays it by
 * being one.
 */
#define _GNU_SOURCE
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define WINDOW 64
#define BLOCKS 9
#define ITERS 2000
#define MAXSZ 65536

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

typedef int (*isend_fn)(const void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request *);
/* wrap: this program's own function between the loop and PMPI_Isend, as
 * an interposer's wrapper is (<how> wrap). */
__attribute__((noinline)) static int wrap(const void *b, int n, MPI_Datatype dt, int to, int tag, MPI_Comm c,
                                          MPI_Request *r)
{
    int rc = PMPI_Isend(b, n, dt, to, tag, c, r);
    __asm__ volatile("" ::: "memory"); /* not a tail call: a wrapper's frame */
    return rc;
}
typedef int (*irecv_fn)(void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request *);
typedef int (*waitall_fn)(int, MPI_Request *, MPI_Status *);

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    long size = argc > 1 ? atol(argv[1]) : 4096;
    const char *how = argc > 2 ? argv[2] : "mpi";
    if (size < 1 || size > MAXSZ) {
        fprintf(stderr, "sendcopy: size 1..%d\n", MAXSZ);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int all = !strcmp(how, "pmpi");
    isend_fn isend = !strcmp(how, "wrap") ? wrap : all || !strcmp(how, "isend") ? PMPI_Isend : MPI_Isend;
    waitall_fn swait = all || !strcmp(how, "waitall") ? PMPI_Waitall : MPI_Waitall;
    irecv_fn irecv = all || !strcmp(how, "recv") ? PMPI_Irecv : MPI_Irecv;
    waitall_fn rwait = all || !strcmp(how, "recv") ? PMPI_Waitall : MPI_Waitall;

    const char *names[4] = {"malloc", "memalign4k", "memfd", "allocmem"};
    unsigned char *bufs[4];
    void *p = NULL;
    bufs[0] = malloc(MAXSZ);
    if (posix_memalign(&p, 4096, MAXSZ) != 0)
        MPI_Abort(MPI_COMM_WORLD, 1);
    bufs[1] = p;
    int fd = memfd_create("sendcopy", 0);
    if (fd < 0 || ftruncate(fd, MAXSZ) != 0)
        MPI_Abort(MPI_COMM_WORLD, 1);
    bufs[2] = mmap(NULL, MAXSZ, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "shmbuf_regist", "true");
    MPI_Alloc_mem(MAXSZ, info, &p);
    MPI_Info_free(&info);
    bufs[3] = p;
    for (int k = 0; k < 4; k++)
        memset(bufs[k], 1, MAXSZ);

    MPI_Request req[WINDOW];
    int ack = 0;
    double res[4][BLOCKS];
    for (int b = 0; b < BLOCKS; b++)
        for (int k = 0; k < 4; k++) {
            unsigned char *buf = bufs[k];
            double post = 0;
            MPI_Barrier(MPI_COMM_WORLD);
            for (int i = 0; i < ITERS; i++) {
                if (rank == 0) {
                    memset(buf, i, (size_t)size);
                    double t0 = now();
                    for (int w = 0; w < WINDOW; w++)
                        isend(buf, (int)size, MPI_BYTE, 1, 1, MPI_COMM_WORLD, &req[w]);
                    post += now() - t0;
                    swait(WINDOW, req, MPI_STATUSES_IGNORE);
                    MPI_Recv(&ack, 1, MPI_INT, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                } else if (rank == 1) {
                    for (int w = 0; w < WINDOW; w++)
                        irecv(buf, (int)size, MPI_BYTE, 0, 1, MPI_COMM_WORLD, &req[w]);
                    rwait(WINDOW, req, MPI_STATUSES_IGNORE);
                    volatile unsigned sum = 0;
                    for (long j = 0; j < size; j += 64)
                        sum += buf[j];
                    MPI_Send(&ack, 1, MPI_INT, 0, 2, MPI_COMM_WORLD);
                }
            }
            res[k][b] = post / ITERS / WINDOW * 1e6;
        }
    if (rank == 0)
        for (int k = 0; k < 4; k++) {
            qsort(res[k], BLOCKS, sizeof(double), cmp);
            printf("sendcopy size=%ld how=%s buffer=%s post_us=%.3f [%.3f %.3f]\n", size, how, names[k],
                   res[k][BLOCKS / 2], res[k][1], res[k][BLOCKS - 2]);
        }
    munmap(bufs[2], MAXSZ);
    close(fd);
    MPI_Free_mem(bufs[3]);
    free(bufs[1]);
    free(bufs[0]);
    MPI_Finalize();
    return 0;
}
