package features

import (
	"bufio"
	"bytes"
	"math"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"testing"
)

const freecontactDemo = "/usr/share/doc/freecontact/examples/demo_1000.aln"

// spearman is the rank correlation of paired values (ties by average rank).
func spearman(a, b []float64) float64 {
	rank := func(v []float64) []float64 {
		idx := make([]int, len(v))
		for i := range idx {
			idx[i] = i
		}
		sort.Slice(idx, func(x, y int) bool { return v[idx[x]] < v[idx[y]] })
		r := make([]float64, len(v))
		for i := 0; i < len(idx); {
			j := i
			for j+1 < len(idx) && v[idx[j+1]] == v[idx[i]] {
				j++
			}
			for k := i; k <= j; k++ {
				r[idx[k]] = float64(i+j)/2 + 1
			}
			i = j + 1
		}
		return r
	}
	ra, rb := rank(a), rank(b)
	n := float64(len(a))
	var ma, mb float64
	for i := range ra {
		ma += ra[i] / n
		mb += rb[i] / n
	}
	var sab, saa, sbb float64
	for i := range ra {
		sab += (ra[i] - ma) * (rb[i] - mb)
		saa += (ra[i] - ma) * (ra[i] - ma)
		sbb += (rb[i] - mb) * (rb[i] - mb)
	}
	return sab / math.Sqrt(saa*sbb)
}

// The mean-field DCA channel agrees with Debian's freecontact (EVfold-
// mfDCA profile: 80% identity weighting, pseudocount 0.5, APC-corrected
// coupling norm) on its demo alignment.
func TestDCAMatchesFreecontact(t *testing.T) {
	if _, err := exec.LookPath("freecontact"); err != nil {
		t.Skip("freecontact not installed (Debian package freecontact); .ci/run installs it")
	}
	if _, err := os.Stat(freecontactDemo); err != nil {
		t.Skip("freecontact demo alignment missing")
	}
	aln, err := ReadAlignment(freecontactDemo)
	if err != nil {
		t.Fatal(err)
	}
	in, _ := os.ReadFile(freecontactDemo)
	// Same weighting as ours (80% identity); the rest is the evfold profile.
	cmd := exec.Command("freecontact", "--parprof", "evfold", "--clustpc", "80", "--threads", "2")
	cmd.Stdin = bytes.NewReader(in)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("freecontact: %v", err)
	}
	co, err := ComputeCoevolution(aln)
	if err != nil {
		t.Fatal(err)
	}
	l := co.L
	type pairScore struct {
		i, j int
		ref  float64
	}
	var ref []pairScore
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 6 {
			continue
		}
		i, _ := strconv.Atoi(f[0])
		j, _ := strconv.Atoi(f[2])
		s, _ := strconv.ParseFloat(f[5], 64)
		ref = append(ref, pairScore{i - 1, j - 1, s})
	}
	if len(ref) != l*(l-1)/2 {
		t.Fatalf("freecontact gave %d pairs for L=%d", len(ref), l)
	}
	sort.Slice(ref, func(a, b int) bool { return ref[a].ref > ref[b].ref })
	// Rank correlation over freecontact's top 2L pairs, and the overlap of
	// the two top-L/2 lists.
	top := ref[:2*l]
	var a, b []float64
	for _, p := range top {
		a = append(a, p.ref)
		b = append(b, co.DCA[p.i*l+p.j])
	}
	rho := spearman(a, b)
	var mine []pairScore
	for i := 0; i < l; i++ {
		for j := i + 1; j < l; j++ {
			mine = append(mine, pairScore{i, j, co.DCA[i*l+j]})
		}
	}
	sort.Slice(mine, func(x, y int) bool { return mine[x].ref > mine[y].ref })
	refTop := map[[2]int]bool{}
	for _, p := range ref[:l/2] {
		refTop[[2]int{p.i, p.j}] = true
	}
	shared := 0
	for _, p := range mine[:l/2] {
		if refTop[[2]int{p.i, p.j}] {
			shared++
		}
	}
	t.Logf("L=%d Neff=%.1f: Spearman over freecontact's top %d pairs %.3f; top-L/2 overlap %d/%d", l, co.Neff, 2*l, rho, shared, l/2)
	if rho < 0.95 || shared < l/2*8/10 {
		t.Errorf("DCA disagrees with freecontact: rho %.3f, overlap %d/%d", rho, shared, l/2)
	}
}

// The co-evolution channels weight sequences as EVfold-mfDCA does: w_s =
// 1 / #{t : identity(s, t) >= 0.8} over the L columns, gaps included
// (msa.Weights with Identity.AtLeast; CCMpred's weights need more than
// 80%). The reference is that definition, pair by pair.
func TestCoevolutionWeights(t *testing.T) {
	aln, err := ReadAlignment(dataDir + "/msa/1CTF_A.fasta")
	if err != nil {
		t.Fatal(err)
	}
	x, m, l := encode(aln)
	neff := 0.0
	for s := 0; s < m; s++ {
		n := 0
		for u := 0; u < m; u++ {
			same := 0
			for i := 0; i < l; i++ {
				if x[s*l+i] == x[u*l+i] {
					same++
				}
			}
			if float64(same) >= math.Ceil(0.8*float64(l)) {
				n++
			}
		}
		neff += 1 / float64(n)
	}
	co, err := ComputeCoevolution(aln)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(co.Neff-neff) > 1e-9*neff {
		t.Errorf("Neff %v, by the definition %v", co.Neff, neff)
	}
}
