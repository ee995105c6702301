/*
 * truncate_status: truncate's cases, also checking that the status of a
 * truncated receive names the message's source and tag (as MPICH's does).
 *
 * np: 2
 */
#define TRUNCATE_STATUS 1
#include "truncate.c"
