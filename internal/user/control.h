/*
 * control.h: control cells (control.c).
 */
#ifndef CASPERII_USER_CONTROL_H
#define CASPERII_USER_CONTROL_H

#include "user.h"

/* Post a control cell (kind CSP_OP_CANCEL, CSP_OP_SEGMENT,
 * CSP_OP_FINALIZE or CSP_OP_WIN_ATTACH, postcell.h) and wait for the ghost's answer. Returns
 * the cell's MPI error code. */
int csp_control(uint8_t kind, uint32_t target, uint32_t target_gen);
/* The same, giving the cell's st_bytes on success (CSP_OP_WIN_ATTACH: the
 * ghost's address of the segment, rma.c). */
int csp_control_result(uint8_t kind, uint32_t target, uint32_t target_gen, uint64_t *result);
/* A control cell about nbytes at (seg, off) of the heap (CSP_OP_WIN_WATCH). */
int csp_control_buf(uint8_t kind, uint32_t seg, uint64_t off, uint64_t nbytes);

#endif /* CASPERII_USER_CONTROL_H */
