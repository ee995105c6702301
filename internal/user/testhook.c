/*
 * testhook.c: test-only entry points into the user side, used by the
 * reliability tests (test/reliability_test.go) and nothing else.
 *
 * They are not part of any MPI interface. A C test program preloaded with
 * lib/libcasperii.so finds them with dlsym(RTLD_DEFAULT, "csp_test_...")
 * (no link-time dependency on the library); Go programs call them through
 * testhook.go. Every function returns -1 in a process that is not a user
 * served by a ghost (pass-through, ghost, before MPI_Init).
 *
 * The "hostile" functions let a test program act as a broken user: they
 * write raw request lines into cells and raw values into the submission
 * ring, bypassing every check of the fast path, to show that the ghost
 * validates what it reads and keeps serving its other users.
 */
#define _GNU_SOURCE
#include "user.h"
#include "testhook.h"
#include "block.h"
#include "complete.h"

#include <limits.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* The ghost's doorbell, the user's half of the park handshake as engine.c
 * rings it (csp_ghost_unpark, channel.h), always with a full fence. */
static void hook_doorbell(void)
{
    if (csp_ghost_unpark(csp_u.ghost, 0))
        syscall(SYS_futex, &csp_u.ghost->doorbell, 1 /* FUTEX_WAKE */, INT_MAX, NULL, NULL, 0);
}

/*
 * csp_test_usage reports what the fast path holds: cells not in the free
 * pool, live operation records, bytes handed out by the shared heap, and
 * posts waiting in the backlog. With drain != 0 it first waits, as
 * MPI_Finalize does, for every operation already posted to finish (so
 * requests the application freed are counted only if they leak).
 */
int csp_test_usage(int drain, uint32_t *cells_in_use, uint64_t *ops_live, uint64_t *heap_in_use,
                   uint32_t *held)
{
    if (!csp_u.on)
        return -1;
    CSP_LOCK();
    if (drain)
        csp_drain_all();
    *cells_in_use = csp_u.ncells - csp_u.pool.n;
    *ops_live = (uint64_t)csp_greq.live;
    *heap_in_use = csp_u.heap ? csp_u.heap->in_use : 0;
    *held = csp_u.nheld;
    CSP_UNLOCK();
    return 0;
}

/* csp_test_comm_algo returns the algorithm (enum csp_algo) carrying comm's
 * traffic: 0 when comm is not offloaded. */
int csp_test_comm_algo(MPI_Comm comm)
{
    if (!csp_u.on)
        return -1;
    CSP_LOCK();
    struct csp_comm *c = csp_comm_get(comm);
    int algo = c ? c->algo : CSP_ALGO_OFF;
    CSP_UNLOCK();
    return algo;
}

/* csp_test_profile reads the self-profile (prof.c) in nanoseconds: the
 * time in calls that wait or block, the application's time in flight
 * (between a post and the next waiting call), and the waiting calls;
 * -1 while it is off (no communicator with async_config=auto). The times
 * are the timed calls' (csp_test_profile_timed: a reader scales a
 * difference of two readings by the ratio of their differences, as
 * route.go does). */
int csp_test_profile(uint64_t *mpi_ns, uint64_t *win_ns, uint64_t *waits)
{
    if (!csp_u.on || !csp_u.prof)
        return -1;
    double rate = csp_prof_ns_per_tick();
    *mpi_ns = (uint64_t)((double)__atomic_load_n(&csp_u.prof_mpi_t, __ATOMIC_RELAXED) * rate);
    *win_ns = (uint64_t)((double)__atomic_load_n(&csp_u.prof_win_t, __ATOMIC_RELAXED) * rate);
    *waits = __atomic_load_n(&csp_u.prof_waits, __ATOMIC_RELAXED);
    return 0;
}

/* csp_test_profile_timed reads the waiting calls counted and, of them,
 * those timed (the rest were light: user.h); -1 while the profile is
 * off. */
int csp_test_profile_timed(uint64_t *waits, uint64_t *timed)
{
    if (!csp_u.on || !csp_u.prof)
        return -1;
    *waits = __atomic_load_n(&csp_u.prof_waits, __ATOMIC_RELAXED);
    *timed = __atomic_load_n(&csp_u.prof_waits_timed, __ATOMIC_RELAXED);
    return 0;
}

/* csp_test_profile_samples reads the sampled windows (prof.c): their
 * summed length and the thread's CPU time in them, nanoseconds; -1 while
 * the profile is off. */
int csp_test_profile_samples(uint64_t *win_ns, uint64_t *cpu_ns)
{
    if (!csp_u.on || !csp_u.prof)
        return -1;
    double rate = csp_prof_ns_per_tick();
    *win_ns = (uint64_t)((double)__atomic_load_n(&csp_u.prof_samp_win_t, __ATOMIC_RELAXED) * rate);
    *cpu_ns = __atomic_load_n(&csp_u.prof_samp_cpu_ns, __ATOMIC_RELAXED);
    return 0;
}

/* csp_test_locate finds [p, p+n) in the shared heap: 1 and its segment and
 * offset, 0 if it is not there (a send from it would be bounced). */
int csp_test_locate(const void *p, uint64_t n, uint32_t *seg, uint64_t *off)
{
    if (!csp_u.on)
        return -1;
    CSP_LOCK();
    int found = csp_heap_find(csp_u.heap, p, (size_t)n, seg, off);
    CSP_UNLOCK();
    return found;
}

/* csp_test_ghost_pid returns the pid of the ghost serving this process. */
int csp_test_ghost_pid(void)
{
    if (!csp_u.on)
        return -1;
    return csp_u.ghost->ghost_pid;
}

/*
 * csp_test_publish_raw takes a free cell, copies the request line (the
 * first 64 bytes) of *line0 into it as is, and publishes it. The cell's
 * generation is its next one, unless keep_gen: then line0->gen is used as
 * is (0 is never a published generation). Returns the cell index, or -1
 * when no cell is free. The cell stays out of the pool until
 * csp_test_reap.
 */
int64_t csp_test_publish_raw(const struct csp_cell *line0, int keep_gen)
{
    if (!csp_u.on)
        return -1;
    CSP_LOCK();
    uint32_t idx;
    if (csp_u.pool.n <= CSP_CTRL_CELLS || !csp_pool_pop(&csp_u.pool, &idx)) {
        CSP_UNLOCK();
        return -1;
    }
    struct csp_cell *c = &csp_u.cells[idx];
    uint32_t gen = keep_gen ? line0->gen : csp_cell_next_gen(csp_u.gen[idx]);
    if (!keep_gen)
        csp_u.gen[idx] = gen;
    memcpy(c, line0, offsetof(struct csp_cell, st_source));
    c->gen = gen;
    if (!spsc_try_push(&csp_u.prod, idx)) {
        csp_pool_push(&csp_u.pool, idx);
        CSP_UNLOCK();
        return -1;
    }
    hook_doorbell();
    CSP_UNLOCK();
    return idx;
}

/*
 * csp_test_reap waits up to timeout_ms for the ghost to complete cell idx
 * (published by csp_test_publish_raw) and copies its result line into
 * *result. Returns 1 if the ghost completed it (the cell is back in the
 * pool), 0 if not (the cell stays out of the pool: a late completion must
 * not land on a reused cell).
 */
int csp_test_reap(uint32_t idx, int timeout_ms, struct csp_cell *result)
{
    if (!csp_u.on || idx >= csp_u.ncells)
        return -1;
    struct csp_cell *c = &csp_u.cells[idx];
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        CSP_LOCK();
        csp_poke_progress();
        int done = csp_cell_done(c);
        if (done) {
            memcpy(result, c, sizeof(*c));
            csp_pool_push(&csp_u.pool, idx);
        }
        CSP_UNLOCK();
        if (done)
            return 1;
        clock_gettime(CLOCK_MONOTONIC, &t);
        long ms = (t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000;
        if (ms >= timeout_ms)
            return 0;
        usleep(200);
    }
}

/* csp_test_push_index publishes a raw value on the submission ring (a cell
 * index the ghost must check). Returns 0, or -1 if the ring is full. */
int csp_test_push_index(uint64_t v)
{
    if (!csp_u.on)
        return -1;
    CSP_LOCK();
    int ok = spsc_try_push(&csp_u.prod, v);
    if (ok)
        hook_doorbell();
    CSP_UNLOCK();
    return ok ? 0 : -1;
}

/* csp_test_corrupt_tail stores an impossible tail in the shared ring
 * header (more values than the ring holds): the ghost must stop serving
 * this user. The user must not post offloaded operations afterwards. */
int csp_test_corrupt_tail(void)
{
    if (!csp_u.on)
        return -1;
    CSP_LOCK();
    uint64_t head = __atomic_load_n(csp_u.prod.r.head, __ATOMIC_ACQUIRE);
    __atomic_store_n(csp_u.prod.r.tail, head + spsc_capacity(&csp_u.prod.r) + 12345,
                     __ATOMIC_RELEASE);
    hook_doorbell();
    CSP_UNLOCK();
    return 0;
}
