package interpose

import (
	"errors"
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The mapping around one address, asked of the kernel instead of read
// from /proc/self/maps. Making a shared window read and parsed the whole
// maps file of the process (300 lines for a library process here): 43% of
// a user's CPU time in a loop of MPI_Win_allocate_shared (perf). Linux
// 6.11 answers the question with one ioctl on that file (PROCMAP_QUERY);
// older kernels say ENOTTY, and the file is parsed as before.

// procmapQuery is the kernel's struct procmap_query (linux/fs.h).
type procmapQuery struct {
	Size        uint64 // sizeof the struct, for the kernel's versioning
	QueryFlags  uint64
	QueryAddr   uint64
	VMAStart    uint64
	VMAEnd      uint64
	VMAFlags    uint64
	VMAPageSize uint64
	VMAOffset   uint64
	Inode       uint64
	DevMajor    uint32
	DevMinor    uint32
	VMANameSize uint32
	BuildIDSize uint32
	VMANameAddr uint64
	BuildIDAddr uint64
}

const (
	// _IOWR('f', 17, struct procmap_query): the struct is 104 bytes.
	procmapQueryIoctl  = 3<<30 | uintptr(unsafe.Sizeof(procmapQuery{}))<<16 | 'f'<<8 | 17
	procmapQueryShared = 0x08 // PROCMAP_QUERY_VMA_SHARED in VMAFlags
)

var _ [104 - unsafe.Sizeof(procmapQuery{})]struct{} // the kernel's size
var _ [unsafe.Sizeof(procmapQuery{}) - 104]struct{}

// mapsFile lists this process's mappings; the query is an ioctl on it.
const mapsFile = "/proc/self/maps"

// errNoQuery says the kernel cannot answer PROCMAP_QUERY: read the file.
var errNoQuery = errors.New("interpose: no PROCMAP_QUERY")

// vmaCovering returns the mapping of this process that contains addr;
// ok false when none does. errNoQuery where the kernel predates the query.
func vmaCovering(addr uintptr) (m vma, ok bool, err error) {
	fd, err := unix.Open(mapsFile, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return vma{}, false, err
	}
	defer unix.Close(fd)
	q := procmapQuery{Size: uint64(unsafe.Sizeof(procmapQuery{})), QueryAddr: uint64(addr)}
	_, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), procmapQueryIoctl, uintptr(unsafe.Pointer(&q)))
	switch e {
	case 0:
		return vma{start: uintptr(q.VMAStart), end: uintptr(q.VMAEnd), shared: q.VMAFlags&procmapQueryShared != 0}, true, nil
	case unix.ENOENT:
		return vma{}, false, nil
	case unix.ENOTTY, unix.EINVAL:
		return vma{}, false, errNoQuery
	}
	return vma{}, false, e
}

// mapsAround returns what sharedPages needs to judge [lo, hi): the mapping
// covering lo's page, or, where the kernel cannot say, every mapping.
func mapsAround(lo uintptr) []vma {
	page := uintptr(os.Getpagesize())
	m, ok, err := vmaCovering(lo &^ (page - 1))
	if err == nil {
		if ok {
			return []vma{m}
		}
		return nil
	}
	f, err := os.Open(mapsFile)
	if err != nil {
		return nil
	}
	defer f.Close()
	return parseMaps(f)
}
