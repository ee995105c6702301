/*
 * dtypes: messages of derived datatypes. For each type (vector, hvector,
 * indexed, indexed-block, hindexed, hindexed-block, struct of int, double
 * and chars, resized with a larger extent and with a lower bound,
 * contiguous of vectors, a 2-D subarray, a MPI_Type_dup, a large
 * vector), rank 0 sends a few elements, alternately with MPI_Send and
 * MPI_Isend; rank 1 receives them into the same type (the bytes the type
 * covers must be the sender's, the gaps untouched) and, for the
 * int-only types, a second copy as contiguous MPI_INTs (same type
 * signature). MPI_Get_count and MPI_Get_elements on the type (messages
 * shorter than the buffer: dtype_partial).
 *
 * Checklist (MPICH test/mpi/pt2pt): eagerdt, sendrecv2, dtype_send (the
 * types only; freed while pending: dtype_free).
 *
 * np: 2
 */
#include "conf.h"

struct rec {
    int a;
    double b;
    char c[3];
};

#define NT 14

static const char *tname[NT] = {"vector",   "hvector",    "indexed",          "indexed_block",
                                "hindexed", "hindexed_block", "struct",       "resized",
                                "resized_lb", "contig_of_vector", "subarray", "dup",
                                "big_vector", "vector_of_struct"};

static MPI_Datatype make(int k, int *count, int *intonly)
{
    MPI_Datatype t, inner;
    *count = 3;
    *intonly = 1;
    switch (k) {
    case 0:
        MPI_Type_vector(4, 3, 5, MPI_INT, &t);
        break;
    case 1:
        MPI_Type_create_hvector(3, 2, 7 * sizeof(int), MPI_INT, &t);
        break;
    case 2: {
        int bl[3] = {2, 1, 3}, d[3] = {0, 4, 9};
        MPI_Type_indexed(3, bl, d, MPI_INT, &t);
        break;
    }
    case 3: {
        int d[3] = {1, 5, 9};
        MPI_Type_create_indexed_block(3, 2, d, MPI_INT, &t);
        break;
    }
    case 4: {
        int bl[2] = {2, 3};
        MPI_Aint d[2] = {0, 6 * sizeof(int)};
        MPI_Type_create_hindexed(2, bl, d, MPI_INT, &t);
        break;
    }
    case 5: {
        MPI_Aint d[3] = {0, 2 * sizeof(int), 5 * sizeof(int)};
        MPI_Type_create_hindexed_block(3, 1, d, MPI_INT, &t);
        break;
    }
    case 6: {
        int bl[3] = {1, 1, 3};
        MPI_Aint d[3] = {offsetof(struct rec, a), offsetof(struct rec, b), offsetof(struct rec, c)};
        MPI_Datatype ty[3] = {MPI_INT, MPI_DOUBLE, MPI_CHAR};
        MPI_Type_create_struct(3, bl, d, ty, &inner);
        MPI_Type_create_resized(inner, 0, sizeof(struct rec), &t);
        MPI_Type_free(&inner);
        *intonly = 0;
        break;
    }
    case 7:
        MPI_Type_vector(2, 1, 3, MPI_INT, &inner);
        MPI_Type_create_resized(inner, 0, 10 * sizeof(int), &t);
        MPI_Type_free(&inner);
        break;
    case 8:
        MPI_Type_contiguous(2, MPI_INT, &inner);
        MPI_Type_create_resized(inner, -(MPI_Aint)sizeof(int), 4 * sizeof(int), &t);
        MPI_Type_free(&inner);
        break;
    case 9:
        MPI_Type_vector(3, 1, 2, MPI_INT, &inner);
        MPI_Type_contiguous(2, inner, &t);
        MPI_Type_free(&inner);
        break;
    case 10: {
        int sizes[2] = {6, 8}, sub[2] = {3, 4}, start[2] = {1, 2};
        MPI_Type_create_subarray(2, sizes, sub, start, MPI_ORDER_C, MPI_INT, &t);
        *count = 1;
        break;
    }
    case 11: {
        int bl[3] = {1, 2, 1}, d[3] = {3, 0, 7};
        MPI_Type_indexed(3, bl, d, MPI_INT, &inner);
        MPI_Type_dup(inner, &t);
        MPI_Type_free(&inner);
        break;
    }
    case 12:
        MPI_Type_vector(40000, 1, 2, MPI_INT, &t);
        *count = 1;
        break;
    default: {
        int bl[3] = {1, 1, 3};
        MPI_Aint d[3] = {offsetof(struct rec, a), offsetof(struct rec, b), offsetof(struct rec, c)};
        MPI_Datatype ty[3] = {MPI_INT, MPI_DOUBLE, MPI_CHAR}, s;
        MPI_Type_create_struct(3, bl, d, ty, &inner);
        MPI_Type_create_resized(inner, 0, sizeof(struct rec), &s);
        MPI_Type_vector(5, 1, 2, s, &t);
        MPI_Type_free(&inner);
        MPI_Type_free(&s);
        *intonly = 0;
        break;
    }
    }
    MPI_Type_commit(&t);
    return t;
}

/* Bytes from the buffer address a message of count elements of t may
 * touch (all the types here have their data at or after it). */
static size_t span(MPI_Datatype t, int count)
{
    MPI_Aint lb, ext, tlb, text;
    MPI_Type_get_extent(t, &lb, &ext);
    MPI_Type_get_true_extent(t, &tlb, &text);
    return (size_t)((count - 1) * ext + tlb + text);
}

static void pattern(unsigned char *b, size_t n, int seed)
{
    for (size_t i = 0; i < n; i++)
        b[i] = (unsigned char)(conf_val(seed, (long)i) >> 8);
}

int main(int argc, char **argv)
{
    conf_init(&argc, &argv, "dtypes", 2);
    for (int k = 0; k < NT; k++) {
        int count, intonly, tsize;
        MPI_Datatype t = make(k, &count, &intonly);
        MPI_Type_size(t, &tsize);
        size_t n = span(t, count) + 64;
        unsigned char *src = malloc(n), *dst = malloc(n), *want = malloc(n), *packed = malloc(n);
        pattern(src, n, 100 + k);
        char what[64];
        snprintf(what, sizeof(what), "type %s", tname[k]);
        if (conf_rank == 0) {
            for (int copy = 0; copy < 1 + intonly; copy++) {
                if ((k + copy) % 2) {
                    MPI_Request r;
                    CHECK_RC(MPI_Isend(src, count, t, 1, k, MPI_COMM_WORLD, &r), "MPI_Isend");
                    CHECK_RC(MPI_Wait(&r, MPI_STATUS_IGNORE), "MPI_Wait");
                } else {
                    CHECK_RC(MPI_Send(src, count, t, 1, k, MPI_COMM_WORLD), "MPI_Send");
                }
            }
        } else if (conf_rank == 1) {
            /* What the receive must leave: the gaps as they were, the
             * covered bytes as the sender's (MPI_Pack/MPI_Unpack locally). */
            int pos = 0;
            memset(want, 0xee, n);
            MPI_Pack(src, count, t, packed, (int)n, &pos, MPI_COMM_SELF);
            CHECK(pos == tsize * count, "%s: packs %d bytes, MPI_Type_size says %d", what, pos,
                  tsize * count);
            pos = 0;
            MPI_Unpack(packed, (int)n, &pos, want, count, t, MPI_COMM_SELF);

            memset(dst, 0xee, n);
            MPI_Status st;
            MPI_Request r;
            if (k % 2) {
                CHECK_RC(MPI_Recv(dst, count, t, 0, k, MPI_COMM_WORLD, &st), "MPI_Recv");
            } else {
                CHECK_RC(MPI_Irecv(dst, count, t, 0, k, MPI_COMM_WORLD, &r), "MPI_Irecv");
                CHECK_RC(MPI_Wait(&r, &st), "MPI_Wait");
            }
            conf_check_status(&st, 0, k, t, count, what);
            int el = -1, per = -1;
            MPI_Get_elements(&st, t, &el);
            MPI_Status one;
            MPI_Status_set_elements(&one, t, 1);
            MPI_Get_elements(&one, t, &per);
            CHECK(el == per * count, "%s: MPI_Get_elements %d, want %d", what, el, per * count);
            for (size_t i = 0; i < n; i++)
                if (!CHECK(dst[i] == want[i], "%s: byte %zu is %#x, want %#x", what, i, dst[i],
                           want[i]))
                    break;
            if (intonly) {
                int nint = tsize * count / (int)sizeof(int);
                int *ints = calloc((size_t)nint + 1, sizeof(int));
                CHECK_RC(MPI_Recv(ints, nint + 1, MPI_INT, 0, k, MPI_COMM_WORLD, &st), "MPI_Recv");
                conf_check_status(&st, 0, k, MPI_INT, nint, what);
                CHECK(memcmp(ints, packed, sizeof(int) * (size_t)nint) == 0,
                      "%s received as MPI_INTs differs from the type's data", what);
                free(ints);
            }
        }
        MPI_Type_free(&t);
        free(src);
        free(dst);
        free(want);
        free(packed);
    }

    return conf_finish();
}
