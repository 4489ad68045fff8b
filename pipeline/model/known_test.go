package model

import (
	"bytes"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/contactmap/contactmap/internal/treefiles"

	"github.com/contactmap/contactmap/scnn"
)

// A record field this build does not know (a newer build's), at the top
// or inside the labels, is refused naming the file and the field, not
// dropped: a model must not run without what its record says it
// computes.
func TestReadModelUnknownField(t *testing.T) {
	for _, c := range []struct {
		field  string
		change func(map[string]any)
	}{
		{"msa_depth_channel", func(r map[string]any) { r["msa_depth_channel"] = true }},
		{"side_chain", func(r map[string]any) {
			r["labels"] = map[string]any{"atoms": 0, "cutoff": 8, "side_chain": true}
		}},
	} {
		data := fileWith(t, c.change)
		_, err := ReadModel(bytes.NewReader(data), "runs/new/model.scnn")
		if !errors.Is(err, ErrUnknownField) || errors.Is(err, ErrArch) || errors.Is(err, ErrFormat) {
			t.Fatalf("%s: %v, want ErrUnknownField", c.field, err)
		}
		for _, want := range []string{"runs/new/model.scnn", `"` + c.field + `"`, "newer contactmap"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%s: %v, want it to say %s", c.field, err, want)
			}
		}
	}
}

// formatTwoKeys is every key a format-2 record has carried since format
// 2 began (commit e2e42c5; teacher from 5727bfd, train_precision from
// df1b12a), from the history of Arch and of its labels (the
// struct Labels, then pdb.ContactDef, both {atoms, cutoff}) and from
// every model file ever committed: no key has been dropped or renamed,
// so none is a legacy key Arch has lost. Format 1's own keys
// (contact_def, contact_cutoff, no format) are refused by the format
// (TestReadModelFormatOneKeys).
var formatTwoKeys = []string{
	"format", "kind", "config", "n1d", "n2d", "lstm_hidden", "lstm_out", "blocks", "width", "head", "head_width",
	"sep_channels", "feature_mode", "labels", "train_min_len", "train_max_len",
	"data", "code_version", "seed", "epoch", "teacher", "train_precision",
}

// Every key a format-2 record has carried still loads: removing or
// renaming a field of Arch would make the files that carry it unknown
// fields, and fails here.
func TestReadModelKnownKeys(t *testing.T) {
	var keys []string
	data := fileWith(t, func(r map[string]any) {
		r["labels"] = map[string]any{"atoms": 1, "cutoff": 8}
		r["train_min_len"], r["train_max_len"] = 20, 700
		r["data"], r["code_version"], r["seed"], r["epoch"] = "data/pisces", "v1.2.3", 3, 17
		r["teacher"], r["train_precision"] = "10 models, fingerprint 32551d8cd16b, label weight 0", "bfloat16"
		for k := range r {
			keys = append(keys, k)
		}
	})
	slices.Sort(keys)
	want := slices.Sorted(slices.Values(formatTwoKeys))
	if !slices.Equal(keys, want) {
		t.Fatalf("the record holds the keys %v, want every format-2 key %v", keys, want)
	}
	m, err := ReadModel(bytes.NewReader(data), "old.scnn")
	if err != nil {
		t.Fatalf("a record of every format-2 key: %v", err)
	}
	if a := m.Arch; a.Teacher == "" || a.Precision != "bfloat16" || a.Epoch != 17 || a.Labels.Cutoff != 8 || a.MaxLen != 700 {
		t.Errorf("the record read as %+v", a)
	}
}

// A format-1 record's keys (contact_def and contact_cutoff, from before
// labels) say the file is of format 1, not that they are unknown.
func TestReadModelFormatOneKeys(t *testing.T) {
	m, err := NewModel(DefaultArch(CNN), 1)
	if err != nil {
		t.Fatal(err)
	}
	record := []byte(`{"kind":"cnn","config":"default","n1d":25,"n2d":3,"lstm_hidden":16,"lstm_out":15,"blocks":[[7,5,3],[5,3],[3]],` +
		`"width":8,"head":[3,3],"head_width":8,"sep_channels":3,"feature_mode":"seq","contact_def":0,"contact_cutoff":8,` +
		`"train_min_len":30,"train_max_len":700,"data":"data","code_version":"x","seed":1,"epoch":3}`)
	var buf bytes.Buffer
	if err := scnn.WriteParams(&buf, record, m.Params()); err != nil {
		t.Fatal(err)
	}
	_, err = ReadModel(&buf, "old.scnn")
	if !errors.Is(err, ErrFormat) || errors.Is(err, ErrUnknownField) || !strings.Contains(err.Error(), "model file format 1") {
		t.Errorf("a format-1 record: %v, want ErrFormat", err)
	}
}

// Every protein model file in the tree (models/ and experiments/, the
// shipped and the experiments' runs) loads; the other kinds' files are
// left to their loaders, checkpoints to theirs.
func TestCommittedModelsLoad(t *testing.T) {
	root := filepath.Join("..", "..")
	n := treefiles.Models(t, []string{filepath.Join(root, "models"), filepath.Join(root, "experiments")}, "checkpoint.scnn", func(path string) error {
		_, err := LoadModel(path)
		return err
	})
	if n == 0 {
		t.Fatal("no protein model file found")
	}
	t.Logf("%d protein model files load", n)
}
