/*
 * errnote.c: the runtime's one-line messages under a fatal error handler.
 *
 * The fast path raises its errors through the communicator's handler with
 * codes registered at MPI_Init (user.go). Under MPI_ERRORS_ARE_FATAL (the
 * default) MPICH 4.0.2 aborts with its own text for the code, and it loses
 * the string of a code added to a predefined class ("Other MPI error ...
 * no space for the host description"). So before a fatal handler runs,
 * the runtime prints its own line on stderr.
 */
#include "user.h"

#include <stdio.h>
#include <string.h>

static const char *texts[CSP_E_MAX];

/* csp_set_errtext records the message of error e (Start; the string
 * lives as long as the process). */
void csp_set_errtext(int e, const char *msg)
{
    if (e >= 0 && e < CSP_E_MAX)
        texts[e] = msg;
}

/* csp_error_note prints e's message if comm's error handler will abort. */
void csp_error_note(MPI_Comm comm, int e)
{
    MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
    if (e < 0 || e >= CSP_E_MAX || !texts[e] || PMPI_Comm_get_errhandler(comm, &eh) != MPI_SUCCESS)
        return;
    int fatal = eh == MPI_ERRORS_ARE_FATAL || eh == MPI_ERRORS_ABORT;
    if (eh != MPI_ERRHANDLER_NULL)
        PMPI_Errhandler_free(&eh);
    if (!fatal)
        return;
    const char *msg = texts[e];
    if (strncmp(msg, "CasperII: ", 10) == 0)
        msg += 10;
    int rank = -1;
    PMPI_Comm_rank(csp_u.world, &rank);
    fprintf(stderr, "casperii: rank %d: %s\n", rank, msg);
    fflush(stderr);
}
