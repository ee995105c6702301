package commexpand

import (
	"fmt"
	"slices"
)

// Layout is the job's process layout, identical on every process: which
// world ranks are ghosts, and which ghost serves each user.
type Layout struct {
	ghostOf []int32   // per world rank: serving ghost's world rank; -1 for a ghost
	users   [][]int32 // per world rank of a ghost: its users' world ranks, ascending
	maxUser int       // most users served by one ghost
}

// NewLayout builds the layout from ghostOf: for every world rank, the world
// rank of the ghost serving it, or -1 if the rank is itself a ghost.
func NewLayout(ghostOf []int32) (*Layout, error) {
	l := &Layout{ghostOf: slices.Clone(ghostOf), users: make([][]int32, len(ghostOf))}
	for r, g := range ghostOf {
		switch {
		case g == -1:
			continue
		case g < 0 || int(g) >= len(ghostOf):
			return nil, fmt.Errorf("commexpand: rank %d is served by %d, not a world rank (world size %d)", r, g, len(ghostOf))
		case ghostOf[g] != -1:
			return nil, fmt.Errorf("commexpand: rank %d is served by rank %d, which is not a ghost", r, g)
		}
		l.users[g] = append(l.users[g], int32(r))
	}
	for _, u := range l.users {
		l.maxUser = max(l.maxUser, len(u))
	}
	return l, nil
}

// Size returns the world size.
func (l *Layout) Size() int { return len(l.ghostOf) }

// IsGhost reports whether world rank r is a ghost.
func (l *Layout) IsGhost(r int) bool { return l.ghostOf[r] == -1 }

// GhostOf returns the world rank of the ghost serving user r.
func (l *Layout) GhostOf(r int) int { return int(l.ghostOf[r]) }

// UsersOf returns the users of ghost g in ascending world rank.
func (l *Layout) UsersOf(g int) []int32 { return l.users[g] }

// MaxUsersPerGhost returns the most users any ghost serves (at least 1 when
// the job has a user).
func (l *Layout) MaxUsersPerGhost() int { return l.maxUser }

// Members describes a communicator's members as the ghosts see them.
type Members struct {
	Ghost  []int32 // per communicator rank: world rank of the serving ghost
	Offset []int32 // per communicator rank: offset among its ghost's members here
	K      int     // most members one ghost serves in this communicator
}

// Members maps a communicator whose rank i is world rank wranks[i]. Offsets
// are local: a member's index among this communicator's members that share
// its ghost, in ascending world rank.
func (l *Layout) Members(wranks []int32) (Members, error) {
	m := Members{Ghost: make([]int32, len(wranks)), Offset: make([]int32, len(wranks))}
	type key struct{ ghost, wrank int32 }
	seen := make(map[int32]bool, len(wranks))
	order := make([]key, 0, len(wranks))
	for i, w := range wranks {
		if w < 0 || int(w) >= len(l.ghostOf) {
			return Members{}, fmt.Errorf("commexpand: member %d is world rank %d, outside the world (size %d)", i, w, len(l.ghostOf))
		}
		if l.ghostOf[w] == -1 {
			return Members{}, fmt.Errorf("commexpand: member %d is world rank %d, a ghost", i, w)
		}
		if seen[w] {
			return Members{}, fmt.Errorf("commexpand: world rank %d appears twice", w)
		}
		seen[w] = true
		m.Ghost[i] = l.ghostOf[w]
		order = append(order, key{l.ghostOf[w], w})
	}
	slices.SortFunc(order, func(a, b key) int {
		if a.ghost != b.ghost {
			return int(a.ghost - b.ghost)
		}
		return int(a.wrank - b.wrank)
	})
	offset := make(map[int32]int32, len(wranks))
	run := int32(0)
	for i, k := range order {
		if i > 0 && order[i-1].ghost == k.ghost {
			run++
		} else {
			run = 0
		}
		offset[k.wrank] = run
		m.K = max(m.K, int(run)+1)
	}
	for i, w := range wranks {
		m.Offset[i] = offset[w]
	}
	return m, nil
}
