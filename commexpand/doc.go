// Package commexpand plans how a user communicator's point-to-point traffic
// is carried by the ghosts: which internal communicators (slots of the
// world-dup pool) and which tag context it uses, and, for every member, the
// ghost that serves it and its offset among that ghost's users in this
// communicator.
//
// Nothing here calls MPI. The runtime gathers the inputs (member world
// ranks, the job layout, the members' hints), runs the one collective the
// plan needs, an Allreduce(BAND) of each member's Proposal over the new
// communicator, and hands the result to Decide. Every member gets the same
// Plan from the same reduced words, so offload is decided identically on all
// members of a communicator, never per message.
//
// # Offsets are the ghost's
//
// A member's offset is its index among all the users of its ghost (in
// ascending world rank), the same in every communicator. Together with the
// ghosts' world ranks, the source and destination offsets of a message name
// its sender and receiver exactly, so two communicators without a common
// member may share an internal communicator and a context: their messages
// can never be confused. Duplication therefore needs N*N slots, N being the
// most users one ghost serves in the job.
//
// # Slots and contexts
//
// Slot 0 of the pool carries every tag-encoded communicator (tag encoding
// and ghost-side matching); they are told apart by a context in the tag.
// Slots 1..n carry duplication: k*k slots (one per source offset and
// destination offset pair) for Duplication, k (one per destination offset)
// for DuplicationSrc. Communicators that share a member never share a slot
// or a context: each member offers only what it has free, and the AND of
// the offers keeps only what all members have free.
//
// commexpand owns the plan of a communicator (members, ghosts, offsets,
// algorithm) and the pool of internal communicators with their slots; the
// table the C fast path looks communicators up in is not here but in
// internal/user (comm.c, filled by comm.go from a Plan). It may import
// info (the algorithms) and nothing else of this module, and no cgo.
package commexpand
