package train

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"math"
	"math/rand/v2"

	"github.com/contactmap/contactmap/pipeline/model"
	"github.com/contactmap/contactmap/scnn"
)

// Teacher turns a run into a distillation (Hinton, Vinyals and Dean
// 2015, "Distilling the knowledge in a neural network"): the student
// learns the teacher's contact probabilities, the mean over Members
// (model.EnsembleMean, as predict combines an ensemble), computed once
// per training chain when the run starts. The training loss of a pair
// (i < j, labelled) with teacher probability q and label y is
//
//	(1-a) * BCE(z; q)  +  a * WBCE(z; y)
//
// where a is LabelWeight, BCE the binary cross-entropy with positive
// weight 1 (its minimum is at sigmoid(z) = q, so the student keeps the
// teacher's calibration) and WBCE the run's weighted loss against the
// labels (PosWeight). Validation is unchanged: the weighted loss against
// the labels, so a distilled run and a labelled one select alike.
type Teacher struct {
	Members []*model.Model
	// Names say where each member came from (a file, or a shipped
	// ensemble and the member), for messages; the checkpoint records the members' parameters'
	// fingerprint, and a resumed run refuses another teacher.
	Names []string
	// LabelWeight is a in [0, 1]: 0 learns the teacher alone, 1 the
	// labels alone.
	LabelWeight float64
}

// Add appends the models of one teacher to the members (spec: a shipped
// model or a model file), named "SPEC #k" for messages.
func (t *Teacher) Add(spec string, ms []*model.Model) {
	for i, m := range ms {
		t.Members = append(t.Members, m)
		t.Names = append(t.Names, fmt.Sprintf("%s #%d", spec, i+1))
	}
}

// LoadTeacher is the teacher of the models of specs (each a shipped
// model or a model file, resolved by load; Add), its labels weighted by
// labelWeight, each spec's source and then the teacher's size said on w.
// A spec that cannot be loaded is an error naming --teacher.
func LoadTeacher(specs []string, labelWeight float64, load func(spec string) ([]*model.Model, string, error), w io.Writer) (*Teacher, error) {
	t := &Teacher{LabelWeight: labelWeight}
	for _, spec := range specs {
		ms, from, err := load(spec)
		if err != nil {
			return nil, fmt.Errorf("--teacher: %w", err)
		}
		t.Add(spec, ms)
		fmt.Fprintf(w, "teacher: %s\n", from)
	}
	fmt.Fprintf(w, "distilling %d teacher models, label weight %v\n", len(t.Members), t.LabelWeight)
	return t, nil
}

// Fingerprint is a SHA-256 over the members' parameters, in order: two
// teachers with the same fingerprint give the same targets.
func (t *Teacher) Fingerprint() string {
	h := sha256.New()
	var b [4]byte
	for _, m := range t.Members {
		for _, p := range m.Params() {
			h.Write([]byte(p.Name))
			for _, v := range p.Value {
				binary.LittleEndian.PutUint32(b[:], math.Float32bits(v))
				h.Write(b[:])
			}
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

func (t *Teacher) check(samples []*model.Sample) error {
	if t == nil {
		return nil
	}
	if len(t.Members) == 0 {
		return fmt.Errorf("train: a teacher of no models")
	}
	if math.IsNaN(t.LabelWeight) || t.LabelWeight < 0 || t.LabelWeight > 1 {
		return fmt.Errorf("train: teacher label weight %v outside [0, 1]", t.LabelWeight)
	}
	for k, m := range t.Members {
		if err := checkData(m, samples); err != nil {
			return fmt.Errorf("teacher member %d (%s): %w", k+1, t.name(k), err)
		}
	}
	return nil
}

// labelWeight is t's label weight, 0 without a teacher.
func (t *Teacher) labelWeight() float64 {
	if t == nil {
		return 0
	}
	return t.LabelWeight
}

func (t *Teacher) name(k int) string {
	if k < len(t.Names) {
		return t.Names[k]
	}
	return fmt.Sprintf("#%d", k+1)
}

// targets returns the teacher's mean contact probability of every
// sample, as its packed upper triangle (scnn.PackedIndex: the targets of
// pairs i <= j; a CNN member's map is not symmetric, and its upper
// triangle is its prediction). The members run batch by batch, so only
// one batch's ensemble sums are held besides the packed targets.
func (t *Teacher) targets(samples []*model.Sample, batchSize int) ([][]float32, error) {
	out := make([][]float32, len(samples))
	for _, idx := range Batches(samples, batchSize, rand.New(rand.NewPCG(0, 0)), true) {
		var b *model.Batch
		sums := make([]model.EnsembleMean, len(idx))
		for k, m := range t.Members {
			if b == nil || m.Packed() != (b.X2.Layout == scnn.Packed) {
				b = model.NewBatch(pick(samples, idx), m.Packed())
			}
			logits, err := m.Forward(scnn.Inference(0), b)
			if err != nil {
				return nil, fmt.Errorf("teacher member %d (%s): %w", k+1, t.name(k), err)
			}
			for s, l := range b.Lengths {
				sums[s].AddLogits(logits, s, l)
			}
		}
		for s, l := range b.Lengths {
			p := sums[s].Mean()
			packed := make([]float32, l*(l+1)/2)
			for i := 0; i < l; i++ {
				for j := i; j < l; j++ {
					packed[scnn.PackedIndex(l, i, j)] = p[i*l+j]
				}
			}
			out[idx[s]] = packed
		}
	}
	return out, nil
}

// batchTargets lays the packed targets of a batch's samples out as the
// batch's labels are (B x L x L row-major, L the batch's longest chain).
func batchTargets(b *model.Batch, probs [][]float32) []float32 {
	l := b.L
	out := make([]float32, len(b.Lengths)*l*l)
	for k, ls := range b.Lengths {
		p := probs[k]
		for i := 0; i < ls; i++ {
			for j := i; j < ls; j++ {
				v := p[scnn.PackedIndex(ls, i, j)]
				out[(k*l+i)*l+j], out[(k*l+j)*l+i] = v, v
			}
		}
	}
	return out
}

// distillLoss is the training loss of a distillation (see Teacher): the
// mean loss and dL/dz.
func distillLoss(z *scnn.Tensor, b *model.Batch, probs [][]float32, a float64, labelled scnn.WeightedBCE) (float64, *scnn.Tensor, error) {
	soft := scnn.WeightedBCE{PosWeight: 1, Workers: labelled.Workers}
	v, g, err := soft.Forward(z, batchTargets(b, probs), b.Mask)
	if err != nil || a == 0 {
		return v, g, err
	}
	vl, gl, err := labelled.Forward(z, b.Labels, b.Mask)
	if err != nil {
		return 0, nil, err
	}
	for i := range g.Data {
		g.Data[i] = float32((1-a)*float64(g.Data[i]) + a*float64(gl.Data[i]))
	}
	return (1-a)*v + a*vl, g, nil
}

// short is a fingerprint's first 12 hex digits, for messages.
func short(fp string) string {
	if len(fp) > 12 {
		return fp[:12]
	}
	return fp
}
