/*
 * handoff.c: a hand-off of the core between a "user" at nice 0 and a
 * "ghost" at nice 19 on the same CPU, and back. No MPI, no CasperII. The
 * user computes 20 us, raises a request and waits; the ghost, polling the
 * request and yielding between polls, answers it. Mode 0: the user sleeps
 * on a futex and the ghost wakes it (how offloaded waits wait, block.c);
 * mode 1: the user yields until answered (how control waits waited before,
 * control.c). Prints the round trip's median and deciles.
 *
 *   cc -O2 -o handoff handoff.c && ./handoff 0 && ./handoff 1
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

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec * 1e-3;
}

struct shared {
    volatile uint32_t req, word, stop;
};

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    int n = 20000, mode = argc > 1 ? atoi(argv[1]) : 0;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(0, &set);
    sched_setaffinity(0, sizeof set, &set);
    struct shared *s = mmap(0, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (fork() == 0) { /* the ghost */
        setpriority(PRIO_PROCESS, 0, 19);
        while (!s->stop) {
            if (s->req) {
                s->req = 0;
                __atomic_add_fetch(&s->word, 1, __ATOMIC_SEQ_CST);
                if (mode == 0)
                    syscall(SYS_futex, &s->word, FUTEX_WAKE, 1, NULL, NULL, 0);
            } else {
                sched_yield();
            }
        }
        _exit(0);
    }
    double *d = malloc(n * sizeof *d);
    for (int i = 0; i < n; i++) {
        double t = now_us();
        while (now_us() - t < 20)
            ;
        uint32_t w = s->word;
        double t0 = now_us();
        s->req = 1;
        while (s->word == w) {
            if (mode == 0)
                syscall(SYS_futex, &s->word, FUTEX_WAIT, w, NULL, NULL, 0);
            else
                sched_yield();
        }
        d[i] = now_us() - t0;
    }
    s->stop = 1;
    while (wait(NULL) > 0)
        ;
    qsort(d, n, sizeof *d, cmp);
    printf("mode %d (%s): round trip median %.2f us, p10 %.2f, p90 %.2f\n", mode,
           mode == 0 ? "futex" : "sched_yield", d[n / 2], d[n / 10], d[9 * n / 10]);
    return 0;
}
