/*
 * commtab.c: a small table of per-communicator records, for what the
 * interposer keeps beside a communicator outside its entry (agree.c's
 * private communicators, toggle.c's toggles).
 *
 * Invariant: the table holds n records of size bytes each, contiguous,
 * each starting with its MPI_Comm, at most one per communicator. A record
 * moves when another is deleted or the table grows, so a pointer from
 * csp_commtab_find or _add is good only until the next _add or _del.
 * Not thread-safe: callers hold the fast path's lock or run without
 * MPI_THREAD_MULTIPLE, as they do for the records themselves.
 */
#include "user.h"

#include <stdlib.h>
#include <string.h>

static MPI_Comm comm_at(const struct csp_commtab *t, int i)
{
    MPI_Comm c;
    memcpy(&c, t->v + (size_t)i * t->size, sizeof c);
    return c;
}

void *csp_commtab_find(const struct csp_commtab *t, MPI_Comm comm)
{
    for (int i = 0; i < t->n; i++)
        if (comm_at(t, i) == comm)
            return t->v + (size_t)i * t->size;
    return NULL;
}

void *csp_commtab_add(struct csp_commtab *t, MPI_Comm comm)
{
    if (t->n == t->cap) {
        int cap = t->cap ? 2 * t->cap : 8;
        char *v = realloc(t->v, (size_t)cap * t->size);
        if (!v)
            return NULL;
        t->v = v;
        t->cap = cap;
    }
    char *r = t->v + (size_t)t->n++ * t->size;
    memset(r, 0, t->size);
    memcpy(r, &comm, sizeof comm);
    return r;
}

void csp_commtab_del(struct csp_commtab *t, void *rec)
{
    char *last = t->v + (size_t)--t->n * t->size;
    if ((char *)rec != last)
        memcpy(rec, last, t->size);
}
