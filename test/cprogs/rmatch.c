/*
 * rmatch: seeded randomized matching test.
 *
 *   rmatch <seed> <messages> <wildcard_used value> [regist] [switch]
 *
 * Every rank derives the same schedule from the seed: phases of random
 * messages (sender, receiver, tag, size) and, at each receiver, one receive
 * per message with a random spec (exact, MPI_ANY_TAG, MPI_ANY_SOURCE or
 * both, as the mode allows) posted in random order, completed by a random
 * call of the Wait/Test family, or received sequentially through
 * Recv/Probe/Iprobe/Mprobe/Improbe. Senders use Isend, Issend, Send, Ssend,
 * persistent requests and Request_free at random.
 *
 * Wildcards are only used where MPI's outcome does not depend on timing:
 * every receive's candidate messages come from a single sender (whose
 * messages arrive in order). So the log of what each receive got must be
 * identical under CasperII and under plain MPI (CSP_NG=0): the test
 * compares the two logs line by line.
 *
 * With switch, every phase also flips the communicator's async_config
 * (MPI_Comm_set_info) at a seeded point: before anything is posted, or
 * with the phase's nonblocking receives posted and nothing sent yet (the
 * switch of route then waits for the phase's closing barrier,
 * internal/core/switch.go). Only points where no blocking send can be
 * waiting for the caller: set_info is collective.
 *
 * Output: one line per receive, "R <rank> <phase> <i> spec=<src>,<tag>
 * got=<src>,<tag>,<bytes> msg=<phase>.<id>", then "DONE <rank> <n>".
 * Checks the payload of every message; exits 1 on a mismatch.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PHASE_MSGS 48
#define MAXTAG 16

static uint64_t rng_state;
static uint64_t rnd(void)
{
    uint64_t x = rng_state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return rng_state = x;
}
static int rint_(int n) { return (int)(rnd() % (uint64_t)n); }

struct msg {
    int id, src, dst, tag, size;
    int sspec, tspec;   /* receive spec at dst                     */
    int smode;          /* 0 Isend 1 Issend 2 Send 3 Ssend 4 persist 5 Isend+free */
};

static int rank, nprocs, anysrc_ok, anytag_ok;
static MPI_Comm comm;
static int async_on = 1;

static void flip_async(void)
{
    MPI_Info info;
    MPI_Info_create(&info);
    async_on = !async_on;
    MPI_Info_set(info, "async_config", async_on ? "on" : "off");
    MPI_Comm_set_info(comm, info);
    MPI_Info_free(&info);
}

static void fill(unsigned char *b, int n, int phase, int id)
{
    for (int i = 0; i < n; i++)
        b[i] = (unsigned char)(phase * 31 + id * 7 + i);
}

static void die(const char *why, int phase, int i)
{
    printf("FAIL rank %d phase %d item %d: %s\n", rank, phase, i, why);
    fflush(stdout);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

static int pick_size(void)
{
    int r = rint_(100);
    if (r < 10) return 0;
    if (r < 55) return 8 + rint_(57); /* >= 8: long enough to carry its id */
    if (r < 85) return 64 + rint_(4096);
    if (r < 97) return 4096 + rint_(65536);
    return 65536 + rint_(1 << 20);
}

/* Identify a received message from its payload (first bytes encode it). */
static void stamp(unsigned char *b, int n, int phase, int id)
{
    fill(b, n, phase, id);
    if (n >= 8) {
        memcpy(b, &phase, 4);
        memcpy(b + 4, &id, 4);
    }
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: rmatch <seed> <messages> <wildcard_used> [regist]\n");
        return 2;
    }
    uint64_t seed = strtoull(argv[1], NULL, 10);
    int total = atoi(argv[2]);
    const char *mode = argv[3];
    int regist = 0, switching = 0;
    for (int i = 4; i < argc; i++) {
        regist |= strcmp(argv[i], "regist") == 0;
        switching |= strcmp(argv[i], "switch") == 0;
    }
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    anysrc_ok = strstr(mode, "any_src") != NULL;
    anytag_ok = strstr(mode, "any_tag_same_tag") != NULL || strcmp(mode, "any_src") == 0;

    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "wildcard_used", mode);
    MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &comm);
    MPI_Info_free(&info);
    MPI_Info ainfo;
    MPI_Info_create(&ainfo);
    MPI_Info_set(ainfo, "shmbuf_regist", "true");

    unsigned char *nb; /* the never-matched receive's buffer */
    if (regist)
        MPI_Alloc_mem(4, ainfo, &nb);
    else
        nb = malloc(4);
    rng_state = seed * 0x9E3779B97F4A7C15ull + 1;
    int nphases = (total + PHASE_MSGS - 1) / PHASE_MSGS, logged = 0;
    struct msg m[PHASE_MSGS];
    for (int phase = 0; phase < nphases; phase++) {
        int nm = PHASE_MSGS;
        int flip_at = switching ? rint_(2) : -1; /* 0: now, 1: receives posted */
        if (flip_at == 0)
            flip_async();
        /* --- schedule, identical on every rank --- */
        int tagowner[64][MAXTAG]; /* per receiver, per tag: the only sender, -1 mixed, -2 none */
        int onesender[64];
        for (int r = 0; r < nprocs; r++) {
            onesender[r] = -2;
            for (int t = 0; t < MAXTAG; t++)
                tagowner[r][t] = -2;
        }
        /* Paired phases: every receiver hears from one sender only. */
        int paired = rint_(3) == 0, partner[64];
        for (int r = 0; r < nprocs; r++)
            partner[r] = rint_(nprocs);
        for (int i = 0; i < nm; i++) {
            m[i].id = i;
            m[i].dst = rint_(nprocs);
            m[i].src = paired ? partner[m[i].dst] : rint_(nprocs);
            m[i].tag = rint_(MAXTAG);
            m[i].size = pick_size();
            m[i].smode = rint_(6);
            int *o = &tagowner[m[i].dst][m[i].tag];
            *o = *o == -2 ? m[i].src : (*o == m[i].src ? *o : -1);
            int *s = &onesender[m[i].dst];
            *s = *s == -2 ? m[i].src : (*s == m[i].src ? *s : -1);
        }
        /* One spec style per (receiver, sender) group, so that whatever
         * the posting order, every receive still has a message to match:
         * 0 exact, 1 MPI_ANY_TAG, 2 MPI_ANY_SOURCE (if the group owns all
         * its tags at the receiver), 3 both (if the group is the
         * receiver's only sender this phase). */
        for (int r = 0; r < nprocs; r++) {
            for (int s = 0; s < nprocs; s++) {
                int style = rint_(4), owns = 1, any = 0;
                for (int i = 0; i < nm; i++) {
                    if (m[i].dst != r || m[i].src != s)
                        continue;
                    any = 1;
                    if (tagowner[r][m[i].tag] != s)
                        owns = 0;
                }
                if (!any)
                    continue;
                if (style == 1 && !anytag_ok)
                    style = 0;
                if (style == 2 && !(anysrc_ok && owns))
                    style = 0;
                if (style == 3 && !(anysrc_ok && anytag_ok && onesender[r] == s))
                    style = 0;
                for (int i = 0; i < nm; i++) {
                    if (m[i].dst != r || m[i].src != s)
                        continue;
                    m[i].sspec = style >= 2 ? MPI_ANY_SOURCE : s;
                    m[i].tspec = style == 1 || style == 3 ? MPI_ANY_TAG : m[i].tag;
                }
            }
        }
        int sequential = rint_(3) == 0; /* receive one by one with probes */
        int completion = rint_(8);
        int order_seed = rint_(1 << 30);

        /* --- my receives, in a random (but agreed) order --- */
        int mine[PHASE_MSGS], nmine = 0, maxsize = 1;
        for (int i = 0; i < nm; i++) {
            if (m[i].dst == rank)
                mine[nmine++] = i;
            if (m[i].size > maxsize)
                maxsize = m[i].size;
        }
        uint64_t save = rng_state;
        rng_state = (uint64_t)order_seed * 2654435761u + (uint64_t)rank + 7;
        for (int k = nmine - 1; k > 0; k--) {
            int j = rint_(k + 1), t = mine[k];
            mine[k] = mine[j];
            mine[j] = t;
        }
        rng_state = save;

        unsigned char *rbuf[PHASE_MSGS];
        for (int k = 0; k < nmine; k++) {
            if (regist)
                MPI_Alloc_mem(maxsize, ainfo, &rbuf[k]);
            else
                rbuf[k] = malloc(maxsize);
        }
        MPI_Request rreq[PHASE_MSGS], preq[PHASE_MSGS];
        MPI_Status rst[PHASE_MSGS];
        int persistent_recv = !sequential && (order_seed & 1);
        if (!sequential) {
            for (int k = 0; k < nmine; k++) {
                struct msg *x = &m[mine[k]];
                if (persistent_recv) {
                    MPI_Recv_init(rbuf[k], maxsize, MPI_BYTE, x->sspec, x->tspec, comm, &preq[k]);
                    rreq[k] = preq[k];
                    MPI_Start(&rreq[k]);
                } else {
                    MPI_Irecv(rbuf[k], maxsize, MPI_BYTE, x->sspec, x->tspec, comm, &rreq[k]);
                }
            }
        }
        /* A receive that never matches, cancelled. */
        MPI_Request never;
        MPI_Irecv(nb, 4, MPI_BYTE, rank, MAXTAG + 1, comm, &never);
        if (flip_at == 1)
            flip_async();

        /* --- my sends --- */
        unsigned char *sbuf[PHASE_MSGS];
        MPI_Request sreq[PHASE_MSGS], spers[PHASE_MSGS];
        int ns = 0;
        for (int i = 0; i < nm; i++) {
            if (m[i].src != rank)
                continue;
            int sz = m[i].size;
            if (regist)
                MPI_Alloc_mem(sz ? sz : 1, ainfo, &sbuf[ns]);
            else
                sbuf[ns] = malloc(sz ? sz : 1);
            stamp(sbuf[ns], sz, phase, i);
            int sm = m[i].smode;
            if (sequential && (sm == 2 || sm == 3))
                sm = 0; /* a sequential receiver could deadlock blocking sends */
            sreq[ns] = MPI_REQUEST_NULL;
            spers[ns] = MPI_REQUEST_NULL;
            switch (sm) {
            case 0: MPI_Isend(sbuf[ns], sz, MPI_BYTE, m[i].dst, m[i].tag, comm, &sreq[ns]); break;
            case 1: MPI_Issend(sbuf[ns], sz, MPI_BYTE, m[i].dst, m[i].tag, comm, &sreq[ns]); break;
            case 2: MPI_Send(sbuf[ns], sz, MPI_BYTE, m[i].dst, m[i].tag, comm); break;
            case 3: MPI_Ssend(sbuf[ns], sz, MPI_BYTE, m[i].dst, m[i].tag, comm); break;
            case 4:
                MPI_Send_init(sbuf[ns], sz, MPI_BYTE, m[i].dst, m[i].tag, comm, &spers[ns]);
                sreq[ns] = spers[ns];
                MPI_Start(&sreq[ns]);
                break;
            case 5:
                MPI_Isend(sbuf[ns], sz, MPI_BYTE, m[i].dst, m[i].tag, comm, &sreq[ns]);
                MPI_Request_free(&sreq[ns]);
                break;
            }
            ns++;
        }

        /* --- complete my receives --- */
        if (sequential) {
            for (int k = 0; k < nmine; k++) {
                struct msg *x = &m[mine[k]];
                int how = (order_seed + k) % 5, flag = 0;
                MPI_Status pst;
                MPI_Message msg;
                MPI_Request q;
                switch (how) {
                case 0:
                    MPI_Recv(rbuf[k], maxsize, MPI_BYTE, x->sspec, x->tspec, comm, &rst[k]);
                    break;
                case 1:
                    MPI_Probe(x->sspec, x->tspec, comm, &pst);
                    MPI_Recv(rbuf[k], maxsize, MPI_BYTE, pst.MPI_SOURCE, pst.MPI_TAG, comm, &rst[k]);
                    break;
                case 2:
                    while (!flag)
                        MPI_Iprobe(x->sspec, x->tspec, comm, &flag, &pst);
                    MPI_Recv(rbuf[k], maxsize, MPI_BYTE, pst.MPI_SOURCE, pst.MPI_TAG, comm, &rst[k]);
                    break;
                case 3:
                    MPI_Mprobe(x->sspec, x->tspec, comm, &msg, &pst);
                    MPI_Mrecv(rbuf[k], maxsize, MPI_BYTE, &msg, &rst[k]);
                    break;
                case 4:
                    while (!flag)
                        MPI_Improbe(x->sspec, x->tspec, comm, &flag, &msg, &pst);
                    MPI_Imrecv(rbuf[k], maxsize, MPI_BYTE, &msg, &q);
                    MPI_Wait(&q, &rst[k]);
                    break;
                }
                if (how >= 1) {
                    int pc, rc;
                    MPI_Get_count(&pst, MPI_BYTE, &pc);
                    MPI_Get_count(&rst[k], MPI_BYTE, &rc);
                    if (pst.MPI_SOURCE != rst[k].MPI_SOURCE || pst.MPI_TAG != rst[k].MPI_TAG || pc != rc)
                        die("probe status differs from the receive's", phase, k);
                }
            }
        } else {
            int left = nmine, idx, cnt, done[PHASE_MSGS] = {0};
            int idxs[PHASE_MSGS];
            MPI_Status tmp[PHASE_MSGS];
            switch (completion) {
            case 0:
                MPI_Waitall(nmine, rreq, rst);
                break;
            case 1:
                for (int k = nmine - 1; k >= 0; k--)
                    MPI_Wait(&rreq[k], &rst[k]);
                break;
            case 2:
                while (left) {
                    MPI_Waitany(nmine, rreq, &idx, &tmp[0]);
                    rst[idx] = tmp[0];
                    left--;
                }
                break;
            case 3:
                while (left) {
                    MPI_Waitsome(nmine, rreq, &cnt, idxs, tmp);
                    for (int j = 0; j < cnt; j++)
                        rst[idxs[j]] = tmp[j];
                    left -= cnt;
                }
                break;
            case 4: {
                int flag = 0;
                while (!flag)
                    MPI_Testall(nmine, rreq, &flag, rst);
                break;
            }
            case 5:
                while (left) {
                    int flag = 0;
                    MPI_Testany(nmine, rreq, &idx, &flag, &tmp[0]);
                    if (flag && idx != MPI_UNDEFINED) {
                        rst[idx] = tmp[0];
                        left--;
                    }
                }
                break;
            case 6:
                while (left) {
                    MPI_Testsome(nmine, rreq, &cnt, idxs, tmp);
                    for (int j = 0; j < cnt; j++)
                        rst[idxs[j]] = tmp[j];
                    left -= cnt > 0 ? cnt : 0;
                }
                break;
            default:
                while (left) {
                    for (int k = 0; k < nmine; k++) {
                        int flag = 0;
                        if (done[k])
                            continue;
                        MPI_Request_get_status(rreq[k], &flag, &tmp[0]);
                        if (flag) {
                            MPI_Wait(&rreq[k], &rst[k]);
                            done[k] = 1;
                            left--;
                        }
                    }
                }
                break;
            }
            if (persistent_recv)
                for (int k = 0; k < nmine; k++)
                    MPI_Request_free(&preq[k]);
        }
        MPI_Cancel(&never);
        MPI_Status nst;
        MPI_Wait(&never, &nst);
        int cancelled = 0;
        MPI_Test_cancelled(&nst, &cancelled);
        if (!cancelled)
            die("a receive nobody matches was not cancelled", phase, -1);

        /* --- log and check what each receive got --- */
        for (int k = 0; k < nmine; k++) {
            struct msg *x = &m[mine[k]];
            int count, gotph = -1, gotid = -1;
            MPI_Get_count(&rst[k], MPI_BYTE, &count);
            int s = rst[k].MPI_SOURCE, t = rst[k].MPI_TAG;
            /* identify the message: by stamp when long enough, else by
             * (source, tag, size) among this phase's messages to me */
            if (count >= 8) {
                memcpy(&gotph, rbuf[k], 4);
                memcpy(&gotid, rbuf[k] + 4, 4);
            } else {
                for (int j = 0; j < nm; j++)
                    if (m[j].dst == rank && m[j].src == s && m[j].tag == t && m[j].size == count)
                        gotid = j, gotph = phase;
            }
            if (gotph != phase || gotid < 0 || gotid >= nm)
                die("unidentifiable message", phase, k);
            struct msg *g = &m[gotid];
            if (g->dst != rank || g->src != s || g->tag != t || g->size != count)
                die("status does not describe the message received", phase, k);
            if ((x->sspec != MPI_ANY_SOURCE && x->sspec != s) || (x->tspec != MPI_ANY_TAG && x->tspec != t))
                die("message does not match the receive's spec", phase, k);
            unsigned char *want = malloc(count ? count : 1);
            stamp(want, count, phase, gotid);
            if (memcmp(want, rbuf[k], count) != 0)
                die("payload corrupted", phase, k);
            free(want);
            printf("R %d %d %d spec=%d,%d got=%d,%d,%d msg=%d.%d\n", rank, phase, k, x->sspec,
                   x->tspec, s, t, count, phase, gotid);
            logged++;
        }
        /* --- complete my sends --- */
        for (int k = 0; k < ns; k++) {
            if (sreq[k] != MPI_REQUEST_NULL)
                MPI_Wait(&sreq[k], MPI_STATUS_IGNORE);
            if (spers[k] != MPI_REQUEST_NULL)
                MPI_Request_free(&spers[k]);
        }
        MPI_Barrier(comm); /* freed sends are delivered: their receivers are done */
        for (int k = 0; k < ns; k++) {
            if (regist)
                MPI_Free_mem(sbuf[k]);
            else
                free(sbuf[k]);
        }
        for (int k = 0; k < nmine; k++) {
            if (regist)
                MPI_Free_mem(rbuf[k]);
            else
                free(rbuf[k]);
        }
    }
    printf("DONE %d %d\n", rank, logged);
    if (regist)
        MPI_Free_mem(nb);
    else
        free(nb);
    MPI_Info_free(&ainfo);
    MPI_Comm_free(&comm);
    MPI_Finalize();
    return 0;
}
