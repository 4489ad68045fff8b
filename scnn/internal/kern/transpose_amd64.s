//go:build amd64 && !purego

#include "textflag.h"
#include "chunkmask_amd64.h"

// func transposeRowsAVX512(dst *float32, ldr int, xs *float32, idx *int32, n, c int)
//
// gatherRows by 16 x 16 transpositions in registers: for each block of
// 16 pixels q0.. (idx[q0..q0+15] all valid offsets, n-q0 of them wanted)
// and each block of 16 channels ch0.. (a zero-masked load for the last
// c%16), the 16 pixels' channel vectors are loaded (Z0-Z15: pixel i in
// Z_i, lane j channel ch0+j) and transposed in four rounds of shuffles
// (32-bit and 64-bit interleaves within 128-bit lanes, then two rounds
// of 128-bit lane shuffles), after which Z_j holds channel ch0+j of the
// 16 pixels; it is stored at dst + (ch0+j)*ldr + q0, masked to the
// wanted pixels. 64 shuffles move 256 floats, where VGATHERDPS takes a
// load per float.
TEXT ·transposeRowsAVX512(SB), NOSPLIT, $0-48
	MOVQ dst+0(FP), DI
	MOVQ ldr+8(FP), R8
	SHLQ $2, R8
	MOVQ xs+16(FP), SI
	MOVQ idx+24(FP), DX
	MOVQ n+32(FP), R13
	MOVQ c+40(FP), R9

pixels:
	TESTQ R13, R13
	JLE   done
	// K2: the wanted pixels of this block, min(16, R13).
	CHUNK_MASK(R13)
	KMOVW K1, K2
	MOVQ  DI, R11 // dst row of channel ch0
	XORQ  R10, R10 // ch0 in bytes
	MOVQ  R9, R12 // channels left
channels:
	// K1: the channels of this block, min(16, R12).
	CHUNK_MASK(R12)
	MOVLQSX 0(DX), AX
	LEAQ    (SI)(AX*4), AX
	VMOVUPS.Z (AX)(R10*1), K1, Z0
	MOVLQSX 4(DX), AX
	LEAQ    (SI)(AX*4), AX
	VMOVUPS.Z (AX)(R10*1), K1, Z1
	MOVLQSX 8(DX), AX
	LEAQ    (SI)(AX*4), AX
	VMOVUPS.Z (AX)(R10*1), K1, Z2
	MOVLQSX 12(DX), AX
	LEAQ    (SI)(AX*4), AX
	VMOVUPS.Z (AX)(R10*1), K1, Z3
	MOVLQSX 16(DX), AX
	LEAQ    (SI)(AX*4), AX
	VMOVUPS.Z (AX)(R10*1), K1, Z4
	MOVLQSX 20(DX), AX
	LEAQ    (SI)(AX*4), AX
	VMOVUPS.Z (AX)(R10*1), K1, Z5
	MOVLQSX 24(DX), AX
	LEAQ    (SI)(AX*4), AX
	VMOVUPS.Z (AX)(R10*1), K1, Z6
	MOVLQSX 28(DX), AX
	LEAQ    (SI)(AX*4), AX
	VMOVUPS.Z (AX)(R10*1), K1, Z7
	MOVLQSX 32(DX), AX
	LEAQ    (SI)(AX*4), AX
	VMOVUPS.Z (AX)(R10*1), K1, Z8
	MOVLQSX 36(DX), AX
	LEAQ    (SI)(AX*4), AX
	VMOVUPS.Z (AX)(R10*1), K1, Z9
	MOVLQSX 40(DX), AX
	LEAQ    (SI)(AX*4), AX
	VMOVUPS.Z (AX)(R10*1), K1, Z10
	MOVLQSX 44(DX), AX
	LEAQ    (SI)(AX*4), AX
	VMOVUPS.Z (AX)(R10*1), K1, Z11
	MOVLQSX 48(DX), AX
	LEAQ    (SI)(AX*4), AX
	VMOVUPS.Z (AX)(R10*1), K1, Z12
	MOVLQSX 52(DX), AX
	LEAQ    (SI)(AX*4), AX
	VMOVUPS.Z (AX)(R10*1), K1, Z13
	MOVLQSX 56(DX), AX
	LEAQ    (SI)(AX*4), AX
	VMOVUPS.Z (AX)(R10*1), K1, Z14
	MOVLQSX 60(DX), AX
	LEAQ    (SI)(AX*4), AX
	VMOVUPS.Z (AX)(R10*1), K1, Z15
	// Round 1: 32-bit interleaves of pixel pairs.
	VUNPCKLPS Z1, Z0, Z16
	VUNPCKHPS Z1, Z0, Z17
	VUNPCKLPS Z3, Z2, Z18
	VUNPCKHPS Z3, Z2, Z19
	VUNPCKLPS Z5, Z4, Z20
	VUNPCKHPS Z5, Z4, Z21
	VUNPCKLPS Z7, Z6, Z22
	VUNPCKHPS Z7, Z6, Z23
	VUNPCKLPS Z9, Z8, Z24
	VUNPCKHPS Z9, Z8, Z25
	VUNPCKLPS Z11, Z10, Z26
	VUNPCKHPS Z11, Z10, Z27
	VUNPCKLPS Z13, Z12, Z28
	VUNPCKHPS Z13, Z12, Z29
	VUNPCKLPS Z15, Z14, Z30
	VUNPCKHPS Z15, Z14, Z31
	// Round 2: Z(4g+e), lane l = channel 4l+e of pixels 4g..4g+3.
	VSHUFPS $0x44, Z18, Z16, Z0
	VSHUFPS $0xEE, Z18, Z16, Z1
	VSHUFPS $0x44, Z19, Z17, Z2
	VSHUFPS $0xEE, Z19, Z17, Z3
	VSHUFPS $0x44, Z22, Z20, Z4
	VSHUFPS $0xEE, Z22, Z20, Z5
	VSHUFPS $0x44, Z23, Z21, Z6
	VSHUFPS $0xEE, Z23, Z21, Z7
	VSHUFPS $0x44, Z26, Z24, Z8
	VSHUFPS $0xEE, Z26, Z24, Z9
	VSHUFPS $0x44, Z27, Z25, Z10
	VSHUFPS $0xEE, Z27, Z25, Z11
	VSHUFPS $0x44, Z30, Z28, Z12
	VSHUFPS $0xEE, Z30, Z28, Z13
	VSHUFPS $0x44, Z31, Z29, Z14
	VSHUFPS $0xEE, Z31, Z29, Z15
	// Round 3: lanes 0 and 2 (1 and 3) of pixel groups 0 and 1 (2 and 3).
	VSHUFF32X4 $0x88, Z4, Z0, Z16
	VSHUFF32X4 $0xDD, Z4, Z0, Z17
	VSHUFF32X4 $0x88, Z12, Z8, Z18
	VSHUFF32X4 $0xDD, Z12, Z8, Z19
	VSHUFF32X4 $0x88, Z5, Z1, Z20
	VSHUFF32X4 $0xDD, Z5, Z1, Z21
	VSHUFF32X4 $0x88, Z13, Z9, Z22
	VSHUFF32X4 $0xDD, Z13, Z9, Z23
	VSHUFF32X4 $0x88, Z6, Z2, Z24
	VSHUFF32X4 $0xDD, Z6, Z2, Z25
	VSHUFF32X4 $0x88, Z14, Z10, Z26
	VSHUFF32X4 $0xDD, Z14, Z10, Z27
	VSHUFF32X4 $0x88, Z7, Z3, Z28
	VSHUFF32X4 $0xDD, Z7, Z3, Z29
	VSHUFF32X4 $0x88, Z15, Z11, Z30
	VSHUFF32X4 $0xDD, Z15, Z11, Z31
	// Round 4: Z_j = channel ch0+j of the 16 pixels.
	VSHUFF32X4 $0x88, Z18, Z16, Z0
	VSHUFF32X4 $0xDD, Z18, Z16, Z8
	VSHUFF32X4 $0x88, Z19, Z17, Z4
	VSHUFF32X4 $0xDD, Z19, Z17, Z12
	VSHUFF32X4 $0x88, Z22, Z20, Z1
	VSHUFF32X4 $0xDD, Z22, Z20, Z9
	VSHUFF32X4 $0x88, Z23, Z21, Z5
	VSHUFF32X4 $0xDD, Z23, Z21, Z13
	VSHUFF32X4 $0x88, Z26, Z24, Z2
	VSHUFF32X4 $0xDD, Z26, Z24, Z10
	VSHUFF32X4 $0x88, Z27, Z25, Z6
	VSHUFF32X4 $0xDD, Z27, Z25, Z14
	VSHUFF32X4 $0x88, Z30, Z28, Z3
	VSHUFF32X4 $0xDD, Z30, Z28, Z11
	VSHUFF32X4 $0x88, Z31, Z29, Z7
	VSHUFF32X4 $0xDD, Z31, Z29, Z15
	CMPQ R12, $16
	JL   partial
	VMOVUPS Z0, K2, (R11)
	ADDQ R8, R11
	VMOVUPS Z1, K2, (R11)
	ADDQ R8, R11
	VMOVUPS Z2, K2, (R11)
	ADDQ R8, R11
	VMOVUPS Z3, K2, (R11)
	ADDQ R8, R11
	VMOVUPS Z4, K2, (R11)
	ADDQ R8, R11
	VMOVUPS Z5, K2, (R11)
	ADDQ R8, R11
	VMOVUPS Z6, K2, (R11)
	ADDQ R8, R11
	VMOVUPS Z7, K2, (R11)
	ADDQ R8, R11
	VMOVUPS Z8, K2, (R11)
	ADDQ R8, R11
	VMOVUPS Z9, K2, (R11)
	ADDQ R8, R11
	VMOVUPS Z10, K2, (R11)
	ADDQ R8, R11
	VMOVUPS Z11, K2, (R11)
	ADDQ R8, R11
	VMOVUPS Z12, K2, (R11)
	ADDQ R8, R11
	VMOVUPS Z13, K2, (R11)
	ADDQ R8, R11
	VMOVUPS Z14, K2, (R11)
	ADDQ R8, R11
	VMOVUPS Z15, K2, (R11)
	ADDQ R8, R11
	ADDQ $64, R10
	SUBQ $16, R12
	JNZ  channels
	JMP  nextpixels
partial:
	// The last c%16 channels: R12 stores.
	VMOVUPS Z0, K2, (R11)
	ADDQ R8, R11
	DECQ R12
	JZ   nextpixels
	VMOVUPS Z1, K2, (R11)
	ADDQ R8, R11
	DECQ R12
	JZ   nextpixels
	VMOVUPS Z2, K2, (R11)
	ADDQ R8, R11
	DECQ R12
	JZ   nextpixels
	VMOVUPS Z3, K2, (R11)
	ADDQ R8, R11
	DECQ R12
	JZ   nextpixels
	VMOVUPS Z4, K2, (R11)
	ADDQ R8, R11
	DECQ R12
	JZ   nextpixels
	VMOVUPS Z5, K2, (R11)
	ADDQ R8, R11
	DECQ R12
	JZ   nextpixels
	VMOVUPS Z6, K2, (R11)
	ADDQ R8, R11
	DECQ R12
	JZ   nextpixels
	VMOVUPS Z7, K2, (R11)
	ADDQ R8, R11
	DECQ R12
	JZ   nextpixels
	VMOVUPS Z8, K2, (R11)
	ADDQ R8, R11
	DECQ R12
	JZ   nextpixels
	VMOVUPS Z9, K2, (R11)
	ADDQ R8, R11
	DECQ R12
	JZ   nextpixels
	VMOVUPS Z10, K2, (R11)
	ADDQ R8, R11
	DECQ R12
	JZ   nextpixels
	VMOVUPS Z11, K2, (R11)
	ADDQ R8, R11
	DECQ R12
	JZ   nextpixels
	VMOVUPS Z12, K2, (R11)
	ADDQ R8, R11
	DECQ R12
	JZ   nextpixels
	VMOVUPS Z13, K2, (R11)
	ADDQ R8, R11
	DECQ R12
	JZ   nextpixels
	VMOVUPS Z14, K2, (R11)
	ADDQ R8, R11
	DECQ R12
	JZ   nextpixels
	VMOVUPS Z15, K2, (R11)
	ADDQ R8, R11
	DECQ R12
	JZ   nextpixels
nextpixels:
	ADDQ $64, DX
	ADDQ $64, DI
	SUBQ $16, R13
	JMP  pixels
done:
	VZEROUPPER
	RET

// func minMaxInt32AVX512(v *int32, n int) (lo, hi int32)
//
// The least and the greatest of v[0..n-1], n >= 1: 16 lanes at a time,
// the last block under a mask (its other lanes keep the first value).
TEXT ·minMaxInt32AVX512(SB), NOSPLIT, $0-24
	MOVQ v+0(FP), SI
	MOVQ n+8(FP), R13
	VPBROADCASTD (SI), Z0 // running minima
	VMOVDQA32 Z0, Z1      // running maxima

mmblock:
	CHUNK_MASK(R13)
	VMOVDQA32 Z0, Z2
	VMOVDQU32 (SI), K1, Z2 // lanes past n keep v[0]
	VPMINSD Z2, Z0, Z0
	VPMAXSD Z2, Z1, Z1
	ADDQ $64, SI
	SUBQ $16, R13
	JG   mmblock

	// Reduce the 16 lanes: halves, quarters, pairs, lanes.
	VEXTRACTI64X4 $1, Z0, Y2
	VPMINSD Y2, Y0, Y0
	VEXTRACTI64X4 $1, Z1, Y3
	VPMAXSD Y3, Y1, Y1
	VEXTRACTI128 $1, Y0, X2
	VPMINSD X2, X0, X0
	VEXTRACTI128 $1, Y1, X3
	VPMAXSD X3, X1, X1
	VPSHUFD $0x4E, X0, X2
	VPMINSD X2, X0, X0
	VPSHUFD $0x4E, X1, X3
	VPMAXSD X3, X1, X1
	VPSHUFD $0xB1, X0, X2
	VPMINSD X2, X0, X0
	VPSHUFD $0xB1, X1, X3
	VPMAXSD X3, X1, X1
	VMOVD X0, AX
	MOVL AX, lo+16(FP)
	VMOVD X1, AX
	MOVL AX, hi+20(FP)
	VZEROUPPER
	RET
