package ssnet

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/contactmap/contactmap/internal/modelkind"
	"github.com/contactmap/contactmap/pairnet"
	"github.com/contactmap/contactmap/scnn"
)

// tinyModel is the smallest RNA network: no LSTM, one 1x1 block.
func tinyModel(t testing.TB) *Model {
	t.Helper()
	spec := pairnet.Spec{Symmetric: true, In1D: InChannels, Pair: pairnet.MapSpec{Width: 2}, Blocks: []pairnet.Block{pairnet.Uniform(1, 1)}, OutKernel: 1}
	net, err := pairnet.New(spec, 1)
	if err != nil {
		t.Fatal(err)
	}
	return &Model{Net: net, Record: Record{Format: RecordFormat, Kind: SCNN, Protocol: "tiny", Spec: spec, Seed: 1}}
}

func modelFile(t testing.TB, record []byte, params []*scnn.Param) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := scnn.WriteParams(&buf, record, params); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// A record with absurd widths is refused before anything is allocated,
// naming the file and the field (a pair width of 2e9 ran the process out
// of memory), and so is a record whose kind or inputs do not fit.
func TestReadModelChecksRecord(t *testing.T) {
	m, err := NewModel(SCNN, Default, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		change func(*Record)
		want   string
	}{
		{func(r *Record) { r.Spec.Pair.Width = 2e9 }, "pair width 2000000000 out of bounds"},
		{func(r *Record) { r.Spec.LSTMHidden = 1e9 }, "lstm_hidden 1000000000 out of bounds"},
		{func(r *Record) { r.Spec.Blocks[0].Widths = []int{8, 8, 1e9} }, "width 1000000000 out of bounds"},
		{func(r *Record) { r.Spec.OutKernel = 99 }, "out_kernel 99"},
		{func(r *Record) { r.Kind = "rnn" }, `kind "rnn"`},
		{func(r *Record) { r.Kind = CNN }, "kind cnn with a network of symmetric=true"},
		{func(r *Record) { r.Spec.In1D = 1e9 }, "in_1d 1000000000"},
		{func(r *Record) { r.Spec.In2D = 7 }, "in_2d 7"},
		{func(r *Record) { r.Step = -1 }, "step -1"},
		{func(r *Record) { r.MinIdentity = 2 }, "template_min_identity 2"},
	} {
		var rec Record
		js, _ := json.Marshal(m.Record) // a deep copy
		json.Unmarshal(js, &rec)
		c.change(&rec)
		js, _ = json.Marshal(rec)
		_, err := ReadModel(bytes.NewReader(modelFile(t, js, m.Net.Params())), "runs/rna/m.scnn")
		if err == nil || !strings.Contains(err.Error(), "runs/rna/m.scnn") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v, want an error naming the file and saying %q", err, c.want)
		}
	}
}

// Every protocol's networks load back (the bounds are generous enough
// for the paper's widths and the template channels).
func TestReadModelEveryProtocol(t *testing.T) {
	for _, p := range Protocols {
		for _, k := range []Kind{CNN, SCNN} {
			m, err := NewModel(k, p, 1)
			if err != nil {
				t.Fatalf("%s %s: %v", p.Name, k, err)
			}
			js, _ := json.Marshal(m.Record)
			back, err := ReadModel(bytes.NewReader(modelFile(t, js, m.Net.Params())), "m.scnn")
			if err != nil || back.Record.Spec.In2D != m.Record.Spec.In2D {
				t.Errorf("%s %s: %v", p.Name, k, err)
			}
		}
	}
}

// A protein or recommendation model given to the RNA loader says what it
// holds (it said "record format 2, this build reads 1").
func TestReadModelWrongKind(t *testing.T) {
	for _, c := range []struct {
		record string
		holds  modelkind.Kind
	}{
		{`{"format":2,"kind":"scnn","config":"default","n1d":25,"n2d":3,"blocks":[[7,5,3]],"width":8,"head":[3,3]}`, modelkind.Protein},
		{`{"format":1,"config":{"kind":"scosrec","users":3,"items":4},"user_ids":[1,2,3]}`, modelkind.Rec},
	} {
		_, err := ReadModel(bytes.NewReader(modelFile(t, []byte(c.record), nil)), "m.scnn")
		var wk *modelkind.WrongKindError
		if !errors.As(err, &wk) || wk.Holds != c.holds || wk.Want != modelkind.RNA || !strings.Contains(err.Error(), c.holds.String()) {
			t.Errorf("%s: %v, want a WrongKindError holding %v", c.record, err, c.holds)
		}
	}
}

// FuzzReadModelRecord fuzzes the record inside a valid checksummed
// container holding the tiny network's parameters. Whatever loads must
// pass the bounds, save and load back to the same record and parameters;
// every error names the file.
func FuzzReadModelRecord(f *testing.F) {
	m := tinyModel(f)
	js, _ := json.Marshal(m.Record)
	f.Add(js)
	f.Add([]byte(`{"format":1,"kind":"scnn","protocol":"x","spec":{"symmetric":true,"in_1d":5,"pair":{"width":2000000000},"blocks":[{"kernels":[1],"widths":[1]}],"out_kernel":1}}`))
	f.Add([]byte(`{"format":2,"kind":"scnn","n1d":25,"blocks":[[3]]}`))
	f.Add([]byte(`{"format":1,"config":{"kind":"cosrec"}}`))
	params := m.Net.Params()
	f.Fuzz(func(t *testing.T, record []byte) {
		var buf bytes.Buffer
		if scnn.WriteParams(&buf, record, params) != nil {
			return // over the container's limit
		}
		const name = "fuzz/rna.scnn"
		got, err := ReadModel(&buf, name)
		if err != nil {
			if !strings.Contains(err.Error(), name) {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		if err := got.Record.Spec.Check(); err != nil {
			t.Fatalf("loaded a record out of bounds: %v", err)
		}
		js, err := json.Marshal(got.Record)
		if err != nil {
			t.Fatal(err)
		}
		back, err := ReadModel(bytes.NewReader(modelFile(t, js, got.Net.Params())), "again")
		if err != nil {
			t.Fatalf("a loaded model does not load again: %v", err)
		}
		if !reflect.DeepEqual(back.Record, got.Record) {
			t.Fatalf("record changed: %+v, then %+v", got.Record, back.Record)
		}
		for i, p := range got.Net.Params() {
			if !reflect.DeepEqual(p.Value, back.Net.Params()[i].Value) {
				t.Fatalf("param %s changed", p.Name)
			}
		}
	})
}

// FuzzReadMFECache: any cache file is read or refused, never a panic,
// and what is read gives partners within the sequence or an error.
func FuzzReadMFECache(f *testing.F) {
	f.Add([]byte(strings.Repeat("a", 32) + "\t1-2,3-9\n"))
	f.Add([]byte(strings.Repeat("0", 32) + "\t\n"))
	f.Fuzz(func(t *testing.T, text []byte) {
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		zw.Write(text)
		zw.Close()
		path := filepath.Join(t.TempDir(), "c.gz")
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		c, err := ReadMFECache(path)
		if err != nil {
			return
		}
		for key, pairs := range c.m {
			for _, v := range pairs {
				if v < 0 {
					t.Fatalf("%s: negative base %d", key, v)
				}
			}
		}
	})
}
