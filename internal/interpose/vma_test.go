package interpose

import (
	"errors"
	"os"
	"strings"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

const maps = `7fa5228b4000-7fa5228b5000 rw-s 00000000 00:1b 398      /dev/shm/mpich_shar_tmp5unhzo (deleted)
56491eb81000-56491ec3f000 rw-p 00000000 00:00 0          [heap]
7fa51bab3000-7fa51bbb4000 rw-p 00000000 00:00 0
`

func TestSharedPages(t *testing.T) {
	m := parseMaps(strings.NewReader(maps))
	require.Len(t, m, 3)
	require.True(t, m[0].shared)
	require.False(t, m[1].shared)

	// A small window in MPICH's shared segment: the whole page.
	s, n, ok := sharedPages(0x7fa5228b4000, 0x7fa5228b4000+300, 4096, m)
	require.True(t, ok)
	require.Equal(t, uintptr(0x7fa5228b4000), s)
	require.Equal(t, uintptr(4096), n)

	// An odd-sized window ending inside the segment's last page.
	s, n, ok = sharedPages(0x7fa5228b4000+1, 0x7fa5228b4000+4095, 4096, m)
	require.True(t, ok)
	require.Equal(t, uintptr(0x7fa5228b4000), s)
	require.Equal(t, uintptr(4096), n)

	// Private memory (the heap, an anonymous mapping), however aligned: no.
	_, _, ok = sharedPages(0x56491ec3d5e0, 0x56491ec3d5e0+70000, 4096, m)
	require.False(t, ok)
	_, _, ok = sharedPages(0x7fa51bab3000, 0x7fa51bab3000+4096, 4096, m)
	require.False(t, ok)

	// Running past the shared segment's end: no.
	_, _, ok = sharedPages(0x7fa5228b4000, 0x7fa5228b4000+4097, 4096, m)
	require.False(t, ok)

	// Nothing: no.
	_, _, ok = sharedPages(10, 10, 4096, m)
	require.False(t, ok)
}

func TestOutside(t *testing.T) {
	type r = [2]uintptr
	// Two parts inside one page-rounded range: the head, the gap, the tail.
	require.Equal(t, []r{{0, 16}, {100, 128}, {200, 4096}}, outside(0, 4096, []r{{128, 200}, {16, 100}}))
	// Parts that overlap, touch, or reach past the range.
	require.Equal(t, []r{{10, 12}}, outside(0, 100, []r{{15, 20}, {20, 200}, {0, 10}, {12, 18}, {5, 9}}))
	// Parts covering it all: nothing to copy; no parts: all of it.
	require.Empty(t, outside(0, 4096, []r{{0, 4096}}))
	require.Equal(t, []r{{0, 4096}}, outside(0, 4096, nil))
	// Empty parts and parts wholly outside change nothing.
	require.Equal(t, []r{{0, 4096}}, outside(0, 4096, []r{{50, 50}, {5000, 6000}}))
}

// The kernel's answer for one address (PROCMAP_QUERY) is the line of
// /proc/self/maps that holds it: a shared and a private mapping made
// here, and an address in the first pages, which nothing maps.
func TestVMACovering(t *testing.T) {
	page := os.Getpagesize()
	for _, flags := range []int{unix.MAP_SHARED, unix.MAP_PRIVATE} {
		b, err := unix.Mmap(-1, 0, 3*page, unix.PROT_READ|unix.PROT_WRITE, flags|unix.MAP_ANONYMOUS)
		require.NoError(t, err)
		addr := uintptr(unsafe.Pointer(&b[0]))
		got, ok, err := vmaCovering(addr + uintptr(page))
		if errors.Is(err, errNoQuery) {
			unix.Munmap(b)
			t.Skip("the kernel has no PROCMAP_QUERY (Linux < 6.11): the maps file is parsed")
		}
		require.NoError(t, err)
		require.True(t, ok)
		f, err := os.Open("/proc/self/maps")
		require.NoError(t, err)
		var want vma
		for _, m := range parseMaps(f) {
			if m.start <= addr && addr < m.end {
				want = m
			}
		}
		f.Close()
		require.Equal(t, want, got, "flags %#x", flags)
		require.Equal(t, flags == unix.MAP_SHARED, got.shared)
		require.Equal(t, []vma{got}, mapsAround(addr+1))
		require.NoError(t, unix.Munmap(b))
	}
	// The first pages of the address space are never mapped
	// (vm.mmap_min_addr).
	_, ok, err := vmaCovering(uintptr(page))
	require.NoError(t, err)
	require.False(t, ok, "unmapped")
	require.Empty(t, mapsAround(uintptr(page)))
}
