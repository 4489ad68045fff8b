package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/contactmap/contactmap/experiments/internal/freecontact"
	"github.com/contactmap/contactmap/pipeline/search"
)

// TestRows: a row is its residues, gaps ('-', '.') removed and insertions
// upper-cased, from a PSICOV .aln.gz (one row a line) and from a FASTA
// alignment (records over several lines).
func TestRows(t *testing.T) {
	dir := t.TempDir()
	aln := filepath.Join(dir, "x.aln.gz")
	f, err := os.Create(aln)
	if err != nil {
		t.Fatal(err)
	}
	gz := gzip.NewWriter(f)
	gz.Write([]byte("ACDE\nA-D-\n\n--..\n"))
	gz.Close()
	f.Close()
	got, err := rows(aln)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"ACDE", "AD", ""}; !reflect.DeepEqual(got, want) {
		t.Errorf("aln rows %q, want %q", got, want)
	}
	fa := filepath.Join(dir, "y.fasta")
	if err := os.WriteFile(fa, []byte(">q\nAC\nDE\n>h/1-3\nA-c.D\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err = rows(fa)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"ACDE", "ACD"}; !reflect.DeepEqual(got, want) {
		t.Errorf("fasta rows %q, want %q", got, want)
	}
}

// TestDropped: a Pfam family whose protein is a PSICOV family is not a
// second target; the others are.
func TestDropped(t *testing.T) {
	fams := []family{
		{name: "1t8kA", source: "psicov150"},
		{name: "1T8K_A", source: "pfam40"},
		{name: "2O9S_A", source: "pfam40"},
	}
	if got, want := dropped(fams), map[string]bool{"1T8K_A": true}; !reflect.DeepEqual(got, want) {
		t.Errorf("dropped %v, want %v", got, want)
	}
}

// TestSepMap: -|i-j| is symmetric, 0 on the diagonal, and ranks the
// nearer of two pairs higher.
func TestSepMap(t *testing.T) {
	const l = 7
	p := sepMap(l)
	if len(p) != l*l {
		t.Fatalf("len %d, want %d", len(p), l*l)
	}
	for i := range l {
		if p[i*l+i] != 0 {
			t.Errorf("(%d, %d) = %v, want 0", i, i, p[i*l+i])
		}
		for j := range l {
			if p[i*l+j] != p[j*l+i] {
				t.Errorf("(%d, %d) = %v, (%d, %d) = %v: not symmetric", i, j, p[i*l+j], j, i, p[j*l+i])
			}
			if want := -float32(max(i-j, j-i)); p[i*l+j] != want {
				t.Errorf("(%d, %d) = %v, want %v", i, j, p[i*l+j], want)
			}
			for k := range l {
				if max(i-j, j-i) < max(i-k, k-i) && !(p[i*l+j] > p[i*l+k]) {
					t.Errorf("(%d, %d) = %v not above the farther (%d, %d) = %v", i, j, p[i*l+j], i, k, p[i*l+k])
				}
			}
		}
	}
}

// TestAlignmentRows: an A3M's rows come in the query's columns, its
// lower-case insertions (and their '.') dropped, the query first; a
// query gap column of a FASTA alignment is dropped too.
func TestAlignmentRows(t *testing.T) {
	dir := t.TempDir()
	a3m := filepath.Join(dir, "q.a3m")
	if err := os.WriteFile(a3m, []byte(">q\nACDEFG\n>h1\nAC-kwEFG\n>h2\n-CDE..FG\n>h3\nACDyEF-\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := alignmentRows(a3m)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"ACDEFG", "AC-EFG", "-CDEFG", "ACDEF-"}; !reflect.DeepEqual(got, want) {
		t.Errorf("a3m rows %q, want %q", got, want)
	}
	fa := filepath.Join(dir, "q.fasta")
	if err := os.WriteFile(fa, []byte(">q\nAC-DE\n>h\nACKDE\n>g\nA-K-E\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err = alignmentRows(fa)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"ACDE", "ACDE", "A--E"}; !reflect.DeepEqual(got, want) {
		t.Errorf("fasta rows %q, want %q", got, want)
	}
}

// TestFreecontactOnRows: freecontact's EVfold mode takes alignmentRows'
// rows and gives an L x L symmetric map (where freecontact is installed).
func TestFreecontactOnRows(t *testing.T) {
	if _, err := exec.LookPath("freecontact"); err != nil {
		t.Skip("freecontact not installed")
	}
	path := filepath.Join(t.TempDir(), "q.a3m")
	aln := ">q\nMKVLAYGHEW\n>a\nMKILAYGqHEW\n>b\nMRVLSYGHDW\n>c\nLKVIAFGHEY\n>d\nMKALAYNHEW\n>e\n-RVLSFGHD-\n"
	if err := os.WriteFile(path, []byte(aln), 0o644); err != nil {
		t.Fatal(err)
	}
	rows, err := alignmentRows(path)
	if err != nil {
		t.Fatal(err)
	}
	s, _, err := freecontact.Run(rows, "evfold", 1)
	if err != nil {
		t.Fatal(err)
	}
	const l = 10
	if len(s) != l*l {
		t.Fatalf("map of %d, want %d", len(s), l*l)
	}
	p := toFloat32(s)
	for i := range l {
		for j := range l {
			if p[i*l+j] != p[j*l+i] {
				t.Fatalf("(%d, %d) %v, (%d, %d) %v: not symmetric", i, j, p[i*l+j], j, i, p[j*l+i])
			}
		}
	}
}

const testBaselines = baselinesHeader + `
1a3aA	validation	jackhmmer+x	145	5377	12.5	0.5000	0.4000	0.3000	0.1000	0.0500	0.0200
1cxyA	validation	jackhmmer+x	81	2453	1.8	0.1000	0.2000	0.1000	0.0000	0.0200	0.0200
1cxyA	validation	mmseqs	81	800	0.9	0.0500	0.0500	0.0500	0.0000	0.0200	0.0200
`

// TestReadBaselines: the rows by label and family; a missing file holds
// none; a wrong header, a short row and a second row of a family are
// errors.
func TestReadBaselines(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "b.tsv")
	if err := os.WriteFile(path, []byte(testBaselines), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := readBaselines(path)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]map[string]baselineRow{
		"jackhmmer+x": {
			"1a3aA": {l: 145, depth: 5377, seconds: 12.5, fc: [3]float64{0.5, 0.4, 0.3}, sep: [3]float64{0.1, 0.05, 0.02}},
			"1cxyA": {l: 81, depth: 2453, seconds: 1.8, fc: [3]float64{0.1, 0.2, 0.1}, sep: [3]float64{0, 0.02, 0.02}},
		},
		"mmseqs": {
			"1cxyA": {l: 81, depth: 800, seconds: 0.9, fc: [3]float64{0.05, 0.05, 0.05}, sep: [3]float64{0, 0.02, 0.02}},
		},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
	got, err = readBaselines(filepath.Join(dir, "none.tsv"))
	if err != nil || len(got) != 0 {
		t.Errorf("missing file: %v, %v; want no rows, no error", got, err)
	}
	for name, text := range map[string]string{
		"header":    strings.Replace(testBaselines, "fc_l5", "l5", 1),
		"short row": testBaselines + "1bebA\tvalidation\tmmseqs\t156\n",
		"number":    strings.Replace(testBaselines, "12.5", "twelve", 1),
		"duplicate": testBaselines + "1a3aA\tvalidation\tjackhmmer+x\t145\t5377\t12.5\t0.5\t0.4\t0.3\t0.1\t0.05\t0.02\n",
	} {
		p := filepath.Join(dir, "bad.tsv")
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := readBaselines(p); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// writeEval writes an experiments/msa-net evaluation JSON holding the
// runs report reads for 1A3A_A and 1CXY_A; withFC adds a freecontact
// EVfold run.
func writeEval(t *testing.T, path string, withFC bool) {
	t.Helper()
	type run struct {
		Kind   string
		Seed   int
		Items  []string
		Scores map[string][]float64
	}
	mk := func(kind string, seed int, a, b [3]float64) run {
		return run{kind, seed, []string{"1A3A_A", "1CXY_A"}, map[string][]float64{
			"long top-L/5": {a[0], b[0]}, "long top-L/2": {a[1], b[1]}, "long top-L/1": {a[2], b[2]},
		}}
	}
	runs := []run{
		mk("plmDCA", 1, [3]float64{0.8, 0.7, 0.5}, [3]float64{0.6, 0.5, 0.3}),
		mk("single-sequence ensemble", 1, [3]float64{0.2, 0.1, 0.1}, [3]float64{0.1, 0.1, 0.1}),
		mk("scnn", 2, [3]float64{0.9, 0.8, 0.6}, [3]float64{0.8, 0.6, 0.4}),
	}
	if withFC {
		runs = append(runs, mk("freecontact EVfold", 1, [3]float64{0.6, 0.5, 0.4}, [3]float64{0.2, 0.1, 0}))
	}
	data, err := json.Marshal(map[string]any{"runs": runs})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestReportBaselines: report adds freecontact on the searched alignment,
// -|i-j| and the paired difference to the table of the tool the
// baselines file names (and only that one), and freecontact on the own
// alignment where the evaluation has it. It reads the real family split
// (from the repository root).
func TestReportBaselines(t *testing.T) {
	dir := t.TempDir()
	results := filepath.Join(dir, "results.tsv")
	rows := header + `
1a3aA	validation	jackhmmer+x	145	5.2	58	5.1	5377	17.206	false	15.4	719	0.9000	0.8000	0.6000			
1cxyA	validation	jackhmmer+x	81	2.0	40	2.0	2453	9.000	false	5.0	300	0.7000	0.6000	0.4000			
1a3aA	validation	jackhmmer+y	145	5.2	58	5.1	5377	17.206	false	15.4	719	0.8000	0.7000	0.5000			
`
	if err := os.WriteFile(results, []byte(rows), 0o644); err != nil {
		t.Fatal(err)
	}
	bl := filepath.Join(dir, "baselines.tsv")
	if err := os.WriteFile(bl, []byte(testBaselines), 0o644); err != nil {
		t.Fatal(err)
	}
	evalFC := filepath.Join(dir, "eval-fc.json")
	writeEval(t, evalFC, true)
	evalNo := filepath.Join(dir, "eval.json")
	writeEval(t, evalNo, false)
	t.Chdir("../..")

	var b bytes.Buffer
	if err := writeReport(&b, results, evalFC, bl); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	x, y, ok := strings.Cut(out, "### jackhmmer+y")
	if !ok {
		t.Fatalf("no jackhmmer+y table:\n%s", out)
	}
	for _, want := range []string{
		"| freecontact (EVfold) on the searched alignment (n = 2) | 0.300 | 0.300 | 0.200 |\n| -\\|i-j\\| (sequence separation) | 0.050 | 0.035 | 0.020 |\n",
		"| plmDCA on the benchmark's own alignment | 0.700 | 0.600 | 0.400 |\n| freecontact (EVfold) on the benchmark's own alignment | 0.400 | 0.300 | 0.200 |\n",
		"\n- `predict --db` − freecontact: top-L/5 +0.500 [",
		"top-L/2 +0.400 [+0.400, +0.400]; top-L +0.300 [+0.300, +0.300];\n",
	} {
		if !strings.Contains(x, want) {
			t.Errorf("jackhmmer+x table: no %q in\n%s", want, x)
		}
	}
	// jackhmmer+y has no baselines rows: no freecontact on its alignment.
	if strings.Contains(y, "on the searched alignment") || strings.Contains(y, "sequence separation") || strings.Contains(y, "− freecontact") {
		t.Errorf("jackhmmer+y table has baselines rows:\n%s", y)
	}
	if !strings.Contains(y, "| freecontact (EVfold) on the benchmark's own alignment | 0.600 | 0.500 | 0.400 |") {
		t.Errorf("jackhmmer+y table: no own-alignment freecontact row:\n%s", y)
	}

	// One family of two in the baselines: the rows and the difference
	// say n = 1; no freecontact run in the evaluation: no own row.
	one := baselinesHeader + "\n1cxyA\tvalidation\tjackhmmer+x\t81\t2453\t1.8\t0.1000\t0.2000\t0.1000\t0.0000\t0.0200\t0.0200\n"
	if err := os.WriteFile(bl, []byte(one), 0o644); err != nil {
		t.Fatal(err)
	}
	b.Reset()
	if err := writeReport(&b, results, evalNo, bl); err != nil {
		t.Fatal(err)
	}
	out = b.String()
	for _, want := range []string{
		"| freecontact (EVfold) on the searched alignment (n = 1) | 0.100 | 0.200 | 0.100 |\n",
		"| -\\|i-j\\| (sequence separation, n = 1) | 0.000 | 0.020 | 0.020 |\n",
		"\n- `predict --db` − freecontact (n = 1): top-L/5 +0.600 [+0.600, +0.600]; top-L/2 +0.400 [+0.400, +0.400]; top-L +0.300 [+0.300, +0.300];\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	if strings.Contains(out, "freecontact (EVfold) on the benchmark's own alignment") {
		t.Errorf("an own-alignment freecontact row without that run:\n%s", out)
	}

	// No baselines file: the report as before, without the new rows.
	b.Reset()
	if err := writeReport(&b, results, evalNo, filepath.Join(dir, "none.tsv")); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "freecontact") || strings.Contains(b.String(), "sequence separation") {
		t.Errorf("rows without a baselines file:\n%s", b.String())
	}
}

// hhTestDB writes a FASTA database of pipeline/search's test family of
// 1aapA (fam1..fam120) and a shuffled copy of each member (shuf1..,
// unrelated decoys of the same composition and length), and returns its
// path and the query.
func hhTestDB(t *testing.T) (string, search.Query) {
	t.Helper()
	const dir = "../../pipeline/search/testdata"
	fam, err := os.ReadFile(filepath.Join(dir, "1aapA.family.fasta"))
	if err != nil {
		t.Fatal(err)
	}
	qd, err := os.ReadFile(filepath.Join(dir, "1aapA.query.fasta"))
	if err != nil {
		t.Fatal(err)
	}
	ql := strings.Split(strings.TrimSpace(string(qd)), "\n")
	q := search.Query{Name: "1aapA", Seq: strings.TrimSpace(ql[len(ql)-1])}
	var b strings.Builder
	b.Write(fam)
	rng := rand.New(rand.NewPCG(1, 2))
	k := 0
	for _, l := range strings.Split(string(fam), "\n") {
		if l = strings.TrimSpace(l); l == "" || l[0] == '>' {
			continue
		}
		s := []byte(l)
		rng.Shuffle(len(s), func(i, j int) { s[i], s[j] = s[j], s[i] })
		k++
		b.WriteString(">shuf" + strconv.Itoa(k) + "\n" + string(s) + "\n")
	}
	path := filepath.Join(t.TempDir(), "db.fasta")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, q
}

// TestBuildHH builds an HH-suite database of the 1aapA family and its
// decoys with the real tools and searches it with HHblits, prefilter on
// and no PREFIX_hhm: the family is found, no decoy is. Skipped where
// mmseqs, hhblits or cstranslate (or its context libraries) are missing.
func TestBuildHH(t *testing.T) {
	for _, tool := range []struct{ bin, pkg string }{{"mmseqs", "mmseqs2"}, {"hhblits", "hhsuite"}} {
		if _, err := exec.LookPath(tool.bin); err != nil {
			t.Skipf("%s not on PATH: install the Debian package %s", tool.bin, tool.pkg)
		}
	}
	if _, err := findCstranslate(hhLibexec, cpuFlags("/proc/cpuinfo")); err != nil {
		t.Skip(err)
	}
	if _, err := findHHData(); err != nil {
		t.Skip(err)
	}
	db, q := hhTestDB(t)
	dir := t.TempDir()
	cfg := hhConfig{db: db, out: filepath.Join(dir, "hh", "db"), minSeqID: 0.3, cov: 0.8, threads: 1}
	res, err := buildHH(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range res.steps {
		t.Logf("%s %.1f s", s.name, s.seconds)
	}
	t.Logf("%d clusters; cstranslate %s", res.clusters, res.cstranslate)
	var names []string
	for _, s := range res.steps {
		names = append(names, s.name)
	}
	if got := strings.Join(names, ","); got != "createdb,cluster,result2msa,a3m index,cstranslate" {
		t.Errorf("steps %s", got)
	}
	// 240 sequences: the family falls in a few clusters, each decoy is
	// its own.
	if res.clusters <= 120 || res.clusters >= 240 {
		t.Errorf("%d clusters of 240 sequences (120 decoys)", res.clusters)
	}
	for _, kind := range []string{"a3m", "cs219"} {
		data, err := os.ReadFile(cfg.out + "_" + kind + ".ffindex")
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(string(data)), "\n")
		if len(lines) != res.clusters || !sort.StringsAreSorted(lines) {
			t.Errorf("%s index: %d entries (sorted %v), want %d sorted", kind, len(lines), sort.StringsAreSorted(lines), res.clusters)
		}
		if _, err := os.Stat(cfg.out + "_" + kind + ".ffdata"); err != nil {
			t.Error(err)
		}
	}
	if m, _ := filepath.Glob(filepath.Join(dir, "hh", "*")); len(m) != 5 {
		t.Errorf("output directory holds %q, want the four database files and the log", m)
	}
	if _, err := buildHH(cfg); err == nil || !strings.Contains(err.Error(), "exists") {
		t.Errorf("second build without -force: %v", err)
	}

	s, err := search.New(search.Options{Tool: search.HHblits, DB: cfg.out, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var log bytes.Buffer
	a, err := s.Search(context.Background(), q, &log)
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	if !strings.Contains(log.String(), "passed 1st prefilter") || strings.Contains(log.String(), "noprefilt") {
		t.Errorf("hhblits did not run its prefilter:\n%s", log.String())
	}
	if a.Rows[0] != q.Seq {
		t.Fatalf("first row %q, want the query", a.Rows[0])
	}
	fam := map[string]bool{}
	for _, n := range a.Names[1:] {
		switch {
		case strings.HasPrefix(n, "shuf"):
			t.Errorf("decoy %s found", n)
		case strings.HasPrefix(n, "fam"):
			fam[n] = true
		}
	}
	t.Logf("%d rows, %d family members", len(a.Rows), len(fam))
	if len(fam) < 100 {
		t.Errorf("%d family members found of 120", len(fam))
	}
}

// writeScript writes an executable shell script.
func writeScript(t *testing.T, path, body string) {
	t.Helper()
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
}

// TestBuildHHFindsCstranslate: the cstranslate on PATH where it runs, else the
// best libexec build the CPU flags allow that runs; none is an error
// naming the Debian packages.
func TestBuildHHFindsCstranslate(t *testing.T) {
	dir := t.TempDir()
	info := filepath.Join(dir, "cpuinfo")
	os.WriteFile(info, []byte("processor\t: 0\nflags\t\t: fpu sse2 pni ssse3 sse4_1 avx\n\nprocessor\t: 1\nflags\t\t: fpu sse2 pni ssse3 sse4_1 avx\n"), 0o644)
	flags := cpuFlags(info)
	if !flags["sse4_1"] || !flags["avx"] || flags["avx2"] {
		t.Fatalf("flags %v", flags)
	}
	lib := filepath.Join(dir, "libexec")
	bin := filepath.Join(dir, "bin")
	os.Mkdir(lib, 0o755)
	os.Mkdir(bin, 0o755)
	t.Setenv("PATH", bin)
	usage := `echo "Usage: cstranslate -i <infile> [options]"; exit 1`
	broken := `echo "realpath: no such file" >&2; exit 127`
	if _, err := findCstranslate(lib, flags); err == nil || !strings.Contains(err.Error(), "hhsuite and hhsuite-data") {
		t.Errorf("none: %v", err)
	}
	writeScript(t, filepath.Join(lib, "cstranslate-plain"), usage)
	writeScript(t, filepath.Join(lib, "cstranslate-avx2"), usage)
	writeScript(t, filepath.Join(lib, "cstranslate-avx"), broken)
	writeScript(t, filepath.Join(lib, "cstranslate-sse4.1"), usage)
	writeScript(t, filepath.Join(bin, "cstranslate"), broken)
	// No avx2 flag; the avx build and the PATH wrapper do not run.
	if got, err := findCstranslate(lib, flags); err != nil || got != filepath.Join(lib, "cstranslate-sse4.1") {
		t.Errorf("got %s, %v; want cstranslate-sse4.1", got, err)
	}
	if got, err := findCstranslate(lib, map[string]bool{"avx2": true}); err != nil || got != filepath.Join(lib, "cstranslate-avx2") {
		t.Errorf("avx2 CPU: got %s, %v", got, err)
	}
	if got, err := findCstranslate(lib, nil); err != nil || got != filepath.Join(lib, "cstranslate-plain") {
		t.Errorf("no flags: got %s, %v", got, err)
	}
	writeScript(t, filepath.Join(bin, "cstranslate"), usage)
	if got, err := findCstranslate(lib, flags); err != nil || got != filepath.Join(bin, "cstranslate") {
		t.Errorf("working cstranslate on PATH: got %s, %v", got, err)
	}
}

// TestBuildHHStepFails: a failing tool stops build-hh with an error
// naming the step, the tool's message and the log, which holds its
// output; the work directory is kept.
func TestBuildHHStepFails(t *testing.T) {
	dir := t.TempDir()
	mm := filepath.Join(dir, "mmseqs")
	writeScript(t, mm, `case "$1" in
result2msa) echo " --msa-format-mode INT        Format MSA as: 0: binary cA3M DB"; echo "                              5: A3M format";;
createdb) : > "$3"; echo "createdb done";;
cluster) echo "Error: out of memory in the clustering" >&2; exit 1;;
esac`)
	db := filepath.Join(dir, "db.fasta")
	os.WriteFile(db, []byte(">a\nACDE\n"), 0o644)
	out := filepath.Join(dir, "out", "db")
	_, err := buildHH(hhConfig{db: db, out: out, minSeqID: 0.3, cov: 0.8, threads: 1, mmseqs: mm, cstranslate: "/nonexistent/cstranslate", hhData: dir})
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{"step cluster", "out of memory in the clustering", out + ".build-hh.log"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if data, _ := os.ReadFile(out + ".build-hh.log"); !strings.Contains(string(data), "createdb done") || !strings.Contains(string(data), "out of memory") {
		t.Errorf("log %q", data)
	}
	if m, _ := filepath.Glob(filepath.Join(dir, "out", "build-hh-*")); len(m) != 1 {
		t.Errorf("work directory: %q", m)
	}
	if mode, err := a3mFormatMode(mm); err != nil || mode != "5" {
		t.Errorf("format mode %q, %v", mode, err)
	}
}
