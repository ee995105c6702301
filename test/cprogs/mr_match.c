/*
 * mr_match: the matching rules of wildcard receives and of senders that
 * share a ghost, on an offloaded communicator (see mr_common.c for the
 * command line and output). Rank 0 receives and reports; the others send.
 *
 * Sections (each runs only in the modes that allow its wildcards):
 *   anytag  (MPI_ANY_TAG allowed) anytag-posted, anytag-unexpected: every
 *           other rank sends two messages with distinct tags and counts;
 *           rank 0 receives them with a specific source and MPI_ANY_TAG,
 *           posted before the sends or after them. Each receive returns
 *           the real tag, count and data, in sending order. On 2 users per
 *           ghost two senders share a ghost.
 *   anysrc  (MPI_ANY_SOURCE allowed) anysrc-anytag: one message from
 *           every other rank, received with (ANY_SOURCE, ANY_TAG): every
 *           sender exactly once, real source, tag, count, data.
 *           anysrc-tag: received with (ANY_SOURCE, the sender's tag),
 *           rank 0 sending to itself too: the real source each time.
 *   bytag   (MPI_ANY_SOURCE allowed) anysrc-bytag: every rank (0 included)
 *           sends three tags of its own, in decreasing tag order; rank 0
 *           receives by tag with MPI_ANY_SOURCE, some receives posted
 *           before the sends and the rest after, in a scrambled order: each
 *           gets its tag's message (source, count, data).
 *   shared  (4 users or more: a = rank 0, b1 = size-2, b2 = size-1, b1 and
 *           b2 behind one ghost) the design's example: a posts
 *           Irecv(from b2) then Irecv(from b1), both tag 0; b1 sends and
 *           completes first, then signals b2, which sends. The receive from
 *           b2 gets b2's data. shared-posted (receives posted first),
 *           shared-unexpected (posted after both sends completed), and
 *           where MPI_ANY_TAG is allowed the same with (b, ANY_TAG)
 *           receives and tags 7 (b1) and 8 (b2): shared-anytag-posted,
 *           shared-anytag-unexpected.
 */
#include "mr_common.c"

#define MAXC 64

/* anytag: two messages from every other rank, received by source with
 * MPI_ANY_TAG. */
static void anytag(int posted_first)
{
    const char *name = posted_first ? "anytag-posted" : "anytag-unexpected";
    int base = posted_first ? 100 : 150;
    if (rank == 0) {
        int n = 2 * (size - 1);
        int (*buf)[MAXC] = calloc((size_t)n, sizeof(*buf));
        MPI_Request *q = malloc(sizeof(MPI_Request) * (size_t)n);
        MPI_Status *st = malloc(sizeof(MPI_Status) * (size_t)n);
        if (!posted_first)
            MPI_Barrier(plain);
        /* descending source order: the receives for the later sender of a
         * ghost pair come first */
        for (int r = size - 1, k = 0; r >= 1; r--)
            for (int m = 0; m < 2; m++, k++) {
                POST_R(comm);
                MPI_Irecv(buf[k], MAXC, MPI_INT, r, MPI_ANY_TAG, comm, &q[k]);
            }
        if (posted_first)
            MPI_Barrier(plain);
        MPI_Waitall(n, q, st);
        int ok = 1;
        char bad[256] = "";
        for (int r = size - 1, k = 0; r >= 1; r--)
            for (int m = 0; m < 2; m++, k++) {
                int tag = base + 2 * r + m, cnt = 1 + r + 4 * m;
                if (!status_is(&st[k], r, tag, cnt) || !check(buf[k], cnt, r, tag)) {
                    if (ok)
                        snprintf(bad, sizeof(bad), " want=%d:%d:%d got=%d:%d:%d", r, tag, cnt,
                                 st[k].MPI_SOURCE, st[k].MPI_TAG, count_of(&st[k]));
                    ok = 0;
                }
            }
        report(name, ok, "receives=%d%s", n, bad);
        free(buf);
        free(q);
        free(st);
    } else {
        int sb[2][MAXC];
        MPI_Request q[2];
        if (posted_first)
            MPI_Barrier(plain);
        for (int m = 0; m < 2; m++) {
            int tag = base + 2 * rank + m, cnt = 1 + rank + 4 * m;
            fill(sb[m], cnt, rank, tag);
            POST_S(comm);
            MPI_Isend(sb[m], cnt, MPI_INT, 0, tag, comm, &q[m]);
        }
        if (!posted_first)
            MPI_Barrier(plain);
        MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
    }
}

/* anysrc-anytag: (ANY_SOURCE, ANY_TAG) receives, one message per sender. */
static void anysrc_anytag(void)
{
    if (rank == 0) {
        int n = size - 1;
        int (*buf)[MAXC] = calloc((size_t)n, sizeof(*buf));
        MPI_Request *q = malloc(sizeof(MPI_Request) * (size_t)n);
        MPI_Status *st = malloc(sizeof(MPI_Status) * (size_t)n);
        int *seen = calloc((size_t)size, sizeof(int));
        for (int k = 0; k < n; k++) {
            POST_R(comm);
            MPI_Irecv(buf[k], MAXC, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &q[k]);
        }
        MPI_Barrier(plain);
        MPI_Waitall(n, q, st);
        int ok = 1;
        char got[256] = "";
        for (int k = 0; k < n; k++) {
            int s = st[k].MPI_SOURCE;
            size_t l = strlen(got);
            snprintf(got + l, sizeof(got) - l, "%s%d:%d:%d", k ? "," : "", s, st[k].MPI_TAG,
                     count_of(&st[k]));
            if (s < 1 || s >= size || seen[s]++ || !status_is(&st[k], s, 200 + s, 2 + s) ||
                !check(buf[k], 2 + s, s, 200 + s))
                ok = 0;
        }
        report("anysrc-anytag", ok, "got=%s", got);
        free(buf);
        free(q);
        free(st);
        free(seen);
    } else {
        int sb[MAXC];
        fill(sb, 2 + rank, rank, 200 + rank);
        MPI_Barrier(plain);
        POST_S(comm);
        MPI_Send(sb, 2 + rank, MPI_INT, 0, 200 + rank, comm);
    }
}

/* anysrc-tag: (ANY_SOURCE, tag of a sender) receives; rank 0 sends to
 * itself too. The receives are posted after the sends. */
static void anysrc_tag(void)
{
    int sb[MAXC];
    MPI_Request sq;
    fill(sb, 3 + rank, rank, 300 + rank);
    POST_S(comm);
    MPI_Isend(sb, 3 + rank, MPI_INT, 0, 300 + rank, comm, &sq);
    MPI_Barrier(plain);
    if (rank == 0) {
        int (*buf)[MAXC] = calloc((size_t)size, sizeof(*buf));
        MPI_Request *q = malloc(sizeof(MPI_Request) * (size_t)size);
        MPI_Status *st = malloc(sizeof(MPI_Status) * (size_t)size);
        for (int r = size - 1; r >= 0; r--) {
            POST_R(comm);
            MPI_Irecv(buf[r], MAXC, MPI_INT, MPI_ANY_SOURCE, 300 + r, comm, &q[r]);
        }
        MPI_Waitall(size, q, st);
        int ok = 1;
        char got[256] = "";
        for (int r = 0; r < size; r++) {
            size_t l = strlen(got);
            snprintf(got + l, sizeof(got) - l, "%s%d:%d:%d", r ? "," : "", st[r].MPI_SOURCE,
                     st[r].MPI_TAG, count_of(&st[r]));
            if (!status_is(&st[r], r, 300 + r, 3 + r) || !check(buf[r], 3 + r, r, 300 + r))
                ok = 0;
        }
        report("anysrc-tag", ok, "got=%s", got);
        free(buf);
        free(q);
        free(st);
    }
    MPI_Wait(&sq, MPI_STATUS_IGNORE);
}

/* anysrc-bytag: three tags per sender (rank 0 included), received by tag
 * with MPI_ANY_SOURCE. */
#define BYTAG(r, k) (400 + 3 * (r) + (k))
static void anysrc_bytag(void)
{
    int sb[3][MAXC];
    MPI_Request sq[3];
    int n = 3 * size;
    int (*buf)[MAXC] = NULL;
    MPI_Request *q = NULL;
    MPI_Status *st = NULL;
    if (rank == 0) {
        buf = calloc((size_t)n, sizeof(*buf));
        q = malloc(sizeof(MPI_Request) * (size_t)n);
        st = malloc(sizeof(MPI_Status) * (size_t)n);
        /* before the sends: the k=1 tag of every sender */
        for (int r = 0; r < size; r++) {
            POST_R(comm);
            MPI_Irecv(buf[3 * r + 1], MAXC, MPI_INT, MPI_ANY_SOURCE, BYTAG(r, 1), comm,
                      &q[3 * r + 1]);
        }
    }
    MPI_Barrier(plain);
    for (int k = 2; k >= 0; k--) {
        int cnt = 1 + k + rank;
        fill(sb[k], cnt, rank, BYTAG(rank, k));
        POST_S(comm);
        MPI_Isend(sb[k], cnt, MPI_INT, 0, BYTAG(rank, k), comm, &sq[k]);
    }
    MPI_Barrier(plain);
    if (rank == 0) {
        /* after: the others, senders in a scrambled order */
        for (int j = 0; j < size; j++) {
            int r = (j * 3 + 1) % size;
            for (int k = 0; k <= 2; k += 2) {
                POST_R(comm);
                MPI_Irecv(buf[3 * r + k], MAXC, MPI_INT, MPI_ANY_SOURCE, BYTAG(r, k), comm,
                          &q[3 * r + k]);
            }
        }
        MPI_Waitall(n, q, st);
        int ok = 1;
        char bad[256] = "";
        for (int r = 0; r < size; r++)
            for (int k = 0; k < 3; k++) {
                MPI_Status *s = &st[3 * r + k];
                int cnt = 1 + k + r;
                if (!status_is(s, r, BYTAG(r, k), cnt) ||
                    !check(buf[3 * r + k], cnt, r, BYTAG(r, k))) {
                    if (ok)
                        snprintf(bad, sizeof(bad), " want=%d:%d:%d got=%d:%d:%d", r, BYTAG(r, k),
                                 cnt, s->MPI_SOURCE, s->MPI_TAG, count_of(s));
                    ok = 0;
                }
            }
        report("anysrc-bytag", ok, "receives=%d%s", n, bad);
        free(buf);
        free(q);
        free(st);
    }
    MPI_Waitall(3, sq, MPI_STATUSES_IGNORE);
}

/* shared: senders b1, b2 behind one ghost, both to a = 0. */
static void shared(int anytag_recv, int posted_first)
{
    char name[64];
    snprintf(name, sizeof(name), "shared%s-%s", anytag_recv ? "-anytag" : "",
             posted_first ? "posted" : "unexpected");
    int b1 = size - 2, b2 = size - 1;
    int t1 = anytag_recv ? 7 : 0, t2 = anytag_recv ? 8 : 0;
    int c1 = 3, c2 = 5;
    if (rank == 0) {
        int r2[MAXC] = {0}, r1[MAXC] = {0};
        MPI_Request q[2];
        MPI_Status st[2];
        int spec = anytag_recv ? MPI_ANY_TAG : 0;
        if (!posted_first)
            signal_from(b2); /* both messages are out */
        POST_R(comm);
        MPI_Irecv(r2, MAXC, MPI_INT, b2, spec, comm, &q[0]);
        POST_R(comm);
        MPI_Irecv(r1, MAXC, MPI_INT, b1, spec, comm, &q[1]);
        if (posted_first)
            signal_to(b1, 0);
        MPI_Waitall(2, q, st);
        int ok2 = status_is(&st[0], b2, t2, c2) && check(r2, c2, b2, t2 + 1000);
        int ok1 = status_is(&st[1], b1, t1, c1) && check(r1, c1, b1, t1 + 1000);
        report(name, ok1 && ok2, "from_b2=%d:%d:%d:data=%d from_b1=%d:%d:%d:data=%d",
               st[0].MPI_SOURCE, st[0].MPI_TAG, count_of(&st[0]), check(r2, c2, b2, t2 + 1000),
               st[1].MPI_SOURCE, st[1].MPI_TAG, count_of(&st[1]), check(r1, c1, b1, t1 + 1000));
    } else if (rank == b1) {
        int sb[MAXC];
        fill(sb, c1, b1, t1 + 1000);
        if (posted_first)
            signal_from(0);
        MPI_Request q;
        POST_S(comm);
        MPI_Isend(sb, c1, MPI_INT, 0, t1, comm, &q);
        MPI_Wait(&q, MPI_STATUS_IGNORE); /* out before b2 sends */
        signal_to(b2, 0);
    } else if (rank == b2) {
        int sb[MAXC];
        fill(sb, c2, b2, t2 + 1000);
        signal_from(b1);
        MPI_Request q;
        POST_S(comm);
        MPI_Isend(sb, c2, MPI_INT, 0, t2, comm, &q);
        MPI_Wait(&q, MPI_STATUS_IGNORE);
        if (!posted_first)
            signal_to(0, 0);
    }
    MPI_Barrier(plain);
}

static void run_mode(void)
{
    if (anytag_ok && !skipped("anytag")) {
        anytag(1);
        MPI_Barrier(plain);
        anytag(0);
        MPI_Barrier(plain);
    }
    if (anysrc_ok && !skipped("anysrc")) {
        if (anytag_ok)
            anysrc_anytag();
        MPI_Barrier(plain);
        anysrc_tag();
        MPI_Barrier(plain);
    }
    if (anysrc_ok && !skipped("bytag")) {
        anysrc_bytag();
        MPI_Barrier(plain);
    }
    if (size >= 4 && !skipped("shared")) {
        shared(0, 1);
        shared(0, 0);
        if (anytag_ok) {
            shared(1, 1);
            shared(1, 0);
        }
    }
}
