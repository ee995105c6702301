/*
 * ip_finalize: MPI_Finalize leaves the process's signals as it found them
 * (internal/user/lendtimer.c lends the core to the ghost while MPICH
 * finalizes, timed by a real-time signal it borrows).
 *
 * Before MPI_Init the program installs a handler of its own on SIGRTMAX
 * and records the disposition of every real-time signal. After
 * MPI_Finalize it checks that every disposition is the one recorded (the
 * borrowed signal is back to the default, the program's handler is still
 * there) and that raising SIGRTMAX runs the program's handler; then it
 * computes a little, after finalization, as programs do when writing
 * their results, so that a stray timer signal would still arrive.
 *
 * Output: "result rank=<r> test=signals ok=<0|1> changed=<n>" and
 * "result rank=<r> test=own_handler ok=<0|1> sig=<SIGRTMAX> waited=<SIGRTMAX-1>"
 * (ok: the program's handler ran and SIGRTMAX-1 is still blocked).
 */
#define _GNU_SOURCE
#include <mpi.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#ifndef SA_RESTORER
#define SA_RESTORER 0x04000000
#endif

static volatile sig_atomic_t own;

static void handler(int sig)
{
    (void)sig;
    own++;
}

int main(int argc, char **argv)
{
    struct sigaction sa = {0}, before[_NSIG];
    sa.sa_handler = handler;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGRTMAX, &sa, NULL);
    /* SIGRTMAX-1 stays at its default but blocked, as a program that
     * takes it with sigwait leaves it: not free either. */
    sigset_t waited;
    sigemptyset(&waited);
    sigaddset(&waited, SIGRTMAX - 1);
    pthread_sigmask(SIG_BLOCK, &waited, NULL);
    for (int s = SIGRTMIN; s <= SIGRTMAX; s++)
        sigaction(s, NULL, &before[s]);

    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();

    /* 20 ms of work after finalization: a timer left armed would fire. */
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do
        clock_gettime(CLOCK_MONOTONIC, &t);
    while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < 20000000L);

    int changed = 0;
    for (int s = SIGRTMIN; s <= SIGRTMAX; s++) {
        struct sigaction now;
        sigaction(s, NULL, &now);
        /* SA_RESTORER is glibc's: it sets it on every sigaction it makes. */
        if (now.sa_handler != before[s].sa_handler ||
            (now.sa_flags & ~SA_RESTORER) != (before[s].sa_flags & ~SA_RESTORER)) {
            changed++;
            fprintf(stderr, "signal %d: handler %p flags %#x, was %p flags %#x\n", s,
                    (void *)now.sa_handler, (unsigned)now.sa_flags, (void *)before[s].sa_handler,
                    (unsigned)before[s].sa_flags);
        }
    }
    printf("result rank=%d test=signals ok=%d changed=%d\n", rank, changed == 0, changed);
    raise(SIGRTMAX);
    sigset_t now_blocked;
    pthread_sigmask(SIG_BLOCK, NULL, &now_blocked);
    printf("result rank=%d test=own_handler ok=%d sig=%d waited=%d\n", rank,
           own == 1 && sigismember(&now_blocked, SIGRTMAX - 1), SIGRTMAX, SIGRTMAX - 1);
    return 0;
}
