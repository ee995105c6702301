package mpi_test

import (
	"debug/elf"
	"errors"
	"os"
	"strings"
	"testing"
	"unsafe"

	"github.com/casperii/casperii/internal/mpi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func unsafeBytes(p unsafe.Pointer, n int) []byte { return unsafe.Slice((*byte)(p), n) }

func TestWorld(t *testing.T) {
	rank, size, _ := world(t)
	assert.Contains(t, []int{0, 1}, rank)
	assert.Equal(t, 2, size)

	ok, err := mpi.Initialized()
	require.NoError(t, err)
	assert.True(t, ok)
	fin, err := mpi.Finalized()
	require.NoError(t, err)
	assert.False(t, fin)

	lvl, err := mpi.QueryThread()
	require.NoError(t, err)
	assert.Equal(t, mpi.ThreadMultiple, lvl)

	ub, err := mpi.CommWorld.TagUB()
	require.NoError(t, err)
	assert.Equal(t, 268435455, ub, "MPICH 4.0.2 ch4:ucx MPI_TAG_UB")
	v, found, err := mpi.CommWorld.GetAttrInt(mpi.TagUB)
	require.NoError(t, err)
	assert.True(t, found)
	assert.Equal(t, ub, v)

	major, minor, err := mpi.GetVersion()
	require.NoError(t, err)
	assert.Equal(t, 4, major)
	assert.GreaterOrEqual(t, minor, 0)
	lib, err := mpi.GetLibraryVersion()
	require.NoError(t, err)
	assert.Contains(t, lib, "MPICH")
	host, err := mpi.GetProcessorName()
	require.NoError(t, err)
	assert.NotEmpty(t, host)

	t0 := mpi.Wtime()
	assert.Greater(t, mpi.Wtick(), 0.0)
	assert.GreaterOrEqual(t, mpi.Wtime(), t0)

	inter, err := mpi.CommWorld.TestInter()
	require.NoError(t, err)
	assert.False(t, inter)
	name, err := mpi.CommWorld.Name()
	require.NoError(t, err)
	assert.Equal(t, "MPI_COMM_WORLD", name)
}

func TestRawRoundTrip(t *testing.T) {
	assert.Equal(t, mpi.CommWorld, mpi.CommFromRaw(mpi.CommWorld.Raw()))
	assert.Equal(t, mpi.RequestNull, mpi.RequestFromRaw(mpi.RequestNull.Raw()))
	assert.Equal(t, mpi.Int64, mpi.DatatypeFromRaw(mpi.Int64.Raw()))
	assert.Equal(t, mpi.InfoEnv, mpi.InfoFromRaw(mpi.InfoEnv.Raw()))
	assert.Equal(t, mpi.OpSum, mpi.OpFromRaw(mpi.OpSum.Raw()))
	assert.Equal(t, mpi.ErrorsReturn, mpi.ErrhandlerFromRaw(mpi.ErrorsReturn.Raw()))
	assert.Equal(t, mpi.GroupEmpty, mpi.GroupFromRaw(mpi.GroupEmpty.Raw()))
	assert.Equal(t, mpi.WinNull, mpi.WinFromRaw(mpi.WinNull.Raw()))
	assert.Equal(t, mpi.MessageNoProc, mpi.MessageFromRaw(mpi.MessageNoProc.Raw()))
	assert.Equal(t, int32(0x44000000), mpi.CommWorld.Raw(), "MPICH's MPI_COMM_WORLD")
	assert.Equal(t, uintptr(4), unsafe.Sizeof(mpi.Request{}), "Request must have MPI_Request's layout")
	assert.True(t, mpi.CommNull.IsNull())
	assert.True(t, mpi.RequestNull.IsNull())
	assert.False(t, mpi.CommWorld.IsNull())
}

func TestCommConstructors(t *testing.T) {
	rank, _, _ := world(t)

	split, err := mpi.CommWorld.Split(rank%2, 0)
	require.NoError(t, err)
	n, err := split.Size()
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	r, err := split.Rank()
	require.NoError(t, err)
	assert.Equal(t, 0, r)
	require.NoError(t, split.Free())
	assert.True(t, split.IsNull())

	// Reverse the order with the key.
	rev, err := mpi.CommWorld.Split(0, -rank)
	require.NoError(t, err)
	r, err = rev.Rank()
	require.NoError(t, err)
	assert.Equal(t, 1-rank, r)
	cmp, err := rev.Compare(mpi.CommWorld)
	require.NoError(t, err)
	assert.Equal(t, mpi.Similar, cmp)
	require.NoError(t, rev.Free())

	none, err := mpi.CommWorld.Split(mpi.Undefined, 0)
	require.NoError(t, err)
	assert.True(t, none.IsNull())

	shm, err := mpi.CommWorld.SplitType(mpi.CommTypeShared, 0, mpi.InfoNull)
	require.NoError(t, err)
	n, err = shm.Size()
	require.NoError(t, err)
	assert.Equal(t, 2, n, "both ranks run on this host")
	require.NoError(t, shm.Free())

	dup, err := mpi.CommWorld.Dup()
	require.NoError(t, err)
	cmp, err = dup.Compare(mpi.CommWorld)
	require.NoError(t, err)
	assert.Equal(t, mpi.Congruent, cmp)
	cmp, err = dup.Compare(dup)
	require.NoError(t, err)
	assert.Equal(t, mpi.Ident, cmp)
	require.NoError(t, dup.SetName("casperii-dup"))
	name, err := dup.Name()
	require.NoError(t, err)
	assert.Equal(t, "casperii-dup", name)
	require.NoError(t, dup.Free())
	assert.Equal(t, mpi.CommNull, dup)

	info, err := mpi.InfoCreate()
	require.NoError(t, err)
	require.NoError(t, info.Set("mpi_assert_no_any_tag", "true"))
	dupi, err := mpi.CommWorld.DupWithInfo(info)
	require.NoError(t, err)
	require.NoError(t, info.Free())
	info2, err := mpi.InfoCreate()
	require.NoError(t, err)
	require.NoError(t, info2.Set("mpi_assert_allow_overtaking", "false"))
	require.NoError(t, dupi.SetInfo(info2))
	require.NoError(t, info2.Free())
	got, err := dupi.GetInfo()
	require.NoError(t, err)
	_, err = got.Map()
	require.NoError(t, err)
	require.NoError(t, got.Free())
	require.NoError(t, dupi.Free())

	idup, req, err := mpi.CommWorld.Idup()
	require.NoError(t, err)
	require.NoError(t, req.Wait(nil))
	assert.True(t, req.IsNull())
	cmp, err = idup.Compare(mpi.CommWorld)
	require.NoError(t, err)
	assert.Equal(t, mpi.Congruent, cmp)
	require.NoError(t, idup.Barrier())
	require.NoError(t, idup.Free())

	eh, err := mpi.CommWorld.Errhandler()
	require.NoError(t, err)
	assert.Equal(t, mpi.ErrorsReturn, eh)
	require.NoError(t, eh.Free())
}

func TestGroups(t *testing.T) {
	rank, _, _ := world(t)
	wg, err := mpi.CommWorld.Group()
	require.NoError(t, err)
	n, err := wg.Size()
	require.NoError(t, err)
	assert.Equal(t, 2, n)
	r, err := wg.Rank()
	require.NoError(t, err)
	assert.Equal(t, rank, r)

	only1, err := wg.Incl([]int{1})
	require.NoError(t, err)
	n, err = only1.Size()
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	r, err = only1.Rank()
	require.NoError(t, err)
	if rank == 1 {
		assert.Equal(t, 0, r)
	} else {
		assert.Equal(t, mpi.Undefined, r)
	}
	tr, err := only1.TranslateRanks([]int{0}, wg)
	require.NoError(t, err)
	assert.Equal(t, []int{1}, tr)
	tr, err = wg.TranslateRanks([]int{0, 1}, only1)
	require.NoError(t, err)
	assert.Equal(t, []int{mpi.Undefined, 0}, tr)

	rev, err := wg.Incl([]int{1, 0})
	require.NoError(t, err)
	tr, err = rev.TranslateRanks([]int{0, 1}, wg)
	require.NoError(t, err)
	assert.Equal(t, []int{1, 0}, tr)
	cmp, err := rev.Compare(wg)
	require.NoError(t, err)
	assert.Equal(t, mpi.Similar, cmp)

	no1, err := wg.Excl([]int{1})
	require.NoError(t, err)
	u, err := no1.Union(only1)
	require.NoError(t, err)
	n, err = u.Size()
	require.NoError(t, err)
	assert.Equal(t, 2, n)
	x, err := no1.Intersection(only1)
	require.NoError(t, err)
	n, err = x.Size()
	require.NoError(t, err)
	assert.Equal(t, 0, n)
	d, err := wg.Difference(no1)
	require.NoError(t, err)
	cmp, err = d.Compare(only1)
	require.NoError(t, err)
	assert.Equal(t, mpi.Ident, cmp)

	// Comm from a group, collective over the world and over the group only.
	c, err := mpi.CommWorld.Create(only1)
	require.NoError(t, err)
	assert.Equal(t, rank != 1, c.IsNull())
	if !c.IsNull() {
		require.NoError(t, c.Free())
	}
	c, err = mpi.CommWorld.CreateGroup(rev, 5)
	require.NoError(t, err)
	r, err = c.Rank()
	require.NoError(t, err)
	assert.Equal(t, 1-rank, r)
	require.NoError(t, c.Free())

	for _, g := range []*mpi.Group{&wg, &only1, &rev, &no1, &u, &x, &d} {
		require.NoError(t, g.Free())
		assert.True(t, g.IsNull())
	}
}

func TestInfoRoundTrip(t *testing.T) {
	var _ interface {
		Get(key string) (string, bool)
	} = mpi.Info{}

	info, err := mpi.InfoCreate()
	require.NoError(t, err)
	require.NoError(t, info.Set("wildcard_used", "any_src|any_tag_same_tag"))
	require.NoError(t, info.Set("shmbuf_regist", "true"))
	v, ok := info.Get("wildcard_used")
	assert.True(t, ok)
	assert.Equal(t, "any_src|any_tag_same_tag", v)
	_, ok = info.Get("absent")
	assert.False(t, ok)
	n, err := info.Nkeys()
	require.NoError(t, err)
	assert.Equal(t, 2, n)
	k, err := info.NthKey(0)
	require.NoError(t, err)
	assert.Equal(t, "wildcard_used", k)

	long := strings.Repeat("x", mpi.MaxInfoVal)
	require.NoError(t, info.Set("long", long))
	v, ok, err = info.Lookup("long")
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Equal(t, long, v)

	// Values reads a set of keys in one call: a value too long for its
	// buffer is read alone, absent keys read as not set.
	require.NoError(t, info.Set("empty", " "))
	ks := mpi.NewKeySet("shmbuf_regist", "absent", "long", "wildcard_used", "empty")
	vals, err := info.Values(ks)
	require.NoError(t, err)
	for key, want := range map[string]string{"shmbuf_regist": "true", "long": long, "wildcard_used": "any_src|any_tag_same_tag", "empty": " "} {
		v, ok := vals.Get(key)
		assert.True(t, ok, key)
		assert.Equal(t, want, v, key)
	}
	for _, key := range []string{"absent", "not-in-the-set"} {
		_, ok = vals.Get(key)
		assert.False(t, ok, key)
	}
	vals, err = mpi.InfoNull.Values(ks)
	require.NoError(t, err)
	_, ok = vals.Get("shmbuf_regist")
	assert.False(t, ok)
	require.NoError(t, info.Delete("empty"))

	dup, err := info.Dup()
	require.NoError(t, err)
	require.NoError(t, info.Delete("long"))
	m, err := dup.Map()
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"wildcard_used": "any_src|any_tag_same_tag", "shmbuf_regist": "true", "long": long}, m)
	m, err = info.Map()
	require.NoError(t, err)
	assert.Len(t, m, 2)

	require.NoError(t, info.Free())
	assert.True(t, info.IsNull())
	require.NoError(t, dup.Free())

	_, ok = mpi.InfoNull.Get("anything")
	assert.False(t, ok)

	// Errors from info calls (with ErrorsReturn on MPI_COMM_SELF/WORLD).
	info, err = mpi.InfoCreate()
	require.NoError(t, err)
	defer info.Free()
	err = info.Set("k", strings.Repeat("v", mpi.MaxInfoVal+10))
	require.Error(t, err)
	assert.Equal(t, mpi.ErrInfoValue, mpi.ClassOf(err))
	err = info.Delete("not-there")
	assert.Equal(t, mpi.ErrInfoNokey, mpi.ClassOf(err))
}

func TestErrors(t *testing.T) {
	_, _, peer := world(t)
	c, err := mpi.CommWorld.Dup()
	require.NoError(t, err)
	defer c.Free()
	require.NoError(t, c.SetErrhandler(mpi.ErrorsReturn))
	buf := allocMem(t, 8)

	_, err = mpi.Isend(unsafe.Pointer(&buf[0]), 1, mpi.Byte, peer, -5, c)
	require.Error(t, err)
	var me *mpi.Error
	require.True(t, errors.As(err, &me))
	assert.Equal(t, mpi.ErrTag, me.Class)
	assert.Equal(t, "MPI_Isend", me.Func)
	assert.NotEmpty(t, me.Msg)
	assert.NotZero(t, me.Code)
	assert.Contains(t, me.Error(), "MPI_Isend")
	assert.Equal(t, mpi.ErrTag, mpi.ClassOf(err))
	cls, err := mpi.ErrorClass(me.Code)
	require.NoError(t, err)
	assert.Equal(t, mpi.ErrTag, cls)
	assert.Equal(t, me.Msg, mpi.ErrorString(me.Code))

	err = mpi.Send(unsafe.Pointer(&buf[0]), 1, mpi.Byte, 7, 0, c)
	assert.Equal(t, mpi.ErrRank, mpi.ClassOf(err))
	_, err = mpi.Irecv(unsafe.Pointer(&buf[0]), -1, mpi.Byte, peer, 0, c)
	assert.Equal(t, mpi.ErrCount, mpi.ClassOf(err))
	_, err = mpi.Isend(unsafe.Pointer(&buf[0]), -5, mpi.Byte, peer, 0, c)
	assert.Equal(t, mpi.ErrCount, mpi.ClassOf(err), "a negative count is caught by the binding")
	// A count beyond a C int takes MPI_Isend_c (to MPI_PROC_NULL: nothing
	// is read from the 1-byte buffer).
	big, err := mpi.Isend(unsafe.Pointer(&buf[0]), 1<<33, mpi.Byte, mpi.ProcNull, 0, c)
	require.NoError(t, err, "a count beyond a C int is MPI_Isend_c's")
	require.NoError(t, mpi.Waitall([]mpi.Request{big}, nil))
	_, err = mpi.Testsome(make([]mpi.Request, 2), make([]int32, 1), nil)
	assert.Equal(t, mpi.ErrArg, mpi.ClassOf(err))
	assert.Equal(t, mpi.Success, mpi.ClassOf(nil))
	assert.Equal(t, mpi.ErrOther, mpi.ClassOf(errors.New("not mpi")))

	// User error classes, codes and strings.
	uc, err := mpi.AddErrorClass()
	require.NoError(t, err)
	code, err := mpi.AddErrorCode(uc)
	require.NoError(t, err)
	require.NoError(t, mpi.AddErrorString(code, "casperii: bad hint value"))
	assert.Equal(t, "casperii: bad hint value", mpi.ErrorString(code))
	cls, err = mpi.ErrorClass(code)
	require.NoError(t, err)
	assert.Equal(t, uc, cls)
	last, found, err := mpi.CommWorld.GetAttrInt(mpi.LastUsedCode)
	require.NoError(t, err)
	assert.True(t, found)
	assert.Positive(t, last)

	// With ErrorsReturn, the handler returns and so does the call.
	assert.NoError(t, c.CallErrhandler(code))
}

func TestWinAllocateShared(t *testing.T) {
	const size = 4096
	win, base, err := mpi.WinAllocateShared(size, 1, mpi.InfoNull, mpi.CommSelf)
	require.NoError(t, err)
	require.NotNil(t, base)
	mem := unsafeBytes(base, size)
	for i := range mem {
		mem[i] = byte(i)
	}
	qsize, disp, qbase, err := win.SharedQuery(0)
	require.NoError(t, err)
	assert.Equal(t, size, qsize)
	assert.Equal(t, 1, disp)
	assert.Equal(t, base, qbase)
	assert.Equal(t, byte(77), unsafeBytes(qbase, size)[77])
	info, err := win.GetInfo()
	require.NoError(t, err)
	require.NoError(t, info.Free())
	require.NoError(t, win.Free())
	assert.True(t, win.IsNull())

	// Over the node: each rank sees the other's segment.
	rank, _, peer := world(t)
	shm, err := mpi.CommWorld.SplitType(mpi.CommTypeShared, 0, mpi.InfoNull)
	require.NoError(t, err)
	defer shm.Free()
	win, base, err = mpi.WinAllocateShared(size*(rank+1), 8, mpi.InfoNull, shm)
	require.NoError(t, err)
	psize, pdisp, pbase, err := win.SharedQuery(peer)
	require.NoError(t, err)
	assert.Equal(t, size*(peer+1), psize)
	assert.Equal(t, 8, pdisp)
	assert.NotEqual(t, base, pbase)
	require.NoError(t, win.Free())
}

func TestDatatypes(t *testing.T) {
	n, err := mpi.Int.Size()
	require.NoError(t, err)
	assert.Equal(t, 4, n)
	n, err = mpi.Int64.Size()
	require.NoError(t, err)
	assert.Equal(t, 8, n)
	pre, err := mpi.Byte.IsPredefined()
	require.NoError(t, err)
	assert.True(t, pre)
	name, err := mpi.Double.Name()
	require.NoError(t, err)
	assert.Equal(t, "MPI_DOUBLE", name)

	assert.Equal(t, mpi.Int64, mpi.DatatypeOf[int64]())
	assert.Equal(t, mpi.Int32, mpi.DatatypeOf[int32]())
	assert.Equal(t, mpi.Uint8, mpi.DatatypeOf[byte]())
	assert.Equal(t, mpi.Uint64, mpi.DatatypeOf[uint64]())
	assert.Equal(t, mpi.Double, mpi.DatatypeOf[float64]())
	assert.Equal(t, mpi.Int64, mpi.DatatypeOf[int]())

	// vector of 3 blocks of 2 ints, stride 4 ints.
	vec, err := mpi.TypeVector(3, 2, 4, mpi.Int)
	require.NoError(t, err)
	require.NoError(t, vec.Commit())
	n, err = vec.Size()
	require.NoError(t, err)
	assert.Equal(t, 24, n)
	lb, ext, err := vec.Extent()
	require.NoError(t, err)
	assert.Equal(t, 0, lb)
	assert.Equal(t, 40, ext)
	lb, ext, err = vec.TrueExtent()
	require.NoError(t, err)
	assert.Equal(t, 0, lb)
	assert.Equal(t, 40, ext)
	_, _, _, comb, err := vec.Envelope()
	require.NoError(t, err)
	assert.Equal(t, mpi.CombinerVector, comb)

	src := make([]int32, 12)
	for i := range src {
		src[i] = int32(i)
	}
	psize, err := mpi.PackSize(1, vec, mpi.CommSelf)
	require.NoError(t, err)
	assert.GreaterOrEqual(t, psize, 24)
	packed := make([]byte, psize)
	pos, err := mpi.Pack(unsafe.Pointer(&src[0]), 1, vec, unsafe.Pointer(&packed[0]), len(packed), 0, mpi.CommSelf)
	require.NoError(t, err)
	assert.Equal(t, 24, pos)
	got := make([]int32, 6)
	pos, err = mpi.Unpack(unsafe.Pointer(&packed[0]), len(packed), 0, unsafe.Pointer(&got[0]), 6, mpi.Int, mpi.CommSelf)
	require.NoError(t, err)
	assert.Equal(t, 24, pos)
	assert.Equal(t, []int32{0, 1, 4, 5, 8, 9}, got)

	cont, err := mpi.TypeContiguous(4, mpi.Int64)
	require.NoError(t, err)
	require.NoError(t, cont.Commit())
	n, err = cont.Size()
	require.NoError(t, err)
	assert.Equal(t, 32, n)
	require.NoError(t, cont.Free())
	assert.True(t, cont.IsNull())
	require.NoError(t, vec.Free())

	cnt, err := mpi.GetCount(&mpi.Status{Count: 44}, mpi.Int64)
	require.NoError(t, err)
	assert.Equal(t, mpi.Undefined, cnt)
	cnt, err = mpi.GetCount(&mpi.Status{Count: 40}, mpi.Int)
	require.NoError(t, err)
	assert.Equal(t, 10, cnt)
}

func TestCollectives(t *testing.T) {
	rank, size, _ := world(t)

	sum := make([]int64, 2)
	require.NoError(t, mpi.AllreduceInt64s(mpi.CommWorld, []int64{int64(rank + 1), 10}, sum, mpi.OpSum))
	assert.Equal(t, []int64{3, 20}, sum)
	inPlace := []int64{int64(rank)}
	require.NoError(t, mpi.AllreduceInt64s(mpi.CommWorld, nil, inPlace, mpi.OpMax))
	assert.Equal(t, []int64{1}, inPlace)
	bits := []uint64{0xff ^ uint64(1<<rank)}
	require.NoError(t, mpi.AllreduceUint64s(mpi.CommWorld, nil, bits, mpi.OpBand))
	assert.Equal(t, []uint64{0xfc}, bits)
	mins := make([]int32, 1)
	require.NoError(t, mpi.AllreduceInt32s(mpi.CommWorld, []int32{int32(rank)}, mins, mpi.OpMin))
	assert.Equal(t, []int32{0}, mins)

	all := make([]int32, 2*size)
	require.NoError(t, mpi.AllgatherInt32s(mpi.CommWorld, []int32{int32(rank), int32(10 * rank)}, all))
	assert.Equal(t, []int32{0, 0, 1, 10}, all)
	all64 := make([]int64, size)
	all64[rank] = int64(100 + rank)
	require.NoError(t, mpi.AllgatherInt64s(mpi.CommWorld, nil, all64))
	assert.Equal(t, []int64{100, 101}, all64)
	allb := make([]byte, size)
	require.NoError(t, mpi.AllgatherBytes(mpi.CommWorld, []byte{byte('a' + rank)}, allb))
	assert.Equal(t, "ab", string(allb))

	b := []byte("......")
	if rank == 1 {
		copy(b, "casper")
	}
	require.NoError(t, mpi.BcastBytes(mpi.CommWorld, b, 1))
	assert.Equal(t, "casper", string(b))
	bi := []int64{int64(rank * 7)}
	require.NoError(t, mpi.BcastInt64s(mpi.CommWorld, bi, 1))
	assert.Equal(t, []int64{7}, bi)

	g := make([]int32, size)
	require.NoError(t, mpi.GatherInt32s(mpi.CommWorld, []int32{int32(rank + 5)}, g, 0))
	if rank == 0 {
		assert.Equal(t, []int32{5, 6}, g)
	}
	a2a := make([]int32, size)
	require.NoError(t, mpi.AlltoallInt32s(mpi.CommWorld, []int32{int32(10*rank + 0), int32(10*rank + 1)}, a2a))
	assert.Equal(t, []int32{int32(rank), int32(10 + rank)}, a2a)

	var red int64
	one := int64(rank + 1)
	require.NoError(t, mpi.Reduce(unsafe.Pointer(&one), unsafe.Pointer(&red), 1, mpi.Int64, mpi.OpProd, 0, mpi.CommWorld))
	if rank == 0 {
		assert.Equal(t, int64(2), red)
	}

	// Nonblocking on MPI memory.
	mem := allocMem(t, 16)
	src := (*int64)(unsafe.Pointer(&mem[0]))
	dst := (*int64)(unsafe.Pointer(&mem[8]))
	*src = int64(rank + 40)
	req, err := mpi.Iallreduce(unsafe.Pointer(src), unsafe.Pointer(dst), 1, mpi.Int64, mpi.OpSum, mpi.CommWorld)
	require.NoError(t, err)
	require.NoError(t, req.Wait(nil))
	assert.Equal(t, int64(81), *dst)
	req, err = mpi.CommWorld.Ibarrier()
	require.NoError(t, err)
	waitUntil(t, "Ibarrier", func() bool {
		done, err := req.Test(nil)
		require.NoError(t, err)
		return done
	})
	assert.True(t, req.IsNull())
}

// TestPMPIOnly checks that the binding references PMPI_* entry points only:
// the interposer library that links it defines MPI_* itself.
func TestPMPIOnly(t *testing.T) {
	exe, err := os.Executable()
	require.NoError(t, err)
	f, err := elf.Open(exe)
	require.NoError(t, err)
	defer f.Close()
	syms, err := f.ImportedSymbols()
	require.NoError(t, err)
	var pmpi int
	for _, s := range syms {
		if strings.HasPrefix(s.Name, "MPI_") || strings.HasPrefix(s.Name, "MPIX_") {
			t.Errorf("binary imports %s: use the PMPI_ entry point", s.Name)
		}
		if strings.HasPrefix(s.Name, "PMPI_") {
			pmpi++
		}
	}
	assert.Greater(t, pmpi, 50)
}

// TestGoPanicsAfterInit checks that MPI/UCX initialization did not steal the
// Go runtime's signal handlers: a nil dereference must still be a Go panic.
func TestGoPanicsAfterInit(t *testing.T) {
	var p *int
	recovered := func() (r any) {
		defer func() { r = recover() }()
		return *p
	}()
	require.NotNil(t, recovered)
	assert.Contains(t, recovered.(error).Error(), "nil pointer dereference")
}
