//go:build amd64 && !purego

#include "textflag.h"

// func reluAVX512(v *float32, n int)
//
// v = max(v, 0) 16 floats at a time, the last block under a mask. VMAXPS
// returns its second source when the first is not greater (NaN, -0), so
// the order (v, 0) gives +0 for every element that is not positive.
TEXT ·reluAVX512(SB), NOSPLIT, $0-16
	MOVQ v+0(FP), DI
	MOVQ n+8(FP), CX
	VPXORD Z1, Z1, Z1

relufull:
	CMPQ CX, $16
	JLT relutail
	VMOVUPS (DI), Z0
	VMAXPS Z1, Z0, Z0
	VMOVUPS Z0, (DI)
	ADDQ $64, DI
	SUBQ $16, CX
	JMP relufull

relutail:
	TESTQ CX, CX
	JZ reludone
	MOVQ $1, AX
	SHLQ CX, AX
	DECQ AX
	KMOVW AX, K1
	VMOVUPS.Z (DI), K1, Z0
	VMAXPS Z1, Z0, Z0
	VMOVUPS Z0, K1, (DI)

reludone:
	VZEROUPPER
	RET

// func reluMaskAVX512(d, y *float32, n int)
//
// d = 0 where y is not positive (y > 0 false: the ordered compare
// greater-than, NaN false), 16 at a time, the last block under a mask.
TEXT ·reluMaskAVX512(SB), NOSPLIT, $0-24
	MOVQ d+0(FP), DI
	MOVQ y+8(FP), SI
	MOVQ n+16(FP), CX
	VPXORD Z1, Z1, Z1

maskfull:
	CMPQ CX, $16
	JLT masktail
	VMOVUPS (SI), Z0
	VCMPPS $0x1e, Z1, Z0, K2
	VMOVUPS.Z (DI), K2, Z2
	VMOVUPS Z2, (DI)
	ADDQ $64, DI
	ADDQ $64, SI
	SUBQ $16, CX
	JMP maskfull

masktail:
	TESTQ CX, CX
	JZ maskdone
	MOVQ $1, AX
	SHLQ CX, AX
	DECQ AX
	KMOVW AX, K1
	VMOVUPS.Z (SI), K1, Z0
	VCMPPS $0x1e, Z1, Z0, K1, K2
	VMOVUPS.Z (DI), K2, Z2
	VMOVUPS Z2, K1, (DI)

maskdone:
	VZEROUPPER
	RET
