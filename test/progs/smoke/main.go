package main

import (
	"bytes"
	"fmt"
	"os"

	"github.com/casperii/casperii/casperii"
)

func main() {
	if err := casperii.Init(); err != nil {
		fmt.Fprintln(os.Stderr, "init:", err)
		os.Exit(1)
	}
	w := casperii.World()
	c, err := w.DupWithInfo(casperii.Info{"wildcard_used": "none", "shmbuf_regist": "true"})
	if err != nil {
		fmt.Fprintln(os.Stderr, "dup:", err)
		os.Exit(1)
	}
	me, n := c.Rank(), c.Size()
	fmt.Printf("rank %d/%d algorithm %s tagub %d\n", me, n, c.Algorithm(), casperii.TagUB())
	peer := me ^ 1
	for _, size := range []int{1, 1000, 1 << 20} {
		sb, _ := casperii.AllocMem(size, casperii.Info{"shmbuf_regist": "true"})
		rb, _ := casperii.AllocMem(size, casperii.Info{"shmbuf_regist": "true"})
		for i := range sb.Bytes() {
			sb.Bytes()[i] = byte(me + i)
		}
		rr, err := casperii.Irecv(rb.Bytes(), peer, 7, c)
		if err != nil {
			panic(err)
		}
		sr, err := casperii.Isend(sb.Bytes(), peer, 7, c)
		if err != nil {
			panic(err)
		}
		st, err := rr.Wait()
		if err != nil {
			panic(err)
		}
		if _, err := sr.Wait(); err != nil {
			panic(err)
		}
		want := make([]byte, size)
		for i := range want {
			want[i] = byte(peer + i)
		}
		ok := bytes.Equal(want, rb.Bytes())
		fmt.Printf("rank %d size %d ok=%v status=%+v\n", me, size, ok, st)
		// unregistered Go memory (bounce path)
		gb := make([]byte, size)
		rr, _ = casperii.Irecv(gb, peer, 8, c)
		casperii.Send(sb.Bytes(), peer, 8, c)
		rr.Wait()
		fmt.Printf("rank %d size %d bounce ok=%v\n", me, size, bytes.Equal(want, gb))
	}
	fmt.Printf("rank %d stats %+v\n", me, casperii.CurrentStats())
	c.Free()
	if err := casperii.Finalize(); err != nil {
		fmt.Fprintln(os.Stderr, "finalize:", err)
		os.Exit(1)
	}
}
