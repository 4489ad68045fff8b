// Package fileiotest provides readers for the tests of the project's
// bounded readers: inputs without an end, whose consumption they count.
package fileiotest

// Endless is a reader of Prefix, then endless copies of Fill (zero
// bytes where Fill is empty), counting in N the bytes it has given: a
// gzip bomb or a file of zeros, without the memory.
type Endless struct {
	Prefix, Fill string
	N            int64
}

func (r *Endless) Read(p []byte) (int, error) {
	n := copy(p, r.Prefix)
	r.Prefix = r.Prefix[n:]
	if r.Fill == "" {
		clear(p[n:])
		n = len(p)
	}
	for n < len(p) {
		n += copy(p[n:], r.Fill)
	}
	r.N += int64(n)
	return n, nil
}
