//go:build !unix

package outset

// alive reports whether process pid may run: without a way to ask, every
// process may, and RemoveStale leaves its files.
func alive(pid int) bool { return true }

// lockDirs locks nothing where flock is not available.
func lockDirs(dirs []string) func() { return func() {} }
