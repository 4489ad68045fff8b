//go:build amd64

#include "textflag.h"

// The AMX instructions, which Go's assembler does not know, by their
// encodings (Intel SDM vol. 2, "LDTILECFG", "TILELOADD", "TDPBF16PS",
// "TILESTORED", "TILERELEASE", "TILEZERO"; VEX.128.0F38.W0).

// func tileDot(cfg *[64]byte, a, b *uint16, c *float32)
//
// C (16 x 16 float32) = A (16 x 32 bfloat16) times B (16 rows of 32
// bfloat16: 16 pairs by 16 columns), rows 64 bytes apart.
TEXT ·tileDot(SB), NOSPLIT, $0-32
	MOVQ cfg+0(FP), AX
	BYTE $0xC4; BYTE $0xE2; BYTE $0x78; BYTE $0x49; BYTE $0x00 // LDTILECFG (AX)
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DI
	MOVQ c+24(FP), DX
	MOVQ $64, CX
	BYTE $0xC4; BYTE $0xE2; BYTE $0x7B; BYTE $0x49; BYTE $0xC0 // TILEZERO tmm0
	BYTE $0xC4; BYTE $0xE2; BYTE $0x7B; BYTE $0x4B; BYTE $0x0C; BYTE $0x0E // TILELOADD tmm1, (SI)(CX*1)
	BYTE $0xC4; BYTE $0xE2; BYTE $0x7B; BYTE $0x4B; BYTE $0x14; BYTE $0x0F // TILELOADD tmm2, (DI)(CX*1)
	BYTE $0xC4; BYTE $0xE2; BYTE $0x6A; BYTE $0x5C; BYTE $0xC1 // TDPBF16PS tmm0, tmm1, tmm2
	BYTE $0xC4; BYTE $0xE2; BYTE $0x7A; BYTE $0x4B; BYTE $0x04; BYTE $0x0A // TILESTORED (DX)(CX*1), tmm0
	BYTE $0xC4; BYTE $0xE2; BYTE $0x78; BYTE $0x49; BYTE $0xC0 // TILERELEASE
	RET

// func tileLoop(cfg *[64]byte, a, b *uint16, c *float32, n int)
//
// n steps of two independent TDPBF16PS on the same operands (tmm0 and
// tmm3 accumulate), the first sum stored: the peak rate.
TEXT ·tileLoop(SB), NOSPLIT, $0-40
	MOVQ cfg+0(FP), AX
	BYTE $0xC4; BYTE $0xE2; BYTE $0x78; BYTE $0x49; BYTE $0x00 // LDTILECFG (AX)
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DI
	MOVQ c+24(FP), DX
	MOVQ n+32(FP), R8
	MOVQ $64, CX
	BYTE $0xC4; BYTE $0xE2; BYTE $0x7B; BYTE $0x49; BYTE $0xC0 // TILEZERO tmm0
	BYTE $0xC4; BYTE $0xE2; BYTE $0x7B; BYTE $0x49; BYTE $0xD8 // TILEZERO tmm3
	BYTE $0xC4; BYTE $0xE2; BYTE $0x7B; BYTE $0x4B; BYTE $0x0C; BYTE $0x0E // TILELOADD tmm1, (SI)(CX*1)
	BYTE $0xC4; BYTE $0xE2; BYTE $0x7B; BYTE $0x4B; BYTE $0x14; BYTE $0x0F // TILELOADD tmm2, (DI)(CX*1)

loop:
	BYTE $0xC4; BYTE $0xE2; BYTE $0x6A; BYTE $0x5C; BYTE $0xC1 // TDPBF16PS tmm0, tmm1, tmm2
	BYTE $0xC4; BYTE $0xE2; BYTE $0x6A; BYTE $0x5C; BYTE $0xD9 // TDPBF16PS tmm3, tmm1, tmm2
	DECQ R8
	JNZ  loop
	BYTE $0xC4; BYTE $0xE2; BYTE $0x7A; BYTE $0x4B; BYTE $0x04; BYTE $0x0A // TILESTORED (DX)(CX*1), tmm0
	BYTE $0xC4; BYTE $0xE2; BYTE $0x78; BYTE $0x49; BYTE $0xC0 // TILERELEASE
	RET
