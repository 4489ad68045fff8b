package fold

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/contactmap/contactmap/rna"
)

// longTests reports whether the long tests are asked for
// (CONTACTMAP_FOLD_LONG=1 or CONTACTMAP_LONG_TESTS=1).
func longTests() bool {
	return os.Getenv("CONTACTMAP_FOLD_LONG") != "" || os.Getenv("CONTACTMAP_LONG_TESTS") != ""
}

// TestBandMatchesSquare compares the banded tables of a span limit W < L
// with the square tables under the same limit (the layout the golden
// tests checked before the band existed): the same MFE structure and
// energy, the same ensemble free energy and pair probabilities to 1e-12,
// the same centroid and MEA structures. It also checks the properties of
// a span-limited fold: every pair spans at most W, the structure's energy
// (Eval) is the MFE, the MFE lies between the global MFE and the energy
// of the global MFE structure without its pairs longer than W, and no
// base pairs with probability above 1.
func TestBandMatchesSquare(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	d0, _ := DefaultParams().WithDangles(0)
	models := []struct {
		name string
		p    *Params
	}{
		{"d2", DefaultParams()}, {"d0", d0}, {"T50", DefaultParams().WithTemperature(50)},
		{"noLP", DefaultParams().WithNoLP(true)},
	}
	lengths := []int{50, 120, 300}
	if testing.Short() {
		lengths = lengths[:2]
	}
	ctx := context.Background()
	for _, n := range lengths {
		seq := randomSeq(r, n, n == 120)
		for _, mod := range models {
			global, gE, err := mod.p.Fold(seq, 0)
			if err != nil {
				t.Fatal(err)
			}
			spans := []int{5, 20, 47, n / 2, n - 1}
			if n > 200 {
				spans = []int{31, n - 1}
			}
			for _, span := range spans {
				p := mod.p.WithMaxSpan(span)
				if p.stride(n) != span {
					t.Fatalf("span %d of %d nt: stride %d, want the band", span, n, p.stride(n))
				}
				sq, sqE, err := p.fold(ctx, seq, 2, true)
				if err != nil {
					t.Fatal(err)
				}
				bd, bdE, err := p.fold(ctx, seq, 2, false)
				if err != nil {
					t.Fatal(err)
				}
				name := func() string { return mod.name + " " + seq[:10] + "..." }
				if bdE != sqE || !rna.Equal(bd, sq) {
					t.Fatalf("%s %d nt span %d: banded MFE %.2f, square %.2f (structures equal: %v)", name(), n, span, bdE, sqE, rna.Equal(bd, sq))
				}
				for _, q := range bd.Pairs() {
					if q[1]-q[0]+1 > span {
						t.Fatalf("%s span %d: pair %v", name(), span, q)
					}
				}
				if e, err := p.Eval(seq, bd.Pairs()); err != nil || e != bdE {
					t.Fatalf("%s span %d: Eval %v (%v), MFE %v", name(), span, e, err, bdE)
				}
				if bdE < gE {
					t.Fatalf("%s span %d: MFE %v below the global %v", name(), span, bdE, gE)
				}
				if !p.noLP {
					var short [][2]int
					for _, q := range global.Pairs() {
						if q[1]-q[0]+1 <= span {
							short = append(short, q)
						}
					}
					if e, err := p.Eval(seq, short); err != nil || bdE > e {
						t.Fatalf("%s span %d: MFE %v above %v (%v), the global MFE structure's short pairs", name(), span, bdE, e, err)
					}
				}

				es, err := p.partition(ctx, seq, 2, pfOptions{square: true})
				if err != nil {
					t.Fatal(err)
				}
				eb, err := p.partition(ctx, seq, 2, pfOptions{})
				if err != nil {
					t.Fatal(err)
				}
				if d := math.Abs(eb.FreeEnergy - es.FreeEnergy); d > 1e-12*math.Abs(es.FreeEnergy)+1e-12 {
					t.Fatalf("%s span %d: ensemble free energy %v banded, %v square", name(), span, eb.FreeEnergy, es.FreeEnergy)
				}
				if eb.MaxSpan() != span || es.MaxSpan() != n {
					t.Fatalf("%s span %d: MaxSpan %d banded, %d square", name(), span, eb.MaxSpan(), es.MaxSpan())
				}
				for i := 0; i < n; i++ {
					for j := 0; j < n; j++ {
						if d := math.Abs(eb.Prob(i, j) - es.Prob(i, j)); d > 1e-12 {
							t.Fatalf("%s span %d: P(%d,%d) %v banded, %v square", name(), span, i, j, eb.Prob(i, j), es.Prob(i, j))
						}
						if j-i+1 > span && eb.Prob(i, j) != 0 {
							t.Fatalf("%s span %d: P(%d,%d) = %v", name(), span, i, j, eb.Prob(i, j))
						}
					}
				}
				for i, q := range eb.Unpaired() {
					if q < -1e-12 || q > 1 {
						t.Fatalf("%s span %d: base %d unpaired with probability %v", name(), span, i, q)
					}
				}
				cb, db := eb.Centroid()
				cs, ds := es.Centroid()
				if !rna.Equal(cb, cs) || math.Abs(db-ds) > 1e-9 {
					t.Fatalf("%s span %d: centroids differ (d %v, %v)", name(), span, db, ds)
				}
				mb, ab, err := eb.MEA(1)
				if err != nil {
					t.Fatal(err)
				}
				ms, as, err := es.MEA(1)
				if err != nil {
					t.Fatal(err)
				}
				if !rna.Equal(mb, ms) || math.Abs(ab-as) > 1e-9 {
					t.Fatalf("%s span %d: MEA structures differ (accuracy %v, %v)", name(), span, ab, as)
				}
				if d := math.Abs(eb.Diversity() - es.Diversity()); d > 1e-9 {
					t.Fatalf("%s span %d: diversity %v, %v", name(), span, eb.Diversity(), es.Diversity())
				}
				if eb.PairingTendency() != es.PairingTendency() {
					t.Fatalf("%s span %d: pairing tendency differs", name(), span)
				}
				var sum float64
				for _, q := range eb.Pairs(0) {
					sum += q.P
				}
				var full float64
				pm := eb.Probabilities()
				for _, v := range pm {
					full += float64(v)
				}
				if math.Abs(2*sum-full) > 1e-4*(1+full) {
					t.Fatalf("%s span %d: Pairs sum %v, Probabilities sum %v", name(), span, 2*sum, full)
				}
			}
		}
	}
}

// TestSpanAtLeastLength checks that a span limit of at least the length
// gives the global results exactly.
func TestSpanAtLeastLength(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 24))
	for _, n := range []int{60, 250} {
		seq := randomSeq(r, n, false)
		g, ge, err := DefaultParams().Fold(seq, 0)
		if err != nil {
			t.Fatal(err)
		}
		gp, err := DefaultParams().Partition(seq, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, span := range []int{n, n + 1, 10 * n} {
			p := DefaultParams().WithMaxSpan(span)
			s, e, err := p.Fold(seq, 0)
			if err != nil {
				t.Fatal(err)
			}
			if e != ge || !rna.Equal(s, g) {
				t.Fatalf("%d nt span %d: MFE %v, global %v", n, span, e, ge)
			}
			ep, err := p.Partition(seq, 0)
			if err != nil {
				t.Fatal(err)
			}
			if ep.FreeEnergy != gp.FreeEnergy {
				t.Fatalf("%d nt span %d: G %v, global %v", n, span, ep.FreeEnergy, gp.FreeEnergy)
			}
			for i := 0; i < n; i++ {
				for j := 0; j < n; j++ {
					if ep.Prob(i, j) != gp.Prob(i, j) {
						t.Fatalf("%d nt span %d: P(%d,%d) %v, global %v", n, span, i, j, ep.Prob(i, j), gp.Prob(i, j))
					}
				}
			}
		}
	}
}

// foldAllocs folds and computes the ensemble, centroid and MEA structure
// of seq with p, and returns the bytes allocated.
func foldAllocs(t *testing.T, p *Params, seq string) uint64 {
	t.Helper()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	if _, _, err := p.Fold(seq, 0); err != nil {
		t.Fatal(err)
	}
	e, err := p.Partition(seq, 0)
	if err != nil {
		t.Fatal(err)
	}
	e.Centroid()
	if _, _, err := e.MEA(1); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestSpanMemoryLinear checks that with a span limit the memory grows
// linearly with the length: twice the bases, at most 2.5 times the bytes
// allocated (the square tables would take four times).
func TestSpanMemoryLinear(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 26))
	p := DefaultParams().WithMaxSpan(60)
	seq := randomSeq(r, 4000, false)
	a1 := foldAllocs(t, p, seq[:2000])
	a2 := foldAllocs(t, p, seq)
	if ratio := float64(a2) / float64(a1); ratio > 2.5 {
		t.Errorf("span 60: %d bytes allocated at 2,000 nt, %d at 4,000 (x%.2f)", a1, a2, ratio)
	}
	if lim := 2 * (p.FoldBytes(4000) + p.PartitionBytes(4000)); int64(a2) > lim {
		t.Errorf("span 60, 4,000 nt: %d bytes allocated, over twice FoldBytes + PartitionBytes (%d)", a2, lim)
	}
	t.Logf("span 60: %.1f MB allocated at 2,000 nt, %.1f MB at 4,000", float64(a1)/1e6, float64(a2)/1e6)
}

// TestSpanLong folds 50,000 nt with a span limit of 200 (MFE, partition
// function, centroid, MEA) within 2 GiB, the memory the process got from
// the system. It takes about a minute on two cores: set
// CONTACTMAP_FOLD_LONG=1 (or CONTACTMAP_LONG_TESTS=1) to run it.
func TestSpanLong(t *testing.T) {
	if !longTests() {
		t.Skip("set CONTACTMAP_FOLD_LONG=1 to run")
	}
	r := rand.New(rand.NewPCG(27, 28))
	seq := randomSeq(r, 50000, false)
	p := DefaultParams().WithMaxSpan(200)
	runtime.GC()
	start := time.Now()
	s, e, err := p.Fold(seq, 0)
	if err != nil {
		t.Fatal(err)
	}
	tMFE := time.Since(start)
	for _, q := range s.Pairs() {
		if q[1]-q[0]+1 > 200 {
			t.Fatalf("pair %v spans more than 200", q)
		}
	}
	if ev, err := p.Eval(seq, s.Pairs()); err != nil || ev != e {
		t.Fatalf("Eval %v (%v), MFE %v", ev, err, e)
	}
	start = time.Now()
	ens, err := p.Partition(seq, 0)
	if err != nil {
		t.Fatal(err)
	}
	tPF := time.Since(start)
	if !(ens.FreeEnergy <= ens.MFEEnergy) || math.IsInf(ens.FreeEnergy, 0) {
		t.Errorf("G %v, MFE %v", ens.FreeEnergy, ens.MFEEnergy)
	}
	c, _ := ens.Centroid()
	m, _, err := ens.MEA(1)
	if err != nil {
		t.Fatal(err)
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	if ms.Sys > 2<<30 {
		t.Errorf("%d MB obtained from the system, over 2 GiB", ms.Sys>>20)
	}
	t.Logf("50,000 nt, span 200: MFE %.2f in %v; partition function (with its MFE fold) G %.2f in %v; %d, %d, %d pairs (MFE, centroid, MEA); %d MB from the system, heap peak %d MB, %d MB allocated",
		e, tMFE.Round(time.Millisecond), ens.FreeEnergy, tPF.Round(time.Millisecond), len(s.Pairs()), len(c.Pairs()), len(m.Pairs()), ms.Sys>>20, ms.HeapSys>>20, ms.TotalAlloc>>20)
}

// TestFoldCancel checks that a cancelled context stops the MFE fold and
// the partition function of 3,000 nt at once, with its error.
func TestFoldCancel(t *testing.T) {
	seq := randomSeq(rand.New(rand.NewPCG(29, 30)), 3000, false)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := DefaultParams().FoldContext(ctx, seq, 0); !errors.Is(err, context.Canceled) {
		t.Errorf("FoldContext: error %v, want context.Canceled", err)
	}
	if _, err := DefaultParams().PartitionContext(ctx, seq, 0); !errors.Is(err, context.Canceled) {
		t.Errorf("PartitionContext: error %v, want context.Canceled", err)
	}
	// cancelled while running: it returns within a span
	for _, pf := range []bool{false, true} {
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		done := make(chan error, 1)
		go func() {
			var err error
			if pf {
				_, err = DefaultParams().PartitionContext(ctx, seq, 0)
			} else {
				_, _, err = DefaultParams().FoldContext(ctx, seq, 0)
			}
			done <- err
		}()
		select {
		case err := <-done:
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("partition %v: error %v, want context.DeadlineExceeded", pf, err)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("partition %v: still running 20 s after its context ended", pf)
		}
		cancel()
	}
}
