//go:build unix

package outset

import (
	"errors"
	"os"
	"syscall"
)

// alive reports whether process pid runs on this host: signal 0 checks
// without signalling; EPERM is a live process of another user's.
func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || !errors.Is(err, syscall.ESRCH)
}

// lockDirs takes an exclusive flock on each directory (sorted, so that
// two processes take them in one order) and returns what releases them.
// A directory that cannot be locked (a file system without flock) is
// used unlocked: the lock orders two writers' renames, it guards no data.
// The kernel releases the locks of a killed process.
func lockDirs(dirs []string) func() {
	var held []*os.File
	for _, d := range dirs {
		f, err := os.Open(d)
		if err != nil {
			continue
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
			f.Close()
			continue
		}
		held = append(held, f)
	}
	return func() {
		for _, f := range held {
			syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
			f.Close()
		}
	}
}
