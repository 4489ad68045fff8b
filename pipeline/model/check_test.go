package model

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/contactmap/contactmap/internal/modelkind"
	"github.com/contactmap/contactmap/pairnet"
	"github.com/contactmap/contactmap/scnn"
)

// fileWith writes a model file whose record is the default SCNN's with
// change applied (its parameters stay the default model's), checksum and
// all valid.
func fileWith(t testing.TB, change func(map[string]any)) []byte {
	t.Helper()
	m, err := NewModel(DefaultArch(SCNN), 1)
	if err != nil {
		t.Fatal(err)
	}
	js, _ := json.Marshal(m.Arch)
	var rec map[string]any
	json.Unmarshal(js, &rec)
	change(rec)
	js, _ = json.Marshal(rec)
	var buf bytes.Buffer
	if err := scnn.WriteParams(&buf, js, m.Params()); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// Architecture records out of bounds are refused before anything is
// allocated, naming the file and the field: a width of 2e9 filled 24 GB
// before the kernel killed the process; a negative cutoff and a negative
// train_min_len loaded.
func TestReadModelChecksArch(t *testing.T) {
	for _, c := range []struct {
		field string
		value any
		want  string
	}{
		{"width", 2e9, "width 2000000000 out of bounds (1..4096)"},
		{"head_width", 1e9, "head_width 1000000000 out of bounds"},
		{"n1d", 1e9, "n1d 1000000000 out of bounds"},
		{"n2d", -1, "n2d -1 out of bounds"},
		{"lstm_hidden", 2e9, "lstm_hidden 2000000000 out of bounds"},
		{"lstm_out", 1e9, "lstm_out 1000000000 out of bounds"},
		{"sep_channels", 1e8, "sep_channels 100000000 out of bounds"},
		{"blocks", [][]int{{1001}}, "kernel 1001"},
		{"blocks", make([][]int, 100), "100 blocks"},
		{"head", []int{}, "no head"},
		{"head", []int{4}, "out_kernel 4"},
		{"kind", "rnn", `kind "rnn"`},
		{"labels", map[string]any{"atoms": 0, "cutoff": -8}, "contact cutoff -8"},
		{"labels", map[string]any{"atoms": 7, "cutoff": 8}, "contact atoms 7"},
		{"train_min_len", -5, "train_min_len -5"},
		{"train_max_len", -1, "train_max_len -1"},
		{"train_max_len", 10, "train_min_len 20 above train_max_len 10"},
	} {
		data := fileWith(t, func(r map[string]any) {
			r["train_min_len"] = 20
			if c.field == "train_min_len" {
				r["train_max_len"] = 0
			}
			r[c.field] = c.value
		})
		_, err := ReadModel(bytes.NewReader(data), "runs/x/model.scnn")
		if !errors.Is(err, ErrArch) || !strings.Contains(err.Error(), "runs/x/model.scnn") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s = %v: %v, want ErrArch naming the file and saying %q", c.field, c.value, err, c.want)
		}
	}
	// The paper-size models are within the bounds.
	for _, kind := range []Kind{CNN, SCNN} {
		if err := PaperArch(kind).Check(); err != nil {
			t.Errorf("paper %s: %v", kind, err)
		}
	}
	if err := (Arch{}).Check(); !errors.Is(err, ErrArch) {
		t.Errorf("zero Arch: %v", err)
	}
	if pairnet.MaxWidth < PaperArch(SCNN).Width {
		t.Error("bounds below the paper's widths")
	}
}

// An RNA or recommendation model file given to the protein loader says
// what it holds (it said "model file format 1, this build reads format 2
// ... retrain it").
func TestReadModelWrongKind(t *testing.T) {
	for _, c := range []struct {
		record string
		holds  modelkind.Kind
	}{
		{`{"format":1,"kind":"scnn","protocol":"default","spec":{"symmetric":true,"in_1d":5}}`, modelkind.RNA},
		{`{"format":1,"config":{"kind":"cosrec","users":3,"items":4},"user_ids":[1,2,3]}`, modelkind.Rec},
	} {
		var buf bytes.Buffer
		if err := scnn.WriteParams(&buf, []byte(c.record), nil); err != nil {
			t.Fatal(err)
		}
		_, err := ReadModel(&buf, "m.scnn")
		var wk *modelkind.WrongKindError
		if !errors.As(err, &wk) || wk.Holds != c.holds || wk.Want != modelkind.Protein || wk.Name != "m.scnn" {
			t.Errorf("%s: %v, want a WrongKindError holding %v", c.record, err, c.holds)
		}
		if errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), c.holds.String()) {
			t.Errorf("%s: %v", c.record, err)
		}
	}
}
