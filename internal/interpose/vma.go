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

// remapRange returns the page range to put a memfd under, for window
// memory [lo, hi):
//
//   - the whole pages around it, [floor(lo), ceil(hi)), when one shared
//     mapping covers them (MPICH's shared segment: every process maps the
//     same file, so bytes outside the window in those pages are shared
//     memory too, and every process remaps the same pages);
//   - otherwise the pages wholly inside it, [ceil(lo), floor(hi)), which
//     hold nothing but window memory (a window of one process is private
//     memory from malloc: the pages around it hold other objects, which
//     must not change under another thread's feet).
//
// An empty range (n == 0) means there is nothing to remap.
func remapRange(lo, hi, page uintptr, maps []vma) (start, n uintptr) {
	if hi <= lo {
		return 0, 0
	}
	outLo, outHi := lo&^(page-1), (hi+page-1)&^(page-1)
	for _, m := range maps {
		if m.start <= outLo && outHi <= m.end && m.shared {
			return outLo, outHi - outLo
		}
	}
	inLo, inHi := (lo+page-1)&^(page-1), hi&^(page-1)
	if inHi <= inLo {
		return 0, 0
	}
	return inLo, inHi - inLo
}
