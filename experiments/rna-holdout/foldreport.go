package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// foldRows are the model-free rows of the fold table, in its order.
var foldRows = []struct{ key, name string }{{"mfe", "MFE"}, {"centroid", "centroid"}, {"mea", "MEA"}, {"homology", "homology"}, {"stacking", "stacking"}}

// foldReport writes the ArchiveII family-fold table of the network name
// from dir/FAMILY/ (each fold's baselines.tsv and scores-NAME.tsv): per
// family, the molecules both score, the mean F1 of the network under
// decoder and under the other decoder (greedy for mea, mea for the
// others: a blend bW of -score -blend), and of every model-free row, and
// the network's paired differences from the centroid and the MFE with
// 95% bootstrap CIs over the family's molecules; then the family-fold
// mean (the mean of the family means, the published tables' number) and
// the mean over all molecules. A family without its fold's files is
// listed as missing, and the means are then over the families present.
//
// extra are further columns (NAME/DECODER, comma-separated: another
// predictor's scores in the folds' files, as the consensus's CC/cc)
// after the network's two.
func foldReport(w io.Writer, dir, name, decoder, extra string) error {
	other := map[string]string{"mea": "greedy", "greedy": "mea", "cc": "mea"}[decoder]
	if strings.HasPrefix(decoder, "b") && len(decoder) > 1 {
		other = "mea" // a blend of -score -blend, beside the network's own MEA
	}
	if other == "" {
		return fmt.Errorf("-fold-decoder %q: want mea, greedy, cc (the consensus of -consensus) or a blend bW", decoder)
	}
	var extras []string
	if extra != "" {
		extras = strings.Split(extra, ",")
	}
	lists, err := filepath.Glob(filepath.Join(dir, "*.exclude.txt"))
	if err != nil {
		return err
	}
	if len(lists) == 0 {
		return fmt.Errorf("no folds in %s", dir)
	}
	sort.Strings(lists)
	net, alt := name+"/"+decoder, name+"/"+other
	cols := append(append([]string{net, alt}, extras...), func() []string {
		var k []string
		for _, r := range foldRows {
			k = append(k, r.key)
		}
		return k
	}()...)
	fmt.Fprintf(w, "| family | molecules | %s | %s |", net, alt)
	for _, e := range extras {
		fmt.Fprintf(w, " %s |", e)
	}
	for _, r := range foldRows {
		fmt.Fprintf(w, " %s |", r.name)
	}
	fmt.Fprintf(w, " %s - centroid [95%% CI] | %s - MFE [95%% CI] |\n|---|---:|", net, net)
	for range cols {
		fmt.Fprint(w, "---:|")
	}
	fmt.Fprintln(w, "---|---|")
	famMeans := make([][]float64, len(cols))
	all := make([][]float64, len(cols))
	var missing []string
	for _, list := range lists {
		fam := filepath.Base(list)
		fam = fam[:len(fam)-len(".exclude.txt")]
		f1, _, err := readScores(filepath.Join(dir, fam))
		if os.IsNotExist(err) {
			missing = append(missing, fam)
			continue
		}
		if err != nil {
			return err
		}
		var names []string // the molecules every column scores
		for n := range f1[net] {
			ok := true
			for _, c := range cols {
				if _, has := f1[c][n]; !has {
					ok = false
				}
			}
			if ok {
				names = append(names, n)
			}
		}
		if len(names) == 0 {
			return fmt.Errorf("fold %s: no molecule scored by %s and every model-free row", fam, net)
		}
		sort.Strings(names)
		fmt.Fprintf(w, "| %s | %d |", fam, len(names))
		for k, c := range cols {
			m := 0.0
			for _, n := range names {
				m += f1[c][n]
				all[k] = append(all[k], f1[c][n])
			}
			m /= float64(len(names))
			famMeans[k] = append(famMeans[k], m)
			fmt.Fprintf(w, " %.3f |", m)
		}
		for _, b := range []string{"centroid", "mfe"} {
			d := make([]float64, len(names))
			for i, n := range names {
				d[i] = f1[net][n] - f1[b][n]
			}
			mean, lo, hi := bootstrapCI(d, 10000, 1)
			fmt.Fprintf(w, " %+.3f [%+.3f, %+.3f] |", mean, lo, hi)
		}
		fmt.Fprintln(w)
	}
	for _, agg := range []struct {
		name string
		v    [][]float64
	}{{fmt.Sprintf("**family-fold mean** (%d families)", len(famMeans[0])), famMeans}, {"all molecules", all}} {
		n := len(agg.v[0])
		fmt.Fprintf(w, "| %s | %d |", agg.name, len(all[0]))
		for k := range cols {
			m := 0.0
			for _, v := range agg.v[k] {
				m += v
			}
			fmt.Fprintf(w, " %.3f |", m/float64(n))
		}
		fmt.Fprintln(w, " | |")
	}
	if len(missing) > 0 {
		fmt.Fprintf(w, "\nNot yet scored: %v.\n", missing)
	}
	return nil
}
