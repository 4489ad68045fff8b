package train

import (
	"context"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/contactmap/contactmap/pipeline/model"
	"github.com/contactmap/contactmap/scnn"
)

func tinyModel(t *testing.T, kind model.Kind, seed uint64) *model.Model {
	t.Helper()
	a := tinyOptions(t, kind).Arch
	samples, mode, err := LoadSplit(tinyFeatures(t), "all")
	if err != nil {
		t.Fatal(err)
	}
	a.Mode, a.Labels = mode, samples[0].Labels.Def
	m, err := model.NewModel(a, seed)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// The targets are the upper triangle of the members' mean probability,
// as predict averages an ensemble, whatever the members' layouts.
func TestTeacherTargetsAreTheEnsembleMean(t *testing.T) {
	samples, _, err := LoadSplit(tinyFeatures(t), "all")
	if err != nil {
		t.Fatal(err)
	}
	members := []*model.Model{tinyModel(t, model.CNN, 1), tinyModel(t, model.SCNN, 2), tinyModel(t, model.SCNN, 3)}
	te := &Teacher{Members: members}
	got, err := te.targets(samples, 4)
	if err != nil {
		t.Fatal(err)
	}
	var sums = make([]model.EnsembleMean, len(samples))
	for _, m := range members {
		probs, err := PredictChains(m, samples, 3) // other batches: padding must not matter
		if err != nil {
			t.Fatal(err)
		}
		for i, p := range probs {
			sums[i].Add(p)
		}
	}
	// The CNN member's map is not symmetric: the upper triangle is the
	// target, and reading the lower one would show.
	cnn, err := PredictChains(members[0], samples[:1], 1)
	if err != nil {
		t.Fatal(err)
	}
	asym := false
	for l, i := samples[0].L(), 0; i < l && !asym; i++ {
		for j := i + 1; j < l; j++ {
			asym = asym || cnn[0][i*l+j] != cnn[0][j*l+i]
		}
	}
	if !asym {
		t.Fatal("the CNN member's map is symmetric: the test cannot tell the triangles apart")
	}
	for k, s := range samples {
		want, l := sums[k].Mean(), s.L()
		if len(got[k]) != l*(l+1)/2 {
			t.Fatalf("%s: %d targets for L = %d", s.ID, len(got[k]), l)
		}
		for i := 0; i < l; i++ {
			for j := i; j < l; j++ {
				if g, w := got[k][scnn.PackedIndex(l, i, j)], want[i*l+j]; math.Abs(float64(g-w)) > 1e-6 {
					t.Fatalf("%s (%d,%d): target %v, ensemble mean %v", s.ID, i, j, g, w)
				}
			}
		}
	}
}

// The distillation loss is (1-a) BCE(teacher) + a WBCE(labels), values
// and gradients, and a = 0 is the teacher alone.
func TestDistillLossMixes(t *testing.T) {
	samples, _, err := LoadSplit(tinyFeatures(t), "all")
	if err != nil {
		t.Fatal(err)
	}
	b := model.NewBatch(samples[:3], false)
	rng := rand.New(rand.NewPCG(1, 2))
	z := scnn.New(3, b.L, b.L, 1)
	for i := range z.Data {
		z.Data[i] = float32(rng.NormFloat64() * 2)
	}
	probs := make([][]float32, 3)
	for k, l := range b.Lengths {
		probs[k] = make([]float32, l*(l+1)/2)
		for i := range probs[k] {
			probs[k][i] = rng.Float32()
		}
	}
	labelled := scnn.WeightedBCE{PosWeight: 5, Workers: 1}
	v0, g0, err := scnn.WeightedBCE{PosWeight: 1, Workers: 1}.Forward(z, batchTargets(b, probs), b.Mask)
	if err != nil {
		t.Fatal(err)
	}
	v1, g1, err := labelled.Forward(z, b.Labels, b.Mask)
	if err != nil {
		t.Fatal(err)
	}
	if v0 == v1 {
		t.Fatal("the teacher's and the labels' losses are equal: the test checks nothing")
	}
	for _, a := range []float64{0, 0.25, 1} {
		v, g, err := distillLoss(z, b, probs, a, labelled)
		if err != nil {
			t.Fatal(err)
		}
		if w := (1-a)*v0 + a*v1; math.Abs(v-w) > 1e-9*math.Max(1, math.Abs(w)) {
			t.Errorf("a = %v: loss %v, want %v", a, v, w)
		}
		for i := range g.Data {
			if w := (1-a)*float64(g0.Data[i]) + a*float64(g1.Data[i]); math.Abs(float64(g.Data[i])-w) > 1e-7 {
				t.Fatalf("a = %v: gradient %d is %v, want %v", a, i, g.Data[i], w)
			}
		}
	}
	// The targets' layout: pair (i, j) of sample k takes the packed value.
	tg := batchTargets(b, probs)
	for k, l := range b.Lengths {
		for i := 0; i < l; i++ {
			for j := 0; j < l; j++ {
				if tg[(k*b.L+i)*b.L+j] != probs[k][scnn.PackedIndex(l, min(i, j), max(i, j))] {
					t.Fatalf("sample %d pair (%d,%d) misplaced", k, i, j)
				}
			}
		}
	}
}

// meanGap is the mean |p - q| over the pairs i < j of the samples between
// m's probabilities and the packed targets q.
func meanGap(t *testing.T, m *model.Model, samples []*model.Sample, q [][]float32) float64 {
	t.Helper()
	probs, err := PredictChains(m, samples, 5)
	if err != nil {
		t.Fatal(err)
	}
	var sum float64
	n := 0
	for k, s := range samples {
		l := s.L()
		for i := 0; i < l; i++ {
			for j := i + 1; j < l; j++ {
				sum += math.Abs(float64(probs[k][i*l+j] - q[k][scnn.PackedIndex(l, i, j)]))
				n++
			}
		}
	}
	return sum / float64(n)
}

// A student distilled from a teacher ends closer to the teacher's
// probabilities than it started, and closer than the same student
// trained on the labels.
func TestDistillationLearnsTheTeacher(t *testing.T) {
	to := tinyOptions(t, model.SCNN)
	to.Seed = 3
	teacher := trainModel(t, to)
	samples, _, err := LoadSplit(tinyFeatures(t), "all")
	if err != nil {
		t.Fatal(err)
	}
	te := &Teacher{Members: []*model.Model{teacher}, Names: []string{"tiny teacher"}}
	q, err := te.targets(samples, 5)
	if err != nil {
		t.Fatal(err)
	}
	start := meanGap(t, tinyModel(t, model.CNN, 7), samples, q)
	gaps := map[bool]float64{}
	for _, distil := range []bool{false, true} {
		o := tinyOptions(t, model.CNN)
		o.MaxEpochs = 10
		if distil {
			o.Teacher = te
		}
		m := trainModel(t, o)
		if got := m.Arch.Teacher != ""; got != distil {
			t.Errorf("distilled %v: the model's teacher is %q", distil, m.Arch.Teacher)
		}
		gaps[distil] = meanGap(t, m, samples, q)
	}
	t.Logf("mean |p - teacher|: untrained %.4f, trained on labels %.4f, distilled %.4f", start, gaps[false], gaps[true])
	if !(gaps[true] < 0.75*start && gaps[true] < gaps[false]) {
		t.Errorf("the distilled student is not closer to its teacher: untrained %.4f, labels %.4f, distilled %.4f", start, gaps[false], gaps[true])
	}
}

// A distillation resumes only with its teacher.
func TestDistillationResumesWithItsTeacher(t *testing.T) {
	a := &Teacher{Members: []*model.Model{tinyModel(t, model.SCNN, 1)}, Names: []string{"a"}}
	b := &Teacher{Members: []*model.Model{tinyModel(t, model.SCNN, 2)}, Names: []string{"b"}}
	o := tinyOptions(t, model.SCNN)
	o.MaxEpochs, o.Teacher = 1, a
	if _, err := Train(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	o.Resume, o.MaxEpochs = true, 2
	for name, te := range map[string]*Teacher{"another teacher": b, "no teacher": nil,
		"another label weight": {Members: a.Members, Names: a.Names, LabelWeight: 0.5}} {
		o.Teacher = te
		if _, err := Train(context.Background(), o); err == nil || !strings.Contains(err.Error(), "keeps its teacher") {
			t.Errorf("resumed with %s: %v", name, err)
		}
	}
	o.Teacher = a
	if _, err := Train(context.Background(), o); err != nil {
		t.Errorf("resumed with its teacher: %v", err)
	}
	if m, err := model.LoadModel(o.Out + "/" + ModelFile); err != nil || !strings.Contains(m.Arch.Teacher, short(a.Fingerprint())) {
		t.Errorf("after the resume the model's teacher is %q (%v), want fingerprint %s", m.Arch.Teacher, err, short(a.Fingerprint()))
	}
	// A run on the labels does not resume as a distillation.
	plain := tinyOptions(t, model.SCNN)
	plain.MaxEpochs = 1
	if _, err := Train(context.Background(), plain); err != nil {
		t.Fatal(err)
	}
	plain.Resume, plain.MaxEpochs, plain.Teacher = true, 2, a
	if _, err := Train(context.Background(), plain); err == nil || !strings.Contains(err.Error(), "keeps its teacher") {
		t.Errorf("a labelled run resumed with a teacher: %v", err)
	}
	if _, err := Train(context.Background(), Options{Features: o.Features, Out: t.TempDir(), Arch: o.Arch, MaxEpochs: 1,
		Teacher: &Teacher{Members: a.Members, LabelWeight: 2}}); err == nil || !strings.Contains(err.Error(), "label weight") {
		t.Errorf("label weight 2: %v", err)
	}
}

// Add names each member of a teacher by where it came from.
func TestTeacherAdd(t *testing.T) {
	a, b := &model.Model{}, &model.Model{}
	te := &Teacher{}
	te.Add("ensemble", []*model.Model{a, b})
	te.Add("x.scnn", []*model.Model{a})
	if want := []string{"ensemble #1", "ensemble #2", "x.scnn #1"}; !reflect.DeepEqual(te.Names, want) || len(te.Members) != 3 || te.Members[1] != b {
		t.Errorf("names %q, %d members", te.Names, len(te.Members))
	}
}
