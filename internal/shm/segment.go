// Package shm provides the shared memory a user process and its ghost both
// map: anonymous memfd segments that leave nothing behind in /dev/shm, and
// futex waits and wakes on words inside them.
//
// A segment is created by one process (memfd_create, ftruncate, mmap) and
// opened by another through /proc/<pid>/fd/<fd>, which Linux allows to any
// process of the same user while the creator holds the descriptor. The
// memory disappears when the last process unmaps and closes it, so neither
// a normal exit nor a crash leaves a file to clean up.
package shm

import (
	"errors"
	"fmt"
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Segment is a mapped shared-memory segment.
type Segment struct {
	fd   int
	mem  []byte
	name string
}

// Create makes a new zero-filled segment of size bytes. Pages are allocated
// on first touch, so a large size costs address space, not memory.
func Create(name string, size int) (*Segment, error) {
	if size <= 0 {
		return nil, fmt.Errorf("shm: segment %q: size %d must be positive", name, size)
	}
	fd, err := unix.MemfdCreate(name, unix.MFD_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("shm: memfd_create %q: %w", name, err)
	}
	if err := unix.Ftruncate(fd, int64(size)); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("shm: sizing segment %q to %d bytes: %w", name, size, err)
	}
	return mapFd(fd, size, name)
}

// Open maps the segment that process pid holds as descriptor fd. The
// segment must be at least minSize bytes; the whole segment is mapped.
func Open(pid, fd, minSize int) (*Segment, error) {
	path := fmt.Sprintf("/proc/%d/fd/%d", pid, fd)
	nfd, err := unix.Open(path, unix.O_RDWR|unix.O_CLOEXEC, 0)
	if err != nil {
		if errors.Is(err, unix.EACCES) || errors.Is(err, unix.EPERM) {
			return nil, fmt.Errorf("shm: opening %s: %w (the peer process must run as the same user and stay dumpable)", path, err)
		}
		return nil, fmt.Errorf("shm: opening %s: %w", path, err)
	}
	var st unix.Stat_t
	if err := unix.Fstat(nfd, &st); err != nil {
		unix.Close(nfd)
		return nil, fmt.Errorf("shm: stat %s: %w", path, err)
	}
	if st.Size < int64(minSize) || st.Size <= 0 {
		unix.Close(nfd)
		return nil, fmt.Errorf("shm: %s holds %d bytes, want at least %d", path, st.Size, minSize)
	}
	return mapFd(nfd, int(st.Size), path)
}

func mapFd(fd, size int, name string) (*Segment, error) {
	mem, err := unix.Mmap(fd, 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("shm: mapping %s (%d bytes): %w", name, size, err)
	}
	return &Segment{fd: fd, mem: mem, name: name}, nil
}

// Bytes returns the mapped memory. It stays valid until Close.
func (s *Segment) Bytes() []byte { return s.mem }

// Fd returns the descriptor a peer opens through /proc/<pid>/fd/<fd>.
func (s *Segment) Fd() int { return s.fd }

// Base returns the address of the first byte.
func (s *Segment) Base() unsafe.Pointer { return unsafe.Pointer(&s.mem[0]) }

// Size returns the mapped length in bytes.
func (s *Segment) Size() int { return len(s.mem) }

// Close unmaps the segment and closes its descriptor.
func (s *Segment) Close() error {
	if s == nil || s.mem == nil {
		return nil
	}
	err := unix.Munmap(s.mem)
	if cerr := unix.Close(s.fd); err == nil {
		err = cerr
	}
	s.mem = nil
	return err
}

// Pid is this process's id, as peers pass it to Open.
func Pid() int { return os.Getpid() }
