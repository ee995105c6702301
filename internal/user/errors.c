/*
 * errors.c: raising the runtime's errors through an error handler.
 *
 * The runtime's errors are codes registered at MPI_Init (user.go) or on
 * first use (internal/interpose/errcode.go), each of a predefined class
 * and with its one-line message for MPI_Error_string. MPICH 4.0.2 loses
 * the string of a code added to a predefined class, so under a fatal
 * handler (MPI_ERRORS_ARE_FATAL, the default) it would abort with one of
 * its internal messages. csp_raise prints the runtime's line itself and
 * gives MPICH the bare class, whose text is its own.
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

int csp_errhandler_fatal(MPI_Errhandler eh)
{
    int f = eh == MPI_ERRORS_ARE_FATAL || eh == MPI_ERRORS_ABORT;
    if (eh != MPI_ERRHANDLER_NULL)
        PMPI_Errhandler_free(&eh);
    return f;
}

/* fatal reports whether comm's error handler aborts. */
static int fatal(MPI_Comm comm)
{
    MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
    if (PMPI_Comm_get_errhandler(comm, &eh) != MPI_SUCCESS)
        return 0;
    return csp_errhandler_fatal(eh);
}

void csp_error_line(const char *msg)
{
    if (strncmp(msg, "CasperII: ", 10) == 0)
        msg += 10;
    int rank = -1;
    PMPI_Comm_rank(csp_u.on ? csp_u.world : MPI_COMM_WORLD, &rank);
    fprintf(stderr, "casperii: rank %d: %s\n", rank, msg);
    fflush(stderr);
}

/* csp_raise calls comm's error handler with the runtime's error code,
 * whose one-line message is msg (NULL: none known). Under a handler that
 * returns, the application gets code, and MPI_Error_string answers msg.
 * Under a fatal one MPICH would print its own text for the code, which
 * for a code added to a predefined class is one of its unrelated internal
 * messages ("Missing port or invalid host/port description in business
 * card"): so the runtime prints msg first and hands MPICH the code's bare
 * class, whose text is MPICH's own and coherent ("Invalid tag"). Returns
 * code. */
int csp_raise(MPI_Comm comm, int code, const char *msg)
{
    if (code == MPI_SUCCESS)
        return code;
    int cls = code;
    if (fatal(comm) && PMPI_Error_class(code, &cls) == MPI_SUCCESS) {
        if (msg)
            csp_error_line(msg);
        PMPI_Comm_call_errhandler(comm, cls);
        return code;
    }
    PMPI_Comm_call_errhandler(comm, code);
    return code;
}

/* csp_raise_op raises code, the error an offloaded operation finished
 * with (the ghost's MPI call: a truncated receive, above all), or
 * MPI_ERR_IN_STATUS for a call of several requests one of which failed
 * with cause, on comm: where MPICH raises a failed request's error (the
 * communicator of a blocking call, the world's handler for the Wait/Test
 * family in MPICH 4.0.2). Returned without it, a program under
 * MPI_ERRORS_ARE_FATAL went on past a truncated message. */
int csp_raise_op(MPI_Comm comm, int code, int cause)
{
    if (code == MPI_SUCCESS)
        return code;
    int cls = MPI_ERR_OTHER;
    PMPI_Error_class(cause, &cls);
    return csp_raise(comm, code,
                     cls == MPI_ERR_TRUNCATE
                         ? "a message was longer than its receive buffer, or ended inside a basic "
                           "element of the receive's datatype (MPI_ERR_TRUNCATE): post receives "
                           "that hold the whole message, in a datatype that matches the send's"
                         : NULL);
}

/* csp_error raises the fast path's error e on comm (csp_raise). */
int csp_error(MPI_Comm comm, enum csp_errmsg e)
{
    return csp_raise(comm, csp_u.errcode[e], e >= 0 && e < CSP_E_MAX ? texts[e] : NULL);
}
