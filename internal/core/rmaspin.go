package core

import (
	"fmt"
	"math/bits"

	"github.com/casperii/casperii/internal/ghost"
	"github.com/casperii/casperii/internal/mpi"
)

// How a ghost serving redirected windows polls MPI (internal/ghost/
// rmaserve.go) depends on whom it shares its CPUs with. A ghost alone on
// its CPUs (a core per ghost, Casper's layout) calls progress on every
// round: an epoch on a computing target then takes about what an idle
// target takes under plain MPICH (docs/design.md section 11). A ghost
// sharing a core with users polls on a timer and in bursts while an
// epoch is active, so that users' compute keeps its core.
//
// The processes of a host agree their affinities at MPI_Init (agreeCPUs):
// where they differ, a launcher bound each process, and the CPU masks
// (hostMasks, gathered then) say who shares what. Where they are the same
// the job's processes share every CPU: a ghost has a core of its own only
// if the host has a core per process.

// cpuMaskWords is the length of a gathered CPU mask: 1024 CPUs. A process
// allowed a CPU beyond it counts as sharing every CPU.
const cpuMaskWords = 16

// cpuMask is a set of CPUs; ok is false where a CPU lies beyond the mask.
func cpuMask(cpus []int) (m [cpuMaskWords]uint64, ok bool) {
	for _, c := range cpus {
		if c < 0 || c >= 64*cpuMaskWords {
			return m, false
		}
		m[c/64] |= 1 << (c % 64)
	}
	return m, true
}

// gatherMasks collects every host process's world rank and CPU mask
// (collective over host): only when the launcher bound them differently.
func (r *runtime) gatherMasks(host mpi.Comm, hostSize int, allowed []int) error {
	m, ok := cpuMask(allowed)
	mine := make([]int64, 2+cpuMaskWords)
	mine[0] = int64(r.wrank)
	if ok {
		mine[1] = 1
	}
	for i, w := range m {
		mine[2+i] = int64(w)
	}
	all := make([]int64, len(mine)*hostSize)
	if err := mpi.AllgatherInt64s(host, mine, all); err != nil {
		return err
	}
	r.hostMasks = map[int][cpuMaskWords]uint64{}
	for p := 0; p < hostSize; p++ {
		rec := all[p*len(mine) : (p+1)*len(mine)]
		var pm [cpuMaskWords]uint64
		if rec[1] == 0 {
			for i := range pm {
				pm[i] = ^uint64(0)
			}
		} else {
			for i := range pm {
				pm[i] = uint64(rec[2+i])
			}
		}
		r.hostMasks[int(rec[0])] = pm
	}
	return nil
}

// rmaSpin decides how this ghost serves windows, and says why.
func (r *runtime) rmaSpin() (ghost.RMASpin, string) {
	if over := oversubscribed(r.hostSize, r.hostCPUs()); over == "" {
		return ghost.RMASpinAlone, "a core per process"
	} else if r.hostMasks == nil {
		return ghost.RMASpinNo, over + ", its core shared with users"
	}
	mine, ok := r.hostMasks[r.wrank]
	if !ok {
		return ghost.RMASpinNo, "its CPUs are unknown"
	}
	ghosts, cpus := 0, cpuCount(mine)
	for wrank, m := range r.hostMasks {
		if !intersects(mine, m) {
			continue
		}
		if !r.layout.IsGhost(wrank) {
			return ghost.RMASpinNo, fmt.Sprintf("bound to CPUs it shares with user %d", wrank)
		}
		ghosts++
	}
	if ghosts > cpus {
		return ghost.RMASpinNo, fmt.Sprintf("bound to %d CPUs with no user, shared by %d ghosts", cpus, ghosts)
	}
	return ghost.RMASpinAlone, fmt.Sprintf("bound to %d CPUs with no user, %d ghosts on them", cpus, ghosts)
}

// ghostApart reports whether a launcher bound this user and its ghost to
// CPUs they do not share (from the host's gathered masks): the ghost then
// never runs on this user's core.
func (r *runtime) ghostApart() bool {
	if r.hostMasks == nil {
		return false
	}
	mine, ok := r.hostMasks[r.wrank]
	g, gok := r.hostMasks[r.myGhost]
	return ok && gok && !intersects(mine, g)
}

// cpuCount is the number of CPUs in m.
func cpuCount(m [cpuMaskWords]uint64) int {
	n := 0
	for _, w := range m {
		n += bits.OnesCount64(w)
	}
	return n
}

func intersects(a, b [cpuMaskWords]uint64) bool {
	for i := range a {
		if a[i]&b[i] != 0 {
			return true
		}
	}
	return false
}

// boundCrowd counts, for process me, the users bound to CPUs it shares
// (itself included, when it is a user) and the CPUs it may use, from the
// host's gathered masks: a launcher that binds two users to one CPU
// crowds them even on a host with a core per user.
func boundCrowd(me int, masks map[int][cpuMaskWords]uint64, isGhost func(int) bool) (users, cpus int) {
	mine, ok := masks[me]
	if !ok {
		return 0, 0
	}
	cpus = cpuCount(mine)
	for wrank, m := range masks {
		if !isGhost(wrank) && intersects(mine, m) {
			users++
		}
	}
	return users, cpus
}
