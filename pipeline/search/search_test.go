package search

import (
	"bytes"
	"context"
	"errors"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/contactmap/contactmap/pipeline/msa"
)

func TestParseStockholmAnchorsOnQuery(t *testing.T) {
	// Column 3 is an insert of the query's alignment (the query has a
	// gap there); '.' and '-' are gaps.
	sto := "# STOCKHOLM 1.0\n#=GF ID x\nq   AC-DE\nh1  ACkD.\n#=GC RF xx.xx\nh2  a-.DE\n\nq   FG\nh1  F-\nh2  GG\n//\n"
	a, err := ParseStockholm([]byte(sto), "x.sto")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"ACDEFG", "ACkD-F-", "A-DEGG"}
	if strings.Join(a.Rows, " ") != strings.Join(want, " ") {
		t.Fatalf("rows %q, want %q", a.Rows, want)
	}
	if err := a.check("ACDEFG", "x"); err != nil {
		t.Fatal(err)
	}
	if _, err := ParseStockholm([]byte("# STOCKHOLM 1.0\nq AC\nh A\n//\n"), "bad.sto"); !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "bad.sto") {
		t.Fatalf("ragged: %v", err)
	}
}

func TestParseA3MMMseqsEntry(t *testing.T) {
	data := "#A3M#\n>q desc\nACDE\n>h1\t100\t0.5\nAcC-E\n>h2\nAC\nDE\n\x00"
	a, err := ParseA3M([]byte(data), "out.a3m")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(a.Names, ",") != "q,h1,h2" || strings.Join(a.Rows, ",") != "ACDE,AcC-E,ACDE" {
		t.Fatalf("got %q %q", a.Names, a.Rows)
	}
	if err := a.check("ACDE", "out.a3m"); err != nil {
		t.Fatal(err)
	}
	if err := a.check("ACDF", "out.a3m"); !errors.Is(err, ErrFormat) {
		t.Fatalf("wrong query accepted: %v", err)
	}
}

func TestFilter(t *testing.T) {
	a := &Alignment{
		Names: []string{"q", "same", "half", "far", "ins", "far2", "far9"},
		Rows:  []string{"ACDEFGHIKL", "ACDEFGHIKL", "ACDEF-----", "MMMMMMMMMM", "ACDkkkEFGHIKL", "MMMMMMMMMM", "MMMMMMMMMA"},
	}
	names := func(b *Alignment) string { return strings.Join(b.Names, ",") }
	if got := names(a.Apply(Filter{MaxIdentity: 1})); got != "q,same,half,far,ins,far2,far9" {
		t.Errorf("no filter: %s", got)
	}
	if got := names(a.Apply(Filter{MinCoverage: 0.6, MaxIdentity: 1})); got != "q,same,far,ins,far2,far9" {
		t.Errorf("coverage 0.6: %s", got)
	}
	if got := names(a.Apply(Filter{MaxIdentity: 0.9})); got != "q,far,far2,far9" {
		t.Errorf("identity 0.9: %s", got)
	}
	if got := names(a.Apply(Filter{MaxIdentity: 1, MaxDepth: 3})); got != "q,same,half" {
		t.Errorf("depth 3: %s", got)
	}
	// The redundancy filter: same and ins (the query's residues) and far2
	// (far's) are copies of a row kept before them; far9 is 9 of 10, not
	// more than 90%. The depth counts the rows it keeps.
	if got := names(a.Apply(Filter{MaxIdentity: 1, MaxPairIdentity: 0.9})); got != "q,half,far,far9" {
		t.Errorf("pair identity 0.9: %s", got)
	}
	if got := names(a.Apply(Filter{MaxIdentity: 1, MaxPairIdentity: 0.9, MaxDepth: 3})); got != "q,half,far" {
		t.Errorf("pair identity 0.9, depth 3: %s", got)
	}
	if got := names(a.Apply(Filter{MaxIdentity: 1, MaxPairIdentity: 1})); got != "q,same,half,far,ins,far2,far9" {
		t.Errorf("pair identity 1: %s", got)
	}
}

func TestWriteFormatsRead(t *testing.T) {
	a := &Alignment{Names: []string{"q", "h", "h"}, Rows: []string{"ACDE", "AkkC-E", "A-DEg"}}
	wantRows := []string{"ACDE", "AC-E", "A-DE"}
	for _, f := range Formats {
		var b bytes.Buffer
		if err := a.Write(&b, f); err != nil {
			t.Fatal(err)
		}
		m, err := msa.Parse(b.Bytes(), "x."+f, msa.Unknown)
		if err != nil {
			t.Fatalf("%s: %v\n%s", f, err, b.String())
		}
		var got []string
		for _, r := range m.Rows {
			got = append(got, string(r))
		}
		if strings.Join(got, " ") != strings.Join(wantRows, " ") {
			t.Errorf("%s: rows %q, want %q\n%s", f, got, wantRows, b.String())
		}
	}
	var b bytes.Buffer
	a.Write(&b, "sto")
	if !strings.Contains(b.String(), "AkkC-E.") || !strings.Contains(b.String(), "#=GC RF x..xxx.") {
		t.Errorf("Stockholm insertions not padded:\n%s", b.String())
	}
}

func TestNeffPerL(t *testing.T) {
	// Two identical rows and one unrelated: Neff 2 (weights 1/2, 1/2, 1).
	a := &Alignment{Names: []string{"q", "c", "o"}, Rows: []string{"ACDEFGHIKL", "ACDEFGHIKL", "MNPQRSTVWY"}}
	if got := a.NeffPerL(1); got != 0.2 {
		t.Fatalf("Neff/L %v, want 0.2", got)
	}
}

// testDB writes a FASTA database of the family members of 1aapA and as
// many shuffled copies of them (decoys named shufN) and returns its path
// and the query.
func testDB(t *testing.T) (db string, q Query) {
	t.Helper()
	fam, err := os.ReadFile("testdata/1aapA.family.fasta")
	if err != nil {
		t.Fatal(err)
	}
	qd, err := os.ReadFile("testdata/1aapA.query.fasta")
	if err != nil {
		t.Fatal(err)
	}
	q = Query{Name: "1aapA", Seq: strings.TrimSpace(strings.Split(string(qd), "\n")[1])}
	var b bytes.Buffer
	b.Write(fam)
	rng := rand.New(rand.NewSource(1))
	k := 0
	for _, l := range strings.Split(string(fam), "\n") {
		if l == "" || l[0] == '>' {
			continue
		}
		s := []byte(l)
		rng.Shuffle(len(s), func(i, j int) { s[i], s[j] = s[j], s[i] })
		k++
		b.WriteString(">shuf" + strconv.Itoa(k) + "\n" + string(s) + "\n")
	}
	db = filepath.Join(t.TempDir(), "db.fasta")
	if err := os.WriteFile(db, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return db, q
}

func needTool(t *testing.T, name, pkg string) {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		t.Skipf("%s not on PATH: install the Debian package %s (CI does)", name, pkg)
	}
}

// checkFamily checks that a found the family and no decoy, the query first.
func checkFamily(t *testing.T, a *Alignment, q Query) {
	t.Helper()
	if a.Rows[0] != q.Seq {
		t.Fatalf("first row %q, want the query", a.Rows[0])
	}
	fam := 0
	for k, r := range a.Rows {
		if n := len(matches(r)); n != len(q.Seq) {
			t.Fatalf("row %d (%s): %d query columns, want %d", k, a.Names[k], n, len(q.Seq))
		}
		switch {
		case strings.HasPrefix(a.Names[k], "shuf"):
			t.Errorf("decoy %s found", a.Names[k])
		case strings.HasPrefix(a.Names[k], "fam"):
			fam++
		}
	}
	if fam < 100 {
		t.Errorf("%d family members found of 120", fam)
	}
}

func TestSearchTools(t *testing.T) {
	db, q := testDB(t)
	// gzip-compressed database, as users have them.
	gz := db + ".gz"
	if out, err := exec.Command("sh", "-c", "gzip -c "+db+" > "+gz).CombinedOutput(); err != nil {
		t.Fatalf("gzip: %v %s", err, out)
	}
	for _, tc := range []struct {
		tool Tool
		db   string
	}{{Jackhmmer, db}, {Jackhmmer, gz}, {MMseqs, gz}} {
		t.Run(string(tc.tool)+"/"+filepath.Base(tc.db), func(t *testing.T) {
			needTool(t, string(tc.tool), tc.tool.Package())
			s, err := New(Options{Tool: tc.tool, DB: tc.db, Threads: 2, Iterations: 2})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if !strings.Contains(s.Version(), ".") && !strings.Contains(s.Version(), "-") {
				t.Errorf("version %q", s.Version())
			}
			var log bytes.Buffer
			a, err := s.Search(context.Background(), q, &log)
			if err != nil {
				t.Fatalf("%v\n%s", err, log.String())
			}
			checkFamily(t, a, q)
			if !strings.Contains(log.String(), "$ ") {
				t.Errorf("log has no command lines:\n%s", log.String())
			}
		})
	}
}

// cstranslate returns a cstranslate that runs and the directory of
// HH-suite's context libraries (Debian's hhsuite-data), or "" where
// either is missing: the one on PATH, else Debian's hhsuite 3.3.0 builds
// /usr/libexec/hhsuite/cstranslate-SIMD, best first, that this CPU's
// /proc/cpuinfo flags allow (the wrapper /usr/libexec/hhsuite/bin/
// cstranslate is broken when called from there).
func cstranslate(t *testing.T) (bin, data string) {
	t.Helper()
	data = "/usr/share/hhsuite/data"
	for _, f := range []string{"cs219.lib", "context_data.lib"} {
		if _, err := os.Stat(filepath.Join(data, f)); err != nil {
			return "", ""
		}
	}
	runs := func(p string) bool {
		out, _ := exec.Command(p).CombinedOutput()
		return bytes.Contains(out, []byte("Usage: cstranslate"))
	}
	if p, err := exec.LookPath("cstranslate"); err == nil && runs(p) {
		return p, data
	}
	info, _ := os.ReadFile("/proc/cpuinfo")
	flags := map[string]bool{"": true}
	for _, l := range strings.Split(string(info), "\n") {
		if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "flags" {
			for _, f := range strings.Fields(v) {
				flags[f] = true
			}
		}
	}
	for _, s := range [][2]string{{"avx2", "avx2"}, {"avx", "avx"}, {"sse4.1", "sse4_1"}, {"ssse3", "ssse3"}, {"sse3", "pni"}, {"plain", ""}} {
		if p := "/usr/libexec/hhsuite/cstranslate-" + s[0]; flags[s[1]] && runs(p) {
			return p, data
		}
	}
	return "", ""
}

// TestHHblits searches an HH-suite database built from the test
// sequences (one A3M per sequence, ffindex_build). Where a cstranslate
// runs (Debian's hhsuite ships it in /usr/libexec/hhsuite), the
// column-state (cs219) files are cstranslate's and HHblits runs with its
// prefilter; without one they are stand-ins and HHblits runs with
// -noprefilt, through a wrapper script given as Bin. The test logs which
// ran.
func TestHHblits(t *testing.T) {
	needTool(t, "hhblits", "hhsuite")
	needTool(t, "ffindex_build", "hhsuite")
	db, q := testDB(t)
	dir := t.TempDir()
	data, _ := os.ReadFile(db)
	a3m := filepath.Join(dir, "a3m")
	os.Mkdir(a3m, 0o755)
	recs := strings.Split(strings.TrimSpace(string(data)), ">")
	for _, r := range recs[1:] {
		name, _, _ := strings.Cut(r, "\n")
		os.WriteFile(filepath.Join(a3m, name), []byte(">"+r), 0o644)
	}
	prefix := filepath.Join(dir, "db")
	cs, csData := cstranslate(t)
	kinds := []string{"a3m", "cs219"}
	if cs != "" {
		kinds = kinds[:1]
	}
	for _, kind := range kinds {
		if out, err := exec.Command("ffindex_build", "-s", prefix+"_"+kind+".ffdata", prefix+"_"+kind+".ffindex", a3m).CombinedOutput(); err != nil {
			t.Fatalf("ffindex_build: %v %s", err, out)
		}
	}
	opt := Options{Tool: HHblits, DB: prefix, Threads: 2}
	if cs != "" {
		t.Logf("real cs219 files by %s, HHblits with its prefilter", cs)
		c := exec.Command(cs, "-f", "-x", "0.3", "-c", "4", "-I", "a3m", "-i", prefix+"_a3m", "-o", prefix+"_cs219",
			"-A", filepath.Join(csData, "cs219.lib"), "-D", filepath.Join(csData, "context_data.lib"))
		c.Env = append(os.Environ(), "OMP_NUM_THREADS=2")
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("cstranslate: %v %s", err, out)
		}
	} else {
		t.Log("no cstranslate (Debian packages hhsuite, hhsuite-data): stand-in cs219 files, HHblits with -noprefilt")
		opt.Bin = filepath.Join(dir, "hhblits-noprefilt")
		os.WriteFile(opt.Bin, []byte("#!/bin/sh\nexec hhblits \"$@\" -noprefilt\n"), 0o755)
	}
	s, err := New(opt)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if !strings.HasPrefix(s.Version(), "HHblits 3") {
		t.Errorf("version %q", s.Version())
	}
	var log bytes.Buffer
	a, err := s.Search(context.Background(), q, &log)
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	if cs != "" && !strings.Contains(log.String(), "passed 1st prefilter") {
		t.Errorf("hhblits did not run its prefilter:\n%s", log.String())
	}
	checkFamily(t, a, q)
}

func TestMissingToolNamesPackage(t *testing.T) {
	db, _ := testDB(t)
	for _, tool := range Tools {
		_, err := New(Options{Tool: tool, Bin: "/nonexistent/" + string(tool), DB: db})
		if !errors.Is(err, ErrNoTool) || !strings.Contains(err.Error(), "Debian package "+tool.Package()) {
			t.Errorf("%s: %v", tool, err)
		}
	}
	t.Setenv("PATH", t.TempDir())
	if _, err := New(Options{Tool: MMseqs, DB: db}); err == nil || !strings.Contains(err.Error(), "apt-get install mmseqs2") {
		t.Errorf("not on PATH: %v", err)
	}
}

func readManifest(t *testing.T, path string) map[string][]string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if lines[0] != ManifestHeader {
		t.Fatalf("manifest header %q", lines[0])
	}
	rows := map[string][]string{}
	for _, l := range lines[1:] {
		f := strings.Split(l, "\t")
		if len(f) != len(strings.Split(ManifestHeader, "\t")) {
			t.Fatalf("manifest row of %d fields: %q", len(f), l)
		}
		rows[f[0]] = f
	}
	return rows
}

// TestRunResumeAndFailures runs jackhmmer through a wrapper that fails
// for one query: that query is failed with its log kept, the others are
// written; an empty query fails alone; a second run skips, Force redoes.
func TestRunResumeAndFailures(t *testing.T) {
	needTool(t, "jackhmmer", "hmmer")
	db, q := testDB(t)
	dir := t.TempDir()
	bin := filepath.Join(dir, "jackhmmer-failing")
	os.WriteFile(bin, []byte("#!/bin/sh\nfor a; do last2=$last; last=$a; done\nif grep -q '>bad' \"$last2\" 2>/dev/null; then echo 'Error: this query fails' >&2; exit 3; fi\nexec jackhmmer \"$@\"\n"), 0o755)
	s, err := New(Options{Tool: Jackhmmer, Bin: bin, DB: db, Iterations: 1, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.Version() != "HMMER 3.3.2" && !strings.HasPrefix(s.Version(), "HMMER 3") {
		t.Errorf("version %q", s.Version())
	}
	out := filepath.Join(dir, "out")
	os.Mkdir(out, 0o755)
	cfg := Config{Out: out, Workers: 2, Filter: Filter{MaxIdentity: 1, MaxDepth: 50}}
	jobs := []Job{
		{Name: "a", ID: "a", Seq: q.Seq},
		{Name: "bad", ID: "bad", Seq: q.Seq},
		{Name: "empty", ID: "empty", Seq: ""},
		{Name: "b", ID: "b", Seq: q.Seq[5:]},
	}
	calls := 0
	res := Run(context.Background(), s, cfg, jobs, func(Result) { calls++ })
	if calls != len(jobs) {
		t.Errorf("onDone called %d times", calls)
	}
	status := func(rs []Result) string {
		var b []string
		for _, r := range rs {
			b = append(b, r.Name+"="+r.Status)
		}
		return strings.Join(b, " ")
	}
	if got := status(res); got != "a=ok bad=failed empty=failed b=ok" {
		t.Fatalf("statuses %s; errors %v %v", got, res[1].Err, res[2].Err)
	}
	if !errors.Is(res[1].Err, ErrTool) || !strings.Contains(res[1].Err.Error(), "this query fails") || !strings.Contains(res[1].Err.Error(), "bad.log") {
		t.Errorf("failed query's error: %v", res[1].Err)
	}
	if !errors.Is(res[2].Err, ErrQuery) {
		t.Errorf("empty query's error: %v", res[2].Err)
	}
	if log, err := os.ReadFile(filepath.Join(out, "bad.log")); err != nil || !strings.Contains(string(log), "this query fails") {
		t.Errorf("failed query's log: %v %q", err, log)
	}
	if res[0].Depth != 50 || res[0].L != len(q.Seq) || res[0].NeffL <= 0 {
		t.Errorf("a: depth %d (want 50, --max-depth), L %d, Neff/L %v", res[0].Depth, res[0].L, res[0].NeffL)
	}
	m, err := msa.ReadFile(filepath.Join(out, "a.a3m"))
	if err != nil || m.N() != 50 || m.Query() != q.Seq {
		t.Fatalf("a.a3m: %v", err)
	}
	mpath := filepath.Join(out, ManifestName+".tsv")
	if err := WriteManifest(mpath, s, cfg, res); err != nil {
		t.Fatal(err)
	}
	rows := readManifest(t, mpath)
	if r := rows["a"]; r[1] != "56" || r[2] != "50" || r[4] != "ok" || r[5] != "jackhmmer" || !strings.HasPrefix(r[6], "HMMER") || r[7] != db || r[10] != "a.a3m" || !strings.Contains(r[9], "max-depth=50") || !strings.Contains(r[9], "iterations=1") {
		t.Errorf("manifest row a: %q", r)
	}
	if r := rows["bad"]; r[4] != "failed" || !strings.Contains(r[11], "this query fails") {
		t.Errorf("manifest row bad: %q", r)
	}

	// A second run skips what exists, and keeps its manifest rows.
	os.WriteFile(filepath.Join(out, "a.log"), []byte("old"), 0o644)
	res2 := Run(context.Background(), s, cfg, jobs[:1], nil)
	if res2[0].Status != StatusSkipped {
		t.Fatalf("second run: %s %v", res2[0].Status, res2[0].Err)
	}
	if log, _ := os.ReadFile(filepath.Join(out, "a.log")); string(log) != "old" {
		t.Errorf("skipped query's log rewritten")
	}
	WriteManifest(mpath, s, cfg, res2)
	if r := readManifest(t, mpath)["a"]; r[4] != "ok" || r[2] != "50" {
		t.Errorf("skip replaced the manifest row: %q", r)
	}
	cfg.Force = true
	if res3 := Run(context.Background(), s, cfg, jobs[:1], nil); res3[0].Status != StatusOK {
		t.Fatalf("--force: %s %v", res3[0].Status, res3[0].Err)
	}
	if log, _ := os.ReadFile(filepath.Join(out, "a.log")); string(log) == "old" {
		t.Errorf("--force did not redo the query")
	}
}

// Report lists the skipped queries on errw and tables the searched ones;
// Finished drops the interrupted; the manifest of a shard is its own.
func TestReportAndFinished(t *testing.T) {
	rs := []Result{
		{Job: Job{ID: "a"}, Status: StatusOK, File: "o/a.a3m", L: 50, Depth: 12, NeffL: 1.234, Seconds: 2.25},
		{Job: Job{ID: "b"}, Status: StatusSkipped, File: "o/b.a3m"},
		{Job: Job{ID: "c"}, Status: StatusFailed, Err: errors.New("no")},
		{Job: Job{ID: "d"}, Status: StatusFailed, Err: context.Canceled},
	}
	kept := Finished(rs)
	if len(kept) != 3 {
		t.Fatalf("Finished kept %d", len(kept))
	}
	var w, errw bytes.Buffer
	failed := Report(&w, &errw, kept)
	if len(failed) != 1 || failed[0].Name != "c" || failed[0].Err == nil || errw.String() != "b: o/b.a3m exists: skipped (--force redoes it)\n" {
		t.Errorf("failed %+v, errw %q", failed, errw.String())
	}
	if want := "query  length  depth  Neff/L  seconds  file\na      50      12     1.23    2.2      o/a.a3m\n"; w.String() != want {
		t.Errorf("table %q, want %q", w.String(), want)
	}
	if ManifestFile("o", 0, 1) != filepath.Join("o", "manifest.tsv") || ManifestFile("o", 2, 4) != filepath.Join("o", "manifest.shard-2-of-4.tsv") {
		t.Error("ManifestFile")
	}
}

// MMseqs2 with Options.DBIndex (--db-index): the first search builds the
// database and its index in that directory, not beside the FASTA; a
// second searcher finds it there and builds nothing; both find the
// family.
func TestMMseqsDBIndex(t *testing.T) {
	needTool(t, "mmseqs", MMseqs.Package())
	db, q := testDB(t)
	dir := filepath.Join(t.TempDir(), "index")
	for k, want := range []string{"# building the MMseqs2 database and index of", "# MMseqs2 database and index: " + dir} {
		s, err := New(Options{Tool: MMseqs, DB: db, DBIndex: dir, Threads: 2})
		if err != nil {
			t.Fatal(err)
		}
		var log bytes.Buffer
		a, err := s.Search(context.Background(), q, &log)
		s.Close()
		if err != nil {
			t.Fatalf("search %d: %v\n%s", k+1, err, log.String())
		}
		if !strings.Contains(log.String(), want) {
			t.Errorf("search %d: the log does not say %q:\n%s", k+1, want, log.String())
		}
		checkFamily(t, a, q)
	}
	if _, err := os.Stat(filepath.Join(dir, "db.dbtype")); err != nil {
		t.Errorf("no database in --db-index: %v", err)
	}
	if _, err := os.Stat(db + ".mmseqs"); err == nil {
		t.Errorf("an index was built beside the database too")
	}
}
