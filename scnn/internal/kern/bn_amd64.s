//go:build amd64 && !purego

#include "textflag.h"

// The batchnorm loops of bn.go with AVX-512, per pixel: full chunks of
// 8 channels (float64 sums) or 16 (float32 outputs), then the rest under
// the mask K1. R11 is the chunk's byte offset into the float32 arrays
// (twice it into the float64 ones). Every operation is the one bn.go's
// loop does, in its order: multiply and add separately, no FMA.

// func bnVarSumsAVX512(acc, mean *float64, w, x *float32, n, c, lim int, mask uint64)
// lim: the byte offset after the full chunks (full*32).
TEXT ·bnVarSumsAVX512(SB), NOSPLIT, $0-64
	MOVQ acc+0(FP), DI
	MOVQ mean+8(FP), SI
	MOVQ w+16(FP), R8
	MOVQ x+24(FP), R9
	MOVQ n+32(FP), CX
	MOVQ c+40(FP), R10
	SHLQ $2, R10
	MOVQ lim+48(FP), DX
	MOVQ mask+56(FP), AX
	KMOVW AX, K1
	VXORPS X2, X2, X2

varq:
	VMOVSS (R8), X0
	VUCOMISS X2, X0
	JNE varrow
	JP varrow
	JMP varnext

varrow:
	VCVTSS2SD X0, X0, X0
	VBROADCASTSD X0, Z0
	XORQ R11, R11

varchunk:
	CMPQ R11, DX
	JGE vartail
	VCVTPS2PD (R9)(R11*1), Z1
	VSUBPD (SI)(R11*2), Z1, Z1
	VMULPD Z1, Z0, Z3
	VMULPD Z1, Z3, Z3
	VADDPD (DI)(R11*2), Z3, Z3
	VMOVUPD Z3, (DI)(R11*2)
	ADDQ $32, R11
	JMP varchunk

vartail:
	KORTESTW K1, K1
	JZ varnext
	VCVTPS2PD.Z (R9)(R11*1), K1, Z1
	VSUBPD.Z (SI)(R11*2), Z1, K1, Z1
	VMULPD Z1, Z0, Z3
	VMULPD Z1, Z3, Z3
	VADDPD.Z (DI)(R11*2), Z3, K1, Z3
	VMOVUPD Z3, K1, (DI)(R11*2)

varnext:
	ADDQ $4, R8
	ADDQ R10, R9
	DECQ CX
	JNZ varq
	VZEROUPPER
	RET

// func bnBackSumsAVX512(sdy, sdyxh *float64, w, dy, x, mean, inv *float32, n, c, lim int, mask uint64)
TEXT ·bnBackSumsAVX512(SB), NOSPLIT, $0-88
	MOVQ sdy+0(FP), DI
	MOVQ sdyxh+8(FP), SI
	MOVQ w+16(FP), R8
	MOVQ dy+24(FP), R9
	MOVQ x+32(FP), BX
	MOVQ mean+40(FP), R12
	MOVQ inv+48(FP), R13
	MOVQ n+56(FP), CX
	MOVQ c+64(FP), R10
	SHLQ $2, R10
	MOVQ lim+72(FP), DX
	MOVQ mask+80(FP), AX
	KMOVW AX, K1
	VXORPS X2, X2, X2

bsq:
	VMOVSS (R8), X0
	VUCOMISS X2, X0
	JNE bsrow
	JP bsrow
	JMP bsnext

bsrow:
	VCVTSS2SD X0, X0, X0
	VBROADCASTSD X0, Z0
	XORQ R11, R11

bschunk:
	CMPQ R11, DX
	JGE bstail
	VCVTPS2PD (R9)(R11*1), Z1
	VMULPD Z1, Z0, Z1
	VADDPD (DI)(R11*2), Z1, Z4
	VMOVUPD Z4, (DI)(R11*2)
	VMOVUPS (BX)(R11*1), Y5
	VSUBPS (R12)(R11*1), Y5, Y5
	VMULPS (R13)(R11*1), Y5, Y5
	VCVTPS2PD Y5, Z5
	VMULPD Z5, Z1, Z5
	VADDPD (SI)(R11*2), Z5, Z5
	VMOVUPD Z5, (SI)(R11*2)
	ADDQ $32, R11
	JMP bschunk

bstail:
	KORTESTW K1, K1
	JZ bsnext
	VCVTPS2PD.Z (R9)(R11*1), K1, Z1
	VMULPD Z1, Z0, Z1
	VADDPD.Z (DI)(R11*2), Z1, K1, Z4
	VMOVUPD Z4, K1, (DI)(R11*2)
	VMOVUPS.Z (BX)(R11*1), K1, Z5
	VSUBPS.Z (R12)(R11*1), Z5, K1, Z5
	VMULPS.Z (R13)(R11*1), Z5, K1, Z5
	VCVTPS2PD Y5, Z5
	VMULPD Z5, Z1, Z5
	VADDPD.Z (SI)(R11*2), Z5, K1, Z5
	VMOVUPD Z5, K1, (SI)(R11*2)

bsnext:
	ADDQ $4, R8
	ADDQ R10, R9
	ADDQ R10, BX
	DECQ CX
	JNZ bsq
	VZEROUPPER
	RET

// func bnApplyAVX512(out, x, w, gamma, beta, mean, inv *float32, n, c, lim int, mask uint64)
// lim: full*64 (chunks of 16).
TEXT ·bnApplyAVX512(SB), NOSPLIT, $0-88
	MOVQ out+0(FP), DI
	MOVQ x+8(FP), R9
	MOVQ w+16(FP), R8
	MOVQ gamma+24(FP), R12
	MOVQ beta+32(FP), R13
	MOVQ mean+40(FP), SI
	MOVQ inv+48(FP), BX
	MOVQ n+56(FP), CX
	MOVQ c+64(FP), R10
	SHLQ $2, R10
	MOVQ lim+72(FP), DX
	MOVQ mask+80(FP), AX
	KMOVW AX, K1
	VXORPS X2, X2, X2
	VPXORD Z6, Z6, Z6

apq:
	XORQ R11, R11
	VMOVSS (R8), X0
	VUCOMISS X2, X0
	JNE apchunk
	JP apchunk

apzero:
	CMPQ R11, DX
	JGE apzerotail
	VMOVUPS Z6, (DI)(R11*1)
	ADDQ $64, R11
	JMP apzero

apzerotail:
	VMOVUPS Z6, K1, (DI)(R11*1)
	JMP apnext

apchunk:
	CMPQ R11, DX
	JGE aptail
	VMOVUPS (R9)(R11*1), Z1
	VSUBPS (SI)(R11*1), Z1, Z1
	VMULPS (BX)(R11*1), Z1, Z1
	VMULPS (R12)(R11*1), Z1, Z1
	VADDPS (R13)(R11*1), Z1, Z1
	VMOVUPS Z1, (DI)(R11*1)
	ADDQ $64, R11
	JMP apchunk

aptail:
	VMOVUPS.Z (R9)(R11*1), K1, Z1
	VSUBPS.Z (SI)(R11*1), Z1, K1, Z1
	VMULPS.Z (BX)(R11*1), Z1, K1, Z1
	VMULPS.Z (R12)(R11*1), Z1, K1, Z1
	VADDPS.Z (R13)(R11*1), Z1, K1, Z1
	VMOVUPS Z1, K1, (DI)(R11*1)

apnext:
	ADDQ $4, R8
	ADDQ R10, R9
	ADDQ R10, DI
	DECQ CX
	JNZ apq
	VZEROUPPER
	RET

// func bnBackOutAVX512(dx, dy, x, w, scale, a, b, mean, inv *float32, n, c, lim int, mask uint64)
// lim: full*64 (chunks of 16).
TEXT ·bnBackOutAVX512(SB), NOSPLIT, $0-104
	MOVQ dx+0(FP), DI
	MOVQ dy+8(FP), SI
	MOVQ x+16(FP), R9
	MOVQ w+24(FP), R8
	MOVQ scale+32(FP), R12
	MOVQ a+40(FP), R13
	MOVQ b+48(FP), BX
	MOVQ mean+56(FP), DX
	MOVQ inv+64(FP), AX
	MOVQ n+72(FP), CX
	MOVQ c+80(FP), R10
	SHLQ $2, R10
	MOVQ mask+96(FP), R11
	KMOVW R11, K1
	VXORPS X7, X7, X7
	VPXORD Z6, Z6, Z6

boq:
	XORQ R11, R11
	VMOVSS (R8), X0
	VUCOMISS X7, X0
	JNE bochunk
	JP bochunk

bozero:
	CMPQ R11, lim+88(FP)
	JGE bozerotail
	VMOVUPS Z6, (DI)(R11*1)
	ADDQ $64, R11
	JMP bozero

bozerotail:
	VMOVUPS Z6, K1, (DI)(R11*1)
	JMP bonext

bochunk:
	CMPQ R11, lim+88(FP)
	JGE botail
	VMOVUPS (SI)(R11*1), Z1
	VSUBPS (R13)(R11*1), Z1, Z1
	VMOVUPS (R9)(R11*1), Z2
	VSUBPS (DX)(R11*1), Z2, Z2
	VMULPS (AX)(R11*1), Z2, Z2
	VMULPS (BX)(R11*1), Z2, Z2
	VSUBPS Z2, Z1, Z1
	VMULPS (R12)(R11*1), Z1, Z1
	VMOVUPS Z1, (DI)(R11*1)
	ADDQ $64, R11
	JMP bochunk

botail:
	VMOVUPS.Z (SI)(R11*1), K1, Z1
	VSUBPS.Z (R13)(R11*1), Z1, K1, Z1
	VMOVUPS.Z (R9)(R11*1), K1, Z2
	VSUBPS.Z (DX)(R11*1), Z2, K1, Z2
	VMULPS.Z (AX)(R11*1), Z2, K1, Z2
	VMULPS.Z (BX)(R11*1), Z2, K1, Z2
	VSUBPS Z2, Z1, Z1
	VMULPS.Z (R12)(R11*1), Z1, K1, Z1
	VMOVUPS Z1, K1, (DI)(R11*1)

bonext:
	ADDQ $4, R8
	ADDQ R10, SI
	ADDQ R10, R9
	ADDQ R10, DI
	DECQ CX
	JNZ boq
	VZEROUPPER
	RET
