package predict

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/contactmap/contactmap/pipeline/msa"
)

// IsAlignment tells alignments from sequences and structures by content.
func TestIsAlignment(t *testing.T) {
	for _, tc := range []struct {
		name string
		data string
		want bool // without --method plm
		plm  bool // with
	}{
		{"pdb", "HEADER    DNA BINDING PROTEIN\nATOM      1  N   ALA A   1\n", false, false},
		{"cif", "data_1ENH\n_entry.id 1ENH\n", false, false},
		{"fasta one", ">q\nMKTAYIAK\n", false, true},
		{"fasta sequences", ">a\nMKTAYIAK\n>b\nMKTAYIAKQ\n", false, true},
		{"fasta aligned", ">a\nMKTAYIAK\n>b\nMK-AYIAK\n", true, true},
		{"fasta a2m", ">a\nMKTAYIAK\n>b\nMK-AYqqIAK\n>c\nMKT.AYIAK\n", true, true},
		// a sequences file with a stray gap: rows of other lengths
		{"fasta stray gap", ">a\nMKTAYIAK\n>b\nMKTAY-IAKQRQ\n", false, true},
		{"fasta gapless, one length", ">a\nMKTAYIAK\n>b\nMKTAYIAR\n", false, true},
		{"a3m", "#A3M#\n>a\nMKTA\n>b\nMKtTA\n", true, true},
		{"stockholm", "# STOCKHOLM 1.0\na MKTA\nb MK-A\n//\n", true, true},
		{"psicov", "MKTAYIAK\nMK-AYIAK\n", true, true},
		{"psicov one row", "MKTAYIAK\n", false, false},
		{"ids", "1ENH_A\n1CTF\n", false, false},
		{"empty", "\n\n", false, false},
	} {
		if got := IsAlignment([]byte(tc.data), false); got != tc.want {
			t.Errorf("%s: IsAlignment = %v, want %v", tc.name, got, tc.want)
		}
		if got := IsAlignment([]byte(tc.data), true); got != tc.plm {
			t.Errorf("%s: IsAlignment under plm = %v, want %v", tc.name, got, tc.plm)
		}
	}
}

// An alignment file resolves to one target, its query, named by the
// file's stem; columns where the query has a gap are dropped.
func TestResolveAlignment(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "my.query.a3m")
	os.WriteFile(path, []byte(">q\nMK-TA\n>s\nMKLTA\n>u\nM-LT-\n"), 0o644)
	ts, err := Resolve(path, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(ts) != 1 || ts[0].ID != "my" || ts[0].Seq != "MKTA" || ts[0].MSA == nil || ts[0].MSA.L() != 4 || string(ts[0].MSA.Rows[2]) != "M-T-" {
		t.Errorf("targets %+v", ts)
	}
	if ts[0].MSA.Format != msa.FASTA && ts[0].MSA.Format != msa.A3M {
		t.Errorf("format %v", ts[0].MSA.Format)
	}
}

// PlmProbabilities is monotone in the scores, symmetric, in (0, 1), 0 on
// the diagonal.
func TestPlmProbabilities(t *testing.T) {
	const l = 30
	s := make([]float64, l*l)
	for i := 0; i < l; i++ {
		for j := 0; j < l; j++ {
			if i != j {
				s[i*l+j] = float64((i+1)*(j+1)%17) / 10
			}
		}
	}
	p := PlmProbabilities(s, l)
	for i := 0; i < l; i++ {
		if p[i*l+i] != 0 {
			t.Fatal("diagonal")
		}
		for j := 0; j < l; j++ {
			if i == j {
				continue
			}
			if p[i*l+j] != p[j*l+i] || p[i*l+j] <= 0 || p[i*l+j] >= 1 {
				t.Fatalf("p[%d,%d] = %g", i, j, p[i*l+j])
			}
			for k := 0; k < l*l; k++ {
				if k/l != k%l && s[k] < s[i*l+j] && p[k] > p[i*l+j] {
					t.Fatalf("not monotone")
				}
			}
		}
	}
}
