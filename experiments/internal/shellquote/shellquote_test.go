package shellquote

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

func TestJoin(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-split", "test"}, "-split test"},
		{[]string{"-runs", ""}, "-runs ''"},
		{[]string{"-pick", "scnn seed 2"}, "-pick 'scnn seed 2'"},
		{[]string{"it's"}, `'it'\''s'`},
		{[]string{"a*b", "$x"}, "'a*b' '$x'"},
	} {
		if got := Join(tc.args); got != tc.want {
			t.Errorf("Join(%q) = %s, want %s", tc.args, got, tc.want)
		}
	}
}

// The shell reads the line back as the same arguments.
func TestJoinRoundTrip(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	args := []string{"", "plain", "two words", "it's", `back\slash`, "$HOME", "a*b?", "tab\there", "new\nline", "~user", "#hash", `"dq"`, "x;y&z|w", "(p)", "{b}", "[c]", "<in>", "`cmd`", "!bang"}
	out, err := exec.Command(sh, "-c", "set -- "+Join(args)+`; for a in "$@"; do printf '%s\0' "$a"; done`).Output()
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	if !slices.Equal(got, args) {
		t.Errorf("the shell read %q, want %q", got, args)
	}
}
