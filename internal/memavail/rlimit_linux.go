package memavail

import "syscall"

// rlimit returns the soft limit of RLIMIT_AS (as) or RLIMIT_DATA; ok
// false where unlimited (RLIM_INFINITY) or unreadable.
func rlimit(as bool) (uint64, bool) {
	res := syscall.RLIMIT_DATA
	if as {
		res = syscall.RLIMIT_AS
	}
	var r syscall.Rlimit
	if err := syscall.Getrlimit(res, &r); err != nil || r.Cur == ^uint64(0) {
		return 0, false
	}
	return r.Cur, true
}
