package mpi_test

import (
	"encoding/binary"
	"flag"
	"sort"
	"strings"
	"testing"
	"unsafe"

	"github.com/casperii/casperii/internal/mpi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func fill(b []byte, seed int) {
	for i := range b {
		b[i] = byte(i*7 + seed*13 + i>>10)
	}
}

func TestExchange1MiB(t *testing.T) {
	const size = 1 << 20
	const tag = 7
	rank, _, peer := world(t)
	sbuf := allocMem(t, size)
	rbuf := allocMem(t, size)
	fill(sbuf, rank)

	reqs := make([]mpi.Request, 2)
	var err error
	reqs[0], err = mpi.Irecv(unsafe.Pointer(&rbuf[0]), size, mpi.Byte, peer, tag, mpi.CommWorld)
	require.NoError(t, err)
	reqs[1], err = mpi.Isend(unsafe.Pointer(&sbuf[0]), size, mpi.Byte, peer, tag, mpi.CommWorld)
	require.NoError(t, err)
	statuses := make([]mpi.Status, 2)
	require.NoError(t, mpi.Waitall(reqs, statuses))
	assert.True(t, reqs[0].IsNull() && reqs[1].IsNull())

	want := make([]byte, size)
	fill(want, peer)
	require.Equal(t, want, rbuf, "received data")
	st := statuses[0]
	assert.Equal(t, peer, st.Source)
	assert.Equal(t, tag, st.Tag)
	assert.Equal(t, int64(size), st.Count)
	assert.False(t, st.Cancelled)
	assert.Equal(t, mpi.Success, st.Error)
	n, err := mpi.GetCount(&st, mpi.Int)
	require.NoError(t, err)
	assert.Equal(t, size/4, n)

	// Same again with Issend and per-request Wait with a status.
	fill(sbuf, rank+100)
	rreq, err := mpi.Irecv(unsafe.Pointer(&rbuf[0]), size, mpi.Byte, mpi.AnySource, mpi.AnyTag, mpi.CommWorld)
	require.NoError(t, err)
	sreq, err := mpi.Issend(unsafe.Pointer(&sbuf[0]), size/8, mpi.Int64, peer, tag+1, mpi.CommWorld)
	require.NoError(t, err)
	require.NoError(t, sreq.Wait(nil))
	var rst mpi.Status
	require.NoError(t, rreq.Wait(&rst))
	fill(want, peer+100)
	require.Equal(t, want, rbuf)
	assert.Equal(t, mpi.Status{Source: peer, Tag: tag + 1, Count: size}, rst)
}

func TestBlockingGoMemory(t *testing.T) {
	rank, _, peer := world(t)
	out := []byte{byte(rank), 1, 2, 3}
	in := make([]byte, 16)
	var st mpi.Status
	require.NoError(t, mpi.Sendrecv(unsafe.Pointer(&out[0]), len(out), mpi.Byte, peer, 3,
		unsafe.Pointer(&in[0]), len(in), mpi.Byte, peer, 3, mpi.CommWorld, &st))
	assert.Equal(t, []byte{byte(peer), 1, 2, 3}, in[:4])
	assert.Equal(t, mpi.Status{Source: peer, Tag: 3, Count: 4}, st)

	v := []int64{int64(rank) << 40}
	w := make([]int64, 1)
	if rank == 0 {
		require.NoError(t, mpi.Send(unsafe.Pointer(&v[0]), 1, mpi.Int64, peer, 4, mpi.CommWorld))
		require.NoError(t, mpi.Recv(unsafe.Pointer(&w[0]), 1, mpi.Int64, peer, 4, mpi.CommWorld, nil))
	} else {
		require.NoError(t, mpi.Recv(unsafe.Pointer(&w[0]), 1, mpi.Int64, peer, 4, mpi.CommWorld, &st))
		assert.Equal(t, int64(8), st.Count)
		require.NoError(t, mpi.Ssend(unsafe.Pointer(&v[0]), 1, mpi.Int64, peer, 4, mpi.CommWorld))
	}
	assert.Equal(t, []int64{int64(peer) << 40}, w)

	// PROC_NULL completes at once with the "empty" status.
	require.NoError(t, mpi.Recv(unsafe.Pointer(&w[0]), 1, mpi.Int64, mpi.ProcNull, 0, mpi.CommWorld, &st))
	assert.Equal(t, mpi.ProcNull, st.Source)
	assert.Equal(t, mpi.AnyTag, st.Tag)
	assert.Equal(t, int64(0), st.Count)
}

// Rank 0 posts 4 receives (tags 10..13); rank 1 sends tags 11 and 13 first,
// then, once rank 0 has seen exactly those complete, tags 10 and 12.
func TestTestsome(t *testing.T) {
	rank, _, peer := world(t)
	const n = 4
	mem := allocMem(t, 8*n)
	if rank == 1 {
		barrier(t) // receives posted
		for _, tag := range []int{11, 13} {
			binary.LittleEndian.PutUint64(mem[8*(tag-10):], uint64(tag*1000))
			require.NoError(t, mpi.Send(unsafe.Pointer(&mem[8*(tag-10)]), 1, mpi.Int64, peer, tag, mpi.CommWorld))
		}
		barrier(t) // 11 and 13 seen
		for _, tag := range []int{10, 12} {
			binary.LittleEndian.PutUint64(mem[8*(tag-10):], uint64(tag*1000))
			require.NoError(t, mpi.Send(unsafe.Pointer(&mem[8*(tag-10)]), 1, mpi.Int64, peer, tag, mpi.CommWorld))
		}
		return
	}

	reqs := make([]mpi.Request, n)
	for i := range reqs {
		var err error
		reqs[i], err = mpi.Irecv(unsafe.Pointer(&mem[8*i]), 1, mpi.Int64, peer, 10+i, mpi.CommWorld)
		require.NoError(t, err)
	}
	indices := make([]int32, n)
	statuses := make([]mpi.Status, n)
	barrier(t)

	var got []int32
	gotTags := map[int32]int{}
	waitUntil(t, "tags 11 and 13", func() bool {
		k, err := mpi.Testsome(reqs, indices, statuses)
		require.NoError(t, err)
		require.NotEqual(t, mpi.Undefined, k)
		for i := 0; i < k; i++ {
			got = append(got, indices[i])
			gotTags[indices[i]] = statuses[i].Tag
			assert.Equal(t, peer, statuses[i].Source)
			assert.Equal(t, int64(8), statuses[i].Count)
		}
		return len(got) >= 2
	})
	sort.Slice(got, func(i, j int) bool { return got[i] < got[j] })
	assert.Equal(t, []int32{1, 3}, got)
	assert.Equal(t, map[int32]int{1: 11, 3: 13}, gotTags)
	assert.True(t, reqs[1].IsNull() && reqs[3].IsNull())
	assert.False(t, reqs[0].IsNull() || reqs[2].IsNull())
	barrier(t)

	// The rest, without statuses.
	got = got[:0]
	waitUntil(t, "tags 10 and 12", func() bool {
		k, err := mpi.Testsome(reqs, indices, nil)
		require.NoError(t, err)
		got = append(got, indices[:k]...)
		return len(got) >= 2
	})
	sort.Slice(got, func(i, j int) bool { return got[i] < got[j] })
	assert.Equal(t, []int32{0, 2}, got)
	for i := 0; i < n; i++ {
		assert.Equal(t, uint64((10+i)*1000), binary.LittleEndian.Uint64(mem[8*i:]))
	}
	k, err := mpi.Testsome(reqs, indices, statuses)
	require.NoError(t, err)
	assert.Equal(t, mpi.Undefined, k, "no active request left")

	done, err := mpi.Testall(reqs, statuses)
	require.NoError(t, err)
	assert.True(t, done)
	idx, done, err := mpi.Testany(reqs, nil)
	require.NoError(t, err)
	assert.True(t, done)
	assert.Equal(t, mpi.Undefined, idx)
}

func TestWaitanyWaitsome(t *testing.T) {
	rank, _, peer := world(t)
	mem := allocMem(t, 16)
	reqs := make([]mpi.Request, 2)
	var err error
	reqs[0], err = mpi.Irecv(unsafe.Pointer(&mem[0]), 8, mpi.Byte, peer, 31, mpi.CommWorld)
	require.NoError(t, err)
	reqs[1], err = mpi.Irecv(unsafe.Pointer(&mem[8]), 8, mpi.Byte, peer, 32, mpi.CommWorld)
	require.NoError(t, err)
	out := []byte{byte(rank)}
	require.NoError(t, mpi.Send(unsafe.Pointer(&out[0]), 1, mpi.Byte, peer, 32, mpi.CommWorld))
	var st mpi.Status
	i, err := mpi.Waitany(reqs, &st)
	require.NoError(t, err)
	assert.Equal(t, 1, i)
	assert.Equal(t, mpi.Status{Source: peer, Tag: 32, Count: 1}, st)
	barrier(t) // the peer's Waitany is done before tag 31 is sent
	require.NoError(t, mpi.Send(unsafe.Pointer(&out[0]), 1, mpi.Byte, peer, 31, mpi.CommWorld))
	indices := make([]int32, 2)
	statuses := make([]mpi.Status, 2)
	k, err := mpi.Waitsome(reqs, indices, statuses)
	require.NoError(t, err)
	assert.Equal(t, 1, k)
	assert.Equal(t, int32(0), indices[0])
	assert.Equal(t, 31, statuses[0].Tag)
	assert.Equal(t, byte(peer), mem[0])
	assert.Equal(t, byte(peer), mem[8])
}

func TestProbeMatchedReceive(t *testing.T) {
	rank, _, peer := world(t)
	const n = 100
	mem := allocMem(t, 4*n)
	words := unsafe.Slice((*int32)(unsafe.Pointer(&mem[0])), n)
	if rank == 1 {
		for i := range words {
			words[i] = int32(i * 3)
		}
		require.NoError(t, mpi.Send(unsafe.Pointer(&mem[0]), n, mpi.Int32, peer, 21, mpi.CommWorld))
		require.NoError(t, mpi.Send(unsafe.Pointer(&mem[0]), n/2, mpi.Int32, peer, 22, mpi.CommWorld))
		require.NoError(t, mpi.Send(unsafe.Pointer(&mem[0]), 3, mpi.Int32, peer, 23, mpi.CommWorld))
	} else {
		var st mpi.Status
		waitUntil(t, "Iprobe tag 21", func() bool {
			ok, err := mpi.Iprobe(mpi.AnySource, 21, mpi.CommWorld, &st)
			require.NoError(t, err)
			return ok
		})
		assert.Equal(t, mpi.Status{Source: 1, Tag: 21, Count: 4 * n}, st)

		var msg mpi.Message
		waitUntil(t, "Improbe", func() bool {
			var ok bool
			var err error
			msg, ok, err = mpi.Improbe(mpi.AnySource, mpi.AnyTag, mpi.CommWorld, &st)
			require.NoError(t, err)
			return ok
		})
		assert.Equal(t, mpi.Status{Source: 1, Tag: 21, Count: 4 * n}, st)
		assert.False(t, msg.IsNull())
		req, err := mpi.Imrecv(unsafe.Pointer(&mem[0]), n, mpi.Int32, &msg)
		require.NoError(t, err)
		assert.True(t, msg.IsNull(), "Imrecv consumes the message handle")
		var rst mpi.Status
		require.NoError(t, req.Wait(&rst))
		assert.Equal(t, mpi.Status{Source: 1, Tag: 21, Count: 4 * n}, rst)
		for i := range words {
			require.Equal(t, int32(i*3), words[i])
		}

		msg, err = mpi.Mprobe(1, 22, mpi.CommWorld, nil)
		require.NoError(t, err)
		clear(words)
		require.NoError(t, mpi.Mrecv(unsafe.Pointer(&mem[0]), n, mpi.Int32, &msg, &rst))
		assert.True(t, msg.IsNull())
		assert.Equal(t, int64(4*n/2), rst.Count)
		assert.Equal(t, int32(3*(n/2-1)), words[n/2-1])
		assert.Equal(t, int32(0), words[n/2])

		require.NoError(t, mpi.Probe(1, 23, mpi.CommWorld, &st))
		assert.Equal(t, int64(12), st.Count)
		require.NoError(t, mpi.Recv(unsafe.Pointer(&mem[0]), n, mpi.Int32, 1, 23, mpi.CommWorld, nil))

		// ProcNull: a "no process" message, received at once.
		msg, ok, err := mpi.Improbe(mpi.ProcNull, 0, mpi.CommWorld, &st)
		require.NoError(t, err)
		assert.True(t, ok)
		assert.Equal(t, mpi.MessageNoProc, msg)
		assert.Equal(t, mpi.ProcNull, st.Source)
		req, err = mpi.Imrecv(unsafe.Pointer(&mem[0]), n, mpi.Int32, &msg)
		require.NoError(t, err)
		require.NoError(t, req.Wait(&st))
		assert.Equal(t, mpi.ProcNull, st.Source)

		// Nothing else pending.
		ok, err = mpi.Iprobe(mpi.AnySource, mpi.AnyTag, mpi.CommWorld, nil)
		require.NoError(t, err)
		assert.False(t, ok)
	}
	barrier(t)
}

func TestCancelUnmatchedIrecv(t *testing.T) {
	_, _, peer := world(t)
	mem := allocMem(t, 64)
	req, err := mpi.Irecv(unsafe.Pointer(&mem[0]), 64, mpi.Byte, peer, 999, mpi.CommWorld)
	require.NoError(t, err)
	done, err := req.Test(nil)
	require.NoError(t, err)
	assert.False(t, done)
	ok, err := req.GetStatus(nil)
	require.NoError(t, err)
	assert.False(t, ok)
	require.NoError(t, req.Cancel())
	var st mpi.Status
	require.NoError(t, req.Wait(&st))
	assert.True(t, st.Cancelled)
	assert.True(t, mpi.TestCancelled(&st))
	assert.True(t, req.IsNull())

	// Request.Free on an active receive, then complete it by a message. The
	// buffer is never freed: nothing tells when the freed receive lands.
	leak, err := mpi.AllocMem(64, mpi.InfoNull)
	require.NoError(t, err)
	req, err = mpi.Irecv(leak, 64, mpi.Byte, peer, 998, mpi.CommWorld)
	require.NoError(t, err)
	require.NoError(t, req.Free())
	assert.True(t, req.IsNull())
	one := []byte{1}
	require.NoError(t, mpi.Send(unsafe.Pointer(&one[0]), 1, mpi.Byte, peer, 998, mpi.CommWorld))
	barrier(t)
}

// The point-to-point and Testsome paths must not allocate.
func TestNoAllocsPointToPoint(t *testing.T) {
	_, _, peer := world(t)
	mem := allocMem(t, 16)
	sbuf, rbuf := unsafe.Pointer(&mem[0]), unsafe.Pointer(&mem[8])
	reqs := make([]mpi.Request, 2)
	indices := make([]int32, 2)
	statuses := make([]mpi.Status, 2)
	var failed error
	check := func(err error) {
		if err != nil && failed == nil {
			failed = err
		}
	}
	round := func() {
		var err error
		reqs[0], err = mpi.Irecv(rbuf, 8, mpi.Byte, peer, 5, mpi.CommWorld)
		check(err)
		reqs[1], err = mpi.Isend(sbuf, 8, mpi.Byte, peer, 5, mpi.CommWorld)
		check(err)
		for left := 2; left > 0; {
			k, err := mpi.Testsome(reqs, indices, statuses)
			check(err)
			if err != nil || k == mpi.Undefined {
				break
			}
			left -= k
		}
		// Probe and matched receive, Test and Wait with statuses.
		reqs[1], err = mpi.Isend(sbuf, 8, mpi.Byte, peer, 6, mpi.CommWorld)
		check(err)
		var st mpi.Status
		for {
			ok, err := mpi.Iprobe(peer, 6, mpi.CommWorld, &st)
			check(err)
			if ok || err != nil {
				break
			}
		}
		var msg mpi.Message
		for {
			var ok bool
			msg, ok, err = mpi.Improbe(peer, 6, mpi.CommWorld, &st)
			check(err)
			if ok || err != nil {
				break
			}
		}
		reqs[0], err = mpi.Imrecv(rbuf, 8, mpi.Byte, &msg)
		check(err)
		for {
			done, err := reqs[0].Test(&st)
			check(err)
			if done || err != nil {
				break
			}
		}
		check(reqs[1].Wait(&st))
	}
	allocs := testing.AllocsPerRun(200, round)
	require.NoError(t, failed)
	assert.Zero(t, allocs, "allocations per Isend+Irecv+Testsome+probe round")
}

// Run with a fixed iteration count so that both ranks agree, for example
// go test -run '^$' -bench . -benchtime 100000x ./internal/mpi/
func BenchmarkIsendIrecvTestsome(b *testing.B) {
	if bt := flag.Lookup("test.benchtime"); bt == nil || !strings.HasSuffix(bt.Value.String(), "x") {
		b.Skip("needs -benchtime=<N>x: both ranks must run the same number of iterations")
	}
	_, _, peer := world(b)
	mem := allocMem(b, 16)
	sbuf, rbuf := unsafe.Pointer(&mem[0]), unsafe.Pointer(&mem[8])
	reqs := make([]mpi.Request, 2)
	indices := make([]int32, 2)
	statuses := make([]mpi.Status, 2)
	b.ReportAllocs()
	for range b.N {
		reqs[0], _ = mpi.Irecv(rbuf, 8, mpi.Byte, peer, 5, mpi.CommWorld)
		reqs[1], _ = mpi.Isend(sbuf, 8, mpi.Byte, peer, 5, mpi.CommWorld)
		for left := 2; left > 0; {
			k, err := mpi.Testsome(reqs, indices, statuses)
			if err != nil || k == mpi.Undefined {
				b.Fatal(err)
			}
			left -= k
		}
	}
}

// Self-messaging: independent of the other rank, so any -benchtime works.
func BenchmarkSelfIrecvIsendTestsome(b *testing.B) {
	mem := allocMem(b, 16)
	sbuf, rbuf := unsafe.Pointer(&mem[0]), unsafe.Pointer(&mem[8])
	reqs := make([]mpi.Request, 2)
	indices := make([]int32, 2)
	b.ReportAllocs()
	for b.Loop() {
		reqs[0], _ = mpi.Irecv(rbuf, 8, mpi.Byte, 0, 5, mpi.CommSelf)
		reqs[1], _ = mpi.Isend(sbuf, 8, mpi.Byte, 0, 5, mpi.CommSelf)
		for left := 2; left > 0; {
			k, err := mpi.Testsome(reqs, indices, nil)
			if err != nil || k == mpi.Undefined {
				b.Fatal(err)
			}
			left -= k
		}
	}
}

func BenchmarkSelfIprobeMiss(b *testing.B) {
	var st mpi.Status
	b.ReportAllocs()
	for b.Loop() {
		if ok, _ := mpi.Iprobe(0, 77, mpi.CommSelf, &st); ok {
			b.Fatal("unexpected message")
		}
	}
}
