package osubench

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Old library snapshots leave the cache; the newest few, and any used in
// the last day, stay.
func TestPruneSnapshots(t *testing.T) {
	cache := t.TempDir()
	now := time.Now()
	ages := []time.Duration{0, time.Hour, 30 * time.Hour, 40 * time.Hour, 50 * time.Hour, 60 * time.Hour, 70 * time.Hour}
	for i, age := range ages {
		p := filepath.Join(cache, fmt.Sprintf("libcasperii-%012d.so", i))
		require.NoError(t, os.WriteFile(p, []byte("x"), 0o755))
		require.NoError(t, os.Chtimes(p, now.Add(-age), now.Add(-age)))
	}
	other := filepath.Join(cache, "c-0123456789ab")
	require.NoError(t, os.Mkdir(other, 0o755))
	pruneSnapshots(cache, now)
	left, _ := filepath.Glob(filepath.Join(cache, "libcasperii-*.so"))
	require.Len(t, left, keepSnapshots, "%v", left)
	for i := 0; i < keepSnapshots; i++ {
		require.FileExists(t, filepath.Join(cache, fmt.Sprintf("libcasperii-%012d.so", i)))
	}
	require.DirExists(t, other)

	// Within the TTL nothing goes, however many there are.
	cache = t.TempDir()
	for i := 0; i < 2*keepSnapshots; i++ {
		require.NoError(t, os.WriteFile(filepath.Join(cache, fmt.Sprintf("libcasperii-%012d.so", i)), []byte("x"), 0o755))
	}
	pruneSnapshots(cache, now)
	left, _ = filepath.Glob(filepath.Join(cache, "libcasperii-*.so"))
	require.Len(t, left, 2*keepSnapshots)
}
