/*
 * liveness.h: is the ghost still there (liveness.c)?
 */
#ifndef CASPERII_USER_LIVENESS_H
#define CASPERII_USER_LIVENESS_H

#include "user.h"

/* Open (MPI_Init) and close (MPI_Finalize) the ghost's pidfd. */
void csp_liveness_start(void);
void csp_liveness_stop(void);
/* Is the ghost still there? A dead ghost must turn waits into errors (a
 * zombie counts as dead). */
int csp_ghost_alive(void);
/* Has the ghost not said it exited? (Its state word: no system call; a
 * ghost that died without exiting still reads as running.) */
int csp_ghost_running(void);
/* Called by the Test family each time an offloaded request is not done:
 * now and then, an error if the ghost is gone. */
int csp_test_miss(void);

#endif /* CASPERII_USER_LIVENESS_H */
