/* cloth_lanes.h — the vector lanes of the cloth kernels (internal to src/sim/cloth*.c).
 *
 * GCC/Clang vector types of 4 lanes (SSE or plain C), and with GCC on x86-64
 * 8 (AVX2) and 16 (AVX-512F), each with the same few helpers (set, load,
 * store, select, any), so a kernel is written once as a macro over the lane
 * type.  Every lane does the same IEEE operations as the scalar code, so
 * the results are bit-identical for any width.  The wide types carry a
 * target attribute: the functions using them are compiled for that
 * instruction set only, and picked at run time by WbClothState.lanes (16
 * lanes serve the link sweeps, the body passes, the prediction, the
 * stretch test and the normals; the dihedral constraints and the ordered
 * stretch pass go up to 8).
 */
#ifndef WB_CLOTH_LANES_H
#define WB_CLOTH_LANES_H

#include <math.h>
#include <stdint.h>
#include <string.h>

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

#if defined(__clang__)
#define V4_SHUF(a, b, i0, i1, i2, i3) __builtin_shufflevector(a, b, i0, i1, i2, i3)
#else
#define V4_SHUF(a, b, i0, i1, i2, i3) __builtin_shuffle(a, b, (v4i){i0, i1, i2, i3})
#endif

#define NO_TARGET
#define DEFINE_LANE_HELPERS(VF, VI, PFX, ATTR)                                            \
    static inline ATTR VF PFX##_set(float a) { return (VF){0} + a; }                     \
    static inline ATTR VI PFX##_iset(int32_t a) { return (VI){0} + a; }                  \
    static inline ATTR VF PFX##_ld(const float *p)                                       \
    {                                                                                    \
        VF v;                                                                            \
        memcpy(&v, p, sizeof v);                                                         \
        return v;                                                                        \
    }                                                                                    \
    static inline ATTR void PFX##_st(float *p, VF v) { memcpy(p, &v, sizeof v); }        \
    static inline ATTR VF PFX##_sel(VI m, VF a, VF b)                                    \
    {                                                                                    \
        return (VF)(((VI)a & m) | ((VI)b & ~m));                                         \
    }
DEFINE_LANE_HELPERS(v4f, v4i, v4, NO_TARGET)

/* any lane of a comparison mask set */
#if defined(__SSE__)
#define V4_ANY(m) (_mm_movemask_ps((__m128)(m)) != 0)
#else
#define V4_ANY(m) (((m)[0] | (m)[1] | (m)[2] | (m)[3]) != 0)
#endif

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define WB_CLOTH_AVX2 1
#include <immintrin.h>
#define AVX2 __attribute__((target("avx2")))
typedef float v8f __attribute__((vector_size(32)));
typedef int32_t v8i __attribute__((vector_size(32)));
static inline AVX2 v8f v8_sqrt(v8f a) { return (v8f)_mm256_sqrt_ps((__m256)a); }
DEFINE_LANE_HELPERS(v8f, v8i, v8, AVX2)
#define V8_ANY(m) (_mm256_movemask_ps((__m256)(m)) != 0)
/* 16 lanes where the processor has AVX-512 (F is enough: the kernels are
 * plain arithmetic, compares, selects and two-source shuffles). */
#define WB_CLOTH_AVX512 1
#define AVX512 __attribute__((target("avx512f")))
typedef float v16f __attribute__((vector_size(64)));
typedef int32_t v16i __attribute__((vector_size(64)));
static inline AVX512 v16f v16_sqrt(v16f a) { return (v16f)_mm512_sqrt_ps((__m512)a); }
DEFINE_LANE_HELPERS(v16f, v16i, v16, AVX512)
#define V16_ANY(m) (_mm512_test_epi32_mask((__m512i)(m), (__m512i)(m)) != 0)
#define IOTA16 ((v16i){0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15})
#endif

/* Shuffles of the in-row families (and the dihedral segments): a block of
 * 2W consecutive particles split into its a and b ends and merged back.
 * (i, i+1) for i = q, q+2, ...: a = even offsets, b = odd */
#define S2A4(l, h) V4_SHUF(l, h, 0, 2, 4, 6)
#define S2B4(l, h) V4_SHUF(l, h, 1, 3, 5, 7)
#define S2L4(a, b) V4_SHUF(a, b, 0, 4, 1, 5)
#define S2H4(a, b) V4_SHUF(a, b, 2, 6, 3, 7)
/* (i, i+2) for i = q, q+1, q+4, q+5, ... */
#define PRA4(l, h) V4_SHUF(l, h, 0, 1, 4, 5)
#define PRB4(l, h) V4_SHUF(l, h, 2, 3, 6, 7)
#ifdef WB_CLOTH_AVX2
/* 8 lanes: the link order inside a vector is free (the links are
 * independent), so the masks keep to 128-bit halves — one vshufps to split,
 * one vunpck{l,h}ps to merge — instead of crossing lanes. */
#define S2A8(l, h) __builtin_shuffle(l, h, (v8i){0, 2, 8, 10, 4, 6, 12, 14})
#define S2B8(l, h) __builtin_shuffle(l, h, (v8i){1, 3, 9, 11, 5, 7, 13, 15})
#define S2L8(a, b) __builtin_shuffle(a, b, (v8i){0, 8, 1, 9, 4, 12, 5, 13})
#define S2H8(a, b) __builtin_shuffle(a, b, (v8i){2, 10, 3, 11, 6, 14, 7, 15})
#define PRA8(l, h) __builtin_shuffle(l, h, (v8i){0, 1, 8, 9, 4, 5, 12, 13})
#define PRB8(l, h) __builtin_shuffle(l, h, (v8i){2, 3, 10, 11, 6, 7, 14, 15})
/* 16 lanes: the same within each 128-bit quarter (vshufps, vunpck{l,h}ps) */
#define S2O16 ((v16i){0, 2, 16, 18, 4, 6, 20, 22, 8, 10, 24, 26, 12, 14, 28, 30})
#define S2A16(l, h) __builtin_shuffle(l, h, S2O16)
#define S2B16(l, h) __builtin_shuffle(l, h, S2O16 + 1)
#define S2L16(a, b) \
    __builtin_shuffle(a, b, (v16i){0, 16, 1, 17, 4, 20, 5, 21, 8, 24, 9, 25, 12, 28, 13, 29})
#define S2H16(a, b) \
    __builtin_shuffle(a, b, (v16i){2, 18, 3, 19, 6, 22, 7, 23, 10, 26, 11, 27, 14, 30, 15, 31})
#define PRO16 ((v16i){0, 1, 16, 17, 4, 5, 20, 21, 8, 9, 24, 25, 12, 13, 28, 29})
#define PRA16(l, h) __builtin_shuffle(l, h, PRO16)
#define PRB16(l, h) __builtin_shuffle(l, h, PRO16 + 2)
#endif

#endif
