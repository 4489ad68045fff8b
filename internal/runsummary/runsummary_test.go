package runsummary

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A summary merges with the one an earlier run left: rows of inputs this
// run does not list stay, an "ok" row of an input this run only skipped
// stays, the others are replaced and new names follow.
func TestWriteMerges(t *testing.T) {
	path := filepath.Join(t.TempDir(), "summary.tsv")
	first := []Row{
		{Name: "a", Length: 10, Outputs: []string{"/x/a.rr"}, Method: "network  cnn"},
		{Name: "b", Length: 20, Err: errors.New("bad\tinput")},
		{Name: "c", Length: 30, Outputs: []string{"/x/c.rr", "/x/c.npy"}},
	}
	if err := Write(path, first, false); err != nil {
		t.Fatal(err)
	}
	second := []Row{
		{Name: "c", Length: 30, Err: Skip{errors.New("c.rr exists")}},
		{Name: "b", Length: 20, Outputs: []string{"b.rr"}},
		{Name: "d", Err: fmt.Errorf("wrapped: %w", Skip{errors.New("strict")}), Status: Failed},
	}
	if err := Write(path, second, false); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	want := "name\tlength\tstatus\toutputs\tmethod\terror\n" +
		"a\t10\tok\ta.rr\tnetwork cnn\t\n" +
		"b\t20\tok\tb.rr\t\t\n" +
		"c\t30\tok\tc.rr,c.npy\t\t\n" +
		"d\t-\tfailed\t\t\twrapped: strict\n"
	if string(got) != want {
		t.Errorf("summary:\n%s\nwant:\n%s", got, want)
	}
	// Another command's columns (energy): replaced, not merged.
	if err := Write(path, []Row{{Name: "r", Length: 5, Energy: "-1.20"}}, true); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); string(got) != "name\tlength\tstatus\toutputs\tmethod\tenergy\terror\nr\t5\tok\t\t\t-1.20\t\n" {
		t.Errorf("energy summary:\n%s", got)
	}
}

func TestStatusAndShardFile(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{{nil, OK}, {Skip{errors.New("x")}, Skipped}, {fmt.Errorf("a: %w", Skip{errors.New("x")}), Skipped}, {errors.New("x"), Failed}} {
		if got := StatusOf(tc.err); got != tc.want {
			t.Errorf("StatusOf(%v) = %s, want %s", tc.err, got, tc.want)
		}
	}
	if got := (Skip{errors.New("msg")}).Error(); got != "msg" {
		t.Errorf("Skip reads %q", got)
	}
	if ShardFile("d", "summary", 0, 1) != filepath.Join("d", "summary.tsv") || ShardFile("d", "manifest", 1, 3) != filepath.Join("d", "manifest.shard-1-of-3.tsv") {
		t.Error("ShardFile")
	}
}

// Each failure is listed once, by name unless the error names the input
// as a word already.
func TestListFailures(t *testing.T) {
	var b bytes.Buffer
	if err := ListFailures(&b, nil, 3); err != nil || b.Len() != 0 {
		t.Fatalf("no failures: %v %q", err, b.String())
	}
	err := ListFailures(&b, []Failure{
		{"amb", errors.New("ambiguity codes")},
		{"1ABC_A", errors.New("bad input: 1ABC_A: no chain")},
		{"", errors.New("standard input: empty")},
		{"MKVLAAGIVALLLAAG", errors.New("MKVLAAGIVALL... (16 letters): a sequence")},
	}, 5)
	want := "failed:\n  amb: ambiguity codes\n  bad input: 1ABC_A: no chain\n  standard input: empty\n  MKVLAAGIVALL... (16 letters): a sequence\n"
	if b.String() != want || err == nil || err.Error() != "4 of 5 inputs failed" {
		t.Errorf("list %q, error %v", b.String(), err)
	}
	if !namesInput("x: 1ABC", "1ABC") || namesInput("1ABCD", "1ABC") || namesInput("x", "") {
		t.Error("namesInput")
	}
}

// Save makes the directory, and says on errw when it cannot write.
func TestSave(t *testing.T) {
	dir := t.TempDir()
	var b bytes.Buffer
	Save(&b, filepath.Join(dir, "sub", "summary.tsv"), []Row{{Name: "a"}}, false)
	if _, err := os.Stat(filepath.Join(dir, "sub", "summary.tsv")); err != nil || b.Len() != 0 {
		t.Errorf("not saved: %v %q", err, b.String())
	}
	file := filepath.Join(dir, "file")
	os.WriteFile(file, nil, 0o644)
	Save(&b, filepath.Join(file, "summary.tsv"), []Row{{Name: "a"}}, false)
	if !strings.HasPrefix(b.String(), "warning: summary not written: ") {
		t.Errorf("warning %q", b.String())
	}
}

func TestParseShard(t *testing.T) {
	for _, tc := range []struct {
		s    string
		i, n int
		ok   bool
	}{{"0/1", 0, 1, true}, {"3/4", 3, 4, true}, {"4/4", 0, 0, false}, {"-1/2", 0, 0, false}, {"1", 0, 0, false}, {"a/b", 0, 0, false}} {
		i, n, err := ParseShard(tc.s)
		if (err == nil) != tc.ok || tc.ok && (i != tc.i || n != tc.n) {
			t.Errorf("%q: %d/%d %v", tc.s, i, n, err)
		}
	}
}
