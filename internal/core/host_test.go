package core

import (
	"strings"
	"testing"
)

func TestHostColors(t *testing.T) {
	a, b, c := hostHash("a\x00boot1\x00pid:[1]"), hostHash("a\x00boot2\x00pid:[1]"), hostHash("a\x00boot1\x00pid:[2]")
	if a == b || a == c || b == c {
		t.Fatalf("identities that differ in boot id or PID namespace hash alike: %v %v %v", a, b, c)
	}
	got := hostColors([][2]int64{b, a, b, c, a})
	want := []int{0, 1, 0, 3, 1}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("hostColors = %v, want %v", got, want)
		}
	}
}

func TestHostIdentity(t *testing.T) {
	id := hostIdentity()
	parts := strings.Split(id, "\x00")
	if len(parts) != 3 {
		t.Fatalf("identity %q: want hostname, boot id, PID namespace", id)
	}
	if parts[1] == "" || !strings.HasPrefix(parts[2], "pid:[") {
		t.Fatalf("identity %q: boot id or PID namespace missing on Linux", id)
	}
	if hostIdentity() != id {
		t.Fatal("identity is not stable")
	}
}
