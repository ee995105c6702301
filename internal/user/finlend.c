/*
 * finlend.c: lending the core to the ghost while MPICH finalizes.
 *
 * MPI_Finalize on a node is a rendezvous of every local process, the
 * ghosts included: MPICH ends it with a barrier in shared memory that
 * spins without ever yielding. Where the ghost shares its user's core at
 * a lowered priority (coop.c, internal/core/priority.go), a user that
 * reaches that barrier first spins while its ghost, which still has its
 * own teardown to do (a few milliseconds of CPU), gets almost no time:
 * measured with uprobes on MPICH's barrier, the ghost arrived 0.4-0.8 s
 * after its user, against 10-20 ms with the ghost at the users' priority.
 * No call of ours runs inside MPICH's loop, so a timer does the lending:
 * while this thread is in PMPI_Finalize, a signal every FIN_PERIOD_US
 * sleeps FIN_LEND_US in its handler, leaving the core to the ghost.
 *
 * The signal is a real-time one nobody handles (its disposition is the
 * default when we look), delivered to this thread only (SIGEV_THREAD_ID),
 * with SA_RESTART; the handler calls nothing but nanosleep and keeps
 * errno. The timer is armed and disarmed inside this C call, so the
 * signal never lands in Go code. After the timer is deleted a signal may
 * still be pending: it is taken with sigtimedwait while blocked, before
 * the old disposition (the default, which would end the process) returns.
 */
#define _GNU_SOURCE
#include "user.h"

#include <errno.h>
#include <signal.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifndef sigev_notify_thread_id
#define sigev_notify_thread_id _sigev_un._tid
#endif

/* Every FIN_PERIOD_US the user sleeps FIN_LEND_US: half the core goes to
 * the ghost, so its teardown takes about twice its CPU time. */
#define FIN_PERIOD_US 1000
#define FIN_LEND_US 500

/* Lends made by the handler (read once the timer is gone). */
static volatile sig_atomic_t fin_lends;

static void fin_lend(int sig)
{
    (void)sig;
    fin_lends++;
    int e = errno;
    struct timespec ts = {0, FIN_LEND_US * 1000L};
    nanosleep(&ts, NULL);
    errno = e;
}

struct fin_timer {
    int sig; /* 0: not armed */
    timer_t id;
    struct sigaction old;
};

/* A real-time signal whose disposition is the default (nobody uses it),
 * or 0. */
static int free_rt_signal(void)
{
    for (int s = SIGRTMAX; s >= SIGRTMIN; s--) {
        struct sigaction cur;
        if (sigaction(s, NULL, &cur) == 0 && !(cur.sa_flags & SA_SIGINFO) &&
            cur.sa_handler == SIG_DFL)
            return s;
    }
    return 0;
}

static void fin_arm(struct fin_timer *t)
{
    t->sig = free_rt_signal();
    if (!t->sig)
        return;
    struct sigaction sa = {0};
    sa.sa_handler = fin_lend;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    if (sigaction(t->sig, &sa, &t->old) != 0) {
        t->sig = 0;
        return;
    }
    struct sigevent sev = {0};
    sev.sigev_notify = SIGEV_THREAD_ID;
    sev.sigev_signo = t->sig;
    sev.sigev_notify_thread_id = (pid_t)syscall(SYS_gettid);
    struct itimerspec its = {{0, FIN_PERIOD_US * 1000L}, {0, FIN_PERIOD_US * 1000L}};
    if (timer_create(CLOCK_MONOTONIC, &sev, &t->id) != 0) {
        sigaction(t->sig, &t->old, NULL);
        t->sig = 0;
        return;
    }
    if (timer_settime(t->id, 0, &its, NULL) != 0) {
        timer_delete(t->id);
        sigaction(t->sig, &t->old, NULL);
        t->sig = 0;
    }
}

static void fin_disarm(struct fin_timer *t)
{
    if (!t->sig)
        return;
    timer_delete(t->id);
    sigset_t set, old;
    sigemptyset(&set);
    sigaddset(&set, t->sig);
    pthread_sigmask(SIG_BLOCK, &set, &old);
    struct timespec zero = {0, 0};
    while (sigtimedwait(&set, NULL, &zero) > 0) {
    }
    sigaction(t->sig, &t->old, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}

int csp_finalize_lending(int *sig, int *lends)
{
    struct fin_timer t = {0};
    fin_lends = 0;
    if (csp_u.lend)
        fin_arm(&t);
    int rc = PMPI_Finalize();
    fin_disarm(&t);
    *sig = t.sig;
    *lends = (int)fin_lends;
    return rc;
}
