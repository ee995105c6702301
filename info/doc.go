// Package info parses the CasperII info hints and chooses, from them, how a
// communicator's point-to-point messages are offloaded.
//
// Hints are MPI info key/value strings attached to communicators (and to
// the infos of MPI_Alloc_mem and of windows). The keys CasperII reads are:
//
//   - wildcard_used: the wildcards the application promises to use in
//     receives on the communicator: any_src (the default), any_tag_same_tag,
//     any_src|any_tag_same_tag or none. Casper's anysrc and anytag_notag
//     are accepted too. Parts may be joined by '|', ',' or ';', in any
//     order; none cannot be combined with anything.
//   - shmbuf_regist: true or false. Buffers allocated with the hint are
//     shared with the ghosts, so offloading them needs no copy.
//   - async_config (Casper): on or off. Off turns offload off for the
//     communicator whatever wildcard_used says.
//   - datatype_used (Casper): predefined, derived, or both. Validated,
//     not acted on.
//   - offload_min_msgsz (Casper): a non-negative integer. Validated, kept
//     so that the runtime can report that it is ignored: CasperII decides
//     offload per communicator, never per message, since deciding by size
//     could put a send and its matching receive on different paths.
//
// All other keys are ignored, as MPI requires for keys an implementation
// does not know. Values are trimmed of surrounding spaces and matched
// ignoring ASCII case; an empty or unknown value is an error, a *ValueError,
// which the runtime maps to MPI_ERR_INFO_VALUE.
//
// # Choosing the algorithm
//
// Hints.Algorithm applies this table; the first matching row wins:
//
//	async_config  wildcard_used             the application may use         Algorithm
//	off           anything                  anything                         NoOffload
//	on or unset   none                      no wildcard                      TagEncoding
//	on or unset   any_tag_same_tag          MPI_ANY_TAG, not MPI_ANY_SOURCE  Duplication
//	on or unset   any_src|any_tag_same_tag  MPI_ANY_SOURCE and MPI_ANY_TAG   DuplicationSrc
//	on or unset   any_src, or unset         MPI_ANY_SOURCE and MPI_ANY_TAG   GhostMatch if Policy.AnySrcOffload,
//	                                                                         else NoOffload
//
// The choice depends on the hints and the Policy only, never on a message,
// so members of a communicator that pass the same hints and Policy choose
// the same algorithm.
//
// info owns the hints and their values, and the algorithm they select. It
// must not import any other package of this module: everything that reads
// hints builds on it.
package info
