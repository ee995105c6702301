package interpose

import (
	"bufio"
	"cmp"
	"io"
	"slices"
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

// outside returns the pieces of [start, end) that lie in none of parts
// ([base, end) each, in any order, possibly overlapping, possibly
// reaching outside the range), in address order. Remapping a shared
// window copies only these (window.go): a new window's parts hold nothing
// yet (MPI leaves their contents undefined; the fresh segment reads as
// zeros, as MPICH's fresh one does), while the rest of its pages may hold
// bytes of MPICH's that must survive.
func outside(start, end uintptr, parts [][2]uintptr) [][2]uintptr {
	ps := slices.Clone(parts)
	slices.SortFunc(ps, func(a, b [2]uintptr) int { return cmp.Compare(a[0], b[0]) })
	var out [][2]uintptr
	at := start
	for _, p := range ps {
		lo, hi := max(p[0], start), min(p[1], end)
		if lo >= hi {
			continue
		}
		if lo > at {
			out = append(out, [2]uintptr{at, lo})
		}
		at = max(at, hi)
	}
	if at < end {
		out = append(out, [2]uintptr{at, end})
	}
	return out
}
