package shellquote

import "testing"

func TestJoin(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"mpiexec", "-n", "4", "-genv", "X", "a|b", "", "it's"}, `mpiexec -n 4 -genv X 'a|b' '' 'it'\''s'`},
		{[]string{"a", "b c", "-x=1,2", "/p/q@r%+:"}, `a 'b c' -x=1,2 /p/q@r%+:`},
		{nil, ""},
	} {
		if got := Join(tt.args); got != tt.want {
			t.Errorf("Join(%q) = %s, want %s", tt.args, got, tt.want)
		}
	}
}
