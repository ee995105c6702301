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
// # Offsets are local to the communicator
//
// A member's offset is its index among the members of this communicator
// that share its ghost, ordered by world rank. Offsets are therefore dense
// in every communicator (a row communicator of a 2D grid has offset 0
// everywhere even when ghosts serve several users), which keeps the number
// of duplication slots at k*k for k members per ghost in this communicator.
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
package commexpand
