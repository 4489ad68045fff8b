//go:build amd64 && !purego

#include "textflag.h"

// func mismatches64AVX512(a, b *byte, n, maxMis int) int
// mis := 0; for each 64-byte step (the last one under a mask of its
// n%64 bytes): mis += popcount(a[step] != b[step] bytewise); stop once
// mis > maxMis. Returns mis.
TEXT ·mismatches64AVX512(SB), NOSPLIT, $0-40
	MOVQ a+0(FP), SI
	MOVQ b+8(FP), DI
	MOVQ n+16(FP), CX
	MOVQ maxMis+24(FP), R8
	XORQ R9, R9

mis512step:
	CMPQ CX, $64
	JLT mis512tail
	VMOVDQU8 0(SI), Z0
	VPCMPUB $4, 0(DI), Z0, K1 // K1: the bytes where a != b
	KMOVQ K1, AX
	POPCNTQ AX, AX
	ADDQ AX, R9
	CMPQ R9, R8
	JGT mis512done
	ADDQ $64, SI
	ADDQ $64, DI
	SUBQ $64, CX
	JMP mis512step

mis512tail:
	TESTQ CX, CX
	JZ mis512done
	MOVQ $1, AX
	SHLQ CX, AX
	DECQ AX // the low n%64 bits
	KMOVQ AX, K2
	VMOVDQU8.Z 0(SI), K2, Z0 // masked loads: no byte past n is read
	VMOVDQU8.Z 0(DI), K2, Z1
	VPCMPUB $4, Z1, Z0, K2, K1
	KMOVQ K1, AX
	POPCNTQ AX, AX
	ADDQ AX, R9

mis512done:
	MOVQ R9, ret+32(FP)
	VZEROUPPER
	RET

// func mismatches32AVX2(a, b *byte, n, maxMis int) int
// The same in 32-byte steps over n bytes, n a multiple of 32.
TEXT ·mismatches32AVX2(SB), NOSPLIT, $0-40
	MOVQ a+0(FP), SI
	MOVQ b+8(FP), DI
	MOVQ n+16(FP), CX
	MOVQ maxMis+24(FP), R8
	XORQ R9, R9

mis2step:
	VMOVDQU 0(SI), Y0
	VPCMPEQB 0(DI), Y0, Y0 // 0xff where a == b
	VPMOVMSKB Y0, AX
	NOTL AX
	POPCNTL AX, AX
	ADDQ AX, R9
	CMPQ R9, R8
	JGT mis2done
	ADDQ $32, SI
	ADDQ $32, DI
	SUBQ $32, CX
	JNZ mis2step

mis2done:
	MOVQ R9, ret+32(FP)
	VZEROUPPER
	RET
