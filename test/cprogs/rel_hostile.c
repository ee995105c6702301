/*
 * rel_hostile: user 0 acts as a broken (or hostile) user: through the test
 * hooks it writes cells the fast path would never write and publishes
 * them, bypassing every check. Its ghost must validate what it reads,
 * complete each such cell with an MPI error class and a log line, and
 * keep serving: user 0's next valid operations and its other users.
 *
 *   rel_hostile cells   the bad cells, each followed by a checked
 *                       ping-pong between users 0 and 1 (who share a ghost)
 *   rel_hostile ring    user 0 corrupts its submission ring's tail; the
 *                       ghost stops serving it; the other users go on
 *
 * Output:
 *   result rank=0 test=hostile case=<name> ok=<0|1> class=<got> want=<want>
 *   result rank=<r> test=served case=<name> ok=<0|1>   (ping-pong after a case)
 *   result rank=<r> test=others ok=<0|1> rounds=<n>    (users 2.. exchanging)
 */
#define _GNU_SOURCE
#include "rel_hooks.h"

#include <string.h>
#include <time.h>
#include <unistd.h>

#define PP_INTS 4096

static int rank, size, bad;
static MPI_Comm c;
static int *pp; /* registered ping-pong buffer */

static void pause_ms(int ms) { nanosleep(&(struct timespec){ms / 1000, (ms % 1000) * 1000000L}, NULL); }

/* One checked ping-pong between users 0 and 1 on the offloaded c. */
static void pingpong(const char *name, int round)
{
    if (rank > 1)
        return;
    int ok = 1;
    if (rank == 0) {
        for (int i = 0; i < PP_INTS; i++)
            pp[i] = round * 1000003 + i;
        MPI_Send(pp, PP_INTS, MPI_INT, 1, 10, c);
        memset(pp, 0, PP_INTS * sizeof(int));
        MPI_Recv(pp, PP_INTS, MPI_INT, 1, 11, c, MPI_STATUS_IGNORE);
        for (int i = 0; i < PP_INTS; i++)
            ok &= pp[i] == -(round * 1000003 + i);
    } else {
        MPI_Recv(pp, PP_INTS, MPI_INT, 0, 10, c, MPI_STATUS_IGNORE);
        for (int i = 0; i < PP_INTS; i++) {
            ok &= pp[i] == round * 1000003 + i;
            pp[i] = -pp[i];
        }
        MPI_Send(pp, PP_INTS, MPI_INT, 0, 11, c);
    }
    printf("result rank=%d test=served case=%s ok=%d\n", rank, name, ok);
    bad += !ok;
}

/* Users 2.. exchange in a ring, rounds times. */
static void others(int rounds)
{
    if (rank < 2 || size < 4)
        return;
    int next = 2 + (rank - 2 + 1) % (size - 2), prev = 2 + (rank - 2 + size - 3) % (size - 2);
    int ok = 1, x, y;
    for (int i = 0; i < rounds; i++) {
        MPI_Request r[2];
        x = rank * 100000 + i;
        MPI_Irecv(&y, 1, MPI_INT, prev, 20, c, &r[0]);
        MPI_Isend(&x, 1, MPI_INT, next, 20, c, &r[1]);
        MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
        ok &= y == prev * 100000 + i;
    }
    printf("result rank=%d test=others ok=%d rounds=%d\n", rank, ok, rounds);
    bad += !ok;
}

struct hcase {
    const char *name;
    int want; /* MPI error class; -1: no completion expected */
    void (*edit)(struct csp_cell *l);
};

static uint32_t reg_seg; /* segment of the registered buffer */

static void e_seg_range(struct csp_cell *l) { l->seg = 100000; }
static void e_seg_unused(struct csp_cell *l) { l->seg = 255; /* the last entry of the segment table: never used here */ }
static void e_off_beyond(struct csp_cell *l) { l->off = 1ull << 40; }
static void e_off_wrap(struct csp_cell *l) { l->off = ~0ull - 7, l->nbytes = 16; }
static void e_len_beyond(struct csp_cell *l) { l->nbytes = 1ull << 40; }
static void e_len_int(struct csp_cell *l) { l->nbytes = 1ull << 31; }
static void e_len_count(struct csp_cell *l) { l->nbytes = 1ull << 63; }
static void e_peer_range(struct csp_cell *l) { l->peer = 1 << 20; }
static void e_peer_neg(struct csp_cell *l) { l->peer = -7; }
static void e_slot_range(struct csp_cell *l) { l->slot = 1 << 20; }
static void e_slot_neg(struct csp_cell *l) { l->slot = -1; }
static void e_tag_range(struct csp_cell *l) { l->tag = 0x7fffffff; }
static void e_tag_neg(struct csp_cell *l) { l->tag = -3; }
static void e_op(struct csp_cell *l) { l->op = 77; }
static void e_mode(struct csp_cell *l) { l->mode = 9; }
static void e_recv_anytag_send(struct csp_cell *l) { l->op = CSP_OP_SEND, l->peer = MPI_ANY_SOURCE; }
static void e_cancel_target(struct csp_cell *l)
{
    l->op = CSP_OP_CANCEL, l->seg = CSP_SEG_NONE, l->nbytes = 0, l->target = 1u << 30, l->target_gen = 1;
}
static void e_segment_target(struct csp_cell *l)
{
    l->op = CSP_OP_SEGMENT, l->seg = CSP_SEG_NONE, l->nbytes = 0, l->target = 100000;
}
static void e_mrecv_unknown(struct csp_cell *l) { l->op = CSP_OP_MRECV, l->target = 987654; }

static const struct hcase cases[] = {
    {"seg-out-of-range", MPI_ERR_BUFFER, e_seg_range},
    {"seg-unused", MPI_ERR_BUFFER, e_seg_unused},
    {"offset-beyond", MPI_ERR_BUFFER, e_off_beyond},
    {"offset-wraps", MPI_ERR_BUFFER, e_off_wrap},
    {"length-beyond", MPI_ERR_BUFFER, e_len_beyond},  /* past its segment */
    {"length-over-int", MPI_ERR_BUFFER, e_len_int},   /* legal (MPI_Isend_c), past its segment */
    {"length-over-count", MPI_ERR_COUNT, e_len_count}, /* no MPI_Count holds it */
    {"peer-out-of-range", MPI_ERR_RANK, e_peer_range},
    {"peer-negative", MPI_ERR_RANK, e_peer_neg},
    {"slot-out-of-range", MPI_ERR_ARG, e_slot_range},
    {"slot-negative", MPI_ERR_ARG, e_slot_neg},
    {"tag-out-of-range", MPI_ERR_TAG, e_tag_range},
    {"tag-negative", MPI_ERR_TAG, e_tag_neg},
    {"op-unknown", MPI_ERR_ARG, e_op},
    {"mode-unknown", MPI_ERR_ARG, e_mode},
    {"send-to-any-source", MPI_ERR_RANK, e_recv_anytag_send},
    {"cancel-target-out-of-range", MPI_ERR_ARG, e_cancel_target},
    {"segment-target-out-of-range", MPI_ERR_ARG, e_segment_target},
    {"mrecv-unknown-message", MPI_ERR_REQUEST, e_mrecv_unknown},
};

static int hostile_cells(void)
{
    rel_publish_raw_fn publish = (rel_publish_raw_fn)rel_need("csp_test_publish_raw");
    rel_reap_fn reap = (rel_reap_fn)rel_need("csp_test_reap");
    rel_push_index_fn push = (rel_push_index_fn)rel_need("csp_test_push_index");
    rel_locate_fn locate = (rel_locate_fn)rel_need("csp_test_locate");
    int ncases = (int)(sizeof cases / sizeof cases[0]);
    uint64_t reg_off = 0;
    if (rank == 0 && locate(pp, PP_INTS * sizeof(int), &reg_seg, &reg_off) != 1) {
        fprintf(stderr, "rel_hostile: the registered buffer is not in the shared heap\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    pingpong("before", 0);
    for (int k = 0; k < ncases; k++) {
        if (rank == 0) {
            /* A well-formed send of the registered buffer to world rank
             * 0, then one field made bad. */
            struct csp_cell l, res;
            memset(&l, 0, sizeof l);
            l.op = CSP_OP_SEND;
            l.mode = CSP_MATCH_NATIVE;
            l.slot = 0;
            l.peer = 0;
            l.tag = 5;
            l.seg = reg_seg;
            l.off = reg_off;
            l.nbytes = 64;
            cases[k].edit(&l);
            int64_t idx = publish(&l, 0);
            int got = -1, done = idx >= 0 ? reap((uint32_t)idx, 10000, &res) : -1;
            if (done == 1)
                got = res.st_error;
            int ok = done == 1 && got == cases[k].want;
            printf("result rank=0 test=hostile case=%s ok=%d class=%d want=%d cell=%lld\n", cases[k].name, ok,
                   got, cases[k].want, (long long)idx);
            bad += !ok;
        }
        pingpong(cases[k].name, k + 1);
    }
    if (rank == 0) {
        /* Values on the ring that are no cell index, and a cell with
         * generation 0 (never a published one): the ghost logs them and
         * completes nothing. */
        int ok = push(1ull << 40) == 0 && push(~0ull) == 0;
        struct csp_cell l;
        memset(&l, 0, sizeof l);
        l.op = CSP_OP_SEND;
        l.gen = 0;
        ok &= publish(&l, 1) >= 0;
        printf("result rank=0 test=hostile case=ring-values ok=%d\n", ok);
        bad += !ok;
    }
    pingpong("ring-values", ncases + 1);
    others(2000);
    return 0;
}

static int hostile_ring(void)
{
    rel_corrupt_tail_fn corrupt = (rel_corrupt_tail_fn)rel_need("csp_test_corrupt_tail");
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        corrupt();
        pause_ms(500); /* leave the ghost time to look (any push repairs the tail) */
        printf("result rank=0 test=hostile case=corrupt-tail ok=1\n");
        /* The ghost no longer serves this process: no offloaded operation
         * until MPI_Finalize (which then reports the error). */
    } else if (rank == 1) {
        pause_ms(300);
        /* User 1 shares the ghost with user 0: still served. */
        int ok = 1, x = 0;
        MPI_Request r[2];
        for (int i = 0; i < 500; i++) {
            int y = i;
            MPI_Irecv(&x, 1, MPI_INT, 1, 30, c, &r[0]);
            MPI_Isend(&y, 1, MPI_INT, 1, 30, c, &r[1]);
            MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
            ok &= x == i;
        }
        printf("result rank=1 test=served case=corrupt-tail ok=%d\n", ok);
        bad += !ok;
    }
    others(2000);
    return 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "wildcard_used", "none");
    MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &c);
    MPI_Info_set(info, "shmbuf_regist", "true");
    MPI_Alloc_mem(PP_INTS * sizeof(int), info, &pp);
    MPI_Info_free(&info);
    printf("result rank=%d test=ready ok=1 algo=%d\n", rank, rel_comm_algo(c));
    const char *mode = argc > 1 ? argv[1] : "cells";
    if (strcmp(mode, "ring") == 0)
        hostile_ring();
    else
        hostile_cells();
    fflush(stdout);
    if (!(strcmp(mode, "ring") == 0 && rank == 0))
        MPI_Free_mem(pp);
    int rc = MPI_Finalize();
    if (strcmp(mode, "ring") == 0 && rank == 0)
        printf("result rank=0 test=finalize ok=1 rc=%d\n", rc);
    return bad != 0;
}
