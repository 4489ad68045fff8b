package predict

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/contactmap/contactmap/pipeline/model"
)

func TestParseRRMax(t *testing.T) {
	for in, want := range map[string]RRMax{
		"5L": {PerL: 5}, "5l": {PerL: 5}, "L": {PerL: 1}, " 2L ": {PerL: 2}, "1000": {N: 1000}, "1": {N: 1}, "0": {All: true},
		"99999999999999999999": {N: math.MaxInt},
	} {
		got, err := ParseRRMax(in)
		if err != nil || got != want {
			t.Errorf("ParseRRMax(%q) = %+v, %v; want %+v", in, got, err, want)
		}
		if again, err := ParseRRMax(got.String()); err != nil || again != got {
			t.Errorf("%q: String %q reads back as %+v, %v", in, got.String(), again, err)
		}
	}
	for _, in := range []string{"", "-1", "-5L", "0L", "1.5", "1.5L", "L/5", "5X", "abc", "+5", "5 L", "99999999999999999999L"} {
		if got, err := ParseRRMax(in); err == nil {
			t.Errorf("ParseRRMax(%q) = %+v, want an error", in, got)
		}
	}
	var zero RRMax
	for _, tc := range []struct {
		m        RRMax
		l, limit int
	}{{zero, 54, 270}, {DefaultRRMax, 54, 270}, {RRMax{PerL: 2}, 10, 20}, {RRMax{N: 7}, 54, 7}, {RRMax{All: true}, 54, 0}, {RRMax{PerL: math.MaxInt / 2}, 10, math.MaxInt}} {
		if got := tc.m.Limit(tc.l); got != tc.limit {
			t.Errorf("%+v.Limit(%d) = %d, want %d", tc.m, tc.l, got, tc.limit)
		}
	}
}

// fullSort is the reference TopPairs must match: every pair with
// j-i >= minSep, sorted by decreasing probability with ties in (i, j)
// order, the first k (all for k <= 0).
func fullSort(p []float32, l, minSep, k int) []Pair {
	var all []Pair
	for i := 0; i < l; i++ {
		for j := i + 1; j < l; j++ {
			if j-i >= max(minSep, 1) {
				all = append(all, Pair{i, j, p[i*l+j]})
			}
		}
	}
	sort.SliceStable(all, func(a, b int) bool { return all[a].P > all[b].P })
	if k > 0 && k < len(all) {
		all = all[:k]
	}
	return all
}

// randomMap returns a symmetric L x L map whose probabilities take few
// values when coarse (many ties), else many.
func randomMap(r *rand.Rand, l int, coarse bool) []float32 {
	p := make([]float32, l*l)
	for i := 0; i < l; i++ {
		for j := i + 1; j < l; j++ {
			v := r.Float32()
			if coarse {
				v = float32(r.IntN(5)) / 4
			}
			p[i*l+j], p[j*l+i] = v, v
		}
	}
	return p
}

// TopPairs keeps exactly the first k pairs of a full sort (ties by i, then
// j), over random maps with and without ties, separations and limits
// below, at and above the number of pairs.
func TestTopPairsMatchesFullSort(t *testing.T) {
	r := rand.New(rand.NewPCG(28, 3))
	for trial := 0; trial < 500; trial++ {
		l := r.IntN(40)
		minSep := r.IntN(9)
		p := randomMap(r, l, trial%2 == 0)
		n := CountPairs(l, minSep)
		if want := len(fullSort(p, l, minSep, 0)); n != want {
			t.Fatalf("CountPairs(%d, %d) = %d, want %d", l, minSep, n, want)
		}
		for _, k := range []int{0, 1, r.IntN(n + 2), n, n + 1, 5 * l} {
			got, want := TopPairs(p, l, minSep, k), fullSort(p, l, minSep, k)
			if len(got) != len(want) {
				t.Fatalf("L=%d minSep=%d k=%d: %d pairs, want %d", l, minSep, k, len(got), len(want))
			}
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("L=%d minSep=%d k=%d: pair %d is %+v, want %+v", l, minSep, k, i, got[i], want[i])
				}
			}
		}
	}
}

// An RR file written before --rr-max (testdata/before-rr-max.rr, every
// pair with |i-j| >= 6 of a map with ties) still reads back; the writer
// keeping every pair writes the same file plus the REMARK saying how many
// were kept, and keeping k writes its first k pairs.
func TestRRGoldenBeforeRRMax(t *testing.T) {
	old, err := os.ReadFile("testdata/before-rr-max.rr")
	if err != nil {
		t.Fatal(err)
	}
	seq, oldPairs, err := ReadRR(bytes.NewReader(old))
	if err != nil || seq != "MKTAYIAKQRQISF" || len(oldPairs) != CountPairs(len(seq), 6) {
		t.Fatalf("old RR: %q, %d pairs, %v", seq, len(oldPairs), err)
	}
	l := len(seq)
	p := make([]float32, l*l) // the map the golden file was written from
	for i := 0; i < l; i++ {
		for j := i + 1; j < l; j++ {
			v := float32((i*7+j*13)%10) / 10
			p[i*l+j], p[j*l+i] = v, v
		}
	}
	info := RRInfo{Target: "T1", Method: "golden", Labels: "C-alpha pairs closer than 8 Å", Seq: seq, MinSep: 6}
	var buf bytes.Buffer
	if err := WriteRR(&buf, info, p); err != nil {
		t.Fatal(err)
	}
	remark := fmt.Sprintf("REMARK Kept %d of %d pairs, the most probable.\n", len(oldPairs), len(oldPairs))
	want := strings.Replace(string(old), "METHOD", remark+"METHOD", 1)
	if buf.String() != want {
		t.Errorf("every pair: got\n%s\nwant\n%s", buf.String(), want)
	}
	info.Max = 10
	buf.Reset()
	if err := WriteRR(&buf, info, p); err != nil {
		t.Fatal(err)
	}
	_, pairs, err := ReadRR(&buf)
	if err != nil || len(pairs) != 10 {
		t.Fatalf("Max 10: %d pairs, %v", len(pairs), err)
	}
	for i := range pairs {
		if pairs[i] != oldPairs[i] {
			t.Errorf("Max 10: pair %d is %+v, the old file's %+v", i, pairs[i], oldPairs[i])
		}
	}
	if !bytes.Contains(mustWriteRR(t, info, p), []byte("REMARK Kept 10 of 36 pairs, the most probable.\n")) {
		t.Error("Max 10: no REMARK saying 10 of 36 were kept")
	}
}

func mustWriteRR(t *testing.T, info RRInfo, p []float32) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteRR(&buf, info, p); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// Run's RR files keep min(5L, the pairs with |i-j| >= RRMinSep) pairs by
// default, the most probable of the .npy's full map in order; RRMax 0
// (All) keeps every pair, an explicit N keeps N, and the .npy is the same
// full map whatever RRMax says.
func TestRunRRMax(t *testing.T) {
	dir := t.TempDir()
	fasta := filepath.Join(dir, "s.fa")
	// L = 40: 5L = 200 < 595 pairs with |i-j| >= 6; L = 12: 21 pairs < 60.
	os.WriteFile(fasta, []byte(">long\nMKTAYIAKQRQISFVKSHFSRQLEERLGLIEVQAPILSRV\n>short\nMKTAYIAKQRQI\n"), 0o644)
	m := testModel(t, model.SCNN)
	npys := map[string][]byte{}
	for _, tc := range []struct {
		name   string
		rrMax  RRMax
		minSep int
		want   func(l, n int) int
	}{
		{"default", RRMax{}, 0, func(l, n int) int { return min(5*l, n) }},
		{"default-sep12", RRMax{}, 12, func(l, n int) int { return min(5*l, n) }},
		{"2L", RRMax{PerL: 2}, 0, func(l, n int) int { return min(2*l, n) }},
		{"all", RRMax{All: true}, 0, func(l, n int) int { return n }},
		{"all-sep1", RRMax{All: true}, 1, func(l, n int) int { return n }},
		{"n50", RRMax{N: 50}, 0, func(l, n int) int { return min(50, n) }},
	} {
		out := filepath.Join(dir, tc.name)
		outs, err := Run(context.Background(), Config{Models: []string{m}, Out: out, Formats: []string{"rr", "npy"}, RRMax: tc.rrMax, RRMinSep: tc.minSep}, []string{fasta})
		if err != nil || len(outs) != 2 {
			t.Fatalf("%s: %v %+v", tc.name, err, outs)
		}
		for _, o := range outs {
			if o.Err != nil {
				t.Fatalf("%s: %s: %v", tc.name, o.ID, o.Err)
			}
			l := o.L
			npy, _ := os.ReadFile(filepath.Join(out, o.ID+".npy"))
			if prev, ok := npys[o.ID]; ok && !bytes.Equal(prev, npy) {
				t.Errorf("%s: %s: the .npy differs from another RRMax's", tc.name, o.ID)
			}
			npys[o.ID] = npy
			full := readNPYShape(t, npy, l)
			minSep := tc.minSep
			if minSep < 1 {
				minSep = DefaultRRMinSep
			}
			n := CountPairs(l, minSep)
			k := tc.want(l, n)
			rr, _ := os.ReadFile(filepath.Join(out, o.ID+".rr"))
			_, pairs, err := ReadRR(bytes.NewReader(rr))
			if err != nil || len(pairs) != k {
				t.Fatalf("%s: %s (L=%d, %d pairs): RR has %d pairs, want %d (%v)", tc.name, o.ID, l, n, len(pairs), k, err)
			}
			if remark := fmt.Sprintf("REMARK Kept %d of %d pairs, the most probable.\n", k, n); !bytes.Contains(rr, []byte(remark)) {
				t.Errorf("%s: %s: no %q", tc.name, o.ID, remark)
			}
			want := fullSort(full, l, minSep, k)
			for i, q := range pairs {
				w := want[i]
				if q.I != w.I || q.J != w.J || math.Abs(float64(q.P-w.P)) > 1e-6 { // RR has 6 decimals
					t.Fatalf("%s: %s: RR pair %d is %+v, the full sort's %+v", tc.name, o.ID, i, q, w)
				}
			}
		}
	}
}

// A separation past any chain's length (--rr-min-sep 9223372036854775807)
// keeps no pair; i+minSep overflowed into a negative column and panicked.
func TestTopPairsHugeSeparation(t *testing.T) {
	const l = 12
	p := make([]float32, l*l)
	for _, minSep := range []int{math.MaxInt, math.MaxInt - 5, math.MaxInt - l, l, l - 1} {
		for _, k := range []int{0, 1, math.MaxInt} {
			got := TopPairs(p, l, minSep, k)
			want := CountPairs(l, minSep)
			if want > 0 && k == 1 {
				want = 1
			}
			if len(got) != want {
				t.Errorf("TopPairs(minSep %d, k %d): %d pairs, want %d", minSep, k, len(got), want)
			}
		}
	}
	var b strings.Builder
	if err := WriteRR(&b, RRInfo{Target: "x", Seq: strings.Repeat("A", l), MinSep: math.MaxInt, Max: math.MaxInt}, p); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "Kept 0 of 0 pairs") {
		t.Errorf("RR file:\n%s", b.String())
	}
}
