/*
 * rmahint.c: the CasperII hints of a window's info (rma.h: struct
 * csp_rma_hints), read at MPI_Win_allocate and MPI_Win_set_info.
 *
 * As for communicators (info/doc.go), values are trimmed of surrounding
 * spaces and matched ignoring ASCII case; an empty or unknown value is
 * MPI_ERR_INFO_VALUE with one line naming the key, the value and the
 * accepted values. Every other key is MPICH's (or ignored).
 *
 *   async_config  on | off | auto
 *   symmetric     true | false (Casper's collective hint)
 *   epoch_type    the epoch kinds the window will use: lockall, lock,
 *                 pscw, fence, joined by '|', ',' or ';' (Casper's
 *                 separators); Casper names it epochs_used (its original
 *                 name, and the paper's, is epoch_type): both keys are read,
 *                 and must agree when both are given.
 */
#include "rma.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

/* The accepted words of epoch_type and their bits, in Casper's order. */
static const struct {
    const char *word;
    int bit;
} epoch_words[] = {
    {"lockall", CSP_RMA_EP_LOCKALL},
    {"lock", CSP_RMA_EP_LOCK},
    {"pscw", CSP_RMA_EP_PSCW},
    {"fence", CSP_RMA_EP_FENCE},
};

#define EPOCH_ACCEPTED                                                                             \
    "accepted: lockall, lock, pscw, fence, or several joined by '|', ',' or ';' (Casper's "     \
    "epochs_used is the same hint)"

int csp_rma_epochs_string(int epochs, char *s, size_t n)
{
    size_t len = 0;
    if (n == 0)
        return 0;
    s[0] = 0;
    for (size_t i = 0; i < sizeof epoch_words / sizeof epoch_words[0]; i++)
        if (epochs & epoch_words[i].bit) {
            int k = snprintf(s + len, n - len, "%s%s", len ? "|" : "", epoch_words[i].word);
            if (k < 0 || (size_t)k >= n - len)
                break;
            len += (size_t)k;
        }
    return (int)len;
}

/* csp_info_value reads key of info into v (size n, MPI_MAX_INFO_VAL + 1
 * for any value: MPICH's MPI_Info_get fails on a value longer than it is
 * told, it does not truncate), trimmed of spaces and tabs; 0 when absent. */
int csp_info_value(MPI_Info info, const char *key, char *v, int n)
{
    int flag = 0;
    if (info == MPI_INFO_NULL || PMPI_Info_get(info, key, n - 1, v, &flag) != MPI_SUCCESS || !flag)
        return 0;
    v[n - 1] = 0;
    char *b = v;
    while (*b == ' ' || *b == '\t')
        b++;
    size_t len = strlen(b);
    while (len > 0 && (b[len - 1] == ' ' || b[len - 1] == '\t'))
        len--;
    memmove(v, b, len);
    v[len] = 0;
    return 1;
}

/* parse_epochs parses an epoch_type value: its bits, or 0 with the reason
 * in why. */
static int parse_epochs(const char *key, const char *v, char *why, size_t n)
{
    if (v[0] == 0) {
        snprintf(why, n, "info: %s=\"\" is not valid: empty value; " EPOCH_ACCEPTED, key);
        return 0;
    }
    int bits = 0, parts = 0;
    const char *p = v;
    for (;;) {
        size_t len = strcspn(p, "|,;");
        const char *b = p, *e = p + len;
        while (b < e && (*b == ' ' || *b == '\t'))
            b++;
        while (e > b && (e[-1] == ' ' || e[-1] == '\t'))
            e--;
        parts++;
        int bit = 0;
        for (size_t i = 0; i < sizeof epoch_words / sizeof epoch_words[0] && !bit; i++)
            if ((size_t)(e - b) == strlen(epoch_words[i].word) &&
                strncasecmp(b, epoch_words[i].word, (size_t)(e - b)) == 0)
                bit = epoch_words[i].bit;
        if (!bit) {
            int last = p[len] == 0;
            if (b == e)
                snprintf(why, n, "info: %s=\"%s\" is not valid: empty part; " EPOCH_ACCEPTED, key, v);
            else if (parts == 1 && last)
                snprintf(why, n, "info: %s=\"%s\" is not valid; " EPOCH_ACCEPTED, key, v);
            else
                snprintf(why, n, "info: %s=\"%s\" is not valid: unknown part \"%.*s\"; " EPOCH_ACCEPTED, key, v,
                         (int)(e - b), b);
            return 0;
        }
        bits |= bit;
        if (p[len] == 0)
            return bits;
        p += len + 1;
    }
}

int csp_rma_hints(MPI_Info info, struct csp_rma_hints *h, char *why, size_t n)
{
    char v[MPI_MAX_INFO_VAL + 1];
    h->config = CSP_RMA_HINT_UNSET;
    h->epochs = 0;
    h->symmetric = 0;
    if (info == MPI_INFO_NULL)
        return MPI_SUCCESS;
    if (csp_info_value(info, "async_config", v, sizeof v)) {
        if (strcasecmp(v, "on") == 0)
            h->config = CSP_RMA_HINT_ON;
        else if (strcasecmp(v, "off") == 0)
            h->config = CSP_RMA_HINT_OFF;
        else if (strcasecmp(v, "auto") == 0)
            h->config = CSP_RMA_HINT_AUTO;
        else {
            snprintf(why, n, "info: async_config=\"%s\" is not valid%s; accepted: on, off, auto", v,
                     v[0] ? "" : ": empty value");
            return MPI_ERR_INFO_VALUE;
        }
    }
    if (csp_info_value(info, "symmetric", v, sizeof v)) {
        if (strcasecmp(v, "true") == 0)
            h->symmetric = 1;
        else if (strcasecmp(v, "false") != 0) {
            snprintf(why, n, "info: symmetric=\"%s\" is not valid%s; accepted: true, false", v,
                     v[0] ? "" : ": empty value");
            return MPI_ERR_INFO_VALUE;
        }
    }
    static const char *const keys[2] = {"epoch_type", "epochs_used"};
    int got[2] = {0, 0};
    for (int k = 0; k < 2; k++) {
        if (!csp_info_value(info, keys[k], v, sizeof v))
            continue;
        if (!(got[k] = parse_epochs(keys[k], v, why, n)))
            return MPI_ERR_INFO_VALUE;
    }
    if (got[0] && got[1] && got[0] != got[1]) {
        char a[64], b[64];
        csp_rma_epochs_string(got[0], a, sizeof a);
        csp_rma_epochs_string(got[1], b, sizeof b);
        snprintf(why, n,
                 "info: epoch_type=\"%s\" and epochs_used=\"%s\" disagree: they are one hint (Casper's two "
                 "names); give one of them",
                 a, b);
        return MPI_ERR_INFO_VALUE;
    }
    h->epochs = got[0] ? got[0] : got[1];
    return MPI_SUCCESS;
}
