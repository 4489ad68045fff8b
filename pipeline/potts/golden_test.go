package potts

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/contactmap/contactmap/pipeline/msa"
)

// golden reads reference_plm.py's output: f at the minimum and the APC
// and raw scores of pairs i < j.
func golden(t *testing.T, path string, l int) (f float64, apc, raw []float64) {
	t.Helper()
	file, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	apc, raw = make([]float64, l*l), make([]float64, l*l)
	sc := bufio.NewScanner(file)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "# N ") {
			var n, ll, it int
			var neff, g float64
			if _, err := fmt.Sscanf(line, "# N %d L %d Neff %g f %g iterations %d max|grad| %g", &n, &ll, &neff, &f, &it, &g); err != nil {
				t.Fatalf("%s: %q: %v", path, line, err)
			}
			continue
		}
		if strings.HasPrefix(line, "#") {
			continue
		}
		var i, j int
		var s, r float64
		if _, err := fmt.Sscanf(line, "%d\t%d\t%g\t%g", &i, &j, &s, &r); err != nil {
			t.Fatalf("%s: %q: %v", path, line, err)
		}
		apc[i*l+j], apc[j*l+i] = s, s
		raw[i*l+j], raw[j*l+i] = r, r
	}
	return f, apc, raw
}

func ranks(v []float64) []float64 {
	idx := make([]int, len(v))
	for k := range idx {
		idx[k] = k
	}
	sort.Slice(idx, func(a, b int) bool { return v[idx[a]] < v[idx[b]] })
	r := make([]float64, len(v))
	for k, i := range idx {
		r[i] = float64(k)
	}
	return r
}

// spearman of the upper triangles.
func spearman(a, b []float64, l int) float64 {
	var x, y []float64
	for i := 0; i < l; i++ {
		for j := i + 1; j < l; j++ {
			x = append(x, a[i*l+j])
			y = append(y, b[i*l+j])
		}
	}
	rx, ry := ranks(x), ranks(y)
	n := float64(len(rx))
	d2 := 0.0
	for k := range rx {
		d2 += (rx[k] - ry[k]) * (rx[k] - ry[k])
	}
	return 1 - 6*d2/(n*(n*n-1))
}

func maxAbsDiff(a, b []float64) float64 {
	d := 0.0
	for k := range a {
		d = max(d, math.Abs(a[k]-b[k]))
	}
	return d
}

// Golden tolerances: both fits converge to the unique minimum of a
// strictly convex objective; the Go one holds couplings in float32.
const (
	goldenMaxDiff  = 1e-5 // scores (APC and raw)
	goldenSpearman = 0.999
	goldenRelF     = 1e-10
)

func compareGolden(t *testing.T, path string, m *Model) {
	t.Helper()
	fRef, apcRef, rawRef := golden(t, path, m.L)
	apc, raw := m.Scores(), m.FrobeniusScores()
	dApc, dRaw := maxAbsDiff(apc, apcRef), maxAbsDiff(raw, rawRef)
	rho := spearman(apc, apcRef, m.L)
	relF := math.Abs(m.F-fRef) / fRef
	t.Logf("%s: f %.10g (reference %.10g, rel diff %.2g), max |APC diff| %.2g, max |raw diff| %.2g, Spearman %.6f", filepath.Base(path), m.F, fRef, relF, dApc, dRaw, rho)
	if dApc > goldenMaxDiff || dRaw > goldenMaxDiff || rho < goldenSpearman || relF > goldenRelF {
		t.Errorf("fit differs from the reference beyond tolerance (%g, Spearman %g, rel f %g)", goldenMaxDiff, goldenSpearman, goldenRelF)
	}
}

func tightFit(t *testing.T) *Model {
	t.Helper()
	a, err := msa.ReadFile("testdata/golden.aln")
	if err != nil {
		t.Fatal(err)
	}
	m, err := Fit(a, Options{MaxIterations: 5000, Epsilon: 1e-13, GradTol: 1e-7})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("Go fit: %d iterations, %d evaluations, %s", m.Iterations, m.Evaluations, m.Status)
	return m
}

// TestGolden compares the fit with the committed output of
// testdata/reference_plm.py (numpy/scipy L-BFGS-B) on 40 sequences x 12
// columns of the PSICOV alignment of 1aapA.
func TestGolden(t *testing.T) {
	compareGolden(t, "testdata/golden_scores.tsv", tightFit(t))
}

// TestGoldenRegenerate runs the reference script again where python3 with
// numpy and scipy is installed, and compares with it too.
func TestGoldenRegenerate(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	var py string
	for _, cand := range []string{"python3", "/usr/bin/python3"} {
		if p, err := exec.LookPath(cand); err == nil && exec.Command(p, "-c", "import numpy, scipy").Run() == nil {
			py = p
			break
		}
	}
	if py == "" {
		t.Skip("python3 with numpy and scipy not found")
	}
	out, err := exec.Command(py, "testdata/reference_plm.py", "testdata/golden.aln").Output()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "scores.tsv")
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
	compareGolden(t, path, tightFit(t))
}
