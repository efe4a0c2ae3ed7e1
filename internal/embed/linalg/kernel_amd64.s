//go:build amd64 && !purego

#include "textflag.h"

// One step of the 6×16 tile: two YMM loads of the B panel, then for each
// of the six rows of A a broadcast of its value for this step and two FMAs
// into that row's pair of accumulators (Y0..Y11). Rows 0..2 of A are at
// SI, SI+R12 and SI+2·R12, rows 3..5 at R13, R13+R12 and R13+2·R12; ao and
// bo are the step's byte offsets into A's rows and into the B panel (DI).
#define STEP(ao, bo) \
	VMOVUPS bo(DI), Y12; \
	VMOVUPS bo+32(DI), Y13; \
	VBROADCASTSS ao(SI), Y14; \
	VFMADD231PS Y12, Y14, Y0; \
	VFMADD231PS Y13, Y14, Y1; \
	VBROADCASTSS ao(SI)(R12*1), Y15; \
	VFMADD231PS Y12, Y15, Y2; \
	VFMADD231PS Y13, Y15, Y3; \
	VBROADCASTSS ao(SI)(R12*2), Y14; \
	VFMADD231PS Y12, Y14, Y4; \
	VFMADD231PS Y13, Y14, Y5; \
	VBROADCASTSS ao(R13), Y15; \
	VFMADD231PS Y12, Y15, Y6; \
	VFMADD231PS Y13, Y15, Y7; \
	VBROADCASTSS ao(R13)(R12*1), Y14; \
	VFMADD231PS Y12, Y14, Y8; \
	VFMADD231PS Y13, Y14, Y9; \
	VBROADCASTSS ao(R13)(R12*2), Y15; \
	VFMADD231PS Y12, Y15, Y10; \
	VFMADD231PS Y13, Y15, Y11

// func kernel6x16AVX2(kc int, a *float32, lda int, b, c *float32, ldc int, init *float32, ldi int)
TEXT ·kernel6x16AVX2(SB), NOSPLIT, $0-64
	MOVQ kc+0(FP), CX
	MOVQ a+8(FP), SI
	MOVQ lda+16(FP), R12
	MOVQ b+24(FP), DI
	MOVQ c+32(FP), DX
	MOVQ ldc+40(FP), R8
	MOVQ init+48(FP), R9
	MOVQ ldi+56(FP), R10
	SHLQ $2, R12
	SHLQ $2, R8
	SHLQ $2, R10
	LEAQ (R12)(R12*2), R13
	ADDQ SI, R13

	TESTQ R9, R9
	JZ    zero

	// Rows 0..2 of init from R9, rows 3..5 from R11 = R9 + 3·ldi.
	LEAQ    (R10)(R10*2), R11
	ADDQ    R9, R11
	VMOVUPS (R9), Y0
	VMOVUPS 32(R9), Y1
	VMOVUPS (R9)(R10*1), Y2
	VMOVUPS 32(R9)(R10*1), Y3
	VMOVUPS (R9)(R10*2), Y4
	VMOVUPS 32(R9)(R10*2), Y5
	VMOVUPS (R11), Y6
	VMOVUPS 32(R11), Y7
	VMOVUPS (R11)(R10*1), Y8
	VMOVUPS 32(R11)(R10*1), Y9
	VMOVUPS (R11)(R10*2), Y10
	VMOVUPS 32(R11)(R10*2), Y11
	JMP     steps

zero:
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	VXORPS Y8, Y8, Y8
	VXORPS Y9, Y9, Y9
	VXORPS Y10, Y10, Y10
	VXORPS Y11, Y11, Y11

steps:
	// BX counts groups of four steps, CX the one to three left over.
	MOVQ CX, BX
	SHRQ $2, BX
	ANDQ $3, CX
	TESTQ BX, BX
	JZ    tail

loop4:
	STEP(0, 0)
	STEP(4, 64)
	STEP(8, 128)
	STEP(12, 192)
	ADDQ $16, SI
	ADDQ $16, R13
	ADDQ $256, DI
	DECQ BX
	JNZ  loop4

tail:
	TESTQ CX, CX
	JZ    store

loop1:
	STEP(0, 0)
	ADDQ $4, SI
	ADDQ $4, R13
	ADDQ $64, DI
	DECQ CX
	JNZ  loop1

store:
	// Rows 0..2 of c at DX, rows 3..5 at R11 = DX + 3·ldc.
	LEAQ    (R8)(R8*2), R11
	ADDQ    DX, R11
	VMOVUPS Y0, (DX)
	VMOVUPS Y1, 32(DX)
	VMOVUPS Y2, (DX)(R8*1)
	VMOVUPS Y3, 32(DX)(R8*1)
	VMOVUPS Y4, (DX)(R8*2)
	VMOVUPS Y5, 32(DX)(R8*2)
	VMOVUPS Y6, (R11)
	VMOVUPS Y7, 32(R11)
	VMOVUPS Y8, (R11)(R8*1)
	VMOVUPS Y9, 32(R11)(R8*1)
	VMOVUPS Y10, (R11)(R8*2)
	VMOVUPS Y11, 32(R11)(R8*2)
	VZEROUPPER
	RET

// func transpose8AVX2(dst, src *float32, lds int, blocks int)
//
// For each of blocks: takes 8 rows of 8 values from src (row stride lds
// values) and writes them transposed as 8 rows of 8 values at dst with row
// stride 16 values (one packed B step each). Then src moves 8 values along
// its rows and dst 8 steps down the panel.
TEXT ·transpose8AVX2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ lds+16(FP), R8
	MOVQ blocks+24(FP), CX
	SHLQ $2, R8
	TESTQ CX, CX
	JZ    done

	// Rows 0..2 at SI, 3..5 at R9 = SI + 3·lds, 6..7 at R10 = SI + 6·lds.
	LEAQ (R8)(R8*2), R9
	ADDQ SI, R9
	LEAQ (R8)(R8*2), R10
	LEAQ (SI)(R10*2), R10

block:
	VMOVUPS (SI), Y0
	VMOVUPS (SI)(R8*1), Y1
	VMOVUPS (SI)(R8*2), Y2
	VMOVUPS (R9), Y3
	VMOVUPS (R9)(R8*1), Y4
	VMOVUPS (R9)(R8*2), Y5
	VMOVUPS (R10), Y6
	VMOVUPS (R10)(R8*1), Y7

	// Interleave pairs of rows, then pairs of pairs: each 128-bit lane of
	// Y0..Y7 then holds one column of four rows (columns j and j+4 of
	// rows 0..3 in Y0..Y3, of rows 4..7 in Y4..Y7).
	VUNPCKLPS Y1, Y0, Y8
	VUNPCKHPS Y1, Y0, Y9
	VUNPCKLPS Y3, Y2, Y10
	VUNPCKHPS Y3, Y2, Y11
	VUNPCKLPS Y5, Y4, Y12
	VUNPCKHPS Y5, Y4, Y13
	VUNPCKLPS Y7, Y6, Y14
	VUNPCKHPS Y7, Y6, Y15
	VSHUFPS   $0x44, Y10, Y8, Y0
	VSHUFPS   $0xEE, Y10, Y8, Y1
	VSHUFPS   $0x44, Y11, Y9, Y2
	VSHUFPS   $0xEE, Y11, Y9, Y3
	VSHUFPS   $0x44, Y14, Y12, Y4
	VSHUFPS   $0xEE, Y14, Y12, Y5
	VSHUFPS   $0x44, Y15, Y13, Y6
	VSHUFPS   $0xEE, Y15, Y13, Y7

	// Join the halves: column j is the low lanes, column j+4 the high.
	VPERM2F128 $0x20, Y4, Y0, Y8
	VPERM2F128 $0x20, Y5, Y1, Y9
	VPERM2F128 $0x20, Y6, Y2, Y10
	VPERM2F128 $0x20, Y7, Y3, Y11
	VPERM2F128 $0x31, Y4, Y0, Y12
	VPERM2F128 $0x31, Y5, Y1, Y13
	VPERM2F128 $0x31, Y6, Y2, Y14
	VPERM2F128 $0x31, Y7, Y3, Y15
	VMOVUPS    Y8, (DI)
	VMOVUPS    Y9, 64(DI)
	VMOVUPS    Y10, 128(DI)
	VMOVUPS    Y11, 192(DI)
	VMOVUPS    Y12, 256(DI)
	VMOVUPS    Y13, 320(DI)
	VMOVUPS    Y14, 384(DI)
	VMOVUPS    Y15, 448(DI)

	ADDQ $32, SI
	ADDQ $32, R9
	ADDQ $32, R10
	ADDQ $512, DI
	DECQ CX
	JNZ  block
	VZEROUPPER

done:
	RET

// func axpyAVX2(y, x *float32, n int, a float32)
// y[i] += a·x[i] for i < n: four YMM registers a step, then one, then
// single values.
TEXT ·axpyAVX2(SB), NOSPLIT, $0-28
	MOVQ y+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ n+16(FP), CX
	VBROADCASTSS a+24(FP), Y0

axpy32:
	CMPQ CX, $32
	JL   axpy8
	VMOVUPS (SI), Y1
	VMOVUPS 32(SI), Y2
	VMOVUPS 64(SI), Y3
	VMOVUPS 96(SI), Y4
	VFMADD213PS (DI), Y0, Y1
	VFMADD213PS 32(DI), Y0, Y2
	VFMADD213PS 64(DI), Y0, Y3
	VFMADD213PS 96(DI), Y0, Y4
	VMOVUPS Y1, (DI)
	VMOVUPS Y2, 32(DI)
	VMOVUPS Y3, 64(DI)
	VMOVUPS Y4, 96(DI)
	ADDQ $128, SI
	ADDQ $128, DI
	SUBQ $32, CX
	JMP  axpy32

axpy8:
	CMPQ CX, $8
	JL   axpy1
	VMOVUPS (SI), Y1
	VFMADD213PS (DI), Y0, Y1
	VMOVUPS Y1, (DI)
	ADDQ $32, SI
	ADDQ $32, DI
	SUBQ $8, CX
	JMP  axpy8

axpy1:
	CMPQ CX, $0
	JE   axpydone
	VMOVSS (SI), X1
	VFMADD213SS (DI), X0, X1
	VMOVSS X1, (DI)
	ADDQ $4, SI
	ADDQ $4, DI
	DECQ CX
	JMP  axpy1

axpydone:
	VZEROUPPER
	RET

// func axpyInt8AVX2(y *float32, x *int8, n int, a float32)
// y[i] += a·x[i] for i < n, x int8 widened to float32; n is a multiple of
// 8: thirty-two values a step, then eight.
TEXT ·axpyInt8AVX2(SB), NOSPLIT, $0-28
	MOVQ y+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ n+16(FP), CX
	VBROADCASTSS a+24(FP), Y0

i8by32:
	CMPQ CX, $32
	JL   i8by8
	VPMOVSXBD (SI), Y1
	VPMOVSXBD 8(SI), Y2
	VPMOVSXBD 16(SI), Y3
	VPMOVSXBD 24(SI), Y4
	VCVTDQ2PS Y1, Y1
	VCVTDQ2PS Y2, Y2
	VCVTDQ2PS Y3, Y3
	VCVTDQ2PS Y4, Y4
	VFMADD213PS (DI), Y0, Y1
	VFMADD213PS 32(DI), Y0, Y2
	VFMADD213PS 64(DI), Y0, Y3
	VFMADD213PS 96(DI), Y0, Y4
	VMOVUPS Y1, (DI)
	VMOVUPS Y2, 32(DI)
	VMOVUPS Y3, 64(DI)
	VMOVUPS Y4, 96(DI)
	ADDQ $32, SI
	ADDQ $128, DI
	SUBQ $32, CX
	JMP  i8by32

i8by8:
	CMPQ CX, $8
	JL   i8done
	VPMOVSXBD (SI), Y1
	VCVTDQ2PS Y1, Y1
	VFMADD213PS (DI), Y0, Y1
	VMOVUPS Y1, (DI)
	ADDQ $8, SI
	ADDQ $32, DI
	SUBQ $8, CX
	JMP  i8by8

i8done:
	VZEROUPPER
	RET
