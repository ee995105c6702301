package proc

import (
	"os"
	"sort"
	"strconv"
	"strings"
)

// ShmEntries lists the names in /dev/shm.
func ShmEntries() (map[string]bool, error) {
	ents, err := os.ReadDir("/dev/shm")
	m := map[string]bool{}
	for _, e := range ents {
		m[e.Name()] = true
	}
	if os.IsNotExist(err) {
		err = nil
	}
	return m, err
}

// NewShmEntries returns the names in after that are not in before, sorted.
func NewShmEntries(before, after map[string]bool) []string {
	var out []string
	for e := range after {
		if !before[e] {
			out = append(out, e)
		}
	}
	sort.Strings(out)
	return out
}

// ShmHolders maps each /dev/shm entry that some live process has open or
// mapped to one such process.
func ShmHolders() map[string]int {
	m := map[string]int{}
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return m
	}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		dir := "/proc/" + e.Name()
		if fds, err := os.ReadDir(dir + "/fd"); err == nil {
			for _, fd := range fds {
				if l, err := os.Readlink(dir + "/fd/" + fd.Name()); err == nil {
					if n, ok := strings.CutPrefix(l, "/dev/shm/"); ok {
						m[strings.TrimSuffix(n, " (deleted)")] = pid
					}
				}
			}
		}
		if b, err := os.ReadFile(dir + "/maps"); err == nil {
			for _, line := range strings.Split(string(b), "\n") {
				if i := strings.Index(line, "/dev/shm/"); i >= 0 {
					if n := strings.Fields(line[i+len("/dev/shm/"):]); len(n) > 0 {
						m[n[0]] = pid
					}
				}
			}
		}
	}
	return m
}
