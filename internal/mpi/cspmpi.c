#include "cspmpi.h"

/* Scratch MPI_Status array for Testsome/Waitsome/Testall/Waitall, one per OS
 * thread (cgo calls may run on any thread), grown on demand on the C heap and
 * kept for the life of the thread: no allocation in the steady state. */
static __thread MPI_Status *scratch;
static __thread int scratch_cap;

MPI_Status *cspmpi_scratch_statuses(int n)
{
    if (n < 1)
        n = 1;
    if (n <= scratch_cap)
        return scratch;
    int cap = scratch_cap ? scratch_cap : 64;
    while (cap < n)
        cap *= 2;
    MPI_Status *p = realloc(scratch, (size_t)cap * sizeof(MPI_Status));
    if (!p)
        return NULL;
    scratch = p;
    scratch_cap = cap;
    return scratch;
}
