package runcompare

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestPercentileCI(t *testing.T) {
	v := make([]float64, 101)
	for i := range v {
		v[100-i] = float64(i)
	}
	ci := percentileCI(v)
	if math.Abs(ci.Lo-2.5) > 1e-12 || math.Abs(ci.Hi-97.5) > 1e-12 {
		t.Fatalf("CI %+v, want [2.5, 97.5]", ci)
	}
}

// ScanRuns reads every subdirectory in name order with the system's
// reader, passes over files, and makes a run whose reader fails
// Unreadable with the reason.
func TestScanRuns(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"scnn-seed2", "cnn-seed1", "notes", "broken", "going"} {
		os.MkdirAll(filepath.Join(dir, d), 0o755)
	}
	os.WriteFile(filepath.Join(dir, "report.md"), []byte("x"), 0o644)
	bad := errors.New("bad checkpoint")
	got, err := ScanRuns(dir, func(path string) (string, RunState, error) {
		switch filepath.Base(path) {
		case "notes":
			return "", NoRun, nil
		case "broken":
			return "", Finished, bad // an error makes it Unreadable
		case "going":
			return "3 steps", Training, nil
		}
		return "model of " + filepath.Base(path), Finished, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []RunDir[string]{
		{Name: "broken", State: Unreadable, Err: bad},
		{Name: "cnn-seed1", State: Finished, Run: "model of cnn-seed1"},
		{Name: "going", State: Training, Run: "3 steps"},
		{Name: "notes", State: NoRun},
		{Name: "scnn-seed2", State: Finished, Run: "model of scnn-seed2"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %+v", got)
	}
	for i, w := range want {
		g := got[i]
		if g.Name != w.Name || g.Path != filepath.Join(dir, w.Name) || g.State != w.State || g.Err != w.Err || g.Run != w.Run {
			t.Errorf("%d: got %+v, want %+v", i, g, w)
		}
	}
	if _, err := ScanRuns(filepath.Join(dir, "none"), func(string) (int, RunState, error) { return 0, NoRun, nil }); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing directory: %v", err)
	}
}

// OnlyItems keeps the items asked for, in order, with every metric.
func TestOnlyItems(t *testing.T) {
	r := Run{Kind: "cnn", Seed: 1, Items: []string{"a", "b", "c"}, Scores: map[string][]float64{"F1": {1, 2, 3}, "PPV": {4, 5, 6}}}
	got := OnlyItems([]Run{r}, map[string]bool{"a": true, "c": true})
	if len(got) != 1 || got[0].Kind != "cnn" || got[0].Seed != 1 || !slices.Equal(got[0].Items, []string{"a", "c"}) ||
		!slices.Equal(got[0].Scores["F1"], []float64{1, 3}) || !slices.Equal(got[0].Scores["PPV"], []float64{4, 6}) {
		t.Fatalf("got %+v", got)
	}
	if len(r.Items) != 3 || len(r.Scores["F1"]) != 3 {
		t.Fatalf("the input changed: %+v", r)
	}
}

// WriteFiles writes OUT.json (the result) and OUT.md (its table, then
// the extra text), creating the directory.
func TestWriteFiles(t *testing.T) {
	runs := []Run{
		{Kind: "a", Seed: 1, Items: []string{"x", "y"}, Scores: map[string][]float64{"m": {0.1, 0.2}}},
		{Kind: "b", Seed: 1, Items: []string{"x", "y"}, Scores: map[string][]float64{"m": {0.3, 0.4}}},
	}
	res, err := Compare(runs, []string{"m"}, "a", "b", 20, 1)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "sub", "report")
	if err := res.WriteFiles(out, "\nthe end\n"); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(out + ".md")
	if err != nil {
		t.Fatal(err)
	}
	var table strings.Builder
	res.Markdown(&table)
	if string(md) != table.String()+"\nthe end\n" {
		t.Errorf("md:\n%s", md)
	}
	b, err := os.ReadFile(out + ".json")
	if err != nil {
		t.Fatal(err)
	}
	var back Result
	if err := json.Unmarshal(b, &back); err != nil || back.KindB != "b" || len(back.Rows) != 1 || !strings.Contains(string(b), "\n  \"kind_a\": \"a\"") {
		t.Errorf("json %v:\n%s", err, b)
	}
}

// Unreadable runs are said as found; they fail the comparison unless
// skipped, when a line names them.
func TestBadRuns(t *testing.T) {
	var w bytes.Buffer
	u := BadRuns{W: &w, Prefix: "contactmap x compare"}
	if u.Check(false) != nil {
		t.Error("no unreadable run, an error")
	}
	u.Add("a", errors.New("bad checksum"))
	u.Add("b", errors.New("no model"))
	if err := u.Check(false); err == nil || !strings.HasPrefix(err.Error(), "2 run(s) cannot be read (a b; see above)") {
		t.Errorf("%v", err)
	}
	if err := u.Check(true); err != nil {
		t.Error(err)
	}
	want := "contactmap x compare: run a cannot be read: bad checksum\ncontactmap x compare: run b cannot be read: no model\nleft out 2 run(s) that cannot be read: a b\n"
	if w.String() != want {
		t.Errorf("%q, want %q", w.String(), want)
	}
}
