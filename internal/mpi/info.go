package mpi

/*
#include "cspmpi.h"
*/
import "C"

import (
	"sync"
	"unsafe"
)

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

// KeySet is a fixed list of info keys that Info.Values reads together.
type KeySet struct {
	names  []string
	joined []byte // each name followed by a NUL
}

// MaxKeySet is the most keys a KeySet holds.
const MaxKeySet = 16

// NewKeySet returns the set of names (at most MaxKeySet).
func NewKeySet(names ...string) *KeySet {
	if len(names) > MaxKeySet {
		panic("mpi: NewKeySet: too many keys")
	}
	ks := &KeySet{names: names}
	for _, n := range names {
		ks.joined = append(append(ks.joined, n...), 0)
	}
	return ks
}

// InfoValues are the values of a KeySet's keys in one info object
// (Info.Values). Get makes them an interface{ Get(key string) (string,
// bool) }, as Info is. Release returns them for reuse.
type InfoValues struct {
	ks   *KeySet
	vals [MaxKeySet]string
	set  uint32 // bit k: names[k] is set
	next int    // where Get looks first: callers read the keys in order
	// what C fills in: the values' lengths, and room for the values (a
	// value that does not fit is read alone)
	lens [MaxKeySet]C.int
	buf  [256]byte
}

// Get returns the value of key and whether it is set; keys outside the
// set read as not set.
func (v *InfoValues) Get(key string) (string, bool) {
	n := len(v.ks.names)
	for i := 0; i < n; i++ {
		k := (v.next + i) % n
		if v.ks.names[k] == key {
			v.next = k + 1
			return v.vals[k], v.set&(1<<k) != 0
		}
	}
	return "", false
}

var infoValuesPool = sync.Pool{New: func() any { return new(InfoValues) }}

// Release returns v for reuse by Values; v must not be used after.
func (v *InfoValues) Release() {
	*v = InfoValues{}
	infoValuesPool.Put(v)
}

// Values reads the values of ks's keys from i with one call into C (a
// lookup per key there), where Lookup makes one call and allocations per
// key: MPI_Comm_set_info reads every CasperII key each time. Only the
// values set allocate.
func (i Info) Values(ks *KeySet) (*InfoValues, error) {
	v := infoValuesPool.Get().(*InfoValues)
	v.ks = ks
	if i.h == C.MPI_INFO_NULL || len(ks.names) == 0 {
		return v, nil
	}
	rc := C.cspmpi_info_get_keys(i.h, (*C.char)(unsafe.Pointer(&ks.joined[0])), C.int(len(ks.names)),
		(*C.char)(unsafe.Pointer(&v.buf[0])), C.int(len(v.buf)), &v.lens[0])
	if rc != C.MPI_SUCCESS {
		v.Release()
		return nil, newError(int(rc), "MPI_Info_get_string")
	}
	at := 0
	for k, n := range ks.names {
		switch l := int(v.lens[k]); {
		case l > 0:
			v.vals[k], v.set = cstr(v.buf[at:at+l], C.int(l)), v.set|1<<k
			at += l
		case l < 0:
			val, ok, err := i.Lookup(n)
			if err != nil {
				v.Release()
				return nil, err
			}
			if ok {
				v.vals[k], v.set = val, v.set|1<<k
			}
		}
	}
	return v, nil
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
