package predict

import (
	"slices"
	"strings"
	"testing"
)

// The format of an input: its extension's, else its content's.
func TestSniffFormat(t *testing.T) {
	for _, c := range []struct{ data, ext, want string }{
		{">a\nGGGAAACCC\n", "", "fasta"},
		{">a\nGGGAAACCC\n(((...)))\n", "", "dbn"},
		{"# c\n1 G 4\n2 G 0\n", "", "bpseq"},
		{"4 name\n1 G 0 2 4 1\n", "", "ct"},
		{">a\nGGGAAACCC\n", ".ct", "ct"},
		{"", "", "fasta"},
	} {
		if got := SniffFormat([]byte(c.data), c.ext); got != c.want {
			t.Errorf("%q (%s): %s, want %s", c.data, c.ext, got, c.want)
		}
	}
}

// A protein record is refused, a DNA record marked, an ambiguous one
// counted.
func TestReadInputsLetters(t *testing.T) {
	data := ">dna\nACGTACGTTTGG\n>prot\nMKVLAAGIVALLLAAGCSSSKEETTQ\n>amb\nACGUNRYACGU\n"
	got, errs := readFile([]byte(data), "in.fa", "fasta")
	if len(got) != 2 || !got[0].DNA || got[1].Ambiguous != 2 {
		t.Fatalf("read %+v", got)
	}
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "record 2 (prot): this looks like a protein sequence") {
		t.Errorf("errors %v", errs)
	}
}

// The settings each method does not read.
func TestUnused(t *testing.T) {
	for method, want := range map[string][]string{
		"network":  {"max-span"},
		"homology": {"model", "decoder", "max-span"},
		"mfe":      {"model", "decoder", "refs"},
		"stacking": {"model", "decoder", "refs", "max-span"},
	} {
		if got := Unused(method); !slices.Equal(got, want) {
			t.Errorf("%s: %q, want %q", method, got, want)
		}
	}
}
