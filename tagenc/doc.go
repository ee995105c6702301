// Package tagenc packs CasperII's routing information into MPI tags.
//
// When a ghost process reposts an application's Isend or Irecv on an
// internal communicator, the internal tag carries, besides the user's tag,
// the offsets of the sending and receiving users among the users of their
// ghosts, so that two users sharing a ghost are never confused, as senders
// or as receivers. A Layout describes how those fields share the bits below
// the MPI implementation's MPI_TAG_UB; from high to low bits:
//
//	[ flags | ctx | src offset | dst offset | user tag ]
//
// The fields are:
//
//   - flags (FlagBits = 2): protocol bits whose meaning is the caller's
//     (FlagSync, FlagAck are named for readability).
//   - ctx: a context number, so that several user communicators can share
//     one internal communicator.
//   - src offset, dst offset: ceil(log2(users per ghost)) bits each, none
//     when every ghost serves a single user.
//   - user tag: at least 15 bits, so the bound exposed to the application
//     as its MPI_TAG_UB, ExposedTagUB, is always >= 32767 as MPI requires.
//
// Every tag Encode returns lies in [0, MPI_TAG_UB]. Encode and Decode are
// exact inverses: Decode(Encode(f)) == f for every valid f, so distinct
// Fields always give distinct tags.
//
// tagenc.h is the one definition of the fixed widths (FlagBits, the
// minimum user tag width) and of struct csp_tags, the positions the C fast
// path encodes with (csp_tag_encode); layout_gen.go is generated from it
// (TestLayoutGenerated fails while it is stale), Layout.CTags fills the C
// struct, and TestCEncodeMatchesGo checks the C encoder against
// EncodeUnchecked.
//
// tagenc owns the tag layout and nothing else: it must not import any
// other package of this module (it is pure Go, checked with the race
// detector), and only its test helper tagenc/internal/ctags uses cgo.
package tagenc
