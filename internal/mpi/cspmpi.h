/*
 * C shims for package internal/mpi.
 *
 * Every MPI entry point used here is a PMPI_* one: this binding is linked into
 * an interposer library that defines the MPI_* symbols itself.
 *
 * The shims exist for three reasons:
 *   - MPI output arguments (handles, flags, counts) are returned in a struct by
 *     value, so the Go side never takes the address of a Go local (which would
 *     make it escape to the heap: one allocation per call);
 *   - sentinels such as MPI_STATUS_IGNORE ((MPI_Status*)1) and MPI_IN_PLACE
 *     ((void*)-1) only ever exist in C;
 *   - an MPI_Status lives on the C stack and is converted here into
 *     cspmpi_status, whose layout is identical to the Go type mpi.Status
 *     (checked at compile time on the Go side).
 *
 * All shims are static inline: each cgo translation unit that includes this
 * header gets private copies and no global C symbol is defined, so the
 * binding cannot clash with other C code of the runtime.
 */
#ifndef CASPERII_CSPMPI_H
#define CASPERII_CSPMPI_H

#include <limits.h>
#include <mpi.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Same layout as Go's mpi.Status{Source, Tag, Error int; Count int64; Cancelled bool}
 * on 64-bit platforms. */
typedef struct {
    int64_t source;
    int64_t tag;
    int64_t error;
    int64_t count; /* bytes */
    uint8_t cancelled;
} cspmpi_status;

/* Generic result: return code plus up to four int outputs (MPICH handles are ints). */
typedef struct {
    int rc;
    int v, v2, v3, v4;
} cspmpi_iret;

/* Result with MPI_Aint/MPI_Count outputs and an optional pointer. */
typedef struct {
    int rc;
    int v;
    long long a, b;
    void *p;
} cspmpi_lret;

/* Result of an operation that may produce a status. */
typedef struct {
    int rc;
    int flag;
    int h;  /* request or message handle after the call */
    int h2; /* second handle (message for Imrecv/Mrecv) or index */
    cspmpi_status st;
} cspmpi_sret;

static inline void cspmpi_cvt(const MPI_Status *s, cspmpi_status *o, int with_error)
{
    MPI_Count c = 0;
    int canc = 0;
    PMPI_Get_count_c(s, MPI_BYTE, &c);
    PMPI_Test_cancelled(s, &canc);
    o->source = s->MPI_SOURCE;
    o->tag = s->MPI_TAG;
    o->error = with_error ? s->MPI_ERROR : MPI_SUCCESS;
    o->count = (int64_t)c;
    o->cancelled = canc != 0;
}

static inline int cspmpi_err_in_status(int rc)
{
    int cls = rc;
    if (rc == MPI_SUCCESS)
        return 0;
    PMPI_Error_class(rc, &cls);
    return cls == MPI_ERR_IN_STATUS;
}

/* Per-thread scratch array of MPI_Status for the multiple-completion calls (C heap, grown on demand). */
MPI_Status *cspmpi_scratch_statuses(int n);

/* The first symbol defined in the process among a few that only Open MPI
 * defines, or NULL (foreign.c). */
const char *csp_openmpi_symbol(void);

/* ---- init, threads ---- */

static inline cspmpi_iret cspmpi_init_thread(int required)
{
    cspmpi_iret r = {0};
    r.rc = PMPI_Init_thread(NULL, NULL, required, &r.v);
    return r;
}

#define CSPMPI_OUT1(NAME, PARAMS, CALL) \
    static inline cspmpi_iret NAME PARAMS { cspmpi_iret r = {0}; r.rc = CALL; return r; }

CSPMPI_OUT1(cspmpi_initialized, (void), PMPI_Initialized(&r.v))
CSPMPI_OUT1(cspmpi_finalized, (void), PMPI_Finalized(&r.v))
CSPMPI_OUT1(cspmpi_query_thread, (void), PMPI_Query_thread(&r.v))
CSPMPI_OUT1(cspmpi_is_thread_main, (void), PMPI_Is_thread_main(&r.v))
CSPMPI_OUT1(cspmpi_get_version, (void), PMPI_Get_version(&r.v, &r.v2))

/* ---- communicators ---- */

CSPMPI_OUT1(cspmpi_comm_rank, (MPI_Comm c), PMPI_Comm_rank(c, &r.v))
CSPMPI_OUT1(cspmpi_comm_size, (MPI_Comm c), PMPI_Comm_size(c, &r.v))
CSPMPI_OUT1(cspmpi_comm_remote_size, (MPI_Comm c), PMPI_Comm_remote_size(c, &r.v))
CSPMPI_OUT1(cspmpi_comm_test_inter, (MPI_Comm c), PMPI_Comm_test_inter(c, &r.v))
CSPMPI_OUT1(cspmpi_comm_dup, (MPI_Comm c), PMPI_Comm_dup(c, &r.v))
CSPMPI_OUT1(cspmpi_comm_get_parent, (void), PMPI_Comm_get_parent(&r.v))
CSPMPI_OUT1(cspmpi_comm_dup_with_info, (MPI_Comm c, MPI_Info i), PMPI_Comm_dup_with_info(c, i, &r.v))
CSPMPI_OUT1(cspmpi_comm_idup, (MPI_Comm c), PMPI_Comm_idup(c, &r.v, &r.v2))
CSPMPI_OUT1(cspmpi_comm_split, (MPI_Comm c, int color, int key), PMPI_Comm_split(c, color, key, &r.v))
CSPMPI_OUT1(cspmpi_comm_split_type, (MPI_Comm c, int t, int key, MPI_Info i),
            PMPI_Comm_split_type(c, t, key, i, &r.v))
CSPMPI_OUT1(cspmpi_comm_create, (MPI_Comm c, MPI_Group g), PMPI_Comm_create(c, g, &r.v))
CSPMPI_OUT1(cspmpi_comm_create_group, (MPI_Comm c, MPI_Group g, int tag),
            PMPI_Comm_create_group(c, g, tag, &r.v))
CSPMPI_OUT1(cspmpi_comm_group, (MPI_Comm c), PMPI_Comm_group(c, &r.v))
CSPMPI_OUT1(cspmpi_comm_compare, (MPI_Comm a, MPI_Comm b), PMPI_Comm_compare(a, b, &r.v))
CSPMPI_OUT1(cspmpi_comm_get_info, (MPI_Comm c), PMPI_Comm_get_info(c, &r.v))
CSPMPI_OUT1(cspmpi_comm_get_errhandler, (MPI_Comm c), PMPI_Comm_get_errhandler(c, &r.v))
CSPMPI_OUT1(cspmpi_comm_ibarrier, (MPI_Comm c), PMPI_Ibarrier(c, &r.v))

static inline cspmpi_iret cspmpi_comm_free(MPI_Comm c)
{
    cspmpi_iret r = {0};
    r.rc = PMPI_Comm_free(&c);
    r.v = c;
    return r;
}

/* Integer-valued predefined attribute (MPI_TAG_UB, MPI_HOST, ...): v = value, v2 = flag. */
static inline cspmpi_iret cspmpi_comm_get_attr_int(MPI_Comm c, int keyval)
{
    cspmpi_iret r = {0};
    int *p = NULL;
    r.rc = PMPI_Comm_get_attr(c, keyval, &p, &r.v2);
    if (r.rc == MPI_SUCCESS && r.v2 && p)
        r.v = *p;
    return r;
}

/* ---- groups ---- */

CSPMPI_OUT1(cspmpi_group_size, (MPI_Group g), PMPI_Group_size(g, &r.v))
CSPMPI_OUT1(cspmpi_group_rank, (MPI_Group g), PMPI_Group_rank(g, &r.v))
CSPMPI_OUT1(cspmpi_group_incl, (MPI_Group g, int n, const int *ranks), PMPI_Group_incl(g, n, ranks, &r.v))
CSPMPI_OUT1(cspmpi_group_excl, (MPI_Group g, int n, const int *ranks), PMPI_Group_excl(g, n, ranks, &r.v))
CSPMPI_OUT1(cspmpi_group_union, (MPI_Group a, MPI_Group b), PMPI_Group_union(a, b, &r.v))
CSPMPI_OUT1(cspmpi_group_intersection, (MPI_Group a, MPI_Group b), PMPI_Group_intersection(a, b, &r.v))
CSPMPI_OUT1(cspmpi_group_difference, (MPI_Group a, MPI_Group b), PMPI_Group_difference(a, b, &r.v))
CSPMPI_OUT1(cspmpi_group_compare, (MPI_Group a, MPI_Group b), PMPI_Group_compare(a, b, &r.v))

static inline cspmpi_iret cspmpi_group_free(MPI_Group g)
{
    cspmpi_iret r = {0};
    r.rc = PMPI_Group_free(&g);
    r.v = g;
    return r;
}

/* ---- info ---- */

CSPMPI_OUT1(cspmpi_info_create, (void), PMPI_Info_create(&r.v))
CSPMPI_OUT1(cspmpi_info_dup, (MPI_Info i), PMPI_Info_dup(i, &r.v))
CSPMPI_OUT1(cspmpi_info_get_nkeys, (MPI_Info i), PMPI_Info_get_nkeys(i, &r.v))

static inline cspmpi_iret cspmpi_info_free(MPI_Info i)
{
    cspmpi_iret r = {0};
    r.rc = PMPI_Info_free(&i);
    r.v = i;
    return r;
}

/* v = flag, v2 = buffer length needed (including the terminating NUL). */
static inline cspmpi_iret cspmpi_info_get(MPI_Info i, const char *key, char *buf, int buflen)
{
    cspmpi_iret r = {0};
    r.v2 = buflen;
    r.rc = PMPI_Info_get_string(i, key, &r.v2, buf, &r.v);
    return r;
}

/* The values of n keys of i in one call (Info.Values): keys holds the keys
 * one after the other, each NUL-terminated; the values are written into buf
 * (buflen bytes) one after the other, each NUL-terminated. out[k] is the
 * length key k's value takes in buf including its NUL, 0 where the key is
 * not set, or -1 where buf had no room left for it. */
static inline int cspmpi_info_get_keys(MPI_Info i, const char *keys, int n, char *buf, int buflen,
                                       int *out)
{
    int at = 0;
    for (int k = 0; k < n; k++) {
        char none;
        int len = buflen - at, flag = 0;
        int rc = len > 0 ? PMPI_Info_get_string(i, keys, &len, buf + at, &flag)
                         : (len = 1, PMPI_Info_get_string(i, keys, &len, &none, &flag));
        if (rc != MPI_SUCCESS)
            return rc;
        if (!flag)
            out[k] = 0;
        else if (len > buflen - at)
            out[k] = -1; /* truncated: the caller reads it alone */
        else
            out[k] = len, at += len;
        keys += strlen(keys) + 1;
    }
    return MPI_SUCCESS;
}

/* ---- errors ---- */

CSPMPI_OUT1(cspmpi_error_class, (int code), PMPI_Error_class(code, &r.v))
CSPMPI_OUT1(cspmpi_add_error_class, (void), PMPI_Add_error_class(&r.v))
CSPMPI_OUT1(cspmpi_add_error_code, (int cls), PMPI_Add_error_code(cls, &r.v))

static inline cspmpi_iret cspmpi_errhandler_free(MPI_Errhandler e)
{
    cspmpi_iret r = {0};
    r.rc = PMPI_Errhandler_free(&e);
    r.v = e;
    return r;
}

/* ---- datatypes ---- */

CSPMPI_OUT1(cspmpi_type_contiguous, (int n, MPI_Datatype old), PMPI_Type_contiguous(n, old, &r.v))
CSPMPI_OUT1(cspmpi_type_vector, (int n, int bl, int stride, MPI_Datatype old),
            PMPI_Type_vector(n, bl, stride, old, &r.v))
CSPMPI_OUT1(cspmpi_type_get_envelope, (MPI_Datatype t), PMPI_Type_get_envelope(t, &r.v, &r.v2, &r.v3, &r.v4))
CSPMPI_OUT1(cspmpi_pack_size, (int n, MPI_Datatype t, MPI_Comm c), PMPI_Pack_size(n, t, c, &r.v))

static inline cspmpi_iret cspmpi_type_commit(MPI_Datatype t)
{
    cspmpi_iret r = {0};
    r.rc = PMPI_Type_commit(&t);
    r.v = t;
    return r;
}

static inline cspmpi_iret cspmpi_type_free(MPI_Datatype t)
{
    cspmpi_iret r = {0};
    r.rc = PMPI_Type_free(&t);
    r.v = t;
    return r;
}

static inline cspmpi_lret cspmpi_type_size(MPI_Datatype t)
{
    cspmpi_lret r = {0};
    MPI_Count c = 0;
    r.rc = PMPI_Type_size_x(t, &c);
    r.a = c;
    return r;
}

static inline cspmpi_lret cspmpi_type_get_extent(MPI_Datatype t, int true_extent)
{
    cspmpi_lret r = {0};
    MPI_Aint lb = 0, ext = 0;
    r.rc = true_extent ? PMPI_Type_get_true_extent(t, &lb, &ext) : PMPI_Type_get_extent(t, &lb, &ext);
    r.a = lb;
    r.b = ext;
    return r;
}

static inline cspmpi_iret cspmpi_pack(const void *in, int incount, MPI_Datatype t, void *out, int outsize,
                                      int position, MPI_Comm c)
{
    cspmpi_iret r = {0};
    r.v = position;
    r.rc = PMPI_Pack(in, incount, t, out, outsize, &r.v, c);
    return r;
}

static inline cspmpi_iret cspmpi_unpack(const void *in, int insize, int position, void *out, int outcount,
                                        MPI_Datatype t, MPI_Comm c)
{
    cspmpi_iret r = {0};
    r.v = position;
    r.rc = PMPI_Unpack(in, insize, &r.v, out, outcount, t, c);
    return r;
}

/* Element count of a status holding `bytes` bytes, in units of t (MPI_UNDEFINED if not whole). */
static inline cspmpi_iret cspmpi_get_count(long long bytes, int cancelled, MPI_Datatype t)
{
    cspmpi_iret r = {0};
    MPI_Status s;
    memset(&s, 0, sizeof s);
    r.rc = PMPI_Status_set_elements_x(&s, MPI_BYTE, (MPI_Count)bytes);
    if (r.rc == MPI_SUCCESS)
        r.rc = PMPI_Status_set_cancelled(&s, cancelled);
    if (r.rc == MPI_SUCCESS)
        r.rc = PMPI_Get_count(&s, t, &r.v);
    return r;
}

/* ---- memory and windows ---- */

static inline cspmpi_lret cspmpi_alloc_mem(long long size, MPI_Info i)
{
    cspmpi_lret r = {0};
    r.rc = PMPI_Alloc_mem((MPI_Aint)size, i, &r.p);
    return r;
}

/* v = window handle, p = base. */
static inline cspmpi_lret cspmpi_win_allocate_shared(long long size, int disp, MPI_Info i, MPI_Comm c)
{
    cspmpi_lret r = {0};
    MPI_Win w = MPI_WIN_NULL;
    r.rc = PMPI_Win_allocate_shared((MPI_Aint)size, disp, i, c, &r.p, &w);
    r.v = w;
    return r;
}

/* a = size, v = disp unit, p = base. */
static inline cspmpi_lret cspmpi_win_shared_query(MPI_Win w, int rank)
{
    cspmpi_lret r = {0};
    MPI_Aint size = 0;
    r.rc = PMPI_Win_shared_query(w, rank, &size, &r.v, &r.p);
    r.a = size;
    return r;
}

CSPMPI_OUT1(cspmpi_win_get_info, (MPI_Win w), PMPI_Win_get_info(w, &r.v))

static inline cspmpi_iret cspmpi_win_free(MPI_Win w)
{
    cspmpi_iret r = {0};
    r.rc = PMPI_Win_free(&w);
    r.v = w;
    return r;
}

CSPMPI_OUT1(cspmpi_win_create_dynamic, (MPI_Info i, MPI_Comm c), PMPI_Win_create_dynamic(i, c, &r.v))

/* ---- collectives (a NULL send buffer means MPI_IN_PLACE) ---- */

#define CSPMPI_INPLACE(p) ((p) ? (p) : MPI_IN_PLACE)

static inline int cspmpi_allreduce(const void *s, void *rb, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c)
{
    return PMPI_Allreduce(CSPMPI_INPLACE(s), rb, n, t, op, c);
}

static inline cspmpi_iret cspmpi_iallreduce(const void *s, void *rb, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c)
{
    cspmpi_iret r = {0};
    r.rc = PMPI_Iallreduce(CSPMPI_INPLACE(s), rb, n, t, op, c, &r.v);
    return r;
}

static inline int cspmpi_reduce(const void *s, void *rb, int n, MPI_Datatype t, MPI_Op op, int root, MPI_Comm c)
{
    return PMPI_Reduce(CSPMPI_INPLACE(s), rb, n, t, op, root, c);
}

static inline int cspmpi_allgather(const void *s, int sn, MPI_Datatype st, void *rb, int rn, MPI_Datatype rt,
                                   MPI_Comm c)
{
    return PMPI_Allgather(CSPMPI_INPLACE(s), sn, st, rb, rn, rt, c);
}

static inline int cspmpi_gather(const void *s, int sn, MPI_Datatype st, void *rb, int rn, MPI_Datatype rt, int root,
                                MPI_Comm c)
{
    return PMPI_Gather(CSPMPI_INPLACE(s), sn, st, rb, rn, rt, root, c);
}

static inline int cspmpi_alltoall(const void *s, int sn, MPI_Datatype st, void *rb, int rn, MPI_Datatype rt,
                                  MPI_Comm c)
{
    return PMPI_Alltoall(CSPMPI_INPLACE(s), sn, st, rb, rn, rt, c);
}

/* ---- point to point ---- */

/* Counts beyond an int take MPI-4's large-count calls (a message of 2 GiB
 * or more); every other count the classic ones. */
#define CSPMPI_FITS(n) ((n) >= INT_MIN && (n) <= INT_MAX)

static inline cspmpi_iret cspmpi_isend(const void *b, MPI_Count n, MPI_Datatype t, int dest, int tag, MPI_Comm c)
{
    cspmpi_iret r;
    r.rc = CSPMPI_FITS(n) ? PMPI_Isend(b, (int)n, t, dest, tag, c, &r.v) : PMPI_Isend_c(b, n, t, dest, tag, c, &r.v);
    return r;
}

static inline cspmpi_iret cspmpi_issend(const void *b, MPI_Count n, MPI_Datatype t, int dest, int tag, MPI_Comm c)
{
    cspmpi_iret r;
    r.rc = CSPMPI_FITS(n) ? PMPI_Issend(b, (int)n, t, dest, tag, c, &r.v) : PMPI_Issend_c(b, n, t, dest, tag, c, &r.v);
    return r;
}

static inline cspmpi_iret cspmpi_irecv(void *b, MPI_Count n, MPI_Datatype t, int src, int tag, MPI_Comm c)
{
    cspmpi_iret r;
    r.rc = CSPMPI_FITS(n) ? PMPI_Irecv(b, (int)n, t, src, tag, c, &r.v) : PMPI_Irecv_c(b, n, t, src, tag, c, &r.v);
    return r;
}

#define CSPMPI_ST(want) ((want) ? &st : MPI_STATUS_IGNORE)

static inline cspmpi_sret cspmpi_recv(void *b, int n, MPI_Datatype t, int src, int tag, MPI_Comm c, int want)
{
    cspmpi_sret r = {0};
    MPI_Status st;
    r.rc = PMPI_Recv(b, n, t, src, tag, c, CSPMPI_ST(want));
    if (want && r.rc == MPI_SUCCESS)
        cspmpi_cvt(&st, &r.st, 0);
    return r;
}

static inline cspmpi_sret cspmpi_sendrecv(const void *sb, int sn, MPI_Datatype stype, int dest, int stag, void *rb,
                                          int rn, MPI_Datatype rtype, int src, int rtag, MPI_Comm c, int want)
{
    cspmpi_sret r = {0};
    MPI_Status st;
    r.rc = PMPI_Sendrecv(sb, sn, stype, dest, stag, rb, rn, rtype, src, rtag, c, CSPMPI_ST(want));
    if (want && r.rc == MPI_SUCCESS)
        cspmpi_cvt(&st, &r.st, 0);
    return r;
}

static inline cspmpi_sret cspmpi_probe(int src, int tag, MPI_Comm c, int want)
{
    cspmpi_sret r = {0};
    MPI_Status st;
    r.rc = PMPI_Probe(src, tag, c, CSPMPI_ST(want));
    if (want && r.rc == MPI_SUCCESS)
        cspmpi_cvt(&st, &r.st, 0);
    return r;
}

static inline cspmpi_sret cspmpi_iprobe(int src, int tag, MPI_Comm c, int want)
{
    cspmpi_sret r = {0};
    MPI_Status st;
    r.rc = PMPI_Iprobe(src, tag, c, &r.flag, CSPMPI_ST(want));
    if (want && r.rc == MPI_SUCCESS && r.flag)
        cspmpi_cvt(&st, &r.st, 0);
    return r;
}

static inline cspmpi_sret cspmpi_improbe(int src, int tag, MPI_Comm c, int want)
{
    cspmpi_sret r = {0};
    MPI_Status st;
    MPI_Message m = MPI_MESSAGE_NULL;
    r.rc = PMPI_Improbe(src, tag, c, &r.flag, &m, CSPMPI_ST(want));
    r.h = m;
    if (want && r.rc == MPI_SUCCESS && r.flag)
        cspmpi_cvt(&st, &r.st, 0);
    return r;
}

static inline cspmpi_sret cspmpi_mprobe(int src, int tag, MPI_Comm c, int want)
{
    cspmpi_sret r = {0};
    MPI_Status st;
    MPI_Message m = MPI_MESSAGE_NULL;
    r.rc = PMPI_Mprobe(src, tag, c, &m, CSPMPI_ST(want));
    r.h = m;
    r.flag = 1;
    if (want && r.rc == MPI_SUCCESS)
        cspmpi_cvt(&st, &r.st, 0);
    return r;
}

/* h = request, h2 = message after the call. */
static inline cspmpi_sret cspmpi_imrecv(void *b, MPI_Count n, MPI_Datatype t, MPI_Message m)
{
    cspmpi_sret r;
    MPI_Request q = MPI_REQUEST_NULL;
    r.rc = CSPMPI_FITS(n) ? PMPI_Imrecv(b, (int)n, t, &m, &q) : PMPI_Imrecv_c(b, n, t, &m, &q);
    r.h = q;
    r.h2 = m;
    return r;
}

static inline cspmpi_sret cspmpi_mrecv(void *b, int n, MPI_Datatype t, MPI_Message m, int want)
{
    cspmpi_sret r = {0};
    MPI_Status st;
    r.rc = PMPI_Mrecv(b, n, t, &m, CSPMPI_ST(want));
    r.h2 = m;
    if (want && r.rc == MPI_SUCCESS)
        cspmpi_cvt(&st, &r.st, 0);
    return r;
}

/* ---- completion ---- */

static inline cspmpi_sret cspmpi_test(MPI_Request q, int want)
{
    cspmpi_sret r = {0};
    MPI_Status st;
    r.rc = PMPI_Test(&q, &r.flag, CSPMPI_ST(want));
    r.h = q;
    if (want && r.rc == MPI_SUCCESS && r.flag)
        cspmpi_cvt(&st, &r.st, 0);
    return r;
}

static inline cspmpi_sret cspmpi_wait(MPI_Request q, int want)
{
    cspmpi_sret r = {0};
    MPI_Status st;
    r.rc = PMPI_Wait(&q, CSPMPI_ST(want));
    r.h = q;
    r.flag = 1;
    if (want && r.rc == MPI_SUCCESS)
        cspmpi_cvt(&st, &r.st, 0);
    return r;
}

static inline cspmpi_sret cspmpi_request_get_status(MPI_Request q, int want)
{
    cspmpi_sret r = {0};
    MPI_Status st;
    r.rc = PMPI_Request_get_status(q, &r.flag, CSPMPI_ST(want));
    if (want && r.rc == MPI_SUCCESS && r.flag)
        cspmpi_cvt(&st, &r.st, 0);
    return r;
}

static inline cspmpi_iret cspmpi_request_free(MPI_Request q)
{
    cspmpi_iret r;
    r.rc = PMPI_Request_free(&q);
    r.v = q;
    return r;
}

static inline int cspmpi_cancel(MPI_Request q)
{
    return PMPI_Cancel(&q);
}

/* h2 = index (MPI_UNDEFINED if none). */
static inline cspmpi_sret cspmpi_testany(int n, MPI_Request *qs, int want)
{
    cspmpi_sret r = {0};
    MPI_Status st;
    r.rc = PMPI_Testany(n, qs, &r.h2, &r.flag, CSPMPI_ST(want));
    if (want && r.rc == MPI_SUCCESS && r.flag && r.h2 != MPI_UNDEFINED)
        cspmpi_cvt(&st, &r.st, 0);
    return r;
}

static inline cspmpi_sret cspmpi_waitany(int n, MPI_Request *qs, int want)
{
    cspmpi_sret r = {0};
    MPI_Status st;
    r.rc = PMPI_Waitany(n, qs, &r.h2, CSPMPI_ST(want));
    r.flag = 1;
    if (want && r.rc == MPI_SUCCESS && r.h2 != MPI_UNDEFINED)
        cspmpi_cvt(&st, &r.st, 0);
    return r;
}

/* GCC sees MPI_STATUSES_IGNORE ((MPI_Status*)1) flow into an array parameter
 * and warns about a zero-sized region; the pointer is a sentinel, never accessed. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#endif

/* Testsome/Waitsome: v = outcount. out == NULL means MPI_STATUSES_IGNORE. */
static inline cspmpi_iret cspmpi_somesome(int wait, int n, MPI_Request *qs, int *idx, cspmpi_status *out)
{
    cspmpi_iret r = {0};
    MPI_Status *st = MPI_STATUSES_IGNORE;
    if (out) {
        st = cspmpi_scratch_statuses(n);
        if (!st) {
            r.rc = MPI_ERR_NO_MEM;
            return r;
        }
    }
    r.rc = wait ? PMPI_Waitsome(n, qs, &r.v, idx, st) : PMPI_Testsome(n, qs, &r.v, idx, st);
    if (out && r.v != MPI_UNDEFINED) {
        int in_status = cspmpi_err_in_status(r.rc);
        if (r.rc == MPI_SUCCESS || in_status)
            for (int i = 0; i < r.v; i++)
                cspmpi_cvt(&st[i], &out[i], in_status);
    }
    return r;
}

/* Testall/Waitall: v = flag. */
static inline cspmpi_iret cspmpi_allall(int wait, int n, MPI_Request *qs, cspmpi_status *out)
{
    cspmpi_iret r = {0};
    MPI_Status *st = MPI_STATUSES_IGNORE;
    if (out) {
        st = cspmpi_scratch_statuses(n);
        if (!st) {
            r.rc = MPI_ERR_NO_MEM;
            return r;
        }
    }
    if (wait) {
        r.rc = PMPI_Waitall(n, qs, st);
        r.v = 1;
    } else {
        r.rc = PMPI_Testall(n, qs, &r.v, st);
    }
    if (out && r.v) {
        int in_status = cspmpi_err_in_status(r.rc);
        if (r.rc == MPI_SUCCESS || in_status)
            for (int i = 0; i < n; i++)
                cspmpi_cvt(&st[i], &out[i], in_status);
    }
    return r;
}

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

#endif /* CASPERII_CSPMPI_H */
