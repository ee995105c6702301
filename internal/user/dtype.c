/*
 * dtype.c: what the runtime needs to know of an application's datatype:
 * its size, bounds and whether a message of it is its memory as is
 * (csp_type_info), and a reference of the runtime's own that keeps it
 * alive while an operation still needs it (csp_type_ref).
 */
#include "user.h"
#include "dtype.h"

#include <stdint.h>

/* Dense: its data fill [lb, lb + extent) without a gap. */
static int dense(MPI_Datatype t, MPI_Aint *ext)
{
    int size;
    MPI_Aint lb, tlb, text;
    if (PMPI_Type_size(t, &size) != MPI_SUCCESS || PMPI_Type_get_extent(t, &lb, ext) != MPI_SUCCESS ||
        PMPI_Type_get_true_extent(t, &tlb, &text) != MPI_SUCCESS)
        return 0;
    return tlb == lb && text == *ext && *ext == size;
}

/* Blocks of n[i] elements of types t[i] at byte displacements d[i], in
 * order: each element ordered and dense, each block right after the
 * previous (empty blocks do not count). */
static int ordered(MPI_Datatype t, int depth);
static int blocks_in_order(int count, const int *n, const MPI_Aint *d, const MPI_Datatype *t,
                           int depth)
{
    MPI_Aint end = 0;
    int first = 1;
    for (int i = 0; i < count; i++) {
        if (n[i] == 0)
            continue;
        MPI_Aint ext;
        if (n[i] < 0 || !dense(t[i], &ext) || !ordered(t[i], depth + 1) || (!first && d[i] != end))
            return 0;
        end = d[i] + (MPI_Aint)n[i] * ext;
        first = 0;
    }
    return 1;
}

/* Does one element of t send its bytes in the order they lie in memory?
 * (MPI: a message is the typemap's entries in typemap order; an indexed
 * type with displacements 3, 2, 1, 0 fills one dense block backwards.)
 * Walks the type's constructors; a constructor it does not know counts
 * as out of order: such types are packed, which is always right. */
static int ordered(MPI_Datatype t, int depth)
{
    int ni, na, nd, comb;
    if (depth > 16 || PMPI_Type_get_envelope(t, &ni, &na, &nd, &comb) != MPI_SUCCESS)
        return 0;
    if (comb == MPI_COMBINER_NAMED)
        return 1;
    if (ni > 64 * 1024 || na > 64 * 1024 || nd > 64 * 1024)
        return 0;
    int is[ni > 0 ? ni : 1];
    MPI_Aint as[na > 0 ? na : 1];
    MPI_Datatype ds[nd > 0 ? nd : 1];
    if (PMPI_Type_get_contents(t, ni, na, nd, is, as, ds) != MPI_SUCCESS)
        return 0;
    int ok = 0;
    MPI_Aint ext;
    switch (comb) {
    case MPI_COMBINER_DUP:
    case MPI_COMBINER_RESIZED: /* the caller checks the extent of count > 1 */
        ok = ordered(ds[0], depth + 1);
        break;
    case MPI_COMBINER_CONTIGUOUS:
        ok = ordered(ds[0], depth + 1) && (is[0] <= 1 || dense(ds[0], &ext));
        break;
    case MPI_COMBINER_VECTOR: /* count, blocklength, stride (elements) */
        ok = (is[0] <= 1 || is[2] == is[1]) && ordered(ds[0], depth + 1) &&
             (is[0] * is[1] <= 1 || dense(ds[0], &ext));
        break;
    case MPI_COMBINER_HVECTOR: /* count, blocklength; stride in bytes */
        ok = ordered(ds[0], depth + 1) && (is[0] * is[1] <= 1 || (dense(ds[0], &ext) &&
                                                                  (is[0] <= 1 || as[0] == is[1] * ext)));
        break;
    case MPI_COMBINER_INDEXED:
    case MPI_COMBINER_INDEXED_BLOCK:
    case MPI_COMBINER_HINDEXED:
    case MPI_COMBINER_HINDEXED_BLOCK: {
        int count = is[0], blk = comb == MPI_COMBINER_INDEXED_BLOCK || comb == MPI_COMBINER_HINDEXED_BLOCK;
        int bytes = comb == MPI_COMBINER_HINDEXED || comb == MPI_COMBINER_HINDEXED_BLOCK;
        if (count > 0 && !dense(ds[0], &ext))
            break;
        int n[count > 0 ? count : 1];
        MPI_Aint d[count > 0 ? count : 1];
        MPI_Datatype ts[count > 0 ? count : 1];
        for (int i = 0; i < count; i++) {
            n[i] = blk ? is[1] : is[1 + i];
            d[i] = bytes ? as[i] : (MPI_Aint)(blk ? is[2 + i] : is[1 + count + i]) * ext;
            ts[i] = ds[0];
        }
        ok = blocks_in_order(count, n, d, ts, depth);
        break;
    }
    case MPI_COMBINER_STRUCT:
        ok = blocks_in_order(is[0], is + 1, as, ds, depth);
        break;
    }
    for (int i = 0; i < nd; i++) { /* get_contents returns new handles of derived types */
        int dni, dna, dnd, dcomb;
        if (PMPI_Type_get_envelope(ds[i], &dni, &dna, &dnd, &dcomb) == MPI_SUCCESS && dcomb != MPI_COMBINER_NAMED)
            PMPI_Type_free(&ds[i]);
    }
    return ok;
}

/* ordered(dt), remembered in an attribute of dt (it dies with the type;
 * duplicates do not copy it). */
static int in_order(MPI_Datatype dt)
{
    static int keyval = MPI_KEYVAL_INVALID;
    if (keyval == MPI_KEYVAL_INVALID &&
        PMPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, &keyval, NULL) != MPI_SUCCESS)
        return ordered(dt, 0);
    void *v;
    int flag = 0;
    if (PMPI_Type_get_attr(dt, keyval, &v, &flag) == MPI_SUCCESS && flag)
        return (intptr_t)v == 2;
    int ok = ordered(dt, 0);
    PMPI_Type_set_attr(dt, keyval, (void *)(intptr_t)(ok ? 2 : 1));
    return ok;
}

/* Size, lower bound and contiguity of count elements of dt. */
int csp_type_info(MPI_Datatype dt, MPI_Count count, MPI_Count *size, MPI_Aint *lb, int *contig)
{
    /* A basic type: contiguous, lower bound 0, no MPI call needed. */
    if ((*size = csp_builtin_size(dt)) > 0) {
        *lb = 0;
        *contig = 1;
        return MPI_SUCCESS;
    }
    int rc = PMPI_Type_size_c(dt, size);
    if (rc != MPI_SUCCESS)
        return rc;
    MPI_Aint tlb, text, elb, ext;
    if ((rc = PMPI_Type_get_true_extent(dt, &tlb, &text)) != MPI_SUCCESS)
        return rc;
    if ((rc = PMPI_Type_get_extent(dt, &elb, &ext)) != MPI_SUCCESS)
        return rc;
    *lb = tlb;
    *contig = text == *size && (count <= 1 || ext == *size) && in_order(dt);
    return MPI_SUCCESS;
}

/* Is dt predefined? MPICH's builtin handle kind (top bits 01) says so at
 * no cost for nearly all of them; the pair types (MPI_DOUBLE_INT, ...) are
 * direct handles, for which the envelope says MPI_COMBINER_NAMED. */
static int type_predefined(MPI_Datatype dt)
{
    if (((uint32_t)dt >> 30) == 1u)
        return 1;
    int ni, na, nd, comb;
    return PMPI_Type_get_envelope(dt, &ni, &na, &nd, &comb) == MPI_SUCCESS &&
           comb == MPI_COMBINER_NAMED;
}

/* Not MPI_Type_dup: a duplicate gets the application's attributes through
 * its copy callbacks, and freeing it would run their delete callbacks on
 * values the application still uses. A contiguous type of one element
 * has dt's type map, extent and bounds, and runs no callback. */
int csp_type_ref(MPI_Datatype dt, MPI_Datatype *ref, uint8_t *owned)
{
    *ref = dt;
    *owned = 0;
    if (type_predefined(dt))
        return MPI_SUCCESS;
    MPI_Datatype t;
    int rc = PMPI_Type_contiguous(1, dt, &t);
    if (rc != MPI_SUCCESS)
        return rc;
    if ((rc = PMPI_Type_commit(&t)) != MPI_SUCCESS) {
        PMPI_Type_free(&t);
        return rc;
    }
    *ref = t;
    *owned = 1;
    return MPI_SUCCESS;
}


/* MPI_BOTTOM (a null address in MPICH) with a type of absolute
 * addresses: MPICH's Pack and Unpack refuse a null buffer. The same bytes
 * are count elements of dt shifted by its true lower bound, from that
 * address: *shifted is such a type (free it), *base the address. */
static int from_bottom(MPI_Datatype dt, MPI_Count count, MPI_Datatype *shifted, char **base)
{
    MPI_Aint tlb, text;
    int rc = PMPI_Type_get_true_extent(dt, &tlb, &text);
    if (rc != MPI_SUCCESS)
        return rc;
    MPI_Count d = -tlb;
    if ((rc = PMPI_Type_create_struct_c(1, &count, &d, &dt, shifted)) != MPI_SUCCESS)
        return rc;
    if ((rc = PMPI_Type_commit(shifted)) != MPI_SUCCESS) {
        PMPI_Type_free(shifted);
        return rc;
    }
    *base = (char *)(uintptr_t)tlb;
    return MPI_SUCCESS;
}

int csp_pack(const void *buf, MPI_Count count, MPI_Datatype dt, void *out, MPI_Count outsize, MPI_Count *pos)
{
    if (buf != MPI_BOTTOM || count == 0)
        return PMPI_Pack_c(buf, count, dt, out, outsize, pos, MPI_COMM_SELF);
    MPI_Datatype t;
    char *base;
    int rc = from_bottom(dt, count, &t, &base);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = PMPI_Pack_c(base, 1, t, out, outsize, pos, MPI_COMM_SELF);
    PMPI_Type_free(&t);
    return rc;
}

int csp_unpack(const void *in, MPI_Count insize, MPI_Count *pos, void *buf, MPI_Count count, MPI_Datatype dt)
{
    if (buf != MPI_BOTTOM || count == 0)
        return PMPI_Unpack_c(in, insize, pos, buf, count, dt, MPI_COMM_SELF);
    MPI_Datatype t;
    char *base;
    int rc = from_bottom(dt, count, &t, &base);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = PMPI_Unpack_c(in, insize, pos, base, 1, t, MPI_COMM_SELF);
    PMPI_Type_free(&t);
    return rc;
}
