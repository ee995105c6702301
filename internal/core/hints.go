package core

import (
	"github.com/casperii/casperii/internal/mpi"
)

// ShmbufRegist reports whether memory allocated with info should be
// registered with the ghost (MPI_Alloc_mem): the shmbuf_regist hint of
// info. An invalid hint is a *HintError.
func ShmbufRegist(inf mpi.Info) (bool, error) {
	h, err := parseHints(inf)
	if err != nil {
		return false, err
	}
	regist, _ := h.ShmbufRegist()
	return regist, nil
}

// WindowRegist reports whether a shared window created over comm with info
// should be registered with the ghost (MPI_Win_allocate_shared): the
// window's shmbuf_regist hint when info sets it, else comm's (its own or
// inherited hints, set at creation or by MPI_Comm_set_info).
func (r *runtime) WindowRegist(comm mpi.Comm, inf mpi.Info) (bool, error) {
	if r == nil || r.role != RoleUser {
		return false, nil
	}
	h, err := parseHints(inf)
	if err != nil {
		return false, err
	}
	if regist, set := h.ShmbufRegist(); set {
		return regist, nil
	}
	regist, _ := r.hintsOf(comm).ShmbufRegist()
	return regist, nil
}

// Verbosef prints a CSP_VERBOSE message of the given level on stderr.
func (r *runtime) Verbosef(level int, format string, args ...any) {
	if r != nil {
		r.verbosef(level, format, args...)
	}
}
