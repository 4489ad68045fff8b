//go:build amd64 && !purego

package kern

// addRows in assembly (addrows_amd64.s): each call sums cnt rows into
// one block of o held in registers, loaded and stored once.

// addRowsAVX512Block adds to the 64 floats at o (the lanes whose bit is
// set in mask, 16 per vector) cnt rows at z, step floats apart. Lanes
// outside the mask are neither read nor written.
//
//go:noescape
func addRowsAVX512Block(o, z *float32, step, cnt int, mask uint64)

// addRowsAVX512Block16 is addRowsAVX512Block for the 16 floats at o,
// one vector (the low 16 bits of mask).
//
//go:noescape
func addRowsAVX512Block16(o, z *float32, step, cnt int, mask uint64)

// addRowsAVX2Block32 and addRowsAVX2Block8 are the same for 32 and 8
// floats, every lane.
//
//go:noescape
func addRowsAVX2Block32(o, z *float32, step, cnt int)

//go:noescape
func addRowsAVX2Block8(o, z *float32, step, cnt int)

// addRowsAVX512 is addRows in blocks of 64 floats, the last one masked.
func addRowsAVX512(o, z []float32, step, cnt int) {
	checkRows(o, z, step, cnt)
	if cnt <= 0 {
		return
	}
	for c := 0; c < len(o); c += 64 {
		m := len(o) - c
		switch {
		case m == 8:
			// One YMM, unmasked: a masked store followed by a masked load
			// of the same floats (the next kernel row's call) cannot be
			// forwarded and stalls; plain ones can.
			addRowsAVX2Block8(&o[c], &z[c], step, cnt)
		case m >= 64:
			addRowsAVX512Block(&o[c], &z[c], step, cnt, ^uint64(0))
		case m > 16:
			addRowsAVX512Block(&o[c], &z[c], step, cnt, 1<<m-1)
		default: // narrow layers (8 channels): one vector, not four
			addRowsAVX512Block16(&o[c], &z[c], step, cnt, 1<<m-1)
		}
	}
}

// addRowsAVX2 is addRows in blocks of 32, then 8 floats, the rest in Go.
func addRowsAVX2(o, z []float32, step, cnt int) {
	checkRows(o, z, step, cnt)
	if cnt <= 0 {
		return
	}
	c := 0
	for ; c+32 <= len(o); c += 32 {
		addRowsAVX2Block32(&o[c], &z[c], step, cnt)
	}
	for ; c+8 <= len(o); c += 8 {
		addRowsAVX2Block8(&o[c], &z[c], step, cnt)
	}
	if c < len(o) {
		addRowsGo(o[c:], z[c:], step, cnt)
	}
}
