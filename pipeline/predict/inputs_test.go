package predict

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contactmap/contactmap/internal/runsummary"
	"github.com/contactmap/contactmap/pipeline/search"
)

// Standard input is FASTA records (to a temporary file, removed by
// Remove) or a list of inputs; read once, and refused when empty or
// binary.
func TestReadStdin(t *testing.T) {
	var removes int
	got, s, err := ReadStdin([]string{"a", "-", "b", "-"}, strings.NewReader("; comment\n>q\nMKV\n"), func(func()) { removes++ })
	if err != nil || len(got) != 3 || got[1] != s.File || removes != 1 {
		t.Fatalf("FASTA: %q, %v", got, err)
	}
	if data, _ := os.ReadFile(s.File); string(data) != "; comment\n>q\nMKV\n" {
		t.Errorf("temporary file %q", data)
	}
	s.Remove()
	if _, err := os.Stat(s.File); err == nil {
		t.Error("temporary file not removed")
	}
	got, s, err = ReadStdin([]string{"-"}, strings.NewReader("1ENH_A extra\n# c\n\n  x.pdb\n"), nil)
	if err != nil || strings.Join(got, ",") != "1ENH_A,x.pdb" || s.File != "" {
		t.Errorf("list: %q, %v", got, err)
	}
	s.Remove() // nothing to remove
	for in, want := range map[string]string{" \n": "empty input", "\x00\x01binary": "binary data"} {
		if _, _, err := ReadStdin([]string{"-"}, strings.NewReader(in), nil); err == nil || !strings.Contains(err.Error(), "standard input: "+want) {
			t.Errorf("%q: %v", in, err)
		}
	}
}

// Empty files fail by the shard of their index; the others go on.
func TestDropEmpty(t *testing.T) {
	dir := t.TempDir()
	empty, blank := filepath.Join(dir, "e.fasta"), filepath.Join(dir, "b.fasta")
	os.WriteFile(empty, nil, 0o644)
	os.WriteFile(blank, []byte(" \n\t\r\n"), 0o644)
	rest, failed := DropEmpty([]string{empty, blank, "1ENH_A"}, 0, 2)
	if strings.Join(rest, ",") != "1ENH_A" || len(failed) != 1 || failed[0].Arg != empty || !strings.Contains(failed[0].Err.Error(), "empty input") {
		t.Errorf("rest %q, failed %+v", rest, failed)
	}
}

// CheckChain warns of (or under strict skips) DNA-like records, and
// skips chains whose outputs exist unless force.
func TestCheckChain(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "x.rr"), nil, 0o644)
	dna := &Target{Name: "d", Seq: "ACGTACGTNNACGTUACGTA"}
	if err := CheckChain(dir, []string{"rr"}, false, false)(dna); err != nil || len(dna.Warnings) != 1 || !strings.HasPrefix(dna.Warnings[0], "100% of its letters") {
		t.Errorf("DNA: %v %q", err, dna.Warnings)
	}
	if err := CheckChain(dir, []string{"rr"}, false, true)(&Target{Name: "d", Seq: "acgt"}); runsummary.StatusOf(err) != runsummary.Skipped || !strings.HasSuffix(err.Error(), "refused under --strict") {
		t.Errorf("strict: %v", err)
	}
	x := &Target{Name: "x", Seq: "MKVLA"}
	if err := CheckChain(dir, []string{"npy", "rr"}, false, false)(x); StatusOf(err) != runsummary.Skipped || !strings.Contains(err.Error(), "x.rr exists: not overwritten") {
		t.Errorf("existing outputs: %v", err)
	}
	if err := CheckChain(dir, []string{"rr"}, true, false)(x); err != nil || len(x.Warnings) != 0 {
		t.Errorf("force: %v", err)
	}
	if f := nucleotideFraction("MKAC"); f != 0.5 {
		t.Errorf("nucleotideFraction %v", f)
	}
}

// RenameInput replaces standard input's temporary file in the outcomes.
func TestRenameInput(t *testing.T) {
	outs := []Outcome{{Arg: "/tmp/x/standard-input", Err: errors.New("bad input: /tmp/x/standard-input: no sequences")}, {Arg: "a"}}
	RenameInput(outs, "/tmp/x/standard-input", "standard input")
	if outs[0].Arg != "standard input" || outs[0].Err.Error() != "bad input: standard input: no sequences" || outs[1].Arg != "a" || outs[1].Err != nil {
		t.Errorf("%+v", outs)
	}
}

// The search jobs are named as Run names its outputs, unique ignoring
// case, the manifest's name taken; a renamed query is said.
func TestSearchJobs(t *testing.T) {
	fa := filepath.Join(t.TempDir(), "q.fasta")
	os.WriteFile(fa, []byte(">manifest\nMKVLA\n>q/1\nMKVLA\n>Q_1\nMKVLA\n>e\n\n"), 0o644)
	var errw bytes.Buffer
	jobs := SearchJobs([]string{fa, "nosuchfile"}, "", &errw)
	var names []string
	for _, j := range jobs {
		names = append(names, j.Name)
	}
	if strings.Join(names, ",") != "manifest_2,q_1,Q_1_2,e,nosuchfile" || jobs[3].Err == nil || jobs[4].Err == nil {
		t.Errorf("names %q, jobs %+v", names, jobs)
	}
	if want := "manifest: written as manifest_2.*\nq/1: written as q_1.*\nQ_1: written as Q_1_2.*\n"; errw.String() != want {
		t.Errorf("messages %q", errw.String())
	}
	if mine := search.Shard(jobs, 1, 2); len(mine) != 2 || mine[0].Name != "q_1" {
		t.Errorf("shard 1 of 2: %+v", mine)
	}
}

// MethodOf names the predictor of each outcome for the summary.
func TestMethodOf(t *testing.T) {
	cfg := Config{Models: []string{"scnn"}, AlignmentModels: []string{"msa"}}
	src := &Source{File: "o/msa/x.a3m", Depth: 12, NeffL: 0.05, Shallow: true}
	for _, tc := range []struct {
		o    Outcome
		want string
	}{
		{Outcome{}, ""},
		{Outcome{ID: "a"}, "network scnn"},
		{Outcome{ID: "a", Notes: []string{"an alignment: predicted with the alignment model msa (...)"}}, "network msa"},
		{Outcome{ID: "a", Notes: []string{"an alignment, and the model reads none: predicted with plmDCA"}}, "plm"},
		{Outcome{ID: "a", Alignment: src}, "network scnn (alignment too shallow: o/msa/x.a3m, depth 12, Neff/L 0.05)"},
	} {
		if got := cfg.MethodOf(tc.o); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.o, got, tc.want)
		}
	}
	var b bytes.Buffer
	NoteSingleSequence(&b, cfg, []Outcome{{ID: "a", Err: errors.New("x")}})
	if b.Len() != 0 {
		t.Error("a failed chain is no single-sequence prediction")
	}
	NoteSingleSequence(&b, cfg, []Outcome{{ID: "a"}, {ID: "b"}})
	if b.String() != SingleSequenceNote+"\n" {
		t.Errorf("note %q", b.String())
	}
}

func TestParseFormats(t *testing.T) {
	if got, _ := ParseFormats(" rr, NPY ,,png"); strings.Join(got, ",") != "rr,npy,png" {
		t.Errorf("formats %q", got)
	}
	for _, bad := range []string{"", " , ", "rr,pdf"} {
		if _, err := ParseFormats(bad); err == nil || !strings.Contains(err.Error(), "--format") {
			t.Errorf("%q: %v, want an error naming --format", bad, err)
		}
	}
}
