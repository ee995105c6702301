package proc

import (
	"bytes"
	"fmt"
	"os"
	"sort"
	"strconv"
	"syscall"
	"time"
)

// Proc is one recorded process of a job.
type Proc struct {
	Pid  int
	Name string
	Rank int     // its PMI_RANK, -1 if none
	CPU  float64 // CPU seconds at the last sample
	// start identifies the process with Pid; gone: it has exited.
	start string
	gone  bool
}

// Tracker records the processes of one job: the descendants of its root
// (mpiexec), and those whose environment holds the marker. Scan often
// while the job runs: a process that exits between two scans, and whose
// children were reparented meanwhile, would otherwise be missed.
type Tracker struct {
	root   int
	marker []byte
	procs  map[int]*Proc
}

// NewTracker starts recording the job rooted at pid; marker is "KEY=VALUE"
// set in the job's environment, or "".
func NewTracker(pid int, marker string) *Tracker {
	t := &Tracker{root: pid, marker: []byte(marker), procs: map[int]*Proc{}}
	t.Scan()
	return t
}

// Scan adds the live descendants of the root, and of every recorded
// process still alive (an orphan's children), and samples the CPU time of
// every recorded process.
func (t *Tracker) Scan() {
	stats, children := table()
	queue := []int{t.root}
	for pid, p := range t.procs {
		if st, ok := stats[pid]; ok && st.Start == p.start {
			queue = append(queue, pid)
		}
	}
	seen := map[int]bool{}
	for ; len(queue) > 0; queue = queue[1:] {
		pid := queue[0]
		if seen[pid] {
			continue
		}
		seen[pid] = true
		for _, c := range children[pid] {
			t.add(c, stats[c])
			queue = append(queue, c)
		}
	}
	t.sample(stats)
}

// add records pid unless it is recorded (with the same start time).
func (t *Tracker) add(pid int, st Stat) {
	if p := t.procs[pid]; p != nil && p.start == st.Start {
		// A launcher's child first seen between its fork and its exec
		// had the launcher's environment: once it has become the
		// program (a new name), its PMI_RANK can be read.
		if p.Name != st.Name {
			p.Name = st.Name
			if p.Rank < 0 {
				p.Rank = rankOf(pid)
			}
		}
		return
	}
	t.procs[pid] = &Proc{Pid: pid, Name: st.Name, Rank: rankOf(pid), CPU: st.CPU, start: st.Start}
}

// rankOf is pid's PMI_RANK, -1 if it has none.
func rankOf(pid int) int {
	if v, ok := Getenv(pid, "PMI_RANK"); ok {
		if r, err := strconv.Atoi(v); err == nil {
			return r
		}
	}
	return -1
}

// sample updates the CPU time of the recorded processes from stats, and
// marks those no longer in it (or replaced by a new process) gone.
func (t *Tracker) sample(stats map[int]Stat) {
	for pid, p := range t.procs {
		if p.gone {
			continue
		}
		if st, ok := stats[pid]; ok && st.Start == p.start {
			p.CPU = st.CPU
		} else {
			p.gone = true
		}
	}
}

// scanEnv records every live process whose environment holds the marker.
func (t *Tracker) scanEnv() {
	if len(t.marker) == 0 {
		return
	}
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return
	}
	self := os.Getpid()
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self || pid == t.root {
			continue
		}
		if p := t.procs[pid]; p != nil && !p.gone {
			continue
		}
		env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err != nil {
			continue
		}
		for _, kv := range bytes.Split(env, []byte{0}) {
			if bytes.Equal(kv, t.marker) {
				if st, ok := ReadStat(pid); ok && st.Live() {
					t.add(pid, st)
				}
				break
			}
		}
	}
}

// Alive returns the recorded processes (not the root) still running, after
// looking for more by the marker.
func (t *Tracker) Alive() []int {
	t.scanEnv()
	var out []int
	for pid, p := range t.procs {
		if p.gone {
			continue
		}
		st, ok := ReadStat(pid)
		if !ok || !st.Live() || st.Start != p.start {
			p.gone = true
			continue
		}
		p.CPU = st.CPU
		out = append(out, pid)
	}
	sort.Ints(out)
	return out
}

// KillAll SIGKILLs every recorded process still alive, scanning again for
// descendants between rounds, and describes each as "pid (name)" or
// "pid (name, rank r)".
func (t *Tracker) KillAll() []string {
	var out []string
	for range 3 {
		t.Scan()
		left := t.Alive()
		if len(left) == 0 {
			break
		}
		for _, pid := range left {
			p := t.procs[pid]
			name := p.Name
			if st, ok := ReadStat(pid); ok {
				name = st.Name // it may have exec'd since it was recorded
			}
			if syscall.Kill(pid, syscall.SIGKILL) != nil {
				continue
			}
			if p.Rank >= 0 {
				out = append(out, fmt.Sprintf("%d (%s, rank %d)", pid, name, p.Rank))
			} else {
				out = append(out, fmt.Sprintf("%d (%s)", pid, name))
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	return out
}

// Procs returns every process recorded so far, by pid.
func (t *Tracker) Procs() []Proc {
	out := make([]Proc, 0, len(t.procs))
	for _, p := range t.procs {
		out = append(out, *p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Pid < out[j].Pid })
	return out
}
