package mpi

/*
#include "cspmpi.h"
*/
import "C"

import "unsafe"

// Size returns the number of bytes of data in one element of d.
func (d Datatype) Size() (int, error) {
	r := C.cspmpi_type_size(d.h)
	return int(r.a), errOf(r.rc, "MPI_Type_size_x")
}

// Extent returns d's lower bound and extent.
func (d Datatype) Extent() (lb, extent int, err error) {
	r := C.cspmpi_type_get_extent(d.h, 0)
	return int(r.a), int(r.b), errOf(r.rc, "MPI_Type_get_extent")
}

// TrueExtent returns d's true lower bound and true extent.
func (d Datatype) TrueExtent() (lb, extent int, err error) {
	r := C.cspmpi_type_get_extent(d.h, 1)
	return int(r.a), int(r.b), errOf(r.rc, "MPI_Type_get_true_extent")
}

// Envelope returns MPI_Type_get_envelope's numbers and combiner. The
// combiner is CombinerNamed for predefined datatypes.
func (d Datatype) Envelope() (nints, naddrs, ndtypes, combiner int, err error) {
	r := C.cspmpi_type_get_envelope(d.h)
	return int(r.v), int(r.v2), int(r.v3), int(r.v4), errOf(r.rc, "MPI_Type_get_envelope")
}

// IsPredefined reports whether d is a predefined (named) datatype.
func (d Datatype) IsPredefined() (bool, error) {
	_, _, _, comb, err := d.Envelope()
	return comb == CombinerNamed, err
}

// Name returns d's name.
func (d Datatype) Name() (string, error) {
	buf := make([]byte, MaxObjectName+1)
	var n C.int
	rc := C.PMPI_Type_get_name(d.h, (*C.char)(unsafe.Pointer(&buf[0])), &n)
	return cstr(buf, n), errOf(rc, "MPI_Type_get_name")
}

// Commit commits d.
func (d *Datatype) Commit() error {
	r := C.cspmpi_type_commit(d.h)
	d.h = C.MPI_Datatype(r.v)
	return errOf(r.rc, "MPI_Type_commit")
}

// Free frees d and sets *d to DatatypeNull.
func (d *Datatype) Free() error {
	r := C.cspmpi_type_free(d.h)
	d.h = C.MPI_Datatype(r.v)
	return errOf(r.rc, "MPI_Type_free")
}

// TypeContiguous returns a new (uncommitted) datatype of count copies of old.
func TypeContiguous(count int, old Datatype) (Datatype, error) {
	r := C.cspmpi_type_contiguous(C.int(count), old.h)
	return Datatype{C.MPI_Datatype(r.v)}, errOf(r.rc, "MPI_Type_contiguous")
}

// TypeVector returns a new (uncommitted) vector datatype.
func TypeVector(count, blocklen, stride int, old Datatype) (Datatype, error) {
	r := C.cspmpi_type_vector(C.int(count), C.int(blocklen), C.int(stride), old.h)
	return Datatype{C.MPI_Datatype(r.v)}, errOf(r.rc, "MPI_Type_vector")
}

// Pack packs incount elements of dt at inbuf into outbuf[position:outsize]
// and returns the new position.
func Pack(inbuf unsafe.Pointer, incount int, dt Datatype, outbuf unsafe.Pointer, outsize, position int, comm Comm) (int, error) {
	in, ok1 := cint(incount)
	out, ok2 := cint(outsize)
	pos, ok3 := cint(position)
	if !ok1 || !ok2 || !ok3 {
		return position, countErr("MPI_Pack")
	}
	r := C.cspmpi_pack(inbuf, in, dt.h, outbuf, out, pos, comm.h)
	return int(r.v), errOf(r.rc, "MPI_Pack")
}

// Unpack unpacks outcount elements of dt from inbuf[position:insize] into
// outbuf and returns the new position.
func Unpack(inbuf unsafe.Pointer, insize, position int, outbuf unsafe.Pointer, outcount int, dt Datatype, comm Comm) (int, error) {
	in, ok1 := cint(insize)
	out, ok2 := cint(outcount)
	pos, ok3 := cint(position)
	if !ok1 || !ok2 || !ok3 {
		return position, countErr("MPI_Unpack")
	}
	r := C.cspmpi_unpack(inbuf, in, pos, outbuf, out, dt.h, comm.h)
	return int(r.v), errOf(r.rc, "MPI_Unpack")
}

// PackSize returns an upper bound of the bytes Pack needs for incount elements of dt.
func PackSize(incount int, dt Datatype, comm Comm) (int, error) {
	r := C.cspmpi_pack_size(C.int(incount), dt.h, comm.h)
	return int(r.v), errOf(r.rc, "MPI_Pack_size")
}
