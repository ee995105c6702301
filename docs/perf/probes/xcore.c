/*
 * xcore.c: why touched 1-4 MiB exchanges take one of two times on this
 * machine, whatever the library.
 *
 * No MPI. Two processes, the "writer" on CPU 0 and the "reader" on CPU 1
 * (or both on CPU 0 with argument "same"), share an N-byte buffer. Each
 * round the writer writes every byte (as osubench -t does before a post),
 * hands the buffer over through a flag, and the reader reads every byte
 * (as after a wait), then hands it back. A third measure, "local", is the
 * writer writing and reading its own buffer with no hand-over. Printed per
 * batch of rounds: microseconds per round for the hand-over (write + read
 * on another core) and for local. Where the hand-over jumps between two
 * levels while local stays put, the difference is the cost of moving
 * dirty cache lines between the two virtual CPUs, which depends on where
 * the hypervisor runs them at the moment, not on the program.
 *
 *   cc -O2 -o xcore xcore.c && ./xcore <bytes> <batches> [same]
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec * 1e-3;
}

static void pin(int cpu)
{
    cpu_set_t s;
    CPU_ZERO(&s);
    CPU_SET(cpu, &s);
    sched_setaffinity(0, sizeof(s), &s);
}

static volatile uint64_t sink;

static void wr(uint64_t *w, long n, uint64_t g)
{
    for (long i = 0; i < n; i++)
        w[i] = g + (uint64_t)i;
    __asm__ __volatile__("" : : "r"(w) : "memory");
}

static void rd(const uint64_t *w, long n)
{
    __asm__ __volatile__("" : : "r"(w) : "memory");
    uint64_t s = 0;
    for (long i = 0; i < n; i++)
        s += w[i];
    sink += s;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s <bytes> <batches> [same]\n", argv[0]);
        return 2;
    }
    long bytes = atol(argv[1]), batches = atol(argv[2]), n = bytes / 8;
    int same = argc > 3 && strcmp(argv[3], "same") == 0;
    const int rounds = 50;
    volatile uint32_t *flag = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    uint64_t *buf = mmap(NULL, (size_t)bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    uint64_t *own = malloc((size_t)bytes);
    memset(buf, 0, (size_t)bytes);
    memset(own, 0, (size_t)bytes);
    *flag = 0;
    pid_t pid = fork();
    if (pid == 0) { /* reader */
        pin(same ? 0 : 1);
        for (long k = 0; k < batches * rounds; k++) {
            while (__atomic_load_n(flag, __ATOMIC_ACQUIRE) != 1)
                if (same)
                    sched_yield();
            rd(buf, n);
            __atomic_store_n(flag, 0, __ATOMIC_RELEASE);
        }
        _exit(0);
    }
    pin(0);
    printf("bytes=%ld rounds/batch=%d reader on %s\n", bytes, rounds, same ? "CPU 0 (same)" : "CPU 1");
    for (long b = 0; b < batches; b++) {
        double t0 = now();
        for (int r = 0; r < rounds; r++) {
            wr(buf, n, (uint64_t)(b * rounds + r));
            __atomic_store_n(flag, 1, __ATOMIC_RELEASE);
            while (__atomic_load_n(flag, __ATOMIC_ACQUIRE) != 0)
                if (same)
                    sched_yield();
        }
        double t1 = now();
        for (int r = 0; r < rounds; r++) {
            wr(own, n, (uint64_t)r);
            rd(own, n);
        }
        double t2 = now();
        printf("batch %3ld  hand-over %8.1f us/round  local %8.1f us/round\n", b, (t1 - t0) / rounds,
               (t2 - t1) / rounds);
        fflush(stdout);
    }
    waitpid(pid, NULL, 0);
    return 0;
}
