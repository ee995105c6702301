package mpi

/*
#include "cspmpi.h"
*/
import "C"

// Size returns the number of processes in g.
func (g Group) Size() (int, error) {
	r := C.cspmpi_group_size(g.h)
	return int(r.v), errOf(r.rc, "MPI_Group_size")
}

// Rank returns the caller's rank in g, or Undefined if it is not a member.
func (g Group) Rank() (int, error) {
	r := C.cspmpi_group_rank(g.h)
	return int(r.v), errOf(r.rc, "MPI_Group_rank")
}

// cints converts ranks to a C int array (nil for an empty slice).
func cints(ranks []int) ([]C.int, *C.int, bool) {
	if len(ranks) == 0 {
		return nil, nil, true
	}
	cs := make([]C.int, len(ranks))
	for i, r := range ranks {
		c, ok := cint(r)
		if !ok {
			return nil, nil, false
		}
		cs[i] = c
	}
	return cs, &cs[0], true
}

// Incl returns the group of the listed ranks of g, in that order.
func (g Group) Incl(ranks []int) (Group, error) {
	_, p, ok := cints(ranks)
	if !ok {
		return GroupNull, argError(ErrRank, "MPI_Group_incl", "rank does not fit a C int")
	}
	r := C.cspmpi_group_incl(g.h, C.int(len(ranks)), p)
	return Group{C.MPI_Group(r.v)}, errOf(r.rc, "MPI_Group_incl")
}

// Excl returns g without the listed ranks.
func (g Group) Excl(ranks []int) (Group, error) {
	_, p, ok := cints(ranks)
	if !ok {
		return GroupNull, argError(ErrRank, "MPI_Group_excl", "rank does not fit a C int")
	}
	r := C.cspmpi_group_excl(g.h, C.int(len(ranks)), p)
	return Group{C.MPI_Group(r.v)}, errOf(r.rc, "MPI_Group_excl")
}

// TranslateRanks maps ranks of g to ranks of other; ranks with no
// counterpart map to Undefined.
func (g Group) TranslateRanks(ranks []int, other Group) ([]int, error) {
	in, p, ok := cints(ranks)
	if !ok {
		return nil, argError(ErrRank, "MPI_Group_translate_ranks", "rank does not fit a C int")
	}
	if len(ranks) == 0 {
		return []int{}, nil
	}
	out := make([]C.int, len(in))
	rc := C.PMPI_Group_translate_ranks(g.h, C.int(len(in)), p, other.h, &out[0])
	if rc != C.MPI_SUCCESS {
		return nil, errOf(rc, "MPI_Group_translate_ranks")
	}
	res := make([]int, len(out))
	for i, v := range out {
		res[i] = int(v)
	}
	return res, nil
}

// Union returns the union of g and o.
func (g Group) Union(o Group) (Group, error) {
	r := C.cspmpi_group_union(g.h, o.h)
	return Group{C.MPI_Group(r.v)}, errOf(r.rc, "MPI_Group_union")
}

// Intersection returns the intersection of g and o.
func (g Group) Intersection(o Group) (Group, error) {
	r := C.cspmpi_group_intersection(g.h, o.h)
	return Group{C.MPI_Group(r.v)}, errOf(r.rc, "MPI_Group_intersection")
}

// Difference returns the members of g not in o.
func (g Group) Difference(o Group) (Group, error) {
	r := C.cspmpi_group_difference(g.h, o.h)
	return Group{C.MPI_Group(r.v)}, errOf(r.rc, "MPI_Group_difference")
}

// Compare compares two groups: Ident, Similar or Unequal.
func (g Group) Compare(o Group) (int, error) {
	r := C.cspmpi_group_compare(g.h, o.h)
	return int(r.v), errOf(r.rc, "MPI_Group_compare")
}

// Free frees the group and sets *g to GroupNull.
func (g *Group) Free() error {
	r := C.cspmpi_group_free(g.h)
	g.h = C.MPI_Group(r.v)
	return errOf(r.rc, "MPI_Group_free")
}
