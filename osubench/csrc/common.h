/*
 * common.h: the shared part of the osubench C programs (latency, overlap,
 * rate, halo, phases, probe, rma). Each program is an ordinary MPI program: run plainly it
 * measures MPICH; run with LD_PRELOAD=libcasperii.so it measures CasperII
 * through the real interposer. The Go driver (package osubench) compiles
 * these files with mpicc and parses the lines rank 0 prints:
 *
 *   osub-info bench=<b> users=<n> thread=<provided> hint=<wildcard_used> compute=<busy|sleep|none> touch=<on|off> ...
 *   osub bench=<b> size=<bytes> iters=<n> key=value ...
 *
 * Options (all programs):
 *   -s 0,8,1024    message sizes in bytes
 *   -H hint        wildcard_used hint of the benchmark communicator
 *                  ("none", "any_tag_same_tag", "any_src", ...; "-" or absent: no hint)
 *   -T             request MPI_THREAD_MULTIPLE (thread mode)
 *   -c busy|sleep  compute emulation (busy-spin, or nanosleep); latency and rate
 *                  do not compute (their info line says compute=none); rma also
 *                  takes idle (the target waits inside MPI instead)
 *   -t             touch the buffers as an application does: write every byte
 *                  of the send buffer(s) before each post (a value that changes
 *                  every time) and read every byte of the receive buffer(s)
 *                  after each wait; the time is counted in the iteration and
 *                  also reported apart (touch_us)
 *   -b ms          time budget per size and phase (iterations adapt to it)
 *   -i n           maximum iterations per size and phase
 *   -m n           minimum iterations per size and phase
 *   -x us,us,...   overlap: compute per size (default: the job's own latency)
 *   -u us          halo, phases: compute between post and wait (default 300);
 *                  probe: the clients' compute between requests; rma: the
 *                  target's compute per epoch (the driver passes 20000)
 *   -W n           rate, phases: window size (default 64)
 *   -P n           phases: ping-pongs per small size per small-message phase (default 25)
 *   -R n           phases: message-rate windows per small size per phase (default 2)
 *   -I n           phases: large exchanges per overlapped phase (default 4)
 *   -A             phases: set async_config per phase (MPI_Comm_set_info: off before
 *                  the small-message phase, on before the overlapped one)
 *   -q us          probe: the server's compute slice between polls (default 20);
 *                  rma -w ga: the target's compute slice
 *   -w flush|fence|ga
 *                  rma: the workload (flush: origin/target epochs; fence: the
 *                  same with a fence as the first synchronization of each
 *                  epoch, a safe point for async_config=auto; ga: many
 *                  origins accumulate into user 0); its info and result lines
 *                  say bench=rma-ga for ga
 *   -S             halo: also MPI_Comm_set_info the hint on the Cartesian communicator
 *   -C             check received data
 *
 * Times come from clock_gettime(CLOCK_MONOTONIC); CPU use from
 * getrusage(RUSAGE_SELF) (all threads of the process, so a progress thread
 * counts).
 */
#ifndef OSUB_COMMON_H
#define OSUB_COMMON_H

#define _GNU_SOURCE
#include <errno.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

/* gcc takes MPI_STATUSES_IGNORE for a zero-length array */
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#pragma GCC diagnostic ignored "-Wunused-function"

#define OSUB_MAX_SIZES 64

typedef struct {
    long sizes[OSUB_MAX_SIZES];
    int nsizes;
    const char *hint;     /* wildcard_used value or NULL */
    int thread_multiple;
    int busy;             /* compute: 1 busy-spin, 0 nanosleep */
    int idle;             /* rma: -c idle, no compute (busy = 0) */
    const char *workload; /* rma: -w flush|fence|ga */
    int touch;            /* write send buffers before posting, read receive buffers after waiting */
    double budget_s;      /* per size and phase */
    long max_iters, min_iters;
    double xcompute_us[OSUB_MAX_SIZES];
    int nxcompute;
    double halo_us;
    int window;
    int check;
    int setinfo;
    long pingpongs, windows, exchanges; /* phases: -P, -R, -I */
    int phase_hint;                     /* phases: -A */
    double slice_us;                    /* probe: -q */
} osub_opts;

static osub_opts O;
static int osub_rank, osub_nusers;
static MPI_Comm osub_comm = MPI_COMM_NULL; /* the hinted benchmark communicator */

static void osub_die(const char *msg)
{
    fprintf(stderr, "osub: rank %d: %s\n", osub_rank, msg);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 2);
    exit(2);
}

static void osub_check(int rc, const char *what)
{
    char s[MPI_MAX_ERROR_STRING + 512];
    int n = 0;
    snprintf(s, 512, "%.400s failed: ", what);
    MPI_Error_string(rc, s + strlen(s), &n);
    osub_die(s);
}

#define OSUB_CHECK(call)                                                                   \
    do {                                                                                   \
        int rc_ = (call);                                                                  \
        if (rc_ != MPI_SUCCESS)                                                            \
            osub_check(rc_, #call);                                                        \
    } while (0)

static inline double osub_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static inline double osub_cpu(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec +
           (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec;
}

/* osub_compute emulates us microseconds of computation: a busy spin on the
 * clock, or one nanosleep (resumed if interrupted) that leaves the core. */
static inline void osub_compute(double us)
{
    if (us <= 0)
        return;
    if (O.busy) {
        double end = osub_now() + us * 1e-6;
        while (osub_now() < end)
            ;
        return;
    }
    struct timespec ts;
    long ns = (long)(us * 1e3);
    ts.tv_sec = ns / 1000000000L;
    ts.tv_nsec = ns % 1000000000L;
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

/* Touching, what an application does with its buffers around the
 * communication: osub_touch_write produces the message (every byte of the
 * send buffer, written 8 bytes at a time, with a value that changes on every
 * call so no store can be skipped or hoisted out of the loop), osub_touch_read
 * consumes it (every byte of the receive buffer, summed into a volatile
 * sink). The empty asm with a "memory" clobber tells the compiler the
 * written memory is used, so it cannot drop the stores even if it could see
 * that MPI never reads them. */
static volatile uint64_t osub_sink;
static uint64_t osub_touch_gen;

static void osub_touch_write(void *p, long n)
{
    uint64_t g = ++osub_touch_gen * 0x9E3779B97F4A7C15ull;
    uint64_t *w = (uint64_t *)p;
    long nw = n / 8, i = 0;
    for (; i + 4 <= nw; i += 4) {
        w[i] = g + (uint64_t)i;
        w[i + 1] = g + (uint64_t)i + 1;
        w[i + 2] = g + (uint64_t)i + 2;
        w[i + 3] = g + (uint64_t)i + 3;
    }
    for (; i < nw; i++)
        w[i] = g + (uint64_t)i;
    unsigned char *b = (unsigned char *)p;
    for (long j = nw * 8; j < n; j++)
        b[j] = (unsigned char)(g + (uint64_t)j);
    __asm__ __volatile__("" : : "r"(p) : "memory");
}

static void osub_touch_read(const void *p, long n)
{
    __asm__ __volatile__("" : : "r"(p) : "memory"); /* the bytes MPI wrote are fresh */
    const uint64_t *w = (const uint64_t *)p;
    uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    long nw = n / 8, i = 0;
    for (; i + 4 <= nw; i += 4) {
        s0 += w[i];
        s1 += w[i + 1];
        s2 += w[i + 2];
        s3 += w[i + 3];
    }
    for (; i < nw; i++)
        s0 += w[i];
    const unsigned char *b = (const unsigned char *)p;
    for (long j = nw * 8; j < n; j++)
        s1 += b[j];
    osub_sink += s0 + s1 + s2 + s3;
}

static long osub_parse_size(const char *s)
{
    char *end;
    double v = strtod(s, &end);
    long mul = 1;
    if (*end == 'K' || *end == 'k')
        mul = 1024, end++;
    else if (*end == 'M' || *end == 'm')
        mul = 1024 * 1024, end++;
    if (*end != '\0' || v < 0)
        return -1;
    return (long)(v * mul);
}

static void osub_help(const char *prog)
{
    fprintf(stderr,
            "usage: %s [-s sizes] [-H hint] [-T] [-c busy|sleep] [-t] [-b ms] [-i max] [-m min]"
            " [-x us,...] [-u us] [-W window] [-S] [-C] [-P n] [-R n] [-I n] [-A] [-q us]"
            " [-w flush|ga]\n",
            prog);
    exit(2);
}

static void osub_parse(int argc, char **argv)
{
    int c;
    O.nsizes = 0;
    O.hint = NULL;
    O.busy = 0;
    O.touch = 0;
    O.budget_s = 0.2;
    O.max_iters = 100000;
    O.min_iters = 10;
    O.halo_us = 300;
    O.window = 64;
    O.pingpongs = 25;
    O.windows = 2;
    O.exchanges = 4;
    O.slice_us = 20;
    O.workload = "flush";
    while ((c = getopt(argc, argv, "s:H:Tc:tb:i:m:x:u:W:CSP:R:I:Aq:w:")) != -1) {
        switch (c) {
        case 's': {
            char *dup = strdup(optarg), *save = NULL;
            for (char *t = strtok_r(dup, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
                long v = osub_parse_size(t);
                if (v < 0 || O.nsizes == OSUB_MAX_SIZES)
                    osub_help(argv[0]);
                O.sizes[O.nsizes++] = v;
            }
            free(dup);
            break;
        }
        case 'H':
            O.hint = strcmp(optarg, "-") == 0 ? NULL : optarg;
            break;
        case 'T':
            O.thread_multiple = 1;
            break;
        case 'c':
            O.idle = 0;
            if (strcmp(optarg, "busy") == 0)
                O.busy = 1;
            else if (strcmp(optarg, "sleep") == 0)
                O.busy = 0;
            else if (strcmp(optarg, "idle") == 0)
                O.busy = 0, O.idle = 1;
            else
                osub_help(argv[0]);
            break;
        case 't':
            O.touch = 1;
            break;
        case 'b':
            O.budget_s = atof(optarg) * 1e-3;
            break;
        case 'i':
            O.max_iters = atol(optarg);
            break;
        case 'm':
            O.min_iters = atol(optarg);
            break;
        case 'x': {
            char *dup = strdup(optarg), *save = NULL;
            for (char *t = strtok_r(dup, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
                if (O.nxcompute == OSUB_MAX_SIZES)
                    osub_help(argv[0]);
                O.xcompute_us[O.nxcompute++] = atof(t);
            }
            free(dup);
            break;
        }
        case 'u':
            O.halo_us = atof(optarg);
            break;
        case 'W':
            O.window = atoi(optarg);
            break;
        case 'C':
            O.check = 1;
            break;
        case 'S':
            O.setinfo = 1;
            break;
        case 'P':
            O.pingpongs = atol(optarg);
            break;
        case 'R':
            O.windows = atol(optarg);
            break;
        case 'I':
            O.exchanges = atol(optarg);
            break;
        case 'A':
            O.phase_hint = 1;
            break;
        case 'q':
            O.slice_us = atof(optarg);
            break;
        case 'w':
            if (strcmp(optarg, "flush") != 0 && strcmp(optarg, "fence") != 0 && strcmp(optarg, "ga") != 0)
                osub_help(argv[0]);
            O.workload = optarg;
            break;
        default:
            osub_help(argv[0]);
        }
    }
    if (O.nsizes == 0) {
        static const long def[] = {0, 1, 8, 64, 512, 4096, 65536, 1048576};
        for (unsigned i = 0; i < sizeof def / sizeof def[0]; i++)
            O.sizes[O.nsizes++] = def[i];
    }
    if (O.min_iters < 1)
        O.min_iters = 1;
    if (O.max_iters < O.min_iters)
        O.max_iters = O.min_iters;
    if (O.window < 1)
        O.window = 1;
    if (O.pingpongs < 0 || O.windows < 0 || O.exchanges < 0 || O.slice_us < 0)
        osub_help(argv[0]);
}

/* osub_init initializes MPI at the level the mode needs, creates the
 * hinted benchmark communicator, and prints the info line. */
static void osub_init(int *argc, char ***argv, const char *bench)
{
    int provided = 0;
    osub_parse(*argc, *argv);
    /* rma's GA-like workload reports as its own benchmark. */
    if (strcmp(bench, "rma") == 0 && strcmp(O.workload, "ga") == 0)
        bench = "rma-ga";
    if (!O.busy)
        prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0); /* nanosleep as exact as the kernel allows */
    MPI_Init_thread(argc, argv, O.thread_multiple ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE,
                    &provided);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &osub_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &osub_nusers);
    if (O.thread_multiple && provided != MPI_THREAD_MULTIPLE)
        osub_die("MPI_THREAD_MULTIPLE requested but not provided");

    MPI_Info info;
    OSUB_CHECK(MPI_Info_create(&info));
    if (O.hint)
        OSUB_CHECK(MPI_Info_set(info, "wildcard_used", O.hint));
    OSUB_CHECK(MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &osub_comm));
    MPI_Info_free(&info);
    MPI_Comm_set_errhandler(osub_comm, MPI_ERRORS_RETURN);

    /* What the communicator reports back (CasperII answers for its hints). */
    char got[MPI_MAX_INFO_VAL + 1] = "-";
    MPI_Info used;
    if (MPI_Comm_get_info(osub_comm, &used) == MPI_SUCCESS) {
        int flag = 0;
        MPI_Info_get(used, "wildcard_used", MPI_MAX_INFO_VAL, got, &flag);
        if (!flag)
            strcpy(got, "-");
        MPI_Info_free(&used);
    }
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    /* latency and rate post and wait without computing in between */
    int computes = strcmp(bench, "latency") != 0 && strcmp(bench, "rate") != 0;
    if (osub_rank == 0) {
        printf("osub-info bench=%s users=%d thread=%d hint=%s hint_used=%s compute=%s touch=%s "
               "budget_ms=%g host=%s\n",
               bench, osub_nusers, provided, O.hint ? O.hint : "-", got,
               !computes ? "none" : O.idle ? "idle" : O.busy ? "busy" : "sleep", O.touch ? "on" : "off",
               O.budget_s * 1e3, host);
        fflush(stdout);
    }
}

/* osub_finalize ends the program. Once every user is there, rank 0 prints
 * "osub-finalize": every result is out, and the driver gives MPI_Finalize
 * a short grace (MPICH 4.0.2's ch4/ucx finalize can hang over TCP: a
 * process waiting in the PMI barrier keeps its peer's disconnect from
 * completing; JobSpec.FinalizeGrace). */
static void osub_finalize(void)
{
    MPI_Comm_free(&osub_comm);
    MPI_Barrier(MPI_COMM_WORLD);
    if (osub_rank == 0) {
        printf("osub-finalize\n");
        fflush(stdout);
    }
    MPI_Finalize();
}

/* osub_alloc returns size bytes (at least 1) of registered memory: MPI_Alloc_mem
 * with shmbuf_regist=true, which CasperII shares with the ghost. */
static void *osub_alloc(long size)
{
    void *p = NULL;
    MPI_Info info;
    OSUB_CHECK(MPI_Info_create(&info));
    OSUB_CHECK(MPI_Info_set(info, "shmbuf_regist", "true"));
    OSUB_CHECK(MPI_Alloc_mem(size > 0 ? size : 1, info, &p));
    MPI_Info_free(&info);
    memset(p, 0, size > 0 ? size : 1);
    return p;
}

static void osub_free(void *p)
{
    if (p)
        MPI_Free_mem(p);
}

static long osub_max_size(void)
{
    long m = 1;
    for (int i = 0; i < O.nsizes; i++)
        if (O.sizes[i] > m)
            m = O.sizes[i];
    return m;
}

/* osub_iters turns a warm-up measurement (warm iterations took secs on this
 * rank) into the iteration count every rank agrees on: the slowest rank's
 * estimate fitted to the budget, within [min_iters, max_iters]. */
static long osub_iters(double secs, long warm)
{
    double worst = 0;
    OSUB_CHECK(MPI_Allreduce(&secs, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
    double per = warm > 0 ? worst / (double)warm : 0;
    long n = per > 0 ? (long)(O.budget_s / per) : O.max_iters;
    if (n < O.min_iters)
        n = O.min_iters;
    if (n > O.max_iters)
        n = O.max_iters;
    return n;
}

/* Timed loops run in up to OSUB_ROUNDS rounds; after each round the users
 * agree whether the phase has overrun its budget (a mode much slower than
 * its warm-up promised), so a slow mode cannot stretch a job without bound. */
#define OSUB_ROUNDS 8
#define OSUB_OVERRUN 3.0 /* a phase stops after this many budgets */

/* osub_stop reports (identically on every user) whether the slowest user
 * has spent more than limit seconds since t0. */
static int osub_stop(double t0, double limit)
{
    double mine = osub_now() - t0, worst = 0;
    OSUB_CHECK(MPI_Allreduce(&mine, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
    return worst > limit;
}

/* osub_chunk is the iterations of one round for a total of iters. */
static long osub_chunk(long iters)
{
    long c = (iters + OSUB_ROUNDS - 1) / OSUB_ROUNDS;
    return c < 1 ? 1 : c;
}

/* osub_warm is the number of warm-up iterations for a size (run twice: the
 * first pass pays for first-touch and registration, the second is timed). */
static long osub_warm(long size)
{
    long w = size <= 8192 ? 100 : size <= 262144 ? 20 : 5;
    return w > O.max_iters ? O.max_iters : w;
}

/* osub_avg returns the mean of v over the users (on every rank). */
static double osub_avg(double v)
{
    double s = 0;
    OSUB_CHECK(MPI_Allreduce(&v, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
    return s / osub_nusers;
}

static double osub_maxv(double v)
{
    double s = 0;
    OSUB_CHECK(MPI_Allreduce(&v, &s, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
    return s;
}

/* CPU and context-switch accounting of a timed loop (getrusage: all
 * threads of the process). */
typedef struct {
    double wall, cpu;
    long nvcsw, nivcsw;
} osub_mark;

static void osub_mark_now(osub_mark *m)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    m->wall = osub_now();
    m->cpu = (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec +
             (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec;
    m->nvcsw = ru.ru_nvcsw;
    m->nivcsw = ru.ru_nivcsw;
}

/* osub_usage returns, since m, the CPU time over the wall time and the
 * voluntary and involuntary context switches per iteration. */
typedef struct {
    double cpu_frac, vcsw, ivcsw;
} osub_use;

static osub_use osub_usage(const osub_mark *m, long iters)
{
    osub_mark e;
    osub_mark_now(&e);
    osub_use u = {0, 0, 0};
    if (e.wall > m->wall)
        u.cpu_frac = (e.cpu - m->cpu) / (e.wall - m->wall);
    if (iters > 0) {
        u.vcsw = (double)(e.nvcsw - m->nvcsw) / (double)iters;
        u.ivcsw = (double)(e.nivcsw - m->nivcsw) / (double)iters;
    }
    return u;
}

/* osub_use_avg averages u over the users (collective). */
static osub_use osub_use_avg(osub_use u)
{
    double in[3] = {u.cpu_frac, u.vcsw, u.ivcsw}, out[3] = {0, 0, 0};
    OSUB_CHECK(MPI_Allreduce(in, out, 3, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
    osub_use r = {out[0] / osub_nusers, out[1] / osub_nusers, out[2] / osub_nusers};
    return r;
}

/* The measured phase of a size: after a barrier, iters iterations in
 * rounds of osub_chunk, stopped early (identically on every user) once the
 * slowest user has spent OSUB_OVERRUN budgets. Used as
 *
 *   osub_rounds r;
 *   for (long n = osub_rounds_begin(&r, iters); n > 0; n = osub_rounds_next(&r, n))
 *       run n iterations (r.done of them ran before);
 *   iters = osub_rounds_end(&r, &use);
 */
typedef struct {
    long iters, done, chunk;
    double start;
    osub_mark m;
} osub_rounds;

/* osub_rounds_next's round size once done iterations ran. */
static long osub_rounds_size(const osub_rounds *r)
{
    return r->iters - r->done < r->chunk ? r->iters - r->done : r->chunk;
}

/* osub_rounds_begin starts the phase (collective) and returns the first
 * round's iterations. */
static long osub_rounds_begin(osub_rounds *r, long iters)
{
    OSUB_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    osub_mark_now(&r->m);
    r->iters = iters;
    r->done = 0;
    r->chunk = osub_chunk(iters);
    r->start = osub_now();
    return osub_rounds_size(r);
}

/* osub_rounds_next counts the n iterations of the round just run and
 * returns the next round's (0: the phase is over; collective while
 * iterations remain). */
static long osub_rounds_next(osub_rounds *r, long n)
{
    r->done += n;
    if (r->done >= r->iters || osub_stop(r->start, OSUB_OVERRUN * O.budget_s))
        return 0;
    return osub_rounds_size(r);
}

/* osub_rounds_end returns the iterations run and, averaged over the users
 * (collective), what they used. */
static long osub_rounds_end(osub_rounds *r, osub_use *use)
{
    *use = osub_use_avg(osub_usage(&r->m, r->done));
    return r->done;
}

static int osub_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* osub_median sorts v[0..n) and returns its median (0 if n == 0). */
static double osub_median(double *v, long n)
{
    if (n <= 0)
        return 0;
    qsort(v, (size_t)n, sizeof *v, osub_cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static void osub_fill(unsigned char *p, long n, int seed)
{
    for (long i = 0; i < n; i++)
        p[i] = (unsigned char)(seed * 31 + i * 7);
}

static int osub_verify(const unsigned char *p, long n, int seed)
{
    for (long i = 0; i < n; i++)
        if (p[i] != (unsigned char)(seed * 31 + i * 7))
            return 0;
    return 1;
}

#endif
