package features

import (
	"strings"
	"testing"
)

// Trailing stops are all dropped; a record of stops only, an empty one or
// one with a stop inside is refused, naming the record. ">\n**" (the
// fuzzer's find) was read as the sequence "*".
func TestReadSequencesStops(t *testing.T) {
	seqs, err := ReadSequences(strings.NewReader(">a\nmkv**\n>b desc\nLA*\n"))
	if err != nil || len(seqs) != 2 || seqs[0] != (Sequence{"a", "MKV"}) || seqs[1] != (Sequence{"b", "LA"}) {
		t.Fatalf("%+v %v", seqs, err)
	}
	for _, c := range []struct{ in, want string }{
		{">\n**", `FASTA record 1 (""): empty sequence`},
		{">a\nMK\n>x\n*\n", `FASTA record 2 ("x"): empty sequence`},
		{">a\nMK\n>b\n", `FASTA record 2 ("b"): empty sequence`},
		{">a\nM*KV*\n", `FASTA record 1 ("a"): a stop '*' at position 2`},
	} {
		seqs, err := ReadSequences(strings.NewReader(c.in))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %+v, %v; want an error saying %q", c.in, seqs, err, c.want)
		}
	}
}
