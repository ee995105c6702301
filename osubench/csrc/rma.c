/*
 * rma.c: one-sided communication while the target computes (issue 16).
 * The window comes from MPI_Win_allocate(info MPI_INFO_NULL) over
 * MPI_COMM_WORLD, displacement unit 8 (doubles); every size must be a
 * multiple of 8 bytes.
 *
 * -w flush (the default), -w fence: user 0 is the origin, user 1 the target (any
 * other user only joins the barriers). Per size, per operation (put, get,
 * accumulate MPI_SUM on doubles) and per target datatype (contig: size/8
 * doubles; strided: MPI_Type_vector of rows of 256 bytes, or of the whole
 * size if smaller, with a stride of two rows: the same bytes, every other
 * row of a 2D array), every iteration is
 *
 *   origin: [touch: write its buffer]
 *           MPI_Barrier
 *           MPI_Win_lock(SHARED, 1); op; MPI_Win_flush(1); MPI_Win_unlock(1)
 *           [touch, get: read its buffer]
 *           MPI_Barrier
 *   target: MPI_Barrier
 *           compute -u us without calling MPI (-c busy: spin until this
 *           thread has used that much CPU time, a fixed amount of work, so
 *           whatever else runs on its core stretches it; -c sleep: one
 *           nanosleep; -c idle: no compute, it waits in the MPI_Barrier)
 *           MPI_Barrier
 *           [touch: read the window where the operation wrote]
 *
 * With -w fence the first MPI_Barrier of every iteration is
 * MPI_Win_fence(MPI_MODE_NOPRECEDE | MPI_MODE_NOSUCCEED) on the window
 * instead: it opens no epoch (the lock epoch may follow) and is a
 * window-wide point where every member is, where async_config=auto may
 * switch the window (CasperII agrees there on a cadence).
 *
 * The origin's epoch starts right after the barrier, so it overlaps the
 * target's compute. Rank 0 prints per size, for each <op>_<dt> (put, get,
 * acc x contig, strided): _epoch_us (lock to unlock), _lock_us, _op_us (the
 * call), _flush_us (time in MPI_Win_flush), _unlock_us, means over the
 * iterations; _stretch_pct, how much longer the target's compute took
 * than asked (100 (measured wall / asked - 1): the time other processes,
 * ghosts or progress threads, took from its core); _iters. Then
 * stretch_pct (the mean over the cells), comp_us (the target's compute,
 * measured, mean), touch_us (the origin's and target's touching per
 * iteration, mean over the two), and cpu_pct/vcsw/ivcsw over every cell.
 * The budget -b is per size: each of its 6 cells gets a sixth, at least
 * -m iterations (each lasts the compute: the driver passes 4), stopped
 * early only past 3 budgets of the size.
 *
 * -w ga: a Global-Arrays-like read-modify-write workload. User 0 is the
 * target; every other user repeatedly does MPI_Win_lock(SHARED, 0);
 * MPI_Accumulate(size bytes of doubles, MPI_SUM) at displacement 0;
 * MPI_Win_unlock(0), until the phase (-b ms) is over, while user 0
 * computes in slices of -q us (busy: CPU time; sleep: nanosleep; idle: it
 * waits in the closing MPI_Barrier) without calling MPI. One warm-up phase
 * of a quarter of the budget, then 3 timed phases. The accumulated values
 * are small integers, so the sums are exact: after each phase user 0 locks
 * its own window and compares every element with the origins' totals
 * (MPI_Reduce). Rank 0 prints acc_per_s (accumulates completed per second,
 * all origins), epoch_us (an origin's lock + accumulate + unlock, mean),
 * epoch_max_us (the slowest origin's mean), accs (accumulates counted),
 * comp_pct (user 0's compute time over its wall time in the phases),
 * touch_us, and ok=1 if every element held the expected sum (else ok=0).
 */
#include "common.h"

enum { OP_PUT, OP_GET, OP_ACC, NOPS };
static const char *opname[NOPS] = {"put", "get", "acc"};
enum { DT_CONTIG, DT_STRIDED, NDTS };
static const char *dtname[NDTS] = {"contig", "strided"};

#define ROW_BYTES 256
#define TARGET 1
#define GA_PHASES 3

static MPI_Win win;
static double *wbase; /* the window's memory */
static double *obuf;  /* the origin's buffer */
static int ga;        /* -w ga */
static int fence;     /* -w fence */

/* start_sync is the first synchronization of an iteration: a barrier, or
 * with -w fence a fence that opens no epoch. */
static void start_sync(void)
{
    if (fence)
        OSUB_CHECK(MPI_Win_fence(MPI_MODE_NOPRECEDE | MPI_MODE_NOSUCCEED, win));
    else
        OSUB_CHECK(MPI_Barrier(MPI_COMM_WORLD));
}

/* cpu_now is this thread's CPU time (user + system). */
static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* work computes us microseconds without calling MPI: busy spins until this
 * thread has used us of CPU time (a fixed amount of work: time taken from
 * its core by others makes it last longer), sleep is one nanosleep, idle
 * does nothing. */
static void work(double us)
{
    if (O.idle || us <= 0)
        return;
    if (O.busy) {
        double end = cpu_now() + us * 1e-6;
        while (cpu_now() < end)
            ;
        return;
    }
    osub_compute(us);
}

/* Touching with doubles: small integers, so accumulated sums stay exact
 * and no value is a NaN or a denormal. */
static uint64_t gen;
static void touch_doubles(double *p, long n)
{
    uint64_t g = ++gen;
    for (long i = 0; i < n; i++)
        p[i] = (double)((g + (uint64_t)i) % 16 + 1);
    __asm__ __volatile__("" : : "r"(p) : "memory");
}

/* The strided type's geometry for n doubles: rows of row doubles, a
 * stride of 2 rows. */
static long row_of(long n)
{
    long row = ROW_BYTES / 8;
    if (row > n || n % row != 0)
        row = n;
    return row;
}

/* elem is the displacement (in doubles) of element j of the target
 * datatype dt of n doubles. */
static long elem(int dt, long n, long j)
{
    if (dt == DT_CONTIG)
        return j;
    long row = row_of(n);
    return (j / row) * 2 * row + j % row;
}

static MPI_Datatype target_type(int dt, long n, int *count)
{
    if (dt == DT_CONTIG) {
        *count = (int)n;
        return MPI_DOUBLE;
    }
    long row = row_of(n);
    MPI_Datatype t;
    OSUB_CHECK(MPI_Type_vector((int)(n / row), (int)row, (int)(2 * row), MPI_DOUBLE, &t));
    OSUB_CHECK(MPI_Type_commit(&t));
    *count = 1;
    return t;
}

typedef struct {
    double epoch, lock, op, flush, unlock; /* origin: sums */
    double comp;                           /* target: measured compute, sum */
    double touch;                          /* origin's or target's touching, sum */
} cell_times;

static void issue(int op, long n, MPI_Datatype tt, int tcount)
{
    switch (op) {
    case OP_PUT:
        OSUB_CHECK(MPI_Put(obuf, (int)n, MPI_DOUBLE, TARGET, 0, tcount, tt, win));
        break;
    case OP_GET:
        OSUB_CHECK(MPI_Get(obuf, (int)n, MPI_DOUBLE, TARGET, 0, tcount, tt, win));
        break;
    default:
        OSUB_CHECK(MPI_Accumulate(obuf, (int)n, MPI_DOUBLE, TARGET, 0, tcount, tt, MPI_SUM, win));
    }
}

/* iterate runs iters iterations of one cell. */
static void iterate(long iters, int op, int dt, long n, MPI_Datatype tt, int tcount, cell_times *t)
{
    for (long i = 0; i < iters; i++) {
        if (osub_rank == 0 && O.touch && op != OP_GET) {
            double w0 = osub_now();
            touch_doubles(obuf, n);
            t->touch += osub_now() - w0;
        }
        start_sync();
        if (osub_rank == 0) {
            double t0 = osub_now();
            OSUB_CHECK(MPI_Win_lock(MPI_LOCK_SHARED, TARGET, 0, win));
            double t1 = osub_now();
            issue(op, n, tt, tcount);
            double t2 = osub_now();
            OSUB_CHECK(MPI_Win_flush(TARGET, win));
            double t3 = osub_now();
            OSUB_CHECK(MPI_Win_unlock(TARGET, win));
            double t4 = osub_now();
            t->epoch += t4 - t0;
            t->lock += t1 - t0;
            t->op += t2 - t1;
            t->flush += t3 - t2;
            t->unlock += t4 - t3;
            if (O.touch && op == OP_GET) {
                double r0 = osub_now();
                osub_touch_read(obuf, n * 8);
                t->touch += osub_now() - r0;
            }
        } else if (osub_rank == TARGET) {
            double c0 = osub_now();
            work(O.halo_us);
            t->comp += osub_now() - c0;
        }
        OSUB_CHECK(MPI_Barrier(MPI_COMM_WORLD));
        if (osub_rank == TARGET && O.touch && op != OP_GET) {
            double r0 = osub_now();
            osub_touch_read(wbase, (dt == DT_CONTIG ? n : 2 * n) * 8);
            t->touch += osub_now() - r0;
        }
    }
}

/* check verifies each operation once with known data (-C). */
static void check(int op, int dt, long n, MPI_Datatype tt, int tcount)
{
    int bad = 0;
    /* The target's window: zero (acc), a pattern (get) or untouched (put). */
    if (osub_rank == TARGET) {
        OSUB_CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, TARGET, 0, win));
        for (long i = 0; i < 2 * n; i++)
            wbase[i] = op == OP_GET ? (double)(i % 97 + 3) : 0;
        OSUB_CHECK(MPI_Win_unlock(TARGET, win));
    }
    if (osub_rank == 0)
        for (long j = 0; j < n; j++)
            obuf[j] = op == OP_GET ? -1 : (double)(j % 89 + 1);
    OSUB_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    if (osub_rank == 0) {
        OSUB_CHECK(MPI_Win_lock(MPI_LOCK_SHARED, TARGET, 0, win));
        issue(op, n, tt, tcount);
        if (op == OP_ACC)
            issue(op, n, tt, tcount);
        OSUB_CHECK(MPI_Win_unlock(TARGET, win));
        if (op == OP_GET)
            for (long j = 0; j < n; j++)
                bad |= obuf[j] != (double)(elem(dt, n, j) % 97 + 3);
    }
    OSUB_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    if (osub_rank == TARGET && op != OP_GET) {
        OSUB_CHECK(MPI_Win_lock(MPI_LOCK_SHARED, TARGET, 0, win));
        for (long j = 0; j < n; j++)
            bad |= wbase[elem(dt, n, j)] != (op == OP_ACC ? 2 : 1) * (double)(j % 89 + 1);
        if (dt == DT_STRIDED)
            for (long j = 0; j < n; j++) /* the gaps between the rows stay 0 */
                bad |= wbase[elem(dt, n, j) + row_of(n)] != 0 && row_of(n) != n;
        OSUB_CHECK(MPI_Win_unlock(TARGET, win));
    }
    int any = 0;
    OSUB_CHECK(MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD));
    if (any) {
        char msg[128];
        snprintf(msg, sizeof msg, "rma: data check of %s %s at %ld bytes failed", opname[op], dtname[dt],
                 n * 8);
        osub_die(msg);
    }
}

static void flush_bench(void)
{
    if (osub_nusers < 2)
        osub_die("the rma test needs an origin and a target (2 users)");
    /* Each cell gets a sixth of the budget; the rounds' overrun limit stays
     * the size's budget, so that the minimum of epochs, each as long as the
     * compute, is kept. */
    const double cell_budget = O.budget_s / (NOPS * NDTS);
    for (int s = 0; s < O.nsizes; s++) {
        long size = O.sizes[s], n = size / 8;
        char line[8192];
        int len = snprintf(line, sizeof line, "osub bench=rma size=%ld", size);
        double stretch_sum = 0, comp_sum = 0, touch_sum = 0, cpu = 0, vcsw = 0, ivcsw = 0;
        long iters_min = 0, comp_n = 0;
        for (int op = 0; op < NOPS; op++)
            for (int dt = 0; dt < NDTS; dt++) {
                int tcount;
                MPI_Datatype tt = target_type(dt, n, &tcount);
                if (O.check)
                    check(op, dt, n, tt, tcount);
                cell_times t = {0};
                double w0 = osub_now();
                iterate(1, op, dt, n, tt, tcount, &t); /* registration, first touch */
                double size_budget = O.budget_s;
                O.budget_s = cell_budget;
                long iters = osub_iters(osub_now() - w0, 1);
                O.budget_s = size_budget;
                memset(&t, 0, sizeof t);
                osub_rounds r;
                osub_use use;
                for (long k = osub_rounds_begin(&r, iters); k > 0; k = osub_rounds_next(&r, k))
                    iterate(k, op, dt, n, tt, tcount, &t);
                iters = osub_rounds_end(&r, &use);
                if (tt != MPI_DOUBLE)
                    MPI_Type_free(&tt);
                /* Origin's values from rank 0, the target's from TARGET. */
                double in[7] = {0, 0, 0, 0, 0, 0, 0}, out[7];
                if (osub_rank == 0) {
                    in[0] = t.epoch / iters, in[1] = t.lock / iters, in[2] = t.op / iters;
                    in[3] = t.flush / iters, in[4] = t.unlock / iters;
                }
                if (osub_rank == TARGET)
                    in[5] = t.comp / iters;
                if (osub_rank == 0 || osub_rank == TARGET)
                    in[6] = t.touch / iters;
                OSUB_CHECK(MPI_Allreduce(in, out, 7, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
                const char *o = opname[op], *d = dtname[dt];
                len += snprintf(line + len, sizeof line - len,
                                " %s_%s_epoch_us=%.4f %s_%s_lock_us=%.4f %s_%s_op_us=%.4f "
                                "%s_%s_flush_us=%.4f %s_%s_unlock_us=%.4f %s_%s_iters=%ld",
                                o, d, out[0] * 1e6, o, d, out[1] * 1e6, o, d, out[2] * 1e6, o, d,
                                out[3] * 1e6, o, d, out[4] * 1e6, o, d, iters);
                if (!O.idle && O.halo_us > 0) {
                    double st = 100 * (out[5] * 1e6 / O.halo_us - 1);
                    len += snprintf(line + len, sizeof line - len, " %s_%s_stretch_pct=%.3f", o, d, st);
                    stretch_sum += st;
                    comp_sum += out[5];
                    comp_n++;
                }
                touch_sum += out[6] / 2;
                cpu += use.cpu_frac;
                vcsw += use.vcsw;
                ivcsw += use.ivcsw;
                if (iters_min == 0 || iters < iters_min)
                    iters_min = iters;
            }
        const int cells = NOPS * NDTS;
        len += snprintf(line + len, sizeof line - len, " iters=%ld", iters_min);
        if (comp_n > 0)
            len += snprintf(line + len, sizeof line - len, " stretch_pct=%.3f comp_us=%.4f",
                            stretch_sum / comp_n, comp_sum / comp_n * 1e6);
        snprintf(line + len, sizeof line - len, " touch_us=%.4f cpu_pct=%.1f vcsw=%.3f ivcsw=%.3f",
                 touch_sum / cells * 1e6, cpu / cells * 100, vcsw / cells, ivcsw / cells);
        if (osub_rank == 0) {
            printf("%s\n", line);
            fflush(stdout);
        }
    }
}

typedef struct {
    double wall, comp;   /* user 0: wall time of the phases, compute in them */
    double epoch, touch; /* origins: sums */
    long accs;           /* origins: accumulates completed */
} ga_times;

/* ga_phase runs one phase of secs seconds, adding what each origin
 * accumulated to sum (n doubles). */
static void ga_phase(double secs, long n, double *sum, ga_times *t)
{
    OSUB_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    double t0 = osub_now();
    if (osub_rank == 0) {
        if (!O.idle)
            while (osub_now() - t0 < secs) {
                double c0 = cpu_now();
                work(O.slice_us);
                t->comp += cpu_now() - c0;
            }
    } else {
        while (osub_now() - t0 < secs) {
            double w0 = osub_now(), e0 = w0;
            if (O.touch) {
                touch_doubles(obuf, n);
                e0 = osub_now();
                t->touch += e0 - w0;
            }
            OSUB_CHECK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
            OSUB_CHECK(MPI_Accumulate(obuf, (int)n, MPI_DOUBLE, 0, 0, (int)n, MPI_DOUBLE, MPI_SUM, win));
            OSUB_CHECK(MPI_Win_unlock(0, win));
            t->epoch += osub_now() - e0;
            t->accs++;
            for (long i = 0; i < n; i++)
                sum[i] += obuf[i];
        }
    }
    OSUB_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    t->wall += osub_now() - t0;
}

/* ga_check compares user 0's window with the origins' totals (collective):
 * 1 if every element holds its expected sum. */
static int ga_check(long n, double *sum, double *expect, double *tmp)
{
    OSUB_CHECK(MPI_Reduce(sum, tmp, (int)n, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD));
    int ok = 1;
    if (osub_rank == 0) {
        OSUB_CHECK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
        for (long i = 0; i < n; i++)
            ok &= wbase[i] == tmp[i] + expect[i];
        OSUB_CHECK(MPI_Win_unlock(0, win));
    }
    OSUB_CHECK(MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD));
    return ok;
}

static void ga_bench(long maxn)
{
    if (osub_nusers < 2)
        osub_die("the rma ga workload needs a target and at least one origin (2 users)");
    double *sum = calloc((size_t)maxn, sizeof *sum), *expect = calloc((size_t)maxn, sizeof *expect);
    double *tmp = calloc((size_t)maxn, sizeof *tmp);
    if (!sum || !expect || !tmp)
        osub_die("out of memory");
    if (osub_rank != 0 && !O.touch)
        for (long i = 0; i < maxn; i++)
            obuf[i] = (double)(i % 16 + 1);
    int ok = 1;
    for (int s = 0; s < O.nsizes; s++) {
        long size = O.sizes[s], n = size / 8;
        /* Start each size from a zero window. */
        if (osub_rank == 0) {
            OSUB_CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
            memset(wbase, 0, (size_t)n * 8);
            OSUB_CHECK(MPI_Win_unlock(0, win));
        }
        memset(sum, 0, (size_t)n * 8);
        memset(expect, 0, (size_t)n * 8);
        ga_times t = {0};
        ga_phase(O.budget_s / 4, n, sum, &t); /* warm-up */
        ok &= ga_check(n, sum, expect, tmp);
        if (osub_rank == 0)
            memcpy(expect, tmp, (size_t)n * 8);
        memset(sum, 0, (size_t)n * 8);
        memset(&t, 0, sizeof t);
        osub_mark m;
        osub_mark_now(&m);
        for (int p = 0; p < GA_PHASES; p++) {
            ga_phase(O.budget_s, n, sum, &t);
            ok &= ga_check(n, sum, expect, tmp);
            if (osub_rank == 0)
                for (long i = 0; i < n; i++)
                    expect[i] += tmp[i];
            memset(sum, 0, (size_t)n * 8);
        }
        osub_use use = osub_use_avg(osub_usage(&m, GA_PHASES));
        int allok = 0;
        OSUB_CHECK(MPI_Allreduce(&ok, &allok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD));
        double norig = osub_nusers - 1;
        long accs = 0;
        OSUB_CHECK(MPI_Allreduce(&t.accs, &accs, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD));
        double mine = osub_rank != 0 && t.accs ? t.epoch / (double)t.accs : 0;
        double epoch = osub_avg(mine) * osub_nusers / norig;
        double emax = osub_maxv(mine);
        double tch = osub_avg(osub_rank != 0 && t.accs ? t.touch / (double)t.accs : 0) * osub_nusers / norig;
        double wall = osub_maxv(osub_rank == 0 ? t.wall : 0);
        double comp = osub_maxv(osub_rank == 0 && t.wall > 0 ? 100 * t.comp / t.wall : 0);
        if (osub_rank == 0) {
            printf("osub bench=rma-ga size=%ld iters=%ld acc_per_s=%.1f epoch_us=%.4f epoch_max_us=%.4f "
                   "accs=%ld comp_pct=%.2f touch_us=%.4f ok=%d cpu_pct=%.1f vcsw=%.3f ivcsw=%.3f\n",
                   size, accs, wall > 0 ? (double)accs / wall : 0, epoch * 1e6, emax * 1e6, accs,
                   O.idle ? 0 : comp, tch * 1e6, allok, use.cpu_frac * 100, use.vcsw, use.ivcsw);
            fflush(stdout);
        }
    }
    free(sum);
    free(expect);
    free(tmp);
}

int main(int argc, char **argv)
{
    osub_init(&argc, &argv, "rma");
    ga = strcmp(O.workload, "ga") == 0;
    fence = strcmp(O.workload, "fence") == 0;
    long maxsz = osub_max_size();
    for (int s = 0; s < O.nsizes; s++)
        if (O.sizes[s] < 8 || O.sizes[s] % 8 != 0)
            osub_die("rma: every size must be a positive multiple of 8 bytes (doubles)");
    if (osub_rank == 0) {
        if (ga)
            printf("osub-info bench=rma-ga workload=ga target=0 origins=%d slice_us=%g "
                   "window=MPI_Win_allocate(info=MPI_INFO_NULL)\n",
                   osub_nusers - 1, O.slice_us);
        else
            printf("osub-info bench=rma workload=%s origin=0 target=%d compute_us=%g sync=%s "
                   "window=MPI_Win_allocate(info=MPI_INFO_NULL)\n",
                   O.workload, TARGET, O.halo_us, fence ? "fence" : "barrier");
        fflush(stdout);
    }
    /* Twice the largest size: the strided type spans two rows per row. */
    OSUB_CHECK(MPI_Win_allocate((MPI_Aint)(2 * maxsz), 8, MPI_INFO_NULL, MPI_COMM_WORLD, &wbase, &win));
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    OSUB_CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, osub_rank, 0, win));
    memset(wbase, 0, (size_t)(2 * maxsz));
    OSUB_CHECK(MPI_Win_unlock(osub_rank, win));
    obuf = osub_alloc(maxsz);
    OSUB_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    if (ga)
        ga_bench(maxsz / 8);
    else
        flush_bench();
    OSUB_CHECK(MPI_Win_free(&win));
    osub_free(obuf);
    osub_finalize();
    return 0;
}
