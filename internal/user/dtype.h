/*
 * dtype.h: datatypes the runtime holds on to, and their shape (dtype.c;
 * csp_pack and csp_unpack are in user.h).
 */
#ifndef CASPERII_USER_DTYPE_H
#define CASPERII_USER_DTYPE_H

#include "user.h"

/* A datatype the runtime may use after the call that passed it returns
 * (dtype.c). The application may free its type as soon as that call
 * returns; MPI keeps it alive until the operations, persistent requests
 * and matched receives using it are done. Predefined types live for ever:
 * *ref = dt, *owned = 0. Any other: *ref is a type of the runtime's with
 * dt's type map, built from dt (MPI keeps a type alive while types built
 * from it exist), *owned = 1, and the holder frees it with PMPI_Type_free.
 * Returns an MPI error code (not raised). */
int csp_type_ref(MPI_Datatype dt, MPI_Datatype *ref, uint8_t *owned);
/* Size, true lower bound and contiguity of count elements of dt: contig
 * when the message is the memory [buf + lb, + count * size) as is, in
 * order (dtype.c). The size is an MPI_Count: a derived type may be 2 GiB
 * or more. */
int csp_type_info(MPI_Datatype dt, MPI_Count count, MPI_Count *size, MPI_Aint *lb, int *contig);

/* MPICH encodes its basic types as builtin handles 0x4c00SSII (SS: the
 * size in bytes; contiguous, lower bound 0): the size of dt if it is one,
 * else 0, without an MPI call. */
static inline int csp_builtin_size(MPI_Datatype dt)
{
    return ((uint32_t)dt & 0xfc000000u) == 0x4c000000u ? (int)(((uint32_t)dt >> 8) & 0xff) : 0;
}

#endif /* CASPERII_USER_DTYPE_H */
