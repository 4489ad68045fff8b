package consensus

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestHomologsAndSelect(t *testing.T) {
	names := []string{"q", "h1", "h2", "h3", "h4"}
	rows := []string{
		"ACGUACGUAC",
		"ACGUACGUAC",   // identical to the query: dropped
		"ACGaaUACGTAC", // inserts, a T: kept
		"ACG-------",   // covers 3 of 10: dropped
		"ACGUACGUAC",   // identical to h2 over their shared columns? no, to the query: dropped
	}
	rows[4] = "AgCGUAgCGUAC"
	hs, err := Homologs(names, rows)
	if err != nil {
		t.Fatal(err)
	}
	if hs[2].Seq != "ACGAAUACGUAC" || hs[2].Pos[3] != 5 || hs[2].Pos[0] != 0 {
		t.Fatalf("h2 %+v", hs[2])
	}
	if c := hs[3].Coverage(); math.Abs(c-0.3) > 1e-12 {
		t.Fatalf("coverage %g", c)
	}
	kept := Select(hs, DefaultSelect)
	if len(kept) != 0 {
		// h2 and h4 match the query letter for letter in its columns.
		t.Fatalf("kept %d: %+v", len(kept), kept)
	}
	rows[2] = "ACGaaUAGGUUC"
	rows[4] = "UCGUuAGCUUC"
	hs, err = Homologs(names, rows)
	if err != nil {
		t.Fatal(err)
	}
	kept = Select(hs, DefaultSelect)
	if len(kept) != 2 || kept[0].Name != "h2" || kept[1].Name != "h4" {
		t.Fatalf("kept %v", kept)
	}
	if k := Select(hs, SelectOptions{Max: 1, MinCoverage: 0.5, MaxIdentity: 0.9}); len(k) != 1 {
		t.Fatalf("max 1: %d", len(k))
	}
	// h4 against h2: both changed the same columns the same way.
	rows[4] = "ACGUAGGUUC"
	hs, _ = Homologs(names, rows)
	if k := Select(hs, DefaultSelect); len(k) != 1 {
		t.Fatalf("near duplicate of a kept homolog kept: %v", k)
	}
	for _, bad := range [][]string{
		{"AC", "A"},    // one query column short
		{"AC", "A1"},   // not a letter
		{"A-C", "ACG"}, // the query with a gap
		{"AcG", "ACG"}, // the query with an insertion
	} {
		if _, err := Homologs([]string{"q", "h"}, bad); err == nil || !strings.Contains(err.Error(), "consensus") {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

// randomCase makes a query of l bases, homologs with gaps and
// insertions, and pair lists for each in its own coordinates.
func randomCase(r *rand.Rand, l, n int) ([]Homolog, [][]Pair, []float32) {
	letters := "ACGU"
	q := make([]byte, l)
	for i := range q {
		q[i] = letters[r.IntN(4)]
	}
	names, rows := []string{"q"}, []string{string(q)}
	for k := 0; k < n; k++ {
		var b strings.Builder
		for i := 0; i < l; i++ {
			if r.Float64() < 0.15 {
				b.WriteByte('-')
			} else {
				b.WriteByte(letters[r.IntN(4)])
			}
			if r.Float64() < 0.1 {
				b.WriteByte("acgu"[r.IntN(4)])
			}
		}
		names, rows = append(names, "h"), append(rows, b.String())
	}
	hs, err := Homologs(names, rows)
	if err != nil {
		panic(err)
	}
	pairs := make([][]Pair, len(hs))
	for k := 1; k < len(hs); k++ {
		m := len(hs[k].Seq)
		for c := 0; c < m; c++ {
			i, j := r.IntN(m), r.IntN(m)
			if i < j {
				pairs[k] = append(pairs[k], Pair{i, j, r.Float64() / 4})
			}
		}
	}
	p := make([]float32, l*l)
	for c := 0; c < l; c++ {
		i, j := r.IntN(l), r.IntN(l)
		if i != j {
			v := float32(r.Float64())
			p[i*l+j], p[j*l+i] = v, v
		}
	}
	return hs, pairs, p
}

// TestConsensusIsTheMeanOverSequences checks Consensus against its
// definition computed another way: each homolog's map drawn on the
// query's columns, then for each pair of columns the mean over the
// query and the homologs with residues in both.
func TestConsensusIsTheMeanOverSequences(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 20; trial++ {
		l, n := 5+r.IntN(30), r.IntN(6)
		hs, pairs, p := randomCase(r, l, n)
		s, err := NewSupport(l)
		if err != nil {
			t.Fatal(err)
		}
		for k := 1; k < len(hs); k++ {
			if err := s.Add(&hs[k], pairs[k]); err != nil {
				t.Fatal(err)
			}
		}
		got, err := s.Consensus(p)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < l; i++ {
			for j := 0; j < l; j++ {
				if i == j {
					if got[i*l+j] != 0 {
						t.Fatalf("diagonal %d: %g", i, got[i*l+j])
					}
					continue
				}
				sum, cnt := float64(p[i*l+j]), 1
				for k := 1; k < len(hs); k++ {
					a, b := hs[k].Pos[i], hs[k].Pos[j]
					if a < 0 || b < 0 {
						continue
					}
					cnt++
					if a > b {
						a, b = b, a
					}
					for _, pp := range pairs[k] {
						if pp.I == a && pp.J == b {
							sum += pp.P
						}
					}
				}
				if want := sum / float64(cnt); math.Abs(float64(got[i*l+j])-want) > 1e-6 {
					t.Fatalf("trial %d (%d, %d): %g, want %g", trial, i, j, got[i*l+j], want)
				}
			}
		}
		// The text form gives the same consensus.
		text, _ := s.MarshalText()
		var back Support
		if err := back.UnmarshalText(text); err != nil {
			t.Fatalf("%v: %s", err, text)
		}
		again, _ := back.Consensus(p)
		for k := range got {
			if math.Abs(float64(again[k]-got[k])) > 1e-5 {
				t.Fatalf("trial %d: read back %g, was %g", trial, again[k], got[k])
			}
		}
	}
}

func TestSupportErrors(t *testing.T) {
	if _, err := NewSupport(0); err == nil {
		t.Error("length 0")
	}
	s, _ := NewSupport(3)
	h := Homolog{Name: "h", Seq: "ACG", Pos: []int{0, 1, 2}}
	for _, p := range []Pair{{2, 1, 0.5}, {0, 3, 0.5}, {0, 1, 1.5}, {0, 1, math.NaN()}} {
		if err := s.Add(&h, []Pair{p}); err == nil {
			t.Errorf("pair %+v added", p)
		}
	}
	if err := s.Add(&Homolog{Name: "x", Seq: "AC", Pos: []int{0, 1}}, nil); err == nil {
		t.Error("two columns for three")
	}
	if _, err := s.Consensus(make([]float32, 4)); err == nil {
		t.Error("a 2 x 2 map for 3 bases")
	}
	for _, bad := range []string{"3\t-", "0\t-\t", "3\t11\t", "3\t112\t", "3\t111\t0:1:2", "3\t111\t1:0:0.5", "3\t111\t0:1:0.5 0:1:0.5", "3\t111\t0:x:1"} {
		var b Support
		if err := b.UnmarshalText([]byte(bad)); err == nil {
			t.Errorf("%q read", bad)
		}
	}
}

func FuzzSupportText(f *testing.F) {
	f.Add([]byte("3\t111,101\t0:2:1.5 1:2:0.25"))
	f.Add([]byte("2\t-\t"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var s Support
		if err := s.UnmarshalText(data); err != nil {
			return
		}
		text, _ := s.MarshalText()
		var back Support
		if err := back.UnmarshalText(text); err != nil {
			t.Fatalf("%q read, its rewrite %q not: %v", data, text, err)
		}
		c, err := back.Consensus(make([]float32, s.Len()*s.Len()))
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range c {
			if !(v >= 0 && v <= 1+1e-5) {
				t.Fatalf("%q: consensus value %g", data, v)
			}
		}
	})
}
