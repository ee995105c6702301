// Package casperii is CasperII for Go programs: asynchronous progress for
// MPI point-to-point communication, by ghost processes that carry a
// communicator's nonblocking sends and receives while the program computes.
//
// A Go MPI program calls Init, creates communicators with hints, allocates
// its message buffers with AllocMem, and uses Isend/Irecv/Wait as it would
// with MPI. Ghost processes (CSP_NG per node) never return from Init: they
// serve their node's users and exit when those finalize. World() returns
// the users only, as MPI_COMM_WORLD does for a C program under CasperII.
//
// MPI calls must come from the goroutine that called Init, which Init locks
// to its OS thread (MPI_THREAD_FUNNELED), unless InitThread asks for
// ThreadMultiple.
//
// casperii owns the Go API and nothing below it: it imports the runtime
// (internal/core), the user side's calls (internal/user), the MPI binding
// (internal/mpi) and the hints (info). Only programs and their test
// helpers (test/progs, test/internal/csptest, osubench/goapi) import
// casperii, never a package of the runtime.
package casperii

import (
	"fmt"
	goruntime "runtime"
	"unsafe"

	"github.com/casperii/casperii/info"
	"github.com/casperii/casperii/internal/core"
	"github.com/casperii/casperii/internal/mpi"
	"github.com/casperii/casperii/internal/user"
)

// Wildcards, as MPI_ANY_SOURCE and MPI_ANY_TAG.
var (
	AnySource = mpi.AnySource
	AnyTag    = mpi.AnyTag
	ProcNull  = mpi.ProcNull
)

// ThreadLevel is an MPI thread support level.
type ThreadLevel int

// Thread levels.
const (
	ThreadSingle     = ThreadLevel(mpi.ThreadSingle)
	ThreadFunneled   = ThreadLevel(mpi.ThreadFunneled)
	ThreadSerialized = ThreadLevel(mpi.ThreadSerialized)
	ThreadMultiple   = ThreadLevel(mpi.ThreadMultiple)
)

// Init initializes MPI and CasperII at MPI_THREAD_FUNNELED. In a ghost
// process it does not return.
func Init() error {
	_, err := InitThread(ThreadFunneled)
	return err
}

// InitThread initializes MPI and CasperII at the required thread level and
// returns the level provided. In a ghost process it does not return. MPI
// errors on the communicators of the Go API are returned as Go errors.
func InitThread(required ThreadLevel) (ThreadLevel, error) {
	goruntime.LockOSThread()
	p, err := core.Init(int(required))
	if err != nil {
		return ThreadLevel(p), err
	}
	// Errors come back as Go errors: on the user world, and on the real
	// world, where MPICH reports errors of calls without a communicator
	// (MPI_Wait on an offloaded request).
	core.Current().UserWorld().SetErrhandler(mpi.ErrorsReturn)
	mpi.CommWorld.SetErrhandler(mpi.ErrorsReturn)
	return ThreadLevel(p), nil
}

// Finalize finishes CasperII and MPI.
func Finalize() error { return core.Finalize() }

// TagUB returns the largest tag the program may use: MPI's MPI_TAG_UB,
// reduced by the bits tag encoding reserves when it may be used.
func TagUB() int {
	if r := core.Current(); r != nil && r.Role() != core.RolePassThrough {
		return r.ExposedTagUB()
	}
	ub, _ := mpi.CommWorld.TagUB()
	return ub
}

// Info holds MPI info hints, such as {"wildcard_used": "none"}.
type Info map[string]string

func (in Info) mpi() (mpi.Info, error) {
	if len(in) == 0 {
		return mpi.InfoNull, nil
	}
	m, err := mpi.InfoCreate()
	if err != nil {
		return mpi.InfoNull, err
	}
	for k, v := range in {
		if err := m.Set(k, v); err != nil {
			m.Free()
			return mpi.InfoNull, err
		}
	}
	return m, nil
}

// Comm is a communicator of user processes.
type Comm struct{ c mpi.Comm }

// World returns the communicator of all user processes (ghosts excluded).
func World() Comm { return Comm{core.Current().UserWorld()} }

// Rank returns this process's rank in c.
func (c Comm) Rank() int { r, _ := c.c.Rank(); return r }

// Size returns the number of processes in c.
func (c Comm) Size() int { s, _ := c.c.Size(); return s }

// Barrier synchronizes c.
func (c Comm) Barrier() error { return c.c.Barrier() }

// Dup duplicates c; the new communicator inherits c's hints.
func (c Comm) Dup() (Comm, error) {
	n, err := c.c.Dup()
	if err != nil {
		return Comm{}, err
	}
	return Comm{n}, core.Current().CommCreated(c.c, n, mpi.InfoNull)
}

// DupWithInfo duplicates c with hints that override c's.
func (c Comm) DupWithInfo(hints Info) (Comm, error) {
	inf, err := hints.mpi()
	if err != nil {
		return Comm{}, err
	}
	defer inf.Free()
	n, err := c.c.DupWithInfo(inf)
	if err != nil {
		return Comm{}, err
	}
	return Comm{n}, core.Current().CommCreated(c.c, n, inf)
}

// Split partitions c by color, ordering by key.
func (c Comm) Split(color, key int) (Comm, error) {
	n, err := c.c.Split(color, key)
	if err != nil || n.IsNull() {
		return Comm{n}, err
	}
	return Comm{n}, core.Current().CommCreated(c.c, n, mpi.InfoNull)
}

// SetInfo sets hints on c.
func (c Comm) SetInfo(hints Info) error {
	inf, err := hints.mpi()
	if err != nil {
		return err
	}
	defer inf.Free()
	if !inf.IsNull() {
		if err := c.c.SetInfo(inf); err != nil {
			return err
		}
	}
	return core.Current().CommSetInfo(c.c, inf)
}

// Hints returns the CasperII hints in effect on c.
func (c Comm) Hints() Info {
	out := Info{}
	for _, p := range core.Current().CommInfoPairs(c.c) {
		out[p[0]] = p[1]
	}
	return out
}

// Algorithm names how c's point-to-point traffic is carried ("off",
// "tag-encoding", "duplication", "duplication-src", "ghost-match").
func (c Comm) Algorithm() string {
	return core.Current().Algorithm(c.c).String()
}

// Free releases c.
func (c *Comm) Free() error {
	core.Current().CommFreed(c.c)
	return c.c.Free()
}

// Buffer is memory from AllocMem.
type Buffer struct {
	p      unsafe.Pointer
	n      int
	shared bool
}

// AllocMem allocates n bytes. With {"shmbuf_regist": "true"} the memory is
// shared with the ghost, so offloaded operations on it need no copy.
func AllocMem(n int, hints Info) (*Buffer, error) {
	h, err := info.Parse(info.Map(hints))
	if err != nil {
		return nil, &core.HintError{Err: err}
	}
	if n < 0 {
		return nil, fmt.Errorf("casperii: AllocMem of %d bytes: the size must be >= 0", n)
	}
	if regist, _ := h.ShmbufRegist(); regist && user.Started() {
		p, err := user.Heap().Alloc(max(n, 1)) // MPI allows 0 bytes; the heap's smallest block serves it
		if err != nil {
			return nil, err
		}
		return &Buffer{p: p, n: n, shared: true}, nil
	}
	p, err := mpi.AllocMem(max(n, 1), mpi.InfoNull)
	if err != nil {
		return nil, err
	}
	return &Buffer{p: p, n: n}, nil
}

// Bytes returns the buffer's memory.
func (b *Buffer) Bytes() []byte {
	if b.n == 0 {
		return []byte{}
	}
	return unsafe.Slice((*byte)(b.p), b.n)
}

// Registered reports whether the buffer is shared with the ghost.
func (b *Buffer) Registered() bool { return b.shared }

// Free releases the buffer.
func (b *Buffer) Free() error {
	if b.p == nil {
		return nil
	}
	var err error
	if b.shared {
		err = user.Heap().Free(b.p)
	} else {
		err = mpi.FreeMem(b.p)
	}
	b.p = nil
	return err
}

// Status describes a completed receive.
type Status struct {
	Source, Tag int
	Count       int // bytes received
	Cancelled   bool
}

// Request is a pending nonblocking operation.
type Request struct {
	h   mpi.Request
	pin goruntime.Pinner
}

func ptr(buf []byte) unsafe.Pointer {
	if len(buf) == 0 {
		return nil
	}
	return unsafe.Pointer(&buf[0])
}

// Isend starts sending buf to dest with tag on c. buf must not change
// until the request completes.
func Isend(buf []byte, dest, tag int, c Comm) (*Request, error) {
	r := &Request{}
	if len(buf) > 0 {
		r.pin.Pin(&buf[0])
	}
	h, err := user.Isend(ptr(buf), len(buf), mpi.Byte, dest, tag, c.c, false)
	if err != nil {
		r.pin.Unpin()
		return nil, err
	}
	r.h = h
	return r, nil
}

// Issend is Isend in synchronous mode: it completes once the receive has
// started to match.
func Issend(buf []byte, dest, tag int, c Comm) (*Request, error) {
	r := &Request{}
	if len(buf) > 0 {
		r.pin.Pin(&buf[0])
	}
	h, err := user.Isend(ptr(buf), len(buf), mpi.Byte, dest, tag, c.c, true)
	if err != nil {
		r.pin.Unpin()
		return nil, err
	}
	r.h = h
	return r, nil
}

// Irecv starts receiving into buf from src (or AnySource) with tag (or
// AnyTag) on c.
func Irecv(buf []byte, src, tag int, c Comm) (*Request, error) {
	r := &Request{}
	if len(buf) > 0 {
		r.pin.Pin(&buf[0])
	}
	h, err := user.Irecv(ptr(buf), len(buf), mpi.Byte, src, tag, c.c)
	if err != nil {
		r.pin.Unpin()
		return nil, err
	}
	r.h = h
	return r, nil
}

// Send sends buf and returns when buf may be reused.
func Send(buf []byte, dest, tag int, c Comm) error {
	return user.Send(ptr(buf), len(buf), mpi.Byte, dest, tag, c.c, false)
}

// Recv receives into buf.
func Recv(buf []byte, src, tag int, c Comm) (Status, error) {
	st, err := user.Recv(ptr(buf), len(buf), mpi.Byte, src, tag, c.c)
	return status(st), err
}

func status(st user.Status) Status {
	return Status{Source: st.Source, Tag: st.Tag, Count: int(st.Bytes), Cancelled: st.Cancelled}
}

// Wait completes r.
func (r *Request) Wait() (Status, error) {
	st, err := user.Wait(&r.h)
	r.pin.Unpin()
	return status(st), err
}

// Test reports whether r has completed (completing it if so).
func (r *Request) Test() (bool, Status, error) {
	done, st, err := user.Test(&r.h)
	if done {
		r.pin.Unpin()
	}
	return done, status(st), err
}

// Cancel asks for r to be cancelled; Wait then reports Cancelled.
func (r *Request) Cancel() error { return user.Cancel(&r.h) }

// Waitall completes every request.
func Waitall(reqs ...*Request) error {
	hs := make([]mpi.Request, len(reqs))
	for i, r := range reqs {
		hs[i] = r.h
	}
	err := user.Waitall(hs)
	for i, r := range reqs {
		r.h = hs[i]
		r.pin.Unpin()
	}
	return err
}

// Iprobe reports whether a message from src with tag is waiting on c.
func Iprobe(src, tag int, c Comm) (bool, Status, error) {
	ok, st, err := user.Iprobe(src, tag, c.c)
	return ok, status(st), err
}

// Probe waits for a message from src with tag on c.
func Probe(src, tag int, c Comm) (Status, error) {
	st, err := user.Probe(src, tag, c.c)
	return status(st), err
}

// Stats are this process's offload counters (CSP_STATS prints them).
type Stats = user.Stats

// CurrentStats returns this process's offload counters.
func CurrentStats() Stats { return user.CurrentStats() }

// ErrorClass returns the MPI error class of an error from this package
// (for example mpi's MPI_ERR_TAG), or 0 if err is nil or not from MPI.
func ErrorClass(err error) int {
	if err == nil {
		return 0
	}
	return core.ErrorClass(err)
}

// Error classes, as MPI defines them.
var (
	ErrTag       = mpi.ErrTag
	ErrRank      = mpi.ErrRank
	ErrInfoValue = mpi.ErrInfoValue
	ErrPending   = mpi.ErrPending
	ErrTruncate  = mpi.ErrTruncate
	ErrCount     = mpi.ErrCount
)
