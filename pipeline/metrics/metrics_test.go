package metrics

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/contactmap/contactmap/pdb"
	"github.com/contactmap/contactmap/scnn"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-12 }

// truthOf packs row-major labels and mask (1: contact, 1: known) into
// Contacts.
func truthOf(l int, labels, mask []float32) *pdb.Contacts {
	c := &pdb.Contacts{L: l, Def: pdb.DefaultContactDef, Contact: make([]bool, l*(l+1)/2), Known: make([]bool, l*(l+1)/2)}
	for i := 0; i < l; i++ {
		for j := i + 1; j < l; j++ {
			k := scnn.PackedIndex(l, i, j)
			c.Contact[k], c.Known[k] = labels[i*l+j] == 1, mask[i*l+j] == 1
		}
	}
	return c
}

func TestEvaluateThreshold(t *testing.T) {
	// L = 4, pairs (0,1) (0,2) (0,3) (1,2) (1,3) (2,3).
	// Contacts: (0,1) (1,2) (0,3). Predicted >= 0.5: (0,1) (0,2) (2,3).
	l := 4
	labels, mask, p := make([]float32, 16), make([]float32, 16), make([]float32, 16)
	set := func(v []float32, i, j int, x float32) { v[i*l+j], v[j*l+i] = x, x }
	for i := 0; i < l; i++ {
		for j := 0; j < l; j++ {
			mask[i*l+j] = 1
		}
	}
	set(labels, 0, 1, 1)
	set(labels, 1, 2, 1)
	set(labels, 0, 3, 1)
	set(p, 0, 1, 0.9)
	set(p, 0, 2, 0.5)
	set(p, 2, 3, 0.7)
	set(p, 0, 3, 0.49)
	m := Evaluate("x", p, truthOf(l, labels, mask))
	// TP 1 (0,1); FP 2; FN 2.
	if !near(m.PPV, 1.0/3) || !near(m.Sens, 1.0/3) || !near(m.Accuracy, 1.0/3) {
		t.Errorf("PPV %v Sens %v Acc %v", m.PPV, m.Sens, m.Accuracy)
	}
	// Masking (0,3) removes a false negative.
	set(mask, 0, 3, 0)
	m = Evaluate("x", p, truthOf(l, labels, mask))
	if !near(m.Sens, 0.5) {
		t.Errorf("masked pair counted: Sens %v", m.Sens)
	}
	// Nothing predicted: PPV 0 by definition.
	m = Evaluate("x", make([]float32, 16), truthOf(l, labels, mask))
	if m.PPV != 0 || m.Sens != 0 {
		t.Errorf("empty prediction: %+v", m)
	}
}

func TestEvaluateTopL(t *testing.T) {
	// L = 40: long-range candidates are pairs with j - i >= 24. Make 3 of
	// them contacts and score them and one non-contact highest.
	l := 40
	labels, mask, p := make([]float32, l*l), make([]float32, l*l), make([]float32, l*l)
	for i := range mask {
		mask[i] = 1
	}
	set := func(v []float32, i, j int, x float32) { v[i*l+j], v[j*l+i] = x, x }
	set(labels, 0, 30, 1)
	set(labels, 1, 35, 1)
	set(labels, 5, 39, 1)
	set(p, 0, 30, 0.99)
	set(p, 1, 35, 0.98)
	set(p, 2, 30, 0.97) // not a contact
	set(p, 5, 39, 0.96)
	set(p, 3, 8, 0.999) // short range, must not count in long
	m := Evaluate("x", p, truthOf(l, labels, mask))
	// L/10 = 4 long-range pairs: 3 of 4 are contacts. L/5 = 8: 3/8.
	if !near(m.TopL[Long][TopL10], 0.75) || !near(m.TopL[Long][TopL5], 3.0/8) {
		t.Errorf("long top-L/10 %v, top-L/5 %v", m.TopL[Long][TopL10], m.TopL[Long][TopL5])
	}
	// Short range (6-11): the only labelled contact is none; (3,8) is top.
	if m.TopL[Short][TopL10] != 0 {
		t.Errorf("short top-L/10 %v", m.TopL[Short][TopL10])
	}
}

func TestBaselines(t *testing.T) {
	l := 10
	p := NearDiagonalBaseline(l)
	labels, mask := make([]float32, l*l), make([]float32, l*l)
	for i := 0; i < l; i++ {
		for j := 0; j < l; j++ {
			mask[i*l+j] = 1
			if d := i - j; d >= -3 && d <= 3 && d != 0 {
				labels[i*l+j] = 1 // contacts up to |i-j| = 3
			}
		}
	}
	m := Evaluate("x", p, truthOf(l, labels, mask))
	// Predicted: 9 + 8 = 17 pairs, all contacts; contacts: 17 + 7 = 24.
	if !near(m.PPV, 1) || !near(m.Sens, 17.0/24) {
		t.Errorf("baseline PPV %v Sens %v", m.PPV, m.Sens)
	}
	r := RandomBaseline(l, rand.New(rand.NewPCG(1, 1)))
	if r[3*l+7] != r[7*l+3] {
		t.Error("random baseline not symmetric")
	}
	s := Summarize([]ChainMetrics{{PPV: 1, Sens: 0, Accuracy: 0.5}, {PPV: 0, Sens: 1, Accuracy: 0.5}})
	if s.PPV != 0.5 || s.Accuracy != 0.5 || s.Chains != 2 {
		t.Errorf("summary %+v", s)
	}
}
