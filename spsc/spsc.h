/*
 * spsc.h: the single-producer, single-consumer ring of uint64 values that an
 * application process uses to post cell indices to its ghost.
 *
 * The one definition of the shared-memory layout: the Go package
 * github.com/casperii/casperii/spsc takes every constant and offset from
 * code generated from this file (layout_gen.go, by cmd/layoutgen from
 * layout_defs.go; TestLayoutGenerated fails when it is stale).
 * Self-contained: C11, __atomic builtins, static inline functions only, no
 * globals.
 *
 * Layout (little-endian, naturally aligned, base 64-byte aligned):
 *   offset   0, line 0: uint32 magic, version, capacity, slot_size; zeros.
 *                       Written by spsc_format, immutable afterwards.
 *   offset  64, line 1: uint64 tail, next index the producer writes.
 *   offset 128, line 2: uint64 head, next index the consumer reads.
 *   offset 192, line 3: reserved, zero.
 *   offset 256:         uint64 slots[capacity]; index i is slot i&(capacity-1).
 * Head and tail are free-running (never masked): 0 <= tail-head <= capacity.
 *
 * Ordering: only the producer writes tail, with a release store after the
 * slots it publishes; only the consumer writes head, with a release store
 * after it copied the slots out. Each side reads the other's index with an
 * acquire load, and only when its cached copy cannot satisfy the request.
 *
 * Trust: the consumer checks every tail it loads (tail-head <= capacity,
 * uint64 arithmetic) and returns -EPROTO instead of reading past it. The
 * producer treats an impossible head as a full ring.
 *
 * Error codes (negative errno values):
 *   -EINVAL           NULL region, base not 64-byte aligned, or (spsc_format)
 *                     a capacity that is not a power of two in range
 *   -ENOSPC           region shorter than SPSC_SIZE(capacity)
 *   -EBADMSG          wrong magic or slot size
 *   -EPROTONOSUPPORT  wrong version
 *   -ERANGE           header capacity not a power of two in range
 *   -EPROTO           (spsc_pop_batch, spsc_len) corrupt tail
 */
#ifndef CASPERII_SPSC_H
#define CASPERII_SPSC_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
               "spsc.h: the ring layout is little-endian");

#define SPSC_MAGIC 0x43535053u /* "SPSC" read as a little-endian uint32 */
#define SPSC_VERSION 1u
#define SPSC_SLOT_SIZE 8u
#define SPSC_MIN_CAPACITY 2u
#define SPSC_MAX_CAPACITY (1u << 24)
#define SPSC_ALIGNMENT 64u
#define SPSC_HEADER_SIZE 256u

#define SPSC_OFF_MAGIC 0u
#define SPSC_OFF_VERSION 4u
#define SPSC_OFF_CAPACITY 8u
#define SPSC_OFF_SLOT_SIZE 12u
#define SPSC_OFF_TAIL 64u
#define SPSC_OFF_HEAD 128u
#define SPSC_OFF_RESERVED 192u
#define SPSC_OFF_SLOTS SPSC_HEADER_SIZE

/* Bytes needed for a ring of cap slots. */
#define SPSC_SIZE(cap) ((size_t)SPSC_HEADER_SIZE + (size_t)SPSC_SLOT_SIZE * (size_t)(cap))

/* A checked view of a ring; copied into each end, never shared. */
struct spsc_ring {
    uint64_t *tail;  /* base + SPSC_OFF_TAIL */
    uint64_t *head;  /* base + SPSC_OFF_HEAD */
    uint64_t *slots; /* base + SPSC_OFF_SLOTS */
    uint64_t mask;   /* capacity - 1, from the header at attach time */
};

/* The writing end: private cursor and cached head. At most one per ring. */
struct spsc_producer {
    struct spsc_ring r;
    uint64_t tail;        /* == *r.tail after every call */
    uint64_t cached_head; /* <= *r.head; reloaded when it shows too little room */
};

/* The reading end: private cursor and cached tail. At most one per ring. */
struct spsc_consumer {
    struct spsc_ring r;
    uint64_t head;        /* == *r.head after every call */
    uint64_t cached_tail; /* head <= cached_tail <= head + capacity */
};

static inline int spsc_valid_capacity_(uint64_t c)
{
    return c >= SPSC_MIN_CAPACITY && c <= SPSC_MAX_CAPACITY && (c & (c - 1)) == 0;
}

static inline uint32_t spsc_get32_(const void *mem, size_t off)
{
    uint32_t v;
    memcpy(&v, (const unsigned char *)mem + off, sizeof v);
    return v;
}

static inline void spsc_put32_(void *mem, size_t off, uint32_t v)
{
    memcpy((unsigned char *)mem + off, &v, sizeof v);
}

static inline void spsc_view_(struct spsc_ring *r, void *mem, uint32_t capacity)
{
    unsigned char *b = (unsigned char *)mem;
    r->tail = (uint64_t *)(void *)(b + SPSC_OFF_TAIL);
    r->head = (uint64_t *)(void *)(b + SPSC_OFF_HEAD);
    r->slots = (uint64_t *)(void *)(b + SPSC_OFF_SLOTS);
    r->mask = (uint64_t)capacity - 1;
}

static inline int spsc_check_region_(const void *mem, size_t len, uint64_t capacity)
{
    if (mem == NULL || (uintptr_t)mem % SPSC_ALIGNMENT != 0)
        return -EINVAL;
    if (len < SPSC_SIZE(capacity))
        return -ENOSPC;
    return 0;
}

/*
 * spsc_format writes a fresh header (zero head and tail, reserved line
 * cleared) for a ring of capacity slots at mem and fills *r. Slots are not
 * cleared. No other process may use the region meanwhile.
 */
static inline int spsc_format(void *mem, size_t len, uint32_t capacity, struct spsc_ring *r)
{
    int err;
    if (!spsc_valid_capacity_(capacity))
        return -EINVAL;
    if ((err = spsc_check_region_(mem, len, capacity)) != 0)
        return err;
    memset(mem, 0, SPSC_HEADER_SIZE);
    spsc_put32_(mem, SPSC_OFF_MAGIC, SPSC_MAGIC);
    spsc_put32_(mem, SPSC_OFF_VERSION, SPSC_VERSION);
    spsc_put32_(mem, SPSC_OFF_CAPACITY, capacity);
    spsc_put32_(mem, SPSC_OFF_SLOT_SIZE, SPSC_SLOT_SIZE);
    spsc_view_(r, mem, capacity);
    return 0;
}

/*
 * spsc_attach validates the header at mem (magic, version, capacity, slot
 * size, alignment, region length) and fills *r. Head and tail are not
 * checked here; the consumer checks each tail it loads.
 */
static inline int spsc_attach(void *mem, size_t len, struct spsc_ring *r)
{
    uint32_t capacity;
    if (mem == NULL || (uintptr_t)mem % SPSC_ALIGNMENT != 0)
        return -EINVAL;
    if (len < SPSC_HEADER_SIZE)
        return -ENOSPC;
    if (spsc_get32_(mem, SPSC_OFF_MAGIC) != SPSC_MAGIC)
        return -EBADMSG;
    if (spsc_get32_(mem, SPSC_OFF_VERSION) != SPSC_VERSION)
        return -EPROTONOSUPPORT;
    capacity = spsc_get32_(mem, SPSC_OFF_CAPACITY);
    if (!spsc_valid_capacity_(capacity))
        return -ERANGE;
    if (spsc_get32_(mem, SPSC_OFF_SLOT_SIZE) != SPSC_SLOT_SIZE)
        return -EBADMSG;
    if (len < SPSC_SIZE(capacity))
        return -ENOSPC;
    spsc_view_(r, mem, capacity);
    return 0;
}

/* spsc_capacity returns the capacity of a ring in slots. */
static inline uint64_t spsc_capacity(const struct spsc_ring *r)
{
    return r->mask + 1;
}

/* ---- producer ---- */

static inline void spsc_producer_init(struct spsc_producer *p, const struct spsc_ring *r)
{
    p->r = *r;
    p->tail = __atomic_load_n(r->tail, __ATOMIC_ACQUIRE);
    p->cached_head = __atomic_load_n(r->head, __ATOMIC_ACQUIRE);
}

/* Room according to the cached head; an impossible head reads as full. */
static inline uint64_t spsc_producer_room_(const struct spsc_producer *p)
{
    uint64_t used = p->tail - p->cached_head;
    uint64_t cap = p->r.mask + 1;
    return used > cap ? 0 : cap - used;
}

/* spsc_free loads head and returns how many values could be pushed now. */
static inline size_t spsc_free(struct spsc_producer *p)
{
    p->cached_head = __atomic_load_n(p->r.head, __ATOMIC_ACQUIRE);
    return (size_t)spsc_producer_room_(p);
}

/* spsc_try_push writes v and publishes it; returns 1, or 0 if the ring is full. */
static inline int spsc_try_push(struct spsc_producer *p, uint64_t v)
{
    if (p->tail - p->cached_head >= p->r.mask + 1) {
        p->cached_head = __atomic_load_n(p->r.head, __ATOMIC_ACQUIRE);
        if (spsc_producer_room_(p) == 0)
            return 0;
    }
    p->r.slots[p->tail & p->r.mask] = v;
    p->tail++;
    __atomic_store_n(p->r.tail, p->tail, __ATOMIC_RELEASE);
    return 1;
}

/*
 * spsc_push_batch writes as many of vs[0..n) as fit and publishes them with
 * one release store of tail; returns how many it wrote.
 */
static inline size_t spsc_push_batch(struct spsc_producer *p, const uint64_t *vs, size_t n)
{
    uint64_t room = spsc_producer_room_(p), i, k;
    if (room < n) {
        p->cached_head = __atomic_load_n(p->r.head, __ATOMIC_ACQUIRE);
        room = spsc_producer_room_(p);
    }
    if (n > room)
        n = (size_t)room;
    if (n == 0)
        return 0;
    i = p->tail & p->r.mask;
    k = p->r.mask + 1 - i; /* slots up to the end */
    if (k > n)
        k = n;
    memcpy(p->r.slots + i, vs, (size_t)k * sizeof *vs);
    memcpy(p->r.slots, vs + k, (size_t)(n - k) * sizeof *vs);
    p->tail += n;
    __atomic_store_n(p->r.tail, p->tail, __ATOMIC_RELEASE);
    return n;
}

/* ---- consumer ---- */

static inline void spsc_consumer_init(struct spsc_consumer *c, const struct spsc_ring *r)
{
    c->r = *r;
    c->head = __atomic_load_n(r->head, __ATOMIC_ACQUIRE);
    c->cached_tail = c->head;
}

/* Loads tail and caches it if tail-head <= capacity; else -EPROTO. */
static inline int spsc_consumer_load_(struct spsc_consumer *c)
{
    uint64_t t = __atomic_load_n(c->r.tail, __ATOMIC_ACQUIRE);
    if (t - c->head > c->r.mask + 1)
        return -EPROTO;
    c->cached_tail = t;
    return 0;
}

/* spsc_len loads tail and returns how many values are waiting, or -EPROTO. */
static inline int64_t spsc_len(struct spsc_consumer *c)
{
    int err = spsc_consumer_load_(c);
    return err != 0 ? err : (int64_t)(c->cached_tail - c->head);
}

/*
 * spsc_pop_batch copies up to n values into dst, oldest first, and hands
 * their slots back with one release store of head. Returns how many it
 * copied (0 if empty), or -EPROTO, changing nothing, if the tail it loaded
 * is corrupt.
 */
static inline int64_t spsc_pop_batch(struct spsc_consumer *c, uint64_t *dst, size_t n)
{
    uint64_t avail = c->cached_tail - c->head, i, k;
    if (avail < n) {
        int err = spsc_consumer_load_(c);
        if (err != 0)
            return err;
        avail = c->cached_tail - c->head;
    }
    if (n > avail)
        n = (size_t)avail;
    if (n == 0)
        return 0;
    i = c->head & c->r.mask;
    k = c->r.mask + 1 - i;
    if (k > n)
        k = n;
    memcpy(dst, c->r.slots + i, (size_t)k * sizeof *dst);
    memcpy(dst + k, c->r.slots, (size_t)(n - k) * sizeof *dst);
    c->head += n;
    __atomic_store_n(c->r.head, c->head, __ATOMIC_RELEASE);
    return (int64_t)n;
}

#endif /* CASPERII_SPSC_H */
