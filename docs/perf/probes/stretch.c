/*
 * stretch.c: why a user's sleep ends late while its ghost copies.
 *
 * No MPI. Two processes on CPU 0: the "user" sleeps S us (nanosleep,
 * timer slack 1 us) in a loop and records how late each sleep ends; the
 * "copier", at nice 19 as a ghost on a shared core runs, reads B bytes of
 * the user's memory with process_vm_readv in a loop, as UCX's CMA
 * transport does for a ghost's rendezvous transfer. A woken user
 * preempts a nice-19 task at once, but not inside a system call on a
 * kernel without preemption (CONFIG_PREEMPT_NONE, this host's): the
 * wake-up waits for the copy in progress to return. Printed: B, and the
 * lateness's mean, median, 90th percentile and maximum (us).
 *
 *   cc -O2 -o stretch stretch.c
 *   ./stretch 0 180 2000         # no copier: the timer's own lateness
 *   ./stretch 1048576 180 2000   # 1 MiB per call, as a 1 MiB transfer
 *   ./stretch 65536 180 2000     # 64 KiB per call
 */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec * 1e-3;
}
static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}
static void pin(int cpu)
{
    cpu_set_t s;
    CPU_ZERO(&s);
    CPU_SET(cpu, &s);
    sched_setaffinity(0, sizeof s, &s);
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: stretch <copy bytes> <sleep us> <iterations>\n");
        return 2;
    }
    long n = atol(argv[1]), us = atol(argv[2]);
    int iters = atoi(argv[3]);
    char *src = malloc(n ? n : 1);
    memset(src, 1, n ? n : 1);
    pid_t user = getpid(), copier = 0;
    if (n) {
        copier = fork();
        if (copier == 0) {
            pin(0);
            setpriority(PRIO_PROCESS, 0, 19);
            char *dst = malloc(n);
            struct iovec l = {dst, n}, r = {src, n};
            for (;;)
                process_vm_readv(user, &l, 1, &r, 1, 0);
        }
    }
    pin(0);
    prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
    double *late = malloc(iters * sizeof *late), sum = 0;
    for (int i = 0; i < iters; i++) {
        struct timespec ts = {0, us * 1000};
        double t0 = now();
        nanosleep(&ts, NULL);
        late[i] = now() - t0 - us;
        sum += late[i];
    }
    if (copier) {
        kill(copier, SIGKILL);
        waitpid(copier, NULL, 0);
    }
    qsort(late, iters, sizeof *late, cmp);
    printf("copy %ld B: sleep %ld us ends late by mean %.1f median %.1f p90 %.1f max %.1f us\n", n, us,
           sum / iters, late[iters / 2], late[iters * 9 / 10], late[iters - 1]);
    return 0;
}
