package model

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/contactmap/contactmap/scnn"
)

// tinyArch is the smallest protein model: one 1x1 block, no LSTM.
func tinyArch() Arch {
	return Arch{Kind: SCNN, Config: "default", N1D: 2, N2D: 1, Blocks: [][]int{{1}}, Width: 1, Head: []int{1}, HeadWidth: 1, MinLen: 1, MaxLen: 5}
}

// FuzzReadModelRecord fuzzes the architecture record inside a valid
// checksummed container holding the tiny model's parameters (a fuzzer
// seldom gets through the checksum on its own). Whatever loads must
// check, save and load back to the same record and parameters; every
// error names the file.
func FuzzReadModelRecord(f *testing.F) {
	m, err := NewModel(tinyArch(), 1)
	if err != nil {
		f.Fatal(err)
	}
	rec, _ := json.Marshal(m.Arch)
	f.Add(rec)
	f.Add([]byte(`{"format":2,"kind":"cnn","n1d":2,"n2d":1,"blocks":[[1]],"width":1,"head":[1],"head_width":1,"labels":{"atoms":1,"cutoff":-1}}`))
	f.Add([]byte(`{"format":2,"kind":"scnn","n1d":2,"n2d":1,"blocks":[[1]],"width":2000000000,"head":[1],"head_width":1}`))
	f.Add([]byte(`{"format":1,"kind":"scnn","protocol":"default","spec":{"in_1d":5}}`))
	f.Add([]byte(`{"format":1,"config":{"kind":"cosrec"},"user_ids":[1]}`))
	f.Add([]byte(`{"kind":"scnn"}`))
	// A 33M-parameter network within the bounds, refused for its arrays
	// (the tiny model's) before it is built.
	f.Add([]byte(`{"format":2,"kind":"scnn","config":"default","n1d":2,"n2d":1,"lstm_hidden":0,"lstm_out":0,"blocks":[[13]],"width":600,"head":[13,1],"head_width":600,"feature_mode":"seq","labels":{"atoms":0,"cutoff":8},"train_min_len":1,"train_max_len":5}`))
	params := m.Params()
	f.Fuzz(func(t *testing.T, record []byte) {
		var buf bytes.Buffer
		if err := scnn.WriteParams(&buf, record, params); err != nil {
			return // a record over the container's limit
		}
		check(t, buf.Bytes())
	})
}

// FuzzReadModel fuzzes whole model files (seeds: the tiny model and the
// shipped default SCNN's record).
func FuzzReadModel(f *testing.F) {
	m, err := NewModel(tinyArch(), 1)
	if err != nil {
		f.Fatal(err)
	}
	var buf bytes.Buffer
	rec, _ := json.Marshal(m.Arch)
	scnn.WriteParams(&buf, rec, m.Params())
	f.Add(buf.Bytes())
	// The same record asking for a 33M-parameter network, no arrays.
	huge := m.Arch
	huge.Blocks, huge.Width, huge.Head, huge.HeadWidth = [][]int{{13}}, 600, []int{13, 1}, 600
	rec, _ = json.Marshal(huge)
	buf.Reset()
	scnn.WriteParams(&buf, rec, nil)
	f.Add(buf.Bytes())
	f.Fuzz(check)
}

func check(t *testing.T, data []byte) {
	const name = "fuzz/model.scnn"
	m, err := ReadModel(bytes.NewReader(data), name)
	if err != nil {
		if !strings.Contains(err.Error(), name) {
			t.Fatalf("error does not name the file: %v", err)
		}
		return
	}
	if err := m.Arch.Check(); err != nil {
		t.Fatalf("loaded a model whose record fails Check: %v", err)
	}
	var out bytes.Buffer
	js, err := json.Marshal(m.Arch)
	if err != nil {
		t.Fatal(err)
	}
	if err := scnn.WriteParams(&out, js, m.Params()); err != nil {
		t.Fatal(err)
	}
	back, err := ReadModel(&out, "again")
	if err != nil {
		t.Fatalf("a loaded model does not load again: %v", err)
	}
	if !reflect.DeepEqual(back.Arch, m.Arch) {
		t.Fatalf("record changed: %+v, then %+v", m.Arch, back.Arch)
	}
	for i, p := range m.Params() {
		if !reflect.DeepEqual(p.Value, back.Params()[i].Value) {
			t.Fatalf("param %s changed", p.Name)
		}
	}
}
