package rec

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/contactmap/contactmap/internal/runcompare"
	"github.com/contactmap/contactmap/scnn"
)

// ratingsDir writes a MovieLens 100K directory of the synthetic ratings
// (u.data, tab-separated) and, with titles, a u.item naming every item.
func ratingsDir(t *testing.T, users, items, length int, titles bool) string {
	t.Helper()
	dir := t.TempDir()
	var b strings.Builder
	for u := 0; u < users; u++ {
		for i := 0; i < length; i++ {
			fmt.Fprintf(&b, "%d\t%d\t1\t%d\n", u+1, (u+i)%items+1, i)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "u.data"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if titles {
		var ti strings.Builder
		for it := 1; it <= items; it++ {
			fmt.Fprintf(&ti, "%d|Film %d (1990)|01-Jan-1990||\n", it, it)
		}
		if err := os.WriteFile(filepath.Join(dir, "u.item"), []byte(ti.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// saveModel saves an untrained small model of the ratings in dir.
func saveModel(t *testing.T, dir string, kind scnn.Kind) string {
	t.Helper()
	d, err := LoadData(dir)
	if err != nil {
		t.Fatal(err)
	}
	m, err := NewModel(smallConfig(kind, d.Users, d.Items), 1)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "model.scnn")
	if err := m.Save(path, Record{Seed: 4, UserRaw: d.UserRaw, ItemRaw: d.ItemRaw}); err != nil {
		t.Fatal(err)
	}
	return path
}

// LoadData reads a directory's u.data, else its ratings.dat, or a file;
// a path that does not exist says what to give and where MovieLens comes
// from.
func TestLoadData(t *testing.T) {
	dir := ratingsDir(t, 5, 8, 10, false)
	for _, path := range []string{dir, filepath.Join(dir, "u.data")} {
		if d, err := LoadData(path); err != nil || d.Users != 5 {
			t.Errorf("%s: %v", path, err)
		}
	}
	ml1m := t.TempDir()
	os.WriteFile(filepath.Join(ml1m, "ratings.dat"), []byte("1::7::5::100\n1::8::5::101\n2::7::4::102\n2::8::4::103\n"), 0o644)
	if d, err := LoadData(ml1m); err != nil || d.Users != 2 {
		t.Errorf("ratings.dat: %v", err)
	}
	_, err := LoadData(filepath.Join(dir, "none"))
	if !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), "give --data") || !strings.Contains(err.Error(), MovieLensURL) {
		t.Errorf("missing data: %v", err)
	}
}

// Recommend gives each user the top N items the user has not rated,
// best first, with the titles beside the ratings; a user ID that is not
// a number or not in the data fails alone; a model of other data fails
// the whole call.
func TestRecommend(t *testing.T) {
	dir := ratingsDir(t, 20, 30, 10, true)
	model := saveModel(t, dir, SCosRec)
	outs, err := Recommend(RecommendConfig{Model: model, Data: dir, N: 3, Users: []string{"2", "abc", "99", "007"}})
	if err != nil || len(outs) != 4 {
		t.Fatalf("%d outcomes, %v", len(outs), err)
	}
	d, _ := LoadData(dir)
	for _, o := range []RecommendOutcome{outs[0], outs[3]} {
		u, _ := d.UserIndex(o.User)
		hist := append(d.History(int(u), Test), d.Test[u]...)
		if o.Err != nil || o.Interactions != 10 || len(o.Items) != 3 {
			t.Fatalf("user %s: %+v", o.Arg, o)
		}
		for i, it := range o.Items {
			if it.Title != fmt.Sprintf("Film %d (1990)", it.ID) || i > 0 && it.Score > o.Items[i-1].Score {
				t.Errorf("user %s item %d: %+v", o.Arg, i, it)
			}
			if slices.Contains(hist, d.itemOf[it.ID]) {
				t.Errorf("user %s: item %d rated already", o.Arg, it.ID)
			}
		}
	}
	if outs[3].User != 7 {
		t.Errorf("007 is user %d", outs[3].User)
	}
	var ue *UnknownUserError
	if !errors.As(outs[1].Err, &ue) || outs[1].Err.Error() != `user "abc": not a number (give the users' IDs as in the ratings file)` || outs[1].Items != nil {
		t.Errorf("abc: %v", outs[1].Err)
	}
	if !errors.As(outs[2].Err, &ue) || outs[2].Err.Error() != "user 99: not in "+dir {
		t.Errorf("99: %v", outs[2].Err)
	}
	// Without a titles file (the ratings file given), no titles.
	outs, err = Recommend(RecommendConfig{Model: model, Data: filepath.Join(dir, "u.data"), N: 20, Users: []string{"1"}})
	if err != nil || len(outs[0].Items) == 0 || outs[0].Items[0].Title != "" {
		t.Errorf("no titles: %+v, %v", outs, err)
	}
	other := ratingsDir(t, 21, 30, 10, false)
	if _, err := Recommend(RecommendConfig{Model: model, Data: other, N: 3, Users: []string{"1"}}); err == nil || !strings.HasPrefix(err.Error(), "rec recommend: "+model+": trained on") {
		t.Errorf("other data: %v", err)
	}
}

// EvaluateModels gives a row per model and the baseline's, and the rows
// before a model that cannot be read with its error.
func TestEvaluateModels(t *testing.T) {
	dir := ratingsDir(t, 6, 12, 10, false)
	model := saveModel(t, dir, CosRec)
	out, err := EvaluateModels(EvalConfig{Models: []string{model}, Data: dir, Split: Test, Baseline: true})
	if err != nil || out.Users != 6 || len(out.Rows) != 2 || out.Rows[0].Name != fmt.Sprintf("cosrec seed 4 (%s)", model) || out.Rows[1].Name != "most popular" || out.Rows[1].Params != 0 {
		t.Fatalf("%+v, %v", out, err)
	}
	var b bytes.Buffer
	out.WriteMarkdown(&b)
	lines := strings.Split(b.String(), "\n")
	if lines[0] != fmt.Sprintf("test split of %s: 6 users", dir) || !strings.HasPrefix(lines[4], fmt.Sprintf("| cosrec seed 4 (%s) | %d | ", model, out.Rows[0].Params)) ||
		!strings.HasPrefix(lines[5], "| most popular |  | ") || len(lines) != 7 {
		t.Errorf("table:\n%s", b.String())
	}
	out, err = EvaluateModels(EvalConfig{Models: []string{model, filepath.Join(dir, "none.scnn")}, Data: dir, Split: Validation})
	if !errors.Is(err, os.ErrNotExist) || out == nil || len(out.Rows) != 1 {
		t.Errorf("a missing model: %+v, %v", out, err)
	}
}

// CompareRuns hands the unreadable runs over before any evaluation (its
// error ends the comparison), tells of each run evaluated and of those
// still training, and compares the kinds.
func TestCompareRuns(t *testing.T) {
	dir := ratingsDir(t, 30, 20, 20, false)
	d, err := LoadData(dir)
	if err != nil {
		t.Fatal(err)
	}
	runs := t.TempDir()
	for _, seed := range []uint64{1, 2} {
		for _, k := range []scnn.Kind{CosRec, SCosRec} {
			cfg := smallConfig(k, 0, 0)
			if _, err := Train(context.Background(), TrainOptions{Data: d, Out: filepath.Join(runs, fmt.Sprintf("%s-seed%d", KindName(k), seed)), Kind: k, Seed: seed,
				Epochs: 1, Batch: 64, Workers: 1, Config: &cfg}); err != nil {
				t.Fatal(err)
			}
		}
	}
	os.MkdirAll(filepath.Join(runs, "broken"), 0o755)
	os.WriteFile(filepath.Join(runs, "broken", CheckpointFile), []byte("not a checkpoint"), 0o644)
	var events []string
	var log bytes.Buffer
	cfg := CompareConfig{Runs: runs, Data: dir, Split: Test, Resamples: 20, Log: &log,
		Unreadable: func(bad []runcompare.RunDir[Run]) error {
			for _, b := range bad {
				events = append(events, "bad "+b.Name)
			}
			return errors.New("stop")
		},
	}
	if _, err := CompareRuns(cfg); err == nil || err.Error() != "stop" || !slices.Equal(events, []string{"bad broken"}) || log.Len() != 0 {
		t.Fatalf("%v, %v, log %q", err, events, log.String())
	}
	cfg.Unreadable = nil
	res, err := CompareRuns(cfg)
	want := "rec compare: cosrec-seed1: cosrec seed 1, 1 epochs (best 1)\nrec compare: cosrec-seed2: cosrec seed 2, 1 epochs (best 1)\n" +
		"rec compare: scosrec-seed1: scosrec seed 1, 1 epochs (best 1)\nrec compare: scosrec-seed2: scosrec seed 2, 1 epochs (best 1)\n"
	if err != nil || log.String() != want {
		t.Fatalf("%v, log %q, want %q", err, log.String(), want)
	}
	var b bytes.Buffer
	if err := res.WriteMarkdown(&b); err != nil || !strings.Contains(b.String(), "SCOSREC vs COSREC on the test split") || !strings.Contains(b.String(), "\nMost-popular baseline on the same split: MAP ") {
		t.Errorf("%v:\n%s", err, b.String())
	}
	out := filepath.Join(t.TempDir(), "report")
	if err := res.WriteFiles(out); err != nil {
		t.Fatal(err)
	}
	if md, err := os.ReadFile(out + ".md"); err != nil || !bytes.Contains(md, []byte("Most-popular baseline")) {
		t.Errorf("%s.md: %v", out, err)
	}
}
