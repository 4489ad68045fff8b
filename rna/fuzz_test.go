package rna

import (
	"bytes"
	"math"
	"os"
	"strings"
	"testing"
)

// Fuzz targets of every reader: an accepted structure is consistent and
// survives writing and reading back in its own format.

func seedFile(f *testing.F, path string, n int) {
	b, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b[:min(n, len(b))])
}

func FuzzReadCT(f *testing.F) {
	seedFile(f, "testdata/d.5.e.M.fossilis.nopct", 700)
	f.Add([]byte("3 ENERGY = -1 x\r1 G 0 2 3 1\r2 A 1 3 0 2\r3 C 2 0 1 3\r"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ReadCT(bytes.NewReader(data), "f.ct")
		if err != nil {
			return
		}
		if err := s.Check(); err != nil {
			t.Fatalf("accepted inconsistent structure: %v", err)
		}
		var buf bytes.Buffer
		if err := WriteCT(&buf, s); err != nil {
			t.Fatal(err)
		}
		back, err := ReadCT(&buf, "back.ct")
		if err != nil || !Equal(back, s) || back.Name != s.Name {
			t.Fatalf("round trip: %v (name %q, back %q)", err, s.Name, back.Name)
		}
		if strings.ContainsAny(s.Name, " \t") {
			t.Fatalf("name %q is not one word", s.Name)
		}
	})
}

func FuzzReadBPSEQ(f *testing.F) {
	f.Add([]byte("Filename: x\n1 G 3\n2 A 0\n3 C 1\n"))
	f.Add([]byte("# c\n1 g 2\n2 c 1\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ReadBPSEQ(bytes.NewReader(data), "f.bpseq")
		if err != nil {
			return
		}
		if err := s.Check(); err != nil {
			t.Fatalf("accepted inconsistent structure: %v", err)
		}
		var buf bytes.Buffer
		if err := WriteBPSEQ(&buf, s); err != nil {
			t.Fatal(err)
		}
		if back, err := ReadBPSEQ(&buf, "back"); err != nil || !Equal(back, s) || back.Name != s.Name {
			t.Fatalf("round trip: %v (name %q)", err, s.Name)
		}
	})
}

func FuzzReadDotBracket(f *testing.F) {
	f.Add([]byte(">x\nGGGAAACCCAAAGGGAAACCC\n(((...[[[...)))...]]]\n"))
	f.Add([]byte("GCAU\n(Aa)\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ReadDotBracket(bytes.NewReader(data), "f.db")
		if err != nil {
			return
		}
		if err := s.Check(); err != nil {
			t.Fatalf("accepted inconsistent structure: %v", err)
		}
		var buf bytes.Buffer
		if err := WriteDotBracket(&buf, s); err != nil {
			t.Fatalf("writing a valid structure: %v", err)
		}
		if back, err := ReadDotBracket(&buf, "back"); err != nil || !Equal(back, s) {
			t.Fatalf("round trip: %v", err)
		}
	})
}

func FuzzReadFiveLine(f *testing.F) {
	f.Add([]byte("x\n2 1 3 0\n4 0 0 1\n1 0 0 1\n\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ss, err := ReadFiveLine(bytes.NewReader(data), "f.txt")
		if err != nil {
			return
		}
		for _, s := range ss {
			if err := s.Check(); err != nil {
				t.Fatalf("accepted inconsistent structure: %v", err)
			}
		}
		var buf bytes.Buffer
		if err := WriteFiveLine(&buf, ss); err != nil {
			t.Fatal(err)
		}
		back, err := ReadFiveLine(&buf, "back")
		if err != nil || len(back) != len(ss) {
			t.Fatalf("round trip: %v", err)
		}
		for i := range ss {
			if !Equal(back[i], ss[i]) {
				t.Fatal("round trip changed a structure")
			}
		}
	})
}

func FuzzReadFASTA(f *testing.F) {
	f.Add([]byte(">a\nACGT\n>b\nNNX\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		seqs, _ := ReadFASTA(bytes.NewReader(data), "f.fa")
		for _, s := range seqs {
			if n, err := NormalizeSequence(s.Seq); err != nil || n != s.Seq || s.Seq == "" {
				t.Fatalf("accepted sequence %q: %v", s.Seq, err)
			}
			if s.Ambiguous < 0 || s.Ambiguous > strings.Count(s.Seq, "N") {
				t.Fatalf("%d ambiguous codes in %q", s.Ambiguous, s.Seq)
			}
			if len(strings.Fields(s.Name)) > 1 || strings.TrimSpace(s.Name) != s.Name {
				t.Fatalf("name %q is not one word", s.Name)
			}
		}
	})
}

// fuzzStructure builds a valid structure from bytes: the first byte sets
// the length (up to 255), the rest are pairs (i, j) taken modulo the
// length, a pair left out when a base is taken or i = j.
func fuzzStructure(data []byte) *Structure {
	if len(data) == 0 {
		return &Structure{}
	}
	l := int(data[0])
	b := make([]byte, l)
	for i := range b {
		b[i] = "ACGUN"[i%5]
	}
	s := &Structure{Name: "f", Seq: string(b), Partner: make([]int, l)}
	for i := range s.Partner {
		s.Partner[i] = Unpaired
	}
	for k := 1; k+1 < len(data) && l > 0; k += 2 {
		i, j := int(data[k])%l, int(data[k+1])%l
		if i != j && s.Partner[i] == Unpaired && s.Partner[j] == Unpaired {
			s.Partner[i], s.Partner[j] = j, i
		}
	}
	return s
}

// Any valid structure writes in dot-bracket: the pairs shown and the
// pairs counted as omitted add up, the string reads back to the pairs
// shown, and to every pair when none is omitted.
func FuzzWriteDotBracket(f *testing.F) {
	f.Add([]byte{80, 0, 40, 1, 41, 2, 42, 3, 43})
	knot := []byte{80}
	for i := byte(0); i < 40; i++ {
		knot = append(knot, i, i+40)
	}
	f.Add(knot)
	f.Fuzz(func(t *testing.T, data []byte) {
		s := fuzzStructure(data)
		db, omitted, err := DotBracketOmitted(s)
		if err != nil {
			t.Fatalf("valid structure: %v", err)
		}
		back, err := ParseDotBracket(s.Name, s.Seq, db)
		if err != nil {
			t.Fatalf("written %q does not parse: %v", db, err)
		}
		for i, j := range back.Partner {
			if j != Unpaired && s.Partner[i] != j {
				t.Fatalf("pair (%d, %d) written but not in the structure", i, j)
			}
		}
		if len(back.Pairs())+omitted != len(s.Pairs()) {
			t.Fatalf("%d pairs: %d written, %d omitted", len(s.Pairs()), len(back.Pairs()), omitted)
		}
		var buf bytes.Buffer
		if err := WriteDotBracket(&buf, s); err != nil {
			t.Fatal(err)
		}
		file, err := ReadDotBracket(&buf, "back.db")
		if l := len(s.Seq); l > 0 && (err != nil || !Equal(file, back)) {
			t.Fatalf("file round trip: %v", err)
		}
		if omitted == 0 && !Equal(back, s) {
			t.Fatal("round trip changed the pairs")
		}
	})
}

// Any map of probabilities decodes, in both modes, to a structure of
// canonical pairs with hairpins of at least MinHairpin (nested without
// pseudoknots) whose pairs all have a positive weight; the nested
// decoder's structure scores at least the greedy canonical nested one.
func FuzzDecodeMEA(f *testing.F) {
	f.Add([]byte("GGGAAAACCC"), []byte{200, 10, 250, 0, 30, 180}, uint8(10), false, uint8(0))
	f.Add([]byte("GCAUGCAUNNGGCCAAUUGGCC"), []byte{255, 128, 1, 77, 3}, uint8(40), true, uint8(100))
	f.Fuzz(func(t *testing.T, seq, probs []byte, gamma10 uint8, knots bool, minProb uint8) {
		b := make([]byte, 0, len(seq))
		for _, c := range seq {
			if n, ok := NormalizeBase(c); ok {
				b = append(b, n)
			}
		}
		l := min(len(b), 64)
		b = b[:l]
		p := make([]float32, l*l)
		if len(probs) > 0 {
			for i, x := 0, 0; i < l; i++ {
				for j := i; j < l; j++ {
					v := float32(probs[x%len(probs)]) / 255
					p[i*l+j], p[j*l+i] = v, v
					x++
				}
			}
		}
		o := DecodeOptions{Gamma: float64(gamma10) / 10, Pseudoknots: knots, MinProb: float32(minProb%255) / 255}
		s, err := DecodeMEA("f", string(b), p, o)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Check(); err != nil || s.Seq != string(b) {
			t.Fatalf("invalid structure: %v", err)
		}
		gamma := o.Gamma
		if gamma == 0 {
			gamma = 1
		}
		ps := s.Pairs()
		for a, q := range ps {
			v := p[q[0]*l+q[1]]
			if !canonical(b[q[0]], b[q[1]]) || q[1]-q[0]-1 < MinHairpin || (gamma+1)*float64(v)-1 <= 0 || v < o.MinProb {
				t.Fatalf("pair %v (%c%c, p %v)", q, b[q[0]], b[q[1]], v)
			}
			for _, r := range ps[a+1:] {
				if !knots && Crossing(q, r) {
					t.Fatalf("pairs %v and %v cross", q, r)
				}
			}
		}
		if knots {
			return
		}
		// Greedy: the heaviest candidates first, kept when they fit.
		var greedy [][2]int
		type cand struct {
			q [2]int
			w float64
		}
		var cs []cand
		for i := 0; i < l; i++ {
			for j := i + MinHairpin + 1; j < l; j++ {
				v := p[i*l+j]
				if w := (gamma+1)*float64(v) - 1; w > 0 && v >= o.MinProb && canonical(b[i], b[j]) {
					cs = append(cs, cand{[2]int{i, j}, w})
				}
			}
		}
		used := make([]bool, l)
		for len(cs) > 0 {
			best := 0
			for k := range cs {
				if cs[k].w > cs[best].w {
					best = k
				}
			}
			c := cs[best]
			cs = append(cs[:best], cs[best+1:]...)
			fits := !used[c.q[0]] && !used[c.q[1]]
			for _, r := range greedy {
				fits = fits && !Crossing(c.q, r)
			}
			if fits {
				greedy = append(greedy, c.q)
				used[c.q[0]], used[c.q[1]] = true, true
			}
		}
		if got, lo := meaScore(ps, p, l, gamma), meaScore(greedy, p, l, gamma); got < lo-1e-4 || math.IsNaN(got) {
			t.Fatalf("optimum %v below the greedy nested structure's %v", got, lo)
		}
	})
}
