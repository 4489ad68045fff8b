package ssnet

import (
	"context"
	"errors"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/contactmap/contactmap/internal/modelkind"
	"github.com/contactmap/contactmap/scnn/loop"
)

// A resumed run's molecules and settings are checked against
// its checkpoint's: other training or validation molecules are refused,
// naming the flag and both files; the same molecules under another name,
// more steps and another budget go on with a note; steps and budget left
// zero take the checkpoint's.
func TestResumeChecksData(t *testing.T) {
	train, valid := realSets(t)
	p := tinyProtocol
	p.Steps, p.EvalEvery = 4, 2
	dir := filepath.Join(t.TempDir(), "run")
	opts := func() TrainOptions {
		return TrainOptions{Train: slices.Clone(train), Valid: slices.Clone(valid), DataName: "a.txt", ValidName: "v.txt",
			Out: dir, Kind: CNN, Protocol: p, Seed: 3, Workers: 1}
	}
	o := opts()
	o.Budget = time.Hour
	if _, _, err := Train(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	resume := func(edit func(*TrainOptions)) (*Result, []string, error) {
		r := opts()
		r.Resume, r.Seed, r.Workers, r.Protocol.Steps = true, 0, 0, 0
		var notes []string
		r.OnNote = func(n string) { notes = append(notes, n) }
		edit(&r)
		_, res, err := Train(context.Background(), r)
		return res, notes, err
	}
	for _, c := range []struct {
		edit func(*TrainOptions)
		want string
	}{
		{func(r *TrainOptions) { r.Train, r.DataName = r.Train[1:], "b.txt" }, "the molecules of --train b.txt"},
		{func(r *TrainOptions) { r.Valid = r.Valid[:1] }, "the molecules of --valid v.txt"},
	} {
		if _, _, err := resume(c.edit); err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "--force") {
			t.Errorf("want an error saying %q, got %v", c.want, err)
		}
	}
	res, notes, err := resume(func(r *TrainOptions) { r.DataName = "moved/a.txt" })
	if err != nil || res.Steps != 4 {
		t.Fatalf("resumed as it was: %+v, %v", res, err)
	}
	if all := strings.Join(notes, "\n"); !strings.Contains(all, "--train moved/a.txt: the checkpoint's run read a.txt") {
		t.Errorf("notes %q", all)
	}
	res, notes, err = resume(func(r *TrainOptions) { r.Protocol.Steps, r.Budget = 6, -1 })
	if err != nil || res.Steps != 6 {
		t.Fatalf("resumed with more steps: %+v, %v", res, err)
	}
	all := strings.Join(notes, "\n")
	for _, w := range []string{"--steps 6: the checkpoint's run had 4", "--budget none: the checkpoint's run had 1h0m0s"} {
		if !strings.Contains(all, w) {
			t.Errorf("notes %q do not say %q", all, w)
		}
	}
}

// A step count whose rounds overflowed ("loop:
// -6148914691236516 rounds") is refused with the protocol's steps; a
// budget spent before the first step stops the run with its checkpoint
// beside its model, and a resume without it continues.
func TestStepsOverflowAndBudgetStop(t *testing.T) {
	train, valid := realSets(t)
	p := tinyProtocol
	p.Steps = math.MaxInt
	o := TrainOptions{Train: train, Valid: valid, Out: t.TempDir(), Kind: CNN, Protocol: p, Workers: 1}
	if _, _, err := Train(context.Background(), o); err == nil || !strings.Contains(err.Error(), "steps") || strings.Contains(err.Error(), "rounds") {
		t.Errorf("%d steps: %v", p.Steps, err)
	}
	o.Protocol.Steps, o.Protocol.EvalEvery, o.Budget = 4, 2, time.Nanosecond
	_, res, err := Train(context.Background(), o)
	if err != nil || !res.Stopped || res.Steps != 0 {
		t.Fatalf("budget of 1ns: %+v, %v", res, err)
	}
	o.Resume, o.Budget = true, -1
	if _, res, err = Train(context.Background(), o); err != nil || res.Stopped || res.Steps != 4 {
		t.Fatalf("resumed without a budget: %+v, %v", res, err)
	}
}

// A checkpoint of another system's run is refused naming the
// kind it holds and the kind wanted (it said "is a / run").
func TestResumeOtherKind(t *testing.T) {
	dir := t.TempDir()
	train, valid := realSets(t)
	p := tinyProtocol
	p.Steps, p.EvalEvery = 2, 2
	if _, _, err := Train(context.Background(), TrainOptions{Train: train, Valid: valid, Out: dir, Kind: CNN, Protocol: p, Workers: 1}); err != nil {
		t.Fatal(err)
	}
	// The RNA checkpoint read as a protein run's.
	var wk *modelkind.WrongKindError
	_, err := loop.OpenKind(dir, true, false, modelkind.Protein, nil)
	if !errors.As(err, &wk) || wk.Holds != modelkind.RNA || wk.Want != modelkind.Protein ||
		!strings.Contains(err.Error(), "holds an RNA secondary-structure model, not a protein contact model") {
		t.Fatalf("an RNA checkpoint opened as a protein run's: %v", err)
	}
}
