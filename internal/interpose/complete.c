/*
 * complete.c: the Wait/Test family, Request_free, Cancel and
 * Request_get_status, for any mix of offloaded and ordinary requests.
 * The fast path (internal/user/wait.c) does the work.
 */
#include "interpose.h"

CSP_IP_TIMED_FN(wait_timed, (MPI_Request *req, MPI_Status *st), csp_wait(req, st))
int MPI_Wait(MPI_Request *req, MPI_Status *st)
{
    return CSP_IP_UNTIMED(csp_wait(req, st), wait_timed(req, st));
}

CSP_IP_POLLED_FN(test_timed, (MPI_Request *req, int *flag, MPI_Status *st), csp_test(req, flag, st))
int MPI_Test(MPI_Request *req, int *flag, MPI_Status *st)
{
    return CSP_IP_UNTIMED(csp_test(req, flag, st), test_timed(req, flag, st));
}

CSP_IP_TIMED_FN(waitall_timed, (int n, MPI_Request reqs[], MPI_Status sts[]), csp_waitall(n, reqs, sts))
int MPI_Waitall(int n, MPI_Request reqs[], MPI_Status sts[])
{
    return CSP_IP_UNTIMED(csp_waitall(n, reqs, sts), waitall_timed(n, reqs, sts));
}

CSP_IP_POLLED_FN(testall_timed, (int n, MPI_Request reqs[], int *flag, MPI_Status sts[]), csp_testall(n, reqs, flag, sts))
int MPI_Testall(int n, MPI_Request reqs[], int *flag, MPI_Status sts[])
{
    return CSP_IP_UNTIMED(csp_testall(n, reqs, flag, sts), testall_timed(n, reqs, flag, sts));
}

CSP_IP_TIMED_FN(waitany_timed, (int n, MPI_Request reqs[], int *idx, MPI_Status *st), csp_waitany(n, reqs, idx, st))
int MPI_Waitany(int n, MPI_Request reqs[], int *idx, MPI_Status *st)
{
    return CSP_IP_UNTIMED(csp_waitany(n, reqs, idx, st), waitany_timed(n, reqs, idx, st));
}

CSP_IP_POLLED_FN(testany_timed, (int n, MPI_Request reqs[], int *idx, int *flag, MPI_Status *st), csp_testany(n, reqs, idx, flag, st))
int MPI_Testany(int n, MPI_Request reqs[], int *idx, int *flag, MPI_Status *st)
{
    return CSP_IP_UNTIMED(csp_testany(n, reqs, idx, flag, st), testany_timed(n, reqs, idx, flag, st));
}

CSP_IP_TIMED_FN(waitsome_timed, (int n, MPI_Request reqs[], int *outcount, int idx[], MPI_Status sts[]), csp_waitsome(n, reqs, outcount, idx, sts))
int MPI_Waitsome(int n, MPI_Request reqs[], int *outcount, int idx[], MPI_Status sts[])
{
    return CSP_IP_UNTIMED(csp_waitsome(n, reqs, outcount, idx, sts), waitsome_timed(n, reqs, outcount, idx, sts));
}

CSP_IP_POLLED_FN(testsome_timed, (int n, MPI_Request reqs[], int *outcount, int idx[], MPI_Status sts[]), csp_testsome(n, reqs, outcount, idx, sts))
int MPI_Testsome(int n, MPI_Request reqs[], int *outcount, int idx[], MPI_Status sts[])
{
    return CSP_IP_UNTIMED(csp_testsome(n, reqs, outcount, idx, sts), testsome_timed(n, reqs, outcount, idx, sts));
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
