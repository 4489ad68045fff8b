package predict_test

import (
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
	} {
		got, err := shippedRNA.TrainFilesOf(c.models, train16S)
		if err != nil || got != c.want {
			t.Errorf("%v: %q, %v; want %q", c.models, got, err, c.want)
		}
	}
	if _, err := shippedRNA.TrainFilesOf([]string{"rna-scnn", "rna-scnn-seq"}, train16S); err == nil {
		t.Error("models trained on different files: no error")
	}
}
