package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/contactmap/contactmap/rec"
	"github.com/contactmap/contactmap/scnn"
)

// The rec cases time one training step of CosRec and SCosRec
// (package rec) as `rec train` takes it, beside their PyTorch twins
// (torch_ref.py's CosRec, CosRec's reference layers): a batch of
// recBatch users, each with its last L = 5 items, T = 3 target items and
// 3 sampled negatives, the default configuration (d = 50, blocks 128 and
// 256, FC 150, dropout 0.5) at MovieLens 100K's sizes; forward, CosRec's
// loss, backward, Adam (lr 1e-3, L2 5e-6 on every parameter, as `rec
// train` defaults).

const (
	recBatch        = 512
	recUsers        = 943 // MovieLens 100K
	recItems        = 1682
	recTargets      = 3
	recNegatives    = 3
	recLR, recDecay = 1e-3, 5e-6
)

// recConfig is the network of a kind.
func recConfig(kind string) (rec.Config, error) {
	k, err := rec.ParseKind(kind)
	if err != nil {
		return rec.Config{}, err
	}
	return rec.DefaultConfig(k, recUsers, recItems), nil
}

// recConfigJSON is the configuration the PyTorch twin reads.
func recConfigJSON(kind string) (string, error) {
	c, err := recConfig(kind)
	if err != nil {
		return "", err
	}
	raw, err := json.Marshal(c)
	return string(raw), err
}

// recConvMACs is the multiply-adds of the convolutions of one sample on
// full maps: each block's 1x1 convolution on its l x l input and its
// valid 3x3 one on (l-2) x (l-2) outputs. The SCosRec's first 1x1 is an
// sgConv on the item embeddings, counted as the CosRec's convolution it
// replaces.
func recConvMACs(c rec.Config) float64 {
	l, in, macs := c.L, 2*c.D, 0.0
	for _, w := range c.Blocks {
		macs += float64(l * l * in * w)
		l -= 2
		macs += float64(l * l * 9 * w * w)
		in = w
	}
	return macs
}

// recExecutedMACs is what the Go pass of c computes per sample: the
// CosRec's convolutions on full maps (recConvMACs); the SCosRec's first
// 1x1 as its sgConv's two halves (L*d*w: the outer sum's terms) and every
// other convolution on the packed upper triangle of its output, l(l+1)/2
// pixels of l x l.
func recExecutedMACs(c rec.Config) float64 {
	if c.Kind != rec.SCosRec {
		return recConvMACs(c)
	}
	tri := func(l int) float64 { return float64(l * (l + 1) / 2) }
	l, in, macs := c.L, 2*c.D, 0.0
	for i, w := range c.Blocks {
		if i == 0 {
			macs += float64(c.L * c.D * w)
		} else {
			macs += tri(l) * float64(in*w)
		}
		l -= 2
		macs += tri(l) * float64(9*w*w)
		in = w
	}
	return macs
}

// recCases is the training step of both kinds, side by side.
func recCases(torch bool) []benchCase {
	c, _ := recConfig("cosrec")
	var sides []side
	for _, kind := range []string{"cosrec", "scosrec"} {
		t := task{Kind: "rec-train", Model: kind, B: recBatch, L: c.L}
		kc, _ := recConfig(kind)
		sides = append(sides, side{Label: "go/" + kind, Task: t, FLOPs: 3 * 2 * recExecutedMACs(kc) * recBatch})
		if torch {
			sides = append(sides, side{Label: "torch/" + kind, Torch: true, Task: t})
		}
	}
	return []benchCase{{Group: "rec-train", Name: "default", FLOPs: 3 * 2 * recConvMACs(c) * recBatch, Sides: sides}}
}

// buildRecTask is one training step of t.Model on a synthetic batch of
// t.B users.
func buildRecTask(t task, rng *rand.Rand) (func() error, int, error) {
	c, err := recConfig(t.Model)
	if err != nil {
		return nil, 0, err
	}
	m, err := rec.NewModel(c, 1)
	if err != nil {
		return nil, 0, err
	}
	b, cands := t.B, recTargets+recNegatives
	users, seq, items := make([]int32, b), make([]int32, b*c.L), make([]int32, b*cands)
	for i := range users {
		users[i] = int32(rng.IntN(c.Users))
	}
	for i := range seq {
		seq[i] = int32(1 + rng.IntN(c.Items))
	}
	for i := range items {
		items[i] = int32(1 + rng.IntN(c.Items))
	}
	drop := rand.New(rand.NewPCG(3, 4))
	return trainStep(scnn.NewAdam(m.Params(), recLR, recDecay), func(pass *scnn.Pass) (*scnn.Tensor, error) { return m.Forward(pass, users, seq, items, drop) },
		func(z *scnn.Tensor) (float64, *scnn.Tensor, error) { return rec.Loss(z, recTargets) }), m.Trainable(), nil
}

// recTable is the section of the rec case, or "" when the run has none.
func (r *report) recTable() string {
	c := r.find("rec-train", "default")
	if c == nil {
		return ""
	}
	var b strings.Builder
	b.WriteString("## Sequential recommendation: a CosRec and an SCosRec training step\n\n")
	fmt.Fprintf(&b, "`rec train`'s step at its defaults: batch %d users, L = 5 items, %d targets and %d negatives each, d = 50, blocks 128 and 256 (a 1x1 and a valid 3x3 convolution each, on 5 x 5 then 3 x 3 maps), FC 150, dropout 0.5, Adam with L2 on every parameter; MovieLens 100K's sizes (%d users, %d items). PyTorch: the reference layers (torch_ref.py's CosRec; trainable parameters equal, tested). GFLOP counts the convolutions on full maps (the SCosRec's first sgConv as the convolution it replaces), 3x the forward pass, PyTorch's numerator; Go GFLOP what the Go pass computes (the SCosRec's sgConv by its halves, its other convolutions on the packed upper triangle). The embeddings, the dense layers and Adam over every parameter are not in either, and take much of the step.\n\n", recBatch, recTargets, recNegatives, recUsers, recItems)
	b.WriteString("| model | params | GFLOP | Go GFLOP | Go | PyTorch | Go/PyTorch | Go GFLOP/s | Go % of peak | PyTorch GFLOP/s | Go peak MiB | PyTorch peak MiB |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, kind := range []string{"cosrec", "scosrec"} {
		gs, ts := r.med("rec-train", "default", "go/"+kind), r.med("rec-train", "default", "torch/"+kind)
		params := 0
		if s := c.side("go/" + kind); s != nil {
			params = s.Params
		}
		if s := c.side("torch/" + kind); s != nil && s.Params != params {
			fmt.Fprintf(&b, "<!-- %s: PyTorch has %d trainable parameters, Go %d -->\n", kind, s.Params, params)
		}
		name := map[string]string{"cosrec": "CosRec", "scosrec": "SCosRec"}[kind]
		gf0 := r.flops("rec-train", "default", "go/"+kind)
		fmt.Fprintf(&b, "| %s | %d | %.3f | %.3f | %s | %s | %s | %s | %s | %s | %s | %s |\n", name, params, c.FLOPs/1e9, gf0/1e9, sec(gs), sec(ts), ratio(gs, ts),
			gf(gf0, gs), pct(gflops(gf0, gs), r.Machine.FMAPeak), gf(c.FLOPs, ts), mibOr(r.peak("rec-train", "default", "go/"+kind)), mibOr(r.peak("rec-train", "default", "torch/"+kind)))
	}
	b.WriteString("\n")
	return b.String()
}
