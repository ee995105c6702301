package interpose

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
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
