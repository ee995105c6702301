/*
 * cowake.c: what one wake-up of a process costs the process it shares a
 * core with. No MPI, no CasperII: a child sleeps <us> microseconds at a
 * time (nanosleep, 1 ns timer slack, like osubench's sleep compute) while
 * the parent, on the same CPU, spins reading the clock and counts the time
 * it did not run. On bare metal a wake-up takes the spinner's core for a
 * few microseconds; on a virtual machine the timer and the interrupt are
 * emulated and cost more. This is the budget an offloaded exchange has to
 * live with: the user's sleep compute runs on its ghost's core, so each
 * iteration's wake-up is time the ghost cannot spend moving the data
 * (docs/design.md section 7).
 *
 *   cc -O2 -o cowake cowake.c && ./cowake 10 && ./cowake 100 && ./cowake 1000
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

int main(int argc, char **argv)
{
    long us = argc > 1 ? atol(argv[1]) : 10;
    double run_us = 2e6;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(0, &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0) {
        perror("sched_setaffinity");
        return 1;
    }
    pid_t child = fork();
    if (child == 0) {
        prctl(PR_SET_TIMERSLACK, 1UL);
        struct timespec ts = {0, us * 1000};
        double end = now_us() + run_us;
        long n = 0;
        while (now_us() < end) {
            nanosleep(&ts, NULL);
            n++;
        }
        printf("sleeper: %ld sleeps of %ld us, %.1f us each with the wake-up\n", n, us, run_us / n);
        return 0;
    }
    double end = now_us() + run_us, last = now_us(), lost = 0;
    long gaps = 0;
    for (;;) {
        double t = now_us();
        if (t > end)
            break;
        if (t - last > 1.0) { /* the spinner did not run */
            lost += t - last;
            gaps++;
        }
        last = t;
    }
    waitpid(child, NULL, 0);
    printf("spinner on the same CPU: lost %.1f%% of its time in %ld gaps, %.1f us per gap\n",
           100 * lost / run_us, gaps, gaps ? lost / gaps : 0);
    return 0;
}
