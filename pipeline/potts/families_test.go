package potts

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/contactmap/contactmap/internal/fileio"
	"github.com/contactmap/contactmap/pdb"
	"github.com/contactmap/contactmap/pipeline/features"
	"github.com/contactmap/contactmap/pipeline/msa"
)

// TestFamilies compares long-range top-L/5 precision (C-beta, 8 Å,
// |i-j| >= 24) of plmDCA with the project's mean-field DCA and, where
// installed, freecontact's EVfold and PSICOV modes, on PSICOV benchmark
// families named in CONTACTMAP_PLM_FAMILIES (e.g. "1vfyA,1ctfA,1kw4A";
// data in ../shared/data/psicov150 or CONTACTMAP_PSICOV150). It reports
// numbers and asserts nothing about them or about time.
func TestFamilies(t *testing.T) {
	ids := os.Getenv("CONTACTMAP_PLM_FAMILIES")
	if ids == "" {
		t.Skip("set CONTACTMAP_PLM_FAMILIES to compare on PSICOV families")
	}
	dir := os.Getenv("CONTACTMAP_PSICOV150")
	if dir == "" {
		dir = "../../../shared/data/psicov150"
	}
	for _, id := range strings.Split(ids, ",") {
		alnPath := filepath.Join(dir, "aln", id+".aln.gz")
		a, err := msa.ReadFile(alnPath)
		if err != nil {
			t.Fatal(err)
		}
		l := a.L()
		st, err := pdb.ReadFile(filepath.Join(dir, "pdb", id+".pdb.gz"))
		if err != nil {
			t.Fatal(err)
		}
		res := st.Chains[0].Residues
		if len(res) != l {
			t.Fatalf("%s: %d residues, %d columns", id, len(res), l)
		}
		contact := func(i, j int) bool {
			p, ok1 := pdb.RepresentativeAtom(res[i], pdb.CBeta)
			q, ok2 := pdb.RepresentativeAtom(res[j], pdb.CBeta)
			d := 0.0
			for k := range p {
				d += (p[k] - q[k]) * (p[k] - q[k])
			}
			return ok1 && ok2 && d < pdb.ContactCutoff*pdb.ContactCutoff
		}
		prec := func(s []float64) float64 {
			type pair struct {
				i, j int
				s    float64
			}
			var ps []pair
			for i := 0; i < l; i++ {
				for j := i + 24; j < l; j++ {
					ps = append(ps, pair{i, j, s[i*l+j]})
				}
			}
			sort.SliceStable(ps, func(x, y int) bool { return ps[x].s > ps[y].s })
			k := max(1, l/5)
			hit := 0
			for _, p := range ps[:k] {
				if contact(p.i, p.j) {
					hit++
				}
			}
			return float64(hit) / float64(k)
		}
		start := time.Now()
		opt := Options{}
		if v, err := strconv.Atoi(os.Getenv("CONTACTMAP_PLM_MAXIT")); err == nil {
			opt.MaxIterations, opt.Epsilon = v, 1e-9 // convergence study
		}
		r, err := Predict(a, opt)
		if err != nil {
			t.Fatal(err)
		}
		tPlm := time.Since(start)
		m := r.Model
		line := []string{id, "L=" + strconv.Itoa(l), "N=" + strconv.Itoa(a.N()), "Neff=" + strconv.FormatFloat(m.Neff, 'f', 0, 64),
			"plm=" + strconv.FormatFloat(prec(r.Scores), 'f', 3, 64) + " (" + tPlm.Round(time.Millisecond).String() + ", " + strconv.Itoa(m.Iterations) + " it, " + strconv.Itoa(m.Evaluations) + " ev, " + m.Status + ")"}
		rows := make([]string, a.N())
		for k, row := range a.Rows {
			rows[k] = string(row)
		}
		start = time.Now()
		co, err := features.ComputeCoevolution(&features.Alignment{Rows: rows})
		if err == nil {
			line = append(line, "mfDCA="+strconv.FormatFloat(prec(co.DCA), 'f', 3, 64)+" ("+time.Since(start).Round(time.Millisecond).String()+")")
		}
		if _, err := exec.LookPath("freecontact"); err == nil {
			plain, _ := os.ReadFile(alnPath)
			rc, _ := fileio.NewReader(bytes.NewReader(plain))
			var buf bytes.Buffer
			buf.ReadFrom(rc)
			for _, prof := range []string{"evfold", "psicov"} {
				start = time.Now()
				cmd := exec.Command("freecontact", "--parprof", prof, "--threads", "2")
				cmd.Stdin = bytes.NewReader(buf.Bytes())
				out, err := cmd.Output()
				if err != nil {
					line = append(line, prof+": "+err.Error())
					continue
				}
				s := make([]float64, l*l)
				sc := bufio.NewScanner(bytes.NewReader(out))
				for sc.Scan() {
					// evfold: "i a_i j a_j MI score"; psicov: "i j 0 8 score".
					f := strings.Fields(sc.Text())
					var jf int
					switch len(f) {
					case 6:
						jf = 2
					case 5:
						jf = 1
					default:
						continue
					}
					i, _ := strconv.Atoi(f[0])
					j, _ := strconv.Atoi(f[jf])
					v, _ := strconv.ParseFloat(f[len(f)-1], 64)
					s[(i-1)*l+j-1], s[(j-1)*l+i-1] = v, v
				}
				line = append(line, "freecontact-"+prof+"="+strconv.FormatFloat(prec(s), 'f', 3, 64)+" ("+time.Since(start).Round(time.Millisecond).String()+")")
			}
		}
		t.Log(strings.Join(line, " "))
	}
}
