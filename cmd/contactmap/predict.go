package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/contactmap/contactmap/internal/progress"
	"github.com/contactmap/contactmap/pdb"
	"github.com/contactmap/contactmap/pipeline/predict"
)

// readIDs reads one input per line (blank lines and # comments skipped).
func readIDs(r io.Reader) ([]string, error) {
	var out []string
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		t := strings.TrimSpace(sc.Text())
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		out = append(out, strings.Fields(t)[0])
	}
	return out, sc.Err()
}

func runPredict(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("predict", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), `usage: contactmap predict [flags] INPUT...

INPUT is a PDB ID (1ENH_A, 1ENHA, or 1enh for every protein chain) resolved
in --pdb-dir, a PDB/mmCIF file, a FASTA file of sequences, or - to read
inputs from standard input, one per line.`)
		fs.PrintDefaults()
	}
	var cfg predict.Config
	fs.StringVar(&cfg.ModelPath, "model", "models/scnn.scnn", "model file")
	fs.StringVar(&cfg.PDBDir, "pdb-dir", "data/pdb", "local PDB mirror for PDB IDs")
	fs.StringVar(&cfg.SS, "ss", "", "secondary-structure predictions (for models trained with them)")
	fs.StringVar(&cfg.MSADir, "msa-dir", "", "alignments <ID>.a3m|.aln|.fasta (for MSA models)")
	fs.StringVar(&cfg.Out, "out", "predictions", "output directory")
	formats := fs.String("format", "rr,npy,png", "outputs: any of rr, npy, tsv, png")
	ids := fs.String("ids", "", "file of inputs, one per line")
	fs.IntVar(&cfg.Workers, "workers", 1, "chains predicted in parallel")
	shard := fs.String("shard", "0/1", "process shard i of n of the inputs (0-based)")
	cb := fs.Bool("cb", false, "metrics on known structures use C-beta contacts")
	if err := fs.Parse(args); err != nil {
		return err
	}
	inputs := fs.Args()
	if *ids != "" {
		f, err := os.Open(*ids)
		if err != nil {
			return err
		}
		more, err := readIDs(f)
		f.Close()
		if err != nil {
			return err
		}
		inputs = append(inputs, more...)
	}
	var expanded []string
	for _, a := range inputs {
		if a == "-" {
			more, err := readIDs(os.Stdin)
			if err != nil {
				return err
			}
			expanded = append(expanded, more...)
			continue
		}
		expanded = append(expanded, a)
	}
	if len(expanded) == 0 {
		fs.Usage()
		return fmt.Errorf("no inputs")
	}
	var err error
	if cfg.Shard, cfg.Shards, err = parseShard(*shard); err != nil {
		return err
	}
	cfg.Formats = strings.Split(*formats, ",")
	if *cb {
		cfg.Def = pdb.CBeta
	}
	var bar *progress.Bar
	cfg.OnStart = func(n int) { bar = progress.New(n, "predict") }
	cfg.OnDone = func(predict.Outcome) { bar.Add(1) }
	outs, err := predict.Run(ctx, cfg, expanded)
	if bar != nil {
		bar.Finish()
	}
	if err != nil {
		return err
	}
	return summarize(os.Stdout, outs, cfg.Out)
}

// summarize prints the per-chain table and the failures; it returns an
// error when any input failed.
func summarize(w io.Writer, outs []predict.Outcome, dir string) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "chain\tL\tPPV\tsensitivity\taccuracy\tlong top-L/5\toutputs")
	var failed []predict.Outcome
	ok := 0
	for _, o := range outs {
		if o.Err != nil {
			failed = append(failed, o)
			continue
		}
		ok++
		if o.Metrics != nil {
			m := o.Metrics
			fmt.Fprintf(tw, "%s\t%d\t%.3f\t%.3f\t%.3f\t%.3f\t%d files\n", o.ID, o.L, m.PPV, m.Sens, m.Accuracy, m.TopL[2][2], len(o.Files))
		} else {
			fmt.Fprintf(tw, "%s\t%d\t-\t-\t-\t-\t%d files\n", o.ID, o.L, len(o.Files))
		}
	}
	tw.Flush()
	fmt.Fprintf(w, "%d chains predicted into %s", ok, dir)
	if len(failed) == 0 {
		fmt.Fprintln(w)
		return nil
	}
	fmt.Fprintf(w, "; %d failed:\n", len(failed))
	for _, o := range failed {
		name := o.Arg
		if o.ID != "" {
			name = o.ID
		}
		fmt.Fprintf(w, "  %s: %v\n", name, o.Err)
	}
	return fmt.Errorf("%d of %d inputs failed", len(failed), len(failed)+ok)
}
