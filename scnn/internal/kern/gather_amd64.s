//go:build amd64 && !purego

#include "textflag.h"

// func gatherRowsAVX512(dst *float32, ldr int, xs *float32, idx *int32, n, c int)
//
// For each block of 16 pixels (a masked one for the last n%16), the
// block's 16 offsets stay in Z1 while each channel ch is gathered from
// xs+ch (VGATHERDPS, scale 4) and stored at dst + ch*ldr.
TEXT ·gatherRowsAVX512(SB), NOSPLIT, $0-48
	MOVQ dst+0(FP), DI
	MOVQ ldr+8(FP), R8
	SHLQ $2, R8
	MOVQ xs+16(FP), SI
	MOVQ idx+24(FP), DX
	MOVQ n+32(FP), CX
	MOVQ c+40(FP), R9

block:
	CMPQ CX, $16
	JL   tail
	VMOVDQU32 (DX), Z1
	MOVQ SI, R10
	MOVQ DI, R11
	MOVQ R9, R12

channel:
	KXNORW K1, K1, K1
	VGATHERDPS (R10)(Z1*4), K1, Z0
	VMOVUPS Z0, (R11)
	ADDQ $4, R10
	ADDQ R8, R11
	DECQ R12
	JNZ  channel
	ADDQ $64, DX
	ADDQ $64, DI
	SUBQ $16, CX
	JMP  block

tail:
	TESTQ CX, CX
	JZ    done
	MOVL  $1, AX
	SHLL  CX, AX
	DECL  AX
	KMOVW AX, K2
	VPXORD Z1, Z1, Z1
	VMOVDQU32 (DX), K2, Z1
	MOVQ SI, R10
	MOVQ DI, R11
	MOVQ R9, R12

tailchannel:
	KMOVW K2, K1
	VPXORD Z0, Z0, Z0
	VGATHERDPS (R10)(Z1*4), K1, Z0
	VMOVUPS Z0, K2, (R11)
	ADDQ $4, R10
	ADDQ R8, R11
	DECQ R12
	JNZ  tailchannel

done:
	VZEROUPPER
	RET
