// Command contactmap predicts protein contact maps with symmetry-structured
// convolutional neural networks.
//
// Usage:
//
//	contactmap features --list LIST --pdb-dir DIR --out DIR [flags]
//	contactmap features --merge DIR
//	contactmap train --features DIR --model cnn|scnn [--config default|paper] [--resume | --force]
//	contactmap eval --model M [--model M2] --features DIR --split test [--out REPORT]
//	contactmap predict [--model scnn|cnn|FILE] [--pdb-dir DIR] [--out DIR] 1ENH_A 1ctf seqs.fasta -
//	contactmap rna train|eval|compare|predict [flags]
//	contactmap rec train|eval|recommend|compare [flags]
//	contactmap version
//
// Flags may come before, between or after the inputs; "--" ends them.
// Run "contactmap <command> -h" for what a command does, its inputs, an
// example and its flags; every command also takes --version.
//
// Exit status: 0 success (or help, or --version); 1 an input or the run
// failed (the other inputs are still done, the failures listed at the
// end); 2 a usage error (an unknown command or flag, a flag value out of
// range, no inputs).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"github.com/contactmap/contactmap/pipeline/model"
	"io"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strings"

	"github.com/contactmap/contactmap/internal/modelkind"
	"github.com/contactmap/contactmap/internal/progress"
	"github.com/contactmap/contactmap/scnn"
	"github.com/contactmap/contactmap/scnn/blasenv"
)

var commands = map[string]func(ctx context.Context, args []string) error{
	"features": runFeatures,
	"sets":     runSets,
	"train":    runTrain,
	"eval":     runEval,
	"compare":  runCompare,
	"predict":  runPredict,
	"msa":      runMSA,
	"rec":      runRec,
	"rna":      runRNA,
}

func usage(w io.Writer) {
	fmt.Fprintln(w, `usage: contactmap <command> [flags]

commands:
  features   PISCES list + PDB mirror -> feature files, manifest, skip report
  sets       extended training set and length-generalisation set from the structures on disk
  train      train a CNN or SCNN contact model on feature files
  eval       evaluate models and baselines on a split
  compare    CNN vs SCNN over seeds: mean, sd, paired differences, bootstrap CIs
  predict    contact maps for PDB IDs, structure files or sequences
  msa        alignments for sequences by jackhmmer, MMseqs2 or HHblits
  rna        RNA secondary structure: CNN vs SCNN (rna train|eval|compare|predict)
  rec        sequential recommendation: CosRec vs SCosRec (rec train|eval|recommend|compare)
  version    print the code revision and BLAS of this binary

Run "contactmap <command> -h" for what a command does, its inputs, an
example and its flags; "contactmap <command> --version" is "contactmap version".

Exit status: 0 success or help; 1 an input or the run failed (the other
inputs are still done and the failures listed at the end); 2 a usage error
(unknown command or flag, a flag value out of range, no inputs).`)
}

func version() string {
	blas := "Go sgemm, " + scnn.SgemmKernels() + " kernels"
	if core := scnn.BLASCore(); core != "" {
		blas = "OpenBLAS, " + core + " kernels"
	}
	return fmt.Sprintf("contactmap %s (%s)", model.CodeVersion(), blas)
}

func main() {
	blasenv.Reexec()
	blasenv.SelectKernels(os.Stderr) // CONTACTMAP_SGEMM
	stop := startProfile(os.Getenv("CONTACTMAP_CPUPROFILE"))
	code := run(os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// startProfile writes a CPU profile of the command to path (the
// environment's CONTACTMAP_CPUPROFILE, for `go tool pprof`) where path is
// not "", until the returned function is called.
func startProfile(path string) func() {
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err == nil {
		err = pprof.StartCPUProfile(f)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "contactmap: CONTACTMAP_CPUPROFILE: %v\n", err)
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}

// stdout and stderr are where the commands write: the process's, or the
// writers given to run.
var stdout, stderr io.Writer = os.Stdout, os.Stderr

// run is the command line without the process: it returns the exit status
// (0 success or help, 1 failure, 2 usage error).
func run(args []string, out, errOut io.Writer) int {
	stdout, stderr = out, errOut
	if len(args) < 1 {
		usage(stderr)
		return 2
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		usage(stdout)
		return 0
	case "-version", "--version", "version":
		fmt.Fprintln(stdout, version())
		return 0
	}
	cmd, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "contactmap: unknown command %q\n", args[0])
		usage(stderr)
		return 2
	}
	name := strings.Join(args[:commandWords(args)], " ") // for messages: "predict", "rna predict"
	setFinished("")
	ctx, stop := signalContext(name, stderr)
	defer stop()
	err := cmd(ctx, args[1:])
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.Is(err, errUsage):
		fmt.Fprintf(stderr, "contactmap %s: %v\n", name, err)
		return 2
	case ctx.Err() != nil && errors.Is(err, context.Canceled):
		// Stopped by SIGINT or SIGTERM within the grace period: say what
		// was finished rather than "context canceled".
		fmt.Fprintln(stderr, interruptedLine("contactmap "+name+": interrupted"))
		return 1
	}
	var wk *modelkind.WrongKindError
	if errors.As(err, &wk) {
		fmt.Fprintf(stderr, "contactmap %s: %s\n", name, wrongKind(args, wk))
		return 1
	}
	fmt.Fprintf(stderr, "%s\n", errorLine(name, flagHint(err)))
	return 1
}

// commandWords is the number of words naming the command in args: 2 for
// a group's command ("rna predict"), else 1 ("predict", "rna bogus").
func commandWords(args []string) int {
	if len(args) > 1 && (args[0] == "rna" && rnaCommands[args[1]] != nil || args[0] == "rec" && recCommands[args[1]] != nil) {
		return 2
	}
	return 1
}

// wrongKind says which kind of model a file holds and which command
// takes it: the command of that kind doing what the one run does
// (predict, rna predict and rec recommend; eval; compare).
func wrongKind(args []string, wk *modelkind.WrongKindError) string {
	verb := args[commandWords(args)-1]
	if verb == "recommend" {
		verb = "predict"
	}
	use, article := "contactmap ", "a "
	switch wk.Holds {
	case modelkind.Protein:
	case modelkind.RNA:
		use, article = use+"rna ", "an "
	case modelkind.Rec:
		if verb == "predict" {
			verb = "recommend"
		}
		use += "rec "
	default:
		return wk.Error()
	}
	return fmt.Sprintf("%s holds %s%s; use `%s%s`", wk.Name, article, wk.Holds, use, verb)
}

// errUsage marks command-line mistakes (exit status 2).
var errUsage = errors.New("usage")

// checkOutDir refuses an output directory that names an existing file
// other than a directory, or lies under one (--out FILE/sub): a usage
// error naming --out and the file in the way.
func checkOutDir(dir string) error {
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if st, err := os.Stat(d); err == nil {
			if st.IsDir() {
				return nil
			}
			if d == filepath.Clean(dir) {
				return usageError("--out %s: not a directory", dir)
			}
			return usageError("--out %s: %s is a file, not a directory", dir, d)
		}
		if parent := filepath.Dir(d); parent == d {
			return nil
		}
	}
}

func usageError(format string, a ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{errUsage}, a...)...)
}

// errorLine prefixes an error with the command once: package errors that
// already start with the command's name ("predict: ...") are not prefixed
// again.
func errorLine(cmd string, err error) string {
	msg := err.Error()
	if strings.HasPrefix(msg, cmd+": ") {
		msg = strings.TrimPrefix(msg, cmd+": ")
	}
	return "contactmap " + cmd + ": " + msg
}

// parseFlags parses args with flags anywhere among the positional
// arguments ("contactmap predict 1ENH_A --out x"); "--" ends the flags. A
// lone "-" (standard input) is positional. The help message goes to
// standard output, and flag errors become usage errors.
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	for _, a := range args {
		if a == "--" {
			break
		}
		if a == "-h" || a == "-help" || a == "--help" {
			fs.SetOutput(stdout)
			fs.Usage()
			return nil, flag.ErrHelp
		}
		if a == "-version" || a == "--version" {
			fmt.Fprintln(stdout, version())
			return nil, flag.ErrHelp
		}
	}
	fs.SetOutput(io.Discard) // the error comes back in the returned one
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, usageError("%v (see -h)", err)
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if consumed := len(args) - len(rest); consumed > 0 && args[consumed-1] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// noPositional refuses positional arguments for commands that take none.
func noPositional(cmd string, pos []string) error {
	if len(pos) > 0 {
		return usageError("unexpected argument %q (%s takes flags only; see -h)", pos[0], cmd)
	}
	return nil
}

// parseRunFlags parses a training command's flags (no positional
// arguments) and refuses --resume with --force.
func parseRunFlags(fs *flag.FlagSet, cmd string, args []string, resume, force *bool) error {
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if err := noPositional(cmd, pos); err != nil {
		return err
	}
	if *resume && *force {
		return usageError("--resume and --force exclude each other")
	}
	return nil
}

// lossBar is the bar of training steps with the mean loss
// (progress.LossBar).
type lossBar = progress.LossBar
