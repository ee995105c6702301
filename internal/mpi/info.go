package mpi

/*
#include "cspmpi.h"
*/
import "C"

import "unsafe"

// InfoCreate creates an empty info object; free it with Info.Free.
func InfoCreate() (Info, error) {
	r := C.cspmpi_info_create()
	return Info{C.MPI_Info(r.v)}, errOf(r.rc, "MPI_Info_create")
}

// Set sets key to value.
func (i Info) Set(key, value string) error {
	ck := C.CString(key)
	defer C.free(unsafe.Pointer(ck))
	cv := C.CString(value)
	defer C.free(unsafe.Pointer(cv))
	return errOf(C.PMPI_Info_set(i.h, ck, cv), "MPI_Info_set")
}

// Lookup returns the value of key and whether it is set.
func (i Info) Lookup(key string) (string, bool, error) {
	if i.h == C.MPI_INFO_NULL {
		return "", false, nil
	}
	ck := C.CString(key)
	defer C.free(unsafe.Pointer(ck))
	size := MaxInfoVal + 1
	for {
		buf := make([]byte, size)
		r := C.cspmpi_info_get(i.h, ck, (*C.char)(unsafe.Pointer(&buf[0])), C.int(size))
		if r.rc != C.MPI_SUCCESS {
			return "", false, newError(int(r.rc), "MPI_Info_get_string")
		}
		if r.v == 0 {
			return "", false, nil
		}
		if int(r.v2) <= size {
			return cstr(buf, C.int(size)), true, nil
		}
		size = int(r.v2)
	}
}

// Get returns the value of key and whether it is set; errors (including
// InfoNull) read as "not set". Info thus satisfies
// interface{ Get(key string) (string, bool) }.
func (i Info) Get(key string) (string, bool) {
	v, ok, err := i.Lookup(key)
	if err != nil {
		return "", false
	}
	return v, ok
}

// Delete removes key.
func (i Info) Delete(key string) error {
	ck := C.CString(key)
	defer C.free(unsafe.Pointer(ck))
	return errOf(C.PMPI_Info_delete(i.h, ck), "MPI_Info_delete")
}

// Nkeys returns the number of keys set.
func (i Info) Nkeys() (int, error) {
	r := C.cspmpi_info_get_nkeys(i.h)
	return int(r.v), errOf(r.rc, "MPI_Info_get_nkeys")
}

// NthKey returns the n-th key (0-based).
func (i Info) NthKey(n int) (string, error) {
	buf := make([]byte, MaxInfoKey+1)
	rc := C.PMPI_Info_get_nthkey(i.h, C.int(n), (*C.char)(unsafe.Pointer(&buf[0])))
	return cstr(buf, C.int(len(buf))), errOf(rc, "MPI_Info_get_nthkey")
}

// Map returns all keys and values.
func (i Info) Map() (map[string]string, error) {
	m := map[string]string{}
	if i.h == C.MPI_INFO_NULL {
		return m, nil
	}
	n, err := i.Nkeys()
	if err != nil {
		return nil, err
	}
	for k := 0; k < n; k++ {
		key, err := i.NthKey(k)
		if err != nil {
			return nil, err
		}
		v, _, err := i.Lookup(key)
		if err != nil {
			return nil, err
		}
		m[key] = v
	}
	return m, nil
}

// Dup duplicates the info object.
func (i Info) Dup() (Info, error) {
	r := C.cspmpi_info_dup(i.h)
	return Info{C.MPI_Info(r.v)}, errOf(r.rc, "MPI_Info_dup")
}

// Free frees the info object and sets *i to InfoNull.
func (i *Info) Free() error {
	r := C.cspmpi_info_free(i.h)
	i.h = C.MPI_Info(r.v)
	return errOf(r.rc, "MPI_Info_free")
}
