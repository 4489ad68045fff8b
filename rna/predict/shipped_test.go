package predict_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/contactmap/contactmap/models"
)

// train16S is rna eval's default --train.
const train16S = "data/rna/16s-finaltrain.txt"

// shippedRNA is package models' RNA models, as the command passes them.
var shippedRNA = models.RNAShipped()

// rna eval's default --train: the shipped models' training files, else
// the 16S training set.
func TestRNAEvalDefaultTrain(t *testing.T) {
	for _, c := range []struct {
		models []string
		want   string
	}{
		{nil, train16S},
		{[]string{"runs/x/model.scnn"}, train16S},
		{[]string{"rna-scnn-16s", "rna-scnn-seq", "runs/x/model.scnn"}, "data/rna/16s-finaltrain.txt"},
		{[]string{"rna-scnn", "bprna"}, "data/rna/16s-finaltrain.txt,experiments/rna-families/tr0-dedup.dbn.gz"},
		{[]string{"runs/x/model.scnn+rna-scnn"}, "data/rna/16s-finaltrain.txt,experiments/rna-families/tr0-dedup.dbn.gz"},
		{[]string{"rna-scnn-bpp-global-3seeds"}, "data/rna/16s-finaltrain.txt,experiments/rna-families/tr0-dedup.dbn.gz"},
	} {
		got, err := shippedRNA.TrainFilesOf(c.models, train16S)
		if err != nil || got != c.want {
			t.Errorf("%v: %q, %v; want %q", c.models, got, err, c.want)
		}
	}
	for _, specs := range [][]string{{"rna-scnn", "rna-scnn-seq"}, {"rna-scnn+rna-scnn-seq"}} {
		if _, err := shippedRNA.TrainFilesOf(specs, train16S); err == nil {
			t.Errorf("%v: models trained on different files: no error", specs)
		}
	}
}

// A spec's networks: a shipped ensemble's members, the parts of "a+b",
// and a file whose name holds "+" as one network.
func TestEnsembleMembers(t *testing.T) {
	plus := filepath.Join(t.TempDir(), "a+b.scnn")
	if err := os.WriteFile(plus, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for spec, want := range map[string][]string{
		"rna-scnn":                   {"rna-scnn"},
		"x.scnn+ rna-scnn":           {"x.scnn", "rna-scnn"},
		plus:                         {plus},
		"rna-scnn-bpp-global-3seeds": {"rna-scnn-bpp-global-seed1", "rna-scnn-bpp-global", "rna-scnn-bpp-global-seed3"},
	} {
		if got := shippedRNA.EnsembleMembers(spec); !slices.Equal(got, want) {
			t.Errorf("%q: %q, want %q", spec, got, want)
		}
	}
}
