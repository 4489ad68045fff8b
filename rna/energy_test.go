package rna

import (
	"bytes"
	"math"
	"strings"
	"testing"
)

// TestWriteEnergy writes an MFE, a centroid and an MEA structure with
// their energies as CT, BPSEQ and dot-bracket, checks the lines that
// carry them, and reads every file back.
func TestWriteEnergy(t *testing.T) {
	seq := "GGGGAAACCCCAUAUGCGCAAAAGCGCUU"
	base, err := ParseDotBracket("hp", seq, "((((...))))....((((....))))..")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		e              Energy
		ct, bpseq, dbn []string
	}{
		{Energy{Kind: EnergyMFE, DeltaG: -3.4},
			[]string{"   29 ENERGY = -3.40 hp"},
			[]string{"Filename: hp.bpseq", "# energy = -3.40 kcal/mol (mfe)", "1 G 11"},
			[]string{">hp", seq, "((((...))))....((((....)))).. ( -3.40)", ""}},
		{Energy{Kind: EnergyCentroid, DeltaG: -3.1, Ensemble: -3.614, Score: 1.234},
			[]string{"   29 ENERGY = -3.10 hp"},
			[]string{"Filename: hp.bpseq", "# energy = -3.10 kcal/mol (centroid)", "# free energy of ensemble = -3.61 kcal/mol", "1 G 11"},
			[]string{">hp", seq, "((((...))))....((((....)))).. { -3.10 d=1.23}", "# free energy of ensemble = -3.61 kcal/mol", ""}},
		{Energy{Kind: EnergyMEA, DeltaG: -12.25, Ensemble: -13, Score: 25.5},
			[]string{"   29 ENERGY = -12.25 hp"},
			[]string{"Filename: hp.bpseq", "# energy = -12.25 kcal/mol (mea)", "# free energy of ensemble = -13.00 kcal/mol", "1 G 11"},
			[]string{">hp", seq, "((((...))))....((((....)))).. {-12.25 MEA=25.50}", "# free energy of ensemble = -13.00 kcal/mol", ""}},
	}
	for _, c := range cases {
		s := *base
		e := c.e
		s.Energy = &e
		var ct, bp, db bytes.Buffer
		if err := WriteCT(&ct, &s); err != nil {
			t.Fatal(err)
		}
		if err := WriteBPSEQ(&bp, &s); err != nil {
			t.Fatal(err)
		}
		if err := WriteDotBracket(&db, &s); err != nil {
			t.Fatal(err)
		}
		if got := strings.Split(ct.String(), "\n"); got[0] != c.ct[0] {
			t.Errorf("%s: CT length line %q, want %q", e.Kind, got[0], c.ct[0])
		}
		if got := strings.Split(bp.String(), "\n"); strings.Join(got[:len(c.bpseq)], "\n") != strings.Join(c.bpseq, "\n") {
			t.Errorf("%s: BPSEQ starts\n%s\nwant\n%s", e.Kind, strings.Join(got[:len(c.bpseq)], "\n"), strings.Join(c.bpseq, "\n"))
		}
		if got := db.String(); got != strings.Join(c.dbn, "\n") {
			t.Errorf("%s: dot-bracket\n%s\nwant\n%s", e.Kind, got, strings.Join(c.dbn, "\n"))
		}
		check := func(format string, r *Structure, err error) {
			t.Helper()
			if err != nil {
				t.Fatalf("%s %s: %v", e.Kind, format, err)
			}
			if !Equal(r, base) || r.Name != "hp" {
				t.Errorf("%s %s: read back %q %v", e.Kind, format, r.Name, r.Pairs())
			}
		}
		r, err := ReadCT(bytes.NewReader(ct.Bytes()), "hp.ct")
		check("CT", r, err)
		r, err = ReadBPSEQ(bytes.NewReader(bp.Bytes()), "hp.bpseq")
		check("BPSEQ", r, err)
		r, err = ReadDotBracket(bytes.NewReader(db.Bytes()), "hp.db")
		check("dot-bracket", r, err)
		rs, err := ReadDBN(bytes.NewReader(db.Bytes()), "hp.dbn")
		if err == nil && len(rs) != 1 {
			t.Fatalf("%s: %d dbn records", e.Kind, len(rs))
		}
		if err == nil {
			r = rs[0]
		}
		check("dbn", r, err)
	}
	// no energy: the outputs as before
	var ct, db bytes.Buffer
	if err := WriteCT(&ct, base); err != nil {
		t.Fatal(err)
	}
	if err := WriteDotBracket(&db, base); err != nil {
		t.Fatal(err)
	}
	if l := strings.SplitN(ct.String(), "\n", 2)[0]; l != "   29 ENERGY = 0 hp" {
		t.Errorf("CT without energy: %q", l)
	}
	if db.String() != ">hp\n"+seq+"\n((((...))))....((((....))))..\n" {
		t.Errorf("dot-bracket without energy: %q", db.String())
	}
	// energies that cannot be written
	for _, e := range []Energy{{Kind: EnergyMFE, DeltaG: math.NaN()}, {Kind: "pk", DeltaG: -1}, {Kind: EnergyMEA, Ensemble: math.Inf(-1)}} {
		s := *base
		s.Energy = &e
		var buf bytes.Buffer
		if WriteCT(&buf, &s) == nil || WriteBPSEQ(&buf, &s) == nil || WriteDotBracket(&buf, &s) == nil {
			t.Errorf("energy %+v written", e)
		}
	}
}
