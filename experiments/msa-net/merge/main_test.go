package main

import (
	"slices"
	"testing"

	"github.com/contactmap/contactmap/pipeline/compare"
)

// join adds only the families the base lacks, each with its own scores,
// and keeps the base's scores where both have a family; only keeps the
// marked families with their scores aligned.
func TestJoinAndOnly(t *testing.T) {
	base := compare.Run{Kind: "k", Items: []string{"a", "b"}, Scores: map[string][]float64{"m": {1, 2}}}
	more := compare.Run{Kind: "k", Items: []string{"b", "c"}, Scores: map[string][]float64{"m": {20, 30}}}
	j, added, err := join(base, more)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(j.Items, []string{"a", "b", "c"}) || !slices.Equal(j.Scores["m"], []float64{1, 2, 30}) || !slices.Equal(added, []string{"c"}) {
		t.Fatalf("joined %v %v, added %v", j.Items, j.Scores, added)
	}
	if !slices.Equal(base.Scores["m"], []float64{1, 2}) {
		t.Fatalf("the base changed: %v", base.Scores)
	}
	o := only(j, map[string]bool{"a": true, "c": true})
	if !slices.Equal(o.Items, []string{"a", "c"}) || !slices.Equal(o.Scores["m"], []float64{1, 30}) {
		t.Fatalf("only: %v %v", o.Items, o.Scores)
	}
	if _, _, err := join(base, compare.Run{Kind: "k", Items: []string{"c"}, Scores: map[string][]float64{}}); err == nil {
		t.Fatal("a family without the base's metric was joined")
	}
}
