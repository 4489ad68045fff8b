package layers

import (
	"bufio"
	"bytes"
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/contactmap/contactmap/"

// deps lists, for every package of the module, the module's packages it
// imports directly or not (go list -deps).
func deps(t *testing.T) map[string][]string {
	t.Helper()
	cmd := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", "./...")
	cmd.Dir = "../.."
	pkgs, err := cmd.Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	out := map[string][]string{}
	sc := bufio.NewScanner(bytes.NewReader(pkgs))
	var own []string
	for sc.Scan() {
		if p, ok := strings.CutPrefix(sc.Text(), module); ok {
			own = append(own, p)
		}
	}
	for _, p := range own {
		cmd := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", "./"+p)
		cmd.Dir = "../.."
		b, err := cmd.Output()
		if err != nil {
			t.Fatalf("go list %s: %v", p, err)
		}
		for _, d := range strings.Fields(string(b)) {
			if q, ok := strings.CutPrefix(d, module); ok && q != p {
				out[p] = append(out[p], q)
			}
		}
	}
	return out
}

func under(p string, roots ...string) bool {
	for _, r := range roots {
		if p == r || strings.HasPrefix(p, r+"/") {
			return true
		}
	}
	return false
}

// No package imports upward. The floors, lowest first:
//
//  1. ground: internal/... (utilities that know nothing of networks) and
//     the one public ground package, seqalign;
//  2. the network library: scnn, pairnet, and the training loop
//     scnn/loop with its checkpoints (scnn/loop/checkpoint);
//  3. the three systems: pipeline (proteins, with pdb and pisces), rna,
//     rec, which do not import one another;
//  4. the shipped-model registry (models), then the command, the
//     benchmarks and the experiments.
//
// experiments/internal serves only the experiments (TestExperimentsUsePublicAPI).
func TestNoUpwardImport(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list for every package")
	}
	apps := []string{"pipeline", "rna", "rec", "pdb", "pisces"}
	for p, ds := range deps(t) {
		for _, d := range ds {
			var bad bool
			switch {
			case under(d, "experiments"):
				bad = !under(p, "experiments")
			case under(p, "cmd", "bench", "experiments"):
				continue
			case under(d, "cmd", "models"):
				bad = !under(p, "models") || under(d, "cmd")
			case under(p, "internal", "seqalign"):
				bad = !under(d, "internal")
			case under(p, "scnn", "pairnet"):
				bad = under(d, apps...)
			case under(p, "rna"):
				bad = under(d, "pipeline", "rec")
			case under(p, "rec"):
				bad = under(d, "pipeline", "rna")
			case under(p, "pipeline"):
				bad = under(d, "rna", "rec")
			}
			if bad {
				t.Errorf("%s imports %s", p, d)
			}
		}
	}
}

// The floors hold something: a ground package, a network package and an
// application package exist, so a rename cannot empty a floor and leave
// the test above checking nothing.
func TestFloorsPopulated(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list for every package")
	}
	ds := deps(t)
	// (deps lists the packages that import one of the module's.)
	for _, want := range []string{"internal/outset", "scnn/loop", "scnn/loop/checkpoint", "pairnet/memcheck", "rna/ssnet", "rec", "pipeline/predict"} {
		if _, ok := ds[want]; !ok {
			t.Errorf("no package %s: update the floors", want)
		}
	}
}

// The experiments import only the module's public packages and their own
// experiments/internal: the library's internal/ packages can then change
// without keeping the experiments building. The check is on direct
// imports (a public package may well import internal/ itself).
func TestExperimentsUsePublicAPI(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	cmd := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "./experiments/...")
	cmd.Dir = "../.."
	b, err := cmd.Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	n := 0
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		n++
		p := strings.TrimPrefix(f[0], module)
		for _, d := range f[1:] {
			if q, ok := strings.CutPrefix(d, module); ok && under(q, "internal") {
				t.Errorf("%s imports %s: experiments use public packages (or experiments/internal)", p, q)
			}
		}
	}
	if n == 0 {
		t.Error("go list found no experiment package")
	}
}
