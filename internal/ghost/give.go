package ghost

// Lending the core. Where a ghost shares its core with its users it runs
// at the lowest priority (internal/core/priority.go): it gets the core
// only while they leave it. A user that waits on something only MPICH can
// finish while its offloaded operations are still in flight (a polling
// MPI_Test, a blocking collective, an MPICH request) would otherwise
// starve its ghost, and with it the peer that waits for those operations.
// Such a user lends its core instead: it bumps GiveSeq, sets WaitCell to
// WaitGive and sleeps on its wake word (internal/user/coop.c). The ghost
// then runs, and hands the core back as soon as a round of its loop finds
// nothing to do, or at the first completion (wakeUsers).
//
// The handshake is the wake handshake of channel.h. User side
// (csp_user_lend_begin): store GiveSeq+1, WaitCell = WaitGive,
// UserSleeping = 1 (sequentially consistent), load Wake, then sleep while
// Wake is unchanged. Ghost side (ChanHdr.Sleeping, Lending, WakeUser): if
// the user sleeps lending its core and this GiveSeq was not answered yet,
// bump Wake and wake it. Each lending is answered once, so a user that has
// been woken but not yet scheduled costs no further system call.

// giveBack wakes the users that lent the ghost their core: the round that
// called it found nothing to do.
func (g *Ghost) giveBack() {
	for _, u := range g.users {
		if u.done || u.broken {
			continue
		}
		h := u.ch.Hdr
		if !h.Sleeping() {
			continue
		}
		seq, lending := h.Lending()
		if !lending || seq == u.gaveBack {
			continue
		}
		u.gaveBack = seq
		h.WakeUser()
		g.Stats.GiveBacks++
	}
}

// publishBusy tells the users whether the ghost has work outstanding in
// MPI (the busy word, channel.h: GhostHdr.PublishBusy): while it has, a
// user waiting on MPICH lends it the core. Stored only when it changes,
// so an idle ghost writes nothing.
func (g *Ghost) publishBusy() {
	n := uint32(len(g.reqs) + len(g.probes))
	if n == 0 && g.match.busy() {
		n = 1
	}
	if n != g.busy {
		g.busy = n
		g.hdr.PublishBusy(n)
	}
}
