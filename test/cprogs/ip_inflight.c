/*
 * ip_inflight: what the self-profile counts as the application's time in
 * flight (internal/user/prof.c), the time between a post and the next
 * waiting call that the automatic route choice lets a ghost use.
 *
 *   ip_inflight <iters>
 *
 * Two users on a duplicate of MPI_COMM_WORLD with async_config=auto (the
 * profile runs only while such a communicator exists), 256 KiB exchanges,
 * four patterns of iters iterations each, the profile read around each:
 *
 *   pingpong  write the send buffer, post, MPI_Waitall, read the receive
 *             buffer: the touches are outside the window
 *   overlap   post, 200 us of compute on the CPU, MPI_Waitall
 *   poll      post, 4 x (50 us of compute, MPI_Testall), MPI_Waitall: the
 *             polls keep the window open
 *   blocking  MPI_Sendrecv with 200 us of compute before it: a blocking
 *             call's own post is inside the call
 *   sleep     post, 200 us of nanosleep, MPI_Waitall
 *   tiny      8-byte exchanges (post, MPI_Waitall), 8 x iters of them:
 *             latency-bound, so most waits go light (user.h: counted, not
 *             timed)
 *
 * Output per rank: "inflight rank=<r> touch_us=<t> pingpong_us=<w>
 * overlap_us=<w> poll_us=<w> blocking_us=<w> sleep_us=<w>
 * overlap_sampled_us=<s> overlap_idle=<i> sleep_sampled_us=<s>
 * sleep_idle=<i> overlap_timed=<t> tiny_timed=<t> tiny_mpi_us=<m>
 * pingpong_queue_us=<q> ok=<0|1>",
 * each t the share of the pattern's waiting calls that were timed, m the
 * (scaled) time in MPI per tiny exchange, each w the window per iteration, touch_us the
 * program's own touch time per iteration, s the sampled windows' length
 * in all (prof.c: every fourth window of 20 us or more has the thread's
 * CPU clock read at its ends) and i the share of it off the CPU less the
 * pattern's share of time waiting for a core (the estimate takes that off
 * too, internal/core/auto.go), q the ping-pongs' time waiting for a core
 * per iteration (a preemption between a post and the wait lands in the
 * window); ok:
 * every exchange's data arrived. The hooks are found with dlsym; without
 * the library, or with the profile off, the program prints "inflight
 * rank=<r> hook=0".
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SIZE (256 * 1024)
#define PATTERNS 6

static int (*prof_hook)(uint64_t *, uint64_t *, uint64_t *);
static int (*samples_hook)(uint64_t *, uint64_t *);
static int (*timed_hook)(uint64_t *, uint64_t *);

/* prof_field returns one of the self-profile's times so far (0: in MPI,
 * 1: in flight), microseconds; -1 while the profile is off. */
static double prof_field(int which)
{
    uint64_t v[3] = {0, 0, 0};
    if (!prof_hook || prof_hook(&v[0], &v[1], &v[2]) != 0)
        return -1;
    return (double)v[which] / 1e3;
}
static double mpi_us(void) { return prof_field(0); }
static double window_us(void) { return prof_field(1); }

/* pair reads a hook of two counters so far, each divided by unit (0 and
 * 0 without the hook). */
static void pair(int (*hook)(uint64_t *, uint64_t *), double unit, double *a, double *b)
{
    uint64_t x = 0, y = 0;
    if (hook)
        hook(&x, &y);
    *a = (double)x / unit;
    *b = (double)y / unit;
}
/* The waiting calls so far, and those timed. */
static void timed(double *waits, double *t) { pair(timed_hook, 1, waits, t); }
/* The sampled windows so far: length and CPU time, microseconds. */
static void samples(double *win_us, double *cpu_us) { pair(samples_hook, 1e3, win_us, cpu_us); }

/* The thread's time runnable but not running so far (schedstat's second
 * field), microseconds; -1 if unreadable. */
static double queue_us(void)
{
    FILE *f = fopen("/proc/thread-self/schedstat", "r");
    unsigned long long run = 0, wait = 0;
    int n = f ? fscanf(f, "%llu %llu", &run, &wait) : 0;
    if (f)
        fclose(f);
    return n == 2 ? (double)wait / 1e3 : -1;
}

static void compute(double us)
{
    double end = MPI_Wtime() + us * 1e-6;
    while (MPI_Wtime() < end)
        ;
}

static unsigned char *sbuf, *rbuf;
static int peer, rank, ok = 1;
static double touch_s;

static void fill(int i)
{
    double t = MPI_Wtime();
    memset(sbuf, (unsigned char)(rank + i), SIZE);
    touch_s += MPI_Wtime() - t;
}

static void check(int i)
{
    double t = MPI_Wtime();
    unsigned sum = 0;
    for (int k = 0; k < SIZE; k++)
        sum += rbuf[k];
    touch_s += MPI_Wtime() - t;
    if (sum != (unsigned)((unsigned char)(peer + i)) * SIZE)
        ok = 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int iters = argc > 1 ? atoi(argv[1]) : 100;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    peer = rank ^ 1;
    prof_hook = (int (*)(uint64_t *, uint64_t *, uint64_t *))dlsym(RTLD_DEFAULT, "csp_test_profile");
    samples_hook = (int (*)(uint64_t *, uint64_t *))dlsym(RTLD_DEFAULT, "csp_test_profile_samples");
    timed_hook = (int (*)(uint64_t *, uint64_t *))dlsym(RTLD_DEFAULT, "csp_test_profile_timed");
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "wildcard_used", "none");
    MPI_Info_set(info, "async_config", "auto");
    MPI_Comm comm;
    MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &comm);
    MPI_Info_free(&info);
    sbuf = malloc(SIZE);
    rbuf = malloc(SIZE);
    if (window_us() < 0) {
        printf("inflight rank=%d hook=0\n", rank);
        MPI_Comm_free(&comm);
        MPI_Finalize();
        return 0;
    }
    MPI_Request q[2];
    double w[PATTERNS], sw[PATTERNS], sc[PATTERNS], tw[PATTERNS], tt[PATTERNS], qs[PATTERNS], qi[PATTERNS];
    double touch_us = 0;
    double tiny_mpi = 0;
    for (int pat = 0; pat < PATTERNS; pat++) {
        MPI_Barrier(comm);
        double w0 = window_us(), sw0, sc0, tw0, tt0;
        samples(&sw0, &sc0);
        double q0 = queue_us(), t0 = MPI_Wtime();
        timed(&tw0, &tt0);
        if (pat == 5) {
            double m0 = mpi_us();
            for (int i = 0; i < 8 * iters; i++) {
                MPI_Irecv(rbuf, 8, MPI_BYTE, peer, 2, comm, &q[0]);
                MPI_Isend(sbuf, 8, MPI_BYTE, peer, 2, comm, &q[1]);
                MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
            }
            tiny_mpi = (mpi_us() - m0) / (8 * iters);
        }
        for (int i = 0; i < iters && pat < 5; i++) {
            fill(i);
            switch (pat) {
            case 3:
                compute(200);
                MPI_Sendrecv(sbuf, SIZE, MPI_BYTE, peer, 1, rbuf, SIZE, MPI_BYTE, peer, 1, comm,
                             MPI_STATUS_IGNORE);
                break;
            default:
                MPI_Irecv(rbuf, SIZE, MPI_BYTE, peer, 1, comm, &q[0]);
                MPI_Isend(sbuf, SIZE, MPI_BYTE, peer, 1, comm, &q[1]);
                if (pat == 1)
                    compute(200);
                if (pat == 4) {
                    struct timespec ts = {0, 200 * 1000};
                    nanosleep(&ts, NULL);
                }
                for (int k = 0; pat == 2 && k < 4; k++) {
                    int flag;
                    compute(50);
                    MPI_Testall(2, q, &flag, MPI_STATUSES_IGNORE);
                }
                MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
            }
            check(i);
        }
        samples(&sw[pat], &sc[pat]);
        /* The share of the pattern's time this thread waited for a core
         * (another process on it): off the CPU, but not idle. */
        double q1 = q0 >= 0 ? queue_us() - q0 : 0;
        qs[pat] = q1 / ((MPI_Wtime() - t0) * 1e6);
        qi[pat] = q1 / (pat == 5 ? 8 * iters : iters);
        sw[pat] -= sw0;
        sc[pat] -= sc0;
        timed(&tw[pat], &tt[pat]);
        tw[pat] -= tw0;
        tt[pat] -= tt0;
        /* The timed calls stand for the light ones (user.h), as in the
         * runtime's readings. */
        double scale = tt[pat] > 0 && tw[pat] > tt[pat] ? tw[pat] / tt[pat] : 1;
        w[pat] = (window_us() - w0) * scale / iters;
        if (pat == 5)
            tiny_mpi *= scale;
        if (pat == 0)
            touch_us = touch_s / iters * 1e6;
    }
    double idle[PATTERNS];
    for (int pat = 0; pat < PATTERNS; pat++)
        idle[pat] = sw[pat] > 0 ? (sw[pat] - sc[pat]) / sw[pat] - qs[pat] : -1;
    printf("inflight rank=%d touch_us=%.2f pingpong_us=%.2f overlap_us=%.2f poll_us=%.2f "
           "blocking_us=%.2f sleep_us=%.2f overlap_sampled_us=%.1f overlap_idle=%.3f "
           "sleep_sampled_us=%.1f sleep_idle=%.3f overlap_timed=%.3f tiny_timed=%.3f tiny_mpi_us=%.3f "
           "pingpong_queue_us=%.2f ok=%d\n",
           rank, touch_us, w[0], w[1], w[2], w[3], w[4], sw[1], idle[1], sw[4], idle[4],
           tw[1] > 0 ? tt[1] / tw[1] : -1, tw[5] > 0 ? tt[5] / tw[5] : -1, tiny_mpi, qi[0], ok);
    free(sbuf);
    free(rbuf);
    MPI_Comm_free(&comm);
    MPI_Finalize();
    return 0;
}
