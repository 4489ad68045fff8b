package predict

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contactmap/contactmap/internal/outset"
	"github.com/contactmap/contactmap/pipeline/features"
	"github.com/contactmap/contactmap/pipeline/model"
)

// readOutputs returns the chain's four outputs' bytes, by extension.
func readOutputs(t *testing.T, dir, name string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, ext := range []string{"rr", "npy", "tsv", "png"} {
		b, err := os.ReadFile(filepath.Join(dir, name+"."+ext))
		if err != nil {
			t.Fatal(err)
		}
		out[ext] = string(b)
	}
	return out
}

// A writer that fails at the 3rd of 4 outputs (a disk that fills during
// a --force overwrite) leaves the chain's old outputs whole: no mixture of
// old and new files, no temporary file.
func TestWriteOutputsReplacesASet(t *testing.T) {
	dir := t.TempDir()
	const l = 20
	tg := Target{ID: "c", Name: "c", Seq: strings.Repeat("A", l)}
	cfg := Config{Out: dir, Formats: []string{"rr", "npy", "tsv", "png"}, RRMinSep: 1, RRMax: RRMax{All: true}}
	p := make([]float32, l*l)
	for i := range p {
		p[i] = 0.25
	}
	if o := writeOutputs(cfg, tg, Outcome{}, p, nil, "m", ""); o.Err != nil || len(o.Files) != 4 {
		t.Fatalf("first set: %v, %v", o.Files, o.Err)
	}
	old := readOutputs(t, dir, "c")
	full := errors.New("no space left on device")
	writeSet = func(ctx context.Context, files []outset.File) error {
		files[2].Write = func(w io.Writer) error { io.WriteString(w, "0.5\t0.5"); return full }
		return outset.Write(ctx, files)
	}
	defer func() { writeSet = outset.Write }()
	for i := range p {
		p[i] = 0.75
	}
	o := writeOutputs(cfg, tg, Outcome{}, p, nil, "m", "")
	if !errors.Is(o.Err, full) || len(o.Files) != 0 {
		t.Errorf("second set: files %v, error %v; want none, the writer's error", o.Files, o.Err)
	}
	if got := readOutputs(t, dir, "c"); fmt.Sprint(got) != fmt.Sprint(old) {
		t.Error("a failed set changed the old outputs")
	}
	es, _ := os.ReadDir(dir)
	if len(es) != 4 {
		var names []string
		for _, e := range es {
			names = append(names, e.Name())
		}
		t.Errorf("directory holds %v, want the four outputs alone", names)
	}
}

// A run's cleanup leaves the temporary files of another run still
// writing into the same --out (here: files of this live process's, and
// one fileio.WriteAtomic left moments ago), and removes those of a killed
// run.
func TestRunSparesLiveRunsTemps(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	os.MkdirAll(out, 0o755)
	host, _ := os.Hostname()
	tag := ""
	for _, c := range host {
		if (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') && len(tag) < 12 {
			tag += string(c)
		}
	}
	if tag == "" {
		tag = "host"
	}
	live := []string{fmt.Sprintf(".s.npy.tmp-%s-%d-1", tag, os.Getpid()), ".s.npy.tmp123"}
	dead := fmt.Sprintf(".s.rr.tmp-%s-%d-2", tag, 1<<30) // no process has PID 2^30
	for _, name := range append([]string{dead}, live...) {
		os.WriteFile(filepath.Join(out, name), []byte("x"), 0o600)
	}
	fasta := filepath.Join(dir, "s.fa")
	os.WriteFile(fasta, []byte(">s\nMKTAYIAKQRQISFVKSHFSRQ\n"), 0o644)
	a := model.DefaultArch(model.SCNN)
	a.Mode = features.SeqMode
	m, _ := model.NewModel(a, 5)
	mp := filepath.Join(dir, "m.scnn")
	if err := m.Save(mp); err != nil {
		t.Fatal(err)
	}
	outs, err := Run(context.Background(), Config{Models: []string{mp}, Out: out, Formats: []string{"rr"}}, []string{fasta})
	if err != nil || len(outs) != 1 || outs[0].Err != nil {
		t.Fatalf("run: %v, %+v", err, outs)
	}
	for _, name := range live {
		if _, err := os.Stat(filepath.Join(out, name)); err != nil {
			t.Errorf("a live writer's %s removed: %v", name, err)
		}
	}
	if _, err := os.Stat(filepath.Join(out, dead)); err == nil {
		t.Errorf("a killed run's %s left", dead)
	}
}

// An interrupted run writes no outputs and leaves no temporary file.
func TestWriteOutputsCancelled(t *testing.T) {
	dir := t.TempDir()
	const l = 20
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	cfg := Config{Out: dir, Formats: []string{"rr", "npy"}, RRMinSep: 1, ctx: ctx}
	o := writeOutputs(cfg, Target{ID: "c", Name: "c", Seq: strings.Repeat("A", l)}, Outcome{}, make([]float32, l*l), nil, "m", "")
	if !errors.Is(o.Err, context.Canceled) {
		t.Errorf("error %v, want context.Canceled", o.Err)
	}
	if es, _ := os.ReadDir(dir); len(es) != 0 {
		t.Errorf("%d files left", len(es))
	}
}
