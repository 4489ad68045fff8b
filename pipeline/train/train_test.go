package train

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/contactmap/contactmap/pdb"
	"github.com/contactmap/contactmap/pipeline/model"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/contactmap/contactmap/pipeline/features"
	"github.com/contactmap/contactmap/scnn"
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

// A run interrupted mid-epoch, in the first epoch (before any validation)
// or a later one, and resumed from its checkpoint ends with the same
// parameters and optimiser state, bit for bit, as an uninterrupted run.
func TestResumeMatchesUninterrupted(t *testing.T) {
	full := tinyOptions(t, model.SCNN)
	full.MaxEpochs = 3
	if _, err := Train(context.Background(), full); err != nil {
		t.Fatal(err)
	}
	want := checkpointArrays(t, full.Out)
	for _, stopAt := range []int{1, 4} { // 3 batches per epoch: epoch 1 and epoch 2
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
			part.OnBatch = nil
			part.Resume = true
			part.Seed, part.Workers = 0, 0 // the checkpoint's
			if _, err := Train(context.Background(), part); err != nil {
				t.Fatal(err)
			}
			got := checkpointArrays(t, part.Out)
			if len(got) != len(want) {
				t.Fatalf("%d arrays, want %d", len(got), len(want))
			}
			adam := 0
			for i, a := range want {
				b := got[i]
				if a.Name != b.Name || len(a.Values) != len(b.Values) {
					t.Fatalf("array %d: %s vs %s", i, a.Name, b.Name)
				}
				if strings.HasPrefix(a.Name, "adam.") {
					adam++
				}
				for k := range a.Values {
					if a.Values[k] != b.Values[k] {
						t.Fatalf("%s[%d] differs after resume: %v vs %v", a.Name, k, a.Values[k], b.Values[k])
					}
				}
			}
			if adam == 0 {
				t.Fatal("the checkpoint holds no optimiser state")
			}
			ma, _ := os.ReadFile(filepath.Join(full.Out, ModelFile))
			mb, _ := os.ReadFile(filepath.Join(part.Out, ModelFile))
			if len(ma) == 0 || !bytes.Equal(ma, mb) {
				t.Error("best models differ")
			}
		})
	}
}

// checkpointArrays reads every array of a run's checkpoint: parameters,
// Adam's moments and step count.
func checkpointArrays(t *testing.T, dir string) []scnn.Array {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, CheckpointFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	_, arrays, err := scnn.ReadParams(f)
	if err != nil {
		t.Fatal(err)
	}
	return arrays
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
// is validated and logged, the run is finished, and a resumed finished
// run trains no more. Budgets of 5-10 clock readings (every reading
// advances the fake clock one second; 3 batches an epoch) cut some epoch
// short.
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

// A run killed after a mid-epoch checkpoint (the file copied away at
// that moment stands for what a kill leaves) resumes from it and ends
// where an uninterrupted run ends.
func TestMidEpochCheckpointResumes(t *testing.T) {
	full := tinyOptions(t, model.CNN)
	full.MaxEpochs = 2
	if _, err := Train(context.Background(), full); err != nil {
		t.Fatal(err)
	}
	want := checkpointArrays(t, full.Out)

	o := tinyOptions(t, model.CNN)
	o.MaxEpochs = 2
	o.CheckpointEvery = time.Nanosecond
	o.clock = fakeClock(time.Second)
	killed := t.TempDir()
	batches := 0
	o.OnBatch = func(float64) {
		// After batch 2 of epoch 1 has run, the checkpoint holds batch 1's
		// state (written before batch 2).
		if batches++; batches == 2 {
			b, err := os.ReadFile(filepath.Join(o.Out, CheckpointFile))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(killed, CheckpointFile), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := Train(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	if got := checkpointArrays(t, o.Out); !sameArrays(got, want) {
		t.Fatal("mid-epoch checkpoints changed the run")
	}
	o.Out, o.OnBatch, o.Resume, o.Seed, o.Workers, o.CheckpointEvery = killed, nil, true, 0, 0, 0
	if _, err := Train(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	if got := checkpointArrays(t, killed); !sameArrays(got, want) {
		t.Fatal("the run resumed from a mid-epoch checkpoint ends elsewhere")
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
