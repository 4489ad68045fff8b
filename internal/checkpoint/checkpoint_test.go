package checkpoint

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/contactmap/contactmap/scnn"
)

type state struct {
	Epoch int       `json:"epoch"`
	LR    float64   `json:"lr"`
	Log   []float64 `json:"log"`
}

// net is a small set of parameters (a Dense layer and a batchnorm's
// state) with an Adam that has taken steps.
func net(t testing.TB, seed uint64, steps int) ([]*scnn.Param, *scnn.Adam) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 1))
	d, err := scnn.NewDense("fc", 3, 2, rng)
	if err != nil {
		t.Fatal(err)
	}
	ps := append(d.Params(), scnn.NewBatchNorm2D("bn", 2).Params()...)
	opt := scnn.NewAdam(ps, 1e-2, 1e-4)
	for s := 0; s < steps; s++ {
		for _, p := range ps {
			for i := range p.Grad {
				p.Grad[i] = float32(rng.NormFloat64())
			}
		}
		opt.Step()
	}
	return ps, opt
}

func values(ps []*scnn.Param) [][]float32 {
	var out [][]float32
	for _, p := range ps {
		out = append(out, slices.Clone(p.Value))
	}
	return out
}

// Save, Read and Restore give back the state, the parameters and the
// optimiser exactly: the restored optimiser's next step equals the
// original's.
func TestRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "checkpoint.scnn")
	ps, opt := net(t, 1, 3)
	st := state{Epoch: 4, LR: 0.5e-3, Log: []float64{1.5, 0.25}}
	if err := Save(path, &st, ps, opt); err != nil {
		t.Fatal(err)
	}
	var back state
	arrays, err := Read(path, &back)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, st) {
		t.Fatalf("state %+v, want %+v", back, st)
	}
	ps2, opt2 := net(t, 2, 0) // other values, no steps
	if err := Restore(arrays, ps2, opt2); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(values(ps2), values(ps)) || opt2.T != opt.T {
		t.Fatalf("restored params or step count differ (T %d, want %d)", opt2.T, opt.T)
	}
	for _, o := range []struct {
		ps  []*scnn.Param
		opt *scnn.Adam
	}{{ps, opt}, {ps2, opt2}} {
		for _, p := range o.ps {
			for i := range p.Grad {
				p.Grad[i] = float32(i) - 1
			}
		}
		o.opt.Step()
	}
	if !reflect.DeepEqual(values(ps2), values(ps)) {
		t.Fatal("the step after restoring differs from the original's")
	}
}

// A damaged, truncated, missing or mismatched checkpoint is an error that
// names the file (or the parameter), never a partial state.
func TestCorruption(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "checkpoint.scnn")
	ps, opt := net(t, 1, 2)
	if err := Save(path, &state{Epoch: 2}, ps, opt); err != nil {
		t.Fatal(err)
	}
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.scnn")
	for _, c := range []struct {
		name string
		data []byte
		want error
	}{
		{"flipped byte", func() []byte { b := slices.Clone(good); b[len(b)/2] ^= 0x10; return b }(), scnn.ErrChecksum},
		{"truncated", good[:len(good)-9], scnn.ErrCorrupt},
		{"not a checkpoint", []byte("epoch 3\n"), scnn.ErrFormat},
	} {
		if err := os.WriteFile(bad, c.data, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Read(bad, new(state))
		if !errors.Is(err, c.want) || !strings.Contains(err.Error(), bad) {
			t.Errorf("%s: %v, want %v naming the file", c.name, err, c.want)
		}
	}
	if _, err := Read(filepath.Join(dir, "none.scnn"), new(state)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	// A record that is not the state asked for.
	var buf bytes.Buffer
	if err := scnn.WriteParams(&buf, []byte(`{"epoch":"three"}`), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFrom(&buf, "ck.scnn", new(state)); err == nil || !strings.Contains(err.Error(), "ck.scnn: checkpoint record") {
		t.Errorf("bad record: %v", err)
	}
	// Arrays of another network.
	arrays, err := Read(path, new(state))
	if err != nil {
		t.Fatal(err)
	}
	d, _ := scnn.NewDense("other", 3, 2, rand.New(rand.NewPCG(1, 1)))
	if err := Restore(arrays, d.Params(), scnn.NewAdam(d.Params(), 1, 0)); !errors.Is(err, scnn.ErrMismatch) {
		t.Errorf("other network: %v", err)
	}
}

// An optimiser state Adam cannot go on from (a negative, fractional or
// huge step count, a negative second moment) is refused by Restore; it
// was restored, and the next step divided by the root of a negative
// number.
func TestRestoreChecksAdamState(t *testing.T) {
	ps, opt := net(t, 1, 2)
	var arrays []scnn.Array
	for _, p := range append(slices.Clone(ps), opt.State()...) {
		arrays = append(arrays, scnn.Array{Name: p.Name, Shape: p.Shape, Values: slices.Clone(p.Value), Trainable: p.Trainable})
	}
	ps2, opt2 := net(t, 2, 0)
	if err := Restore(arrays, ps2, opt2); err != nil || opt2.T != 2 {
		t.Fatalf("good state: %v (T %d)", err, opt2.T)
	}
	for _, c := range []struct {
		name  string
		value float32
		want  string
	}{{"adam.t", -1, "step count"}, {"adam.t", 2.5, "step count"}, {"adam.t", 1 << 30, "step count"}, {"adam.v/fc.W", -1e-3, "adam.v/fc.W value 0"}} {
		broken := slices.Clone(arrays)
		for i := range broken {
			if broken[i].Name == c.name {
				broken[i].Values = slices.Clone(broken[i].Values)
				broken[i].Values[0] = c.value
			}
		}
		ps3, opt3 := net(t, 3, 0)
		err := Restore(broken, ps3, opt3)
		if !errors.Is(err, scnn.ErrCorrupt) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s = %v: %v, want ErrCorrupt saying %q", c.name, c.value, err, c.want)
		}
	}
}

// FuzzReadCheckpoint fuzzes checkpoint files (seeded with a real one).
// Whatever reads names no error; whatever reads and restores onto the
// network gives it exactly the file's values, and saving that again reads
// back to the same state; every error names the file.
func FuzzReadCheckpoint(f *testing.F) {
	ps, opt := net(f, 1, 2)
	var buf bytes.Buffer
	rec := []byte(`{"epoch":3,"lr":0.001,"log":[0.5]}`)
	if err := scnn.WriteParams(&buf, rec, append(slices.Clone(ps), opt.State()...)); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	f.Add([]byte("SCNNPRM\x00\x01\x00\x00\x00"))
	f.Fuzz(checkFile)
}

// FuzzRestore fuzzes the record, the step count and a second moment of a
// checkpoint inside a valid container (a fuzzer seldom gets through the
// checksum on its own), with FuzzReadCheckpoint's properties.
func FuzzRestore(f *testing.F) {
	f.Add([]byte(`{"epoch":3,"lr":0.001,"log":[0.5]}`), float32(2), float32(0.5))
	f.Add([]byte(`{"epoch":-1}`), float32(-1), float32(-0.5))
	f.Add([]byte(`null`), float32(1e30), float32(0))
	f.Fuzz(func(t *testing.T, rec []byte, step, moment float32) {
		ps, opt := net(t, 1, 2)
		st := opt.State()
		st[len(st)-1].Value[0] = step
		for _, p := range st {
			if p.Name == "adam.v/fc.W" {
				p.Value[0] = moment
			}
		}
		var buf bytes.Buffer
		if scnn.WriteParams(&buf, rec, append(slices.Clone(ps), st...)) != nil {
			return
		}
		checkFile(t, buf.Bytes())
	})
}

func checkFile(t *testing.T, data []byte) {
	const name = "fuzz/checkpoint.scnn"
	var st state
	arrays, err := ReadFrom(bytes.NewReader(data), name, &st)
	if err != nil {
		if !strings.Contains(err.Error(), name) {
			t.Fatalf("error does not name the file: %v", err)
		}
		return
	}
	ps, opt := net(t, 2, 0)
	if err := Restore(arrays, ps, opt); err != nil {
		return
	}
	if opt.T < 0 {
		t.Fatalf("restored step count %d", opt.T)
	}
	byName := map[string][]float32{}
	for _, a := range arrays {
		byName[a.Name] = a.Values
	}
	for _, p := range append(slices.Clone(ps), opt.State()...) {
		if !slices.Equal(byName[p.Name], p.Value) {
			t.Fatalf("%s restored as %v, the file has %v", p.Name, p.Value, byName[p.Name])
		}
		if strings.HasPrefix(p.Name, "adam.v/") && slices.Min(p.Value) < 0 {
			t.Fatalf("%s restored negative", p.Name)
		}
	}
	path := filepath.Join(t.TempDir(), "again.scnn")
	if err := Save(path, &st, ps, opt); err != nil {
		t.Fatal(err)
	}
	var back state
	if _, err := Read(path, &back); err != nil || !reflect.DeepEqual(back, st) {
		t.Fatalf("saved again: %+v %v, want %+v", back, err, st)
	}
}
