package core

import (
	"strings"
	"testing"
)

func TestGhostNice(t *testing.T) {
	cases := []struct {
		name          string
		env           map[string]string
		procs, cpus   int
		nice          int
		lend          bool
		whyContaining string
	}{
		{"oversubscribed", nil, 4, 2, 19, true, "4 processes on 2 cores"},
		{"core per process", nil, 2, 2, 0, false, "a core per process"},
		{"set high", map[string]string{"CSP_GHOST_NICE": "10"}, 2, 4, 10, false, "CSP_GHOST_NICE"},
		{"set 0 on an oversubscribed host", map[string]string{"CSP_GHOST_NICE": "0"}, 4, 2, 0, false, "CSP_GHOST_NICE"},
		{"set on an oversubscribed host", map[string]string{"CSP_GHOST_NICE": "5"}, 4, 2, 5, true, "CSP_GHOST_NICE"},
	}
	for _, c := range cases {
		cfg, err := readConfig(func(k string) string { return c.env[k] })
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		nice, why := ghostNice(cfg, c.procs, c.cpus)
		if nice != c.nice || !strings.Contains(why, c.whyContaining) {
			t.Errorf("%s: ghostNice = %d (%q), want %d (%q)", c.name, nice, why, c.nice, c.whyContaining)
		}
		if got := lendCore(cfg, c.procs, c.cpus); got != c.lend {
			t.Errorf("%s: lendCore = %v, want %v", c.name, got, c.lend)
		}
	}
	for _, bad := range []string{"-1", "20", "low"} {
		if _, err := readConfig(func(k string) string {
			if k == "CSP_GHOST_NICE" {
				return bad
			}
			return ""
		}); err == nil || !strings.Contains(err.Error(), "CSP_GHOST_NICE") {
			t.Errorf("CSP_GHOST_NICE=%s: error %v, want one naming the variable", bad, err)
		}
	}
}

func TestDescribeNice(t *testing.T) {
	nice, group := describeNice()
	if nice < 0 || nice > 19 {
		t.Fatalf("this thread's nice value read as %d", nice)
	}
	if group != "no autogroup" && !strings.HasPrefix(group, "autogroup nice ") {
		t.Fatalf("session group described as %q", group)
	}
}
