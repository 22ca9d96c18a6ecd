/* simd_w16.h — the operations of core/simd.h at 16 lanes, for files built
 * with -mavx512f -mavx512bw -mavx512dq.  Include core/simd.h, not this.
 * Same meanings as simd_w8.h, with four 16-byte groups. */
#ifndef WB_SIMD_W16_H
#define WB_SIMD_W16_H

#include <immintrin.h>

#define WB_SIMD_GROUPS 4

static inline int wb_any(WbI m)
{
    return _mm512_test_epi32_mask((__m512i)m, (__m512i)m) != 0;
}

static inline WbF wb_f_min(WbF a, WbF b)
{
    return (WbF)_mm512_min_ps((__m512)a, (__m512)b);
}

static inline WbI wb_i_min(WbI a, WbI b)
{
    return (WbI)_mm512_min_epi32((__m512i)a, (__m512i)b);
}

/* Lanes 0-7 to *lo, 8-15 to *hi, by four 8-lane gathers (as quick as
 * plain loads here, and fewer instructions). */
static inline void wb_i_load64_lanes(const uint32_t *base, WbI idx, WbI *lo, WbI *hi)
{
    const __m512i i = (__m512i)idx;
    *lo = (WbI)_mm512_i32gather_epi64(_mm512_castsi512_si256(i), (const void *)base, 4);
    *hi = (WbI)_mm512_i32gather_epi64(_mm512_extracti64x4_epi64(i, 1), (const void *)base, 4);
}

static inline WbI wb_i_madd16(WbI a, WbI b)
{
    return (WbI)_mm512_madd_epi16((__m512i)a, (__m512i)b);
}

static inline WbI wb_i_add16(WbI a, WbI b)
{
    return (WbI)_mm512_add_epi16((__m512i)a, (__m512i)b);
}

static inline WbI wb_i_shuffle8(WbI a, WbI idx)
{
    return (WbI)_mm512_shuffle_epi8((__m512i)a, (__m512i)idx);
}

static inline WbI wb_i_packus32(WbI a, WbI b)
{
    return (WbI)_mm512_packus_epi32((__m512i)a, (__m512i)b);
}

static inline WbI wb_i_packs32(WbI a, WbI b)
{
    return (WbI)_mm512_packs_epi32((__m512i)a, (__m512i)b);
}

static inline WbI wb_i_packus16(WbI a, WbI b)
{
    return (WbI)_mm512_packus_epi16((__m512i)a, (__m512i)b);
}

static inline WbI wb_i_permute(WbI a, WbI idx)
{
    return (WbI)_mm512_permutexvar_epi32((__m512i)idx, (__m512i)a);
}

static inline WbI wb_i_blend0(WbI a, WbI b)
{
    return (WbI)_mm512_mask_blend_epi32(0x0001, (__m512i)a, (__m512i)b);
}

static inline WbI wb_i_even(WbI a, WbI b)
{
    return (WbI)_mm512_shuffle_ps((__m512)a, (__m512)b, _MM_SHUFFLE(2, 0, 2, 0));
}

static inline WbI wb_i_odd(WbI a, WbI b)
{
    return (WbI)_mm512_shuffle_ps((__m512)a, (__m512)b, _MM_SHUFFLE(3, 1, 3, 1));
}

static inline void wb_i_store_halves(void *p0, void *p1, WbI v)
{
    _mm256_storeu_si256((__m256i *)p0, _mm512_castsi512_si256((__m512i)v));
    _mm256_storeu_si256((__m256i *)p1, _mm512_extracti64x4_epi64((__m512i)v, 1));
}

static inline void wb_i_store_runs(void *p0, void *p1, WbI v)
{
    _mm_storeu_si128((__m128i *)p0, _mm512_castsi512_si128((__m512i)v));
    _mm_storeu_si128((__m128i *)p1, _mm512_extracti32x4_epi32((__m512i)v, 1));
}

static inline WbI wb_i_max(WbI a, WbI b)
{
    return (WbI)_mm512_max_epi32((__m512i)a, (__m512i)b);
}

static inline int32_t wb_i_hmax(WbI v)
{
    return _mm512_reduce_max_epi32((__m512i)v);
}

static inline WbI wb_i_sllv(WbI a, WbI n)
{
    return (WbI)_mm512_sllv_epi32((__m512i)a, (__m512i)n);
}

static inline WbI wb_i_srlv(WbI a, WbI n)
{
    return (WbI)_mm512_srlv_epi32((__m512i)a, (__m512i)n);
}

static inline unsigned wb_signs(WbI m)
{
    return _mm512_movepi32_mask((__m512i)m);
}

static inline WbF wb_f_select_sign(WbI s, WbF a, WbF b)
{
    return (WbF)_mm512_mask_blend_ps(_mm512_movepi32_mask((__m512i)s), (__m512)b, (__m512)a);
}

static inline void wb_i_deinterleave(const void *p, WbI *even, WbI *odd)
{
    const __m512i ev = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    const __m512i a = _mm512_loadu_si512(p);
    const __m512i b = _mm512_loadu_si512((const char *)p + 64);
    *even = (WbI)_mm512_permutex2var_epi32(a, ev, b);
    *odd = (WbI)_mm512_permutex2var_epi32(a, _mm512_add_epi32(ev, _mm512_set1_epi32(1)), b);
}

/* (n: 1, 2, 4 or 8) */
static inline WbI wb_i_shift_up(WbI v, int n, int32_t fill)
{
    const __m512i f = _mm512_set1_epi32(fill);
    switch (n) {
    case 1: return (WbI)_mm512_alignr_epi32((__m512i)v, f, 15);
    case 2: return (WbI)_mm512_alignr_epi32((__m512i)v, f, 14);
    case 4: return (WbI)_mm512_alignr_epi32((__m512i)v, f, 12);
    default: return (WbI)_mm512_alignr_epi32((__m512i)v, f, 8);
    }
}

static inline WbI wb_i_shift_down1(WbI v, int32_t fill)
{
    return (WbI)_mm512_alignr_epi32(_mm512_set1_epi32(fill), (__m512i)v, 1);
}

/* Sixteen lanes pack by vcompress: the mask is all it needs. */
typedef __mmask16 WbPack;

static inline WbPack wb_pack_lanes(unsigned bits, const uint64_t *table)
{
    (void)table;
    return (__mmask16)bits;
}

static inline WbI wb_i_pack(WbPack p, WbI v)
{
    return (WbI)_mm512_maskz_compress_epi32(p, (__m512i)v);
}

static inline WbF wb_f_pack(WbPack p, WbF v)
{
    return (WbF)_mm512_maskz_compress_ps(p, (__m512)v);
}

#endif
