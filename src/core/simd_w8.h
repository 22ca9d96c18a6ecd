/* simd_w8.h — the operations of core/simd.h at 8 lanes, for files built
 * with -mavx2.  Include core/simd.h, not this.  A "group" is 16 bytes of
 * the vector (two here, four at 16 lanes): packs, byte shuffles and pair
 * shuffles work within each group, as the instructions do. */
#ifndef WB_SIMD_W8_H
#define WB_SIMD_W8_H

#include <immintrin.h>

#define WB_SIMD_GROUPS 2 /* 16-byte groups per vector */

static inline int wb_any(WbI m)
{
    return _mm256_movemask_ps((__m256)m) != 0;
}

/* minps and pminsd: a < b ? a : b per lane (NaN in a gives b). */
static inline WbF wb_f_min(WbF a, WbF b)
{
    return (WbF)_mm256_min_ps((__m256)a, (__m256)b);
}

static inline WbI wb_i_min(WbI a, WbI b)
{
    return (WbI)_mm256_min_epi32((__m256i)a, (__m256i)b);
}

/* The 64 bits at base + idx[l] (idx in 32-bit words) for every lane l:
 * lanes 0-3 to *lo, 4-7 to *hi, two to a group.  Sixteen plain loads:
 * AVX2 gathers take longer on AMD cores. */
static inline void wb_i_load64_lanes(const uint32_t *base, WbI idx, WbI *lo, WbI *hi)
{
#define WB_PAIRS(k)                                                                          \
    _mm256_inserti128_si256(                                                                 \
        _mm256_castsi128_si256(_mm_unpacklo_epi64(                                           \
            _mm_loadl_epi64((const __m128i *)(const void *)(base + idx[k])),                 \
            _mm_loadl_epi64((const __m128i *)(const void *)(base + idx[k + 1])))),           \
        _mm_unpacklo_epi64(_mm_loadl_epi64((const __m128i *)(const void *)(base + idx[k + 2])), \
                           _mm_loadl_epi64((const __m128i *)(const void *)(base + idx[k + 3]))), \
        1)
    *lo = (WbI)WB_PAIRS(0);
    *hi = (WbI)WB_PAIRS(4);
#undef WB_PAIRS
}

/* Per 32-bit lane: a.lo16·b.lo16 + a.hi16·b.hi16 (signed, exact). */
static inline WbI wb_i_madd16(WbI a, WbI b)
{
    return (WbI)_mm256_madd_epi16((__m256i)a, (__m256i)b);
}

static inline WbI wb_i_add16(WbI a, WbI b)
{
    return (WbI)_mm256_add_epi16((__m256i)a, (__m256i)b);
}

/* Bytes of a picked by idx within each 16-byte group (idx < 0: zero). */
static inline WbI wb_i_shuffle8(WbI a, WbI idx)
{
    return (WbI)_mm256_shuffle_epi8((__m256i)a, (__m256i)idx);
}

/* Within each group: a's four lanes then b's, narrowed with saturation
 * (int32 to uint16, int32 to int16, int16 to uint8: eight then eight). */
static inline WbI wb_i_packus32(WbI a, WbI b)
{
    return (WbI)_mm256_packus_epi32((__m256i)a, (__m256i)b);
}

static inline WbI wb_i_packs32(WbI a, WbI b)
{
    return (WbI)_mm256_packs_epi32((__m256i)a, (__m256i)b);
}

static inline WbI wb_i_packus16(WbI a, WbI b)
{
    return (WbI)_mm256_packus_epi16((__m256i)a, (__m256i)b);
}

/* Lane k of the result is lane idx[k] of a, across the whole vector. */
static inline WbI wb_i_permute(WbI a, WbI idx)
{
    return (WbI)_mm256_permutevar8x32_epi32((__m256i)a, (__m256i)idx);
}

/* a with its lane 0 from b. */
static inline WbI wb_i_blend0(WbI a, WbI b)
{
    return (WbI)_mm256_blend_epi32((__m256i)a, (__m256i)b, 0x01);
}

/* Within each group: lanes 0, 2 of a then 0, 2 of b (even), 1, 3 (odd). */
static inline WbI wb_i_even(WbI a, WbI b)
{
    return (WbI)_mm256_shuffle_ps((__m256)a, (__m256)b, _MM_SHUFFLE(2, 0, 2, 0));
}

static inline WbI wb_i_odd(WbI a, WbI b)
{
    return (WbI)_mm256_shuffle_ps((__m256)a, (__m256)b, _MM_SHUFFLE(3, 1, 3, 1));
}

/* The vector's low half (2·W bytes) to p0, its high half to p1. */
static inline void wb_i_store_halves(void *p0, void *p1, WbI v)
{
    _mm_storeu_si128((__m128i *)p0, _mm256_castsi256_si128((__m256i)v));
    _mm_storeu_si128((__m128i *)p1, _mm256_extracti128_si256((__m256i)v, 1));
}

/* Bytes [0, W) of v to p0 and bytes [W, 2W) to p1. */
static inline void wb_i_store_runs(void *p0, void *p1, WbI v)
{
    __m128i lo = _mm256_castsi256_si128((__m256i)v);
    _mm_storel_epi64((__m128i *)p0, lo);
    _mm_storel_epi64((__m128i *)p1, _mm_unpackhi_epi64(lo, lo));
}

static inline WbI wb_i_max(WbI a, WbI b)
{
    return (WbI)_mm256_max_epi32((__m256i)a, (__m256i)b);
}

/* The largest lane. */
static inline int32_t wb_i_hmax(WbI v)
{
    __m128i m = _mm_max_epi32(_mm256_castsi256_si128((__m256i)v),
                              _mm256_extracti128_si256((__m256i)v, 1));
    m = _mm_max_epi32(m, _mm_shuffle_epi32(m, 0x4E));
    m = _mm_max_epi32(m, _mm_shuffle_epi32(m, 0xB1));
    return _mm_cvtsi128_si32(m);
}

/* Shifts of each lane by its own count, as the instructions do them: a
 * count of 32 or more (as unsigned) gives 0, where C leaves it undefined. */
static inline WbI wb_i_sllv(WbI a, WbI n)
{
    return (WbI)_mm256_sllv_epi32((__m256i)a, (__m256i)n);
}

static inline WbI wb_i_srlv(WbI a, WbI n)
{
    return (WbI)_mm256_srlv_epi32((__m256i)a, (__m256i)n);
}

/* The sign bits of the lanes, lane l in bit l. */
static inline unsigned wb_signs(WbI m)
{
    return (unsigned)_mm256_movemask_ps((__m256)m);
}

/* Per lane: a where the sign bit of s is set, b elsewhere. */
static inline WbF wb_f_select_sign(WbI s, WbF a, WbF b)
{
    return (WbF)_mm256_blendv_ps((__m256)b, (__m256)a, (__m256)s);
}

/* The 2·W words at p, split: even ones (0, 2, ..) to *even, odd to *odd. */
static inline void wb_i_deinterleave(const void *p, WbI *even, WbI *odd)
{
    const __m256i eo = _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7);
    const __m256i lo = _mm256_permutevar8x32_epi32(_mm256_loadu_si256((const __m256i *)p), eo);
    const __m256i hi =
        _mm256_permutevar8x32_epi32(_mm256_loadu_si256((const __m256i *)p + 1), eo);
    *even = (WbI)_mm256_permute2x128_si256(lo, hi, 0x20);
    *odd = (WbI)_mm256_permute2x128_si256(lo, hi, 0x31);
}

/* Lane l <- lane l − n, the first n lanes <- fill (n: 1, 2 or 4). */
static inline WbI wb_i_shift_up(WbI v, int n, int32_t fill)
{
    const WbI lane = wb_i_iota();
    return wb_i_select(lane < wb_i_set(n), wb_i_set(fill),
                       wb_i_permute(v, wb_i_max(lane - n, wb_i_set(0))));
}

/* Lane l <- lane l + 1, the last lane <- fill. */
static inline WbI wb_i_shift_down1(WbI v, int32_t fill)
{
    const WbI next = (WbI)_mm256_permutevar8x32_epi32(
        (__m256i)v, _mm256_setr_epi32(1, 2, 3, 4, 5, 6, 7, 7));
    return (WbI)_mm256_blend_epi32((__m256i)next, _mm256_set1_epi32(fill), 0x80);
}

/* Packing the lanes picked by a bit mask to the front of a vector (the
 * rest: unspecified).  Eight lanes have no compress instruction: the caller
 * keeps a table of the 256 permutations (table[bits]: the lanes set in bits
 * in ascending order, one per byte) and wb_pack_lanes picks one. */
typedef __m256i WbPack;

static inline WbPack wb_pack_lanes(unsigned bits, const uint64_t *table)
{
    return _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(const void *)&table[bits]));
}

static inline WbI wb_i_pack(WbPack p, WbI v)
{
    return (WbI)_mm256_permutevar8x32_epi32((__m256i)v, p);
}

static inline WbF wb_f_pack(WbPack p, WbF v)
{
    return (WbF)_mm256_permutevar8x32_ps((__m256)v, p);
}

#endif
