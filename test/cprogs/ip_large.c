/*
 * ip_large: messages of 2 GiB and more (MPICH's test/mpi/pt2pt
 * large_message and pt2pt_large are the cases): more bytes than an int
 * counts, which the ghost posts with MPI's large-count calls. Two users,
 * user 0 sends to user 1, each section once:
 *
 *   int-count   MPI_Send / MPI_Recv of <words> 64-bit words (an int count,
 *               more than INT_MAX bytes) between malloc'd buffers: the
 *               bounce path; MPI_Get_count in words, MPI_Get_elements_x
 *   large-count MPI_Isend_c + MPI_Wait / MPI_Irecv_c + MPI_Waitall of <words> * 8
 *               MPI_BYTEs (a count beyond an int) between buffers of
 *               MPI_Alloc_mem with shmbuf_regist (no copy);
 *               MPI_Get_count_c, and MPI_Get_count gives MPI_UNDEFINED
 *   persistent  the same through MPI_Send_init_c / MPI_Recv_init_c,
 *               MPI_Start, MPI_Wait
 *   sendrecv    MPI_Sendrecv_c: the message one way, one int back
 *
 * Every received word is checked. The int-count section frees its
 * buffers before the others, which share one registered buffer. (No
 * truncation: MPICH 4.0.2 then takes 90 s in MPI_Finalize, plain or not.)
 *
 *   ip_large <words>
 *
 * Output: "result rank=<r> test=<section> ok=<0|1> secs=<s>".
 */
#define _GNU_SOURCE
#include <limits.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank;

static inline uint64_t word(long i)
{
    return (uint64_t)i * 0x9e3779b97f4a7c15ull + 17;
}

static void report(const char *test, int ok, double t0)
{
    printf("result rank=%d test=%s ok=%d secs=%.2f\n", rank, test, ok, MPI_Wtime() - t0);
    fflush(stdout);
}

static void *alloc_reg(MPI_Aint bytes)
{
    MPI_Info info;
    void *p = NULL;
    MPI_Info_create(&info);
    MPI_Info_set(info, "shmbuf_regist", "true");
    if (MPI_Alloc_mem(bytes, info, &p) != MPI_SUCCESS)
        p = NULL;
    MPI_Info_free(&info);
    return p;
}

static void fill(uint64_t *b, long n)
{
    for (long i = 0; i < n; i++)
        b[i] = word(i);
}

static int check(const uint64_t *b, long n)
{
    for (long i = 0; i < n; i++)
        if (b[i] != word(i))
            return 0;
    return 1;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    long n = argc > 1 ? atol(argv[1]) : (long)(INT_MAX / 8) + 2;
    MPI_Count bytes = (MPI_Count)n * 8;
    if (bytes <= INT_MAX || n > INT_MAX) {
        if (rank == 0)
            fprintf(stderr, "ip_large: <words> must make more than INT_MAX bytes and fit an int\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Status st;

    /* int-count: an int count of 8-byte words, from and into malloc */
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    uint64_t *b = malloc((size_t)bytes);
    int ok = b != NULL;
    if (rank == 0) {
        if (ok)
            fill(b, n);
        ok = ok && MPI_Send(b, (int)n, MPI_UINT64_T, 1, 7, MPI_COMM_WORLD) == MPI_SUCCESS;
    } else if (rank == 1 && ok) {
        memset(b, 0, (size_t)bytes);
        int cnt = -1;
        MPI_Count elems = -1;
        ok = MPI_Recv(b, (int)n, MPI_UINT64_T, 0, 7, MPI_COMM_WORLD, &st) == MPI_SUCCESS &&
             MPI_Get_count(&st, MPI_UINT64_T, &cnt) == MPI_SUCCESS && cnt == n &&
             MPI_Get_elements_x(&st, MPI_BYTE, &elems) == MPI_SUCCESS && elems == bytes &&
             st.MPI_SOURCE == 0 && st.MPI_TAG == 7 && check(b, n);
    }
    free(b);
    report("int-count", ok, t0);

    /* large-count: a count of bytes beyond an int, registered buffers */
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    b = alloc_reg((MPI_Aint)bytes);
    ok = b != NULL;
    if (rank == 0) {
        MPI_Request r = MPI_REQUEST_NULL;
        if (ok)
            fill(b, n);
        ok = ok && MPI_Isend_c(b, bytes, MPI_BYTE, 1, 8, MPI_COMM_WORLD, &r) == MPI_SUCCESS &&
             MPI_Wait(&r, MPI_STATUS_IGNORE) == MPI_SUCCESS;
    } else if (rank == 1 && ok) {
        MPI_Request r = MPI_REQUEST_NULL;
        memset(b, 0, (size_t)bytes);
        MPI_Count cnt = -1;
        int icnt = 0;
        ok = MPI_Irecv_c(b, bytes, MPI_BYTE, 0, 8, MPI_COMM_WORLD, &r) == MPI_SUCCESS &&
             MPI_Waitall(1, &r, &st) == MPI_SUCCESS && MPI_Get_count_c(&st, MPI_BYTE, &cnt) == MPI_SUCCESS &&
             cnt == bytes && MPI_Get_count(&st, MPI_BYTE, &icnt) == MPI_SUCCESS && icnt == MPI_UNDEFINED &&
             st.MPI_SOURCE == 0 && st.MPI_TAG == 8 && check(b, n);
    }
    report("large-count", ok, t0);

    /* persistent: the same through MPI_Send_init_c / MPI_Recv_init_c */
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    ok = b != NULL;
    if (rank == 0 && ok) {
        MPI_Request r = MPI_REQUEST_NULL;
        ok = MPI_Send_init_c(b, bytes, MPI_BYTE, 1, 10, MPI_COMM_WORLD, &r) == MPI_SUCCESS &&
             MPI_Start(&r) == MPI_SUCCESS && MPI_Wait(&r, MPI_STATUS_IGNORE) == MPI_SUCCESS &&
             MPI_Request_free(&r) == MPI_SUCCESS;
    } else if (rank == 1 && ok) {
        MPI_Request r = MPI_REQUEST_NULL;
        MPI_Count cnt = -1;
        memset(b, 0, (size_t)bytes);
        ok = MPI_Recv_init_c(b, bytes, MPI_BYTE, 0, 10, MPI_COMM_WORLD, &r) == MPI_SUCCESS &&
             MPI_Start(&r) == MPI_SUCCESS && MPI_Wait(&r, &st) == MPI_SUCCESS &&
             MPI_Get_count_c(&st, MPI_BYTE, &cnt) == MPI_SUCCESS && cnt == bytes && st.MPI_TAG == 10 &&
             check(b, n) && MPI_Request_free(&r) == MPI_SUCCESS;
    }
    report("persistent", ok, t0);

    /* sendrecv: MPI_Sendrecv_c, the message one way and one int back */
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    ok = b != NULL;
    if (rank == 0 && ok) {
        int back = 0;
        ok = MPI_Sendrecv_c(b, bytes, MPI_BYTE, 1, 11, &back, 1, MPI_INT, 1, 12, MPI_COMM_WORLD, &st) ==
                 MPI_SUCCESS &&
             back == 42 && st.MPI_SOURCE == 1 && st.MPI_TAG == 12;
    } else if (rank == 1 && ok) {
        int v = 42;
        MPI_Count cnt = -1;
        memset(b, 0, (size_t)bytes);
        ok = MPI_Sendrecv_c(&v, 1, MPI_INT, 0, 12, b, bytes, MPI_BYTE, 0, 11, MPI_COMM_WORLD, &st) ==
                 MPI_SUCCESS &&
             MPI_Get_count_c(&st, MPI_BYTE, &cnt) == MPI_SUCCESS && cnt == bytes && st.MPI_SOURCE == 0 &&
             st.MPI_TAG == 11 && check(b, n);
    }
    report("sendrecv", ok, t0);

    if (b)
        MPI_Free_mem(b);
    MPI_Finalize();
    return 0;
}
