// Package scnntest provides helpers for the tests of packages that read
// scnn parameter files: crafted files declaring shapes, and the bytes a
// read allocates.
package scnntest

import (
	"encoding/binary"
	"hash/crc32"
	"runtime"

	"github.com/contactmap/contactmap/scnn"
)

// AllocDuring is the bytes f allocates (TotalAlloc, which a collection
// does not lower).
func AllocDuring(f func()) uint64 {
	var a, b runtime.MemStats
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

// HeadersOnly is a parameter file (scnn.WriteParams's format) whose
// arrays declare shapes but hold no values, with a valid checksum: what a
// corrupt or hostile file declaring huge arrays looks like.
func HeadersOnly(record []byte, shapes []scnn.ParamShape) []byte {
	b := []byte("SCNNPRM\x00")
	b = binary.LittleEndian.AppendUint32(b, scnn.ParamsVersion)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(record)))
	b = append(b, record...)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(shapes)))
	for _, s := range shapes {
		b = binary.LittleEndian.AppendUint16(b, uint16(len(s.Name)))
		b = append(b, s.Name...)
		b = append(b, 1, byte(len(s.Shape)))
		for _, d := range s.Shape {
			b = binary.LittleEndian.AppendUint32(b, uint32(d))
		}
	}
	return binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
}
