//go:build amd64 && !purego

#include "textflag.h"

// func axpyRowsF64AVX512(r *float64, x *float32, nx int, w *float32, cout, full int, mask uint64)
//
// AxpyRowsF64 (axpy.go) with 8 float64 lanes: for each nonzero x[q], r
// += x[q] * w row q in full chunks of 8, then the masked tail. VMULPD
// then VADDPD: the product is rounded before the add, as in Go.
TEXT ·axpyRowsF64AVX512(SB), NOSPLIT, $0-56
	MOVQ r+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ nx+16(FP), CX
	MOVQ w+24(FP), R8
	MOVQ cout+32(FP), R9
	SHLQ $2, R9
	MOVQ full+40(FP), R10
	MOVQ mask+48(FP), AX
	KMOVW AX, K1
	VXORPS X2, X2, X2
	TESTQ CX, CX
	JLE axpydone

axpyq:
	VMOVSS (SI), X0
	VUCOMISS X2, X0
	JNE axpyrow
	JP axpyrow
	JMP axpynext

axpyrow:
	VCVTSS2SD X0, X0, X0
	VBROADCASTSD X0, Z0
	MOVQ DI, R11
	MOVQ R8, R12
	MOVQ R10, R13
	TESTQ R13, R13
	JZ axpytail

axpychunk:
	VCVTPS2PD (R12), Z1
	VMULPD Z1, Z0, Z1
	VADDPD (R11), Z1, Z1
	VMOVUPD Z1, (R11)
	ADDQ $32, R12
	ADDQ $64, R11
	DECQ R13
	JNZ axpychunk

axpytail:
	KORTESTW K1, K1
	JZ axpynext
	VCVTPS2PD.Z (R12), K1, Z1
	VMULPD Z1, Z0, Z1
	VADDPD.Z (R11), Z1, K1, Z1
	VMOVUPD Z1, K1, (R11)

axpynext:
	ADDQ $4, SI
	ADDQ R9, R8
	DECQ CX
	JNZ axpyq

axpydone:
	VZEROUPPER
	RET
