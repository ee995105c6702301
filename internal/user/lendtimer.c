/*
 * lendtimer.c: lending the core on a timer while MPICH spins.
 *
 * Where ghosts and users share cores, some MPICH calls spin without ever
 * yielding while what they wait for needs the core they hold:
 *
 *   MPI_Finalize  ends with a barrier in shared memory of every process of
 *                 the node, ghosts included. A user reaches it a few
 *                 milliseconds after entering PMPI_Finalize; its ghost has
 *                 its own teardown first (about 5-10 ms of CPU) and, at
 *                 nice 19 beside a spinning user, got about 1.5% of the
 *                 core: uprobes on MPICH's barrier showed ghosts arriving
 *                 0.4-0.8 s after their users (7-17 ms at the users'
 *                 priority).
 *   MPI_Init      PMPI_Init's own barriers and the runtime's setup
 *                 collectives (internal/core) run with every process of
 *                 the host spinning, more processes than cores: each step
 *                 waits for the scheduler to rotate the spinners.
 *
 * No code of ours runs inside MPICH's loops, so a timer does the lending:
 * a signal whose handler yields the core (MPI_Init) or sleeps, leaving it
 * to whoever shares it (MPI_Finalize; the periods below say why). The
 * signal is a real-time one nobody handles (its disposition is the
 * default when we look), delivered to this thread only (SIGEV_THREAD_ID),
 * with SA_RESTART, and SA_ONSTACK: while the runtime initializes the
 * handler can interrupt Go code, whose goroutine stack is not the place
 * for a signal frame; Go keeps an alternate signal stack installed on
 * every thread that runs Go code, and C stacks take the frame either way.
 * The handler calls nothing but sched_yield or nanosleep and keeps errno.
 * Once the timer is deleted a signal may still be pending: it is taken
 * with sigtimedwait while blocked, before the old disposition (the
 * default, which would end the process) returns.
 */
#define _GNU_SOURCE
#include "rma.h"
#include "user.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifndef sigev_notify_thread_id
#define sigev_notify_thread_id _sigev_un._tid
#endif

/* In MPI_Finalize, every LEND_PERIOD_US this thread sleeps LEND_US: half
 * the core goes to the processes that share it, among them a ghost at nice
 * 19, which a yield would not reliably let run (a nice-0 spinner that
 * yields is picked again before it: Finalize took 41-237 ms that way
 * against 10-26). */
#define LEND_PERIOD_US 1000
#define LEND_US 500
/* In MPI_Init every process runs at the same priority, most of them
 * spinning in a barrier while one still has work: every
 * LEND_INIT_PERIOD_US this thread yields, which hands the core to a
 * process that has work and costs nothing where none waits. Sleeping half
 * of every millisecond instead also took the core from the process with
 * the work: an empty program's MPI_Init (2 users + 1 ghost on 2 cores,
 * 5-6 runs each) took 100-121 ms that way, 63-83 ms yielding every 250 us
 * (one run 147; every 100 us: 75-86; every 1 ms: 85-108); with 2 x (1
 * user + 1 ghost), medians of 7 interleaved runs 127 ms against 105. */
#define LEND_INIT_PERIOD_US 250

/* Lends made by the handler since the timer was armed. */
static volatile sig_atomic_t lends;
/* The handler yields (MPI_Init) instead of sleeping LEND_US. */
static volatile sig_atomic_t lend_yields;

static void lend_now(int sig)
{
    (void)sig;
    int e = errno;
    lends++;
    if (lend_yields) {
        sched_yield();
    } else {
        struct timespec ts = {0, LEND_US * 1000L};
        nanosleep(&ts, NULL);
    }
    errno = e;
}

/* One timer at a time per process (MPI_Init and MPI_Finalize run once). */
static struct {
    int sig; /* 0: not armed */
    timer_t id;
    struct sigaction old;
} tm;

/* A real-time signal whose disposition is the default and that this
 * thread does not block (a program that takes a signal with sigwait
 * blocks it and leaves the default), or 0. */
static int free_rt_signal(void)
{
    sigset_t blocked;
    if (pthread_sigmask(SIG_BLOCK, NULL, &blocked) != 0)
        return 0;
    for (int s = SIGRTMAX; s >= SIGRTMIN; s--) {
        struct sigaction cur;
        if (!sigismember(&blocked, s) && sigaction(s, NULL, &cur) == 0 &&
            !(cur.sa_flags & SA_SIGINFO) && cur.sa_handler == SIG_DFL)
            return s;
    }
    return 0;
}

/* CSP_LEND_TIMER=off (or 0): never borrow a signal (internal/core/env.go
 * checks the value). */
static int timer_allowed(void)
{
    const char *v = getenv("CSP_LEND_TIMER");
    if (!v)
        return 1;
    while (*v == ' ' || *v == '\t')
        v++;
    return strncmp(v, "off", 3) != 0 && strncmp(v, "0", 1) != 0;
}

void csp_lend_timer_start(int yield)
{
    if (tm.sig || !timer_allowed())
        return;
    lends = 0;
    lend_yields = yield;
    long period = yield ? LEND_INIT_PERIOD_US : LEND_PERIOD_US;
    int sig = free_rt_signal();
    if (!sig)
        return;
    struct sigaction sa = {0};
    sa.sa_handler = lend_now;
    sa.sa_flags = SA_RESTART | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    if (sigaction(sig, &sa, &tm.old) != 0)
        return;
    struct sigevent sev = {0};
    sev.sigev_notify = SIGEV_THREAD_ID;
    sev.sigev_signo = sig;
    sev.sigev_notify_thread_id = (pid_t)syscall(SYS_gettid);
    struct itimerspec its = {{0, period * 1000L}, {0, period * 1000L}};
    if (timer_create(CLOCK_MONOTONIC, &sev, &tm.id) != 0) {
        sigaction(sig, &tm.old, NULL);
        return;
    }
    if (timer_settime(tm.id, 0, &its, NULL) != 0) {
        timer_delete(tm.id);
        sigaction(sig, &tm.old, NULL);
        return;
    }
    tm.sig = sig;
}

int csp_lend_timer_yields(void) { return lend_yields ? (int)lends : 0; }

void csp_lend_timer_stop(int *sig, int *nlends)
{
    *sig = tm.sig;
    *nlends = 0;
    if (!tm.sig)
        return;
    timer_delete(tm.id);
    sigset_t set, old;
    sigemptyset(&set);
    sigaddset(&set, tm.sig);
    pthread_sigmask(SIG_BLOCK, &set, &old);
    struct timespec zero = {0, 0};
    while (sigtimedwait(&set, NULL, &zero) > 0) {
    }
    sigaction(tm.sig, &tm.old, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    *nlends = (int)lends;
    tm.sig = 0;
}

int csp_init_oversubscribed(void)
{
    /* Before MPI_Init only the launcher knows how many processes share
     * this host: hydra says it in MPI_LOCALNRANKS. */
    const char *s = getenv("MPI_LOCALNRANKS");
    if (!s)
        return 0;
    long n = strtol(s, NULL, 10);
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof(set), &set) != 0)
        return 0;
    return n > CPU_COUNT(&set);
}

int csp_finalize_lending(int *sig, int *nlends, int *rma_rc)
{
    if (csp_u.lend)
        csp_lend_timer_start(0);
    /* The internal RMA window's free synchronizes with the ghosts, which
     * need the core as much as MPICH's own last barrier does. */
    *rma_rc = csp_rma_finish();
    int rc = PMPI_Finalize();
    csp_lend_timer_stop(sig, nlends);
    return rc;
}
