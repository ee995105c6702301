// Package greq ties offloaded operations to MPI generalized requests.
//
// The work is C (greq.h, greq.c) because it sits on the per-call path: the
// operation records, the table from the application's MPI_Request to its
// record, and the query and free callbacks MPI calls when the application
// waits. This file gives Go read access to the accounting, which the leak
// tests and the statistics use.
package greq

/*
#cgo pkg-config: mpich
#cgo CFLAGS: -O2 -Wall -Werror
#include "greq.h"
*/
import "C"

// Stats is the accounting of operation records and the request table.
type Stats struct {
	Live      int // records in use: operations not yet freed by MPI
	Allocated int // records ever allocated (they are reused, never freed)
	Requests  int // entries in the request table
}

// Current returns the accounting of this process.
func Current() Stats {
	return Stats{
		Live:      int(C.csp_greq.live),
		Allocated: int(C.csp_greq.allocated),
		Requests:  int(C.csp_greq.used),
	}
}
