// Package buildinfo names the code revision a binary was built from.
package buildinfo

import "runtime/debug"

// Revision names the code a model came from: the VCS revision the
// binary was built from (with "+dirty" for uncommitted changes), or
// "unknown" (e.g. under go test).
func Revision() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	rev, dirty := "", false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return "unknown"
	}
	if dirty {
		rev += "+dirty"
	}
	return rev
}
