package ssnet

import (
	"fmt"
	"math"

	"github.com/contactmap/contactmap/pairnet"
)

// Kind is the network: the CNN or the SCNN.
type Kind string

const (
	CNN  Kind = "cnn"
	SCNN Kind = "scnn"
)

// ParseKind reads "cnn" or "scnn".
func ParseKind(s string) (Kind, error) {
	switch k := Kind(s); k {
	case CNN, SCNN:
		return k, nil
	}
	return "", fmt.Errorf("ssnet: unknown model %q (cnn or scnn)", s)
}

// Protocol is a training protocol: the network's widths and how it is
// trained.
type Protocol struct {
	Name      string  `json:"name"`
	Crop      int     `json:"crop"`       // training window, nucleotides
	Steps     int     `json:"steps"`      // optimiser steps
	Batch     int     `json:"batch"`      // crops per step
	LRCNN     float64 `json:"lr_cnn"`     // Adam learning rate of the CNN
	LRSCNN    float64 `json:"lr_scnn"`    // and of the SCNN
	L2        float64 `json:"l2"`         // L2 decay of the kernels
	PosWeight float64 `json:"pos_weight"` // weight of a true pair in the loss
	EvalEvery int     `json:"eval_every"` // steps between validations (and checkpoints)
	// HalveEvery is the number of steps between halvings of the learning
	// rate (the authors' code halves it every 2,500 steps); 0 keeps it.
	HalveEvery int `json:"halve_every"`
	// Widths of the network (see Spec).
	LSTMHidden, LSTMOut int   `json:"-"`
	Block1, Block2      []int `json:"-"` // kernel sizes of the first two blocks
	Widths1, Widths2    []int `json:"-"`
	Block3, Width3      int   `json:"-"`
	PairWidth           int   `json:"-"` // the SCNN's sgConv pair map
	ReinjectWidth       int   `json:"-"` // the SCNN's re-injection sgConv
}

// Paper is the paper's protocol: its widths, 500-nt crops, batches of 10,
// about the authors' 27,500 steps, and their learning-rate halving every
// 2,500 steps (dwillmott/ss-inf machine.py).
var Paper = Protocol{Name: "paper", Crop: 500, Steps: 27500, Batch: 10, LRCNN: 1e-3, LRSCNN: 2e-3, L2: 1e-5, PosWeight: 5, EvalEvery: 1000, HalveEvery: 2500,
	LSTMHidden: 75, LSTMOut: 15,
	Block1: []int{13, 9, 5}, Widths1: []int{20, 20, 10},
	Block2: []int{9, 5}, Widths2: []int{20, 20},
	Block3: 5, Width3: 20, PairWidth: 40, ReinjectWidth: 20}

// Default is the protocol of the shipped model and the seed comparison:
// the paper's shape with about a third of its widths and smaller kernels,
// trained on 64-nt crops for 3,000 steps with the learning rate halved
// every 1,000 (the authors halve theirs every 2,500), and validated
// twice (validation predicts the 28 whole molecules, about a minute on
// two cores), so that each model trains in under 15 minutes on two
// cores. The SCNN's pair map and re-injection keep the CNN's widths
// (2(5+8) = 26 and 10 channels). Crops of 64 learned more per second
// than crops of 96 or 160 in short trial runs (validation accuracy on
// every fourth validation molecule; notes in experiments/rna-default).
var Default = Protocol{Name: "default", Crop: 64, Steps: 3000, Batch: 10, LRCNN: 1e-3, LRSCNN: 2e-3, L2: 1e-5, PosWeight: 5,
	EvalEvery: 1500, HalveEvery: 1000,
	LSTMHidden: 24, LSTMOut: 8,
	Block1: []int{9, 5, 3}, Widths1: []int{8, 8, 4},
	Block2: []int{5, 3}, Widths2: []int{8, 8},
	Block3: 3, Width3: 8, PairWidth: 26, ReinjectWidth: 10}

// ProtocolByName returns Paper or Default.
func ProtocolByName(name string) (Protocol, error) {
	switch name {
	case Paper.Name:
		return Paper, nil
	case Default.Name:
		return Default, nil
	}
	return Protocol{}, fmt.Errorf("ssnet: unknown protocol %q (default or paper)", name)
}

// LR is the protocol's initial learning rate for a kind.
func (p Protocol) LR(k Kind) float64 {
	if k == SCNN {
		return p.LRSCNN
	}
	return p.LRCNN
}

// LRAt is the learning rate of a kind's step (0-based): LR halved once
// per HalveEvery steps already taken.
func (p Protocol) LRAt(k Kind, step int) float64 {
	lr := p.LR(k)
	if p.HalveEvery > 0 {
		lr = math.Ldexp(lr, -(step / p.HalveEvery))
	}
	return lr
}

// InChannels is the width of the one-hot input: A, C, G, U, other.
const InChannels = 5

// Spec is the network of a kind under the protocol's widths: the CNN as
// Willmott's, the SCNN with the same widths and symmetric layers.
func (p Protocol) Spec(k Kind) pairnet.Spec {
	s := pairnet.Spec{Symmetric: k == SCNN, In1D: InChannels, LSTMHidden: p.LSTMHidden, LSTMOut: p.LSTMOut,
		Blocks: []pairnet.Block{{Kernels: p.Block1, Widths: p.Widths1}, {Kernels: p.Block2, Widths: p.Widths2},
			pairnet.Uniform(p.Width3, p.Block3)},
		Reinject: &pairnet.MapSpec{}, OutKernel: 3}
	if k == SCNN {
		s.Pair = pairnet.MapSpec{Width: p.PairWidth, BN: true, ReLU: true}
		s.Reinject = &pairnet.MapSpec{Width: p.ReinjectWidth, BN: true, ReLU: true}
	}
	return s
}
