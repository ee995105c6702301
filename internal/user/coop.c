/*
 * coop.c: waiting on MPICH without starving the ghost.
 *
 * Where the ghost shares this process's core, it runs at the lowest
 * priority (internal/core/priority.go): it gets the core only while this
 * process leaves it. Waiting on an offloaded operation leaves it (the
 * wait sleeps on the wake word, engine.c). But MPICH's own blocking calls
 * spin without ever yielding, and so does an application that polls
 * MPI_Test in a loop: a ghost with work in flight would then starve, and
 * so would the peer that waits for that work (an MPI_Recv posted on the
 * other side of an MPI_Barrier this process spins in). Measured: a 1 MiB
 * Send matched by an offloaded Irecv posted before a Barrier took 3.4 ms
 * per iteration with the ghost at the users' priority, 12 ms at nice 19,
 * against 64 us for plain MPICH.
 *
 * So while the ghost has work (csp_coop_owed: its published busy count,
 * or cells of ours it has not drained), this process waits on MPICH in
 * turns: it polls MPICH for LEND_EVERY_US, then lends the core: it sleeps
 * on its wake word with wait_cell CSP_WAIT_GIVE until the ghost finds a
 * round with nothing to do (internal/ghost/give.go) or completes
 * something. With nothing in flight it is PMPI's own wait, unchanged,
 * unless the host runs more users than cores (csp_u.yield_direct,
 * core/wait.go: directYield): then the wait polls MPICH and yields the
 * core between polls, so that the users sharing it reach their own sends
 * instead of waiting a time slice for it (yield_until).
 *
 * Waits that yield beside windows MPICH serves. While MPICH serves RMA on
 * a window of this process (not redirected, or turned direct), its polls
 * are its origins' progress, and a yield may hand the core to an origin
 * spinning in MPI_Win_unlock, which never yields, for a time slice. Not
 * yielding then was tried (docs/design.md section 7): osubench's rma-ga
 * with its target idle in MPI_Barrier went from 0.68x to 0.97x plain
 * MPICH's accumulates per second, but NWChem with 4 users on 2 cores
 * (MPI_Win_create windows) from 32 s to 70 s (plain MPICH 76 s): the
 * waits yield either way (TestDirectYieldWindows).
 */
#define _GNU_SOURCE
#include "user.h"
#include "block.h"
#include "liveness.h"
#include "pump.h"
#include "submit.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Between two lends, poll MPICH this long (microseconds): the ghost gets
 * the core at least this often while it has work. */
#define LEND_EVERY_US 20.0
/* A lend sleeps at most this long (the ghost normally ends it sooner). */
#define LEND_TIMEOUT_US 1000
/* Test-family misses closer together than this are a polling loop. */
#define TIGHT_MISS_US 10.0
/* A polling loop lends the core after this many tight misses in a row. */
#define TIGHT_MISSES 4
/* The ghost's liveness is checked every this many lends in a wait. */
#define LEND_LIVENESS 64

static inline double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

/* owed_locked: does the ghost have work we should lend it the core for?
 * (csp_coop_owed under the caller's lock.) */
static int owed_locked(void)
{
    if (csp_ghost_busy(csp_u.ghost))
        return 1;
    return spsc_free(&csp_u.prod) != spsc_capacity(&csp_u.ring);
}

/* lend sleeps so the ghost gets the core, until it hands it back (a round
 * with nothing to do, or a completion) or LEND_TIMEOUT_US pass: the wake
 * handshake of channel.h (csp_user_lend_begin; the ghost's half is in
 * give.go), re-check, sleep while wake is unchanged. */
static void lend_if(int force)
{
    struct csp_chan_hdr *h = csp_u.chan;
    CSP_LOCK();
    uint32_t seq = csp_user_lend_begin(h);
    int owed = force || owed_locked();
    if (owed) {
        csp_u.n_lends++;
        (void)csp_ring_doorbell(); /* a napping ghost must see it now */
    }
    CSP_UNLOCK();
    if (owed) {
        uint64_t t0 = csp_prof_begin();
        csp_futex_wait(&h->wake, seq, LEND_TIMEOUT_US);
        csp_prof_end_sleep(t0);
    }
    csp_user_sleep_end(h);
}

static void lend(void) { lend_if(0); }

void csp_coop_lend_rma(void)
{
    if (csp_u.lend && csp_u.chan)
        lend_if(1);
}

/* The calls below wait the way PMPI's blocking call would (block), but
 * while the ghost has work they poll (poll sets *done) for LEND_EVERY_US
 * at a time and lend the core in between, and where waits yield the core
 * they poll and yield (yield_until). A poll that finds the call ready
 * returns the call's own result. MPI_Wait, MPI_Waitany and MPI_Waitsome
 * poll with their test forms (MPI_Test, Testany, Testsome), which
 * complete exactly what the wait would when they find it ready. MPI_Waitall
 * cannot: MPI_Testall, once a request failed, completes the others that
 * are done and returns with the rest pending, where MPI_Waitall waits for
 * all and marks pending only those after the failed one (a poll by
 * MPI_Testall that then polled again lost a truncation's
 * MPI_ERR_IN_STATUS: test/cprogs/ip_yield.c). So it checks the requests
 * with MPI_Request_get_status (which drives MPICH's progress but frees
 * nothing) and then makes MPICH's blocking call, which returns at once.
 * But get_status never calls a generalized request's poll function
 * (MPICH 4.0.2, request_impl.c), and ROMIO's nonblocking I/O
 * (MPI_File_iwrite ...) completes only from it: such a wait never ended
 * (MPICH's io/async and i_* tests, where waits yield). So a Waitall still
 * waiting after POKE_AFTER_US pokes, every POKE_EVERY_US, the first
 * request not found done with MPI_Test, which runs its poll function.
 * One request at a time and in order, as MPICH's own MPI_Waitall drives
 * ROMIO's requests (their wait_fn, each to its end before the next):
 * polling all of them in turns with MPI_Testall hangs ROMIO's concurrent
 * collective writes (MPICH's io/i_aggregation1, four MPI_File_iwrite_at_all
 * then MPI_Waitall: plain MPICH hangs too when the program loops on
 * MPI_Testall). A request a poke completes is then null to the blocking
 * call, which writes the empty status over its own: poked() keeps it and
 * puts it back, and an error a poke finds ends the call as MPICH's
 * MPI_Waitall ends at a failed request (poke_failed). */
#define POKE_AFTER_US 1000.0
#define POKE_EVERY_US 100.0
struct coop_call {
    int (*poll)(struct coop_call *c, int *done);
    int (*block)(struct coop_call *c);
    MPI_Request *reqs;
    MPI_Status *st;
    int n, src, tag;
    int next;            /* reqs before it were found complete             */
    int *idx, *outcount; /* MPI_Waitany's index, MPI_Waitsome's count and indices */
    MPI_Comm comm;
    MPI_Message *msg;
    double poke_at; /* all_done: when to poke next (0: not yet timed)   */
    MPI_Status *poked_st; /* all_done: statuses of the requests a poke
                             completed (NULL: none yet), poked[i] set  */
    unsigned char *poked;
    int poke_rc; /* the error a poke found (MPI_SUCCESS: none)          */
};

/* held: push posts held for lack of cells, as the ghost hands cells back
 * (csp_pump); returns how many are still held. A process waiting on MPICH
 * must: its held posts go out from its own calls only, and the peer of
 * one may wait for it before answering what this process waits for (four
 * threads' 1024 MPI_Bsends each, then MPI_Barrier: the barrier waited on
 * a receiver that waited on the held sends; MPICH's threads/pt2pt
 * mt_bsendrecv). */
static uint32_t held(void)
{
    csp_pump_unlocked();
    return __atomic_load_n(&csp_u.nheld, __ATOMIC_RELAXED);
}

/* A held post that goes out no sooner than this (microseconds) waits on
 * something after the blocking call: enter it. Long against a scheduler's
 * slices: with more processes than cores a ghost that is merely off the
 * CPU stalls the push for several of them, and entering the call then
 * leaves posts held behind a collective their receiver reaches only after
 * them. The cost falls on a process with more operations waiting for
 * their match than cells only, once per blocking collective. */
#define CSP_HELD_STALL_US 200000.0

void csp_coop_push_held(void)
{
    uint32_t last = held();
    double since = now_us();
    while (last) {
        csp_poke_progress(); /* MPICH's progress: sends and receives finish */
        sched_yield();       /* and a ghost sharing the core runs          */
        uint32_t n = held();
        double t = now_us();
        if (n < last)
            since = t;
        else if (t - since > CSP_HELD_STALL_US)
            return;
        last = n;
    }
}

/* yield_until waits as c->block would, polling and yielding the core
 * between polls: with more users than cores, the one a message comes from
 * may be waiting for this core (its compute's timer expired, its own post
 * to make). */
static int yield_until(struct coop_call *c)
{
    for (;;) {
        int done = 0, rc = c->poll(c, &done);
        if (rc != MPI_SUCCESS || done)
            return rc;
        csp_u.n_yields_direct++;
        sched_yield();
        (void)held();
    }
}

static int coop_wait(struct coop_call *c)
{
    for (uint32_t k = 1;; k++) {
        int nheld = held() != 0;
        if ((!nheld && !csp_coop_owed()) || (k % LEND_LIVENESS == 0 && !csp_ghost_alive()))
            return csp_u.yield_direct ? yield_until(c) : c->block(c);
        double until = now_us() + LEND_EVERY_US;
        do {
            int done = 0, rc = c->poll(c, &done);
            if (rc != MPI_SUCCESS || done)
                return rc;
        } while (now_us() < until);
        lend();
    }
}

/* coop waits as coop_wait, telling the ghost meanwhile that this process
 * computes nothing (the in-MPI word, channel.h): it may poll its windows
 * often. */
static int coop(struct coop_call *c)
{
    struct csp_chan_hdr *h = csp_u.chan; /* none without a ghost (CSP_NG=0) */
    if (h)
        csp_user_in_mpi(h, 1);
    int rc = coop_wait(c);
    if (h)
        csp_user_in_mpi(h, -1);
    return rc;
}

/* req_done: is r complete (or null, or inactive)? MPICH's
 * MPI_Request_get_status returns a complete request's error as its own:
 * that too is done, and so is a handle it refuses, whose error the
 * blocking call then reports. */
static int req_done(MPI_Request r)
{
    int flag = 0;
    return PMPI_Request_get_status(r, &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS || flag;
}

/* ready: the call's requests are done (or none is active): make the
 * blocking call, which returns at once. */
static int ready(struct coop_call *c, int *done)
{
    *done = 1;
    return c->block(c);
}

/* test1 polls for MPI_Wait: MPI_Test, whose result on completion is
 * MPI_Wait's (csp_mpich_test, as every poll here: requests on the direct
 * route stay tracked until done, route.c; a raw PMPI_Test left them
 * pending there, and a communicator's change of route never found it
 * quiescent: TestRandomizedMatchingSwitch). */
static int test1(struct coop_call *c, int *done) { return csp_mpich_test(c->reqs, done, c->st); }

/* poke_failed: reqs[i] completed with c->poke_rc. As MPICH's MPI_Waitall
 * at a failed request: those before it (found done) complete, those after
 * it stay pending, MPI_ERR_IN_STATUS with each status' error saying which. */
static int poke_failed(struct coop_call *c, int i)
{
    int rc = csp_mpich_waitall(i, c->reqs, c->st); /* done: returns at once */
    if (c->st == MPI_STATUSES_IGNORE)
        return MPI_ERR_IN_STATUS;
    if (rc == MPI_SUCCESS)
        for (int j = 0; j < i; j++)
            c->st[j].MPI_ERROR = MPI_SUCCESS;
    for (int j = 0; j < i; j++)
        if (c->poked[j])
            c->st[j] = c->poked_st[j];
    c->st[i] = c->poked_st[i];
    for (int j = i + 1; j < c->n; j++)
        c->st[j].MPI_ERROR = c->reqs[j] == MPI_REQUEST_NULL ? MPI_SUCCESS : MPI_ERR_PENDING;
    return MPI_ERR_IN_STATUS;
}

/* poked: after the blocking call (rc) that ended a wait with pokes, put
 * back the statuses it overwrote with empty ones. */
static int poked(struct coop_call *c, int rc)
{
    if (c->poke_rc == MPI_SUCCESS && c->st != MPI_STATUSES_IGNORE)
        for (int j = 0; j < c->n; j++)
            if (c->poked[j])
                c->st[j] = c->poked_st[j]; /* MPI_ERROR: MPI_SUCCESS */
    free(c->poked_st);
    return rc;
}

/* poke: MPI_Test on c->reqs[c->next], the first request not found done
 * (see above). Its status is kept for poked(); an error ends the call
 * (*done) the way MPICH's MPI_Waitall ends at a failed request. Without
 * memory to keep a status, the blocking call finishes the wait. */
static int poke(struct coop_call *c, int *done)
{
    int i = c->next, flag = 0;
    MPI_Status st;
    int rc = csp_mpich_test(&c->reqs[i], &flag, &st);
    if (rc == MPI_SUCCESS && !flag)
        return MPI_SUCCESS;
    if (!c->poked) {
        c->poked_st = malloc((size_t)c->n * (sizeof(MPI_Status) + 1));
        if (!c->poked_st) {
            *done = 1;
            return rc == MPI_SUCCESS ? c->block(c) : rc;
        }
        c->poked = (unsigned char *)(c->poked_st + c->n);
        memset(c->poked, 0, (size_t)c->n);
    }
    c->poked[i] = 1;
    c->poked_st[i] = st;
    c->poked_st[i].MPI_ERROR = rc;
    if (rc != MPI_SUCCESS) {
        c->poke_rc = rc;
        *done = 1;
        return poke_failed(c, i);
    }
    return MPI_SUCCESS; /* the next poll finds reqs[i] null, done */
}

/* all_done polls for MPI_Waitall: every request complete (null and
 * inactive ones are), by MPI_Request_get_status; past POKE_AFTER_US, a
 * poke now and then runs the first pending request's poll function (see
 * above). */
static int all_done(struct coop_call *c, int *done)
{
    for (; c->next < c->n; c->next++)
        if (!req_done(c->reqs[c->next]))
            break;
    if (c->next == c->n)
        return ready(c, done);
    double t = now_us();
    if (c->poke_at == 0) {
        c->poke_at = t + POKE_AFTER_US;
    } else if (t >= c->poke_at) {
        c->poke_at = t + POKE_EVERY_US;
        return poke(c, done);
    }
    return MPI_SUCCESS;
}

/* any_done polls for MPI_Waitany and MPI_Waitsome: MPI_Testany and
 * MPI_Testsome, whose results on completion are the waits'. With no
 * active request, MPICH's MPI_Testany leaves the status as it was where
 * MPI_Waitany writes the empty one (docs/status-fields.md, row 10): then
 * the blocking call, which returns at once, answers. */
static int any_done(struct coop_call *c, int *done)
{
    if (c->outcount) {
        int rc = csp_mpich_testsome(c->n, c->reqs, c->outcount, c->idx, c->st);
        if (rc == MPI_SUCCESS && *c->outcount == MPI_UNDEFINED)
            return ready(c, done);
        *done = rc != MPI_SUCCESS || *c->outcount != 0;
        return rc;
    }
    int rc = csp_mpich_testany(c->n, c->reqs, c->idx, done, c->st);
    if (rc == MPI_SUCCESS && *done && *c->idx == MPI_UNDEFINED)
        return ready(c, done);
    return rc;
}

static int wait1(struct coop_call *c) { return csp_mpich_wait(c->reqs, c->st); }
static int waitn(struct coop_call *c) { return csp_mpich_waitall(c->n, c->reqs, c->st); }
static int waitany(struct coop_call *c) { return csp_mpich_waitany(c->n, c->reqs, c->idx, c->st); }
static int waitsome(struct coop_call *c)
{
    return csp_mpich_waitsome(c->n, c->reqs, c->outcount, c->idx, c->st);
}
/* MPI_Iprobe's answer is MPI_Probe's; MPI_Improbe's is MPI_Mprobe's (it
 * matched the message). */
static int iprobe(struct coop_call *c, int *done)
{
    return PMPI_Iprobe(c->src, c->tag, c->comm, done, c->st);
}
static int probe(struct coop_call *c) { return PMPI_Probe(c->src, c->tag, c->comm, c->st); }
static int improbe(struct coop_call *c, int *done)
{
    return PMPI_Improbe(c->src, c->tag, c->comm, done, c->msg, c->st);
}
static int mprobe(struct coop_call *c) { return PMPI_Mprobe(c->src, c->tag, c->comm, c->msg, c->st); }

int csp_coop_wait_lending(MPI_Request *req, MPI_Status *st)
{
    struct coop_call c = {.poll = test1, .block = wait1, .reqs = req, .st = st, .n = 1};
    return coop(&c);
}

int csp_coop_waitall_lending(int n, MPI_Request *reqs, MPI_Status *sts)
{
    struct coop_call c = {.poll = all_done, .block = waitn, .reqs = reqs, .st = sts, .n = n};
    int rc = coop(&c);
    return c.poked ? poked(&c, rc) : rc;
}

int csp_coop_waitany(int n, MPI_Request *reqs, int *idx, MPI_Status *st)
{
    struct coop_call c = {.poll = any_done, .block = waitany, .reqs = reqs, .st = st, .n = n, .idx = idx};
    return coop(&c);
}

int csp_coop_waitsome(int n, MPI_Request *reqs, int *outcount, int *idx, MPI_Status *sts)
{
    struct coop_call c = {.poll = any_done, .block = waitsome, .reqs = reqs, .st = sts, .n = n,
                          .idx = idx, .outcount = outcount};
    return coop(&c);
}

int csp_coop_probe(int src, int tag, MPI_Comm comm, MPI_Status *st)
{
    struct coop_call c = {.poll = iprobe, .block = probe, .st = st, .src = src, .tag = tag, .comm = comm};
    return coop(&c);
}

int csp_coop_mprobe(int src, int tag, MPI_Comm comm, MPI_Message *msg, MPI_Status *st)
{
    struct coop_call c = {.poll = improbe, .block = mprobe, .st = st, .src = src, .tag = tag,
                          .comm = comm, .msg = msg};
    return coop(&c);
}

void csp_coop_test_miss(void)
{
    static double last;
    static int streak;
    if (!csp_u.lend)
        return;
    double t = now_us();
    streak = t - last <= TIGHT_MISS_US ? streak + 1 : 0;
    last = t;
    if (streak >= TIGHT_MISSES && csp_coop_owed()) {
        streak = 0;
        lend();
        last = now_us();
    }
}
