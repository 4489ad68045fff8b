package rec

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/contactmap/contactmap/scnn/loop"
	"github.com/contactmap/contactmap/scnn/loop/checkpoint"
)

// resumeOpts are the options of the resume tests: SCosRec on the
// synthetic data in batches of 32 windows (18 an epoch), a rate that
// plateaus and decays (at epoch 8).
func resumeOpts(d *Dataset, cfg *Config, out string, epochs int) TrainOptions {
	return TrainOptions{Data: d, Out: out, Kind: SCosRec, Seed: 11, Epochs: epochs, Batch: 32, LR: 3e-2, Workers: 1, Config: cfg,
		Patience: 1, Factor: 0.5}
}

// batchesPerEpoch is the number of batches of an epoch of o (defaults
// set).
func batchesPerEpoch(o TrainOptions) int {
	o.defaults()
	return (o.Data.TrainingWindows(o.Config.L, o.T).Len() + o.Batch - 1) / o.Batch
}

// sameRun checks that two run directories hold the same training: the
// checkpoints' parameters and optimiser states, the kept models'
// parameters and epochs, and the logs but for their seconds.
func sameRun(t *testing.T, a, b string) {
	t.Helper()
	sameCheckpoints(t, a, b)
	ma, ra, err := Load(filepath.Join(a, ModelFile))
	if err != nil {
		t.Fatal(err)
	}
	mb, rb, err := Load(filepath.Join(b, ModelFile))
	if err != nil {
		t.Fatal(err)
	}
	if ra.Epoch != rb.Epoch {
		t.Errorf("models kept at epochs %d and %d", ra.Epoch, rb.Epoch)
	}
	pa, pb := ma.Params(), mb.Params()
	for i := range pa {
		if pa[i].Name != pb[i].Name || !slices.Equal(pa[i].Value, pb[i].Value) {
			t.Fatalf("kept model: parameter %s differs", pa[i].Name)
		}
	}
	la, _ := os.ReadFile(filepath.Join(a, LogFile))
	lb, _ := os.ReadFile(filepath.Join(b, LogFile))
	if la, lb = dropLastColumn(la), dropLastColumn(lb); !bytes.Equal(la, lb) || len(la) == 0 {
		t.Errorf("logs differ:\n%s\n%s", la, lb)
	}
}

// sameCheckpoints checks that two runs' checkpoints hold the same
// parameters and optimiser states, bit for bit.
func sameCheckpoints(t *testing.T, a, b string) {
	t.Helper()
	ca, err := checkpoint.Load(filepath.Join(a, CheckpointFile))
	if err != nil {
		t.Fatal(err)
	}
	cb, err := checkpoint.Load(filepath.Join(b, CheckpointFile))
	if err != nil {
		t.Fatal(err)
	}
	if ca.OptSteps != cb.OptSteps || len(ca.Params) != len(cb.Params) || len(ca.Moments) != len(cb.Moments) {
		t.Fatalf("checkpoints: %d and %d steps, %d and %d parameters, %d and %d moments",
			ca.OptSteps, cb.OptSteps, len(ca.Params), len(cb.Params), len(ca.Moments), len(cb.Moments))
	}
	for i, x := range append(ca.Params, ca.Moments...) {
		y := append(cb.Params, cb.Moments...)[i]
		if x.Name != y.Name || !slices.Equal(x.Values, y.Values) {
			t.Fatalf("checkpoints: array %s differs", x.Name)
		}
	}
}

func dropLastColumn(tsv []byte) []byte {
	var out []string
	for _, l := range strings.Split(string(tsv), "\n") {
		if i := strings.LastIndexByte(l, '\t'); i >= 0 {
			l = l[:i]
		}
		out = append(out, l)
	}
	return []byte(strings.Join(out, "\n"))
}

// A run killed at random batches (kill -9: only what is on disk
// survives) resumes from its last checkpoint and ends bit-identical to
// the uninterrupted run: the checkpoints inside an epoch carry the
// epoch's generators. The kill is the run directory's files copied aside
// after a batch, with a checkpoint before every batch.
func TestKilledRunResumesBitIdentical(t *testing.T) {
	d := syntheticData(t, 40, 30, 30)
	cfg := smallConfig(SCosRec, 0, 0)
	dir := t.TempDir()
	full := filepath.Join(dir, "full")
	o := resumeOpts(d, &cfg, full, 9)
	o.CheckpointEvery = time.Nanosecond
	per := batchesPerEpoch(o)
	total := o.Epochs * per
	// Three kills: one at an epoch's first batch, two anywhere.
	kills := []int{per*rand.IntN(o.Epochs) + 1, 1 + rand.IntN(total), 1 + rand.IntN(total)}
	saved := map[int]map[string][]byte{}
	step := 0
	o.OnBatch = func(float64) {
		step++
		if !slices.Contains(kills, step) {
			return
		}
		saved[step] = map[string][]byte{}
		for _, f := range []string{CheckpointFile, ModelFile, LogFile} {
			if b, err := os.ReadFile(filepath.Join(full, f)); err == nil {
				saved[step][f] = b
			}
		}
	}
	if _, err := Train(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	if step != total {
		t.Fatalf("%d batches, want %d", step, total)
	}
	for k, files := range saved {
		part := filepath.Join(dir, "part", strconv.Itoa(k))
		os.MkdirAll(part, 0o755)
		for f, b := range files {
			if err := os.WriteFile(filepath.Join(part, f), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		st, err := loop.Info(part, nil)
		if err != nil || st.Steps != k-1 || st.Round != (k-1)/per+1 || st.Next != (k-1)%per {
			t.Fatalf("checkpoint at the kill after batch %d: %d steps, epoch %d, batch %d of it, %v", k, st.Steps, st.Round, st.Next, err)
		}
		r := resumeOpts(d, &cfg, part, 9)
		r.Resume, r.Seed, r.Workers = true, 0, 0
		if _, err := Train(context.Background(), r); err != nil {
			t.Fatal(err)
		}
		t.Logf("killed after batch %d of %d, resumed", k, total)
		sameRun(t, full, part)
	}
}

// A run interrupted (SIGINT: ctx cancelled) at random batches checkpoints
// the step reached and, resumed, ends bit-identical to the uninterrupted
// run. A resume with other batches is refused.
func TestInterruptedRunResumesBitIdentical(t *testing.T) {
	d := syntheticData(t, 40, 30, 30)
	cfg := smallConfig(SCosRec, 0, 0)
	dir := t.TempDir()
	const epochs = 4
	full := filepath.Join(dir, "full")
	if _, err := Train(context.Background(), resumeOpts(d, &cfg, full, epochs)); err != nil {
		t.Fatal(err)
	}
	part := filepath.Join(dir, "part")
	per := batchesPerEpoch(resumeOpts(d, &cfg, part, epochs))
	total := epochs * per
	k1 := 1 + rand.IntN(total/2)
	k2 := k1 + 1 + rand.IntN(total-k1-1)
	done := 0 // batches of the run before this session
	for _, stop := range []int{k1, k2, 0} {
		ctx, cancel := context.WithCancel(context.Background())
		o := resumeOpts(d, &cfg, part, epochs)
		if done > 0 {
			o.Resume, o.Seed, o.Workers = true, 0, 0
		}
		step, left := done, 0
		o.OnEpochStart = func(_, batches int) { left += batches }
		o.OnBatch = func(float64) {
			if step++; step == stop {
				cancel()
			}
		}
		_, err := Train(ctx, o)
		cancel()
		if stop == 0 {
			if err != nil {
				t.Fatal(err)
			}
			if left != total-done {
				t.Errorf("resumed after batch %d: the epochs' starts announce %d batches, %d are left", done, left, total-done)
			}
			break
		}
		if err != ErrInterrupted || !errors.Is(err, loop.ErrInterrupted) {
			t.Fatalf("cancelled after batch %d: %v", stop, err)
		}
		st, err := loop.Info(part, nil)
		if err != nil || st.Steps != stop || st.Round != stop/per+1 || st.Next != stop%per || st.LossN != stop%per {
			t.Fatalf("checkpoint after cancelling after batch %d: %d steps, epoch %d, batch %d of it, %d losses; %v",
				stop, st.Steps, st.Round, st.Next, st.LossN, err)
		}
		t.Logf("interrupted after batch %d of %d", stop, total)
		done = stop
	}
	sameRun(t, full, part)
	o := resumeOpts(d, &cfg, part, epochs+1)
	o.Resume, o.Batch = true, 64
	if _, err := Train(context.Background(), o); err == nil || !strings.Contains(err.Error(), "--batch 64 differs from the checkpoint's 32") {
		t.Errorf("resume with other batches: %v", err)
	}
}

// A checkpoint written before the shared training loop (testdata/
// legacy-run: by the code of commit 1a0c71c, resumeOpts for 10 epochs,
// the rate decayed once and one bad epoch since the best MAP) is read,
// and resumed with more epochs it trains on as the uninterrupted run.
func TestLegacyCheckpoint(t *testing.T) {
	src := filepath.Join("testdata", "legacy-run")
	secs, epochs, done, err := RunInfo(src)
	if err != nil || epochs != 10 || !done || !(secs > 0) {
		t.Fatalf("RunInfo: %g s, %d epochs, done %v, %v", secs, epochs, done, err)
	}
	d := syntheticData(t, 40, 30, 30)
	cfg := smallConfig(SCosRec, 0, 0)
	dir := t.TempDir()
	part := filepath.Join(dir, "part")
	o := resumeOpts(d, &cfg, part, 14)
	o.defaults()
	per := batchesPerEpoch(o)
	st, err := loop.Info(src, legacy(&o))
	if err != nil {
		t.Fatal(err)
	}
	if st.Round != 11 || st.Next != 0 || st.Steps != 10*per || st.BestRound != 9 || st.Best != 1 || st.Bad != 1 || !st.Done ||
		len(st.Log) != 10 || st.Log[9].Step != 10*per || st.Log[7].LR != 0.015 || st.Log[6].LR != 0.03 {
		t.Fatalf("legacy state: %+v", st)
	}
	var p loop.Plateau
	if err := json.Unmarshal(st.Schedule, &p); err != nil {
		t.Fatal(err)
	}
	if want := (loop.Plateau{LR: 0.015, Factor: 0.5, Patience: 1, Threshold: 1e-4, Best: 1, Seen: true, Bad: 1}); p != want {
		t.Fatalf("legacy schedule %+v, want %+v", p, want)
	}
	os.MkdirAll(part, 0o755)
	for _, f := range []string{CheckpointFile, ModelFile, LogFile} {
		b, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(part, f), b, 0o644)
	}
	o.Resume, o.Seed, o.Workers = true, 0, 0
	res, err := Train(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Log) != 14 || res.Log[9].ValMAP != 1 || res.Log[10].LR != 0.015 {
		t.Fatalf("resumed legacy run: %+v", res.Log)
	}
	old, _ := os.ReadFile(filepath.Join(src, LogFile))
	now, _ := os.ReadFile(filepath.Join(part, LogFile))
	if a, b := dropLastColumn(old), dropLastColumn(now); !bytes.HasPrefix(b, a[:len(a)-1]) {
		t.Errorf("the resumed log does not begin with the legacy one:\n%s\n%s", a, b)
	}
	// The run's first 10 epochs were computed on amd64; other
	// architectures may fuse multiply-adds and train otherwise.
	if runtime.GOARCH != "amd64" {
		t.Skipf("bit-identity with the legacy run is checked on amd64 only (this is %s)", runtime.GOARCH)
	}
	full := filepath.Join(dir, "full")
	if _, err := Train(context.Background(), resumeOpts(d, &cfg, full, 14)); err != nil {
		t.Fatal(err)
	}
	sameRun(t, full, part)
}

// A resumed run's settings are checked against its
// checkpoint's: another learning rate, L2 decay or data is refused,
// naming the setting and both values; the same data under another name
// and more epochs go on with a note; settings left zero take the
// checkpoint's.
func TestResumeChecksSettings(t *testing.T) {
	d := syntheticData(t, 40, 30, 30)
	cfg := smallConfig(SCosRec, 0, 0)
	dir := filepath.Join(t.TempDir(), "run")
	o := resumeOpts(d, &cfg, dir, 1)
	o.DataName, o.L2 = "ratings-a", 1e-4
	if _, err := Train(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	resume := func(edit func(*TrainOptions)) ([]string, error) {
		r := TrainOptions{Data: d, DataName: "ratings-a", Out: dir, Kind: SCosRec, Config: &cfg, Resume: true}
		var notes []string
		r.OnNote = func(n string) { notes = append(notes, n) }
		edit(&r)
		_, err := Train(context.Background(), r)
		return notes, err
	}
	other := syntheticData(t, 41, 30, 30)
	for _, c := range []struct {
		edit func(*TrainOptions)
		want string
	}{
		{func(r *TrainOptions) { r.LR = 0.01 }, "--lr 0.01 differs from the checkpoint's 0.03"},
		{func(r *TrainOptions) { r.L2 = 5e-6 }, "--l2 5e-06 differs from the checkpoint's 0.0001"},
		{func(r *TrainOptions) { r.Data, r.DataName = other, "ratings-b" }, "the ratings of --data ratings-b"},
	} {
		if _, err := resume(c.edit); err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "--force") {
			t.Errorf("want an error saying %q, got %v", c.want, err)
		}
	}
	notes, err := resume(func(r *TrainOptions) { r.DataName, r.Epochs = "moved/ratings-a", 2 })
	if err != nil {
		t.Fatal(err)
	}
	all := strings.Join(notes, "\n")
	for _, w := range []string{"--data moved/ratings-a: the checkpoint's run read ratings-a", "--epochs 2: the checkpoint's run had 1"} {
		if !strings.Contains(all, w) {
			t.Errorf("notes %q do not say %q", all, w)
		}
	}
	var ts taskState
	if err := loop.ReadTask(dir, 0, nil, &ts); err != nil || ts.LR != 3e-2 || ts.L2 != 1e-4 || ts.Batch != 32 || ts.Epochs != 2 {
		t.Fatalf("the resumed run's settings: %+v, %v", ts, err)
	}
}

// A batch larger than the epoch (math.MaxInt overflowed the
// count of batches to none) is one batch an epoch.
func TestHugeBatch(t *testing.T) {
	d := syntheticData(t, 40, 30, 30)
	cfg := smallConfig(SCosRec, 0, 0)
	o := resumeOpts(d, &cfg, t.TempDir(), 2)
	o.Batch = math.MaxInt
	res, err := Train(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if st, err := loop.Info(o.Out, nil); err != nil || st.Steps != 2 || res.Epochs != 2 {
		t.Fatalf("%d epochs, %d steps, %v; want 2 and 2", res.Epochs, st.Steps, err)
	}
}
