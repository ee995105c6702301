/*
 * selftest.c: exercises spsc.h on its own, without Go. Built and run by
 * TestCHeaderStandalone with strict warnings; exits 0 on success.
 */
#include "../spsc.h"

#include <stdio.h>
#include <stdlib.h>

#define CHECK(cond)                                                        \
    do {                                                                   \
        if (!(cond)) {                                                     \
            fprintf(stderr, "selftest.c:%d: %s\n", __LINE__, #cond);      \
            exit(1);                                                       \
        }                                                                  \
    } while (0)

enum { CAP = 8 };

static _Alignas(64) unsigned char mem[SPSC_SIZE(CAP) + 64];

int main(void)
{
    struct spsc_ring r;
    struct spsc_producer p;
    struct spsc_consumer c;
    uint64_t buf[3 * CAP], next = 1, want = 1;
    uint64_t start = UINT64_MAX - 20; /* cross the wrap of the indices */

    CHECK(spsc_format(mem, sizeof mem, 6, &r) == -EINVAL);
    CHECK(spsc_format(mem, sizeof mem, 1, &r) == -EINVAL);
    CHECK(spsc_format(mem + 8, sizeof mem - 8, CAP, &r) == -EINVAL);
    CHECK(spsc_format(mem, SPSC_SIZE(CAP) - 1, CAP, &r) == -ENOSPC);
    CHECK(spsc_format(mem, sizeof mem, CAP, &r) == 0);
    CHECK(spsc_capacity(&r) == CAP);
    CHECK(spsc_attach(mem, SPSC_SIZE(CAP), &r) == 0);
    CHECK(spsc_attach(mem, SPSC_SIZE(CAP) - 1, &r) == -ENOSPC);
    CHECK(spsc_attach(mem, 100, &r) == -ENOSPC);
    mem[0] ^= 1;
    CHECK(spsc_attach(mem, sizeof mem, &r) == -EBADMSG);
    mem[0] ^= 1;
    mem[SPSC_OFF_VERSION] = 2;
    CHECK(spsc_attach(mem, sizeof mem, &r) == -EPROTONOSUPPORT);
    mem[SPSC_OFF_VERSION] = 1;
    mem[SPSC_OFF_CAPACITY] = 12;
    CHECK(spsc_attach(mem, sizeof mem, &r) == -ERANGE);
    mem[SPSC_OFF_CAPACITY] = CAP;
    mem[SPSC_OFF_SLOT_SIZE] = 4;
    CHECK(spsc_attach(mem, sizeof mem, &r) == -EBADMSG);
    mem[SPSC_OFF_SLOT_SIZE] = 8;
    CHECK(spsc_attach(mem, sizeof mem, &r) == 0);

    *r.head = *r.tail = start;
    spsc_producer_init(&p, &r);
    spsc_consumer_init(&c, &r);
    for (int round = 0; round < 50; round++) {
        size_t k = (size_t)(round % 11 + 1), room = spsc_free(&p), w;
        int64_t n;
        for (size_t i = 0; i < k; i++)
            buf[i] = next + i;
        w = spsc_push_batch(&p, buf, k);
        CHECK(w == (k < room ? k : room));
        next += w;
        CHECK(spsc_len(&c) == (int64_t)(next - want));
        n = spsc_pop_batch(&c, buf, (size_t)(round % 7 + 1));
        CHECK(n >= 0);
        for (int64_t i = 0; i < n; i++)
            CHECK(buf[i] == want++);
    }
    while (spsc_try_push(&p, next))
        next++;
    CHECK(spsc_free(&p) == 0 && next - want == CAP);
    CHECK(spsc_pop_batch(&c, buf, 3 * CAP) == CAP);
    for (int i = 0; i < CAP; i++)
        CHECK(buf[i] == want++);
    CHECK(spsc_pop_batch(&c, buf, 1) == 0);

    /* Corrupt tails: ahead by more than the capacity, and behind head. */
    *r.tail = c.head + CAP + 1;
    CHECK(spsc_pop_batch(&c, buf, 1) == -EPROTO && spsc_len(&c) == -EPROTO);
    *r.tail = c.head - 1;
    CHECK(spsc_pop_batch(&c, buf, 1) == -EPROTO);
    CHECK(*r.head == c.head);
    spsc_producer_init(&p, &r);
    CHECK(spsc_free(&p) == 0 && !spsc_try_push(&p, 1) && spsc_push_batch(&p, buf, 1) == 0);
    *r.tail = c.head + CAP;
    CHECK(spsc_len(&c) == CAP);
    puts("ok");
    return 0;
}
