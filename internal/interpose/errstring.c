/*
 * errstring.c: MPI_Error_string for the runtime's error codes.
 *
 * The runtime's errors carry predefined classes (MPI_ERR_INFO_VALUE,
 * MPI_ERR_TAG, ...) so that applications can test the class. MPICH 4.0.2
 * loses the string of a code added to a predefined class (the code comes
 * back from MPI_Add_error_code without the dynamic-code bit, and
 * MPI_Error_string decodes it as one of MPICH's generic messages), so the
 * interposer keeps the runtime's codes and messages here and answers for
 * them itself. Every other code goes to PMPI_Error_string.
 */
#include "interpose.h"

#include <stdlib.h>
#include <string.h>

struct errtext {
    int code;
    char *msg;
};

static struct errtext *texts;
static int ntexts, cap;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

CSP_IP_HIDDEN void csp_ip_errtext_add(int code, const char *msg)
{
    pthread_mutex_lock(&lock);
    for (int i = 0; i < ntexts; i++) {
        if (texts[i].code == code) {
            pthread_mutex_unlock(&lock);
            return;
        }
    }
    if (ntexts == cap) {
        int ncap = cap ? 2 * cap : 32;
        struct errtext *t = realloc(texts, (size_t)ncap * sizeof(*t));
        if (!t) {
            pthread_mutex_unlock(&lock);
            return;
        }
        texts = t;
        cap = ncap;
    }
    char *m = strdup(msg);
    if (m) {
        texts[ntexts].code = code;
        texts[ntexts].msg = m;
        ntexts++;
    }
    pthread_mutex_unlock(&lock);
}

/* csp_ip_errtext_get copies the runtime's message for code into
 * msg[MPI_MAX_ERROR_STRING]; 0 if code is not one of the runtime's. */
CSP_IP_HIDDEN int csp_ip_errtext_get(int code, char *msg)
{
    int found = 0;
    pthread_mutex_lock(&lock);
    for (int i = 0; i < ntexts && !found; i++) {
        if (texts[i].code == code) {
            strncpy(msg, texts[i].msg, MPI_MAX_ERROR_STRING - 1);
            msg[MPI_MAX_ERROR_STRING - 1] = '\0';
            found = 1;
        }
    }
    pthread_mutex_unlock(&lock);
    return found;
}

int MPI_Error_string(int errorcode, char *string, int *resultlen)
{
    if (ntexts > 0 && string && resultlen) {
        pthread_mutex_lock(&lock);
        for (int i = 0; i < ntexts; i++) {
            if (texts[i].code != errorcode)
                continue;
            size_t n = strlen(texts[i].msg);
            if (n > MPI_MAX_ERROR_STRING - 1)
                n = MPI_MAX_ERROR_STRING - 1;
            memcpy(string, texts[i].msg, n);
            string[n] = '\0';
            *resultlen = (int)n;
            pthread_mutex_unlock(&lock);
            return MPI_SUCCESS;
        }
        pthread_mutex_unlock(&lock);
    }
    return PMPI_Error_string(errorcode, string, resultlen);
}
