package scnn

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"testing"
)

func TestAdamFirstStep(t *testing.T) {
	// The first bias-corrected step moves each weight by LR*sign(g)
	// (up to eps), whatever |g|.
	p := newParam("w", true, true, 3)
	copy(p.Value, []float32{1, 2, 3})
	copy(p.Grad, []float32{0.5, -20, 1e-3})
	a := NewAdam([]*Param{p}, 0.1, 0)
	a.Step()
	want := []float32{0.9, 2.1, 2.9}
	for i := range want {
		if math.Abs(float64(p.Value[i]-want[i])) > 1e-5 {
			t.Errorf("w[%d] = %v, want %v", i, p.Value[i], want[i])
		}
	}
}

func TestAdamMinimisesQuadraticWithDecay(t *testing.T) {
	// f(w) = sum (w - 3)², L2 1: minimum of f + 0.5 w² at 2w-6+w = 0, w = 2.
	p := newParam("w", true, true, 4)
	a := NewAdam([]*Param{p}, 0.05, 1)
	for it := 0; it < 3000; it++ {
		a.ZeroGrad()
		for i, w := range p.Value {
			p.Grad[i] = 2 * (w - 3)
		}
		a.Step()
	}
	for i, w := range p.Value {
		if math.Abs(float64(w)-2) > 1e-2 {
			t.Errorf("w[%d] = %v, want 2", i, w)
		}
	}
}

func TestAdamStateRoundTrip(t *testing.T) {
	p := newParam("w", true, true, 2)
	a := NewAdam([]*Param{p}, 0.1, 0)
	p.Grad[0], p.Grad[1] = 1, -2
	a.Step()
	a.Step()
	var buf bytes.Buffer
	if err := WriteParams(&buf, nil, a.State()); err != nil {
		t.Fatal(err)
	}
	_, arrays, err := ReadParams(&buf)
	if err != nil {
		t.Fatal(err)
	}
	q := newParam("w", true, true, 2)
	copy(q.Value, p.Value)
	b := NewAdam([]*Param{q}, 0.1, 0)
	if err := b.SetState(arrays); err != nil {
		t.Fatal(err)
	}
	copy(q.Grad, p.Grad)
	a.Step()
	b.Step()
	if b.T != 3 || maxAbsDiff(p.Value, q.Value) != 0 {
		t.Errorf("restored optimiser diverged: T=%d, %v vs %v", b.T, q.Value, p.Value)
	}
}

func TestParamsRoundTripAndCorruption(t *testing.T) {
	rng := newRNG(90)
	sp := must[*SymPresConv](t)(NewSymPresConv("sp", 3, 2, 4, rng))
	bn := NewBatchNorm2D("bn", 4)
	randn(bn.RunMean.Value, rng)
	params := append(sp.Params(), bn.Params()...)
	arch := []byte(`{"model":"test"}`)
	var buf bytes.Buffer
	if err := WriteParams(&buf, arch, params); err != nil {
		t.Fatal(err)
	}
	file := buf.Bytes()
	gotArch, arrays, err := ReadParams(bytes.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	if string(gotArch) != string(arch) {
		t.Errorf("arch %q", gotArch)
	}
	sp2 := must[*SymPresConv](t)(NewSymPresConv("sp", 3, 2, 4, newRNG(1)))
	bn2 := NewBatchNorm2D("bn", 4)
	if err := AssignParams(append(sp2.Params(), bn2.Params()...), arrays); err != nil {
		t.Fatal(err)
	}
	if maxAbsDiff(sp2.R.Value, sp.R.Value) != 0 || maxAbsDiff(bn2.RunMean.Value, bn.RunMean.Value) != 0 {
		t.Error("values differ after round trip")
	}
	if !arrays[0].Trainable || !arrays[0].Decay || arrays[4].Trainable {
		t.Error("flags lost")
	}
	// Wrong model.
	if err := AssignParams(sp2.Params(), arrays); !errors.Is(err, ErrMismatch) {
		t.Errorf("extra arrays: %v", err)
	}
	// Flipped bit -> checksum; truncation -> corrupt; bad magic; version.
	bad := append([]byte(nil), file...)
	bad[len(bad)/2] ^= 1 // inside the values of sp.R
	if _, _, err := ReadParams(bytes.NewReader(bad)); !errors.Is(err, ErrChecksum) {
		t.Errorf("flipped bit: %v", err)
	}
	if _, _, err := ReadParams(bytes.NewReader(file[:len(file)-7])); !errors.Is(err, ErrCorrupt) {
		t.Errorf("truncated: %v", err)
	}
	if _, _, err := ReadParams(bytes.NewReader([]byte("PK\x03\x04 zip file"))); !errors.Is(err, ErrFormat) {
		t.Errorf("bad magic: %v", err)
	}
	v2 := append([]byte(nil), file...)
	v2[8] = 2
	if _, _, err := ReadParams(bytes.NewReader(v2)); !errors.Is(err, ErrVersion) {
		t.Errorf("version 2: %v", err)
	}
}

// The layout documented in io.go, checked byte by byte on a tiny file.
func TestParamsByteLayout(t *testing.T) {
	p := &Param{Name: "ab", Shape: []int{2}, Value: []float32{1, -2}, Trainable: true}
	var buf bytes.Buffer
	if err := WriteParams(&buf, []byte("X"), []*Param{p}); err != nil {
		t.Fatal(err)
	}
	want := []byte("SCNNPRM\x00" + "\x01\x00\x00\x00" + "\x01\x00\x00\x00X" + "\x01\x00\x00\x00" +
		"\x02\x00ab" + "\x01" + "\x01" + "\x02\x00\x00\x00" + "\x00\x00\x80\x3f" + "\x00\x00\x00\xc0")
	got := buf.Bytes()
	if !bytes.Equal(got[:len(got)-4], want) {
		t.Errorf("got  % x\nwant % x", got[:len(got)-4], want)
	}
}

func FuzzReadParams(f *testing.F) {
	var buf bytes.Buffer
	p := &Param{Name: "w", Shape: []int{2, 2}, Value: []float32{1, 2, 3, 4}, Trainable: true, Decay: true}
	WriteParams(&buf, []byte("{}"), []*Param{p})
	f.Add(buf.Bytes())
	f.Add([]byte("SCNNPRM\x00\x01\x00\x00\x00\xff\xff\xff\xff"))
	f.Fuzz(func(t *testing.T, data []byte) {
		arch, arrays, err := ReadParams(bytes.NewReader(data))
		// A reader whose size ReadParams cannot tell reads the same.
		arch2, arrays2, err2 := ReadParams(struct{ io.Reader }{bytes.NewReader(data)})
		if (err == nil) != (err2 == nil) || !bytes.Equal(arch, arch2) || !reflect.DeepEqual(arrays, arrays2) {
			t.Fatalf("size known: %v; unknown: %v", err, err2)
		}
		if err != nil {
			return
		}
		// Checked against the shapes it holds, it reads the same, unless
		// a name is repeated.
		shapes := make([]ParamShape, len(arrays))
		names := map[string]bool{}
		for i, a := range arrays {
			shapes[i] = ParamShape{a.Name, a.Shape}
			names[a.Name] = true
		}
		_, arrays3, err := ReadParamsExpect(bytes.NewReader(data), func([]byte) ([]ParamShape, error) { return shapes, nil })
		if len(names) < len(arrays) {
			if !errors.Is(err, ErrMismatch) {
				t.Fatalf("a repeated name: %v, want ErrMismatch", err)
			}
		} else if err != nil || !reflect.DeepEqual(arrays3, arrays) {
			t.Fatalf("checked against its own shapes: %v", err)
		}
		// A file that reads must write back to the same bytes.
		var ps []*Param
		for _, a := range arrays {
			ps = append(ps, &Param{Name: a.Name, Shape: a.Shape, Value: a.Values, Trainable: a.Trainable, Decay: a.Decay})
		}
		var out bytes.Buffer
		if err := WriteParams(&out, arch, ps); err != nil {
			t.Fatal(err)
		}
		// (ReadParams stops at the checksum; data may run on.)
		if !bytes.HasPrefix(data, out.Bytes()) {
			t.Fatalf("rewrite differs")
		}
	})
}

// A decayed weight whose data gradient is always 0 (an input channel the
// data never set) shrinks to exactly 0 without going below 2^-100, and its
// moments never become subnormal; the other weights' updates are the
// formula's, bit for bit.
func TestAdamFlushesSubnormals(t *testing.T) {
	dead := newParam("dead", true, true, 3)
	live := newParam("live", true, true, 2)
	copy(dead.Value, []float32{1e-20, -4e-25, 3e-29})
	copy(live.Value, []float32{0.5, -0.25})
	a := NewAdam([]*Param{dead, live}, 1e-3, 1e-5) // the protein default's
	// The reference for the live weights: the update without the flush.
	lw := append([]float32(nil), live.Value...)
	lm, lv := make([]float32, 2), make([]float32, 2)
	subnormal := func(v float32) bool { return v != 0 && math.Abs(float64(v)) < 0x1p-126 }
	zeroAt := 0
	for step := 1; step <= 200000 && zeroAt == 0; step++ {
		a.ZeroGrad()
		live.Grad[0], live.Grad[1] = 0.01*float32(step%7-3), 1e-3
		a.Step()
		c1 := 1 - math.Pow(0.9, float64(step))
		c2 := 1 - math.Pow(0.999, float64(step))
		for i := range lw {
			g := live.Grad[i] + float32(1e-5)*lw[i]
			b1, b2 := float32(0.9), float32(0.999)
			lm[i] = b1*lm[i] + (1-b1)*g
			lv[i] = b2*lv[i] + (1-b2)*g*g
			lw[i] -= float32(1e-3 * (float64(lm[i]) / c1) / (math.Sqrt(float64(lv[i])/c2) + 1e-8))
			if math.Float32bits(live.Value[i]) != math.Float32bits(lw[i]) {
				t.Fatalf("step %d: live[%d] = %v, the formula gives %v", step, i, live.Value[i], lw[i])
			}
		}
		for i, v := range dead.Value {
			if v != 0 && math.Abs(float64(v)) < 0x1p-100 || subnormal(a.m[0][i]) || subnormal(a.v[0][i]) {
				t.Fatalf("step %d: dead[%d] = %v, m %v, v %v: subnormal", step, i, v, a.m[0][i], a.v[0][i])
			}
		}
		if dead.Value[0] == 0 && dead.Value[1] == 0 && dead.Value[2] == 0 {
			zeroAt = step
		}
	}
	if zeroAt == 0 {
		t.Fatalf("the dead weights did not reach 0: %v", dead.Value)
	}
	t.Logf("dead weights 0 after %d steps", zeroAt)
}

// Adam.Step, its elements spread over workers in spans and updated by
// kern.AdamUpdate, gives the bits of the element-by-element loop it
// replaced, over parameters shorter
// and longer than a span, with and without decay, for three steps.
func TestAdamStepSpans(t *testing.T) {
	rng := newRNG(84)
	mk := func(n int, decay bool) *Param {
		p := &Param{Name: fmt.Sprint("p", n), Shape: []int{n}, Value: make([]float32, n), Grad: make([]float32, n), Trainable: true, Decay: decay}
		randn(p.Value, rng)
		return p
	}
	sizes := []int{7, adamSpan + 3, 2*adamSpan + 1, 1}
	var ps, ref []*Param
	for i, n := range sizes {
		p := mk(n, i%2 == 0)
		ps = append(ps, p)
		q := *p
		q.Value, q.Grad = append([]float32(nil), p.Value...), make([]float32, n)
		ref = append(ref, &q)
	}
	a := NewAdam(ps, 1e-3, 1e-4)
	m, v := make([][]float32, len(ref)), make([][]float32, len(ref))
	for k := range ref {
		m[k], v[k] = make([]float32, sizes[k]), make([]float32, sizes[k])
	}
	for step := 1; step <= 3; step++ {
		for k, p := range ps {
			randn(p.Grad, rng)
			copy(ref[k].Grad, p.Grad)
		}
		a.Step()
		c1 := 1 - math.Pow(a.Beta1, float64(step))
		c2 := 1 - math.Pow(a.Beta2, float64(step))
		b1, b2 := float32(a.Beta1), float32(a.Beta2)
		for k, p := range ref {
			for i, g := range p.Grad {
				if p.Decay {
					g += float32(a.L2) * p.Value[i]
				}
				m[k][i] = flushToZero(b1*m[k][i] + (1-b1)*g)
				v[k][i] = flushToZero(b2*v[k][i] + (1-b2)*g*g)
				mh := float64(m[k][i]) / c1
				vh := float64(v[k][i]) / c2
				p.Value[i] = flushBelow(p.Value[i]-float32(a.LR*mh/(math.Sqrt(vh)+a.Eps)), minWeight)
			}
		}
		for k := range ps {
			for i := range ps[k].Value {
				if math.Float32bits(ps[k].Value[i]) != math.Float32bits(ref[k].Value[i]) {
					t.Fatalf("step %d: param %d [%d] = %v, want %v", step, k, i, ps[k].Value[i], ref[k].Value[i])
				}
			}
		}
	}
}

// The flushes of the loop Adam.Step replaced (TestAdamStepSpans's
// reference): minNormal32 is the smallest normal float32, 2^-126;
// minWeight the smallest weight Adam keeps (see Adam).
const (
	minNormal32 = 0x1p-126
	minWeight   = 0x1p-100
)

// flushToZero returns v, or 0 (of v's sign) where v is subnormal.
func flushToZero(v float32) float32 { return flushBelow(v, minNormal32) }

// flushBelow returns v, or 0 (of v's sign) where |v| < min.
func flushBelow(v, min float32) float32 {
	if v > -min && v < min {
		return v * 0
	}
	return v
}
