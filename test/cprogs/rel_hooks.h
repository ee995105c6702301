/*
 * rel_hooks.h: the test-only entry points of lib/libcasperii.so
 * (internal/user/testhook.c), for the rel_*.c programs.
 *
 * The programs are linked against MPICH only and run with the library
 * preloaded, so they look the hooks up at run time with dlsym: in a job
 * without the library (or with an older one) the hooks are simply absent
 * and rel_hook() returns NULL.
 */
#ifndef REL_HOOKS_H
#define REL_HOOKS_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "../../postcell/postcell.h" /* struct csp_cell, the shared-memory layout */

typedef int (*rel_usage_fn)(int drain, uint32_t *cells_in_use, uint64_t *ops_live,
                            uint64_t *heap_in_use, uint32_t *held);
typedef int (*rel_comm_algo_fn)(MPI_Comm comm);
typedef int (*rel_ghost_pid_fn)(void);
typedef int (*rel_locate_fn)(const void *p, uint64_t n, uint32_t *seg, uint64_t *off);
typedef int64_t (*rel_publish_raw_fn)(const struct csp_cell *line0, int keep_gen);
typedef int (*rel_reap_fn)(uint32_t idx, int timeout_ms, struct csp_cell *result);
typedef int (*rel_push_index_fn)(uint64_t v);
typedef int (*rel_corrupt_tail_fn)(void);

static inline void *rel_hook(const char *name)
{
    return dlsym(RTLD_DEFAULT, name);
}

/* rel_need is rel_hook for hooks the program cannot do without: it ends
 * the job if the library does not have one. */
static inline void *rel_need(const char *name)
{
    void *f = rel_hook(name);
    if (!f) {
        fprintf(stderr, "rel: hook %s not found (is lib/libcasperii.so preloaded and current?)\n", name);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return f;
}

/* A duplicate of parent with one hint (key=value), MPI_ERRORS_RETURN on it
 * (the programs check return codes themselves). */
static inline MPI_Comm rel_dup_hint(MPI_Comm parent, const char *key, const char *value)
{
    MPI_Info info;
    MPI_Comm c;
    MPI_Info_create(&info);
    MPI_Info_set(info, key, value);
    MPI_Comm_dup_with_info(parent, info, &c);
    MPI_Info_free(&info);
    MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
    return c;
}

/* The algorithm carrying comm's traffic (0 off, 1 tag encoding,
 * 2 duplication, 3 duplication + source, 4 ghost matching), -1 unknown. */
static inline int rel_comm_algo(MPI_Comm comm)
{
    rel_comm_algo_fn f = (rel_comm_algo_fn)rel_hook("csp_test_comm_algo");
    return f ? f(comm) : -1;
}

/* One line of what the fast path holds: "cells_in_use=... ops_live=...
 * heap_in_use=... held=...", or "usage=unavailable". Returns 0 if the
 * numbers are there. */
static inline int rel_usage(int drain, uint32_t *cells, uint64_t *ops, uint64_t *heap, uint32_t *held)
{
    rel_usage_fn f = (rel_usage_fn)rel_hook("csp_test_usage");
    if (!f)
        return -1;
    return f(drain, cells, ops, heap, held);
}

/* MPI_Error_string of code on one line (spaces as '_', so the result line
 * stays key=value), and whether the original had a newline. */
static inline int rel_errstr(int code, char *out, int *cls)
{
    int len = 0, nl = 0;
    out[0] = 0;
    *cls = -1;
    if (code == MPI_SUCCESS)
        return 0;
    MPI_Error_class(code, cls);
    MPI_Error_string(code, out, &len);
    for (char *p = out; *p; p++) {
        if (*p == '\n')
            nl = 1;
        if (*p == ' ' || *p == '\n' || *p == '\t')
            *p = '_';
    }
    return nl;
}

#endif
