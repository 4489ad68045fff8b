package main

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/contactmap/contactmap/pairnet"
	"github.com/contactmap/contactmap/rna/ssnet"
	"github.com/contactmap/contactmap/scnn"
)

// The RNA cases time the networks the RNA experiments train
// and ship, beside their PyTorch twins (torch_ref.py's PairNet, built
// from the same pairnet.Spec):
//
//   - rna-train: one training step of the shipped recipe's networks
//     (ssnet protocol rnaProtocol: its widths, batch and the pair crops'
//     2 x 64 nt windows), forward + weighted BCE + backward + Adam;
//   - rna-sweep: inference on one molecule of length L, the shipped
//     network's architecture (the recipe's SCNN and its CNN twin), then
//     the sigmoid.
//
// The inputs are synthetic: a one-hot sequence and the recipe's 2D
// channels (template and energy) at random.

// rnaProtocol is the recipe of the shipped RNA model (models/rna.go:
// rna-scnn, experiments/rna-families).
const rnaProtocol = "families"

// rnaSweepLengths are the molecule lengths of the rna-sweep cases; the
// PyTorch side runs up to rnaTorchMaxL (its full maps at L = 3,000 take
// several GiB per activation).
var rnaSweepLengths = []int{1000, 2000, 3000}

const rnaTorchMaxL = 2000

// rnaSpec is the network of a kind under a protocol.
func rnaSpec(kind, protocol string) (pairnet.Spec, ssnet.Protocol, error) {
	p, err := ssnet.ProtocolByName(protocol)
	if err != nil {
		return pairnet.Spec{}, p, err
	}
	k, err := ssnet.ParseKind(kind)
	if err != nil {
		return pairnet.Spec{}, p, err
	}
	return p.Spec(k), p, nil
}

// rnaSpecJSON is the network description the PyTorch twin reads.
func rnaSpecJSON(kind, protocol string) (string, error) {
	s, _, err := rnaSpec(kind, protocol)
	if err != nil {
		return "", err
	}
	raw, err := json.Marshal(s)
	return string(raw), err
}

// rnaCases are the RNA rows: the training step at batch and crop of the
// recipe, and one molecule per length.
func rnaCases(torch bool) []benchCase {
	s, p, err := rnaSpec("cnn", rnaProtocol)
	if err != nil {
		panic(err) // the protocol is the package's own
	}
	// materialised is what PyTorch computes for a kind: its own network's
	// convolutions on full maps.
	materialised := func(kind string, t task) float64 {
		ks, _, _ := rnaSpec(kind, rnaProtocol)
		f := 2 * ks.ConvMACs() * float64(t.B*t.L*t.L)
		if t.Kind == "rna-train" {
			f *= 3
		}
		return f
	}
	sides := func(t task, torchToo bool, executed func(kind string) float64) []side {
		var ss []side
		for _, kind := range []string{"cnn", "scnn"} {
			t.Model = kind
			ss = append(ss, side{Label: "go/" + kind, Task: t, FLOPs: executed(kind)})
			if torch && torchToo {
				ss = append(ss, side{Label: "torch/" + kind, Torch: true, Task: t, FLOPs: materialised(kind, t)})
			}
		}
		return ss
	}
	l := 2 * p.Crop // pair crops: two stretches of Crop bases
	train := task{Kind: "rna-train", Config: rnaProtocol, B: p.Batch, L: l}
	cs := []benchCase{{Group: "rna-train", Name: rnaProtocol, FLOPs: 3 * 2 * s.ConvMACs() * float64(p.Batch*l*l),
		Sides: withBF16(sides(train, true, func(kind string) float64 {
			ks, _, _ := rnaSpec(kind, rnaProtocol)
			return ks.TrainFLOPs(p.Batch, l)
		}))}}
	for _, n := range rnaSweepLengths {
		t := task{Kind: "rna-infer", Config: rnaProtocol, B: 1, L: n}
		cs = append(cs, benchCase{Group: "rna-sweep", Name: fmt.Sprintf("%s/L%d", rnaProtocol, n),
			FLOPs: 2 * s.ConvMACs() * float64(n*n), MaxReps: 1, NoWarmup: true,
			Sides: sides(t, n <= rnaTorchMaxL, func(kind string) float64 {
				ks, _, _ := rnaSpec(kind, rnaProtocol)
				return ks.InferenceFLOPs(1, n)
			})})
	}
	return cs
}

// buildRNATask builds an rna-train or rna-infer task: the network of
// t.Model under protocol t.Config, on a synthetic batch of t.B molecules
// of length t.L.
func buildRNATask(t task, rng *rand.Rand) (func() error, int, error) {
	run, net, err := rnaTask(t, rng)
	if err != nil {
		return nil, 0, err
	}
	return run, net.Trainable(), nil
}

// rnaTask is buildRNATask's run and the network it trains or runs.
func rnaTask(t task, rng *rand.Rand) (func() error, *pairnet.Net, error) {
	s, p, err := rnaSpec(t.Model, t.Config)
	if err != nil {
		return nil, nil, err
	}
	net, err := pairnet.New(s, 1)
	if err != nil {
		return nil, nil, err
	}
	b, l := t.B, t.L
	in := pairnet.Inputs{X1: scnn.New(b, l, s.In1D)}
	for k := 0; k < b; k++ {
		in.Lengths = append(in.Lengths, l)
		for i := 0; i < l; i++ {
			in.X1.Data[(k*l+i)*s.In1D+rng.IntN(4)] = 1
		}
	}
	training := t.Kind == "rna-train"
	var labels, mask []float32
	if training {
		labels, mask = make([]float32, b*l*l), make([]float32, b*l*l)
	}
	if s.In2D > 0 {
		if s.Symmetric {
			in.X2 = scnn.NewPacked(b, l, s.In2D)
		} else {
			in.X2 = scnn.New(b, l, l, s.In2D)
		}
	}
	for k := 0; k < b; k++ {
		for i := 0; i < l; i++ {
			for j := i; j < l; j++ {
				for c := 0; c < s.In2D; c++ {
					v := float32(rng.IntN(2))
					in.X2.Set(v, k, i, j, c)
					if !s.Symmetric {
						in.X2.Set(v, k, j, i, c)
					}
				}
				if training && j > i {
					y := float32(0)
					if rng.Float64() < 0.01 {
						y = 1
					}
					for _, o := range []int{(k*l+i)*l + j, (k*l+j)*l + i} {
						labels[o], mask[o] = y, 1
					}
				}
			}
		}
	}
	if t.Kind == "rna-infer" {
		return func() error {
			z, err := net.Forward(scnn.Inference(0), in)
			if err != nil {
				return err
			}
			for i, v := range z.Data {
				z.Data[i] = float32(1 / (1 + math.Exp(-float64(v))))
			}
			return nil
		}, net, nil
	}
	kind, _ := ssnet.ParseKind(t.Model)
	loss := scnn.WeightedBCE{PosWeight: p.PosWeight}
	return trainStep(scnn.NewAdam(net.Params(), p.LR(kind), p.L2), func(pass *scnn.Pass) (*scnn.Tensor, error) { return net.Forward(pass, in) },
		func(z *scnn.Tensor) (float64, *scnn.Tensor, error) { return loss.Forward(z, labels, mask) }), net, nil
}

// rnaTable is the section of the RNA cases, or "" when the run has none.
func (r *report) rnaTable() string {
	// A run made since training goes by halves counts the CNN's training
	// step below the materialised maps'.
	halvesNote := "a network whose pair maps are made of 1D halves infers their convolutions by halves (pairnet.Spec.InferenceFLOPs)"
	if c := r.find("rna-train", rnaProtocol); c != nil {
		if f := r.flops("rna-train", rnaProtocol, "go/cnn"); f > 0 && f < c.FLOPs {
			halvesNote = "a network whose pair maps are made of 1D halves trains and infers their convolutions by halves (pairnet.Spec.TrainFLOPs, InferenceFLOPs)"
		}
	}
	train, sweep := r.find("rna-train", rnaProtocol), r.group("rna-sweep")
	if train == nil && len(sweep) == 0 {
		return ""
	}
	peak := r.Machine.FMAPeak
	var b strings.Builder
	b.WriteString("## RNA networks (the shipped recipe)\n\n")
	fmt.Fprintf(&b, "The networks of the RNA recipe the shipped model was trained with (rna/ssnet protocol `%s`: the SCNN and its CNN twin, the template and energy channels as 2D inputs), on synthetic molecules (one-hot sequence, random 0/1 2D channels). PyTorch: the same pairnet.Spec built by torch_ref.py's PairNet (trainable parameters equal, tested). GFLOP counts the CNN's 2D convolutions on full maps (pairnet.Spec.ConvMACs; 3x the forward pass for a training step); PyTorch's GFLOP/s count its own network's so; Go's GFLOP/s and %% of peak count what the Go pass executes: the SCNN trains and infers on the L(L+1)/2 upper-triangle pixels, %s.\n\n", rnaProtocol, halvesNote)
	row := func(group, name, label string, l int, c *caseResult) {
		for _, kind := range []string{"cnn", "scnn"} {
			gs, ts := r.med(group, name, "go/"+kind), r.med(group, name, "torch/"+kind)
			params := 0
			if s := c.side("go/" + kind); s != nil {
				params = s.Params
			}
			if s := c.side("torch/" + kind); s != nil && s.Params != params {
				fmt.Fprintf(&b, "<!-- %s %s: PyTorch has %d trainable parameters, Go %d -->\n", name, kind, s.Params, params)
			}
			gf0, tf := r.flops(group, name, "go/"+kind), r.flops(group, name, "torch/"+kind)
			fmt.Fprintf(&b, "| %s %s | %d | %d | %.1f | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", label, strings.ToUpper(kind), l, params, c.FLOPs/1e9, gflopCell(gf0),
				sec(gs), sec(ts), ratio(gs, ts), gf(gf0, gs), pct(gflops(gf0, gs), peak), gf(tf, ts),
				mibOr(r.peak(group, name, "go/"+kind)), mibOr(r.peak(group, name, "torch/"+kind)))
		}
	}
	b.WriteString("| step | L | params | GFLOP | Go GFLOP | Go | PyTorch | Go/PyTorch | Go GFLOP/s | Go % of peak | PyTorch GFLOP/s | Go peak MiB | PyTorch peak MiB |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	if train != nil {
		_, p, err := rnaSpec("cnn", train.Name)
		if err == nil {
			row("rna-train", train.Name, fmt.Sprintf("training step, batch %d,", p.Batch), 2*p.Crop, train)
		}
	}
	for i := range sweep {
		c := &sweep[i]
		_, ls, _ := strings.Cut(c.Name, "/L")
		var l int
		fmt.Sscan(ls, &l)
		row("rna-sweep", c.Name, "inference, one molecule,", l, c)
	}
	b.WriteString("\n")
	return b.String()
}
