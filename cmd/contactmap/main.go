package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/contactmap/contactmap/internal/cpuprofile"
	"github.com/contactmap/contactmap/internal/fileio"
	"github.com/contactmap/contactmap/internal/interrupt"
	"github.com/contactmap/contactmap/internal/modelkind"
	"github.com/contactmap/contactmap/internal/outset"
	"github.com/contactmap/contactmap/internal/usage"
	"github.com/contactmap/contactmap/pipeline/features"
	"github.com/contactmap/contactmap/pipeline/model"
	"github.com/contactmap/contactmap/pipeline/predict"
	"github.com/contactmap/contactmap/scnn"
	"github.com/contactmap/contactmap/scnn/blasenv"
	"github.com/contactmap/contactmap/scnn/loop"
)

var commands = map[string]func(ctx context.Context, args []string) error{
	"features": runFeatures,
	"sets":     runSets,
	"train":    runTrain,
	"eval":     runEval,
	"compare":  runCompare,
	"predict":  runPredict,
	"msa":      runMSA,
	"rec":      group("rec", recCommands, recUsage),
	"rna":      group("rna", rnaCommands, rnaUsage),
}

func printUsage(w io.Writer) {
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
	stop := cpuprofile.Start(os.Getenv("CONTACTMAP_CPUPROFILE"), "contactmap: CONTACTMAP_CPUPROFILE", os.Stderr)
	code := run(os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// stopGrace is how long a command has, after SIGINT or SIGTERM, to stop
// on its own (its context is cancelled at once); after it the process
// removes its temporary files and exits (interrupt.Command). A second
// signal ends the wait.
const stopGrace = time.Second

func init() {
	// The temporary files of outputs being written: a forced exit leaves
	// the outputs finished before it, never a part.
	interrupt.OnForcedExit(outset.RemoveOwnTemps)
	interrupt.OnForcedExit(fileio.RemoveLiveTemps)
}

// stdout and stderr are where the commands write: the process's, or the
// writers given to run.
var stdout, stderr io.Writer = os.Stdout, os.Stderr

// run is the command line without the process: it returns the exit status
// (0 success or help, 1 failure, 2 usage error).
func run(args []string, out, errOut io.Writer) int {
	stdout, stderr = out, errOut
	if len(args) < 1 {
		printUsage(stderr)
		return 2
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		printUsage(stdout)
		return 0
	case "-version", "--version", "version":
		fmt.Fprintln(stdout, version())
		return 0
	}
	cmd, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "contactmap: unknown command %q\n", args[0])
		printUsage(stderr)
		return 2
	}
	name := strings.Join(args[:commandWords(args)], " ") // for messages: "predict", "rna predict"
	interrupt.SetFinished("")
	ctx, stop := interrupt.Command("contactmap "+name, stderr, stopGrace, os.Exit)
	defer stop()
	err := cmd(ctx, args[1:])
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.Is(err, usage.Err):
		fmt.Fprintf(stderr, "contactmap %s: %v\n", name, err)
		return 2
	case ctx.Err() != nil && errors.Is(err, context.Canceled):
		// Stopped by SIGINT or SIGTERM within the grace period: say what
		// was finished rather than "context canceled".
		fmt.Fprintln(stderr, interrupt.Line("contactmap "+name+": interrupted"))
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

// flagHint adds to an error of the libraries, which describe the problem
// in their own terms, the command-line flags that address it. Errors it
// does not know are returned as they are.
func flagHint(err error) error {
	if err == nil {
		return nil
	}
	var me *predict.ModeError
	hint := ""
	switch {
	case errors.As(err, &me):
		flag := "--ss"
		if me.Input == predict.InputMSA {
			flag = "--msa-dir"
		}
		if me.Missing {
			hint = "give " + flag
		} else {
			hint = "drop " + flag
		}
	case errors.Is(err, predict.ErrNoMirror):
		hint = "give --pdb-dir"
	case errors.Is(err, predict.ErrNoMSANetwork):
		hint = "use --model msa or --method plm"
	case errors.Is(err, predict.ErrNeedAlignment):
		hint = "--method plm; --msa-dir holds <ID>.a3m|.aln|.fasta"
	case errors.Is(err, features.ErrNoChainInRange):
		hint = "see --min-len, --max-len"
	case errors.Is(err, loop.ErrRunExists):
		hint = "continue it with --resume or replace it with --force"
	case errors.Is(err, loop.ErrNoCheckpoint):
		hint = "start without --resume"
	}
	if hint == "" {
		return err
	}
	return fmt.Errorf("%w (%s)", err, hint)
}
