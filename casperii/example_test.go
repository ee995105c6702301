package casperii_test

import (
	"fmt"
	"log"
	"time"

	"github.com/casperii/casperii/casperii"
)

// A ring exchange that overlaps a 1 MiB transfer with computation. Run it
// under mpiexec with ghosts, for example 2 virtual nodes of one ghost and
// one user each:
//
//	go build -o ring . && mpiexec -n 4 -genv CSP_NODE_SIZE 2 ./ring
//
// The ghosts never return from Init; the users see World() of 2 ranks.
func Example() {
	if err := casperii.Init(); err != nil {
		log.Fatal(err)
	}
	defer casperii.Finalize()

	// No MPI_ANY_SOURCE, no MPI_ANY_TAG on this communicator: tag encoding.
	c, err := casperii.World().DupWithInfo(casperii.Info{"wildcard_used": "none"})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Free()

	// Registered buffers: the ghost reads and writes them in place.
	reg := casperii.Info{"shmbuf_regist": "true"}
	out, _ := casperii.AllocMem(1<<20, reg)
	in, _ := casperii.AllocMem(1<<20, reg)
	defer out.Free()
	defer in.Free()
	out.Bytes()[0] = byte(c.Rank())

	right, left := (c.Rank()+1)%c.Size(), (c.Rank()+c.Size()-1)%c.Size()
	rr, err := casperii.Irecv(in.Bytes(), left, 7, c)
	if err != nil {
		log.Fatal(err)
	}
	sr, err := casperii.Isend(out.Bytes(), right, 7, c)
	if err != nil {
		log.Fatal(err)
	}

	time.Sleep(2 * time.Millisecond) // compute: the ghosts move the data meanwhile

	st, err := rr.Wait()
	if err != nil {
		log.Fatal(err)
	}
	if _, err := sr.Wait(); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("rank %d got %d bytes from rank %d (tag %d), first byte %d, via %s\n",
		c.Rank(), st.Count, st.Source, st.Tag, in.Bytes()[0], c.Algorithm())
}
