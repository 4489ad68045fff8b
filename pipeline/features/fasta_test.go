package features

import (
	"errors"
	"strings"
	"testing"
)

// Trailing stops are all dropped; a record of stops only, an empty one or
// one with a stop inside is marked unusable, naming the record, and the
// records beside it are read. ">\n**" (the fuzzer's find) was read as the
// sequence "*".
func TestReadSequencesStops(t *testing.T) {
	seqs, err := ReadSequences(strings.NewReader(">a\nmkv**\n>b desc\nLA*\n"))
	if err != nil || len(seqs) != 2 || seqs[0] != (Sequence{Name: "a", Seq: "MKV"}) || seqs[1] != (Sequence{Name: "b", Seq: "LA"}) {
		t.Fatalf("%+v %v", seqs, err)
	}
	for _, c := range []struct {
		in   string
		bad  int // the unusable record's index
		want string
	}{
		{">\n**", 0, `record 1 (""): empty sequence`},
		{">a\nMK\n>x\n*\n", 1, `record 2 ("x"): empty sequence`},
		{">a\nMK\n>b\n", 1, `record 2 ("b"): empty sequence`},
		{">a\nM*KV*\n>b\nLA\n", 0, `record 1 ("a"): a stop '*' at position 2`},
	} {
		seqs, err := ReadSequences(strings.NewReader(c.in))
		if err != nil || c.bad >= len(seqs) {
			t.Fatalf("%q: %+v, %v", c.in, seqs, err)
		}
		for i, s := range seqs {
			switch {
			case i == c.bad && (!errors.Is(s.Err, ErrRecord) || !strings.Contains(s.Err.Error(), c.want)):
				t.Errorf("%q: record %d: error %v, want one saying %q", c.in, i+1, s.Err, c.want)
			case i != c.bad && (s.Err != nil || s.Seq == ""):
				t.Errorf("%q: record %d: %+v, want it read", c.in, i+1, s)
			}
		}
	}
}
