#define _GNU_SOURCE
#include "heap.h"

#include <errno.h>
#include <string.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#define PAGE (1ull << CSP_HEAP_PAGE_SHIFT)
#define CLASS_NONE 0xffu  /* page not the start of a span */

static uint32_t class_of(size_t n)
{
    uint32_t k = CSP_HEAP_MIN_SHIFT;
    while ((1ull << k) < n)
        k++;
    return k;
}

static void publish(struct csp_heap *h, uint32_t i)
{
    struct csp_heap_seg *s = &h->seg[i];
    csp_seg_publish(&h->table[i], s->fd, s->size); /* release: the segment table handshake (channel.h) */
}

static void unpublish(struct csp_heap *h, uint32_t i)
{
    csp_seg_clear(&h->table[i]); /* release: the segment table handshake (channel.h) */
    if (h->on_remove)
        h->on_remove(h->on_remove_arg, i);
}

static int free_slot(struct csp_heap *h)
{
    for (uint32_t i = 0; i < h->max_segs; i++)
        if (h->seg[i].kind == CSP_SEG_FREE)
            return (int)i;
    return -ENOSPC;
}

static int take_slot(struct csp_heap *h, int i)
{
    if ((uint32_t)i + 1 > h->nsegs)
        h->nsegs = (uint32_t)i + 1;
    return i;
}

/* A new memfd segment of size bytes, mapped. */
static int new_segment(struct csp_heap *h, uint64_t size, uint8_t kind)
{
    int i = free_slot(h);
    if (i < 0)
        return i;
    int fd = memfd_create("casperii-heap", MFD_CLOEXEC);
    if (fd < 0)
        return -errno;
    if (ftruncate(fd, (off_t)size) != 0) {
        int e = errno;
        close(fd);
        return -e;
    }
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
        int e = errno;
        close(fd);
        return -e;
    }
    struct csp_heap_seg *s = &h->seg[i];
    memset(s, 0, sizeof(*s));
    s->base = p;
    s->size = size;
    s->fd = fd;
    s->kind = kind;
    if (kind == CSP_SEG_ARENA) {
        s->page_class = malloc(size >> CSP_HEAP_PAGE_SHIFT);
        if (!s->page_class) {
            munmap(p, size);
            close(fd);
            s->kind = CSP_SEG_FREE;
            return -ENOMEM;
        }
        memset(s->page_class, CLASS_NONE, size >> CSP_HEAP_PAGE_SHIFT);
    }
    h->reserved += size;
    take_slot(h, i);
    publish(h, (uint32_t)i);
    return i;
}

static void drop_segment(struct csp_heap *h, uint32_t i)
{
    struct csp_heap_seg *s = &h->seg[i];
    unpublish(h, i);
    if (s->kind != CSP_SEG_EXTERNAL) {
        munmap(s->base, s->size);
        close(s->fd);
        h->reserved -= s->size;
    }
    free(s->page_class);
    memset(s, 0, sizeof(*s));
    s->fd = -1;
}

int csp_heap_init(struct csp_heap *h, struct csp_seg_entry *table, uint32_t max_segs,
                  uint32_t arena_shift)
{
    if (!table || max_segs == 0 || max_segs > CSP_MAX_SEGS || arena_shift < 20 ||
        arena_shift >= CSP_HEAP_MAX_CLASSES)
        return -EINVAL;
    memset(h, 0, sizeof(*h));
    h->table = table;
    h->max_segs = max_segs;
    h->arena_shift = arena_shift;
    for (uint32_t i = 0; i < max_segs; i++)
        h->seg[i].fd = -1;
    return 0;
}

/* Carve a span for class k (k >= page shift: 2^(k-16) pages; else 1 page)
 * from an arena with room, creating one if needed. */
static char *carve(struct csp_heap *h, uint32_t k, uint32_t *seg_out)
{
    uint32_t pages = k >= CSP_HEAP_PAGE_SHIFT ? 1u << (k - CSP_HEAP_PAGE_SHIFT) : 1u;
    for (uint32_t i = 0; i < h->nsegs; i++) {
        struct csp_heap_seg *s = &h->seg[i];
        if (s->kind == CSP_SEG_ARENA && s->next_page + pages <= (s->size >> CSP_HEAP_PAGE_SHIFT)) {
            *seg_out = i;
            s->page_class[s->next_page] = (uint8_t)k;
            char *p = s->base + ((uint64_t)s->next_page << CSP_HEAP_PAGE_SHIFT);
            s->next_page += pages;
            return p;
        }
    }
    int i = new_segment(h, 1ull << h->arena_shift, CSP_SEG_ARENA);
    if (i < 0) {
        errno = -i;
        return NULL;
    }
    return carve(h, k, seg_out);
}

void *csp_heap_alloc(struct csp_heap *h, size_t n)
{
    if (n == 0) {
        errno = EINVAL;
        return NULL;
    }
    if (n > (1ull << (h->arena_shift - 1))) { /* huge: a segment of its own */
        uint64_t size = (n + 4095) & ~4095ull;
        int i = new_segment(h, size, CSP_SEG_HUGE);
        if (i < 0) {
            errno = -i;
            return NULL;
        }
        h->in_use += size;
        h->allocs++;
        return h->seg[i].base;
    }
    uint32_t k = class_of(n);
    void *p = h->free_list[k];
    if (p) {
        h->free_list[k] = *(void **)p;
    } else {
        uint32_t seg;
        char *span = carve(h, k, &seg);
        if (!span)
            return NULL;
        if (k < CSP_HEAP_PAGE_SHIFT) { /* split the page: keep one, list the rest */
            size_t bs = 1ull << k;
            for (size_t off = PAGE - bs; off > 0; off -= bs) {
                void *b = span + off;
                *(void **)b = h->free_list[k];
                h->free_list[k] = b;
            }
        }
        p = span;
    }
    h->in_use += 1ull << k;
    h->allocs++;
    return p;
}

/* The segment holding address p, or -1. */
static int seg_of(struct csp_heap *h, const void *p)
{
    const char *c = p;
    struct csp_heap_seg *s = &h->seg[h->last];
    if (s->kind != CSP_SEG_FREE && c >= s->base && c < s->base + s->size)
        return (int)h->last;
    for (uint32_t i = 0; i < h->nsegs; i++) {
        s = &h->seg[i];
        if (s->kind != CSP_SEG_FREE && c >= s->base && c < s->base + s->size) {
            h->last = i;
            return (int)i;
        }
    }
    return -1;
}

/* Class of the block starting at p in arena s, or CLASS_NONE. Small blocks
 * share their page's class; a block must start on a class boundary. */
static uint32_t block_class(struct csp_heap_seg *s, const void *p)
{
    uint64_t off = (uint64_t)((const char *)p - s->base);
    uint64_t page = off >> CSP_HEAP_PAGE_SHIFT;
    if (page >= s->next_page)
        return CLASS_NONE;
    uint32_t k = s->page_class[page];
    if (k == CLASS_NONE)
        return CLASS_NONE;
    if (k < CSP_HEAP_PAGE_SHIFT ? (off & ((1ull << k) - 1)) != 0 : (off & (PAGE - 1)) != 0)
        return CLASS_NONE;
    return k;
}

int csp_heap_free(struct csp_heap *h, void *p)
{
    int i = p ? seg_of(h, p) : -1;
    if (i < 0)
        return -EINVAL;
    struct csp_heap_seg *s = &h->seg[i];
    if (s->kind == CSP_SEG_HUGE) {
        if ((char *)p != s->base)
            return -EINVAL;
        h->in_use -= s->size;
        h->frees++;
        drop_segment(h, (uint32_t)i);
        return 0;
    }
    if (s->kind != CSP_SEG_ARENA)
        return -EINVAL;
    uint32_t k = block_class(s, p);
    if (k == CLASS_NONE)
        return -EINVAL;
    *(void **)p = h->free_list[k];
    h->free_list[k] = p;
    h->in_use -= 1ull << k;
    h->frees++;
    return 0;
}

size_t csp_heap_block_size(struct csp_heap *h, const void *p)
{
    int i = p ? seg_of(h, p) : -1;
    if (i < 0)
        return 0;
    struct csp_heap_seg *s = &h->seg[i];
    if (s->kind == CSP_SEG_HUGE)
        return (const char *)p == s->base ? s->size : 0;
    if (s->kind != CSP_SEG_ARENA)
        return 0;
    uint32_t k = block_class(s, p);
    return k == CLASS_NONE ? 0 : 1ull << k;
}

int csp_heap_find_slow(struct csp_heap *h, const void *p, size_t n, uint32_t *seg, uint64_t *off)
{
    int i = seg_of(h, p);
    if (i < 0)
        return 0;
    struct csp_heap_seg *s = &h->seg[i];
    uint64_t o = (uint64_t)((const char *)p - s->base);
    if (n > s->size - o)
        return 0;
    *seg = (uint32_t)i;
    *off = o;
    return 1;
}

int csp_heap_add_external(struct csp_heap *h, int fd, void *base, uint64_t size)
{
    if (!base || size == 0 || fd < 0)
        return -EINVAL;
    int i = free_slot(h);
    if (i < 0)
        return i;
    struct csp_heap_seg *s = &h->seg[i];
    memset(s, 0, sizeof(*s));
    s->base = base;
    s->size = size;
    s->fd = fd;
    s->kind = CSP_SEG_EXTERNAL;
    take_slot(h, i);
    publish(h, (uint32_t)i);
    return i;
}

int csp_heap_remove_external(struct csp_heap *h, uint32_t seg)
{
    if (seg >= h->max_segs || h->seg[seg].kind != CSP_SEG_EXTERNAL)
        return -EINVAL;
    drop_segment(h, seg);
    return 0;
}

int csp_heap_hide_external(struct csp_heap *h, uint32_t seg, int hide)
{
    if (seg >= h->max_segs || h->seg[seg].kind != CSP_SEG_EXTERNAL)
        return -EINVAL;
    struct csp_heap_seg *s = &h->seg[seg];
    /* A lookup matches no address of a segment of size 0 (csp_heap_find,
     * seg_of); the published entry, which the ghost reads, is unchanged. */
    if (hide && s->size) {
        s->hidden = s->size;
        s->size = 0;
    } else if (!hide && s->hidden) {
        s->size = s->hidden;
        s->hidden = 0;
    }
    return 0;
}

void csp_heap_destroy(struct csp_heap *h)
{
    for (uint32_t i = 0; i < h->nsegs; i++)
        if (h->seg[i].kind != CSP_SEG_FREE)
            drop_segment(h, i);
    memset(h->free_list, 0, sizeof(h->free_list));
    h->nsegs = 0;
    h->in_use = 0;
}
