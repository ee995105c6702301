package test

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

// A ghost whose users have nothing outstanding parks on its doorbell: over
// 3 seconds in which every user sleeps, each ghost uses under 2% of a core
// (CPU time from /proc, so a loaded machine does not change the figure).
// The users exchange offloaded messages first, so the ghosts have worked
// and must have gone from polling to parked by themselves.
func TestParkedGhostCPU(t *testing.T) {
	l := Layout{N: 4, NodeSize: 2} // ghosts are world ranks 0 and 2
	res := Run(t, Job{Layout: l, Prog: CProg(t, "ip_park"), Args: []string{"3"}, Preload: true})
	require.Len(t, Select(Results(res.Stdout), "ok=1", "test=exchange"), l.Users(), res.Output())
	require.Len(t, Select(Results(res.Stdout), "ok=1", "test=watched"), 1, res.Output())
	ghosts := 0
	for _, p := range ParseLines(res.Stdout, "park") {
		r, _ := p.Int("pmi_rank")
		cpu, _ := strconv.ParseFloat(p["cpu_ms"], 64)
		wall, _ := strconv.ParseFloat(p["wall_ms"], 64)
		require.Greater(t, wall, 2500.0, p.Line())
		if r != 0 && r != 2 {
			continue
		}
		ghosts++
		t.Logf("ghost %d: %.0f ms CPU in %.0f ms (%.2f%% of a core)", r, cpu, wall, 100*cpu/wall)
		require.Less(t, cpu/wall, 0.02, "a parked ghost uses under 2%% of a core: %s", p.Line())
	}
	require.Equal(t, 2, ghosts, "both ghosts watched:\n%s", res.Stdout)
}
