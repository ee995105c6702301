/*
 * prof.c: the self-profile the automatic route choice reads
 * (internal/core/auto.go), kept only while csp_u.prof is set (some
 * communicator has async_config=auto).
 *
 * Per process, cumulative: the time spent inside MPI calls that wait or
 * block (the interposer brackets them with csp_prof_begin/_end), the part
 * of it asleep on the wake word, the number of such calls, the bytes
 * sent, and the application's time from its first post after such a call
 * to the next one (csp_prof_posted, csp_prof_end: the time a message it
 * posted can be in flight while it runs; a call that polls, MPI_Test or
 * MPI_Iprobe, keeps that window open). Per communicator entry: messages
 * and bytes sent since the runtime last read them. The runtime takes
 * differences between its readings.
 *
 * Whether the application computes or sleeps in its windows, only the
 * thread's CPU clock says, a system call: one window in
 * CSP_PROF_SAMPLE_EVERY of those that follow one at least 20 us long
 * reads it at its ends (the post that opens it, the entry of the waiting
 * call that closes it), and the profile sums those windows' length and
 * CPU time (auto.go: the ghost's share of the time in flight).
 *
 * Times are ticks of csp_prof_now: the TSC where the kernel's clocksource
 * is the TSC (it found it invariant and synchronized across CPUs), else
 * CLOCK_MONOTONIC nanoseconds. A waiting call reads the clock twice, so
 * the cheaper read matters on the direct route's smallest exchanges:
 * rdtsc about 10 ns against 24 ns for the vDSO's clock_gettime on the
 * development machine. csp_prof_ns_per_tick converts ticks to nanoseconds
 * (for route.go and rmaauto.c) at the rate measured between MPI_Init and
 * each reading (clock_gettime and rdtsc read together), so a reading's
 * error is the skew of that pair (well under a microsecond) over the time
 * since MPI_Init, under 0.1% a millisecond after it; rdtsc is not ordered
 * with the call it brackets, which moves each bracket by some tens of
 * cycles either way.
 */
#include "user.h"
#include "route.h"

#include <time.h>

uint64_t csp_prof_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void csp_prof_clock_start(int tsc)
{
    csp_u.prof_tsc = tsc;
    csp_u.prof_ns0 = csp_prof_now_ns();
    csp_u.prof_tick0 = csp_prof_now();
}

double csp_prof_ns_per_tick(void)
{
    if (!csp_u.prof_tsc)
        return 1.0;
    uint64_t tick = csp_prof_now(), ns = csp_prof_now_ns();
    if (tick <= csp_u.prof_tick0 || ns <= csp_u.prof_ns0)
        return 1.0; /* too early to know the rate: a guess */
    return (double)(ns - csp_u.prof_ns0) / (double)(tick - csp_u.prof_tick0);
}

/* The thread's CPU clock, in nanoseconds (at least 1: 0 means none). A
 * system call (365 ns on the development machine, against 21 for the
 * vDSO's monotonic clock), so only sampled windows read it. */
static uint64_t thread_cpu_ns(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
        return 0;
    uint64_t ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    return ns ? ns : 1;
}

/* A window opens after one at least prof_samp_min long: every
 * CSP_PROF_SAMPLE_EVERY-th such one is sampled. Shorter windows (route.go
 * sets 20 us) are left alone: two reads of the CPU clock would be several
 * percent of them, and a ghost gains nothing in them. Under
 * MPI_THREAD_MULTIPLE nothing is sampled (prof_samp_min 0, route.go). */
void csp_prof_sample_open(void)
{
    if (csp_u.prof_samp_skip > 0) {
        csp_u.prof_samp_skip--;
        return;
    }
    csp_u.prof_samp_skip = CSP_PROF_SAMPLE_EVERY - 1;
    csp_u.prof_post_cpu = thread_cpu_ns();
}

/* A waiting call begins while a sampled window is open: the window's
 * CPU time ends here, not after the call (which spins or sleeps). */
void csp_prof_sample_end(void) { csp_u.prof_end_cpu = thread_cpu_ns(); }

/* A sampled window of win ticks closes (the waiting call that ended it
 * returned): add its length and the CPU time the thread spent in it. */
void csp_prof_sampled(uint64_t win)
{
    uint64_t c0 = csp_u.prof_post_cpu, c1 = csp_u.prof_end_cpu;
    csp_u.prof_post_cpu = csp_u.prof_end_cpu = 0;
    if (c1 < c0)
        return; /* the closing call read no clock at its entry */
    csp_prof_add(&csp_u.prof_samp_win_t, win);
    csp_prof_add(&csp_u.prof_samp_cpu_ns, c1 - c0);
}

int csp_prof_type_size(MPI_Datatype dt)
{
    int size = 0;
    if (PMPI_Type_size(dt, &size) != MPI_SUCCESS || size < 0)
        size = 0;
    return size;
}
