package core

import (
	goruntime "runtime"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestSetGoProcs(t *testing.T) {
	old := goruntime.GOMAXPROCS(0)
	t.Cleanup(func() { goruntime.GOMAXPROCS(old) })

	goruntime.GOMAXPROCS(1) // what a process bound to one CPU starts with
	why := setGoProcs(func(string) string { return "" })
	assert.Equal(t, goProcs, goruntime.GOMAXPROCS(0))
	assert.Contains(t, why, "GOMAXPROCS=2")

	goruntime.GOMAXPROCS(3)
	why = setGoProcs(func(k string) string {
		if k == "GOMAXPROCS" {
			return " 3 "
		}
		return ""
	})
	assert.Equal(t, 3, goruntime.GOMAXPROCS(0), "the environment's value stays")
	assert.Equal(t, "GOMAXPROCS=3 as the environment sets it", why)
}
