//go:build amd64 && !purego

#include "textflag.h"

// func copyRunsAVX512(dst, src *float32, run, count, dstStride, srcStride int)
//
// For each of count runs: run floats from src to dst, 16 at a time, the
// last block under a mask (K1, the low run%16 bits, computed once); then
// dst += dstStride, src += srcStride (floats). run >= 1, count >= 1.
TEXT ·copyRunsAVX512(SB), NOSPLIT, $0-48
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ run+16(FP), DX
	MOVQ count+24(FP), BX
	MOVQ dstStride+32(FP), R8
	MOVQ srcStride+40(FP), R9
	SHLQ $2, R8
	SHLQ $2, R9
	// K1: the tail's mask; R10: the floats in full blocks.
	MOVQ DX, CX
	ANDQ $15, CX
	MOVQ $1, AX
	SHLQ CX, AX
	DECQ AX
	KMOVW AX, K1
	MOVQ DX, R10
	ANDQ $-16, R10

runloop:
	MOVQ DI, R11
	MOVQ SI, R12
	MOVQ R10, CX

full:
	CMPQ CX, $0
	JEQ tail
	VMOVUPS (R12), Z0
	VMOVUPS Z0, (R11)
	ADDQ $64, R11
	ADDQ $64, R12
	SUBQ $16, CX
	JMP full

tail:
	KORTESTW K1, K1
	JZ next
	VMOVUPS.Z (R12), K1, Z0
	VMOVUPS Z0, K1, (R11)

next:
	ADDQ R8, DI
	ADDQ R9, SI
	DECQ BX
	JNZ runloop
	VZEROUPPER
	RET

// func packRowsAVX512(dst, src *float32, run, count, width, srcStride int)
//
// For each of count rows: width/16 vectors stored at dst, vector v loaded
// from src + 16v under the mask of its columns below run (zero-masked:
// the columns at and past run store 0); then dst += width, src +=
// srcStride (floats). width a multiple of 16, 1 <= run <= width, count >= 1.
// A vector wholly past run loads nothing.
TEXT ·packRowsAVX512(SB), NOSPLIT, $0-48
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ run+16(FP), DX
	MOVQ count+24(FP), BX
	MOVQ width+32(FP), R8
	MOVQ srcStride+40(FP), R9
	SHLQ $2, R9
	SHRQ $4, R8 // vectors a row
	// R10: full vectors (run/16); K1: the partial vector's mask (run%16 bits).
	MOVQ DX, R10
	SHRQ $4, R10
	MOVQ DX, CX
	ANDQ $15, CX
	MOVQ $1, AX
	SHLQ CX, AX
	DECQ AX
	KMOVW AX, K1
	VPXORD Z1, Z1, Z1

rowloop:
	MOVQ SI, R12
	MOVQ R10, CX
	MOVQ R8, R11 // vectors left to store in this row

full:
	CMPQ CX, $0
	JEQ partial
	VMOVUPS (R12), Z0
	VMOVUPS Z0, (DI)
	ADDQ $64, R12
	ADDQ $64, DI
	DECQ R11
	DECQ CX
	JMP full

partial:
	CMPQ R11, $0
	JEQ next
	KORTESTW K1, K1
	JZ zeros
	VMOVUPS.Z (R12), K1, Z0
	VMOVUPS Z0, (DI)
	ADDQ $64, DI
	DECQ R11

zeros:
	CMPQ R11, $0
	JEQ next
	VMOVUPS Z1, (DI)
	ADDQ $64, DI
	DECQ R11
	JMP zeros

next:
	ADDQ R9, SI
	DECQ BX
	JNZ rowloop
	VZEROUPPER
	RET
