/*
 * mbreg.c: what registering for global membarriers costs a process, with
 * one thread and with two. No MPI, no CasperII. Posts skip their memory
 * fence when the ghost issues MEMBARRIER_CMD_GLOBAL_EXPEDITED before it
 * parks (internal/user/channel.h), which reaches only processes registered
 * with MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED. In a process with more
 * than one thread the kernel makes that registration wait for an RCU
 * grace period (sync_runqueues_membarrier_state): milliseconds, on the
 * critical path of MPI_Init unless it overlaps something (docs/design.md
 * section 7, "MPI_Finalize on a shared core").
 *
 *   cc -O2 -o mbreg mbreg.c -lpthread && ./mbreg && ./mbreg 2
 */
#define _GNU_SOURCE
#include <linux/membarrier.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

static void *idle(void *arg)
{
    pause();
    return arg;
}

int main(int argc, char **argv)
{
    int threads = argc > 1 ? atoi(argv[1]) : 1;
    for (int i = 1; i < threads; i++) {
        pthread_t t;
        pthread_create(&t, NULL, idle, NULL);
    }
    double t0 = now_ms();
    long rc = syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED, 0, 0);
    double t1 = now_ms();
    printf("%d thread(s): register rc=%ld took %.2f ms\n", threads, rc, t1 - t0);
    return 0;
}
