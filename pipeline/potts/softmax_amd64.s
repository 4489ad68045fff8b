//go:build amd64 && !purego

#include "textflag.h"

// expNonPos's Taylor coefficients, 1/13! down to 1/2!, then 1.
DATA expcoef<>+0(SB)/8, $0x3de6124613a86d09 // 1/13!
DATA expcoef<>+8(SB)/8, $0x3e21eed8eff8d898 // 1/12!
DATA expcoef<>+16(SB)/8, $0x3e5ae64567f544e4 // 1/11!
DATA expcoef<>+24(SB)/8, $0x3e927e4fb7789f5c // 1/10!
DATA expcoef<>+32(SB)/8, $0x3ec71de3a556c734 // 1/9!
DATA expcoef<>+40(SB)/8, $0x3efa01a01a01a01a // 1/8!
DATA expcoef<>+48(SB)/8, $0x3f2a01a01a01a01a // 1/7!
DATA expcoef<>+56(SB)/8, $0x3f56c16c16c16c17 // 1/6!
DATA expcoef<>+64(SB)/8, $0x3f81111111111111 // 1/5!
DATA expcoef<>+72(SB)/8, $0x3fa5555555555555 // 1/4!
DATA expcoef<>+80(SB)/8, $0x3fc5555555555555 // 1/3!
DATA expcoef<>+88(SB)/8, $0x3fe0000000000000 // 1/2!
DATA expcoef<>+96(SB)/8, $0x3ff0000000000000 // 1
GLOBL expcoef<>(SB), RODATA|NOPTR, $104

// expNonPos's constants: 1/ln 2, 1.5 * 2^52, ln 2 (high and low parts),
// the floor -708, and the exponent bias 1023 (an integer).
DATA expconst<>+0(SB)/8, $0x3ff71547652b82fe // 1/ln 2
DATA expconst<>+8(SB)/8, $0x4338000000000000 // 1.5 * 2^52
DATA expconst<>+16(SB)/8, $0x3fe62e42fee00000 // ln 2 high
DATA expconst<>+24(SB)/8, $0x3dea39ef35793c76 // ln 2 low
DATA expconst<>+32(SB)/8, $0xc086200000000000 // -708
DATA expconst<>+40(SB)/8, $1023 // bias
GLOBL expconst<>(SB), RODATA|NOPTR, $48

// The lane numbers 0-23, as 64-bit integers.
DATA lanenum<>+0(SB)/8, $0
DATA lanenum<>+8(SB)/8, $1
DATA lanenum<>+16(SB)/8, $2
DATA lanenum<>+24(SB)/8, $3
DATA lanenum<>+32(SB)/8, $4
DATA lanenum<>+40(SB)/8, $5
DATA lanenum<>+48(SB)/8, $6
DATA lanenum<>+56(SB)/8, $7
DATA lanenum<>+64(SB)/8, $8
DATA lanenum<>+72(SB)/8, $9
DATA lanenum<>+80(SB)/8, $10
DATA lanenum<>+88(SB)/8, $11
DATA lanenum<>+96(SB)/8, $12
DATA lanenum<>+104(SB)/8, $13
DATA lanenum<>+112(SB)/8, $14
DATA lanenum<>+120(SB)/8, $15
DATA lanenum<>+128(SB)/8, $16
DATA lanenum<>+136(SB)/8, $17
DATA lanenum<>+144(SB)/8, $18
DATA lanenum<>+152(SB)/8, $19
DATA lanenum<>+160(SB)/8, $20
DATA lanenum<>+168(SB)/8, $21
DATA lanenum<>+176(SB)/8, $22
DATA lanenum<>+184(SB)/8, $23
GLOBL lanenum<>(SB), RODATA|NOPTR, $192
// func softmaxColumnAVX512(eb *float64, xs *uint8, ws *float64, zd *float64, gh *float64, n int)
// softmaxColumnGo (softmax.go) in three ZMM registers a sequence: the
// same operations, the same rounding, the same order of sums. n >= 1.
TEXT ·softmaxColumnAVX512(SB), NOSPLIT, $0-48
	MOVQ eb+0(FP), DI
	MOVQ xs+8(FP), BX
	MOVQ ws+16(FP), SI
	MOVQ zd+24(FP), R11
	MOVQ gh+32(FP), R12
	MOVQ n+40(FP), CX

	VBROADCASTSD expconst<>+0(SB), Z16  // 1/ln 2
	VBROADCASTSD expconst<>+8(SB), Z17  // 1.5 * 2^52
	VBROADCASTSD expconst<>+16(SB), Z18 // ln 2 high
	VBROADCASTSD expconst<>+24(SB), Z19 // ln 2 low
	VBROADCASTSD expconst<>+32(SB), Z20 // -708
	VPBROADCASTQ expconst<>+40(SB), Z21 // 1023
	VMOVDQU64 lanenum<>+0(SB), Z22
	VMOVDQU64 lanenum<>+64(SB), Z23
	VMOVDQU64 lanenum<>+128(SB), Z24
	VPXORQ Z25, Z25, Z25 // +0 (AVX512F alone, like every instruction here)
	MOVQ $0x1f, AX
	KMOVW AX, K7 // lanes 16-20 of a sequence: the third vector's states
	KNOTW K7, K6 // its padding lanes 21-23
	VMOVUPD 0(R12), Z29
	VMOVUPD 64(R12), Z30
	VMOVUPD 128(R12), Z31

softmaxseq:
	VMOVUPD 0(DI), Z0
	VMOVUPD 64(DI), Z1
	VMOVUPD 128(DI), Z2
	MOVBQZX 0(BX), AX
	VMOVSD 0(DI)(AX*8), X3

	// mx = max over lanes 0-20, +0 for a zero of either sign.
	VMAXPD Z1, Z0, Z4
	VMAXPD Z2, Z4, K7, Z4
	VEXTRACTF64X4 $1, Z4, Y5
	VMAXPD Y5, Y4, Y4
	VEXTRACTF128 $1, Y4, X5
	VMAXPD X5, X4, X4
	VPERMILPD $1, X4, X5
	VMAXSD X5, X4, X4
	VADDSD X25, X4, X4
	VSUBSD X4, X3, X3 // d = E(x) - mx
	VMOVSD X3, 8(R11)
	VBROADCASTSD X4, Z4
	VSUBPD Z4, Z0, Z0
	VSUBPD Z4, Z1, Z1
	VSUBPD Z4, Z2, Z2

	// u = expNonPos(E - mx): K1-K3 the lanes below the floor, and the
	// padding, set to 0 at the end.
	VCMPPD $1, Z20, Z0, K1
	VCMPPD $1, Z20, Z1, K2
	VCMPPD $1, Z20, Z2, K3
	KORW K6, K3, K3
	VMULPD Z16, Z0, Z3
	VMULPD Z16, Z1, Z5
	VMULPD Z16, Z2, Z6
	VADDPD Z17, Z3, Z3 // t
	VADDPD Z17, Z5, Z5
	VADDPD Z17, Z6, Z6
	VSUBPD Z17, Z3, Z7 // k
	VSUBPD Z17, Z5, Z8
	VSUBPD Z17, Z6, Z9
	VMOVAPD Z0, Z10
	VMOVAPD Z1, Z11
	VMOVAPD Z2, Z12
	VFNMADD231PD Z18, Z7, Z10 // r = x - k ln2hi
	VFNMADD231PD Z18, Z8, Z11
	VFNMADD231PD Z18, Z9, Z12
	VFNMADD231PD Z19, Z7, Z10 // r -= k ln2lo
	VFNMADD231PD Z19, Z8, Z11
	VFNMADD231PD Z19, Z9, Z12
	VBROADCASTSD expcoef<>+0(SB), Z13
	VMOVAPD Z13, Z14
	VMOVAPD Z13, Z15
	VFMADD213PD.BCST expcoef<>+8(SB), Z10, Z13
	VFMADD213PD.BCST expcoef<>+8(SB), Z11, Z14
	VFMADD213PD.BCST expcoef<>+8(SB), Z12, Z15
	VFMADD213PD.BCST expcoef<>+16(SB), Z10, Z13
	VFMADD213PD.BCST expcoef<>+16(SB), Z11, Z14
	VFMADD213PD.BCST expcoef<>+16(SB), Z12, Z15
	VFMADD213PD.BCST expcoef<>+24(SB), Z10, Z13
	VFMADD213PD.BCST expcoef<>+24(SB), Z11, Z14
	VFMADD213PD.BCST expcoef<>+24(SB), Z12, Z15
	VFMADD213PD.BCST expcoef<>+32(SB), Z10, Z13
	VFMADD213PD.BCST expcoef<>+32(SB), Z11, Z14
	VFMADD213PD.BCST expcoef<>+32(SB), Z12, Z15
	VFMADD213PD.BCST expcoef<>+40(SB), Z10, Z13
	VFMADD213PD.BCST expcoef<>+40(SB), Z11, Z14
	VFMADD213PD.BCST expcoef<>+40(SB), Z12, Z15
	VFMADD213PD.BCST expcoef<>+48(SB), Z10, Z13
	VFMADD213PD.BCST expcoef<>+48(SB), Z11, Z14
	VFMADD213PD.BCST expcoef<>+48(SB), Z12, Z15
	VFMADD213PD.BCST expcoef<>+56(SB), Z10, Z13
	VFMADD213PD.BCST expcoef<>+56(SB), Z11, Z14
	VFMADD213PD.BCST expcoef<>+56(SB), Z12, Z15
	VFMADD213PD.BCST expcoef<>+64(SB), Z10, Z13
	VFMADD213PD.BCST expcoef<>+64(SB), Z11, Z14
	VFMADD213PD.BCST expcoef<>+64(SB), Z12, Z15
	VFMADD213PD.BCST expcoef<>+72(SB), Z10, Z13
	VFMADD213PD.BCST expcoef<>+72(SB), Z11, Z14
	VFMADD213PD.BCST expcoef<>+72(SB), Z12, Z15
	VFMADD213PD.BCST expcoef<>+80(SB), Z10, Z13
	VFMADD213PD.BCST expcoef<>+80(SB), Z11, Z14
	VFMADD213PD.BCST expcoef<>+80(SB), Z12, Z15
	VFMADD213PD.BCST expcoef<>+88(SB), Z10, Z13
	VFMADD213PD.BCST expcoef<>+88(SB), Z11, Z14
	VFMADD213PD.BCST expcoef<>+88(SB), Z12, Z15
	VFMADD213PD.BCST expcoef<>+96(SB), Z10, Z13
	VFMADD213PD.BCST expcoef<>+96(SB), Z11, Z14
	VFMADD213PD.BCST expcoef<>+96(SB), Z12, Z15
	VFMADD213PD.BCST expcoef<>+96(SB), Z10, Z13
	VFMADD213PD.BCST expcoef<>+96(SB), Z11, Z14
	VFMADD213PD.BCST expcoef<>+96(SB), Z12, Z15
	VPADDQ Z21, Z3, Z3 // 2^k
	VPADDQ Z21, Z5, Z5
	VPADDQ Z21, Z6, Z6
	VPSLLQ $52, Z3, Z3
	VPSLLQ $52, Z5, Z5
	VPSLLQ $52, Z6, Z6
	VMULPD Z3, Z13, Z0
	VMULPD Z5, Z14, Z1
	VMULPD Z6, Z15, Z2
	VPXORQ Z0, Z0, K1, Z0
	VPXORQ Z1, Z1, K2, Z1
	VPXORQ Z2, Z2, K3, Z2

	// z = sumLanes(u)
	VADDPD Z1, Z0, Z3
	VADDPD Z2, Z3, Z3
	VEXTRACTF64X4 $1, Z3, Y5
	VADDPD Y5, Y3, Y3
	VEXTRACTF128 $1, Y3, X5
	VADDPD X5, X3, X3
	VPERMILPD $1, X3, X5
	VADDSD X5, X3, X3
	VMOVSD X3, 0(R11)

	// r = u * (w / z) - w [a == x]
	VMOVSD 0(SI), X5
	VDIVSD X3, X5, X6
	VBROADCASTSD X6, Z6
	VMULPD Z6, Z0, Z0
	VMULPD Z6, Z1, Z1
	VMULPD Z6, Z2, Z2
	VPBROADCASTQ AX, Z7
	VPCMPEQQ Z22, Z7, K1
	VPCMPEQQ Z23, Z7, K2
	VPCMPEQQ Z24, Z7, K3
	VBROADCASTSD X5, Z8
	VSUBPD Z8, Z0, K1, Z0
	VSUBPD Z8, Z1, K2, Z1
	VSUBPD Z8, Z2, K3, Z2
	VMOVUPD Z0, 0(DI)
	VMOVUPD Z1, 64(DI)
	VMOVUPD Z2, 128(DI)
	VADDPD Z0, Z29, Z29
	VADDPD Z1, Z30, Z30
	VADDPD Z2, Z31, Z31

	ADDQ $192, DI
	INCQ BX
	ADDQ $8, SI
	ADDQ $16, R11
	DECQ CX
	JNZ softmaxseq

	VMOVUPD Z29, 0(R12)
	VMOVUPD Z30, 64(R12)
	VMOVUPD Z31, 128(R12)
	VZEROUPPER
	RET
