package ssnet

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/contactmap/contactmap/rna/fold"
)

// The fingerprint is a short hex string, the same at every call, and
// another one for other parameters.
func TestFoldFingerprint(t *testing.T) {
	f := FoldFingerprint()
	if len(f) != 16 || strings.Trim(f, "0123456789abcdef") != "" || FoldFingerprint() != f {
		t.Fatalf("fingerprint %q", f)
	}
	if fingerprintOf(fold.DefaultParams()) != f {
		t.Fatal("the fingerprint of the default parameters is not FoldFingerprint")
	}
	if fingerprintOf(fold.DefaultParams().WithTemperature(24)) == f {
		t.Fatal("folding at 24 C has the fingerprint of 37 C")
	}
	if centroidKey("ACGU") == mfeKey("ACGU") {
		t.Fatal("a centroid key is the MFE key of the sequence")
	}
}

// A seed built from molecules holds fold's MFE and centroid structures
// and round-trips through its file; caches read through it without
// folding or changing; a seed of another fingerprint is read as stale
// and empty.
func TestFoldSeedRoundTrip(t *testing.T) {
	set := shortTestMolecules(t, 200, 3)[:3]
	seed, err := BuildFoldSeed(t.Context(), set, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "folds.tsv.gz")
	if err := seed.Write(path); err != nil {
		t.Fatal(err)
	}
	back, err := ReadFoldSeed(path)
	if err != nil {
		t.Fatal(err)
	}
	if back.Stale || back.MFE.Len() != len(set) || back.Centroid.Len() != len(set) || back.MEA.Len() != len(set) {
		t.Fatalf("read back: stale %v, %d MFE, %d centroids, %d MEA", back.Stale, back.MFE.Len(), back.Centroid.Len(), back.MEA.Len())
	}
	mfe := NewMFECache().WithSeed(back.MFE)
	cen := NewCentroidCache().WithSeed(back.Centroid)
	meas := NewMEACache().WithSeed(back.MEA)
	for _, m := range set {
		st, _, err := fold.MFE(m.Seq)
		if err != nil {
			t.Fatal(err)
		}
		e, err := fold.Partition(m.Seq)
		if err != nil {
			t.Fatal(err)
		}
		c, _ := e.Centroid()
		if p, err := mfe.Partners(m.Seq, 1); err != nil || !slices.Equal(p, st.Partner) {
			t.Fatalf("%s: seeded MFE %v differs from fold's (%v)", m.Name, p, err)
		}
		if p, err := cen.Partners(m.Seq, 1); err != nil || !slices.Equal(p, c.Partner) {
			t.Fatalf("%s: seeded centroid differs from fold's (%v)", m.Name, err)
		}
		mea, _, err := e.MEA(1)
		if err != nil {
			t.Fatal(err)
		}
		if p, err := meas.Partners(m.Seq, 1); err != nil || !slices.Equal(p, mea.Partner) {
			t.Fatalf("%s: seeded MEA structure differs from fold's (%v)", m.Name, err)
		}
	}
	if mfe.Changed() || cen.Changed() || meas.Changed() || mfe.Len() != 0 || cen.Len() != 0 || meas.Len() != 0 {
		t.Fatal("a cache folded or copied what its seed holds")
	}
	// AttachSeededMFE attaches the seed's structures and counts the rest.
	other := slices.Clone(set)
	for _, m := range shortTestMolecules(t, 500, 4) {
		if len(m.Seq) > 200 {
			other = append(other, m)
		}
	}
	if len(other) == len(set) {
		t.Fatal("no test molecule of 200 to 500 bases")
	}
	for k := range other {
		other[k].MFE = nil
	}
	missing := AttachSeededMFE(other, back.MFE)
	if missing != len(other)-len(set) {
		t.Fatalf("%d molecules left without an MFE, want %d", missing, len(other)-len(set))
	}
	for k := range set {
		if want, _ := mfe.Partners(set[k].Seq, 1); other[k].MFE == nil || !slices.Equal(other[k].MFE, want) {
			t.Fatalf("%s: the seed's MFE is not attached", set[k].Name)
		}
	}
	// Another fingerprint: stale, empty.
	writeGz(t, path, "fingerprint\t0123456789abcdef\nmfe\t"+strings.Repeat("a", 32)+"\t1-5\n")
	stale, err := ReadFoldSeed(path)
	if err != nil || !stale.Stale || stale.Fingerprint != "0123456789abcdef" || stale.MFE.Len() != 0 || stale.Centroid.Len() != 0 {
		t.Fatalf("a seed of another fingerprint: %+v, %v", stale, err)
	}
	// No file: empty, not stale.
	none, err := ReadFoldSeed(filepath.Join(t.TempDir(), "none.gz"))
	if err != nil || none.Stale || none.MFE.Len() != 0 {
		t.Fatalf("no file: %+v, %v", none, err)
	}
}

func writeGz(t *testing.T, path, text string) {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write([]byte(text))
	zw.Close()
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A damaged seed is refused with the file and the line.
func TestReadFoldSeedErrors(t *testing.T) {
	fp := "fingerprint\t" + FoldFingerprint() + "\n"
	key := strings.Repeat("a", 32)
	for _, c := range []struct{ text, want string }{
		{"", "empty file"},
		{"mfe\t" + key + "\t1-2\n", "line 1: want fingerprint"},
		{fp + "mfe\t" + key + "\t1-2\nsome\t" + key + "\t1-2\n", "line 3: want mfe, centroid or mea"},
		{fp + "centroid\t" + key + "\t5-3\n", `line 2: bad pair "5-3"`},
		{fp + "mfe\tabc\t1-2\n", "line 2: want KEY<TAB>PAIRS"},
	} {
		path := filepath.Join(t.TempDir(), "folds.tsv.gz")
		writeGz(t, path, c.text)
		_, err := ReadFoldSeed(path)
		if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.text, err, c.want)
		}
	}
}

// A centroid cache round-trips through its file and keeps its seed out
// of it.
func TestCentroidCacheFile(t *testing.T) {
	set := shortTestMolecules(t, 200, 2)[:2]
	seed := NewCentroidCache()
	if _, err := seed.Partners(set[0].Seq, 1); err != nil {
		t.Fatal(err)
	}
	c := NewCentroidCache().WithSeed(seed)
	want, err := c.Partners(set[1].Seq, 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Partners(set[0].Seq, 1); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "centroid.tsv.gz")
	if err := c.Write(path); err != nil {
		t.Fatal(err)
	}
	back, err := ReadCentroidCache(path)
	if err != nil {
		t.Fatal(err)
	}
	if back.Len() != 1 || !back.has(set[1].Seq) || back.has(set[0].Seq) {
		t.Fatalf("read back %d structures; the seed's written: %v", back.Len(), back.has(set[0].Seq))
	}
	if p, err := back.Partners(set[1].Seq, 1); err != nil || !slices.Equal(p, want) || back.Changed() {
		t.Fatalf("read back: %v %v, changed %v", p, err, back.Changed())
	}
	// An MFE cache file read as a centroid cache finds nothing: its keys
	// are the sequences' alone.
	m := NewMFECache()
	if _, err := m.Partners(set[1].Seq, 1); err != nil {
		t.Fatal(err)
	}
	if err := m.Write(path); err != nil {
		t.Fatal(err)
	}
	if wrong, err := ReadCentroidCache(path); err != nil || wrong.has(set[1].Seq) {
		t.Fatalf("an MFE cache serves centroids (%v)", err)
	}
}

// The committed seed of the bundled test split (make rna-fold-cache) is
// of today's folding code and parameters, holds both structures of every
// test molecule, and agrees with fresh folds on the short ones.
func TestCommittedFoldSeed(t *testing.T) {
	const file = "../../data/rna/test/folds.tsv.gz"
	seed, err := ReadFoldSeed(file)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(file); err != nil {
		t.Fatal(err)
	}
	if seed.Stale {
		t.Fatalf("%s was folded with fingerprint %s, now %s: run make rna-fold-cache", file, seed.Fingerprint, FoldFingerprint())
	}
	all, err := ReadSet("../../data/rna/test/testdata.txt")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range all {
		if !seed.MFE.has(m.Seq) || !seed.Centroid.has(m.Seq) || !seed.MEA.has(m.Seq) {
			t.Fatalf("%s: %s lacks its MFE, centroid or MEA structure: run make rna-fold-cache", m.Name, file)
		}
	}
	checked := 0
	for _, m := range shortTestMolecules(t, 160, 3) {
		e, err := fold.Partition(m.Seq)
		if err != nil {
			t.Fatal(err)
		}
		c, _ := e.Centroid()
		mfe, err := seed.MFE.Partners(m.Seq, 1)
		if err != nil || !slices.Equal(mfe, e.MFE.Partner) {
			t.Fatalf("%s: the seed's MFE structure differs from a fresh fold (%v)", m.Name, err)
		}
		cen, err := seed.Centroid.Partners(m.Seq, 1)
		if err != nil || !slices.Equal(cen, c.Partner) {
			t.Fatalf("%s: the seed's centroid differs from a fresh fold (%v)", m.Name, err)
		}
		mea, _, err := e.MEA(1)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := seed.MEA.Partners(m.Seq, 1); err != nil || !slices.Equal(got, mea.Partner) {
			t.Fatalf("%s: the seed's MEA structure differs from a fresh fold (%v)", m.Name, err)
		}
		checked++
	}
	t.Logf("%d molecules folded afresh", checked)
}

// FuzzReadFoldSeed: any seed file is read or refused, never a panic;
// what is read is today's fingerprint with pairs i < j of bases >= 0,
// or stale and empty.
func FuzzReadFoldSeed(f *testing.F) {
	fp := "fingerprint\t" + FoldFingerprint() + "\n"
	f.Add([]byte(fp + "mfe\t" + strings.Repeat("a", 32) + "\t1-2,3-9\ncentroid\t" + strings.Repeat("b", 32) + "\t\n"))
	f.Add([]byte("fingerprint\tx\nwhatever"))
	f.Fuzz(func(t *testing.T, text []byte) {
		path := filepath.Join(t.TempDir(), "folds.tsv.gz")
		writeGz(t, path, string(text))
		s, err := ReadFoldSeed(path)
		if err != nil {
			return
		}
		if s.Stale != (s.Fingerprint != FoldFingerprint()) || s.Stale && (s.MFE.Len() != 0 || s.Centroid.Len() != 0) {
			t.Fatalf("fingerprint %q, stale %v, %d MFE, %d centroids", s.Fingerprint, s.Stale, s.MFE.Len(), s.Centroid.Len())
		}
		for _, c := range []*MFECache{s.MFE, s.Centroid} {
			for key, pairs := range c.m {
				for n := 0; n < len(pairs); n += 2 {
					if pairs[n] < 0 || pairs[n+1] <= pairs[n] {
						t.Fatalf("%s: pair %d-%d", key, pairs[n], pairs[n+1])
					}
				}
			}
		}
	})
}
