package core

import (
	"fmt"

	"github.com/casperii/casperii/internal/mpi"
)

// setupRMA creates the internal window of redirected RMA windows
// (internal/user/rma.h): a dynamic window over the real world, users and
// ghosts, to which each ghost attaches its users' window memory. It is
// made here because it is collective over every process, and a ghost
// never joins a collective after MPI_Init. Its errors come back as codes:
// the user raises them on the application's window.
func (r *runtime) setupRMA() error {
	if !r.cfg.RMA {
		return nil
	}
	w, err := mpi.WinCreateDynamic(mpi.InfoNull, mpi.CommWorld)
	if err != nil {
		return fmt.Errorf("CasperII: the internal window of redirected RMA: %w", err)
	}
	if err := w.SetErrhandler(mpi.ErrorsReturn); err != nil {
		return err
	}
	r.rmaWin = w
	return nil
}
