package core

import (
	"bytes"
	"hash/fnv"
	"os"
	"strings"

	"github.com/casperii/casperii/internal/mpi"
)

// A ghost and its users share memory through memfd segments that each
// side opens as /proc/<pid>/fd/<n> of the other (internal/shm). That works
// between processes on one kernel that see each other's /proc: the same
// boot of the same machine, the same PID namespace. So a node, for
// CasperII, is the set of processes with the same host identity, not what
// MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) says: MPI's notion can be
// narrower (MPIR_CVAR_NOLOCAL=1 makes every MPICH process a node of its
// own, to send everything through the network) and CasperII must still
// find its ghosts there.

// hostIdentity returns what identifies this process's host for sharing
// memory: the hostname, the kernel's boot id and the PID namespace. A
// part that cannot be read is left empty (the others still separate
// hosts).
func hostIdentity() string {
	name, _ := os.Hostname()
	boot, _ := os.ReadFile("/proc/sys/kernel/random/boot_id")
	pidns, _ := os.Readlink("/proc/self/ns/pid")
	return strings.Join([]string{name, string(bytes.TrimSpace(boot)), pidns}, "\x00")
}

// hostHash is a 64-bit digest of an identity (two FNV variants folded
// into two words, so that a collision needs both to collide).
func hostHash(id string) [2]int64 {
	a, b := fnv.New64a(), fnv.New64()
	a.Write([]byte(id))
	b.Write([]byte(id))
	return [2]int64{int64(a.Sum64()), int64(b.Sum64())}
}

// hostColors gives each rank the index of the first rank with the same
// host digest: equal colors, same host.
func hostColors(all [][2]int64) []int {
	colors := make([]int, len(all))
	first := map[[2]int64]int{}
	for i, h := range all {
		if c, ok := first[h]; ok {
			colors[i] = c
		} else {
			first[h] = i
			colors[i] = i
		}
	}
	return colors
}

// splitHost splits world into the processes of each host (hostIdentity),
// in world rank order: one Allgather and one Split.
func (r *runtime) splitHost(world mpi.Comm) (mpi.Comm, error) {
	h := hostHash(hostIdentity())
	all := make([]int64, 2*r.wsize)
	if err := mpi.AllgatherInt64s(world, h[:], all); err != nil {
		return mpi.CommNull, err
	}
	pairs := make([][2]int64, r.wsize)
	for i := range pairs {
		pairs[i] = [2]int64{all[2*i], all[2*i+1]}
	}
	host, err := world.Split(hostColors(pairs)[r.wrank], r.wrank)
	if err != nil {
		return mpi.CommNull, err
	}
	return host, nil
}
