// Package shellquote writes command lines that a POSIX shell reads back as
// the same arguments, for the commands that reports print so that anyone
// can rerun them.
package shellquote

import "strings"

// Join writes args as a shell command line: an argument that is empty or
// holds a space or a shell metacharacter goes in single quotes, a single
// quote inside it written as an escaped quote between two quoted parts:
//
//	it's  ->  'it'\''s'
func Join(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		if a == "" || strings.ContainsAny(a, " \t\n'\"$*?[]{}();&|<>`\\~#!") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		q[i] = a
	}
	return strings.Join(q, " ")
}
