package main

import "github.com/casperii/casperii/casperii"

// sizeList is 0 B, 1 B, then powers of 4 (and two odd sizes) up to 4 MiB.
var sizeList = []int{0, 1, 3, 16, 64, 255, 1024, 4096, 16384, 65536, 262144, 1048576, 3*1048576 + 7, 4194304}

// sizes sends every size to (me+n/2)%n and receives from (me-n/2)%n, with
// both buffers of each memory kind, and checks every byte and the status.
func sizes(comms []commSpec, mems []string) {
	h := nusers / 2
	dst, src := (me+h)%nusers, (me-h+nusers)%nusers
	for ci, cs := range comms {
		for _, mem := range mems {
			must(world.Barrier(), "barrier")
			d := statsNow()
			allReg := true
			for i, size := range sizeList {
				tag := 100 + i
				sb, rb := alloc(size, mem), alloc(size, mem)
				fill(sb.b, seedOf(me, ci, i))
				for j := range rb.b {
					rb.b[j] = ^pattern(seedOf(src, ci, i), j) // anything but the expected data
				}
				rr, err := casperii.Irecv(rb.b, src, tag, cs.c)
				must(err, "Irecv")
				sr, err := casperii.Isend(sb.b, dst, tag, cs.c)
				must(err, "Isend")
				st, err := rr.Wait()
				must(err, "Wait(recv)")
				_, err = sr.Wait()
				must(err, "Wait(send)")
				bad := firstBad(rb.b, seedOf(src, ci, i))
				ok := check(bad < 0, "sizes comm=%s mem=%s size=%d: byte %d differs", cs.name, mem, size, bad)
				ok = check(st.Source == src && st.Tag == tag && st.Count == size && !st.Cancelled,
					"sizes comm=%s mem=%s size=%d: status %+v, want source %d tag %d count %d",
					cs.name, mem, size, st, src, tag, size) && ok
				reg := sb.registered() && rb.registered()
				allReg = allReg && reg
				result("sizes", "comm", cs.name, "mem", mem, "size", size, "ok", ok, "src", st.Source,
					"tag", st.Tag, "count", st.Count, "registered", reg, "bad", bad)
				sb.free()
				rb.free()
			}
			result("sizes-stats", append([]any{"comm", cs.name, "mem", mem, "offloaded", cs.offloaded(),
				"registered", allReg, "n", len(sizeList)}, d.kv()...)...)
		}
	}
}
