// Command coevolution tests the explanation in docs/protein.md ("More data") of why the shipped
// sequence-only models stay near 0.1-0.15 long-range top-L/5 precision:
// that long-range contacts are what an alignment's co-evolution signal
// predicts. On the chains of the length-generalisation set that have a
// bundled alignment (data/msa), it ranks pairs by the alignment's
// mean-field DCA score alone (the first 2D channel of the MSA features:
// z-scores of the average-product-corrected coupling norms; no training)
// and compares that with the shipped default, the ten-model ensemble on
// sequence-only features, chain by chain: the top-L/k precisions of
// package compare, with percentile-bootstrap intervals over chains. The
// contact labels of the two feature directories must be the same (they
// come from the same structures).
//
//	make features-long features-long-msa
//	go run ./experiments/coevolution [-seq features-long] [-msa features-long-msa] [-out experiments/coevolution/report]
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/contactmap/contactmap/experiments/internal/resultfile"
	"github.com/contactmap/contactmap/models"
	"github.com/contactmap/contactmap/pipeline/compare"
	"github.com/contactmap/contactmap/pipeline/features"
	"github.com/contactmap/contactmap/pipeline/metrics"
	"github.com/contactmap/contactmap/pipeline/model"
	"github.com/contactmap/contactmap/pipeline/train"
	"github.com/contactmap/contactmap/scnn"
)

func main() {
	seqDir := flag.String("seq", "features-long", "sequence-only features of the set (the ensemble's input)")
	msaDir := flag.String("msa", "features-long-msa", "MSA features of the chains that have an alignment")
	out := flag.String("out", "experiments/coevolution/report", "write OUT.md and OUT.json")
	resamples := flag.Int("resamples", 10000, "bootstrap resamples over chains")
	flag.Parse()
	log.SetFlags(0)
	if err := run(*seqDir, *msaDir, *out, *resamples); err != nil {
		log.Fatal("coevolution: ", err)
	}
}

func run(seqDir, msaDir, out string, resamples int) error {
	withMSA, _, err := train.LoadSplit(msaDir, "all")
	if err != nil {
		return err
	}
	seqOnly, _, err := train.LoadSplit(seqDir, "all")
	if err != nil {
		return err
	}
	byID := map[string]*model.Sample{}
	for _, s := range seqOnly {
		byID[s.ID] = s
	}
	var same []*model.Sample // the sequence-only samples of the MSA chains, in their order
	var dca []metrics.ChainMetrics
	for _, s := range withMSA {
		q := byID[s.ID]
		if q == nil {
			return fmt.Errorf("%s: in %s, not in %s", s.ID, msaDir, seqDir)
		}
		if !s.HasMSA {
			return fmt.Errorf("%s: %s has no alignment features", s.ID, msaDir)
		}
		if s.Labels == nil || q.Labels == nil || s.Labels.Def != q.Labels.Def ||
			!slices.Equal(s.Labels.Contact, q.Labels.Contact) || !slices.Equal(s.Labels.Known, q.Labels.Known) {
			return fmt.Errorf("%s: the contact labels of %s and %s differ", s.ID, msaDir, seqDir)
		}
		same = append(same, q)
		dca = append(dca, metrics.Evaluate(s.ID, dcaScores(s.Chain), s.Labels))
	}
	if len(same) == 0 {
		return fmt.Errorf("%s: no chains", msaDir)
	}
	members, from, err := models.Load("ensemble")
	if err != nil {
		return err
	}
	ens, err := train.EvaluateEnsemble(members, same, 10)
	if err != nil {
		return err
	}
	var names []string // the ranking metrics: DCA z-scores are no probabilities
	for _, n := range compare.MetricNames(compare.Metrics()) {
		if strings.Contains(n, "top-L") {
			names = append(names, n)
		}
	}
	runs := []compare.Run{
		compare.ChainRun(compare.Run{Kind: "ensemble", Params: trainable(members)}, ens),
		compare.ChainRun(compare.Run{Kind: "alignment-dca"}, dca),
	}
	res, err := compare.Compare(runs, names, "ensemble", "alignment-dca", resamples, 1)
	if err != nil {
		return err
	}
	res.Unit, res.Split, res.Features = "chains", "all", msaDir+" (DCA) and "+seqDir+" (ensemble)"
	note := fmt.Sprintf("\nENSEMBLE: %s on the sequence-only features; ALIGNMENT-DCA: the mean-field DCA channel of the chain's alignment, no training. Chains: %s.\n",
		from, strings.Join(chainIDs(withMSA), ", "))
	if err := res.Markdown(os.Stdout); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return err
	}
	if err := resultfile.Write(out+".json", func(w io.Writer) error {
		e := json.NewEncoder(w)
		e.SetIndent("", "  ")
		return e.Encode(res)
	}); err != nil {
		return err
	}
	return resultfile.Write(out+".md", func(w io.Writer) error {
		if err := res.Markdown(w); err != nil {
			return err
		}
		_, err := io.WriteString(w, note)
		return err
	})
}

// dcaScores is the L x L map of the chain's DCA channel (2D channel 0),
// symmetric, zero on the diagonal.
func dcaScores(c *features.Chain) []float32 {
	l := c.L()
	p := make([]float32, l*l)
	for i := 0; i < l; i++ {
		for j := i + 1; j < l; j++ {
			v := c.TwoD[scnn.PackedIndex(l, i, j)*features.N2D]
			p[i*l+j], p[j*l+i] = v, v
		}
	}
	return p
}

func trainable(ms []*model.Model) int {
	n := 0
	for _, m := range ms {
		n += m.Trainable()
	}
	return n
}

func chainIDs(ss []*model.Sample) []string {
	var ids []string
	for _, s := range ss {
		ids = append(ids, s.ID)
	}
	return ids
}
