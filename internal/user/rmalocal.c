/*
 * rmalocal.c: node-local windows (rma.h states the design). Every origin
 * maps each member's heap segment, as the member's ghost does, and keeps
 * a window over the mapping on MPI_COMM_SELF, through which MPICH applies
 * the operations with every datatype and op it knows; atomic operations
 * hold the member's mutex, and locks are the member's lock word, both in
 * the member's header and taken with the CPU's atomics.
 *
 * A mapping (struct csp_rma_lseg) is shared by the windows that use it
 * and outlives them: making the self window costs about 0.1 ms, and
 * programs that allocate and free windows in loops (coarray runtimes, one
 * per allocation) reuse the segment. It is keyed by the member's process,
 * segment index and the segment's generation (channel.h: struct
 * csp_seg_entry): a segment the member removed and made again is mapped
 * anew, and the unused mapping of the old one goes then, or at
 * MPI_Finalize.
 */
#include "rma.h"
#include "dtype.h"

#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

struct csp_rma_lseg {
    int64_t pid;               /* the member's process                      */
    uint32_t idx, gen;         /* its segment index and generation          */
    char *base;                /* the segment here                          */
    uint64_t size;             /* its bytes                                 */
    int mapped;                /* mmap'ed here (another process's segment)  */
    int transient;             /* held a shared window's memory: released as
                                  soon as no window uses it (each shared
                                  window's memory is a memfd of its own,
                                  whose pages a kept mapping would hold)    */
    MPI_Win win;               /* the self window over it                   */
    int refs;                  /* windows using it                          */
    struct csp_rma_lseg *next;
};

/* The mappings, under mu (windows of MPI_THREAD_MULTIPLE programs are
 * made and freed on several threads). */
static struct csp_rma_lseg *segs;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

int csp_rma_local_mine(const void *p, size_t n, int64_t out[CSP_RMA_SEG_N])
{
    uint32_t seg;
    uint64_t off;
    memset(out, 0, sizeof(int64_t) * CSP_RMA_SEG_N);
    if (n == 0)
        return 1; /* no bytes: nothing to map (pid 0) */
    CSP_LOCK();
    int ok = p && csp_heap_find(csp_u.heap, p, n, &seg, &off);
    if (ok) {
        out[CSP_RMA_SEG_PID] = (int64_t)getpid();
        out[CSP_RMA_SEG_FD] = csp_u.heap->seg[seg].fd;
        out[CSP_RMA_SEG_IDX] = seg;
        out[CSP_RMA_SEG_GEN] = csp_u.heap->table[seg].gen;
        out[CSP_RMA_SEG_SIZE] = (int64_t)csp_u.heap->seg[seg].size;
        out[CSP_RMA_SEG_OFF] = (int64_t)off;
    }
    CSP_UNLOCK();
    return ok;
}

static void seg_release(struct csp_rma_lseg *s)
{
    PMPI_Win_unlock_all(s->win);
    PMPI_Win_detach(s->win, s->base);
    PMPI_Win_free(&s->win);
    if (s->mapped)
        munmap(s->base, s->size);
    free(s);
}

/* seg_open maps the segment f names (a member's CSP_RMA_SEG_* fields),
 * makes its self window and takes a reference; NULL if it cannot (the
 * segment is gone, the descriptor names something else, /proc refuses).
 * Called with mu held. */
static struct csp_rma_lseg *seg_open(const int64_t *f)
{
    int64_t pid = f[CSP_RMA_SEG_PID], size = f[CSP_RMA_SEG_SIZE];
    uint32_t idx = (uint32_t)f[CSP_RMA_SEG_IDX], gen = (uint32_t)f[CSP_RMA_SEG_GEN];
    struct csp_rma_lseg **p = &segs;
    while (*p) {
        struct csp_rma_lseg *s = *p;
        if (s->pid == pid && s->idx == idx) {
            if (s->gen == gen) {
                s->refs++;
                return s;
            }
            if (s->refs == 0) { /* the member made this segment again */
                *p = s->next;
                seg_release(s);
                continue;
            }
        }
        p = &s->next;
    }
    if (pid <= 0 || size <= 0 || f[CSP_RMA_SEG_FD] < 0 || idx >= CSP_MAX_SEGS)
        return NULL;
    struct csp_rma_lseg *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    *s = (struct csp_rma_lseg){.pid = pid, .idx = idx, .gen = gen, .size = (uint64_t)size, .win = MPI_WIN_NULL};
    if (pid == (int64_t)getpid()) {
        CSP_LOCK();
        const struct csp_heap_seg *h = &csp_u.heap->seg[idx];
        if (h->fd == f[CSP_RMA_SEG_FD] && h->size == (uint64_t)size && csp_u.heap->table[idx].gen == gen)
            s->base = h->base;
        CSP_UNLOCK();
    } else {
        char path[64];
        snprintf(path, sizeof path, "/proc/%lld/fd/%lld", (long long)pid, (long long)f[CSP_RMA_SEG_FD]);
        int fd = open(path, O_RDWR | O_CLOEXEC);
        struct stat st;
        if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= size) {
            void *m = mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
            if (m != MAP_FAILED) {
                s->base = m;
                s->mapped = 1;
            }
        }
        if (fd >= 0)
            close(fd);
    }
    if (!s->base) {
        free(s);
        return NULL;
    }
    /* A dynamic window with the segment attached, not MPI_Win_create over
     * it: MPICH 4.0.2's ch4:ucx takes a window's base from UCX's
     * registration of its memory, and UCX's registration cache answers a
     * later MPI_Win_create inside the segment (the application's window
     * over its block) with this one's, so that window's base, its
     * MPI_WIN_BASE and every displacement on it would be the segment's.
     * Attaching registers nothing. Displacements are addresses. */
    if (PMPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_SELF, &s->win) != MPI_SUCCESS ||
        PMPI_Win_attach(s->win, s->base, (MPI_Aint)size) != MPI_SUCCESS ||
        PMPI_Win_set_errhandler(s->win, MPI_ERRORS_RETURN) != MPI_SUCCESS ||
        PMPI_Win_lock_all(MPI_MODE_NOCHECK, s->win) != MPI_SUCCESS) {
        if (s->win != MPI_WIN_NULL)
            PMPI_Win_free(&s->win);
        if (s->mapped)
            munmap(s->base, s->size);
        free(s);
        return NULL;
    }
    s->refs = 1;
    s->next = segs;
    segs = s;
    return s;
}

void csp_rma_local_free(struct csp_rma_win *w)
{
    if (!w->lm)
        return;
    pthread_mutex_lock(&mu);
    for (int i = 0; i < w->size; i++) {
        if (w->lm[i].seg)
            w->lm[i].seg->refs--;
        if (w->lm[i].mseg)
            w->lm[i].mseg->refs--;
    }
    /* A shared window's memory goes with it (MPICH has unmapped it here,
     * or is about to; the members' memfds go once unmapped everywhere). */
    for (struct csp_rma_lseg **p = &segs; *p;) {
        struct csp_rma_lseg *s = *p;
        if (s->transient && s->refs == 0) {
            *p = s->next;
            seg_release(s);
            continue;
        }
        p = &s->next;
    }
    pthread_mutex_unlock(&mu);
    free(w->lm);
    w->lm = NULL;
    w->local = 0;
}

int csp_rma_local_setup(struct csp_rma_win *w, MPI_Comm comm, const int64_t *hdr, const int64_t *mem,
                        int stride)
{
    int ok = (w->lm = calloc((size_t)w->size, sizeof *w->lm)) != NULL;
    pthread_mutex_lock(&mu);
    for (int i = 0; ok && i < w->size; i++) {
        const int64_t *h = hdr + (size_t)stride * i, *m = mem + (size_t)stride * i;
        struct csp_rma_lmem *l = &w->lm[i];
        /* The member's header lies inside its segment, and so does its
         * memory (where it has bytes): the header's segment, just after
         * it, for MPI_Win_allocate; the registered memory's for a shared
         * window. */
        int64_t hoff = h[CSP_RMA_SEG_OFF], moff = m[CSP_RMA_SEG_OFF], size = w->t[i].size;
        ok = hoff >= 0 && hoff <= h[CSP_RMA_SEG_SIZE] - CSP_RMA_HDR && size >= 0 &&
             (size == 0 || (m[CSP_RMA_SEG_PID] > 0 && moff >= 0 && size <= m[CSP_RMA_SEG_SIZE] - moff));
        struct csp_rma_lseg *hs = ok ? seg_open(h) : NULL;
        if (!hs) {
            ok = 0;
            break;
        }
        l->hdr = (struct csp_rma_hdr *)(hs->base + hoff);
        l->seg = hs;
        l->win = hs->win; /* no bytes: no access ever gets past the range check */
        l->disp = (MPI_Aint)(uintptr_t)(hs->base + hoff + CSP_RMA_HDR);
        if (size > 0) {
            struct csp_rma_lseg *ms = seg_open(m);
            if (!ms) {
                ok = 0;
                break;
            }
            ms->transient |= w->shared;
            l->mseg = ms;
            l->win = ms->win;
            l->disp = (MPI_Aint)(uintptr_t)(ms->base + moff);
        }
    }
    pthread_mutex_unlock(&mu);
    int all = 0;
    int rc = PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm);
    if (rc != MPI_SUCCESS || !all) {
        csp_rma_local_free(w);
        if (rc == MPI_SUCCESS && csp_rma.verbose >= 1 && w->rank == 0)
            fprintf(stderr, "casperii: a window's members share this node, but %s could not map every "
                            "member's memory; the window goes through the ghosts\n",
                    ok ? "another member" : "this one");
        return rc;
    }
    w->local = 1;
    return MPI_SUCCESS;
}

void csp_rma_local_finish(void)
{
    pthread_mutex_lock(&mu);
    while (segs) {
        struct csp_rma_lseg *s = segs;
        segs = s->next;
        seg_release(s);
    }
    pthread_mutex_unlock(&mu);
}

void csp_rma_local_lock(struct csp_rma_win *w, int rank)
{
    int64_t *m = &w->lm[rank].hdr->mutex, me = (int64_t)csp_u.wrank + 1;
    for (int n = 0;; n++) {
        int64_t zero = 0;
        if (__atomic_load_n(m, __ATOMIC_RELAXED) == 0 &&
            __atomic_compare_exchange_n(m, &zero, me, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
            return;
        /* Held for one MPICH call on memory: spin a little, then give the
         * core to the holder (it may share ours). */
        if (n >= 32)
            sched_yield();
    }
}

/* local_unlock gives rank's mutex back (csp_rma_local_lock took it): the
 * operation's stores before it. */
static void local_unlock(struct csp_rma_win *w, int rank)
{
    __atomic_store_n(&w->lm[rank].hdr->mutex, 0, __ATOMIC_RELEASE);
}

int csp_rma_local_done(struct csp_rma_win *w, const char *fn, int rank, int atomic, int rc)
{
    if (rc == MPI_SUCCESS)
        rc = PMPI_Win_flush(0, w->lm[rank].win);
    if (atomic)
        local_unlock(w, rank);
    return csp_rma_raise_rc(w, fn, rc);
}

/* The predefined operations MPI_Reduce_local applies as an accumulate
 * would: all commutative, so origin op target is target op origin. */
static int reduce_op(MPI_Op op)
{
    return op == MPI_SUM || op == MPI_PROD || op == MPI_MAX || op == MPI_MIN || op == MPI_LAND || op == MPI_LOR ||
           op == MPI_LXOR || op == MPI_BAND || op == MPI_BOR || op == MPI_BXOR;
}

/* element_type is the basic type (csp_builtin_size > 0) every element of
 * dt is, or MPI_DATATYPE_NULL: a pair type, a struct of several types, a
 * type made with large counts, a Fortran parameterized type, or a type
 * nested deeper than the search goes. MPI calls: the envelope and, for a
 * derived type, its contents (whose derived types it frees). */
static MPI_Datatype element_type(MPI_Datatype dt, int depth)
{
    if (csp_builtin_size(dt) > 0)
        return dt;
    int ni, na, nd, comb;
    if (depth > 8 || PMPI_Type_get_envelope(dt, &ni, &na, &nd, &comb) != MPI_SUCCESS)
        return MPI_DATATYPE_NULL;
    switch (comb) {
    case MPI_COMBINER_DUP:
    case MPI_COMBINER_CONTIGUOUS:
    case MPI_COMBINER_VECTOR:
    case MPI_COMBINER_HVECTOR:
    case MPI_COMBINER_INDEXED:
    case MPI_COMBINER_HINDEXED:
    case MPI_COMBINER_INDEXED_BLOCK:
    case MPI_COMBINER_HINDEXED_BLOCK:
    case MPI_COMBINER_STRUCT:
    case MPI_COMBINER_SUBARRAY:
    case MPI_COMBINER_DARRAY:
    case MPI_COMBINER_RESIZED:
        break;
    default: /* named pair types, Fortran parameterized types */
        return MPI_DATATYPE_NULL;
    }
    int *ints = malloc(sizeof(int) * (size_t)(ni ? ni : 1));
    MPI_Aint *addrs = malloc(sizeof(MPI_Aint) * (size_t)(na ? na : 1));
    MPI_Datatype *types = malloc(sizeof(MPI_Datatype) * (size_t)(nd ? nd : 1));
    MPI_Datatype e = MPI_DATATYPE_NULL;
    if (ints && addrs && types && nd > 0 &&
        PMPI_Type_get_contents(dt, ni, na, nd, ints, addrs, types) == MPI_SUCCESS) {
        int same = 1; /* every type so far has element type e */
        for (int i = 0; i < nd; i++) {
            if (same) {
                MPI_Datatype ei = element_type(types[i], depth + 1);
                same = ei != MPI_DATATYPE_NULL && (i == 0 || ei == e);
                e = same ? ei : MPI_DATATYPE_NULL;
            }
            int tni, tna, tnd, tcomb; /* the contents' derived types are ours to free */
            if (PMPI_Type_get_envelope(types[i], &tni, &tna, &tnd, &tcomb) == MPI_SUCCESS &&
                tcomb != MPI_COMBINER_NAMED)
                PMPI_Type_free(&types[i]);
        }
    }
    free(ints);
    free(addrs);
    free(types);
    return e;
}

/* acc_derived applies an accumulate whose datatypes are derived from one
 * basic type, the same on every side, with as many elements: the target's
 * elements are packed, combined with the origin's (packed too unless
 * contiguous) by MPI_Reduce_local, and unpacked back, under the target's
 * mutex; a get-accumulate's result is unpacked from the packed old values.
 * *done 0: left to MPICH (different element types or counts, MPICH's
 * errors included, or no memory). */
static int acc_derived(struct csp_rma_win *w, const char *fn, int rank, MPI_Aint addr, const void *origin,
                       int ocount, MPI_Datatype otype, void *result, int rcount, MPI_Datatype rtype, int tcount,
                       MPI_Datatype ttype, MPI_Op op, int *done)
{
    *done = 0;
    MPI_Datatype e = element_type(ttype, 0);
    int esize = csp_builtin_size(e), tsize, osize = 0, rsize = 0;
    if (esize <= 0 || PMPI_Type_size(ttype, &tsize) != MPI_SUCCESS || tcount < 0)
        return MPI_SUCCESS;
    MPI_Count n = (MPI_Count)tsize * tcount;
    int use_origin = op != MPI_NO_OP;
    if (use_origin && (element_type(otype, 0) != e || PMPI_Type_size(otype, &osize) != MPI_SUCCESS ||
                       (MPI_Count)osize * ocount != n))
        return MPI_SUCCESS;
    if (result && (element_type(rtype, 0) != e || PMPI_Type_size(rtype, &rsize) != MPI_SUCCESS ||
                   (MPI_Count)rsize * rcount != n))
        return MPI_SUCCESS;
    if (n == 0 || n % esize) {
        *done = n == 0;
        return MPI_SUCCESS;
    }
    int ocontig = use_origin && otype == e;
    char *tmp = malloc((size_t)n), *otmp = NULL;
    if (!tmp)
        return MPI_SUCCESS;
    int rc = MPI_SUCCESS;
    MPI_Count pos = 0;
    if (use_origin && !ocontig) {
        if (!(otmp = malloc((size_t)n))) {
            free(tmp);
            return MPI_SUCCESS;
        }
        rc = csp_pack(origin, ocount, otype, otmp, n, &pos);
    }
    *done = 1;
    csp_rma.n_local_packed++;
    char *t = (char *)(uintptr_t)addr;
    csp_rma_local_lock(w, rank);
    if (rc == MPI_SUCCESS && (pos = 0, rc = PMPI_Pack_c(t, tcount, ttype, tmp, n, &pos, MPI_COMM_SELF)) == MPI_SUCCESS) {
        if (result)
            rc = csp_unpack(tmp, n, &(MPI_Count){0}, result, rcount, rtype);
        const void *src = ocontig ? origin : otmp;
        if (rc == MPI_SUCCESS && op == MPI_REPLACE)
            memcpy(tmp, src, (size_t)n);
        else if (rc == MPI_SUCCESS && use_origin)
            rc = PMPI_Reduce_local_c(src, tmp, n / esize, e, op);
        if (rc == MPI_SUCCESS && use_origin)
            rc = PMPI_Unpack_c(tmp, n, &(MPI_Count){0}, t, tcount, ttype, MPI_COMM_SELF);
    }
    local_unlock(w, rank);
    free(tmp);
    free(otmp);
    return csp_rma_raise_rc(w, fn, rc);
}

int csp_rma_local_acc(struct csp_rma_win *w, const char *fn, int rank, MPI_Aint addr, const void *origin,
                      int ocount, MPI_Datatype otype, void *result, int rcount, MPI_Datatype rtype, int tcount,
                      MPI_Datatype ttype, MPI_Op op, int *done)
{
    int size = csp_builtin_size(ttype);
    int op_ok = result ? op == MPI_NO_OP || op == MPI_REPLACE || reduce_op(op) : op == MPI_REPLACE || reduce_op(op);
    /* With MPI_NO_OP (get-accumulate) the origin's arguments are ignored. */
    int origin_ok = (result && op == MPI_NO_OP) || (otype == ttype && ocount == tcount);
    *done = size > 0 && origin_ok && tcount >= 0 && op_ok && (!result || (rtype == ttype && rcount == tcount));
    if (!*done) /* derived types of one basic type: strided patches, subarrays */
        return op_ok ? acc_derived(w, fn, rank, addr, origin, ocount, otype, result, rcount, rtype, tcount, ttype,
                                   op, done)
                     : MPI_SUCCESS;
    char *t = (char *)(uintptr_t)addr;
    size_t n = (size_t)tcount * (size_t)size;
    int rc = MPI_SUCCESS;
    csp_rma_local_lock(w, rank);
    if (result)
        memcpy(result, t, n);
    if (op == MPI_REPLACE)
        memmove(t, origin, n);
    else if (op != MPI_NO_OP && tcount > 0)
        rc = PMPI_Reduce_local(origin, t, tcount, ttype, op);
    local_unlock(w, rank);
    return csp_rma_raise_rc(w, fn, rc);
}

/* The types MPI allows in MPI_Compare_and_swap that the fast path takes
 * (integers and bytes; MPICH answers the others, errors included). */
static int cas_type(MPI_Datatype dt)
{
    return dt == MPI_INT || dt == MPI_UNSIGNED || dt == MPI_LONG || dt == MPI_UNSIGNED_LONG || dt == MPI_LONG_LONG ||
           dt == MPI_UNSIGNED_LONG_LONG || dt == MPI_INT32_T || dt == MPI_INT64_T || dt == MPI_UINT32_T ||
           dt == MPI_UINT64_T || dt == MPI_BYTE || dt == MPI_AINT;
}

int csp_rma_local_cas(struct csp_rma_win *w, int rank, MPI_Aint addr, const void *origin, const void *compare,
                      void *result, MPI_Datatype dt, int *done)
{
    int size = csp_builtin_size(dt);
    *done = size > 0 && cas_type(dt);
    if (!*done)
        return MPI_SUCCESS;
    char *t = (char *)(uintptr_t)addr;
    csp_rma_local_lock(w, rank);
    memcpy(result, t, (size_t)size);
    if (memcmp(result, compare, (size_t)size) == 0)
        memcpy(t, origin, (size_t)size);
    local_unlock(w, rank);
    return MPI_SUCCESS;
}
