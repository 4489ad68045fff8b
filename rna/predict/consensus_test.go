package predict_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/contactmap/contactmap/rna/consensus"
	"github.com/contactmap/contactmap/rna/predict"
	"github.com/contactmap/contactmap/rna/ssnet"
)

// An ArchiveII tRNA (H. salinarum tRNA-Ala) and its structure.
const (
	trna    = "GGGCUCGUAGAUCAGCGGUAGAUCGCUUCCUUCGCAAGGAAGAGGCCCUGGGUUCAAAUCCCAGCGAGUCCACCA"
	trnaDBN = "(((((((..((((.......)))).(((((.......))))).....(((((.......))))))))))))...."
)

// fixedHomologs is a finder that gives every query two homologs of the
// tRNA (a gap and an insertion in one, substitutions in the other), as
// a search would, and counts its calls.
func fixedHomologs(t *testing.T, calls *int) ssnet.HomologFinder {
	t.Helper()
	q := trna
	h2 := []byte(q)
	h2[3], h2[40], h2[60] = 'A', 'C', 'G'
	all, err := consensus.Homologs([]string{"q", "h1", "h2"}, []string{q, q[:10] + "--" + q[12:30] + "aa" + q[30:], string(h2)})
	if err != nil {
		t.Fatal(err)
	}
	hs := all[1:]
	return func(ctx context.Context, name, seq string) ([]consensus.Homolog, error) {
		*calls++
		if seq != trna {
			return nil, nil
		}
		return hs, nil
	}
}

// With a finder the consensus method says how many homologs it used;
// the network method says whether the consensus was used; a finder is
// refused where no method reads it, and the consensus method needs one.
func TestRunWithHomologs(t *testing.T) {
	calls := 0
	find := fixedHomologs(t, &calls)
	run := func(method string, find ssnet.HomologFinder) (predict.Outcome, error) {
		t.Helper()
		cfg := predict.Config{Method: method, Homologs: find, HomologsFrom: "fixed", Out: t.TempDir(), Formats: []ssnet.Format{ssnet.DotBracket}, Workers: 1, Threads: 1,
			Stdin: strings.NewReader(">trna\n" + trna + "\n"), Shipped: shippedRNA}
		out, err := predict.Run(context.Background(), cfg, []string{"-"})
		if err != nil {
			return predict.Outcome{}, err
		}
		if len(out) != 1 {
			t.Fatalf("%d outcomes", len(out))
		}
		return out[0], out[0].Err
	}
	o, err := run(ssnet.MethodConsensus, find)
	if err != nil {
		t.Fatal(err)
	}
	if calls != 1 || o.Homologs != 2 || o.Method != "consensus of "+strconv.Itoa(o.Homologs)+" homologs" {
		t.Fatalf("%d searches, homologs %d, method %q", calls, o.Homologs, o.Method)
	}
	if len(o.Structure.Pairs()) < 15 {
		t.Errorf("a tRNA with %d pairs", len(o.Structure.Pairs()))
	}
	n, err := run("", find)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(n.Method, "consensus of 2 homologs") && !strings.Contains(n.Method, "no consensus (a template") {
		t.Errorf("the network's method %q says nothing of the consensus", n.Method)
	}
	if _, err := run("mfe", find); !errors.Is(err, ssnet.ErrUsage) {
		t.Errorf("homologs with mfe: %v", err)
	}
	if _, err := run(ssnet.MethodConsensus, nil); !errors.Is(err, ssnet.ErrUsage) {
		t.Errorf("consensus without homologs: %v", err)
	}
}

// rna eval with a finder adds a consensus row per model and decoder and
// the consensus baseline.
func TestEvalWithHomologs(t *testing.T) {
	modelFile, set, train := evalFixture(t, t.TempDir(), ">trna\n"+trna+"\n"+trnaDBN+"\n")
	calls := 0
	rep, err := predict.Eval(context.Background(), predict.EvalConfig{Models: []string{modelFile}, Set: set, Train: train,
		Decoders: []ssnet.Decoder{ssnet.Greedy}, Workers: 1, Baselines: true, Homologs: fixedHomologs(t, &calls), HomologsFrom: "fixed",
		Shipped: predict.Shipped{Load: loadFile}})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range rep.Rows {
		names = append(names, r.Name)
	}
	joined := strings.Join(names, "\n")
	if !strings.Contains(joined, "greedy, with the consensus") || !strings.Contains(joined, "baseline: consensus") || calls != 2 {
		t.Fatalf("%d searches; rows:\n%s", calls, joined)
	}
}
