// Package cpuprofile writes a CPU profile of a whole process, for `go
// tool pprof` (runtime/pprof.StartCPUProfile): a command starts it from
// an environment variable naming the file (contactmap's
// CONTACTMAP_CPUPROFILE) and stops it before it exits.
package cpuprofile
