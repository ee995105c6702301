/*
 * libfail: the runner's own test program (runner_test.go): passes under
 * plain MPICH and reports a failure when lib/libcasperii.so is preloaded,
 * which the runner must show as an unexpected difference.
 *
 * np: 2
 */
#include "../progs/conf.h"

int main(int argc, char **argv)
{
    conf_init(&argc, &argv, "libfail", 2);
    const char *pre = getenv("LD_PRELOAD");
    CHECK(!pre || !strstr(pre, "libcasperii"), "preloaded: %s", pre);
    return conf_finish();
}
