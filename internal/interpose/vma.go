package interpose

import (
	"bufio"
	"io"
	"strconv"
	"strings"
)

// vma is one line of /proc/self/maps.
type vma struct {
	start, end uintptr
	shared     bool // 's' in the permissions: a MAP_SHARED mapping
}

// parseMaps reads /proc/<pid>/maps.
func parseMaps(r io.Reader) []vma {
	var out []vma
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 2 {
			continue
		}
		lohi := strings.SplitN(f[0], "-", 2)
		if len(lohi) != 2 || len(f[1]) < 4 {
			continue
		}
		lo, err1 := strconv.ParseUint(lohi[0], 16, 64)
		hi, err2 := strconv.ParseUint(lohi[1], 16, 64)
		if err1 != nil || err2 != nil {
			continue
		}
		out = append(out, vma{start: uintptr(lo), end: uintptr(hi), shared: f[1][3] == 's'})
	}
	return out
}

// sharedPages returns the pages to put a memfd under for window memory
// [lo, hi): the whole pages around it, [floor(lo), ceil(hi)), when one
// shared mapping covers them. That is MPICH's shared segment, which every
// process of the window maps: every process remaps the same pages, and the
// bytes of those pages outside the window belong to the segment too.
//
// ok is false when the memory is anywhere else (a window of one process is
// malloc memory, a window whose processes do not share memory an anonymous
// private mapping): the pages around it may hold other objects, which
// another thread may be writing while they are copied, so such memory is
// never remapped (window.go puts heap memory under the window instead).
// An empty range is not ok either: there is nothing to remap.
func sharedPages(lo, hi, page uintptr, maps []vma) (start, n uintptr, ok bool) {
	if hi <= lo {
		return 0, 0, false
	}
	start, end := lo&^(page-1), (hi+page-1)&^(page-1)
	for _, m := range maps {
		if m.start <= start && end <= m.end && m.shared {
			return start, end - start, true
		}
	}
	return 0, 0, false
}
