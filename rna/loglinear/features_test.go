package loglinear

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/contactmap/contactmap/rna"
)

func TestFeatureNamesUnique(t *testing.T) {
	seen := map[string]int{}
	for f := 0; f < NumFeatures; f++ {
		n := Feature(f)
		if n == "" || strings.Contains(n, "\t") {
			t.Fatalf("feature %d: name %q", f, n)
		}
		if g, ok := seen[n]; ok {
			t.Fatalf("features %d and %d share the name %q", g, f, n)
		}
		seen[n] = f
	}
	if Feature(-1) != "" || Feature(NumFeatures) != "" {
		t.Error("out-of-range features have names")
	}
}

func TestModelRoundTrip(t *testing.T) {
	m := randomTheta(rand.New(rand.NewPCG(9, 9)), 2)
	var b bytes.Buffer
	if err := WriteModel(&b, m); err != nil {
		t.Fatal(err)
	}
	got, err := ReadModel(bytes.NewReader(b.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	for f := range m.Theta {
		if got.Theta[f] != m.Theta[f] {
			t.Fatalf("%s: %v, wrote %v", Feature(f), got.Theta[f], m.Theta[f])
		}
	}
}

func TestReadModelErrors(t *testing.T) {
	var good bytes.Buffer
	WriteModel(&good, NewModel())
	lines := strings.Split(strings.TrimSpace(good.String()), "\n")
	cases := map[string]string{
		"empty":      "",
		"header":     "# other\n" + strings.Join(lines[1:], "\n"),
		"missing":    strings.Join(lines[:len(lines)-1], "\n"),
		"twice":      good.String() + lines[1] + "\n",
		"unknown":    good.String() + "pair XY\t1\n",
		"no tab":     good.String() + "pair AU 1\n",
		"NaN":        strings.Replace(good.String(), "pair AU\t0", "pair AU\tNaN", 1),
		"too large":  strings.Replace(good.String(), "pair AU\t0", "pair AU\t1e9", 1),
		"not number": strings.Replace(good.String(), "pair AU\t0", "pair AU\tx", 1),
	}
	for name, in := range cases {
		if _, err := ReadModel(strings.NewReader(in)); !errors.Is(err, ErrModel) {
			t.Errorf("%s: error %v, want ErrModel", name, err)
		}
	}
}

func FuzzReadModel(f *testing.F) {
	var good bytes.Buffer
	WriteModel(&good, NewModel())
	f.Add(good.Bytes())
	f.Add([]byte(header + "\npair AU\t1\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := ReadModel(bytes.NewReader(b))
		if err != nil {
			return
		}
		var out bytes.Buffer
		if err := WriteModel(&out, m); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadModel(&out); err != nil {
			t.Fatalf("a model read back fails: %v", err)
		}
	})
}

func TestCountsHandWorked(t *testing.T) {
	// A stem of three stacked pairs, (1,9) G-C, (2,8) C-G and (3,7) G-C,
	// closing a 3-base hairpin, one unpaired base on each side.
	s, err := rna.ParseDotBracket("h", "AGCGAAACGCU", ".(((...))).")
	if err != nil {
		t.Fatal(err)
	}
	c := make([]float64, NumFeatures)
	if err := Counts(s, 0, c); err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{
		"pair GC": 2, "pair CG": 1,
		"stack GC CG": 1, "stack CG GC": 1,
		"hairpin length 3": 1, "hairpin mismatch GC A A": 1,
		"exterior branch": 1, "exterior mismatch GC A U": 1, "exterior unpaired": 2,
	}
	for f, v := range c {
		if v != want[Feature(f)] {
			t.Errorf("%s: %v, want %v", Feature(f), v, want[Feature(f)])
		}
	}
	if err := Counts(s, 8, c); !errors.Is(err, ErrStructure) {
		t.Errorf("span limit 8: error %v, want ErrStructure", err)
	}
}

func TestRepresentable(t *testing.T) {
	seq := []byte(strings.Repeat("A", 31))
	set := func(i int, b byte) { seq[i] = b }
	for _, p := range [][2]int{{0, 9}, {1, 8}, {2, 7}, {5, 13}, {19, 22}} {
		set(p[0], 'G')
		set(p[1], 'C')
	}
	// (0,9) (1,8) (2,7): a stem; (5,13) G-C crosses it; (19,22) closes a
	// 2-base hairpin; (24,30) is A-A.
	pairs := [][2]int{{0, 9}, {1, 8}, {2, 7}, {5, 13}, {19, 22}, {24, 30}}
	s, err := rna.New("k", string(seq), pairs)
	if err != nil {
		t.Fatal(err)
	}
	if err := Counts(s, 0, make([]float64, NumFeatures)); !errors.Is(err, ErrStructure) {
		t.Errorf("Counts of the raw structure: %v, want ErrStructure", err)
	}
	r, dropped, err := Representable(s)
	if err != nil {
		t.Fatal(err)
	}
	if dropped != 3 {
		t.Errorf("%d pairs dropped, want 3", dropped)
	}
	for i, j := range r.Partner {
		want := rna.Unpaired
		for _, p := range pairs[:3] {
			if p[0] == i {
				want = p[1]
			} else if p[1] == i {
				want = p[0]
			}
		}
		if j != want {
			t.Errorf("base %d: partner %d, want %d", i, j, want)
		}
	}
}

func TestRepresentableLongInteriorLoop(t *testing.T) {
	// (0,49) G-C around (20,30) G-C: an interior loop of 19 + 18 = 37.
	seq := []byte(strings.Repeat("A", 50))
	seq[0], seq[49], seq[20], seq[30] = 'G', 'C', 'G', 'C'
	s, err := rna.New("long", string(seq), [][2]int{{0, 49}, {20, 30}})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := Representable(s); !errors.Is(err, ErrStructure) || !strings.Contains(err.Error(), "interior loop of 37") {
		t.Errorf("error %v, want ErrStructure naming the 37-base loop", err)
	}
}
