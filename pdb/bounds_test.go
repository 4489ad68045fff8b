package pdb

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/contactmap/contactmap/internal/fileio"
)

// lineGen is a reader of generated lines, counting the lines given.
type lineGen struct {
	head  string
	line  func(k int) string // k from 1; "" ends the input
	k     int
	buf   []byte
	given int
}

func (g *lineGen) Read(p []byte) (int, error) {
	if g.k == 0 {
		g.buf, g.k = []byte(g.head), 1
	}
	for len(g.buf) == 0 {
		l := g.line(g.k)
		if l == "" {
			return 0, io.EOF
		}
		g.k++
		g.given++
		g.buf = []byte(l)
	}
	n := copy(p, g.buf)
	g.buf = g.buf[n:]
	return n, nil
}

func pdbAtom(serial int, chain string, res int) string {
	return fmt.Sprintf("ATOM  %5d  CA  ALA %1s%4d    %8.3f%8.3f%8.3f  1.00  0.00           C\n", serial%100000, chain, res%10000, float64(res%1000), 0.0, 0.0)
}

func cifAtom(k int) string {
	return fmt.Sprintf("ATOM %d C CA ALA A %d %d.0 0 0 1\n", k, k, k%1000)
}

const cifHead = "data_big\n_entry.id BIG\nloop_\n_atom_site.group_PDB\n_atom_site.id\n_atom_site.type_symbol\n_atom_site.label_atom_id\n_atom_site.label_comp_id\n_atom_site.auth_asym_id\n_atom_site.auth_seq_id\n_atom_site.Cartn_x\n_atom_site.Cartn_y\n_atom_site.Cartn_z\n_atom_site.pdbx_PDB_model_num\n"

// TestChainResidueBound: a chain of 200,000 residues is refused at the
// residue beyond MaxChainResidues, naming the file, the line and the
// bound, without reading the rest; a chain of MaxChainResidues is read.
func TestChainResidueBound(t *testing.T) {
	// PDB format: residue numbers wrap at 10,000, so number the
	// residues by insertion-free wrap-around in chains of one ID... use
	// distinct insertion codes instead: each block of 10,000 residues
	// gets its own code.
	icodes := "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	pdbLine := func(n int) func(int) string {
		return func(k int) string {
			if k > n {
				return ""
			}
			l := []byte(pdbAtom(k, "A", k))
			l[26] = icodes[k/10000]
			return string(l)
		}
	}
	g := &lineGen{line: pdbLine(200000)}
	_, err := ReadPDB(g, "big.pdb")
	var pe *ParseError
	if !errors.As(err, &pe) || !errors.Is(err, ErrTooLarge) || pe.Line != MaxChainResidues+1 ||
		err.Error() != `pdb: big.pdb line 100001: chain "A": more than 100000 residues (the reader's bound)` {
		t.Fatalf("PDB: %v", err)
	}
	if g.given > MaxChainResidues+1000 {
		t.Errorf("PDB: read %d lines before refusing", g.given)
	}
	s, err := ReadPDB(&lineGen{line: pdbLine(MaxChainResidues)}, "ok.pdb")
	if err != nil || len(s.Chains) != 1 || len(s.Chains[0].Residues) != MaxChainResidues {
		t.Fatalf("PDB at the bound: %v", err)
	}

	g = &lineGen{head: cifHead, line: func(k int) string {
		if k > 200000 {
			return ""
		}
		return cifAtom(k)
	}}
	_, err = Read(g, "big.cif")
	head := strings.Count(cifHead, "\n")
	if !errors.As(err, &pe) || !errors.Is(err, ErrTooLarge) || pe.Line != head+MaxChainResidues+1 ||
		err.Error() != fmt.Sprintf(`pdb: big.cif line %d: chain "A": more than 100000 residues (the reader's bound)`, head+MaxChainResidues+1) {
		t.Fatalf("mmCIF: %v", err)
	}
	if g.given > MaxChainResidues+1000 {
		t.Errorf("mmCIF: read %d lines before refusing", g.given)
	}
}

// TestAtomAndSeqresBounds: files beyond the atom bound, and an mmCIF
// sequence beyond the residue bound, are refused while reading (PDB
// SEQRES counts have four digits: below the bound).
func TestAtomAndSeqresBounds(t *testing.T) {
	defer func(n int) { maxAtoms = n }(maxAtoms)
	maxAtoms = 1000
	gen := func(head string, line func(int) string) *lineGen {
		return &lineGen{head: head, line: func(k int) string {
			if k > 5000 {
				return ""
			}
			return line(k)
		}}
	}
	for name, g := range map[string]*lineGen{
		"f.pdb": gen("", func(k int) string { return pdbAtom(k, string(rune('A'+k%20)), k) }),
		"f.cif": gen(cifHead, cifAtom),
	} {
		_, err := Read(g, name)
		if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "more than 1000 atoms (the reader's bound)") || !strings.Contains(err.Error(), name+" line ") {
			t.Errorf("%s: %v", name, err)
		}
		if g.given > 2000 {
			t.Errorf("%s: read %d lines before refusing", name, g.given)
		}
	}
	poly := "data_x\nloop_\n_pdbx_poly_seq_scheme.asym_id\n_pdbx_poly_seq_scheme.mon_id\n_pdbx_poly_seq_scheme.seq_id\n"
	g := &lineGen{head: poly, line: func(k int) string {
		if k > 2*MaxChainResidues {
			return ""
		}
		return fmt.Sprintf("A ALA %d\n", k)
	}}
	_, err := Read(g, "p.cif")
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), fmt.Sprintf(`p.cif line %d: chain "A": more than 100000 residues in _pdbx_poly_seq_scheme`, 5+MaxChainResidues+1)) {
		t.Errorf("poly_seq_scheme: %v", err)
	}
}

// TestBinaryStructure: binary data is named as such, with no bytes of it.
func TestBinaryStructure(t *testing.T) {
	garbage := make([]byte, 5000)
	for i := range garbage {
		garbage[i] = byte(i * 7)
	}
	for _, read := range []func(io.Reader, string) (*Structure, error){Read, ReadPDB, ReadMMCIF} {
		_, err := read(bytes.NewReader(garbage), "garbage.bin")
		if !errors.Is(err, fileio.ErrBinary) || err.Error() != "pdb: garbage.bin: binary data, not a PDB or mmCIF file" {
			t.Errorf("got %v", err)
		}
	}
	zeros := &lineGen{line: func(int) string { return "\x00\x00\x00\x00\x00\x00\x00\x00" }}
	if _, err := Read(zeros, "zeros"); !errors.Is(err, fileio.ErrBinary) || zeros.given > 1000 {
		t.Errorf("zeros: %v after %d blocks", err, zeros.given)
	}
}

// TestLongLine: a line beyond the reader's bound is refused naming it.
func TestLongLine(t *testing.T) {
	long := &lineGen{line: func(k int) string {
		if k == 1 {
			return "HEADER    "
		}
		return "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
	}}
	_, err := Read(long, "long.pdb")
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "pdb: long.pdb line 1: malformed record: line 1 longer than 1048576 bytes (the reader's bound)") || long.given > 100000 {
		t.Errorf("got %v after %d pieces", err, long.given)
	}
}

// TestMMCIFAsBefore: the streaming mmCIF reader reads the bundled files
// as the reader that tokenized the whole file first did.
func TestMMCIFAsBefore(t *testing.T) {
	for _, p := range []string{"testdata/1A8O.cif.gz", "testdata/1LCD.cif.gz", "testdata/4ZHL.cif.gz"} {
		f, err := fileio.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		got, err := ReadMMCIF(bytes.NewReader(data), p)
		if err != nil {
			t.Fatal(err)
		}
		want, err := oldReadMMCIF(bytes.NewReader(data), p)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: the streaming reader reads another structure", p)
		}
	}
}

// FuzzMMCIFAsBefore: on text input the streaming reader accepts what the
// old reader accepted and reads the same structure.
func FuzzMMCIFAsBefore(f *testing.F) {
	f.Add([]byte("data_x\n_entry.id 1ABC\nloop_\n_atom_site.group_PDB\n_atom_site.auth_asym_id\n_atom_site.auth_comp_id\n_atom_site.auth_atom_id\n_atom_site.auth_seq_id\n_atom_site.Cartn_x\n_atom_site.Cartn_y\n_atom_site.Cartn_z\nATOM A ALA CA 1 0 0 0\nATOM A GLY CA 2 3.8 0 0\n"))
	f.Add([]byte("data_x\nloop_\n_pdbx_poly_seq_scheme.asym_id\n_pdbx_poly_seq_scheme.mon_id\n_pdbx_poly_seq_scheme.seq_id\nB GLY 1\nA ALA 1\nA ALA 1\nA MSE 2\nloop_\n_atom_site.group_PDB\n_atom_site.auth_asym_id\n_atom_site.auth_comp_id\n_atom_site.auth_atom_id\n_atom_site.auth_seq_id\n_atom_site.Cartn_x\n_atom_site.Cartn_y\n_atom_site.Cartn_z\n_atom_site.pdbx_PDB_model_num\nATOM C ALA CA 1 0 0 0 1\nATOM A MSE CA 2 3.8 0 0 1\nATOM A ALA CA 2 3.8 0 0 2\n_exptl.method 'X-RAY DIFFRACTION'\n_refine.ls_d_res_high 1.5\ndata_y\n"))
	f.Add([]byte("data_x\n;text\n;\nloop_\n_a.b\n'x y' \"z\"\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if fileio.IsBinary(data[:min(len(data), fileio.SniffSize)]) {
			return
		}
		got, err := ReadMMCIF(bytes.NewReader(data), "f.cif")
		want, werr := oldReadMMCIF(bytes.NewReader(data), "f.cif")
		if (err == nil) != (werr == nil) {
			t.Fatalf("streaming reader: %v; old reader: %v", err, werr)
		}
		if err == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("streaming reader reads another structure")
		}
	})
}
