package features

import (
	"bytes"
	"strings"
	"testing"
)

// WriteRun says the warnings, counts the chains and fails a run in which
// every chain was skipped.
func TestWriteRun(t *testing.T) {
	var w, errw bytes.Buffer
	rep := &Report{Skips: []Skip{{}}, Warnings: []Warning{{ID: "1ABC_A", Text: "non-standard residue"}}}
	err := rep.WriteRun(&w, &errw, Config{Out: "f", Shard: 1, Shards: 2})
	if errw.String() != "warning: 1ABC_A: non-standard residue\n" || !strings.HasPrefix(w.String(), "1 chain: 0 written, 0 already present, 1 skipped (see f/skipped.shard-1-of-2.tsv)\n") {
		t.Errorf("stdout %q, stderr %q", w.String(), errw.String())
	}
	if err == nil || !strings.Contains(err.Error(), "no chain gave features") {
		t.Errorf("%v", err)
	}
}

// SetsBase needs a manifest, and says how to make one.
func TestSetsBaseNoManifest(t *testing.T) {
	if _, err := SetsBase(t.TempDir()); err == nil || !strings.Contains(err.Error(), "run make features first") {
		t.Errorf("%v", err)
	}
}
