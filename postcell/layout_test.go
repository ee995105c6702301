package postcell

import (
	"reflect"
	"testing"
	"unsafe"

	"github.com/casperii/casperii/postcell/internal/ccell"
	"github.com/stretchr/testify/require"
)

// goNames maps the C member names to the Go field names of Cell.
var goNames = map[string]string{
	"op": "Op", "mode": "Mode", "flags": "Flags", "gen": "Gen", "slot": "Slot",
	"peer": "Peer", "tag": "Tag", "tag_mask": "TagMask", "seg": "Seg",
	"target": "Target", "off": "Off", "nbytes": "NBytes", "target_gen": "TargetGen",
	"st_source": "StSource", "st_tag": "StTag", "st_error": "StError",
	"st_flags": "StFlags", "st_bytes": "StBytes", "st_msg": "StMsg", "done": "Done",
}

func TestLayoutMatchesC(t *testing.T) {
	require.Equal(t, uintptr(Size), ccell.Sizeof(), "sizeof(struct csp_cell)")
	require.Equal(t, uintptr(Size), unsafe.Sizeof(Cell{}), "unsafe.Sizeof(Cell{})")
	typ := reflect.TypeOf(Cell{})
	fields := ccell.Fields()
	require.Len(t, fields, len(goNames), "every C member is mapped")
	for _, cf := range fields {
		name, ok := goNames[cf.Name]
		require.True(t, ok, "C member %s has no Go twin", cf.Name)
		gf, ok := typ.FieldByName(name)
		require.True(t, ok, "Go field %s missing", name)
		require.Equal(t, cf.Offset, gf.Offset, "offset of %s / %s", cf.Name, name)
		require.Equal(t, cf.Size, gf.Type.Size(), "size of %s / %s", cf.Name, name)
	}
	// The request line is line 0, the result line is line 1.
	require.Less(t, reflect.ValueOf(Cell{}).Type().Field(12).Offset, uintptr(64))
	sf, _ := typ.FieldByName("StSource")
	require.Equal(t, uintptr(64), sf.Offset, "results start on the second cache line")
}

func TestConstantsMatchC(t *testing.T) {
	segNone := SegNone // C reports (int)CSP_SEG_NONE
	want := []int64{
		int64(OpSend), int64(OpSsend), int64(OpRecv), int64(OpIprobe), int64(OpProbe),
		int64(OpImprobe), int64(OpMprobe), int64(OpMrecv), int64(OpCancel), int64(OpSegment),
		int64(OpFinalize), int64(opMax), int64(MatchNative), int64(MatchGhost),
		int64(FlagBounce), int64(StCancelled), int64(StFound), int64(int32(segNone)),
	}
	require.Equal(t, want, ccell.Constants())
}
