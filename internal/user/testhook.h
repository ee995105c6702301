/*
 * testhook.h: test and accounting hooks (testhook.c); C test programs reach
 * them with dlsym in a preloaded libcasperii.so.
 */
#ifndef CASPERII_USER_TESTHOOK_H
#define CASPERII_USER_TESTHOOK_H

#include "user.h"

int csp_test_usage(int drain, uint32_t *cells_in_use, uint64_t *ops_live, uint64_t *heap_in_use,
                   uint32_t *held);
int csp_test_comm_algo(MPI_Comm comm);
int csp_test_profile(uint64_t *mpi_ns, uint64_t *win_ns, uint64_t *waits);
int csp_test_profile_samples(uint64_t *win_ns, uint64_t *cpu_ns);
int csp_test_profile_timed(uint64_t *waits, uint64_t *timed);
int csp_test_locate(const void *p, uint64_t n, uint32_t *seg, uint64_t *off);
int csp_test_ghost_pid(void);
int64_t csp_test_publish_raw(const struct csp_cell *line0, int keep_gen);
int csp_test_reap(uint32_t idx, int timeout_ms, struct csp_cell *result);
int csp_test_push_index(uint64_t v);
int csp_test_corrupt_tail(void);

#endif /* CASPERII_USER_TESTHOOK_H */
