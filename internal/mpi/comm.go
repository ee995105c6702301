package mpi

/*
#include "cspmpi.h"
*/
import "C"

import "unsafe"

// Rank returns the rank of the calling process in c.
func (c Comm) Rank() (int, error) {
	r := C.cspmpi_comm_rank(c.h)
	return int(r.v), errOf(r.rc, "MPI_Comm_rank")
}

// Size returns the size of c (the local group for an intercommunicator).
func (c Comm) Size() (int, error) {
	r := C.cspmpi_comm_size(c.h)
	return int(r.v), errOf(r.rc, "MPI_Comm_size")
}

// RemoteSize returns the size of the remote group of an intercommunicator.
func (c Comm) RemoteSize() (int, error) {
	r := C.cspmpi_comm_remote_size(c.h)
	return int(r.v), errOf(r.rc, "MPI_Comm_remote_size")
}

// TestInter reports whether c is an intercommunicator.
func (c Comm) TestInter() (bool, error) {
	r := C.cspmpi_comm_test_inter(c.h)
	return r.v != 0, errOf(r.rc, "MPI_Comm_test_inter")
}

// CommGetParent returns the intercommunicator to the job that spawned this
// one (MPI_Comm_spawn), or MPI_COMM_NULL for a job mpiexec started.
func CommGetParent() (Comm, error) {
	r := C.cspmpi_comm_get_parent()
	return Comm{C.MPI_Comm(r.v)}, errOf(r.rc, "MPI_Comm_get_parent")
}

// Dup duplicates c.
func (c Comm) Dup() (Comm, error) {
	r := C.cspmpi_comm_dup(c.h)
	return Comm{C.MPI_Comm(r.v)}, errOf(r.rc, "MPI_Comm_dup")
}

// DupWithInfo duplicates c with the hints of info.
func (c Comm) DupWithInfo(info Info) (Comm, error) {
	r := C.cspmpi_comm_dup_with_info(c.h, info.h)
	return Comm{C.MPI_Comm(r.v)}, errOf(r.rc, "MPI_Comm_dup_with_info")
}

// Idup starts a nonblocking duplication of c. The new communicator may be
// used only after the request completes. (MPICH 4.0.2 writes the new handle
// at call time, which is what lets it be returned by value here.)
func (c Comm) Idup() (Comm, Request, error) {
	r := C.cspmpi_comm_idup(c.h)
	return Comm{C.MPI_Comm(r.v)}, Request{C.MPI_Request(r.v2)}, errOf(r.rc, "MPI_Comm_idup")
}

// Split partitions c by color, ordering ranks by key. A color of Undefined
// returns CommNull.
func (c Comm) Split(color, key int) (Comm, error) {
	r := C.cspmpi_comm_split(c.h, C.int(color), C.int(key))
	return Comm{C.MPI_Comm(r.v)}, errOf(r.rc, "MPI_Comm_split")
}

// SplitType partitions c by type (for example CommTypeShared), ordering ranks by key.
func (c Comm) SplitType(splitType, key int, info Info) (Comm, error) {
	r := C.cspmpi_comm_split_type(c.h, C.int(splitType), C.int(key), info.h)
	return Comm{C.MPI_Comm(r.v)}, errOf(r.rc, "MPI_Comm_split_type")
}

// Create creates a communicator from group g, a subset of c's group
// (collective over c). Non-members get CommNull.
func (c Comm) Create(g Group) (Comm, error) {
	r := C.cspmpi_comm_create(c.h, g.h)
	return Comm{C.MPI_Comm(r.v)}, errOf(r.rc, "MPI_Comm_create")
}

// CreateGroup creates a communicator from group g (collective over g only).
func (c Comm) CreateGroup(g Group, tag int) (Comm, error) {
	r := C.cspmpi_comm_create_group(c.h, g.h, C.int(tag))
	return Comm{C.MPI_Comm(r.v)}, errOf(r.rc, "MPI_Comm_create_group")
}

// Free frees the communicator and sets *c to CommNull.
func (c *Comm) Free() error {
	r := C.cspmpi_comm_free(c.h)
	c.h = C.MPI_Comm(r.v)
	return errOf(r.rc, "MPI_Comm_free")
}

// Group returns c's group; free it with Group.Free.
func (c Comm) Group() (Group, error) {
	r := C.cspmpi_comm_group(c.h)
	return Group{C.MPI_Group(r.v)}, errOf(r.rc, "MPI_Comm_group")
}

// Compare compares two communicators: Ident, Congruent, Similar or Unequal.
func (c Comm) Compare(o Comm) (int, error) {
	r := C.cspmpi_comm_compare(c.h, o.h)
	return int(r.v), errOf(r.rc, "MPI_Comm_compare")
}

// SetInfo sets hints on c.
func (c Comm) SetInfo(info Info) error {
	return errOf(C.PMPI_Comm_set_info(c.h, info.h), "MPI_Comm_set_info")
}

// GetInfo returns a new info object with c's hints; free it with Info.Free.
func (c Comm) GetInfo() (Info, error) {
	r := C.cspmpi_comm_get_info(c.h)
	return Info{C.MPI_Info(r.v)}, errOf(r.rc, "MPI_Comm_get_info")
}

// SetName sets c's name.
func (c Comm) SetName(name string) error {
	cs := C.CString(name)
	defer C.free(unsafe.Pointer(cs))
	return errOf(C.PMPI_Comm_set_name(c.h, cs), "MPI_Comm_set_name")
}

// Name returns c's name.
func (c Comm) Name() (string, error) {
	buf := make([]byte, MaxObjectName+1)
	var n C.int
	rc := C.PMPI_Comm_get_name(c.h, (*C.char)(unsafe.Pointer(&buf[0])), &n)
	return cstr(buf, n), errOf(rc, "MPI_Comm_get_name")
}

// GetAttrInt returns the value of an integer-valued predefined attribute
// (TagUB, Host, IO, WtimeIsGlobal, UniverseSize, LastUsedCode, AppNum) and
// whether it is set. It must not be used with user keyvals, whose values are
// not int pointers.
func (c Comm) GetAttrInt(keyval int) (int, bool, error) {
	r := C.cspmpi_comm_get_attr_int(c.h, C.int(keyval))
	return int(r.v), r.v2 != 0, errOf(r.rc, "MPI_Comm_get_attr")
}

// TagUB returns the MPI_TAG_UB attribute of c.
func (c Comm) TagUB() (int, error) {
	v, _, err := c.GetAttrInt(TagUB)
	return v, err
}

// Abort aborts all processes of c's job with the given exit code.
func (c Comm) Abort(code int) error { return Abort(c, code) }

// Barrier blocks until all processes of c have called it.
func (c Comm) Barrier() error {
	return errOf(C.PMPI_Barrier(c.h), "MPI_Barrier")
}

// Ibarrier starts a nonblocking barrier.
func (c Comm) Ibarrier() (Request, error) {
	r := C.cspmpi_comm_ibarrier(c.h)
	return Request{C.MPI_Request(r.v)}, errOf(r.rc, "MPI_Ibarrier")
}
