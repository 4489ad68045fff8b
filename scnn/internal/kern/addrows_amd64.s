//go:build amd64 && !purego

#include "textflag.h"

// func addRowsAVX512Block(o, z *float32, step, cnt int, mask uint64)
TEXT ·addRowsAVX512Block(SB), NOSPLIT, $0-40
	MOVQ o+0(FP), DI
	MOVQ z+8(FP), SI
	MOVQ step+16(FP), DX
	SHLQ $2, DX
	MOVQ cnt+24(FP), CX
	MOVQ mask+32(FP), R10
	KMOVW R10, K1
	SHRQ $16, R10
	KMOVW R10, K2
	SHRQ $16, R10
	KMOVW R10, K3
	SHRQ $16, R10
	KMOVW R10, K4
	VMOVUPS.Z 0(DI), K1, Z0
	VMOVUPS.Z 64(DI), K2, Z1
	VMOVUPS.Z 128(DI), K3, Z2
	VMOVUPS.Z 192(DI), K4, Z3
	TESTQ CX, CX
	JLE addRowsAVX512store

addRowsAVX512loop:
	VADDPS.Z 0(SI), Z0, K1, Z0
	VADDPS.Z 64(SI), Z1, K2, Z1
	VADDPS.Z 128(SI), Z2, K3, Z2
	VADDPS.Z 192(SI), Z3, K4, Z3
	ADDQ DX, SI
	DECQ CX
	JNZ addRowsAVX512loop

addRowsAVX512store:
	VMOVUPS Z0, K1, 0(DI)
	VMOVUPS Z1, K2, 64(DI)
	VMOVUPS Z2, K3, 128(DI)
	VMOVUPS Z3, K4, 192(DI)
	VZEROUPPER
	RET

// func addRowsAVX512Block16(o, z *float32, step, cnt int, mask uint64)
TEXT ·addRowsAVX512Block16(SB), NOSPLIT, $0-40
	MOVQ o+0(FP), DI
	MOVQ z+8(FP), SI
	MOVQ step+16(FP), DX
	SHLQ $2, DX
	MOVQ cnt+24(FP), CX
	MOVQ mask+32(FP), R10
	KMOVW R10, K1
	VMOVUPS.Z 0(DI), K1, Z0
	TESTQ CX, CX
	JLE addRowsAVX512x16store

addRowsAVX512x16loop:
	VADDPS.Z 0(SI), Z0, K1, Z0
	ADDQ DX, SI
	DECQ CX
	JNZ addRowsAVX512x16loop

addRowsAVX512x16store:
	VMOVUPS Z0, K1, 0(DI)
	VZEROUPPER
	RET

// func addRowsAVX2Block32(o, z *float32, step, cnt int)
TEXT ·addRowsAVX2Block32(SB), NOSPLIT, $0-32
	MOVQ o+0(FP), DI
	MOVQ z+8(FP), SI
	MOVQ step+16(FP), DX
	SHLQ $2, DX
	MOVQ cnt+24(FP), CX
	VMOVUPS 0(DI), Y0
	VMOVUPS 32(DI), Y1
	VMOVUPS 64(DI), Y2
	VMOVUPS 96(DI), Y3
	TESTQ CX, CX
	JLE addRowsAVX2x32store

addRowsAVX2x32loop:
	VADDPS 0(SI), Y0, Y0
	VADDPS 32(SI), Y1, Y1
	VADDPS 64(SI), Y2, Y2
	VADDPS 96(SI), Y3, Y3
	ADDQ DX, SI
	DECQ CX
	JNZ addRowsAVX2x32loop

addRowsAVX2x32store:
	VMOVUPS Y0, 0(DI)
	VMOVUPS Y1, 32(DI)
	VMOVUPS Y2, 64(DI)
	VMOVUPS Y3, 96(DI)
	VZEROUPPER
	RET

// func addRowsAVX2Block8(o, z *float32, step, cnt int)
TEXT ·addRowsAVX2Block8(SB), NOSPLIT, $0-32
	MOVQ o+0(FP), DI
	MOVQ z+8(FP), SI
	MOVQ step+16(FP), DX
	SHLQ $2, DX
	MOVQ cnt+24(FP), CX
	VMOVUPS 0(DI), Y0
	TESTQ CX, CX
	JLE addRowsAVX2x8store

addRowsAVX2x8loop:
	VADDPS 0(SI), Y0, Y0
	ADDQ DX, SI
	DECQ CX
	JNZ addRowsAVX2x8loop

addRowsAVX2x8store:
	VMOVUPS Y0, 0(DI)
	VZEROUPPER
	RET
