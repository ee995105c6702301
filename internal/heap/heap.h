/*
 * heap.h: the user's shared heap, memory its ghost can map.
 *
 * Registered buffers (MPI_Alloc_mem with shmbuf_regist=true) and bounce
 * copies of unregistered buffers both come from here. The heap is a set of
 * memfd segments listed in the channel's segment table, so the ghost can map
 * any of them through /proc/<pid>/fd/<fd>:
 *
 *   arenas    CSP_HEAP_ARENA bytes each, cut into 64 KiB pages; a page (or a
 *             span of pages) serves one power-of-two size class for life;
 *   huge      one segment per allocation larger than half an arena;
 *   external  memory registered from elsewhere (shared windows).
 *
 * Free blocks sit on one LIFO list per class, linked through their first
 * word. Memory is bounded by the peak use of each class; nothing coalesces.
 * Only the user process calls these functions (the caller serializes them
 * under MPI_THREAD_MULTIPLE).
 */
#ifndef CASPERII_HEAP_H
#define CASPERII_HEAP_H

#include <stddef.h>
#include <stdint.h>
#include "channel.h"

#define CSP_HEAP_PAGE_SHIFT 16u /* 64 KiB pages                      */
#define CSP_HEAP_MIN_SHIFT 6u   /* smallest block: 64 bytes          */
#define CSP_HEAP_MAX_CLASSES 40u

enum csp_seg_kind { CSP_SEG_FREE = 0, CSP_SEG_ARENA = 1, CSP_SEG_HUGE = 2, CSP_SEG_EXTERNAL = 3 };

struct csp_heap_seg {
    char *base;
    uint64_t size;
    int fd;
    uint8_t kind;        /* enum csp_seg_kind                               */
    uint32_t next_page;  /* arena: bump pointer, in pages                   */
    uint8_t *page_class; /* arena: class of the span starting at each page  */
    uint64_t hidden;     /* external, hidden: its size (size is 0 meanwhile) */
};

struct csp_heap {
    struct csp_seg_entry *table; /* shared segment table (the ghost reads it) */
    uint32_t max_segs;
    uint32_t nsegs;              /* 1 + highest segment index ever used       */
    uint32_t last;               /* segment of the last lookup hit            */
    uint32_t arena_shift;        /* log2 of the arena size                    */
    struct csp_heap_seg seg[CSP_MAX_SEGS];
    void *free_list[CSP_HEAP_MAX_CLASSES];
    uint64_t in_use;             /* bytes handed out and not yet freed        */
    uint64_t reserved;           /* bytes held in arenas and huge segments    */
    uint64_t allocs, frees;
    /* Called after a segment leaves the table, so the ghost can unmap it. */
    void (*on_remove)(void *arg, uint32_t seg);
    void *on_remove_arg;
};

/* Initialize h over the shared table of max_segs entries; arena_shift sets
 * the arena size (2^arena_shift bytes, at least 2^20). Returns 0 or -errno. */
int csp_heap_init(struct csp_heap *h, struct csp_seg_entry *table, uint32_t max_segs,
                  uint32_t arena_shift);

/* Allocate n bytes (n > 0), aligned to min(block size, 64 KiB) and at least
 * 64 bytes. NULL with errno set on failure. */
void *csp_heap_alloc(struct csp_heap *h, size_t n);

/* Free a block returned by csp_heap_alloc. Returns 0, or -EINVAL when p is
 * not the start of a live block of this heap. */
int csp_heap_free(struct csp_heap *h, void *p);

/* csp_heap_find without the shortcut through the last segment hit. */
int csp_heap_find_slow(struct csp_heap *h, const void *p, size_t n, uint32_t *seg, uint64_t *off);

/* Find the segment holding [p, p+n): returns 1 and sets *seg and *off, or 0.
 * Inline for the common case, every post: the segment of the last hit. */
static inline int csp_heap_find(struct csp_heap *h, const void *p, size_t n, uint32_t *seg,
                                uint64_t *off)
{
    const struct csp_heap_seg *s = &h->seg[h->last];
    const char *c = (const char *)p;
    if (s->kind != CSP_SEG_FREE && c >= s->base && (uint64_t)(c - s->base) < s->size &&
        n <= s->size - (uint64_t)(c - s->base)) {
        *seg = h->last;
        *off = (uint64_t)(c - s->base);
        return 1;
    }
    return csp_heap_find_slow(h, p, n, seg, off);
}

/* Register size bytes at base, backed by descriptor fd, as a segment the
 * ghost may map. Returns the segment index, or -errno. */
int csp_heap_add_external(struct csp_heap *h, int fd, void *base, uint64_t size);

/* Remove an external segment (the caller unmaps and closes it). */
int csp_heap_remove_external(struct csp_heap *h, uint32_t seg);

/* Hide an external segment from csp_heap_find (hide != 0) or show it
 * again: while hidden it stays in the segment table, so the ghost keeps
 * its mapping, but no address is found in it (its memory is about to go
 * away, or may already have). Returns 0 or -EINVAL. */
int csp_heap_hide_external(struct csp_heap *h, uint32_t seg, int hide);

/* Unmap and close every arena and huge segment. */
void csp_heap_destroy(struct csp_heap *h);

/* Usable size of the block at p (its class size), 0 if p is not a block. */
size_t csp_heap_block_size(struct csp_heap *h, const void *p);

#endif /* CASPERII_HEAP_H */
