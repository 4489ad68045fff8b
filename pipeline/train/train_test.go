package train

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/contactmap/contactmap/pdb"
	"github.com/contactmap/contactmap/pipeline/model"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/contactmap/contactmap/pipeline/features"
	"github.com/contactmap/contactmap/scnn"
	"github.com/contactmap/contactmap/scnn/loop"
	"github.com/contactmap/contactmap/scnn/loop/checkpoint"
)

var (
	tinyOnce sync.Once
	tinyDir  string
	tinyErr  error
)

// tinyFeatures builds the features of 14 real short chains (testdata/tiny.list)
// once per test binary.
func tinyFeatures(t *testing.T) string {
	t.Helper()
	tinyOnce.Do(func() {
		tinyDir, tinyErr = os.MkdirTemp("", "contactmap-tiny")
		if tinyErr != nil {
			return
		}
		_, tinyErr = features.Run(context.Background(), features.Config{List: "testdata/tiny.list", PDBDir: "../../data/pdb",
			Out: tinyDir, MinLen: 1, MaxLen: 1000, Workers: 2, Seed: 1})
	})
	if tinyErr != nil {
		t.Fatal(tinyErr)
	}
	return tinyDir
}

func tinyOptions(t *testing.T, kind model.Kind) Options {
	a := model.DefaultArch(kind)
	a.Blocks, a.Width, a.Head, a.HeadWidth, a.LSTMHidden = [][]int{{5, 3}, {3}}, 6, []int{3, 3}, 6, 6
	return Options{Features: tinyFeatures(t), Out: t.TempDir(), Arch: a, Seed: 7, MaxEpochs: 6, Patience: 100,
		Workers: 2, TrainSplit: "all", ValSplit: "all", BatchSize: 5}
}

func TestTinyTrainingLossDrops(t *testing.T) {
	for _, kind := range []model.Kind{model.CNN, model.SCNN} {
		t.Run(string(kind), func(t *testing.T) {
			o := tinyOptions(t, kind) // the paper's learning rates
			o.MaxEpochs = 10
			res, err := Train(context.Background(), o)
			if err != nil {
				t.Fatal(err)
			}
			first, last := res.Log[0].TrainLoss, res.Log[len(res.Log)-1].TrainLoss
			t.Logf("%s: train loss %.4f -> %.4f, validation %.4f -> %.4f", kind, first, last, res.Log[0].ValLoss, res.Log[len(res.Log)-1].ValLoss)
			if !(last < 0.8*first) {
				t.Errorf("loss did not drop markedly: %.4f -> %.4f", first, last)
			}
			for _, f := range []string{ModelFile, CheckpointFile, LogFile, PlotFile} {
				if st, err := os.Stat(filepath.Join(o.Out, f)); err != nil || st.Size() == 0 {
					t.Errorf("%s missing: %v", f, err)
				}
			}
			if done, err := Finished(o.Out); err != nil || !done {
				t.Errorf("Finished(%s) = %v, %v after the run ended", o.Out, done, err)
			}
			m, err := model.LoadModel(res.Model)
			if err != nil {
				t.Fatal(err)
			}
			if m.Arch.Mode != features.SeqMode || m.Arch.Data == "" || m.Trainable() != res.Params {
				t.Errorf("model file arch %+v", m.Arch)
			}
		})
	}
}

// A run interrupted (SIGINT: the context cancelled) mid-epoch, in the
// first epoch (before any validation), a later one, or at a random batch,
// and resumed from its checkpoint ends with the same parameters and
// optimiser state, bit for bit, as an uninterrupted run, the same best
// model and the same log but for the seconds.
func TestResumeMatchesUninterrupted(t *testing.T) {
	full := tinyOptions(t, model.SCNN)
	full.MaxEpochs = 3
	if _, err := Train(context.Background(), full); err != nil {
		t.Fatal(err)
	}
	want := loadCheckpoint(t, full.Out)
	if len(want.Moments) == 0 || want.OptSteps != 9 {
		t.Fatalf("the checkpoint holds %d optimiser arrays, %d steps", len(want.Moments), want.OptSteps)
	}
	for _, stopAt := range []int{1, 4, 1 + rand.IntN(8)} { // 3 batches per epoch: epoch 1, epoch 2, anywhere before the last (9: the run ends, no interruption)
		t.Run(fmt.Sprintf("after batch %d", stopAt), func(t *testing.T) {
			part := tinyOptions(t, model.SCNN)
			part.MaxEpochs = 3
			ctx, cancel := context.WithCancel(context.Background())
			batches := 0
			part.OnBatch = func(float64) {
				if batches++; batches == stopAt {
					cancel()
				}
			}
			if _, err := Train(ctx, part); !errors.Is(err, ErrInterrupted) {
				t.Fatalf("interrupted run: %v", err)
			}
			if st, err := Info(part.Out); err != nil || st.Steps != stopAt || st.Done {
				t.Fatalf("checkpoint of the interrupted run: %d steps, done %v, %v; want %d steps", st.Steps, st.Done, err, stopAt)
			}
			if done, err := Finished(part.Out); err != nil || done {
				t.Errorf("Finished = %v, %v for an interrupted run", done, err)
			}
			part.OnBatch = nil
			part.Resume = true
			part.Seed, part.Workers = 0, 0 // the checkpoint's
			if _, err := Train(context.Background(), part); err != nil {
				t.Fatal(err)
			}
			sameRun(t, full.Out, part.Out)
		})
	}
}

// loadCheckpoint reads a run's checkpoint: parameters, optimiser state,
// loop and task states.
func loadCheckpoint(t *testing.T, dir string) *checkpoint.Checkpoint {
	t.Helper()
	c, err := checkpoint.Load(filepath.Join(dir, CheckpointFile))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// sameCheckpoint reports whether two checkpoints hold the same
// parameters and optimiser state, bit for bit.
func sameCheckpoint(a, b *checkpoint.Checkpoint) bool {
	return a.OptType == b.OptType && a.OptSteps == b.OptSteps && sameArrays(a.Params, b.Params) && sameArrays(a.Moments, b.Moments)
}

// sameRun fails unless the runs in dirs a and b end alike: checkpointed
// parameters and optimiser state, best model file and log (but its
// seconds column).
func sameRun(t *testing.T, a, b string) {
	t.Helper()
	if !sameCheckpoint(loadCheckpoint(t, a), loadCheckpoint(t, b)) {
		t.Fatal("the checkpoints' parameters or optimiser states differ")
	}
	ma, _ := os.ReadFile(filepath.Join(a, ModelFile))
	mb, _ := os.ReadFile(filepath.Join(b, ModelFile))
	if len(ma) == 0 || !bytes.Equal(ma, mb) {
		t.Error("best models differ")
	}
	la, _ := os.ReadFile(filepath.Join(a, LogFile))
	lb, _ := os.ReadFile(filepath.Join(b, LogFile))
	if la, lb = dropLastColumn(la), dropLastColumn(lb); len(la) == 0 || !bytes.Equal(la, lb) {
		t.Errorf("logs differ:\n%s\n%s", la, lb)
	}
}

// dropLastColumn removes the last tab-separated column of each line.
func dropLastColumn(b []byte) []byte {
	lines := strings.Split(string(b), "\n")
	for i, l := range lines {
		if k := strings.LastIndex(l, "\t"); k >= 0 {
			lines[i] = l[:k]
		}
	}
	return []byte(strings.Join(lines, "\n"))
}

// Resume refuses another seed or worker count than the checkpoint's; a
// new run refuses a directory holding one unless forced.
func TestRunDirectoryRules(t *testing.T) {
	o := tinyOptions(t, model.SCNN)
	o.MaxEpochs = 1
	if _, err := Train(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	if _, err := Train(context.Background(), o); !errors.Is(err, ErrRunExists) {
		t.Errorf("second run into the same directory: %v", err)
	}
	r := o
	r.Resume, r.MaxEpochs = true, 2
	r.Seed = 8
	if _, err := Train(context.Background(), r); err == nil || !strings.Contains(err.Error(), "seed 7") {
		t.Errorf("resume with another seed: %v", err)
	}
	r.Seed, r.Workers = 7, 1
	if _, err := Train(context.Background(), r); err == nil || !strings.Contains(err.Error(), "2 workers") {
		t.Errorf("resume with other workers: %v", err)
	}
	os.WriteFile(filepath.Join(o.Out, ".checkpoint.scnn.tmp123"), []byte("partial"), 0o644)
	f := o
	f.Force = true
	if _, err := Train(context.Background(), f); err != nil {
		t.Errorf("forced: %v", err)
	}
	if left, _ := filepath.Glob(filepath.Join(o.Out, ".*tmp*")); len(left) != 0 {
		t.Errorf("stale temporary files left: %v", left)
	}
	n := tinyOptions(t, model.SCNN)
	n.Resume = true
	if _, err := Train(context.Background(), n); err == nil || !strings.Contains(err.Error(), "no checkpoint.scnn") {
		t.Errorf("resume without a checkpoint: %v", err)
	}
}

// model.SCNN predictions are exactly symmetric; both models give a chain the
// same prediction alone and padded in a batch (inference mode).
func TestPredictionsSymmetricAndPaddingInvariant(t *testing.T) {
	samples, _, err := LoadSplit(tinyFeatures(t), "all")
	if err != nil {
		t.Fatal(err)
	}
	for _, kind := range []model.Kind{model.CNN, model.SCNN} {
		m, err := model.NewModel(tinyOptions(t, kind).Arch, 3)
		if err != nil {
			t.Fatal(err)
		}
		// Give batchnorm non-trivial running statistics.
		if _, err := m.Forward(scnn.Training(2), model.NewBatch(samples[:6], m.Packed())); err != nil {
			t.Fatal(err)
		}
		batch := model.NewBatch(samples[:6], m.Packed())
		logits, err := m.Forward(nil, batch)
		if err != nil {
			t.Fatal(err)
		}
		probs := model.Probabilities(logits, batch.Lengths)
		if kind == model.SCNN {
			full, _ := scnn.Unpack(logits)
			if a := scnn.MaxAbsAsymmetry(full); a != 0 {
				t.Errorf("SCNN logits asymmetric by %g", a)
			}
			for k, p := range probs {
				l := batch.Lengths[k]
				for i := 0; i < l; i++ {
					for j := 0; j < l; j++ {
						if p[i*l+j] != p[j*l+i] {
							t.Fatalf("SCNN probability (%d,%d) != (%d,%d)", i, j, j, i)
						}
					}
				}
			}
		}
		for k := range samples[:6] {
			alone := model.NewBatch(samples[k:k+1], m.Packed())
			lg, err := m.Forward(nil, alone)
			if err != nil {
				t.Fatal(err)
			}
			pa := model.Probabilities(lg, alone.Lengths)[0]
			worst := 0.0
			for i := range pa {
				worst = math.Max(worst, math.Abs(float64(pa[i]-probs[k][i])))
			}
			if worst > 1e-5 {
				t.Errorf("%s %s: padding changed the prediction by %g", kind, samples[k].ID, worst)
			}
		}
	}
}

func TestArchitecturesAndParameterCounts(t *testing.T) {
	counts := map[string]int{}
	for _, cfg := range []string{"default", "paper"} {
		for _, kind := range []model.Kind{model.CNN, model.SCNN} {
			a, err := model.ArchByName(kind, cfg)
			if err != nil {
				t.Fatal(err)
			}
			m, err := model.NewModel(a, 1)
			if err != nil {
				t.Fatal(err)
			}
			counts[cfg+string(kind)] = m.Trainable()
		}
	}
	t.Logf("trainable parameters: %v", counts)
	if c := float64(counts["papercnn"]); math.Abs(c-2.465e6)/2.465e6 > 0.15 {
		t.Errorf("paper model.CNN has %v parameters, want 2.465M within 15%%", c)
	}
	for _, cfg := range []string{"default", "paper"} {
		if r := float64(counts[cfg+"scnn"]) / float64(counts[cfg+"cnn"]); r > 0.75 {
			t.Errorf("%s: model.SCNN/model.CNN parameter ratio %.2f", cfg, r)
		}
	}
	if _, err := model.ArchByName("rnn", "default"); err == nil {
		t.Error("unknown kind accepted")
	}
}

func TestLoadSplitVerifiesChecksums(t *testing.T) {
	src := tinyFeatures(t)
	dir := t.TempDir()
	files, _ := filepath.Glob(filepath.Join(src, "*"))
	for _, f := range files {
		b, _ := os.ReadFile(f)
		os.WriteFile(filepath.Join(dir, filepath.Base(f)), b, 0o644)
	}
	if _, _, err := LoadSplit(dir, "all"); err != nil {
		t.Fatal(err)
	}
	entries, _ := features.ReadManifest(filepath.Join(dir, "manifest.tsv"))
	// Replace one file by another chain's valid file: only the checksum can tell.
	a, _ := os.ReadFile(filepath.Join(dir, entries[1].File))
	os.WriteFile(filepath.Join(dir, entries[0].File), a, 0o644)
	if _, _, err := LoadSplit(dir, "all"); err == nil || !strings.Contains(err.Error(), "checksum") {
		t.Errorf("swapped file accepted: %v", err)
	}
}

// A model is not evaluated on features whose labels are another contact
// definition than it was trained on.
func TestEvaluateRefusesOtherLabels(t *testing.T) {
	samples, _, err := LoadSplit(tinyFeatures(t), "all")
	if err != nil {
		t.Fatal(err)
	}
	a := tinyOptions(t, model.SCNN).Arch
	a.Mode = features.SeqMode
	a.Labels = pdb.ContactDef{Atoms: pdb.CBeta, Cutoff: 8}
	m, err := model.NewModel(a, 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := EvaluateModel(m, samples, 5); err == nil || !strings.Contains(err.Error(), "C-beta") {
		t.Errorf("C-beta model on C-alpha features: %v", err)
	}
}

// fakeClock advances by step at every reading.
func fakeClock(step time.Duration) func() time.Time {
	var mu sync.Mutex
	t := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	return func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		t = t.Add(step)
		return t
	}
}

// A budget ends the run, inside an epoch or at its end: a partial epoch
// is validated and logged, the run is finished for Finished, and a
// resumed run with the same budget trains no more. The loop reads the
// fake clock (one second a reading) 3 times at the start, twice a batch
// and 4 times at an epoch's end (3 batches an epoch): budgets of 5-10
// seconds stop after 1, 2 or 3 batches.
func TestBudgetStopsTheRun(t *testing.T) {
	partial := 0
	for budget := 5; budget <= 10; budget++ {
		o := tinyOptions(t, model.SCNN)
		o.MaxEpochs = 10
		o.clock = fakeClock(time.Second)
		o.Budget = time.Duration(budget) * time.Second
		batches := 0
		o.OnBatch = func(float64) { batches++ }
		res, err := Train(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("budget %ds: %d batches, %d epochs, %s", budget, batches, len(res.Log), res.Stop)
		if !strings.Contains(res.Stop, "time budget") || len(res.Log) >= o.MaxEpochs {
			t.Fatalf("budget %v: stop %q after %d epochs", o.Budget, res.Stop, len(res.Log))
		}
		if batches%3 != 0 {
			partial++
		}
		if want := (batches + 2) / 3; len(res.Log) != want || batches == 0 {
			t.Errorf("budget %v: %d epochs logged for %d batches, want %d", o.Budget, len(res.Log), batches, want)
		}
		if res.Seconds < o.Budget.Seconds() {
			t.Errorf("budget %v: stopped after %.0f s", o.Budget, res.Seconds)
		}
		if done, err := Finished(o.Out); err != nil || !done {
			t.Errorf("budget %v: Finished = %v, %v", o.Budget, done, err)
		}
		if _, err := os.Stat(filepath.Join(o.Out, ModelFile)); err != nil {
			t.Error(err)
		}
		o.Resume, o.Seed, o.Workers = true, 0, 0
		o.OnBatch = func(float64) { t.Errorf("budget %v: a finished run trained on", o.Budget) }
		if _, err := Train(context.Background(), o); err != nil {
			t.Fatal(err)
		}
	}
	if partial == 0 {
		t.Error("no budget cut an epoch short")
	}
}

// A run stopped by its budget inside an epoch and resumed with a larger
// one continues from the batch it stopped at, and ends with the
// parameters of an uninterrupted run (its best model may differ: the
// partial epoch was validated).
func TestBudgetResumedWithMore(t *testing.T) {
	full := tinyOptions(t, model.CNN)
	full.MaxEpochs = 2
	if _, err := Train(context.Background(), full); err != nil {
		t.Fatal(err)
	}
	o := tinyOptions(t, model.CNN)
	o.MaxEpochs = 2
	o.clock = fakeClock(time.Second)
	o.Budget = 6 * time.Second // 2 batches (TestBudgetStopsTheRun)
	batches := 0
	o.OnBatch = func(float64) { batches++ }
	res, err := Train(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if batches != 2 || len(res.Log) != 1 || !strings.Contains(res.Stop, "time budget") {
		t.Fatalf("first session: %d batches, %d validations, %q", batches, len(res.Log), res.Stop)
	}
	o.Resume, o.Seed, o.Workers, o.Budget = true, 0, 0, time.Hour
	if res, err = Train(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	if batches != 6 || len(res.Log) != 3 || res.Stop != "reached 2 epochs" {
		t.Fatalf("resumed: %d batches in all, %d validations, %q", batches, len(res.Log), res.Stop)
	}
	if !sameCheckpoint(loadCheckpoint(t, full.Out), loadCheckpoint(t, o.Out)) {
		t.Error("the run resumed with a larger budget ends elsewhere than an uninterrupted one")
	}
}

// A run killed (kill -9) at a random batch, whose files copied away at
// that moment stand for what a kill leaves, resumes from its last
// checkpoint (written before every batch here) and ends as an
// uninterrupted run: parameters, best model and log but the seconds.
// Checkpoints inside epochs do not change the run.
func TestKilledRunResumesBitIdentical(t *testing.T) {
	full := tinyOptions(t, model.CNN)
	full.MaxEpochs = 2
	if _, err := Train(context.Background(), full); err != nil {
		t.Fatal(err)
	}
	o := tinyOptions(t, model.CNN)
	o.MaxEpochs = 2
	o.CheckpointEvery = time.Nanosecond
	killed := t.TempDir()
	killAt := 1 + rand.IntN(6) // 3 batches an epoch
	batches := 0
	o.OnBatch = func(float64) {
		if batches++; batches == killAt {
			for _, f := range []string{CheckpointFile, ModelFile, LogFile, PlotFile} {
				if b, err := os.ReadFile(filepath.Join(o.Out, f)); err == nil {
					if err := os.WriteFile(filepath.Join(killed, f), b, 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
		}
	}
	if _, err := Train(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	sameRun(t, full.Out, o.Out)
	// The checkpoint on disk was written before the batch killAt.
	if st, err := loop.Info(killed, nil); err != nil || st.Steps != killAt-1 {
		t.Fatalf("checkpoint at the kill (batch %d): %d steps, %v", killAt, st.Steps, err)
	}
	o.Out, o.OnBatch, o.Resume, o.Seed, o.Workers, o.CheckpointEvery = killed, nil, true, 0, 0, 0
	if _, err := Train(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	sameRun(t, full.Out, killed)
}

// A checkpoint of the format written before the shared training loop
// (the run's state as the whole record, Adam's state under "adam."
// names) resumes as the run it was: here an interrupted run's checkpoint
// rewritten in the old layout, inside an epoch after a validation without
// a lower loss (the plateau count at 1), ends as an uninterrupted run.
func TestLegacyCheckpoint(t *testing.T) {
	opts := func() Options {
		o := tinyOptions(t, model.SCNN)
		o.MaxEpochs, o.LR = 5, 0.03 // validation losses that rise (TestLegacyCheckpoint's premise)
		return o
	}
	full := opts()
	if _, err := Train(context.Background(), full); err != nil {
		t.Fatal(err)
	}
	part := opts()
	ctx, cancel := context.WithCancel(context.Background())
	batches := 0
	part.OnBatch = func(float64) {
		if batches++; batches == 10 { // epoch 4, batch 1
			cancel()
		}
	}
	if _, err := Train(ctx, part); !errors.Is(err, ErrInterrupted) {
		t.Fatalf("interrupted run: %v", err)
	}
	writeLegacyCheckpoint(t, part.Out)
	if c := loadCheckpoint(t, part.Out); c.Format != 0 {
		t.Fatalf("checkpoint format %d, want 0", c.Format)
	}
	st, err := Info(part.Out)
	if err != nil || st.Round != 4 || st.Next != 1 || len(st.Log) != 3 || st.Done {
		t.Fatalf("legacy checkpoint: %+v, %v", st, err)
	}
	part.OnBatch, part.Resume, part.Seed, part.Workers = nil, true, 0, 0
	res, err := Train(context.Background(), part)
	if err != nil {
		t.Fatal(err)
	}
	if lr := res.Log[len(res.Log)-1].LR; lr >= part.LR {
		t.Errorf("the learning rate was never halved (%g): the test does not reach the plateau state", lr)
	}
	sameRun(t, full.Out, part.Out)
}

// writeLegacyCheckpoint rewrites a run's checkpoint in the layout of the
// training loop before package scnn/loop.
func writeLegacyCheckpoint(t *testing.T, dir string) {
	t.Helper()
	c := loadCheckpoint(t, dir)
	var st loop.State
	var p loop.Plateau
	var task struct {
		Arch    model.Arch `json:"arch"`
		Workers int        `json:"workers"`
	}
	if err := errors.Join(json.Unmarshal(c.Loop, &st), json.Unmarshal(st.Schedule, &p), json.Unmarshal(c.Task, &task)); err != nil {
		t.Fatal(err)
	}
	if p.Bad == 0 {
		t.Fatal("the plateau count is 0: the test does not reach the plateau state")
	}
	var log []map[string]any
	for _, e := range st.Log {
		log = append(log, map[string]any{"epoch": e.Round, "train_loss": e.TrainLoss, "val_loss": e.Values[0],
			"val_accuracy": e.Values[1], "val_long_top_l5": e.Values[2], "lr": e.LR, "seconds": e.Seconds})
	}
	rec, err := json.Marshal(map[string]any{"epoch": st.Round, "next_batch": st.Next, "loss_sum": st.LossSum, "loss_n": st.LossN,
		"best_val": st.Best, "best_epoch": st.BestRound, "bad_epochs": st.Bad, "flat_epochs": p.Bad, "lr": p.LR, "log": log,
		"seconds": st.Seconds, "done": st.Done, "arch": task.Arch, "workers": task.Workers})
	if err != nil {
		t.Fatal(err)
	}
	var arrays []*scnn.Param
	for _, a := range c.Params {
		arrays = append(arrays, &scnn.Param{Name: a.Name, Shape: a.Shape, Value: a.Values})
	}
	for _, a := range c.Moments { // m/<param>, v/<param>
		arrays = append(arrays, &scnn.Param{Name: "adam." + a.Name, Shape: a.Shape, Value: a.Values})
	}
	arrays = append(arrays, &scnn.Param{Name: "adam.t", Shape: []int{1}, Value: []float32{float32(c.OptSteps)}})
	var buf bytes.Buffer
	if err := scnn.WriteParams(&buf, rec, arrays); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, CheckpointFile), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func sameArrays(a, b []scnn.Array) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Name != b[i].Name || len(a[i].Values) != len(b[i].Values) {
			return false
		}
		for k := range a[i].Values {
			if a[i].Values[k] != b[i].Values[k] {
				return false
			}
		}
	}
	return true
}

// A bfloat16 run (the portable kernels, so any CPU runs it) records its
// precision in the checkpoint and the model file, trains other numbers
// than a float32 run of the same seed, restores the process's precision
// when it returns, and resumes only in its own precision.
func TestPrecisionRecordedAndKept(t *testing.T) {
	f32 := tinyOptions(t, model.SCNN)
	f32.MaxEpochs = 1
	if _, err := Train(context.Background(), f32); err != nil {
		t.Fatal(err)
	}
	bf := tinyOptions(t, model.SCNN)
	bf.MaxEpochs, bf.Precision = 1, "bfloat16/go"
	res, err := Train(context.Background(), bf)
	if err != nil {
		t.Fatal(err)
	}
	if p := scnn.GemmPrecision(); p != "float32" {
		t.Errorf("after the run the precision is %s", p)
	}
	m, err := model.LoadModel(res.Model)
	if err != nil {
		t.Fatal(err)
	}
	if m.Arch.Precision != "bfloat16/go" {
		t.Errorf("model file precision %q", m.Arch.Precision)
	}
	a, b := loadCheckpoint(t, f32.Out), loadCheckpoint(t, bf.Out)
	same := true
	for i := range a.Params {
		for j := range a.Params[i].Values {
			same = same && a.Params[i].Values[j] == b.Params[i].Values[j]
		}
	}
	if same {
		t.Error("the bfloat16 run's parameters equal the float32 run's")
	}
	bf.Resume, bf.MaxEpochs, bf.Precision = true, 2, "float32"
	if _, err := Train(context.Background(), bf); err == nil || !strings.Contains(err.Error(), "precision") {
		t.Fatalf("resuming a bfloat16 run in float32: %v", err)
	}
	bf.Precision = ""
	res, err = Train(context.Background(), bf)
	if err != nil {
		t.Fatal(err)
	}
	if m, err := model.LoadModel(res.Model); err != nil || m.Arch.Precision != "bfloat16/go" || res.Epochs != 2 {
		t.Fatalf("resumed run: %d epochs, precision %q, %v", res.Epochs, m.Arch.Precision, err)
	}
}

// A budget spent before the first batch of a new run (1ns)
// validates the untrained model and stops; whatever stops the session
// after that first model is written (the CLI's progress bar panicked in
// OnEpochEnd), the directory holds the checkpoint beside the model, so
// --resume with a larger budget continues the run, and so does a resume
// whose budget is below the time already spent (it stops again at once).
func TestBudgetStopLeavesResumableRun(t *testing.T) {
	o := tinyOptions(t, model.CNN)
	o.MaxEpochs = 2
	o.Budget = time.Nanosecond
	o.OnEpochEnd = func(EpochLog) { panic("the hook fails after the first model") }
	func() {
		defer func() { recover() }()
		Train(context.Background(), o)
	}()
	for _, f := range []string{ModelFile, CheckpointFile} {
		if _, err := os.Stat(filepath.Join(o.Out, f)); err != nil {
			t.Fatalf("after the stop: %v", err)
		}
	}
	o.OnEpochEnd, o.Resume, o.Seed, o.Workers = nil, true, 0, 0
	res, err := Train(context.Background(), o) // the checkpoint's budget: spent
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Stop, "time budget") {
		t.Fatalf("resumed with the spent budget: %q", res.Stop)
	}
	o.Budget = -1 // no limit
	batches := 0
	o.OnBatch = func(float64) { batches++ }
	if res, err = Train(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	if res.Stop != "reached 2 epochs" || batches != 6 {
		t.Fatalf("resumed without a budget: %q after %d batches", res.Stop, batches)
	}
}

// editTask rewrites the task state of the checkpoint in dir.
func editTask(t *testing.T, dir string, edit func(task map[string]any)) {
	t.Helper()
	path := filepath.Join(dir, CheckpointFile)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	raw, arrays, err := scnn.ReadParams(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	var rec map[string]any
	if err := json.Unmarshal(raw, &rec); err != nil {
		t.Fatal(err)
	}
	edit(rec["task"].(map[string]any))
	if raw, err = json.Marshal(rec); err != nil {
		t.Fatal(err)
	}
	var ps []*scnn.Param
	for _, a := range arrays {
		ps = append(ps, &scnn.Param{Name: a.Name, Shape: a.Shape, Value: a.Values})
	}
	var buf bytes.Buffer
	if err := scnn.WriteParams(&buf, raw, ps); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A resumed run's settings are checked against its
// checkpoint's: other data (another features directory, or the same one
// with other chains), another learning rate, batch size or L2 decay is
// refused, naming the setting and both values; the same data in another
// directory, more epochs, another patience or budget go on with a note;
// settings left zero take the checkpoint's; an older checkpoint that
// does not record them resumes, with notes.
func TestResumeChecksSettings(t *testing.T) {
	o := tinyOptions(t, model.CNN)
	o.MaxEpochs, o.LR, o.Patience = 1, 0.004, 50
	if _, err := Train(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	resume := func(edit func(*Options)) (*Result, []string, error) {
		r := o
		r.Resume, r.Seed, r.Workers, r.LR, r.Patience, r.MaxEpochs = true, 0, 0, 0, 0, 0
		var notes []string
		r.OnNote = func(n string) { notes = append(notes, n) }
		edit(&r)
		res, err := Train(context.Background(), r)
		return res, notes, err
	}
	// Another directory of the same chains, and one with a chain fewer.
	same, fewer := t.TempDir(), t.TempDir()
	entries, _ := os.ReadDir(o.Features)
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(o.Features, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(same, e.Name()), b, 0o644)
		if e.Name() == "manifest.tsv" {
			lines := strings.SplitAfter(string(b), "\n")
			b = []byte(strings.Join(append(lines[:2:2], lines[3:]...), "")) // the header, then all but the second chain
		}
		os.WriteFile(filepath.Join(fewer, e.Name()), b, 0o644)
	}
	for _, c := range []struct {
		edit func(*Options)
		want []string
	}{
		{func(r *Options) { r.LR = 0.01 }, []string{"--lr 0.01 differs from the checkpoint's 0.004", "--force"}},
		{func(r *Options) { r.BatchSize = 3 }, []string{"batch size 3 differs from the checkpoint's 5"}},
		{func(r *Options) { r.L2 = 1e-3 }, []string{"L2 decay 0.001 differs from the checkpoint's 1e-05"}},
		{func(r *Options) { r.Features = fewer }, []string{"the data of --features " + fewer, "differ from the checkpoint's (" + filepath.Clean(o.Features)}},
	} {
		_, _, err := resume(c.edit)
		for _, w := range c.want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("want an error saying %q, got %v", w, err)
			}
		}
	}
	res, notes, err := resume(func(r *Options) { r.Features, r.MaxEpochs, r.Patience, r.Budget = same, 2, 7, time.Hour })
	if err != nil {
		t.Fatal(err)
	}
	all := strings.Join(notes, "\n")
	for _, w := range []string{"--features " + same + ": the checkpoint's run read", "--epochs 2: the checkpoint's run had 1",
		"--patience 7: the checkpoint's run had 50", "--budget 1h0m0s: the checkpoint's run had none"} {
		if !strings.Contains(all, w) {
			t.Errorf("notes %q do not say %q", all, w)
		}
	}
	if res.Epochs != 2 {
		t.Errorf("resumed with --epochs 2: %d epochs", res.Epochs)
	}
	var ts taskState
	if err := loop.ReadTask(o.Out, 0, nil, &ts); err != nil || ts.Settings == nil || ts.Settings.LR != 0.004 || ts.Settings.Patience != 7 || ts.Settings.MaxEpochs != 2 {
		t.Fatalf("the resumed run's settings: %+v, %v", ts.Settings, err)
	}
	// An older checkpoint, without the settings: resumed with the data
	// it names, the settings as given.
	editTask(t, o.Out, func(task map[string]any) { delete(task, "settings") })
	_, notes, err = resume(func(r *Options) { r.MaxEpochs, r.LR = 3, 0.004 })
	if err != nil {
		t.Fatal(err)
	}
	if all := strings.Join(notes, "\n"); !strings.Contains(all, "--lr 0.004: the checkpoint (an older one) does not record it") {
		t.Errorf("older checkpoint: notes %q", all)
	}
}
