package rec

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// PrintSizes says the data and both kinds' parameters, a line each.
func TestPrintSizes(t *testing.T) {
	d, err := LoadData(ratingsDir(t, 30, 40, 12, false))
	if err != nil {
		t.Fatal(err)
	}
	var w bytes.Buffer
	if err := PrintSizes(&w, d); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(w.String()), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "data: ") || !strings.HasPrefix(lines[1], "cosrec: ") || !strings.HasPrefix(lines[2], "scosrec: ") {
		t.Errorf("%q", w.String())
	}
}

// PrintTo prints a line per epoch and the notes of a resumed run.
func TestPrintTo(t *testing.T) {
	var w bytes.Buffer
	var o TrainOptions
	cut := o.PrintTo(&w)
	o.OnNote("epochs 3 -> 5")
	o.OnEpochStart(1, 2)
	o.OnBatch(0.5)
	o.OnEpochEnd(EpochLog{Epoch: 1, TrainLoss: 0.5, ValMAP: 0.1, LR: 1e-3, Seconds: 2})
	cut()
	want := "resume: epochs 3 -> 5\nepoch   1  train loss 0.5000  val MAP 0.1000  val P@1 0.0000  val R@10 0.0000  lr 0.001  2s\n"
	if w.String() != want {
		t.Errorf("%q, want %q", w.String(), want)
	}
}

// WriteRecommendations lists each user's items, says the users not
// found, and names them in its error.
func TestWriteRecommendations(t *testing.T) {
	var w, errw bytes.Buffer
	outs := []RecommendOutcome{
		{Arg: "1", User: 1, Interactions: 3, Items: []RecommendedItem{{ID: 7, Title: "Film 7", Score: 0.5}}},
		{Arg: "x", Err: errors.New(`user "x": not a number`)},
	}
	err := WriteRecommendations(&w, &errw, "contactmap rec recommend", outs, 2)
	if w.String() != "user 1 (3 interactions):\n   1. item 7  Film 7  (score 0.500)\n" || errw.String() != "contactmap rec recommend: user \"x\": not a number\n" {
		t.Errorf("stdout %q, stderr %q", w.String(), errw.String())
	}
	if err == nil || err.Error() != "1 of 2 users not found: x" {
		t.Errorf("%v", err)
	}
	if WriteRecommendations(&w, &errw, "p", outs[:1], 1) != nil {
		t.Error("an error with every user found")
	}
}
