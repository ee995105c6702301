/*
 * lag.c: why a ghost at the users' priority delays the users it wakes.
 *
 * No MPI. Two processes on CPU 0, each in a session of its own (as hydra
 * starts MPI processes, so each is its own scheduling group where the
 * kernel groups by session: /proc/sys/kernel/sched_autogroup_enabled).
 * The "user" computes busy for C us, then sleeps on a futex. The "ghost"
 * polls (sched_yield between polls, as a ghost with work in flight does);
 * when the user sleeps it works W us (a transfer), then wakes the user.
 * Printed: how long the woken user waits for the core, and the user's
 * compute time per iteration (stretched when the ghost takes a share).
 *
 *   cc -O2 -o lag lag.c && ./lag <C us> <W us> <ghost nice 0..19>
 */
#define _GNU_SOURCE
#include <linux/futex.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}
static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}
static void spin(double us)
{
    double e = now() + us * 1e-6;
    while (now() < e)
        ;
}

struct shared {
    volatile uint32_t asleep; /* the user sleeps on done */
    volatile uint32_t done;
    volatile double twake;
    volatile int stop;
};

int main(int argc, char **argv)
{
    double C = argc > 1 ? atof(argv[1]) : 200, W = argc > 2 ? atof(argv[2]) : 100;
    int nice_g = argc > 3 ? atoi(argv[3]) : 0, n = 2000;
    cpu_set_t s;
    CPU_ZERO(&s);
    CPU_SET(0, &s);
    sched_setaffinity(0, sizeof s, &s);
    struct shared *sh = mmap(0, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (fork() == 0) { /* the ghost */
        setsid();
        if (nice_g) {
            setpriority(PRIO_PROCESS, 0, nice_g);
            FILE *f = fopen("/proc/self/autogroup", "w");
            if (f) {
                fprintf(f, "%d", nice_g);
                fclose(f);
            }
        }
        while (!sh->stop) {
            if (sh->asleep) {
                spin(W);
                sh->asleep = 0;
                sh->twake = now();
                __atomic_add_fetch(&sh->done, 1, __ATOMIC_SEQ_CST);
                syscall(SYS_futex, &sh->done, FUTEX_WAKE, 1, 0, 0, 0);
            } else {
                sched_yield();
            }
        }
        exit(0);
    }
    setsid();
    double *lat = malloc(8 * n), *comp = malloc(8 * n);
    for (int i = 0; i < n; i++) {
        double t0 = now();
        spin(C);
        comp[i] = now() - t0;
        uint32_t d = sh->done;
        sh->asleep = 1;
        while (sh->done == d)
            syscall(SYS_futex, &sh->done, FUTEX_WAIT, d, 0, 0, 0);
        lat[i] = now() - sh->twake;
    }
    sh->stop = 1;
    wait(NULL);
    qsort(lat, n, 8, cmp);
    qsort(comp, n, 8, cmp);
    printf("compute %.0f us, ghost works %.0f us, ghost nice %2d: woken user waits p50 %6.1f p90 %6.1f us; compute takes p50 %6.1f p90 %6.1f us\n",
           C, W, nice_g, lat[n / 2] * 1e6, lat[n * 9 / 10] * 1e6, comp[n / 2] * 1e6, comp[n * 9 / 10] * 1e6);
    return 0;
}
