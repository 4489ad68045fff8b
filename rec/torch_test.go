package rec

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/contactmap/contactmap/scnn"
)

// torchKernel converts a Go kernel (K, K, Cin, Cout) to PyTorch's (Cout,
// Cin, K, K) for CosRec's pairwise encoding: CosRec puts [e_j, e_i] at
// (i, j), scnn.SelfCartesian [e_i, e_j], so every map of the reference is
// the transpose of ours and its kernel is spatially transposed:
// torch[o, c, a, b] = W[b, a, c, o].
func torchKernel(w []float32, k, cin, cout int) []float32 {
	out := make([]float32, len(w))
	for o := 0; o < cout; o++ {
		for c := 0; c < cin; c++ {
			for a := 0; a < k; a++ {
				for b := 0; b < k; b++ {
					out[((o*cin+c)*k+a)*k+b] = w[((b*k+a)*cin+c)*cout+o]
				}
			}
		}
	}
	return out
}

func transpose(w []float32, rows, cols int) []float32 {
	out := make([]float32, len(w))
	for r := 0; r < rows; r++ {
		for c := 0; c < cols; c++ {
			out[c*rows+r] = w[r*cols+c]
		}
	}
	return out
}

// CosRec's scores equal those of the reference code's PyTorch layers on
// the same weights, with running statistics (evaluation) and with batch
// statistics (training, dropout 0). Skipped without python3-torch unless
// CONTACTMAP_REQUIRE_TORCH is set (CI sets it).
func TestCosRecMatchesPyTorch(t *testing.T) {
	const python = "/usr/bin/python3" // Debian's, where python3-torch installs
	if err := exec.Command(python, "-c", "import torch").Run(); err != nil {
		if os.Getenv("CONTACTMAP_REQUIRE_TORCH") != "" {
			t.Fatalf("CONTACTMAP_REQUIRE_TORCH is set but python3-torch does not import: %v", err)
		}
		t.Skip("python3-torch not installed")
	}
	cfg := smallConfig(CosRec, 3, 9)
	cfg.Dropout = 0
	m, err := NewModel(cfg, 11)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for _, p := range m.Params() { // biases, batchnorm and its statistics away from 0 and 1
		for i := range p.Value {
			switch n := p.Name; {
			case n == "out.b.W" || strings.HasSuffix(n, ".b"):
				p.Value[i] = float32(0.1 * rng.NormFloat64())
			case strings.HasSuffix(n, ".running_mean"):
				p.Value[i] = float32(0.2 * rng.NormFloat64())
			case strings.HasSuffix(n, ".running_var"):
				p.Value[i] = float32(0.5 + rng.Float64())
			case strings.HasSuffix(n, ".gamma") || strings.HasSuffix(n, ".beta"):
				p.Value[i] += float32(0.2 * rng.NormFloat64())
			}
		}
	}
	users := []int32{0, 2, 1, 2}
	seq := []int32{1, 2, 3, 4, 5, 0, 0, 9, 8, 7, 3, 3, 3, 3, 3, 6, 1, 6, 2, 6}
	cands := []int32{1, 2, 3, 4, 5, 6, 7, 8}
	in := map[string]any{"l": cfg.L, "d": cfg.D, "fc": cfg.FC, "users": users, "seq": seq, "cands": cands,
		"item": m.ItemEmb.W.Value, "user": m.UserEmb.W.Value, "out_w": m.Out.W.Value, "out_b": m.OutBias.W.Value,
		"fc_w": transpose(m.FCLayer.W.Value, m.FCLayer.In, m.FCLayer.Out), "fc_b": m.FCLayer.B.Value}
	var blocks []map[string]any
	cin := 2 * cfg.D
	for _, b := range m.blocks {
		w := b.full1.Cout
		bn := func(n *scnn.BatchNorm2D) [][]float32 {
			return [][]float32{n.Gamma.Value, n.Beta.Value, n.RunMean.Value, n.RunVar.Value}
		}
		blocks = append(blocks, map[string]any{"width": w,
			"w1": torchKernel(b.full1.W.Value, 1, cin, w), "b1": b.full1.B.Value,
			"w3": torchKernel(b.full3.W.Value, 3, w, w), "b3": b.full3.B.Value,
			"bn1": bn(b.bn1), "bn3": bn(b.bn3)})
		cin = w
	}
	in["blocks"] = blocks
	body, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(python, "testdata/cosrec_ref.py")
	cmd.Stdin = bytes.NewReader(body)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	outJSON, err := cmd.Output()
	if err != nil {
		t.Fatalf("reference: %v\n%s", err, stderr.String())
	}
	var ref map[string][]float64
	if err := json.Unmarshal(outJSON, &ref); err != nil {
		t.Fatal(err)
	}
	for _, mode := range []string{"eval", "train"} {
		p := scnn.Inference(1)
		if mode == "train" {
			p = scnn.Training(1)
		}
		y, err := m.Forward(p, users, seq, cands, rand.New(rand.NewPCG(1, 1)))
		if err != nil {
			t.Fatal(err)
		}
		if len(ref[mode]) != len(y.Data) {
			t.Fatalf("%s: %d reference scores for %d", mode, len(ref[mode]), len(y.Data))
		}
		for i, v := range y.Data {
			if d := math.Abs(float64(v) - ref[mode][i]); d > 1e-4*math.Max(1, math.Abs(ref[mode][i])) {
				t.Errorf("%s: score %d: Go %g, PyTorch %g", mode, i, v, ref[mode][i])
			}
		}
	}
}
