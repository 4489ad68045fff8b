package models

import (
	"strings"
	"testing"
)

// The embedded models load and record their training lengths.
func TestShippedModels(t *testing.T) {
	for name := range Shipped {
		m, from, err := Load(name)
		if err != nil {
			t.Fatal(err)
		}
		if m.Arch.Kind != name || !strings.Contains(from, "shipped") {
			t.Errorf("%s: kind %s from %s", name, m.Arch.Kind, from)
		}
		if m.Arch.MinLen == 0 || m.Arch.MaxLen == 0 {
			t.Errorf("%s: training lengths not recorded", name)
		}
	}
	if _, _, err := Load("no-such-model.scnn"); err == nil || !strings.Contains(err.Error(), "not a shipped model") {
		t.Errorf("missing file: %v", err)
	}
}

// The shipped RNA model loads from the binary, is the default-protocol
// SCNN its record says, and predicts a symmetric probability map.
func TestShippedRNAModel(t *testing.T) {
	m, from, err := LoadRNA(DefaultRNA)
	if err != nil {
		t.Fatal(err)
	}
	if m.Record.Kind != "scnn" || m.Record.Protocol != "default" || m.Record.Step == 0 || !strings.Contains(from, "shipped") {
		t.Fatalf("%s: record %+v", from, m.Record)
	}
	seq := "GGGCGCAAGCCUGCGCCCUUUUGGGCGCAAGCCUGCGCCC"
	p, err := m.Probabilities(seq, 1)
	if err != nil {
		t.Fatal(err)
	}
	l := len(seq)
	for i := 0; i < l; i++ {
		for j := 0; j < l; j++ {
			if p[i*l+j] != p[j*l+i] {
				t.Fatalf("p[%d,%d] != p[%d,%d]", i, j, j, i)
			}
		}
	}
	if _, _, err := LoadRNA("no-such-model"); err == nil {
		t.Error("an unknown name loaded")
	}
}
