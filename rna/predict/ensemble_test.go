package predict_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/contactmap/contactmap/rna/predict"
	"github.com/contactmap/contactmap/rna/ssnet"
)

// The default, a shipped ensemble, predicts what its members given as
// repeated --model predict: the mean of their probabilities, one
// structure; the summary names the ensemble as asked.
func TestRunShippedEnsemble(t *testing.T) {
	members, ok := shippedRNA.Members(shippedRNA.Default)
	if !ok || len(members) < 2 {
		t.Skipf("the default %s is one network", shippedRNA.Default)
	}
	seq := "GGGCGAAAGCCCAUCCGCAAGGAUGGCUAGCUAGGCAUCGAUCGGCUAGCAUCGGGAUCCGAUGC"
	var from string
	run := func(models []string) predict.Outcome {
		t.Helper()
		cfg := predict.Config{Models: models, Out: t.TempDir(), Formats: []ssnet.Format{ssnet.DotBracket}, Workers: 1, Threads: 1,
			Stdin: strings.NewReader(">q\n" + seq + "\n"), Shipped: shippedRNA, OnStart: func(_ int, f string) { from = f }}
		out, err := predict.Run(context.Background(), cfg, []string{"-"})
		if err != nil || len(out) != 1 || out[0].Err != nil {
			t.Fatalf("%v: %v, %+v", models, err, out)
		}
		return out[0]
	}
	def := run(nil)
	if want := fmt.Sprintf("an ensemble of %d networks", len(members)); !strings.Contains(from, want) {
		t.Errorf("the default runs %q, want %s", from, want)
	}
	explicit, one := run(members), run(members[:1])
	if !slices.Equal(def.Structure.Pairs(), explicit.Structure.Pairs()) {
		t.Errorf("the default's pairs %v, its members' %v", def.Structure.Pairs(), explicit.Structure.Pairs())
	}
	if !strings.Contains(def.Method, shippedRNA.Default) {
		t.Errorf("the default's summary method %q does not name %s", def.Method, shippedRNA.Default)
	}
	t.Logf("pairs: ensemble %d, first member %d", len(def.Structure.Pairs()), len(one.Structure.Pairs()))
}
