package draw

import (
	"bytes"
	"encoding/xml"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/contactmap/contactmap/rna"
)

// Yeast tRNA-Phe's cloverleaf.
const (
	tRNASeq = "GCGGAUUUAGCUCAGUUGGGAGAGCGCCAGACUGAAGAUCUGGAGGUCCUGUGUUCGAUCCACAGAAUUCGCACCA"
	tRNADB  = "(((((((..((((........)))).(((((.......))))).....(((((.......))))))))))))...."
)

// structures returns the tRNA, the 5S rRNAs of data/rna/test/5S and a
// few small shapes: a hairpin without loop bases, unpaired bases alone,
// one base, a pseudoknot.
func structures(t *testing.T) []*rna.Structure {
	t.Helper()
	trna, err := rna.ParseDotBracket("tRNA-Phe", tRNASeq, tRNADB)
	if err != nil {
		t.Fatal(err)
	}
	out := []*rna.Structure{trna}
	files, _ := filepath.Glob("../../data/rna/test/5S/*")
	if len(files) == 0 {
		t.Fatal("no 5S rRNA in data/rna/test/5S")
	}
	for _, f := range files {
		r, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		s, err := rna.ReadCT(r, f)
		r.Close()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	for _, c := range [][2]string{{"GGGGCCCC", "(((())))"}, {"ACGUACGUACGU", "............"}, {"A", "."},
		{"GGGAAACCCAGGGAAACCCUUUUGGGAAAACCC", "(((...)))((((...))))....((....))."}} {
		s, err := rna.ParseDotBracket("small", c[0], c[1])
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	pk, err := rna.New("pseudoknot", "GGGAAAGGGAAACCCAAACCC", [][2]int{{0, 14}, {1, 13}, {2, 12}, {6, 20}, {7, 19}, {8, 18}})
	if err != nil {
		t.Fatal(err)
	}
	return append(out, pk)
}

// closest returns the smallest distance between two bases of a layout.
func closest(l Layout) (float64, int, int) {
	best, bi, bj := math.Inf(1), -1, -1
	for i := range l.Pos {
		for j := i + 1; j < len(l.Pos); j++ {
			if d := l.Pos[i].sub(l.Pos[j]).norm(); d < best {
				best, bi, bj = d, i, j
			}
		}
	}
	return best, bi, bj
}

// The layout's geometry: every backbone step and nested pair a unit
// long, and no two bases closer than half of it.
func TestLayoutGeometry(t *testing.T) {
	for _, s := range structures(t) {
		l := NewLayout(s.Partner)
		nested := Nested(s.Partner)
		for i := 1; i < len(l.Pos); i++ {
			if d := l.Pos[i].sub(l.Pos[i-1]).norm(); math.Abs(d-1) > 1e-9 {
				t.Errorf("%s: backbone step %d-%d of %.3f, want 1", s.Name, i, i+1, d)
			}
		}
		for i, j := range nested {
			if j > i {
				if d := l.Pos[i].sub(l.Pos[j]).norm(); math.Abs(d-1) > 1e-9 {
					t.Errorf("%s: pair %d-%d %.3f long, want 1", s.Name, i+1, j+1, d)
				}
			}
		}
		if d, i, j := closest(l); len(l.Pos) > 1 && d < 0.5 {
			t.Errorf("%s (%d nt): bases %d and %d %.3f apart, want at least 0.5", s.Name, len(s.Seq), i+1, j+1, d)
		}
		for i, o := range l.Out {
			if math.Abs(o.norm()-1) > 1e-9 {
				t.Errorf("%s: base %d's number direction %v is not a unit vector", s.Name, i+1, o)
			}
		}
	}
}

// The SVG parses as XML, has a letter per base, a line per pair (dashed
// for the pseudoknot's crossing ones) and a number at every multiple of
// 10.
func TestWriteSVG(t *testing.T) {
	for _, s := range structures(t) {
		var buf bytes.Buffer
		if err := WriteSVG(&buf, s); err != nil {
			t.Fatal(err)
		}
		d := xml.NewDecoder(&buf)
		count := map[string]int{}
		nums := map[int]bool{}
		var class string
		root := ""
		for {
			tok, err := d.Token()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%s: the SVG does not parse: %v", s.Name, err)
			}
			switch tk := tok.(type) {
			case xml.StartElement:
				if root == "" {
					root = tk.Name.Space + " " + tk.Name.Local
				}
				class = ""
				for _, a := range tk.Attr {
					if a.Name.Local == "class" {
						class = a.Value
						count[a.Value]++
					}
				}
			case xml.CharData:
				if class == "num" {
					n, err := strconv.Atoi(strings.TrimSpace(string(tk)))
					if err != nil {
						t.Errorf("%s: number %q", s.Name, tk)
					}
					nums[n] = true
				}
			case xml.EndElement:
				class = ""
			}
		}
		if root != "http://www.w3.org/2000/svg svg" {
			t.Errorf("%s: root element %q, want svg", s.Name, root)
		}
		nested, all := 0, len(s.Pairs())
		for i, j := range Nested(s.Partner) {
			if j > i {
				nested++
			}
		}
		if count["base"] != len(s.Seq) || count["pair"] != nested || count["pseudoknot"] != all-nested {
			t.Errorf("%s: %d bases, %d pairs, %d crossing; want %d, %d, %d", s.Name, count["base"], count["pair"], count["pseudoknot"], len(s.Seq), nested, all-nested)
		}
		for k := 10; k <= len(s.Seq); k += 10 {
			if !nums[k] {
				t.Errorf("%s: position %d not numbered", s.Name, k)
			}
		}
		if len(nums) != len(s.Seq)/10 {
			t.Errorf("%s: %d numbers, want %d", s.Name, len(nums), len(s.Seq)/10)
		}
	}
}

func TestNested(t *testing.T) {
	s, _ := rna.New("pk", "GGGAAAGGGAAACCCAAACCC", [][2]int{{0, 14}, {1, 13}, {2, 12}, {6, 20}, {7, 19}, {8, 18}})
	got := Nested(s.Partner)
	for i, j := range got {
		want := s.Partner[i]
		if i >= 6 && i <= 8 || i >= 18 {
			want = rna.Unpaired
		}
		if j != want {
			t.Errorf("base %d: partner %d, want %d", i+1, j+1, want+1)
		}
	}
}
