/*
 * toggle.c: MPI_Comm_set_info(async_config=on|off) switching a
 * communicator's route without calling the runtime.
 *
 * The runtime (internal/core/switch.go) decides a set_info in Go: parse
 * the hints, agree with the other members, choose the plan, install its
 * entry. Where the call can only move a communicator between the direct
 * route and the offloaded plan it keeps reserved, every one of those steps
 * is known in advance, and Go costs most of the call: 2.6 us of a 4.9 us
 * switch back to back, several times that between phases of an
 * application, whose sweeps evict the runtime's code and data. So the
 * runtime publishes such a communicator here (struct csp_toggle, user.h:
 * both entries built, what each value chooses), and this file does the
 * call in C:
 *
 *   - the info must hold async_config=on or off and at most symmetric=true
 *     or false (read as the window hints are: rmahint.c), and no other key;
 *     anything else is the runtime's (it reads every key);
 *   - the agreement is the runtime's record (enum csp_agree_field) summed
 *     by the same collective (csp_route_count_sum), so that members on
 *     either side of this choice still take part in one sum;
 *   - the members agree, and the old route is quiescent (or symmetric=true
 *     and nothing is proved in flight), as switch.go's reconfigure
 *     requires: install a copy of the chosen entry, as its takeSwitch does.
 *     Any other outcome goes back to the runtime with the sum
 *     (CSP_SETINFO_AGREED), which decides as if it had summed itself.
 *
 * What the runtime keeps of a switch (the plan in use, the number of
 * switches, the time on each route, the hint) it reads back from the
 * toggle (csp_toggle_read) before it looks at the communicator again;
 * it withdraws the toggle before any call that may change what it
 * published.
 */
#define _GNU_SOURCE
#include "user.h"
#include "route.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

static struct csp_commtab tab = {.size = sizeof(struct csp_toggle)};

uint32_t csp_toggle_unread;

int64_t csp_mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static struct csp_toggle *lookup(MPI_Comm comm) { return csp_commtab_find(&tab, comm); }

/* The last two info handles MPICH checked in an MPI_Comm_set_info this
 * file then took (interpose/comm.c skips MPICH's call for them). A handle
 * freed and made again names a valid info all the same; one freed and
 * passed again is the program's error, as it would be under MPICH. */
static MPI_Info checked[2] = {MPI_INFO_NULL, MPI_INFO_NULL};

int csp_toggle_checked(MPI_Info info) { return info != MPI_INFO_NULL && (checked[0] == info || checked[1] == info); }

void csp_toggle_check(MPI_Info info)
{
    if (info != MPI_INFO_NULL && !csp_toggle_checked(info)) {
        checked[1] = checked[0];
        checked[0] = info;
    }
}

static int unread(const struct csp_toggle *t) { return t->switches != 0 || t->set >= 0; }

int csp_toggle_publish(const struct csp_toggle *t)
{
    struct csp_toggle *e = lookup(t->comm);
    if (!e) {
        if (!(e = csp_commtab_add(&tab, t->comm)))
            return -1;
    } else if (unread(e)) {
        csp_toggle_unread--;
    }
    *e = *t;
    if (unread(e))
        csp_toggle_unread++;
    return 0;
}

int csp_toggle_read(MPI_Comm comm, struct csp_toggle *out)
{
    struct csp_toggle *e = lookup(comm);
    if (!e)
        return 0;
    *out = *e;
    if (unread(e))
        csp_toggle_unread--;
    e->switches = 0;
    e->set = -1;
    e->route_ns[0] = e->route_ns[1] = 0;
    return 1;
}

int csp_toggle_withdraw(MPI_Comm comm, struct csp_toggle *out)
{
    if (!csp_toggle_read(comm, out))
        return 0;
    csp_commtab_del(&tab, lookup(comm));
    return 1;
}

/* The value of key in info, one of a or b (0 or 1) as the window hints
 * read them (rmahint.c); -1 otherwise. */
static int one_of(MPI_Info info, const char *key, const char *a, const char *b)
{
    char v[MPI_MAX_INFO_VAL + 1];
    if (!csp_info_value(info, key, v, (int)sizeof v))
        return -1;
    return strcasecmp(v, a) == 0 ? 0 : strcasecmp(v, b) == 0 ? 1 : -1;
}

/* The async_config value (0 off, 1 on) and symmetric of info, if info is
 * one this file may take: -1 otherwise. */
static int parse(MPI_Info info, int *sym)
{
    int nkeys = 0;
    if (info == MPI_INFO_NULL || PMPI_Info_get_nkeys(info, &nkeys) != MPI_SUCCESS || nkeys < 1 || nkeys > 2)
        return -1;
    int v = one_of(info, "async_config", "off", "on");
    if (v < 0)
        return -1;
    *sym = 0;
    if (nkeys == 2 && (*sym = one_of(info, "symmetric", "false", "true")) < 0)
        return -1;
    return v;
}

enum csp_setinfo csp_toggle_set_info(MPI_Comm comm, MPI_Info info, int64_t sum[CSP_AG_N], int *rc)
{
    struct csp_toggle *t = lookup(comm);
    int sym = 0, v;
    if (!t || (v = parse(info, &sym)) < 0)
        return CSP_SETINFO_RUNTIME;
    int64_t in[CSP_AG_N] = {0};
    in[CSP_AG_CHOICE] = t->choice[v];
    in[CSP_AG_CHOICE2] = t->choice[v] * t->choice[v];
    if ((*rc = csp_route_count_sum(comm, in, sum, CSP_AG_N, CSP_AG_UNMATCHED)) != MPI_SUCCESS)
        return CSP_SETINFO_FAILED;
    /* The members all chose t->choice[v] iff n x sum(c^2) == sum(c)^2. */
    __int128 n2 = (__int128)t->size * sum[CSP_AG_CHOICE2];
    __int128 s2 = (__int128)sum[CSP_AG_CHOICE] * sum[CSP_AG_CHOICE];
    int quiet = sum[CSP_AG_UNMATCHED] == 0 && sum[CSP_AG_PENDING] == 0;
    if (sum[CSP_AG_INVALID] != 0 || n2 != s2 || !quiet || (sum[CSP_AG_STUCK] != 0 && !sym))
        return CSP_SETINFO_AGREED;
    int was_unread = unread(t);
    if (v != t->cur) {
        CSP_LOCK();
        struct csp_comm *old = csp_comm_get(comm);
        struct csp_fam *fam = old && old->watch ? old->fam : NULL;
        CSP_UNLOCK();
        if (csp_comm_install_copy(t->tmpl[v], t->regist) != 0)
            return CSP_SETINFO_AGREED; /* the runtime's install reports it */
        if (fam) /* the family still counts its collectives (switch.go) */
            csp_route_watch(comm, 1, fam);
        int64_t now = csp_mono_ns();
        t->route_ns[t->cur] += now - t->since_ns;
        t->since_ns = now;
        t->cur = (uint8_t)v;
        t->switches++;
    }
    t->set = (int8_t)v;
    if (!was_unread)
        csp_toggle_unread++;
    return CSP_SETINFO_DONE;
}
