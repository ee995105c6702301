/*
 * ip_window: MPI_Win_allocate_shared with shmbuf_regist=true still gives a
 * working window, and offloaded sends from its memory need no copy.
 *
 *   ip_window [nohint]
 *
 * With nohint, no hint is given anywhere: the windows work the same, and
 * offloaded sends from them take bounce copies (bounce>0).
 *
 * 1. A window over the users of this host (MPI_Comm_split_type SHARED),
 *    hint on the window's info: every user stores into its part, the
 *    others load it through MPI_Win_shared_query; an MPI_Put into the next
 *    local user's part under fences; then an offloaded ring exchange on a
 *    wildcard_used=none duplicate of MPI_COMM_WORLD, sent from window
 *    memory into MPI_Alloc_mem(shmbuf_regist=true) memory.
 * 2. A window over MPI_COMM_SELF, hint on MPI_COMM_SELF's hints (set with
 *    MPI_Comm_set_info), no window info: the same exchange from it.
 * 3. Both windows freed with MPI_Win_free; a third, unhinted window still
 *    works.
 *
 * With CSP_STATS=1 every user must report bounce=0.
 * Output: "result rank=<r> test=<name> ok=<0|1>" lines.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#define PART (64 * 1024) /* bytes per process: more than a page */

static int rank, size, bad;

static void check(const char *name, int ok)
{
    printf("result rank=%d test=%s ok=%d\n", rank, name, ok);
    bad += !ok;
}

static unsigned char val(int who, int i)
{
    return (unsigned char)(who * 37 + i * 11 + 1);
}

/* Ring exchange of n bytes from sbuf on the offloaded communicator c. */
static int exchange(MPI_Comm c, const unsigned char *sbuf, unsigned char *rbuf, int n,
                    int fill_rank)
{
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    MPI_Request r[2];
    memset(rbuf, 0, n);
    MPI_Irecv(rbuf, n, MPI_BYTE, prev, 1, c, &r[0]);
    MPI_Isend(sbuf, n, MPI_BYTE, next, 1, c, &r[1]);
    MPI_Status st[2];
    MPI_Waitall(2, r, st);
    int ok = 1;
    for (int i = 0; i < n && ok; i++)
        ok = rbuf[i] == val(fill_rank < 0 ? prev : fill_rank, i);
    return ok;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int hint = !(argc > 1 && strcmp(argv[1], "nohint") == 0);

    MPI_Info none, reg;
    MPI_Info_create(&none);
    MPI_Info_set(none, "wildcard_used", "none");
    MPI_Info_create(&reg);
    MPI_Info_set(reg, "shmbuf_regist", "true");
    MPI_Comm off;
    MPI_Comm_dup_with_info(MPI_COMM_WORLD, none, &off);
    /* bookkeeping traffic goes on a communicator that is not offloaded, so
     * the bounce counter speaks of window memory only */
    MPI_Info noasync;
    MPI_Info_create(&noasync);
    MPI_Info_set(noasync, "async_config", "off");
    MPI_Comm aux;
    MPI_Comm_dup_with_info(MPI_COMM_WORLD, noasync, &aux);
    MPI_Info_free(&noasync);
    unsigned char *rbuf;
    MPI_Alloc_mem(PART, reg, &rbuf);

    /* 1. a shared window of the host's users, hint on the window */
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    int nrank, nsize;
    MPI_Comm_rank(node, &nrank);
    MPI_Comm_size(node, &nsize);
    unsigned char *mine;
    MPI_Win win;
    MPI_Win_allocate_shared(PART, 1, hint ? reg : MPI_INFO_NULL, node, &mine, &win);
    for (int i = 0; i < PART; i++)
        mine[i] = val(nrank, i);
    MPI_Win_fence(0, win);
    int ok = 1;
    for (int p = 0; p < nsize; p++) {
        MPI_Aint sz;
        int du;
        unsigned char *base;
        MPI_Win_shared_query(win, p, &sz, &du, &base);
        ok &= sz == PART && du == 1;
        for (int i = 0; i < PART && ok; i++)
            ok = base[i] == val(p, i);
    }
    check("shared-load", ok);

    /* a Put of 16 bytes into the next local user's part */
    unsigned char put[16];
    for (int i = 0; i < 16; i++)
        put[i] = (unsigned char)(200 + nrank);
    MPI_Win_fence(0, win);
    MPI_Put(put, 16, MPI_BYTE, (nrank + 1) % nsize, 100, 16, MPI_BYTE, win);
    MPI_Win_fence(0, win);
    int from = (nrank + nsize - 1) % nsize;
    ok = 1;
    for (int i = 0; i < 16; i++)
        ok &= mine[100 + i] == (unsigned char)(200 + from);
    check("put", ok);
    for (int i = 100; i < 116; i++)
        mine[i] = val(nrank, i);
    MPI_Win_fence(0, win);

    /* offloaded exchange from window memory (the sender's node rank fills it) */
    int prev = (rank + size - 1) % size, prev_nrank;
    MPI_Sendrecv(&nrank, 1, MPI_INT, (rank + 1) % size, 2, &prev_nrank, 1, MPI_INT, prev, 2,
                 aux, MPI_STATUS_IGNORE);
    check("send-from-window", exchange(off, mine, rbuf, PART, prev_nrank));

    /* 2. a window over MPI_COMM_SELF, hint on MPI_COMM_SELF */
    if (hint)
        MPI_Comm_set_info(MPI_COMM_SELF, reg);
    unsigned char *self;
    MPI_Win swin;
    MPI_Win_allocate_shared(3 * PART, 1, MPI_INFO_NULL, MPI_COMM_SELF, &self, &swin);
    for (int i = 0; i < 3 * PART; i++)
        self[i] = val(rank, i);
    MPI_Aint ssz;
    int sdu;
    unsigned char *sbase;
    MPI_Win_shared_query(swin, 0, &ssz, &sdu, &sbase);
    check("self-query", sbase == self && ssz == 3 * PART);
    /* send from the middle of it: its first and last bytes stay as they were */
    unsigned char *aligned = self + PART;
    check("send-from-self-window", exchange(off, aligned, rbuf, PART, -1) &&
                                       self[0] == val(rank, 0) &&
                                       self[3 * PART - 1] == val(rank, 3 * PART - 1));

    /* 3. free, then an unhinted window still works */
    MPI_Win_free(&swin);
    MPI_Win_free(&win);
    MPI_Win plain;
    unsigned char *pm;
    MPI_Win_allocate_shared(100, 1, MPI_INFO_NULL, node, &pm, &plain);
    pm[0] = (unsigned char)nrank;
    MPI_Win_fence(0, plain);
    MPI_Aint psz;
    int pdu;
    unsigned char *pbase;
    MPI_Win_shared_query(plain, (nrank + 1) % nsize, &psz, &pdu, &pbase);
    check("plain-window", pbase[0] == (unsigned char)((nrank + 1) % nsize));
    MPI_Win_fence(0, plain);
    MPI_Win_free(&plain);

    MPI_Free_mem(rbuf);
    MPI_Info_free(&none);
    MPI_Info_free(&reg);
    MPI_Comm_free(&off);
    MPI_Comm_free(&node);
    MPI_Finalize();
    return bad != 0;
}
