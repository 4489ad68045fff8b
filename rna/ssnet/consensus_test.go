package ssnet

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/contactmap/contactmap/rna"
	"github.com/contactmap/contactmap/rna/consensus"
	"github.com/contactmap/contactmap/rna/homology"
)

// A tRNA (ArchiveII, H. salinarum tRNA-Ala) and two homologs of it as
// rows of a query-anchored alignment: one with a gap and an insertion,
// one a few substitutions away.
const consensusQuery = "GGGCUCGUAGAUCAGCGGUAGAUCGCUUCCUUCGCAAGGAAGAGGCCCUGGGUUCAAAUCCCAGCGAGUCCACCA"

func consensusHomologs(t *testing.T) []consensus.Homolog {
	t.Helper()
	q := consensusQuery
	h1 := q[:10] + "--" + q[12:30] + "aa" + q[30:]
	h2 := []byte(q)
	h2[3], h2[40], h2[60] = 'A', 'C', 'G'
	hs, err := consensus.Homologs([]string{"q", "h1", "h2"}, []string{q, h1, string(h2)})
	if err != nil {
		t.Fatal(err)
	}
	return hs[1:]
}

func finder(hs []consensus.Homolog, calls *int) HomologFinder {
	return func(ctx context.Context, name, seq string) ([]consensus.Homolog, error) {
		*calls++
		return hs, nil
	}
}

// The consensus method is ConsensusMap over the query's own ensemble and
// DecodeConsensus, computed here step by step; with no homolog it is the
// MEA structure (gamma 2) of the query's ensemble; without a finder it
// is a usage error.
func TestConsensusMethod(t *testing.T) {
	ctx := context.Background()
	m, ok := MethodNamed(MethodConsensus)
	if !ok {
		t.Fatal("no consensus method")
	}
	mol := &Molecule{Structure: &rna.Structure{Name: "trna", Seq: consensusQuery}}
	hs := consensusHomologs(t)
	calls := 0
	got, q, err := m.New(MethodOptions{Workers: 1, Map: true, Homologs: finder(hs, &calls)})(ctx, mol)
	if err != nil {
		t.Fatal(err)
	}
	if calls != 1 {
		t.Fatalf("%d searches, want 1", calls)
	}
	l := len(consensusQuery)
	ps, err := ConsensusFold.Pairs(ctx, consensusQuery, 1)
	if err != nil {
		t.Fatal(err)
	}
	p := make([]float32, l*l)
	for _, pp := range ps {
		p[int(pp.I)*l+int(pp.J)], p[int(pp.J)*l+int(pp.I)] = pp.P, pp.P
	}
	want, err := ConsensusMap(ctx, "trna", consensusQuery, p, hs, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(q, want) {
		t.Fatal("the method's map is not ConsensusMap's")
	}
	ws, _ := DecodeConsensus("trna", consensusQuery, want)
	if !slices.Equal(got.Pairs(), ws.Pairs()) {
		t.Fatalf("pairs %v, want %v", got.Pairs(), ws.Pairs())
	}
	if slices.Equal(want, p) {
		t.Fatal("the homologs changed nothing: the test cannot tell the consensus from the query's ensemble")
	}
	// No homolog: the query's own ensemble.
	alone, _, err := m.New(MethodOptions{Workers: 1, Homologs: finder(nil, &calls)})(ctx, mol)
	if err != nil {
		t.Fatal(err)
	}
	own, _ := rna.DecodeMEA("trna", consensusQuery, p, rna.DecodeOptions{Gamma: ConsensusGamma})
	if !slices.Equal(alone.Pairs(), own.Pairs()) {
		t.Fatalf("with no homolog %v, want the ensemble's MEA %v", alone.Pairs(), own.Pairs())
	}
	if _, _, err := m.New(MethodOptions{Workers: 1})(ctx, mol); !errors.Is(err, ErrUsage) {
		t.Fatalf("without a finder: %v", err)
	}
}

// The network method with a finder predicts from the consensus of its
// probabilities (DecodeConsensus of ConsensusMap); a molecule over
// ConsensusMaxLen, or whose template the network sees, is decoded from
// the network alone, with no search.
func TestNetworkConsensus(t *testing.T) {
	ctx := context.Background()
	m := tinyModel(t)
	mol := &Molecule{Structure: &rna.Structure{Name: "trna", Seq: consensusQuery}}
	hs := consensusHomologs(t)
	calls := 0
	o := MethodOptions{Workers: 1, Map: true, Networks: []Network{{Name: "tiny", Model: m}}, Decoder: Greedy}
	plain, p, err := networkPredictor(o)(ctx, mol)
	if err != nil {
		t.Fatal(err)
	}
	o.Homologs = finder(hs, &calls)
	got, q, err := networkPredictor(o)(ctx, mol)
	if err != nil {
		t.Fatal(err)
	}
	want, err := ConsensusMap(ctx, "trna", consensusQuery, p, hs, 1)
	if err != nil {
		t.Fatal(err)
	}
	if calls != 1 || !slices.Equal(q, want) {
		t.Fatalf("%d searches; the map is ConsensusMap's: %v", calls, slices.Equal(q, want))
	}
	ws, _ := DecodeConsensus("trna", consensusQuery, want)
	if !slices.Equal(got.Pairs(), ws.Pairs()) {
		t.Fatalf("pairs %v, want %v", got.Pairs(), ws.Pairs())
	}
	if slices.Equal(q, p) {
		t.Fatal("the consensus changed nothing: the test cannot tell it from the network alone")
	}
	_ = plain
	// Over ConsensusMaxLen: no search, the network alone.
	long := make([]byte, ConsensusMaxLen+1)
	for i := range long {
		long[i] = "ACGU"[i%4]
	}
	lm := &Molecule{Structure: &rna.Structure{Name: "long", Seq: string(long)}}
	o.Map = false
	if _, _, err := networkPredictor(o)(ctx, lm); err != nil || calls != 1 {
		t.Fatalf("over %d nt: %v, %d searches", ConsensusMaxLen, err, calls)
	}
}

func TestSeesTemplate(t *testing.T) {
	tm, err := NewModel(SCNN, Template, 1)
	if err != nil {
		t.Fatal(err)
	}
	r := tm.Record
	ref := &homology.Template{Ref: &rna.Structure{Name: "ref"}, Identity: 0.7}
	if !r.UsesTemplates() || r.MinIdentity != 0.5 {
		t.Fatalf("the template protocol's record: templates %v, min identity %g", r.UsesTemplates(), r.MinIdentity)
	}
	if !SeesTemplate(r, ref) {
		t.Error("a template of identity 0.7 not seen at 0.5")
	}
	low := *ref
	low.Identity = 0.4
	if SeesTemplate(r, &low) || SeesTemplate(r, nil) || SeesTemplate(r, &homology.Template{Identity: 0.9}) {
		t.Error("a template under the bound, none, or one with no reference seen")
	}
	r.NoTemplate = true
	if SeesTemplate(r, ref) {
		t.Error("seen by a record that drops templates")
	}
	if SeesTemplate(Record{}, ref) {
		t.Error("seen by a network without template channels")
	}
}
