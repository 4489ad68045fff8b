package fold

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"
)

// TestDefaultParams checks values of the embedded Turner 2004 file against
// the file's text and ViennaRNA's compiled-in defaults (default.c).
func TestDefaultParams(t *testing.T) {
	p := DefaultParams()
	g := &p.t
	checks := []struct {
		name      string
		got, want int32
	}{
		{"stack CG CG", g.stack[1][1], -240},
		{"stack GU AU (the corrected -1i40)", g.stack[3][5], -140},
		{"stack AU GU", g.stack[5][3], -140},
		{"hairpin 3", g.hairpin[3], 540},
		{"hairpin 30", g.hairpin[30], 770},
		{"bulge 1", g.bulge[1], 380},
		{"internal 4", g.internal[4], 110},
		{"mismatch_hairpin CG G G", g.mismatchH[1][3][3], -240},
		{"int11 CG CG G G", g.int11[1][1][3][3], -140},
		{"int21 CG CG A G N", g.int21[1][1][1][3][0], 110},
		{"int22 CG CG A A A A", g.int22[1][1][1][1][1][1], 120},
		{"int22 UA UA U U U U", g.int22[6][6][4][4][4][4], 110},
		{"dangle5 CG A", g.dangle5[1][1], -50},
		{"dangle3 GC A", g.dangle3[2][1], -170},
		{"ML closing", g.mlClosing, 930},
		{"ML intern", g.mlIntern, -90},
		{"ML base", g.mlBase, 0},
		{"ninio", g.ninio, 60},
		{"max ninio", p.maxNinio, 300},
		{"terminal AU", g.terminalAU, 50},
		{"tetraloop CUUCGG", g.tetra["CUUCGG"], 370},
		{"triloop CAACG", g.tri["CAACG"], 680},
		{"hexaloop ACAGUGCU", g.hexa["ACAGUGCU"], 290},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %d, want %d", c.name, c.got, c.want)
		}
	}
	if len(g.tetra) != 16 || len(g.tri) != 2 || len(g.hexa) != 4 {
		t.Errorf("%d tetraloops, %d triloops, %d hexaloops; want 16, 2, 4", len(g.tetra), len(g.tri), len(g.hexa))
	}
	// the N entries of int22 are maxima over the bases
	if got := g.int22[1][1][0][1][1][1]; got != max(g.int22[1][1][1][1][1][1], g.int22[1][1][2][1][1][1], g.int22[1][1][3][1][1][1], g.int22[1][1][4][1][1][1]) {
		t.Errorf("int22 N entry %d", got)
	}
	// symmetries ViennaRNA checks
	for i := 0; i < nPT; i++ {
		for j := 0; j < nPT; j++ {
			if g.stack[i][j] != g.stack[j][i] {
				t.Errorf("stack not symmetric at %d %d", i, j)
			}
			for k := 0; k < nB; k++ {
				for l := 0; l < nB; l++ {
					if g.int11[i][j][k][l] != g.int11[j][i][l][k] {
						t.Errorf("int11 not symmetric at %d %d %d %d", i, j, k, l)
					}
				}
			}
		}
	}
	// the embedded file read from disk gives the same model
	q, err := ReadParamsFile("rna_turner2004.par")
	if err != nil {
		t.Fatal(err)
	}
	if q.t.stack != p.t.stack || q.t.int22 != p.t.int22 || q.t.mismatchM != p.t.mismatchM {
		t.Error("ReadParamsFile(rna_turner2004.par) differs from DefaultParams")
	}
}

func TestParseErrors(t *testing.T) {
	orig, err := os.ReadFile("rna_turner2004.par")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, from, to, want string }{
		// the upstream typo
		{"malformed value", "   -50   -140  -130   130    /* GU */", "   -50  -1i40  -130   130    /* GU */", `"-1i40" is not an integer`},
		{"unknown section", "# NINIO", "# NINJA", "unknown section"},
		{"unclosed comment", "/*  CG    GC    GU    UG    AU    UA    NN          */", "/*  CG    GC", "unclosed comment"},
		{"truncated", "", "", ""},
	} {
		text := string(orig)
		if c.name == "truncated" {
			k := strings.Index(text, "# int22_enthalpies")
			k += strings.Index(text[k:], "CG,CG,A,A,C */")
			text = text[:k+len("CG,CG,A,A,C */\n")]
			c.want = "unexpected end"
		} else {
			if !strings.Contains(text, c.from) {
				t.Fatalf("%s: %q not in the file", c.name, c.from)
			}
			text = strings.Replace(text, c.from, c.to, 1)
		}
		_, err := ParseParams(strings.NewReader(text))
		if !errors.Is(err, ErrParams) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
	// a file of one section changes that section only
	p, err := ParseParams(strings.NewReader("## RNAfold parameter file v2.0\n\n# Misc\n 410 360 99 370\n\n# END\n"))
	if err != nil {
		t.Fatal(err)
	}
	if p.t.terminalAU != 99 || p.t.stack != DefaultParams().t.stack {
		t.Errorf("partial file: terminal AU %d", p.t.terminalAU)
	}
	// the older section names
	p, err = ParseParams(strings.NewReader("# interior\nINF INF INF INF 7 x x x x x x x x x x x x x x x x x x x x x x x x x x\n"))
	if err != nil {
		t.Fatal(err)
	}
	// x extrapolates from the last value: 7 + round(lxc37 ln(30/4))
	if p.t.internal[4] != 7 || p.t.internal[30] != 7+217 {
		t.Errorf("interior with x: %d %d", p.t.internal[4], p.t.internal[30])
	}
}

func TestWithTemperature(t *testing.T) {
	p := DefaultParams()
	q := p.WithTemperature(37)
	if q.t.stack != p.t.stack || q.t.int22 != p.t.int22 || q.lxc != p.lxc {
		t.Error("WithTemperature(37) changes the model")
	}
	// G(T) = H - (H - G37) T/T37: stack CG CG, H = -1060, G37 = -240
	r := p.WithTemperature(25)
	tempf := (25 + 273.15) / (37 + 273.15)
	want := int32(-1060 - float64(-1060+240)*tempf)
	if r.t.stack[1][1] != want || r.Temperature() != 25 {
		t.Errorf("stack CG CG at 25 C: %d, want %d", r.t.stack[1][1], want)
	}
	if _, err := p.WithDangles(1); err == nil {
		t.Error("WithDangles(1) accepted")
	}
}

// FuzzParseParams feeds ParseParams arbitrary files. A file it accepts
// must give a parameter set that folds: the MFE structure of a short
// sequence evaluates, under the same parameters, to the MFE energy.
func FuzzParseParams(f *testing.F) {
	orig, err := os.ReadFile("rna_turner2004.par")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(orig)
	f.Add([]byte("## RNAfold parameter file v2.0\n\n# Misc\n 410 360 99 370\n\n# END\n"))
	f.Add([]byte("# interior\nINF INF INF INF 7 x x x x x x x x x x x x x x x x x x x x x x x x x x\n"))
	f.Add([]byte("# hairpin\nINF INF INF 540 560 570 540 600 550 640 650 660 670 678 686 694 701 707 713 719 725 730 735 740 744 749 753 757 761 765 769\n# Tetraloops\nCAACGG 550 690\n# END\n"))
	f.Add([]byte("# NINIO\n 60 320 300\n# ML_params\n 0 0 930 3000 -90 -220\n"))
	f.Add([]byte("# Misc\n 2147483647 -2147483648 2147483647 0\n# NINIO\n 2147483647 -2147483648 2147483647\n"))
	f.Add([]byte("# hairpin\n" + strings.Repeat("-2147483648 ", 31) + "\n# stack\n" + strings.Repeat("2147483647 ", 49) + "\n"))
	const seq = "GGGAAAUCCCAGCGAAAGCUGG"
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ParseParams(bytes.NewReader(data))
		if err != nil {
			if !errors.Is(err, ErrParams) && !errors.Is(err, bufio.ErrTooLong) {
				t.Fatalf("error %v wraps neither ErrParams nor a read error", err)
			}
			return
		}
		st, e, err := p.MFE(seq)
		if err != nil {
			t.Fatalf("MFE: %v", err)
		}
		ev, err := p.EvalDcal(seq, st.Pairs())
		if err != nil {
			t.Fatalf("Eval of the MFE structure %v: %v", st.Pairs(), err)
		}
		if got := int(roundDcal(e)); got != ev {
			t.Errorf("MFE %d dcal/mol, its structure %v evaluates to %d", got, st.Pairs(), ev)
		}
	})
}
