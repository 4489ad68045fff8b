package fileio

import (
	"fmt"
	"io"
	"os"
	"strings"
)

// TableRow is one row of a tab-separated table whose first field is its
// key: an input's name in a run's summary or manifest.
type TableRow struct {
	Key  string
	Line string // the whole row, tab-separated, Key first
}

// maxTable bounds the earlier table WriteMergedTable reads.
const maxTable = 256 << 20

// WriteMergedTable writes the table header, rows at path atomically,
// merged with the table already there, so that a run's record of earlier
// runs is not lost: the earlier rows (of a table with the same header)
// stay in their order, each replaced by the new row of its key unless
// keepOld(oldFields, row) says to keep it (a row of an input this run
// only skipped, say); the new keys follow in their order. An earlier
// table with another header, or one that cannot be read, is replaced.
func WriteMergedTable(path, header string, rows []TableRow, keepOld func(old []string, row TableRow) bool) error {
	var order []string
	lines := map[string]string{}
	if f, err := os.Open(path); err == nil {
		old, err := ReadText(f, maxTable, 1<<20)
		f.Close()
		ls := strings.Split(strings.TrimRight(string(old), "\n"), "\n")
		if err == nil && len(ls) > 1 && ls[0] == header {
			for _, l := range ls[1:] {
				key, _, _ := strings.Cut(l, "\t")
				if _, dup := lines[key]; !dup && key != "" {
					order = append(order, key)
				}
				lines[key] = l
			}
		}
	}
	for _, r := range rows {
		prev, had := lines[r.Key]
		if had && keepOld != nil && keepOld(strings.Split(prev, "\t"), r) {
			continue
		}
		if !had {
			order = append(order, r.Key)
		}
		lines[r.Key] = r.Line
	}
	return WriteAtomic(path, func(w io.Writer) error {
		if _, err := fmt.Fprintln(w, header); err != nil {
			return err
		}
		for _, k := range order {
			if _, err := fmt.Fprintln(w, lines[k]); err != nil {
				return err
			}
		}
		return nil
	})
}
