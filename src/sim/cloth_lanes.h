/* cloth_lanes.h — the vector lanes of the cloth kernels (internal to src/sim/cloth*.c).
 *
 * GCC/Clang vector types of 4, 8 and 16 lanes, each with the same few
 * helpers (set, load, store, select, any), so a kernel is written once as a
 * macro over the lane type.  The kernels follow the SIMD policy of
 * core/simd.h: each `cloth_*_kernel.inc` is compiled once per width by its
 * `cloth_*_wN.c`, which the Makefile gives that width's target flags; the
 * 8- and 16-lane types exist only in the files built for them (AVX2,
 * AVX-512).  A file includes this after defining WB_W, and instantiates
 * each kernel macro once through CL_APPLY with the CL_* names of its width.
 * Every lane does the same IEEE operations as the scalar code, so the
 * results are bit-identical for any width; the width in use is
 * WbClothState.lanes, from wb_cpu_lanes() (16 lanes serve the link sweeps,
 * the body passes, the prediction, the stretch test and the normals; the
 * dihedral constraints and the ordered stretch pass go up to 8).
 */
#ifndef WB_CLOTH_LANES_H
#define WB_CLOTH_LANES_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "core/cpu.h"

typedef float v4f __attribute__((vector_size(16)));
typedef int32_t v4i __attribute__((vector_size(16)));

#if defined(__SSE__)
#include <xmmintrin.h>
static inline v4f v4_sqrt(v4f a) { return (v4f)_mm_sqrt_ps((__m128)a); }
#else
static inline v4f v4_sqrt(v4f a)
{
    v4f r = {sqrtf(a[0]), sqrtf(a[1]), sqrtf(a[2]), sqrtf(a[3])};
    return r;
}
#endif

/* Lane permutes by constant indices (GCC 12 and Clang both have it). */
#define V_SHUF(a, b, ...) __builtin_shufflevector(a, b, __VA_ARGS__)

#define DEFINE_LANE_HELPERS(VF, VI, PFX)                                                  \
    static inline VF PFX##_set(float a) { return (VF){0} + a; }                          \
    static inline VI PFX##_iset(int32_t a) { return (VI){0} + a; }                       \
    static inline VF PFX##_ld(const float *p)                                            \
    {                                                                                    \
        VF v;                                                                            \
        memcpy(&v, p, sizeof v);                                                         \
        return v;                                                                        \
    }                                                                                    \
    static inline void PFX##_st(float *p, VF v) { memcpy(p, &v, sizeof v); }             \
    static inline VF PFX##_sel(VI m, VF a, VF b)                                         \
    {                                                                                    \
        return (VF)(((VI)a & m) | ((VI)b & ~m));                                         \
    }
DEFINE_LANE_HELPERS(v4f, v4i, v4)

/* any lane of a comparison mask set */
#if defined(__SSE__)
#define V4_ANY(m) (_mm_movemask_ps((__m128)(m)) != 0)
#else
#define V4_ANY(m) (((m)[0] | (m)[1] | (m)[2] | (m)[3]) != 0)
#endif

#if defined(__AVX2__)
#include <immintrin.h>
typedef float v8f __attribute__((vector_size(32)));
typedef int32_t v8i __attribute__((vector_size(32)));
static inline v8f v8_sqrt(v8f a) { return (v8f)_mm256_sqrt_ps((__m256)a); }
DEFINE_LANE_HELPERS(v8f, v8i, v8)
#define V8_ANY(m) (_mm256_movemask_ps((__m256)(m)) != 0)
#endif
#if defined(__AVX512F__)
typedef float v16f __attribute__((vector_size(64)));
typedef int32_t v16i __attribute__((vector_size(64)));
static inline v16f v16_sqrt(v16f a) { return (v16f)_mm512_sqrt_ps((__m512)a); }
DEFINE_LANE_HELPERS(v16f, v16i, v16)
#define V16_ANY(m) (_mm512_test_epi32_mask((__m512i)(m), (__m512i)(m)) != 0)
#endif

/* Shuffles of the in-row families (and the dihedral segments): a block of
 * 2W consecutive particles split into its a and b ends and merged back.
 * (i, i+1) for i = q, q+2, ...: a = even offsets, b = odd */
#define S2A4(l, h) V_SHUF(l, h, 0, 2, 4, 6)
#define S2B4(l, h) V_SHUF(l, h, 1, 3, 5, 7)
#define S2L4(a, b) V_SHUF(a, b, 0, 4, 1, 5)
#define S2H4(a, b) V_SHUF(a, b, 2, 6, 3, 7)
/* (i, i+2) for i = q, q+1, q+4, q+5, ... */
#define PRA4(l, h) V_SHUF(l, h, 0, 1, 4, 5)
#define PRB4(l, h) V_SHUF(l, h, 2, 3, 6, 7)
/* 8 lanes: the link order inside a vector is free (the links are
 * independent), so the masks keep to 128-bit halves — one vshufps to split,
 * one vunpck{l,h}ps to merge — instead of crossing lanes. */
#define S2A8(l, h) V_SHUF(l, h, 0, 2, 8, 10, 4, 6, 12, 14)
#define S2B8(l, h) V_SHUF(l, h, 1, 3, 9, 11, 5, 7, 13, 15)
#define S2L8(a, b) V_SHUF(a, b, 0, 8, 1, 9, 4, 12, 5, 13)
#define S2H8(a, b) V_SHUF(a, b, 2, 10, 3, 11, 6, 14, 7, 15)
#define PRA8(l, h) V_SHUF(l, h, 0, 1, 8, 9, 4, 5, 12, 13)
#define PRB8(l, h) V_SHUF(l, h, 2, 3, 10, 11, 6, 7, 14, 15)
/* 16 lanes: the same within each 128-bit quarter (vshufps, vunpck{l,h}ps) */
#define S2A16(l, h) V_SHUF(l, h, 0, 2, 16, 18, 4, 6, 20, 22, 8, 10, 24, 26, 12, 14, 28, 30)
#define S2B16(l, h) V_SHUF(l, h, 1, 3, 17, 19, 5, 7, 21, 23, 9, 11, 25, 27, 13, 15, 29, 31)
#define S2L16(a, b) V_SHUF(a, b, 0, 16, 1, 17, 4, 20, 5, 21, 8, 24, 9, 25, 12, 28, 13, 29)
#define S2H16(a, b) V_SHUF(a, b, 2, 18, 3, 19, 6, 22, 7, 23, 10, 26, 11, 27, 14, 30, 15, 31)
#define PRA16(l, h) V_SHUF(l, h, 0, 1, 16, 17, 4, 5, 20, 21, 8, 9, 24, 25, 12, 13, 28, 29)
#define PRB16(l, h) V_SHUF(l, h, 2, 3, 18, 19, 6, 7, 22, 23, 10, 11, 26, 27, 14, 15, 30, 31)
/* The dihedral rows' order of constraints within a vector (see DEFINE_DIH_ROW). */
#define CPERM4(v) (v)
#define CPERM8(v) V_SHUF(v, v, 0, 1, 4, 5, 2, 3, 6, 7)
#define CPERM16(v) V_SHUF(v, v, 0, 1, 8, 9, 2, 3, 10, 11, 4, 5, 12, 13, 6, 7, 14, 15)
/* ... and back (CPERM4 and CPERM8 are their own inverses) */
#define CPERMI4(v) (v)
#define CPERMI8(v) CPERM8(v)
#define CPERMI16(v) V_SHUF(v, v, 0, 1, 4, 5, 8, 9, 12, 13, 2, 3, 6, 7, 10, 11, 14, 15)

/* The names a kernel file instantiates its macros with, for its width WB_W:
 * lane types CL_F / CL_I, prefix CL_P (v4, v8, v16), width CL_W, lane
 * numbers CL_IOTA, the split/merge shuffles and the a-end lane numbers of
 * the two in-row families (CL_S2O, CL_PRO).  CL_APPLY expands them before
 * the kernel macro pastes CL_P into its names. */
#define CL_APPLY(m, ...) m(__VA_ARGS__)
#define CL_CAT(a, b) CL_CAT_(a, b)
#define CL_CAT_(a, b) a##b
#define CL_NAME(s) CL_CAT(CL_P, s)
#if defined(WB_W) && WB_W == 4
#define CL_F v4f
#define CL_I v4i
#define CL_P v4
#define CL_W 4
#define CL_ANY V4_ANY
#define CL_IOTA ((v4i){0, 1, 2, 3})
#define CL_S2O ((v4i){0, 2, 4, 6})
#define CL_PRO ((v4i){0, 1, 4, 5})
#define CL_SUF 4
#elif defined(WB_W) && WB_W == 8 && defined(__AVX2__)
#define CL_F v8f
#define CL_I v8i
#define CL_P v8
#define CL_W 8
#define CL_ANY V8_ANY
#define CL_IOTA ((v8i){0, 1, 2, 3, 4, 5, 6, 7})
#define CL_S2O ((v8i){0, 2, 8, 10, 4, 6, 12, 14})
#define CL_PRO ((v8i){0, 1, 8, 9, 4, 5, 12, 13})
#define CL_SUF 8
#elif defined(WB_W) && WB_W == 16 && defined(__AVX512F__)
#define CL_F v16f
#define CL_I v16i
#define CL_P v16
#define CL_W 16
#define CL_ANY V16_ANY
#define CL_IOTA ((v16i){0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15})
#define CL_S2O ((v16i){0, 2, 16, 18, 4, 6, 20, 22, 8, 10, 24, 26, 12, 14, 28, 30})
#define CL_PRO ((v16i){0, 1, 16, 17, 4, 5, 20, 21, 8, 9, 24, 25, 12, 13, 28, 29})
#define CL_SUF 16
#endif
#ifdef CL_SUF
#define CL_S2A CL_CAT(S2A, CL_SUF)
#define CL_S2B CL_CAT(S2B, CL_SUF)
#define CL_S2L CL_CAT(S2L, CL_SUF)
#define CL_S2H CL_CAT(S2H, CL_SUF)
#define CL_PRA CL_CAT(PRA, CL_SUF)
#define CL_PRB CL_CAT(PRB, CL_SUF)
#define CL_CPERM CL_CAT(CPERM, CL_SUF)
#define CL_CPERMI CL_CAT(CPERMI, CL_SUF)
#endif

#endif
