package main

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/contactmap/contactmap/rna/ssnet"
)

// TestWithGlobal writes the shipped ensemble network under the global
// rule: the record's rule changes and nothing else, every parameter is
// the same, and an existing output, a network without the channel and
// a rule of 0 are refused.
func TestWithGlobal(t *testing.T) {
	in := filepath.Join("..", "..", "models", "rna-scnn-bpp.scnn")
	out := filepath.Join(t.TempDir(), "eg.scnn")
	if err := withGlobal(in+"="+out, 600); err != nil {
		t.Fatal(err)
	}
	a, err := ssnet.Load(in)
	if err != nil {
		t.Fatal(err)
	}
	b, err := ssnet.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	if a.Record.EnsembleGlobal == 600 {
		t.Fatalf("the input already has the rule %d", a.Record.EnsembleGlobal)
	}
	if got := b.Record.EnsembleFold(); got != (ssnet.EnsembleFold{Global: 600}) {
		t.Errorf("rule %+v, want global 600", got)
	}
	ra := a.Record
	ra.EnsembleGlobal = 600
	if !reflect.DeepEqual(ra, b.Record) {
		t.Errorf("record %+v, want %+v", b.Record, ra)
	}
	pa, pb := a.Net.Params(), b.Net.Params()
	if len(pa) != len(pb) {
		t.Fatalf("%d parameters, want %d", len(pb), len(pa))
	}
	for i := range pa {
		if pa[i].Name != pb[i].Name || !slices.Equal(pa[i].Value, pb[i].Value) {
			t.Errorf("parameter %d (%s) differs", i, pa[i].Name)
		}
	}

	for _, c := range []struct {
		spec   string
		global int
		want   string
	}{
		{in + "=" + out, 600, "exists"},
		{in + "=" + out + "2", 0, "above 0"},
		{filepath.Join("..", "..", "models", "rna-scnn.scnn") + "=" + out + "3", 600, "no ensemble channel"},
		{in, 600, "want IN=OUT"},
	} {
		err := withGlobal(c.spec, c.global)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("withGlobal(%q, %d): %v, want an error with %q", c.spec, c.global, err, c.want)
		}
	}
	if _, err := os.Stat(out + "3"); err == nil {
		t.Error("a refused network was written")
	}
}
