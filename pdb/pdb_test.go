package pdb

import (
	"bufio"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/biogo/biogo/alphabet"

	"github.com/contactmap/contactmap/internal/fileio"
)

func readGolden(t *testing.T, path string) map[string]bool {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	set := map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		set[sc.Text()] = true
	}
	return set
}

func resID(r *Residue) string {
	ic := "_"
	if r.ICode != ' ' {
		ic = string(r.ICode)
	}
	return fmt.Sprintf("%d %s", r.Seq, ic)
}

// Contact maps match Biopython's (testdata/make-golden.py) on real chains:
// a backbone-only cgdms chain, CA-only chains with MSE and missing
// residues, and an mmCIF entry.
func TestContactMapGolden(t *testing.T) {
	for _, tc := range []struct{ file, chain string }{
		{"pdb1enh.ent.gz", "A"}, {"pdb3a1g.ent.gz", "A"}, {"pdb3a1g.ent.gz", "B"}, {"1A8O.cif.gz", "A"},
	} {
		for _, def := range []Definition{CAlpha, CBeta} {
			t.Run(tc.file+"/"+tc.chain+"/"+def.String(), func(t *testing.T) {
				s, err := ReadFile(filepath.Join("testdata", tc.file))
				if err != nil {
					t.Fatal(err)
				}
				c := s.Chain(tc.chain)
				if c == nil {
					t.Fatalf("no chain %s", tc.chain)
				}
				res, err := c.Align()
				if err != nil {
					t.Fatal(err)
				}
				cm := NewContacts(res, ContactDef{Atoms: def, Cutoff: ContactCutoff})
				l := len(res)
				got := map[string]bool{}
				for i := 0; i < l; i++ {
					for j := i + 1; j < l; j++ {
						if contact, known := cm.At(j, i); contact {
							if !known {
								t.Fatalf("contact (%d,%d) not known", i, j)
							}
							got[resID(res[i])+" "+resID(res[j])] = true
						}
					}
				}
				want := readGolden(t, filepath.Join("testdata", "golden", strings.Split(tc.file, ".")[0]+"_"+tc.chain+"."+def.String()+".txt"))
				for p := range want {
					if !got[p] {
						t.Errorf("missing contact %s", p)
					}
				}
				for p := range got {
					if !want[p] {
						t.Errorf("extra contact %s", p)
					}
				}
				if len(want) == 0 && def == CAlpha {
					t.Error("empty golden file")
				}
			})
		}
	}
}

func TestSeqresAlignmentWithMissingResiduesAndMSE(t *testing.T) {
	s, err := ReadFile("testdata/pdb3a1g.ent.gz")
	if err != nil {
		t.Fatal(err)
	}
	if s.ID != "3A1G" || s.Method != "X-RAY DIFFRACTION" || s.Resolution != 1.7 {
		t.Errorf("header: %q %q %v", s.ID, s.Method, s.Resolution)
	}
	c := s.Chain("A")
	seq := c.Sequence()
	if len(seq) != 80 || !strings.HasPrefix(seq, "SQRGVLEDEQMYQ") {
		t.Fatalf("SEQRES %q", seq)
	}
	res, err := c.Align()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for i, r := range res {
		if r == nil {
			continue
		}
		n++
		if OneLetter(r.Name) != seq[i] {
			t.Errorf("position %d: SEQRES %c, residue %s %d", i, seq[i], r.Name, r.Seq)
		}
	}
	if n != 73 { // Biopython finds 73 residues with CA (golden file)
		t.Errorf("%d positions with coordinates, want 73", n)
	}
	// MSE 688 reads as MET and maps to SEQRES position 11 (author numbering
	// starts at 678 for SEQRES position 1 here: 685 is D at position 8).
	for i, r := range res {
		if r != nil && r.Seq == 688 {
			if r.Name != "MET" || r.Orig != "MSE" || !r.Het || i != 10 {
				t.Errorf("MSE 688: %+v at %d", r, i)
			}
		}
	}
	if got := c.Seq("3A1G_A"); got.Len() != 80 || got.Alphabet() != alphabet.Protein {
		t.Errorf("biogo sequence: len %d alphabet %v", got.Len(), got.Alphabet())
	}
}

// The PDB-format and mmCIF files of one entry read the same.
func TestPDBAndMMCIFAgree(t *testing.T) {
	a, err := ReadFile("testdata/1A8O.pdb.gz")
	if err != nil {
		t.Fatal(err)
	}
	b, err := ReadFile("testdata/1A8O.cif.gz")
	if err != nil {
		t.Fatal(err)
	}
	ca, cb := a.Chain("A"), b.Chain("A")
	if ca.Sequence() != cb.Sequence() || len(ca.Sequence()) != 70 {
		t.Fatalf("sequences\n%s\n%s", ca.Sequence(), cb.Sequence())
	}
	if len(ca.Residues) != len(cb.Residues) {
		t.Fatalf("%d vs %d residues", len(ca.Residues), len(cb.Residues))
	}
	for i := range ca.Residues {
		ra, rb := ca.Residues[i], cb.Residues[i]
		if ra.Seq != rb.Seq || ra.Name != rb.Name || len(ra.Atoms) != len(rb.Atoms) || ra.Atoms["CA"] != rb.Atoms["CA"] {
			t.Fatalf("residue %d: %s %d (%d atoms) vs %s %d (%d atoms)", i, ra.Name, ra.Seq, len(ra.Atoms), rb.Name, rb.Seq, len(rb.Atoms))
		}
	}
	if a.Resolution != b.Resolution || a.Resolution != 1.7 {
		t.Errorf("resolution %v vs %v", a.Resolution, b.Resolution)
	}
}

func TestMMCIFNucleicAcidAndProtein(t *testing.T) {
	for _, f := range []string{"1LCD.cif.gz", "4ZHL.cif.gz"} {
		s, err := ReadFile("testdata/" + f)
		if err != nil {
			t.Fatal(err)
		}
		prot := 0
		for _, c := range s.Chains {
			if !c.IsProtein() {
				continue
			}
			prot++
			if _, err := c.Align(); err != nil {
				t.Errorf("%s chain %s: %v", f, c.ID, err)
			}
		}
		if prot == 0 {
			t.Errorf("%s: no protein chain", f)
		}
	}
}

const synthetic = `HEADER    TEST                                    01-JAN-00   9XYZ
SEQRES   1 A    4  ALA GLY SER LYS
MODEL        1
ATOM      1  CA AALA A   1       0.000   0.000   0.000  0.50  0.00           C
ATOM      2  CA BALA A   1       9.000   0.000   0.000  0.50  0.00           C
ATOM      3  CA  GLY A   2       3.800   0.000   0.000  1.00  0.00           C
ATOM      4  CA  SER A   2A      7.600   0.000   0.000  1.00  0.00           C
ATOM      5  CA  LYS A   3      11.400   0.000   0.000  1.00  0.00           C
HETATM    6  O   HOH A 101      50.000  50.000  50.000  1.00  0.00           O
ENDMDL
MODEL        2
ATOM      7  CA  ALA A   1      99.000   0.000   0.000  1.00  0.00           C
ENDMDL
`

func TestReadingRules(t *testing.T) {
	s, err := ReadPDB(strings.NewReader(synthetic), "synthetic.pdb")
	if err != nil {
		t.Fatal(err)
	}
	c := s.Chain("A")
	if len(c.Residues) != 4 {
		t.Fatalf("%d residues (water or model 2 read?)", len(c.Residues))
	}
	if c.Residues[0].Atoms["CA"] != (Vec{0, 0, 0}) {
		t.Errorf("altloc: got %v, want the first (A)", c.Residues[0].Atoms["CA"])
	}
	if r := c.Residues[2]; r.Seq != 2 || r.ICode != 'A' || r.Name != "SER" {
		t.Errorf("insertion code: %+v", r)
	}
	res, err := c.Align()
	if err != nil {
		t.Fatal(err)
	}
	cm := NewContacts(res, DefaultContactDef)
	c02, _ := cm.At(0, 2)
	c03, k03 := cm.At(3, 0)
	_, k00 := cm.At(0, 0)
	if !c02 || c03 || !k03 || k00 {
		t.Errorf("contacts %v known %v", cm.Contact, cm.Known)
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       error
		line       int
	}{
		{"bad x", "ATOM      1  CA  ALA A   1       x.000   0.000   0.000  1.00  0.00           C\n", ErrCoordinate, 1},
		{"short atom", "HEADER\nATOM      1  CA  ALA A   1       0.000\n", ErrRecord, 2},
		{"bad resseq", "ATOM      1  CA  ALA A   X       0.000   0.000   0.000  1.00  0.00           C\n", ErrNumber, 1},
		{"no atoms", "HEADER    X\n", ErrNoAtoms, 0},
		{"seqres count", "SEQRES   1 A    1  ALA GLY\nATOM      1  CA  ALA A   1       0.000   0.000   0.000\n", ErrRecord, 1},
		{"cif quote", "data_x\n_entry.id 'abc\n", ErrCIF, 2},
		{"cif loop", "data_x\nloop_\n_atom_site.id\n_atom_site.x\n1 2 3\n", ErrCIF, 2},
		{"cif no atoms", "data_x\n_entry.id 1ABC\n", ErrNoAtoms, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Read(strings.NewReader(tc.text), "f.pdb")
			var pe *ParseError
			if !errors.As(err, &pe) || !errors.Is(err, tc.want) || pe.Line != tc.line || pe.Path != "f.pdb" {
				t.Errorf("got %v, want %v at line %d", err, tc.want, tc.line)
			}
		})
	}
}

func TestMirror(t *testing.T) {
	m := Mirror{Dir: "../data/pdb"}
	p, err := m.Find("1enh")
	if err != nil || filepath.Base(p) != "pdb1enh.ent.gz" {
		t.Fatalf("Find(1enh) = %q, %v", p, err)
	}
	if _, err := m.Find("9ZZZ"); !errors.Is(err, ErrNotFound) {
		t.Errorf("missing entry: %v", err)
	}
	flat := t.TempDir()
	data, _ := os.ReadFile("testdata/1A8O.cif.gz")
	os.WriteFile(filepath.Join(flat, "1a8o.cif.gz"), data, 0o644)
	s, path, err := Mirror{Dir: flat}.Read("1A8O")
	if err != nil || s.Chain("A") == nil {
		t.Fatalf("flat mmCIF mirror: %q %v", path, err)
	}
}

func TestVirtualCB(t *testing.T) {
	s, _ := ReadFile("testdata/1A8O.pdb.gz")
	n := 0
	for _, r := range s.Chain("A").Residues {
		real, ok := r.Atoms["CB"]
		if !ok || !r.Has("N") || !r.Has("C") {
			continue
		}
		v := VirtualCB(r.Atoms["N"], r.Atoms["CA"], r.Atoms["C"])
		d := math.Sqrt(sq(v[0]-real[0]) + sq(v[1]-real[1]) + sq(v[2]-real[2]))
		if d > 0.3 { // ideal geometry; real CBs deviate up to ~0.25 Å (Pro)
			t.Errorf("%s %d: virtual CB %.2f Å from the real one", r.Name, r.Seq, d)
		}
		n++
	}
	if n < 50 {
		t.Errorf("only %d residues checked", n)
	}
}

// checkParsed is the property both fuzz targets check: a failure is a
// *ParseError, and a parsed structure's chains can be aligned.
func checkParsed(t *testing.T, s *Structure, err error) {
	if err != nil {
		var pe *ParseError
		if !errors.As(err, &pe) {
			t.Fatalf("error is not a ParseError: %v", err)
		}
		return
	}
	for _, c := range s.Chains {
		c.Align()
	}
}

func FuzzReadPDB(f *testing.F) {
	f.Add([]byte(synthetic))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ReadPDB(strings.NewReader(string(data)), "fuzz.pdb")
		checkParsed(t, s, err)
	})
}

func FuzzReadMMCIF(f *testing.F) {
	f.Add([]byte("data_x\n_entry.id 1ABC\nloop_\n_atom_site.group_PDB\n_atom_site.auth_asym_id\n_atom_site.auth_comp_id\n_atom_site.auth_atom_id\n_atom_site.auth_seq_id\n_atom_site.Cartn_x\n_atom_site.Cartn_y\n_atom_site.Cartn_z\nATOM A ALA CA 1 0 0 0\nATOM A GLY CA 2 3.8 0 0\n"))
	f.Add([]byte("data_x\n;text\n;\nloop_\n_a.b\n'x y' \"z\"\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ReadMMCIF(strings.NewReader(string(data)), "fuzz.cif")
		checkParsed(t, s, err)
	})
}

// A PDB or mmCIF file cut short (a partial download) says it is truncated,
// not that its last, partial line is a malformed record.
func TestTruncatedFiles(t *testing.T) {
	dir := t.TempDir()
	for _, src := range []string{"../data/pdb/ct/pdb1ctf.ent.gz"} {
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		for _, cut := range []int{3000, len(data) / 2, len(data) - 10} {
			p := filepath.Join(dir, fmt.Sprintf("cut%d.ent.gz", cut))
			os.WriteFile(p, data[:cut], 0o644)
			_, err := ReadFile(p)
			if !errors.Is(err, fileio.ErrTruncated) {
				t.Errorf("%s cut at %d: %v, want a truncation error", src, cut, err)
			}
		}
	}
}

// A PSICOV benchmark structure (testdata/1brfA.pdb.gz: no HEADER, no
// SEQRES, blank chain identifier, full side chains): one chain with ID
// "", its sequence the ATOM records' (the family alignment's first row),
// each residue aligned to itself; FindChain names it by any ID, and
// matches files with named or several chains by ID only.
func TestBlankChainWithoutSeqres(t *testing.T) {
	s, err := ReadFile("testdata/1brfA.pdb.gz")
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Chains) != 1 || s.Chains[0].ID != "" || len(s.Chains[0].SeqRes) != 0 || s.ID != "" {
		t.Fatalf("chains %d, first ID %q, SEQRES %d, entry %q", len(s.Chains), s.Chains[0].ID, len(s.Chains[0].SeqRes), s.ID)
	}
	if s.Chain("A") != nil {
		t.Error(`Chain("A") found the unnamed chain`)
	}
	c := s.FindChain("A")
	if c == nil || c != s.FindChain("") || c != s.Chains[0] {
		t.Fatal("FindChain does not give the file's only, unnamed chain")
	}
	const target = "AKWVCKICGYIYDEDAGDPDNGISPGTKFEELPDDWVCPICGAPKSEFEKLED" // aln/1brfA.aln.gz, row 1
	if got := c.Sequence(); got != target {
		t.Errorf("sequence %q, want %q", got, target)
	}
	res, err := c.Align()
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range res {
		if r != c.Residues[i] || !r.Has("CA") || r.Name != "GLY" && !r.Has("CB") {
			t.Fatalf("position %d: residue %+v", i, r)
		}
	}
	cm := NewContacts(res, ContactDef{Atoms: CBeta, Cutoff: 8})
	long, known := 0, 0
	for i := range res {
		for j := i + 1; j < len(res); j++ {
			c, k := cm.At(i, j)
			if k {
				known++
			}
			if c && j-i >= 6 {
				long++
			}
		}
	}
	if known != len(res)*(len(res)-1)/2 || long == 0 {
		t.Errorf("C-beta map: %d pairs known of %d, %d long-range contacts", known, len(res)*(len(res)-1)/2, long)
	}

	atom := func(chain byte, seq int) string {
		return fmt.Sprintf("ATOM      1  CA  ALA %c%4d       0.000   0.000   0.000  1.00  0.00           C\n", chain, seq)
	}
	for _, tc := range []struct{ name, text, id string }{
		{"named chain", atom('B', 1), "A"},
		{"blank and named", atom(' ', 1) + atom('B', 1), "A"},
	} {
		s, err := ReadPDB(strings.NewReader(tc.text), tc.name)
		if err != nil {
			t.Fatal(err)
		}
		if c := s.FindChain(tc.id); c != nil {
			t.Errorf("%s: FindChain(%q) gave chain %q", tc.name, tc.id, c.ID)
		}
	}
}
