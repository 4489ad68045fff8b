package predict

import (
	"fmt"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/contactmap/contactmap/rna/ssnet"
)

// Shipped is what Run and Eval need of the shipped RNA models. Package
// models holds them, above the systems (it cannot be imported here), and
// fills this in (models.RNAShipped), as pipeline/predict.Config.Load
// takes the protein models.
type Shipped struct {
	// Default is the model of a run that names none (models.DefaultRNA).
	Default string
	// Names are the shipped models' names (models.RNANames).
	Names []string
	// Load resolves a model spec, a shipped name or a model file, into
	// the model and where it came from (models.LoadRNA).
	Load func(spec string) (*ssnet.Model, string, error)
	// Refs are a model's references of known structure and their name: a
	// shipped model's training files, built in, and for another spec
	// the 16S training set (models.RNARefsFor).
	Refs func(spec string) ([]ssnet.Molecule, string, error)
	// TrainingFiles are a shipped model's training files, in training's
	// order; false for a spec that names no shipped model
	// (models.ShippedRNA's Refs).
	TrainingFiles func(spec string) ([]string, bool)
	// Decoder is a model's own decoder (models.RNADefaultDecoder; greedy
	// for a model file).
	Decoder func(spec string) ssnet.Decoder
	// Members are the specs of a shipped ensemble's networks, each
	// resolved by Load (nil, or false: the spec is one network); see
	// EnsembleMembers.
	Members func(spec string) ([]string, bool)
	// Describe says what a shipped model's training file holds, for the
	// warnings; a file not listed is named by its path.
	Describe map[string]TrainingFile
}

// TrainingFile is what a training file holds, for the warnings: What
// ("16S rRNA"), followed where Families is set by the families of the
// model's training molecules ("bpRNA TR0 (CRW, RFAM)").
type TrainingFile struct {
	What     string
	Families bool
}

// TrainFilesOf is the training files of the shipped models among specs,
// comma-separated (their references: Refs, read from the files they
// were trained on), which must be the same files in the same order (else
// an ssnet.ErrUsage); fallback when no shipped model is given: rna
// eval's default --train.
func (sh Shipped) TrainFilesOf(specs []string, fallback string) (string, error) {
	train, from := "", ""
	for _, asked := range specs {
		for _, spec := range sh.EnsembleMembers(asked) { // an ensemble's members each
			refs, ok := sh.TrainingFiles(spec)
			if !ok {
				continue // a model file
			}
			files := strings.Join(refs, ",")
			if train != "" && files != train {
				return "", fmt.Errorf("%w: %s and %s were trained on different files (%s; %s): evaluate them separately or give --train", ssnet.ErrUsage, from, spec, train, files)
			}
			train, from = files, spec
		}
	}
	if train == "" {
		train = fallback
	}
	return train, nil
}

// EnsembleMembers is the networks of a model spec: a shipped
// ensemble's members (Members), the specs joined by "+" of an ensemble
// of model files or shipped names ("a.scnn+b.scnn"), else the spec
// itself.
func (sh Shipped) EnsembleMembers(spec string) []string {
	if sh.Members != nil {
		if ms, ok := sh.Members(spec); ok {
			return ms
		}
	}
	if _, err := os.Stat(spec); err != nil && strings.Contains(spec, "+") { // a file of that name is one network
		var out []string
		for _, m := range strings.Split(spec, "+") {
			if m = strings.TrimSpace(m); m != "" {
				out = append(out, m)
			}
		}
		return out
	}
	return []string{spec}
}

// loadMembers loads the networks of spec (EnsembleMembers, each by
// Load): their specs, models and where each came from; a member's error
// names spec.
func (sh Shipped) loadMembers(spec string) (specs []string, models []*ssnet.Model, froms []string, err error) {
	for _, member := range sh.EnsembleMembers(spec) {
		m, from, err := sh.Load(member)
		if err != nil {
			if member != spec {
				err = fmt.Errorf("%s: %w", spec, err)
			}
			return nil, nil, nil, err
		}
		specs, models, froms = append(specs, member), append(models, m), append(froms, from)
	}
	return specs, models, froms, nil
}

// decoderOf is the decoder of a spec: a shipped model's (an ensemble
// line's) own, else its first network's ("a+b"; greedy for a file).
func (sh Shipped) decoderOf(spec string) ssnet.Decoder {
	if _, shipped := sh.TrainingFiles(spec); !shipped {
		if ms := sh.EnsembleMembers(spec); len(ms) > 0 {
			spec = ms[0]
		}
	}
	return sh.Decoder(spec)
}

// DecodersHelp lists each shipped model's own decoder, for a help text:
// "bprna: mea, rna-scnn: greedy".
func (sh Shipped) DecodersHelp() string {
	var b []string
	for _, name := range sh.Names {
		b = append(b, name+": "+string(sh.Decoder(name)))
	}
	return strings.Join(b, ", ")
}

// RefsHelp lists each shipped model's references (its training files),
// a line each, for a help text.
func (sh Shipped) RefsHelp() string {
	var b []string
	for _, name := range sh.Names {
		if files, ok := sh.TrainingFiles(name); ok {
			b = append(b, "  "+name+": "+strings.Join(files, ", "))
		}
	}
	return strings.Join(b, "\n")
}

// training is what an RNA network was trained on, for the warnings of a
// run: the molecules (16S rRNA, bpRNA TR0's families) and their lengths
// (0, 0: unknown, for a model file).
type training struct {
	What     string
	Min, Max int
}

func (t training) String() string {
	if t.Max == 0 {
		return t.What
	}
	return fmt.Sprintf("%s of %s-%s nt", t.What, thousands(t.Min), thousands(t.Max))
}

// trainingOf describes a shipped network's training molecules: its
// training files and their molecules.
func (sh Shipped) trainingOf(files []string, mols []ssnet.Molecule) training {
	var t training
	var what []string
	for _, f := range files {
		d, ok := sh.Describe[f]
		switch {
		case !ok:
			what = append(what, f)
		case d.Families:
			fams := map[string]bool{}
			for _, m := range mols {
				if m.Family != "" {
					fams[m.Family] = true
				}
			}
			names := make([]string, 0, len(fams))
			for f := range fams {
				names = append(names, f)
			}
			sort.Strings(names)
			what = append(what, d.What+" ("+strings.Join(names, ", ")+")")
		default:
			what = append(what, d.What)
		}
	}
	t.What = strings.Join(what, " and ")
	for i, m := range mols {
		if l := len(m.Seq); i == 0 || l < t.Min {
			t.Min = l
		}
		t.Max = max(t.Max, len(m.Seq))
	}
	return t
}

// network is one network of a run's models, with what it was trained
// on.
type network struct {
	ssnet.Network
	Spec  string
	Train training
}

// trainingOfAll is the training lengths of the networks together (an
// ensemble's: the widest), and what they were trained on; Max 0 when a
// network's are unknown.
func trainingOfAll(nets []network) training {
	var t training
	var what []string
	for i, n := range nets {
		if n.Train.Max == 0 {
			return training{}
		}
		if i == 0 || n.Train.Min < t.Min {
			t.Min = n.Train.Min
		}
		t.Max = max(t.Max, n.Train.Max)
		if !slices.Contains(what, n.Train.What) {
			what = append(what, n.Train.What)
		}
	}
	t.What = strings.Join(what, "; ")
	return t
}

// netNames names the networks of a run: "rna-scnn-16s", "rna-scnn +
// rna-scnn-16s".
func netNames(nets []network) string {
	var n []string
	for _, x := range nets {
		n = append(n, x.Spec)
	}
	return strings.Join(n, " + ")
}

// thousands writes n with commas between groups of three digits (2,741).
func thousands(n int) string {
	s := strconv.Itoa(n)
	if n < 0 {
		return "-" + thousands(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
