// Package cring runs the C implementation in spsc.h from Go, so that tests
// of package spsc can check that a C producer or consumer and a Go one
// interoperate on one ring, and that both refuse the same broken headers.
// It exists because _test.go files cannot use cgo.
//
// The memory handed to Start* and NewConsumer must not be Go-allocated (use
// an mmap'd region): C keeps pointers into it after the call returns.
//
// spsc.h in this directory is a symbolic link to ../../spsc.h. The go command
// hashes only the headers inside a package's directory when it decides what
// to rebuild, so including ../../spsc.h directly would leave this package,
// and the tests using it, stale after an edit to the header.
package cring

/*
#cgo CFLAGS: -std=c11 -Wall -Wextra
#cgo LDFLAGS: -lpthread
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include "spsc.h"

// Backoff for a blocked thread: spin a little, then yield the CPU.
static void cring_backoff(unsigned *spins) {
	if (++*spins > 64) sched_yield();
}

struct cring_job {
	pthread_t thread;
	struct spsc_ring r;
	uint64_t first, n;   // sequence first, first+1, ..., first+n-1
	size_t batch;
	// Results, read after join.
	int64_t err;         // 0, -EPROTO (corrupt tail) or -EILSEQ (bad value)
	uint64_t index;      // with -EILSEQ: position of the bad value
	uint64_t got;        // with -EILSEQ: the bad value
	uint64_t done;       // values pushed or checked
	int finished;        // set (release) when the thread is about to exit
};

static void *cring_produce(void *arg) {
	struct cring_job *j = arg;
	struct spsc_producer p;
	uint64_t buf[256];
	unsigned spins = 0;
	spsc_producer_init(&p, &j->r);
	while (j->done < j->n) {
		size_t k = j->batch, w;
		if (k > j->n - j->done) k = (size_t)(j->n - j->done);
		if (k == 1) {
			w = (size_t)spsc_try_push(&p, j->first + j->done);
		} else {
			for (size_t i = 0; i < k; i++) buf[i] = j->first + j->done + i;
			w = spsc_push_batch(&p, buf, k);
		}
		if (w == 0) { cring_backoff(&spins); continue; }
		spins = 0;
		j->done += w;
	}
	__atomic_store_n(&j->finished, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void *cring_consume(void *arg) {
	struct cring_job *j = arg;
	struct spsc_consumer c;
	uint64_t buf[256];
	unsigned spins = 0;
	spsc_consumer_init(&c, &j->r);
	while (j->done < j->n) {
		size_t k = j->batch;
		if (k > j->n - j->done) k = (size_t)(j->n - j->done);
		int64_t got = spsc_pop_batch(&c, buf, k);
		if (got < 0) { j->err = got; break; }
		if (got == 0) { cring_backoff(&spins); continue; }
		spins = 0;
		for (int64_t i = 0; i < got; i++) {
			if (buf[i] != j->first + j->done) {
				j->err = -EILSEQ; j->index = j->done; j->got = buf[i];
				goto out;
			}
			j->done++;
		}
	}
out:
	__atomic_store_n(&j->finished, 1, __ATOMIC_RELEASE);
	return NULL;
}

static int cring_start(struct cring_job **out, void *mem, size_t len, uint64_t first,
                       uint64_t n, size_t batch, int produce) {
	struct cring_job *j = calloc(1, sizeof *j);
	int err;
	if (j == NULL) return -ENOMEM;
	if ((err = spsc_attach(mem, len, &j->r)) != 0) { free(j); return err; }
	j->first = first; j->n = n; j->batch = batch;
	if ((err = pthread_create(&j->thread, NULL, produce ? cring_produce : cring_consume, j)) != 0) {
		free(j);
		return -err;
	}
	*out = j;
	return 0;
}

static void cring_join(struct cring_job *j) { pthread_join(j->thread, NULL); }
static int cring_finished(struct cring_job *j) { return __atomic_load_n(&j->finished, __ATOMIC_ACQUIRE); }

static int cring_format(void *mem, size_t len, uint32_t cap) { struct spsc_ring r; return spsc_format(mem, len, cap, &r); }
static int cring_attach(void *mem, size_t len) { struct spsc_ring r; return spsc_attach(mem, len, &r); }

static int cring_consumer_new(struct spsc_consumer **out, void *mem, size_t len) {
	struct spsc_ring r;
	int err = spsc_attach(mem, len, &r);
	if (err != 0) return err;
	if ((*out = malloc(sizeof **out)) == NULL) return -ENOMEM;
	spsc_consumer_init(*out, &r);
	return 0;
}
*/
import "C"

import (
	"fmt"
	"syscall"
	"unsafe"
)

func ptr(mem []byte) unsafe.Pointer {
	if len(mem) == 0 {
		return nil
	}
	return unsafe.Pointer(&mem[0])
}

// Code converts a negative errno-style result of spsc.h into an error, nil for 0.
func Code(rc int64) error {
	if rc >= 0 {
		return nil
	}
	return syscall.Errno(-rc)
}

// Format runs spsc_format on mem.
func Format(mem []byte, capacity uint32) error {
	return Code(int64(C.cring_format(ptr(mem), C.size_t(len(mem)), C.uint32_t(capacity))))
}

// Attach runs spsc_attach on mem.
func Attach(mem []byte) error {
	return Code(int64(C.cring_attach(ptr(mem), C.size_t(len(mem)))))
}

// Job is a C thread pushing or checking a run of sequence numbers.
type Job struct {
	j       *C.struct_cring_job
	produce bool
}

func start(mem []byte, first, n uint64, batch int, produce bool) (*Job, error) {
	if batch < 1 || batch > 256 {
		return nil, fmt.Errorf("cring: batch %d not in [1, 256]", batch)
	}
	var j *C.struct_cring_job
	p := C.int(0)
	if produce {
		p = 1
	}
	if err := Code(int64(C.cring_start(&j, ptr(mem), C.size_t(len(mem)), C.uint64_t(first), C.uint64_t(n), C.size_t(batch), p))); err != nil {
		return nil, fmt.Errorf("cring: start: %w", err)
	}
	return &Job{j: j, produce: produce}, nil
}

// StartProducer starts a C thread that pushes first, first+1, ...,
// first+n-1 with spsc_push_batch in batches of batch values (spsc_try_push
// when batch is 1), spinning and then yielding while the ring is full.
func StartProducer(mem []byte, first, n uint64, batch int) (*Job, error) {
	return start(mem, first, n, batch, true)
}

// StartConsumer starts a C thread that pops n values in batches of up to
// batch with spsc_pop_batch and checks they are first, first+1, ...
func StartConsumer(mem []byte, first, n uint64, batch int) (*Job, error) {
	return start(mem, first, n, batch, false)
}

// Done reports whether the thread has finished, successfully or not, so
// that its Go peer can stop waiting for it.
func (j *Job) Done() bool { return C.cring_finished(j.j) != 0 }

// Wait joins the thread, frees it and reports what went wrong, if anything.
func (j *Job) Wait() error {
	C.cring_join(j.j)
	defer C.free(unsafe.Pointer(j.j))
	switch e := int64(j.j.err); {
	case e == -int64(syscall.EILSEQ):
		return fmt.Errorf("cring: value %d is %d, want %d", uint64(j.j.index), uint64(j.j.got), uint64(j.j.first+j.j.index))
	case e != 0:
		return fmt.Errorf("cring: after %d values: %w", uint64(j.j.done), Code(e))
	}
	if j.j.done != j.j.n {
		return fmt.Errorf("cring: %d values done, want %d", uint64(j.j.done), uint64(j.j.n))
	}
	return nil
}

// Consumer is a spsc_consumer in C memory.
type Consumer struct{ c *C.struct_spsc_consumer }

// NewConsumer attaches to mem and initializes a C consumer. Free it with Close.
func NewConsumer(mem []byte) (*Consumer, error) {
	var c *C.struct_spsc_consumer
	if err := Code(int64(C.cring_consumer_new(&c, ptr(mem), C.size_t(len(mem))))); err != nil {
		return nil, err
	}
	return &Consumer{c: c}, nil
}

// PopBatch runs spsc_pop_batch into dst.
func (c *Consumer) PopBatch(dst []uint64) (int, error) {
	var p *C.uint64_t
	if len(dst) > 0 {
		p = (*C.uint64_t)(unsafe.Pointer(&dst[0]))
	}
	rc := int64(C.spsc_pop_batch(c.c, p, C.size_t(len(dst))))
	if rc < 0 {
		return 0, Code(rc)
	}
	return int(rc), nil
}

// Close frees the consumer.
func (c *Consumer) Close() { C.free(unsafe.Pointer(c.c)); c.c = nil }
