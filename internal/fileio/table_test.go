package fileio

import (
	"os"
	"path/filepath"
	"testing"
)

// A merged table keeps the earlier rows in order, replaces those of the
// new keys unless keepOld says otherwise, appends new keys, and replaces
// a table with another header.
func TestWriteMergedTable(t *testing.T) {
	path := filepath.Join(t.TempDir(), "summary.tsv")
	const head = "name\tstatus"
	row := func(k, status string) TableRow { return TableRow{Key: k, Line: k + "\t" + status} }
	if err := WriteMergedTable(path, head, []TableRow{row("a", "ok"), row("b", "failed")}, nil); err != nil {
		t.Fatal(err)
	}
	keepOK := func(old []string, r TableRow) bool { return old[1] == "ok" && r.Line == r.Key+"\tskipped" }
	if err := WriteMergedTable(path, head, []TableRow{row("c", "ok"), row("a", "skipped"), row("b", "ok")}, keepOK); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "name\tstatus\na\tok\nb\tok\nc\tok\n" {
		t.Errorf("merged table %q", b)
	}
	if err := WriteMergedTable(path, "other\theader", []TableRow{row("z", "ok")}, nil); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "other\theader\nz\tok\n" {
		t.Errorf("a table with another header was not replaced: %q", b)
	}
}
