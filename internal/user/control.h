/*
 * control.h: control cells (control.c).
 */
#ifndef CASPERII_USER_CONTROL_H
#define CASPERII_USER_CONTROL_H

#include "user.h"

/* Post a control cell (kind CSP_OP_CANCEL, CSP_OP_SEGMENT or
 * CSP_OP_FINALIZE, postcell.h) and wait for the ghost's answer. Returns
 * the cell's MPI error code. */
int csp_control(uint8_t kind, uint32_t target, uint32_t target_gen);

#endif /* CASPERII_USER_CONTROL_H */
