package checkpoint

import (
	"bytes"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/contactmap/contactmap/internal/modelkind"
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

// stepBoth takes the same step on two networks.
func stepBoth(a, b []*scnn.Param, oa, ob *scnn.Adam) {
	for _, ps := range [][]*scnn.Param{a, b} {
		for _, p := range ps {
			for i := range p.Grad {
				p.Grad[i] = float32(i) - 1
			}
		}
	}
	oa.Step()
	ob.Step()
}

// Save, Load and Restore give back the states, the parameters and the
// optimiser exactly: the restored optimiser's next step equals the
// original's.
func TestRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "checkpoint.scnn")
	ps, opt := net(t, 1, 3)
	loopSt := state{Epoch: 4, LR: 0.5e-3, Log: []float64{1.5, 0.25}}
	task := map[string]string{"kind": "scnn"}
	if err := Save(path, &loopSt, task, ps, opt); err != nil {
		t.Fatal(err)
	}
	c, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	var back state
	var backTask map[string]string
	if err := json.Unmarshal(c.Loop, &back); err != nil || !reflect.DeepEqual(back, loopSt) {
		t.Fatalf("loop state %+v (%v), want %+v", back, err, loopSt)
	}
	if err := json.Unmarshal(c.Task, &backTask); err != nil || !reflect.DeepEqual(backTask, task) {
		t.Fatalf("task state %v (%v)", backTask, err)
	}
	if c.Format != Format || c.OptType != "adam" || c.OptSteps != 3 {
		t.Fatalf("format %d, optimiser %q after %d steps", c.Format, c.OptType, c.OptSteps)
	}
	ps2, opt2 := net(t, 2, 0) // other values, no steps
	if err := c.Restore(ps2, opt2); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(values(ps2), values(ps)) || opt2.T != opt.T {
		t.Fatalf("restored params or step count differ (T %d, want %d)", opt2.T, opt.T)
	}
	stepBoth(ps, ps2, opt, opt2)
	if !reflect.DeepEqual(values(ps2), values(ps)) {
		t.Fatal("the step after restoring differs from the original's")
	}
}

// legacyFile is a checkpoint as written before the shared loop: the
// record is the system's state, Adam's state under "adam." names.
func legacyFile(t testing.TB, rec []byte, ps []*scnn.Param, opt *scnn.Adam) []byte {
	var buf bytes.Buffer
	if err := scnn.WriteParams(&buf, rec, append(slices.Clone(ps), opt.State()...)); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// A format-0 checkpoint is read: the record as the task's state, the
// optimiser's state from its "adam." arrays, restored exactly.
func TestLegacy(t *testing.T) {
	ps, opt := net(t, 1, 5)
	c, err := LoadFrom(bytes.NewReader(legacyFile(t, []byte(`{"epoch":3}`), ps, opt)), "old.scnn")
	if err != nil {
		t.Fatal(err)
	}
	if c.Format != 0 || string(c.Task) != `{"epoch":3}` || c.Loop != nil || c.OptSteps != 5 || len(c.Params) != len(ps) {
		t.Fatalf("legacy checkpoint read as %+v", c)
	}
	ps2, opt2 := net(t, 2, 0)
	if err := c.Restore(ps2, opt2); err != nil {
		t.Fatal(err)
	}
	stepBoth(ps, ps2, opt, opt2)
	if !reflect.DeepEqual(values(ps2), values(ps)) || opt2.T != 6 {
		t.Fatal("the step after restoring a legacy checkpoint differs")
	}
}

// A damaged, truncated, missing or mismatched checkpoint is an error that
// names the file (or the parameter), never a partial state.
func TestCorruption(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "checkpoint.scnn")
	ps, opt := net(t, 1, 2)
	if err := Save(path, &state{Epoch: 2}, nil, ps, opt); err != nil {
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
		_, err := Load(bad)
		if !errors.Is(err, c.want) || !strings.Contains(err.Error(), bad) {
			t.Errorf("%s: %v, want %v naming the file", c.name, err, c.want)
		}
	}
	if _, err := Load(filepath.Join(dir, "none.scnn")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	for _, rec := range []string{`{"checkpoint_format":7}`, `{"checkpoint_format":2,"optimizer":{"arrays":99}}`,
		`{"checkpoint_format":2,"optimizer":{"steps":-1}}`, `[1]`} {
		var buf bytes.Buffer
		if err := scnn.WriteParams(&buf, []byte(rec), ps); err != nil {
			t.Fatal(err)
		}
		if _, err := LoadFrom(&buf, "ck.scnn"); err == nil || !strings.Contains(err.Error(), "ck.scnn") {
			t.Errorf("record %s: %v", rec, err)
		}
	}
	// Arrays of another network; another optimiser type.
	c, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	d, _ := scnn.NewDense("other", 3, 2, rand.New(rand.NewPCG(1, 1)))
	if err := c.Restore(d.Params(), scnn.NewAdam(d.Params(), 1, 0)); !errors.Is(err, scnn.ErrMismatch) {
		t.Errorf("other network: %v", err)
	}
	c.OptType = "sgd"
	ps2, opt2 := net(t, 2, 0)
	if err := c.Restore(ps2, opt2); !errors.Is(err, scnn.ErrMismatch) {
		t.Errorf("other optimiser: %v", err)
	}
}

// An optimiser state Adam cannot go on from (a negative, fractional or
// huge step count, a negative second moment) is refused.
func TestRestoreChecksAdamState(t *testing.T) {
	ps, opt := net(t, 1, 2)
	for _, c := range []struct {
		name  string
		value float32
		want  string
	}{{"adam.t", -1, "step count"}, {"adam.t", 2.5, "step count"}, {"adam.t", 1 << 30, "step count"}, {"adam.v/fc.W", -1e-3, "v/fc.W value 0"}} {
		st := opt.State()
		var arrays []*scnn.Param
		for _, p := range st {
			p = &scnn.Param{Name: p.Name, Shape: p.Shape, Value: slices.Clone(p.Value)}
			if p.Name == c.name {
				p.Value[0] = c.value
			}
			arrays = append(arrays, p)
		}
		var buf bytes.Buffer
		if err := scnn.WriteParams(&buf, []byte(`{}`), append(slices.Clone(ps), arrays...)); err != nil {
			t.Fatal(err)
		}
		ck, err := LoadFrom(&buf, "x")
		if err == nil {
			ps3, opt3 := net(t, 3, 0)
			err = ck.Restore(ps3, opt3)
		}
		if !errors.Is(err, scnn.ErrCorrupt) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s = %v: %v, want ErrCorrupt saying %q", c.name, c.value, err, c.want)
		}
	}
}

// FuzzReadCheckpoint fuzzes checkpoint files (seeded with real ones of
// both formats). Whatever reads and restores onto the network gives it
// exactly the file's values, and saving that again reads back to the
// same state; every error names the file.
func FuzzReadCheckpoint(f *testing.F) {
	ps, opt := net(f, 1, 2)
	f.Add(legacyFile(f, []byte(`{"epoch":3,"lr":0.001,"log":[0.5]}`), ps, opt))
	path := filepath.Join(f.TempDir(), "c.scnn")
	if err := Save(path, &state{Epoch: 1}, map[string]int{"a": 1}, ps, opt); err != nil {
		f.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	f.Add(b)
	f.Add([]byte("SCNNPRM\x00\x01\x00\x00\x00"))
	f.Fuzz(checkFile)
}

// FuzzRestore fuzzes the record, the step count and a second moment of a
// legacy checkpoint inside a valid container (a fuzzer seldom gets
// through the checksum on its own), with FuzzReadCheckpoint's properties.
func FuzzRestore(f *testing.F) {
	f.Add([]byte(`{"epoch":3,"lr":0.001,"log":[0.5]}`), float32(2), float32(0.5))
	f.Add([]byte(`{"checkpoint_format":2,"optimizer":{"type":"adam","steps":3,"arrays":4}}`), float32(-1), float32(-0.5))
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
	c, err := LoadFrom(bytes.NewReader(data), name)
	if err != nil {
		if !strings.Contains(err.Error(), name) {
			t.Fatalf("error does not name the file: %v", err)
		}
		return
	}
	ps, opt := net(t, 2, 0)
	if err := c.Restore(ps, opt); err != nil {
		return
	}
	if opt.T < 0 || opt.T != c.OptSteps {
		t.Fatalf("restored step count %d (file %d)", opt.T, c.OptSteps)
	}
	byName := map[string][]float32{}
	for _, a := range c.Params {
		byName[a.Name] = a.Values
	}
	for _, p := range ps {
		if !slices.Equal(byName[p.Name], p.Value) {
			t.Fatalf("%s restored as %v, the file has %v", p.Name, p.Value, byName[p.Name])
		}
	}
	for k, m := range opt.Moments() {
		if !slices.Equal(m.Value, c.Moments[k].Values) {
			t.Fatalf("moment %s restored as %v, the file has %v", m.Name, m.Value, c.Moments[k].Values)
		}
		if k%2 == 1 && slices.Min(m.Value) < 0 {
			t.Fatalf("%s restored negative", m.Name)
		}
	}
	path := filepath.Join(t.TempDir(), "again.scnn")
	if err := Save(path, json.RawMessage(orNull(c.Loop)), json.RawMessage(orNull(c.Task)), ps, opt); err != nil {
		t.Fatal(err)
	}
	back, err := Load(path)
	if err != nil || back.OptSteps != c.OptSteps || len(back.Moments) != len(c.Moments) {
		t.Fatalf("saved again: %+v %v", back, err)
	}
}

func orNull(b []byte) []byte {
	if len(b) == 0 || !json.Valid(b) {
		return []byte("null")
	}
	return b
}

// A checkpoint's run kind is told by the model record in its
// task state, and a checkpoint read as a model file names the kind of
// run found and the kind of model wanted (it said "model file format 1
// ... retrain it").
func TestRunKindAndNotAModel(t *testing.T) {
	protein := `{"arch":{"format":2,"kind":"scnn","config":"default","n1d":25,"blocks":[[3]]},"workers":2}`
	rnaTask := `{"record":{"format":1,"kind":"cnn","protocol":"default","spec":{"in_1d":5}},"protocol":{"name":"default"}}`
	recTask := `{"record":{"format":1,"config":{"kind":"scosrec","users":3,"items":4},"user_ids":[1]},"workers":1}`
	for task, want := range map[string]modelkind.Kind{protein: modelkind.Protein, rnaTask: modelkind.RNA, recTask: modelkind.Rec} {
		if k, ok := RunKind(json.RawMessage(task)); !ok || k != want {
			t.Errorf("RunKind(%s) = %v, %v; want %v", task, k, ok, want)
		}
	}
	if _, ok := RunKind(json.RawMessage(`{"seed":1}`)); ok {
		t.Error("a task state without a model record has a kind")
	}
	rec := []byte(`{"checkpoint_format":2,"optimizer":{"type":"adam"},"loop":{},"task":` + rnaTask + `}`)
	err := NotAModel("run/checkpoint.scnn", rec, modelkind.Protein)
	if err == nil || !strings.Contains(err.Error(), "run/checkpoint.scnn is a checkpoint of the training run of an RNA secondary-structure model, not a protein contact model file") {
		t.Errorf("a checkpoint as a model: %v", err)
	}
	if err := NotAModel("m.scnn", []byte(protein), modelkind.Protein); err != nil {
		t.Errorf("a model record: %v", err)
	}
}
