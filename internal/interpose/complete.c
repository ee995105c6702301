/*
 * complete.c: the Wait/Test family, Request_free, Cancel and
 * Request_get_status, for any mix of offloaded and ordinary requests.
 * The fast path (internal/user/wait.c) does the work.
 */
#include "interpose.h"

int MPI_Wait(MPI_Request *req, MPI_Status *st)
{
    CSP_IP_TIMED(csp_wait(req, st));
}

int MPI_Test(MPI_Request *req, int *flag, MPI_Status *st)
{
    CSP_IP_TIMED(csp_test(req, flag, st));
}

int MPI_Waitall(int n, MPI_Request reqs[], MPI_Status sts[])
{
    CSP_IP_TIMED(csp_waitall(n, reqs, sts));
}

int MPI_Testall(int n, MPI_Request reqs[], int *flag, MPI_Status sts[])
{
    CSP_IP_TIMED(csp_testall(n, reqs, flag, sts));
}

int MPI_Waitany(int n, MPI_Request reqs[], int *idx, MPI_Status *st)
{
    CSP_IP_TIMED(csp_waitany(n, reqs, idx, st));
}

int MPI_Testany(int n, MPI_Request reqs[], int *idx, int *flag, MPI_Status *st)
{
    CSP_IP_TIMED(csp_testany(n, reqs, idx, flag, st));
}

int MPI_Waitsome(int n, MPI_Request reqs[], int *outcount, int idx[], MPI_Status sts[])
{
    CSP_IP_TIMED(csp_waitsome(n, reqs, outcount, idx, sts));
}

int MPI_Testsome(int n, MPI_Request reqs[], int *outcount, int idx[], MPI_Status sts[])
{
    CSP_IP_TIMED(csp_testsome(n, reqs, outcount, idx, sts));
}

int MPI_Request_free(MPI_Request *req)
{
    return csp_request_free(req);
}

int MPI_Cancel(MPI_Request *req)
{
    return csp_cancel(req);
}

int MPI_Request_get_status(MPI_Request req, int *flag, MPI_Status *st)
{
    return csp_request_get_status(req, flag, st);
}
