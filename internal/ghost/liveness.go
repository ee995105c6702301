package ghost

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
	"time"

	"github.com/casperii/casperii/internal/mpi"
)

// watchEvery is how often a ghost looks for users that died without
// MPI_Finalize, busy or not.
const watchEvery = 100 * time.Millisecond

// watcher paces the ghost's look at its users (watchUsers).
type watcher struct {
	rounds uint32
	last   time.Time
}

// watchUsers calls checkUsers at most every watchEvery; Run calls it every
// round (it reads the clock once per 64 rounds).
func (g *Ghost) watchUsers() {
	w := &g.watch
	if w.rounds++; w.rounds&63 != 0 {
		return
	}
	if now := time.Now(); now.Sub(w.last) >= watchEvery {
		w.last = now
		g.checkUsers()
	}
}

// processGone reports whether process pid has exited: it no longer exists,
// or it is a zombie its parent has not reaped yet (a launcher that is slow
// to reap, or stopped, must not hide a death).
func processGone(pid int) bool {
	if err := syscall.Kill(pid, 0); err == syscall.ESRCH {
		return true
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return os.IsNotExist(err)
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 >= len(b) {
		return false
	}
	st := b[i+2]
	return st == 'Z' || st == 'X'
}

// abortGrace is how long a ghost waits for MPI_Abort to end the job
// before it exits by itself.
const abortGrace = 2 * time.Second

// userDied ends the job: a user that exits without MPI_Finalize leaves
// its peers waiting for messages it will never send (mpiexec ends such a
// job too, when it notices). The ghost says why in one line and aborts, so
// the job ends even under a launcher that does not clean up by itself.
// MPI_Abort asks the launcher to kill the job and waits for it; should the
// launcher not answer, the ghost exits anyway after abortGrace.
func (g *Ghost) userDied(u *user) {
	g.cfg.Log("ghost %d: user %d (pid %d) exited without MPI_Finalize; ending the job", g.cfg.WRank, u.wrank, u.pid)
	u.broken = true
	g.live--
	go func() {
		time.Sleep(abortGrace)
		os.Exit(1)
	}()
	mpi.Abort(mpi.CommWorld, 1)
	os.Exit(1)
}
