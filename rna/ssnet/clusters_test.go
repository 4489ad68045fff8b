package ssnet

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/contactmap/contactmap/rna"
)

func TestReadClusters(t *testing.T) {
	good := "name\tset\tcluster\nA\tTR0\t1\nB\tTR0\t1\nC\t16S\t7\nA\tTR0\t1\n"
	got, err := readClusters(strings.NewReader(good), "c.tsv")
	if err != nil || len(got) != 3 || got["A"] != "1" || got["C"] != "7" {
		t.Fatalf("%v, %v", got, err)
	}
	for name, bad := range map[string]string{
		"no header columns": "name\tset\nA\tTR0\n",
		"short line":        "name\tcluster\nA\n",
		"two clusters":      "name\tcluster\nA\t1\nA\t2\n",
		"empty cluster":     "name\tcluster\nA\t\n",
		"empty file":        "",
	} {
		if _, err := readClusters(strings.NewReader(bad), "c.tsv"); !errors.Is(err, ErrClusters) || !strings.Contains(err.Error(), "c.tsv line") {
			t.Errorf("%s: %v", name, err)
		}
	}
	// the clustering the trials use reads
	real, err := ReadClusters("../../experiments/rna-holdout/clusters.tsv")
	if err != nil || len(real) < 10000 {
		t.Fatalf("clusters.tsv: %d names, %v", len(real), err)
	}
}

func FuzzReadClusters(f *testing.F) {
	f.Add("name\tcluster\nA\t1\n")
	f.Add("name\tset\tcluster\nA\tTR0\t1\nA\tTR0\t2\n")
	f.Add("cluster\tname\n\t\n")
	f.Fuzz(func(t *testing.T, s string) {
		m, err := readClusters(strings.NewReader(s), "fuzz")
		if err == nil {
			for k, v := range m {
				if k == "" || v == "" {
					t.Fatalf("an empty name or cluster accepted: %q %q", k, v)
				}
			}
		}
	})
}

// A weighted sampler draws each molecule of a group in proportion to its
// weight, never one of weight 0; an unweighted one draws as before (the
// same stream of indices as rng.IntN).
func TestWeightedSampler(t *testing.T) {
	set := []Molecule{{Weight: 1}, {Weight: 2}, {Weight: 0}, {Weight: 1, Group: 1}}
	s := newSampler(set)
	rng := rand.New(rand.NewPCG(1, 2))
	count := make([]int, len(set))
	const n = 60000
	for k := 0; k < n; k++ {
		_, i := s.drawIndex(rng)
		count[i]++
	}
	// group 0 half the time, split 1:2; group 1 the other half
	want := []float64{n / 6.0, n / 3.0, 0, n / 2.0}
	for i, c := range count {
		if math.Abs(float64(c)-want[i]) > 0.03*n {
			t.Errorf("molecule %d drawn %d times, want about %.0f", i, c, want[i])
		}
	}
	if count[2] != 0 {
		t.Errorf("a molecule of weight 0 drawn %d times", count[2])
	}
	plain := newSampler(make([]Molecule, 7))
	a, b := rand.New(rand.NewPCG(3, 4)), rand.New(rand.NewPCG(3, 4))
	for k := 0; k < 100; k++ {
		if _, i := plain.drawIndex(a); i != b.IntN(7) {
			t.Fatal("the unweighted draws changed")
		}
	}
}

// weighTraining gives each molecule 1/sqrt of its cluster's size among
// the training molecules (a molecule not named: its own cluster), pools
// the files when asked, leaves the caller's molecules as they were, and
// its checksum tells clusterings apart.
func TestWeighTraining(t *testing.T) {
	mol := func(name string, group int) Molecule {
		return Molecule{Structure: &rna.Structure{Name: name}, Group: group}
	}
	set := []Molecule{mol("a", 0), mol("b", 0), mol("c", 0), mol("d", 0), mol("e", 1), mol("x", 1)}
	clusters := map[string]string{"a": "1", "b": "1", "c": "1", "d": "1", "e": "1", "z": "9"}
	out, sum, note, err := weighTraining(set, FamiliesEnsembleClusters, clusters, "c.tsv")
	if err != nil {
		t.Fatal(err)
	}
	for k, w := range []float64{1 / math.Sqrt(5), 1 / math.Sqrt(5), 1 / math.Sqrt(5), 1 / math.Sqrt(5), 1 / math.Sqrt(5), 1} {
		if out[k].Weight != w || out[k].Group != set[k].Group {
			t.Errorf("%s: weight %v, group %d; want %v, %d", out[k].Name, out[k].Weight, out[k].Group, w, set[k].Group)
		}
	}
	if set[0].Weight != 0 {
		t.Error("the caller's molecules were weighed")
	}
	// group 0 all of cluster 1, group 1 half of it by weight: 1/2 + 1/2 * w/(w+1)
	w := 1 / math.Sqrt(5)
	share := 100 * (0.5 + 0.5*w/(w+1))
	if !strings.Contains(note, "6 training molecules in 2 clusters of c.tsv (1 not named there") || !strings.Contains(note, fmt.Sprintf("(5 molecules) gets %.1f%% of the draws", share)) {
		t.Errorf("note %q (share %.1f%%)", note, share)
	}
	pooled, psum, _, err := weighTraining(set, FamiliesEnsembleClustersPooled, clusters, "c.tsv")
	if err != nil || psum == sum {
		t.Fatalf("pooled: %v, the same checksum", err)
	}
	for _, m := range pooled {
		if m.Group != 0 {
			t.Fatal("pooled: a molecule outside group 0")
		}
	}
	clusters["x"] = "1"
	if _, other, _, _ := weighTraining(set, FamiliesEnsembleClusters, clusters, "c.tsv"); other == sum {
		t.Error("another clustering, the same checksum")
	}
	if _, _, _, err := weighTraining(set, FamiliesEnsembleClusters, nil, ""); !errors.Is(err, ErrClusters) {
		t.Errorf("no clustering: %v", err)
	}
}

// A cluster-weighted run records its clustering: resuming it under
// another is refused, under the same goes on.
func TestResumeRefusesOtherClusters(t *testing.T) {
	train, valid := realSets(t)
	out := t.TempDir()
	p := tinyProtocol
	p.Steps, p.ClusterWeights = 20, true
	clusters := map[string]string{}
	for k, m := range train {
		clusters[m.Name] = []string{"a", "b"}[k%2]
	}
	o := TrainOptions{Train: train, Valid: valid, Out: out, Kind: SCNN, Protocol: p, Workers: 1, Clusters: clusters, ClustersName: "c.tsv"}
	if _, _, err := Train(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	o.Resume, o.Protocol.Steps = true, 40
	other := map[string]string{}
	for k, m := range train {
		other[m.Name] = []string{"a", "b"}[(k/2)%2]
	}
	o.Clusters = other
	if _, _, err := Train(context.Background(), o); err == nil || !strings.Contains(err.Error(), "clusters (c.tsv) differ") {
		t.Fatalf("resume under another clustering: %v", err)
	}
	o.Clusters = clusters
	if _, _, err := Train(context.Background(), o); err != nil {
		t.Fatal(err)
	}
}

// pickWeighted finds u's interval, never one of weight 0: at u 0 past
// leading zeros, at a boundary the next interval, past trailing zeros
// never.
func TestPickWeighted(t *testing.T) {
	for _, c := range []struct {
		cum  []float64
		u    float64
		want int
	}{
		{[]float64{0, 0, 1, 3}, 0, 2},   // leading weights of 0
		{[]float64{0, 0, 1, 3}, 1, 3},   // on a boundary: the next
		{[]float64{1, 1, 3}, 1, 2},      // a weight of 0 in the middle
		{[]float64{1, 3, 3, 3}, 2.9, 1}, // trailing weights of 0
		{[]float64{2}, 1.5, 0},
	} {
		if got := pickWeighted(c.cum, c.u); got != c.want {
			t.Errorf("pickWeighted(%v, %v) = %d, want %d", c.cum, c.u, got, c.want)
		}
	}
	// A group whose weights are all 0 (or bad) is drawn uniformly; a
	// negative weight counts as 0.
	set := []Molecule{{Weight: 1}, {Group: 1}, {Group: 1, Weight: -3}, {Group: 1, Weight: math.NaN()}, {Group: 2, Weight: -1}, {Group: 2, Weight: 1}}
	s := newSampler(set)
	rng := rand.New(rand.NewPCG(5, 6))
	count := make([]int, len(set))
	for k := 0; k < 30000; k++ {
		_, i := s.drawIndex(rng)
		count[i]++
	}
	for _, i := range []int{1, 2, 3} { // group 1 uniformly: a third of its third each
		if math.Abs(float64(count[i])-30000.0/9) > 600 {
			t.Errorf("molecule %d of the all-zero group drawn %d times, want about %d", i, count[i], 30000/9)
		}
	}
	if count[4] != 0 {
		t.Errorf("a negative weight drawn %d times", count[4])
	}
}

// A clustering that names none of the training molecules, or one with an
// overlong field, is refused; so is a cluster-weighted protocol with
// length buckets.
func TestClustersRefused(t *testing.T) {
	set := []Molecule{{Structure: &rna.Structure{Name: "a"}}, {Structure: &rna.Structure{Name: "b"}}}
	if _, _, _, err := weighTraining(set, FamiliesEnsembleClusters, map[string]string{"z": "1"}, "c.tsv"); !errors.Is(err, ErrClusters) || !strings.Contains(err.Error(), "names none of the 2") {
		t.Errorf("a clustering of other molecules: %v", err)
	}
	long := "name\tcluster\n" + strings.Repeat("x", maxClusterField+1) + "\t1\n"
	if _, err := readClusters(strings.NewReader(long), "c.tsv"); !errors.Is(err, ErrClusters) {
		t.Errorf("an overlong name: %v", err)
	}
	if _, err := ReadClusters("no-such-file.tsv"); !errors.Is(err, ErrClusters) {
		t.Errorf("a missing file: %v", err)
	}
	bucketed := withName(FamiliesEnsembleClusters, "bad", func(p *Protocol) { p.Buckets = true })
	if _, err := NewModel(CNN, bucketed, 1); err == nil {
		t.Error("cluster weights with buckets accepted")
	}
}
