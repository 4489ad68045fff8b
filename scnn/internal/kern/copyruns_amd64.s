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
