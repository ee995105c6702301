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

// Members maps a communicator whose rank i is world rank wranks[i]. A
// member's offset is its ghost's: its index among ALL the users of its
// ghost, in ascending world rank, the same in every communicator. That is
// what lets communicators with no common member share an internal
// communicator and a context: the (ghost, offset) pairs of a message's
// sender and receiver name those two users exactly, whatever the
// communicator. (Offsets local to each communicator would make the traffic
// of two disjoint communicators behind the same ghosts indistinguishable.)
// K is the most users any ghost serves, so offsets are below K.
func (l *Layout) Members(wranks []int32) (Members, error) {
	m := Members{Ghost: make([]int32, len(wranks)), Offset: make([]int32, len(wranks)), K: max(1, l.maxUser)}
	seen := make(map[int32]bool, len(wranks))
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
		g := l.ghostOf[w]
		m.Ghost[i] = g
		m.Offset[i] = int32(slices.Index(l.users[g], w))
	}
	return m, nil
}
