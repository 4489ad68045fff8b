package fileio

import (
	"errors"
	"strings"
	"testing"
)

// ReadAll gives every record, or those before the first error and the
// error.
func TestFASTAReadAll(t *testing.T) {
	recs, err := NewFASTAReader(strings.NewReader(">a x\nAC\nGT\n\n>b\nA\n")).ReadAll()
	if err != nil || len(recs) != 2 || recs[0].Name != "a" || recs[0].Desc != "x" || string(recs[0].Seq) != "ACGT" || recs[1].Index != 2 || recs[1].Line != 5 {
		t.Fatalf("records %+v, %v", recs, err)
	}
	fr := NewFASTAReader(strings.NewReader(">a\nAC\n>b\nACGT\n>c\nA\n"))
	fr.MaxSeq = 3
	recs, err = fr.ReadAll()
	if len(recs) != 1 || !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), `record "b"`) {
		t.Errorf("bounded: %d records, %v", len(recs), err)
	}
	if recs, err := NewFASTAReader(strings.NewReader("AC\n")).ReadAll(); len(recs) != 0 || err == nil {
		t.Errorf("no header: %v", err)
	}
}
