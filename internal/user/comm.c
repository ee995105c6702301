/* comm.c: the communicator table. Entries are built by Go (comm.go). */
#include "user.h"

#include <stdlib.h>

static int ctab_grow(void)
{
    size_t cap = csp_u.ctab_mask ? (csp_u.ctab_mask + 1) * 2 : 64;
    MPI_Comm *keys = calloc(cap, sizeof(*keys));
    struct csp_comm **vals = calloc(cap, sizeof(*vals));
    if (!keys || !vals) {
        free(keys);
        free(vals);
        return -1;
    }
    size_t ocap = csp_u.ctab_mask ? csp_u.ctab_mask + 1 : 0;
    for (size_t i = 0; i < ocap; i++) {
        struct csp_comm *v = csp_u.ctab_vals[i];
        if (!v)
            continue;
        size_t j = csp_comm_hash(v->comm) & (cap - 1);
        while (vals[j])
            j = (j + 1) & (cap - 1);
        keys[j] = v->comm;
        vals[j] = v;
    }
    free(csp_u.ctab_keys);
    free(csp_u.ctab_vals);
    csp_u.ctab_keys = keys;
    csp_u.ctab_vals = vals;
    csp_u.ctab_mask = cap - 1;
    return 0;
}

/* An entry leaving the table is no longer watched (route.go: Watch). */
static void unwatch(struct csp_comm *c)
{
    if (c->watch) {
        c->watch = 0;
        csp_u.nwatch--;
    }
}

struct csp_comm *csp_comm_find(MPI_Comm comm)
{
    if (csp_u.ctab_used == 0)
        return NULL;
    size_t i = csp_comm_hash(comm) & csp_u.ctab_mask;
    for (;;) {
        struct csp_comm *v = csp_u.ctab_vals[i];
        if (!v)
            return NULL;
        if (csp_u.ctab_keys[i] == comm)
            return csp_u.ctab_last = v;
        i = (i + 1) & csp_u.ctab_mask;
    }
}

int csp_comm_put(struct csp_comm *c)
{
    if (csp_u.pprobe.entry && csp_u.pprobe.entry->comm == c->comm)
        csp_pprobe_drop(); /* the entry it was posted on is replaced (pprobe.c) */
    csp_u.ctab_last = NULL;
    if ((csp_u.ctab_used + 1) * 2 > (csp_u.ctab_mask ? csp_u.ctab_mask + 1 : 0) && ctab_grow() != 0)
        return -1;
    size_t i = csp_comm_hash(c->comm) & csp_u.ctab_mask;
    while (csp_u.ctab_vals[i] && csp_u.ctab_keys[i] != c->comm)
        i = (i + 1) & csp_u.ctab_mask;
    if (csp_u.ctab_vals[i]) {
        /* Replaced: the old entry points to its successor (persistent
         * requests follow it, persist.c), and the table drops it. */
        struct csp_comm *old = csp_u.ctab_vals[i];
        unwatch(old);
        c->refs++;
        old->next = c;
        csp_comm_unref(old);
    } else
        csp_u.ctab_used++;
    csp_u.ctab_keys[i] = c->comm;
    csp_u.ctab_vals[i] = c;
    return 0;
}

struct csp_comm *csp_comm_take(MPI_Comm comm)
{
    csp_u.ctab_last = NULL;
    if (csp_u.ctab_used == 0)
        return NULL;
    size_t m = csp_u.ctab_mask;
    size_t i = csp_comm_hash(comm) & m;
    while (csp_u.ctab_vals[i] && csp_u.ctab_keys[i] != comm)
        i = (i + 1) & m;
    struct csp_comm *found = csp_u.ctab_vals[i];
    if (!found)
        return NULL;
    unwatch(found);
    size_t j = i;
    for (;;) { /* backward-shift deletion, as in greq.c */
        csp_u.ctab_vals[i] = NULL;
        for (;;) {
            j = (j + 1) & m;
            if (!csp_u.ctab_vals[j]) {
                csp_u.ctab_used--;
                return found;
            }
            size_t home = csp_comm_hash(csp_u.ctab_keys[j]) & m;
            if (i <= j ? (home <= i || home > j) : (home <= i && home > j))
                break;
        }
        csp_u.ctab_keys[i] = csp_u.ctab_keys[j];
        csp_u.ctab_vals[i] = csp_u.ctab_vals[j];
        i = j;
    }
}

void csp_comm_destroy(struct csp_comm *c)
{
    csp_pprobe_forget(c);
    if (c->next)
        csp_comm_unref(c->next);
    free(c->slots);
    free(c->ghost);
    free(c->off);
    free(c->rev);
    free(c);
}

int csp_comm_rank_of(const struct csp_comm *c, int ghost, int off)
{
    int64_t key = (int64_t)ghost << 16 | (int64_t)off;
    int lo = 0, hi = c->nrev - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (c->rev[mid].key == key)
            return c->rev[mid].rank;
        if (c->rev[mid].key < key)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -1;
}

/* For Go (comm.go). The table is read by every fast-path call: change it
 * under the lock (MPI_THREAD_MULTIPLE). */
struct csp_comm *csp_comm_detach(MPI_Comm comm)
{
    CSP_LOCK();
    struct csp_comm *c = csp_comm_take(comm);
    CSP_UNLOCK();
    return c;
}
void csp_comm_release(struct csp_comm *c)
{
    CSP_LOCK();
    csp_comm_unref(c);
    CSP_UNLOCK();
}
int csp_comm_refs(MPI_Comm comm)
{
    CSP_LOCK();
    struct csp_comm *c = csp_comm_get(comm);
    int refs = c ? c->refs : 0;
    CSP_UNLOCK();
    return refs;
}

/* dup copies n int32 (NULL for none), or fails. */
static int dup32(int32_t **dst, const int32_t *src, int n)
{
    *dst = NULL;
    if (!src)
        return 0;
    *dst = malloc(sizeof(int32_t) * (size_t)(n > 0 ? n : 1));
    if (!*dst)
        return -1;
    for (int i = 0; i < n; i++)
        (*dst)[i] = src[i];
    return 0;
}

/* Install a copy of template t (an entry Go built and never installed:
 * comm.go, NewEntry) in the table, with the shmbuf_regist hint regist: a
 * switch of route back to a plan the communicator had, in one call and
 * without rebuilding the plan's tables. t was never in the table, so every
 * field is as NewEntry left it: its counts are zero, as every newly
 * installed entry's must be (route.c). The copy is t's, field for field,
 * with tables of its own. 0, or -1 out of memory. */
int csp_comm_install_copy(const struct csp_comm *t, int regist)
{
    struct csp_comm *c = malloc(sizeof(*c));
    if (!c)
        return -1;
    *c = *t;
    c->refs = 1;
    c->regist = (uint8_t)(regist != 0);
    c->watch = 0;
    c->fam = NULL;
    c->next = NULL;
    c->slots = c->ghost = c->off = NULL;
    c->rev = NULL;
    int failed = dup32(&c->slots, t->slots, t->nslots) || dup32(&c->ghost, t->ghost, t->size) ||
                 dup32(&c->off, t->off, t->size);
    if (!failed && t->rev) {
        c->rev = malloc(sizeof(*c->rev) * (size_t)(t->nrev > 0 ? t->nrev : 1));
        failed = !c->rev;
        for (int i = 0; !failed && i < t->nrev; i++)
            c->rev[i] = t->rev[i];
    }
    CSP_LOCK();
    int rc = failed ? -1 : csp_comm_put(c);
    if (rc != 0)
        csp_comm_unref(c);
    CSP_UNLOCK();
    return rc;
}
