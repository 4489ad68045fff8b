// Command msa-depth measures how deep an alignment must be for the
// shipped MSA network (models/msa) to beat the single-sequence default
// (models.Default) on the same chain (issue 55, part 2): the threshold
// below which predict --db falls back to the single-sequence model.
//
// For each validation family of experiments/msa-net/split (PSICOV
// families up to -max-len residues; the test families are never read),
// the alignment's rows after the query are shuffled with a fixed seed and
// the shortest prefix whose Neff/L (msa.Weights at 80% identity) reaches
// each target is kept, the query first (a target the query alone reaches
// gets a copy of the query as its second row: Neff stays 1; a target
// above the full alignment's Neff/L is skipped for that family). Each subsample is predicted by
// contactmap predict's library (pipeline/predict.Run, the msa network,
// --method network), and the query by the single-sequence default; both
// maps are scored against the family's structure: long-range (|i-j| >= 24)
// top-L/5 precision of C-beta contacts under 8 Å (predict.PlmContacts, the
// msa network's labels). A table per Neff/L target: families, the means,
// and the paired difference (msa - single) with a percentile bootstrap
// 95% interval over families (10,000 resamples, fixed seed).
//
//	go run ./experiments/msa-depth -out experiments/msa-depth/results.tsv > table.md
//	go run ./experiments/msa-depth -own    # the single-sequence default on its own (C-alpha) contacts
package main

import (
	"bufio"
	"context"
	"encoding/binary"
	"flag"
	"fmt"
	"log"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/contactmap/contactmap/models"
	"github.com/contactmap/contactmap/pdb"
	"github.com/contactmap/contactmap/pipeline/metrics"
	"github.com/contactmap/contactmap/pipeline/msa"
	"github.com/contactmap/contactmap/pipeline/predict"
)

func main() {
	split := flag.String("split", "experiments/msa-net/split/families.tsv", "the family split")
	maxLen := flag.Int("max-len", 300, "skip families longer than this")
	targets := flag.String("neff", "0.01,0.03,0.1,0.3,1,3", "Neff/L targets")
	seed := flag.Uint64("seed", 1, "subsampling seed")
	out := flag.String("out", "experiments/msa-depth/results.tsv", "per-family results (appended to, resumable)")
	threads := flag.Int("threads", 2, "threads of the Neff computation (the predictions take GOMAXPROCS)")
	own := flag.Bool("own", false, "instead: score the single-sequence default on its own contacts (C-alpha), as predict's table does, family by family")
	flag.Parse()
	var neffs []float64
	for _, s := range strings.Split(*targets, ",") {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			log.Fatalf("-neff: %v", err)
		}
		neffs = append(neffs, v)
	}
	fams, err := readSplit(*split, *maxLen)
	if err != nil {
		log.Fatal(err)
	}
	if *own {
		ownLabels(fams)
		return
	}
	done := map[string]bool{}
	if data, err := os.ReadFile(*out); err == nil {
		for _, l := range strings.Split(string(data), "\n") {
			f := strings.Split(l, "\t")
			if len(f) >= 2 && f[0] != "family" {
				done[f[0]+"\t"+f[1]] = true
			}
		}
	}
	w, err := os.OpenFile(*out, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		log.Fatal(err)
	}
	defer w.Close()
	if len(done) == 0 {
		fmt.Fprintln(w, "family\ttarget\tL\tdepth\tneff_per_l\tmsa\tsingle")
	}
	tmp, err := os.MkdirTemp("", "msa-depth-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	ctx := context.Background()
	for _, f := range fams {
		if all := func() bool {
			for _, t := range neffs {
				if !done[f.name+"\t"+fmt.Sprint(t)] {
					return false
				}
			}
			return true
		}(); all {
			continue
		}
		a, err := msa.ReadFile(f.aln)
		if err != nil {
			log.Fatal(err)
		}
		ts, err := predict.Resolve(f.pdb, "")
		if err != nil || len(ts) != 1 {
			log.Fatalf("%s: %v (%d chains)", f.pdb, err, len(ts))
		}
		chain := ts[0]
		if chain.Seq != a.Query() {
			log.Printf("%s: the structure's sequence is not the alignment's query: skipped", f.name)
			continue
		}
		truth := pdb.NewContacts(chain.Residues, predict.PlmContacts)
		l := a.L()
		// The single-sequence default, once per family.
		fa := filepath.Join(tmp, f.name+".fasta")
		if err := os.WriteFile(fa, []byte(">"+f.name+"\n"+a.Query()+"\n"), 0o644); err != nil {
			log.Fatal(err)
		}
		single, err := score(ctx, []string{models.Default}, fa, filepath.Join(tmp, "single"), f.name, truth, l)
		if err != nil {
			log.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(*seed, 55))
		order := rng.Perm(a.N() - 1)
		x := a.Encode()
		neffOf := func(k int) float64 { // the query and the first k-1 shuffled rows
			sub := make([]uint8, 0, k*l)
			sub = append(sub, x[:l]...)
			for _, r := range order[:k-1] {
				sub = append(sub, x[(r+1)*l:(r+2)*l]...)
			}
			_, neff := msa.Weights(sub, k, l, msa.DefaultIdentity, *threads)
			return neff / float64(l)
		}
		full := neffOf(a.N())
		for _, t := range neffs {
			key := f.name + "\t" + fmt.Sprint(t)
			if done[key] || t > full {
				continue
			}
			lo, hi := 1, a.N() // the shortest prefix reaching t
			for lo < hi {
				mid := (lo + hi) / 2
				if neffOf(mid) >= t {
					hi = mid
				} else {
					lo = mid + 1
				}
			}
			k := lo
			path := filepath.Join(tmp, fmt.Sprintf("%s.%g.aln", f.name, t))
			var b strings.Builder
			b.WriteString(a.Query() + "\n")
			for _, r := range order[:k-1] {
				b.Write(a.Rows[r+1])
				b.WriteByte('\n')
			}
			if k == 1 { // a copy of the query: an alignment file has two rows, Neff stays 1
				b.WriteString(a.Query() + "\n")
			}
			if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
				log.Fatal(err)
			}
			p, err := score(ctx, []string{models.AlignmentDefault}, path, filepath.Join(tmp, "msa"), f.name+"."+fmt.Sprint(t), truth, l)
			if err != nil {
				log.Fatal(err)
			}
			fmt.Fprintf(w, "%s\t%g\t%d\t%d\t%.3f\t%.4f\t%.4f\n", f.name, t, l, k, neffOf(k), p, single)
			log.Printf("%s L %d target %g: depth %d, msa %.3f, single %.3f", f.name, l, t, k, p, single)
		}
	}
	w.Close()
	if err := report(*out, neffs); err != nil {
		log.Fatal(err)
	}
}

type family struct{ name, aln, pdb string }

func readSplit(path string, maxLen int) ([]family, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []family
	for i, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		f := strings.Split(l, "\t")
		if i == 0 || len(f) < 8 {
			continue
		}
		n, _ := strconv.Atoi(f[4])
		if f[7] != "validation" || f[1] != "psicov150" || n > maxLen {
			continue
		}
		out = append(out, family{f[0], f[2], f[3]})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out, nil
}

// score predicts input with the models into dir and returns the map's
// long-range top-L/5 precision against truth.
func score(ctx context.Context, ms []string, input, dir, name string, truth *pdb.Contacts, l int) (float64, error) {
	cfg := predict.Config{Models: ms, Load: models.Load, Out: dir, Formats: []string{"npy"}, Method: predict.MethodNetwork, Workers: 1}
	outs, err := predict.Run(ctx, cfg, []string{input})
	if err != nil {
		return 0, err
	}
	if len(outs) != 1 || outs[0].Err != nil {
		return 0, fmt.Errorf("%s: %v", input, outs)
	}
	p, err := readNPY(filepath.Join(dir, outs[0].ID+".npy"), l)
	if err != nil {
		return 0, err
	}
	m := metrics.Evaluate(name, p, truth)
	return m.TopL[metrics.Long][metrics.TopL5], nil
}

func readNPY(path string, l int) ([]float32, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	br := bufio.NewReader(f)
	var pre [10]byte
	if _, err := br.Read(pre[:]); err != nil {
		return nil, err
	}
	hl := int(binary.LittleEndian.Uint16(pre[8:]))
	if _, err := br.Discard(hl); err != nil {
		return nil, err
	}
	p := make([]float32, l*l)
	if err := binary.Read(br, binary.LittleEndian, p); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}

// report prints the table of the results file.
func report(path string, neffs []float64) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	type row struct{ msa, single, neff float64 }
	by := map[float64][]row{}
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n")[1:] {
		f := strings.Split(l, "\t")
		t, _ := strconv.ParseFloat(f[1], 64)
		ne, _ := strconv.ParseFloat(f[4], 64)
		m, _ := strconv.ParseFloat(f[5], 64)
		s, _ := strconv.ParseFloat(f[6], 64)
		by[t] = append(by[t], row{m, s, ne})
	}
	fmt.Println("| Neff/L target | families | msa network | single-sequence default | msa − single [95% CI] |")
	fmt.Println("|---:|---:|---:|---:|---|")
	for _, t := range neffs {
		rs := by[t]
		if len(rs) == 0 {
			continue
		}
		d := make([]float64, len(rs))
		var ms, ss float64
		for i, r := range rs {
			d[i] = r.msa - r.single
			ms += r.msa
			ss += r.single
		}
		n := float64(len(rs))
		lo, hi := bootstrap(d, 10000, 7)
		fmt.Printf("| %g | %d | %.3f | %.3f | %+.3f [%+.3f, %+.3f] |\n", t, len(rs), ms/n, ss/n, mean(d), lo, hi)
	}
	return nil
}

func mean(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}

// bootstrap is the percentile 95% interval of the mean of x.
func bootstrap(x []float64, n int, seed uint64) (lo, hi float64) {
	rng := rand.New(rand.NewPCG(seed, 1))
	ms := make([]float64, n)
	for b := range ms {
		s := 0.0
		for range x {
			s += x[rng.IntN(len(x))]
		}
		ms[b] = s / float64(len(x))
	}
	sort.Float64s(ms)
	return ms[int(math.Floor(0.025*float64(n)))], ms[int(math.Ceil(0.975*float64(n)))-1]
}

// ownLabels prints the single-sequence default's long-range top-L/5 on
// each family's structure, on the model's own contacts (predict's table).
func ownLabels(fams []family) {
	tmp, err := os.MkdirTemp("", "msa-depth-own-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	var sum float64
	for _, f := range fams {
		cfg := predict.Config{Models: []string{models.Default}, Load: models.Load, Out: tmp, Formats: []string{"rr"}, Workers: 1}
		outs, err := predict.Run(context.Background(), cfg, []string{f.pdb})
		if err != nil || len(outs) != 1 || outs[0].Err != nil || outs[0].Metrics == nil {
			log.Fatalf("%s: %v %v", f.pdb, err, outs)
		}
		v := outs[0].Metrics.TopL[metrics.Long][metrics.TopL5]
		sum += v
		fmt.Printf("%s\t%.4f\n", f.name, v)
	}
	fmt.Printf("mean\t%.3f (%d families)\n", sum/float64(len(fams)), len(fams))
}
