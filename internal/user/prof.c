/*
 * prof.c: the self-profile the automatic route choice reads
 * (internal/core/auto.go), kept only while csp_u.prof is set (some
 * communicator has async_config=auto).
 *
 * Per process, cumulative: the time spent inside MPI calls that wait or
 * block (the interposer brackets them with csp_prof_begin/_end), the part
 * of it asleep on the wake word, the number of such calls, and the bytes
 * sent. Per communicator entry: messages and bytes sent since the runtime
 * last read them. The runtime takes differences between its readings.
 */
#include "user.h"
#include "dtype.h"

#include <time.h>

uint64_t csp_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void csp_prof_sent_slow(struct csp_comm *c, int count, MPI_Datatype dt)
{
    int size = csp_builtin_size(dt);
    if (size == 0 && PMPI_Type_size(dt, &size) != MPI_SUCCESS)
        size = 0;
    uint64_t bytes = (uint64_t)(count > 0 ? count : 0) * (uint64_t)size;
    c->ep_msgs++;
    c->ep_bytes += bytes;
    csp_u.prof_bytes += bytes;
}
