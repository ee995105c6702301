/* foreign.c: is the process running on another MPI than MPICH (foreign.go)? */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>

#include "cspmpi.h"

const char *csp_openmpi_symbol(void)
{
    static const char *names[] = {"ompi_mpi_init", "ompi_mpi_comm_world", "ompi_mpi_finalize"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (dlsym(RTLD_DEFAULT, names[i]))
            return names[i];
    return NULL;
}
