/* texture_lanes.h — wb_tex_sampler_fx4 (texture.h) for eight and sixteen
 * lanes, for the lane kernels only: each form exists in the files the
 * Makefile builds for its width (*_w8.c: AVX2, *_w16.c: AVX-512), so no
 * target attributes; the width in use comes from core/cpu.h.  Every form
 * gives the same integers as wb_tex_sampler_fx, lane for lane. */
#ifndef WB_TEXTURE_LANES_H
#define WB_TEXTURE_LANES_H

#include "render/texture.h"

#if defined(__AVX2__)
#include <immintrin.h>
#endif

#if defined(__AVX2__)
/* wb_tex_sampler_fx4 for eight lanes with AVX2: the same integers (the
 * same clamp, weights and exact float blend, lane for lane), the sixteen
 * texel pairs loaded one by one.  Texel indices are 32-bit here:
 * only for textures of fewer than 2^31 texels (wb_tex_sampler_fx8_ok). */
static inline __m256i wb_tex_sampler_fx8(const WbTexSampler *t, __m256 su, __m256 sv)
{
    const __m256 low = _mm256_set1_ps(-256.0f);
    const __m256 gu = _mm256_cmp_ps(su, low, _CMP_GT_OS), gv = _mm256_cmp_ps(sv, low, _CMP_GT_OS);
    su = _mm256_or_ps(_mm256_and_ps(gu, _mm256_min_ps(su, _mm256_set1_ps(t->hx))),
                      _mm256_andnot_ps(gu, low));
    sv = _mm256_or_ps(_mm256_and_ps(gv, _mm256_min_ps(sv, _mm256_set1_ps(t->hy))),
                      _mm256_andnot_ps(gv, low));
    const __m256i k512 = _mm256_set1_epi32(512), k256 = _mm256_set1_epi32(256);
    const __m256 half = _mm256_set1_ps(512.5f);
    const __m256i iu = _mm256_add_epi32(
        _mm256_sub_epi32(_mm256_cvttps_epi32(_mm256_add_ps(su, half)), k512), k256);
    const __m256i iv = _mm256_add_epi32(
        _mm256_sub_epi32(_mm256_cvttps_epi32(_mm256_add_ps(sv, half)), k512), k256);
    const __m256i one = _mm256_set1_epi32(1), m255 = _mm256_set1_epi32(255);
    __m256i x0 = _mm256_sub_epi32(_mm256_srai_epi32(iu, 8), one);
    __m256i y0 = _mm256_sub_epi32(_mm256_srai_epi32(iv, 8), one);
    __m256i fx = _mm256_and_si256(iu, m255);
    const __m256i fy = _mm256_and_si256(iv, m255);
    const __m256i wm = _mm256_set1_epi32(t->wm), hm = _mm256_set1_epi32(t->hm);
    const __m256i edge = _mm256_or_si256(_mm256_srai_epi32(x0, 31),
                                         _mm256_cmpgt_epi32(x0, _mm256_sub_epi32(wm, one)));
    fx = _mm256_andnot_si256(edge, fx);
    __m256i y1 = _mm256_add_epi32(y0, one);
    x0 = _mm256_andnot_si256(_mm256_srai_epi32(x0, 31), x0);
    y0 = _mm256_andnot_si256(_mm256_srai_epi32(y0, 31), y0);
    x0 = _mm256_min_epi32(x0, wm);
    y0 = _mm256_min_epi32(y0, hm);
    y1 = _mm256_min_epi32(y1, hm);
    const __m256i w = _mm256_set1_epi32((int)t->w);
    const __m256i i0 = _mm256_add_epi32(_mm256_mullo_epi32(y0, w), x0);
    const __m256i i1 = _mm256_add_epi32(_mm256_mullo_epi32(y1, w), x0);
    /* Texel pairs (a, b) of the top row and (c, d) of the bottom one:
     * lanes 0-3 and 4-7, 64 bits each.  Loaded one by one: AVX2 gathers
     * take longer than sixteen plain loads on AMD cores. */
    int32_t I0[8], I1[8];
    _mm256_storeu_si256((__m256i *)I0, i0);
    _mm256_storeu_si256((__m256i *)I1, i1);
    const uint32_t *base = t->px;
#define WB_TEX_PAIRS(I, k)                                                                    \
    _mm256_inserti128_si256(                                                                  \
        _mm256_castsi128_si256(_mm_unpacklo_epi64(                                            \
            _mm_loadl_epi64((const __m128i *)(base + I[k])),                                  \
            _mm_loadl_epi64((const __m128i *)(base + I[k + 1])))),                            \
        _mm_unpacklo_epi64(_mm_loadl_epi64((const __m128i *)(base + I[k + 2])),               \
                           _mm_loadl_epi64((const __m128i *)(base + I[k + 3]))),              \
        1)
    const __m256i p03 = WB_TEX_PAIRS(I0, 0), p47 = WB_TEX_PAIRS(I0, 4);
    const __m256i q03 = WB_TEX_PAIRS(I1, 0), q47 = WB_TEX_PAIRS(I1, 4);
#undef WB_TEX_PAIRS
    /* Channel pairs a.r b.r a.g b.g … per lane, then 16 bits each: of
     * lanes 0 | 2 (lo) and 1 | 3 (hi) in a 0-3 register. */
    const __m256i pair = _mm256_setr_epi8(0, 4, 1, 5, 2, 6, 3, 7, 8, 12, 9, 13, 10, 14, 11, 15,
                                          0, 4, 1, 5, 2, 6, 3, 7, 8, 12, 9, 13, 10, 14, 11, 15);
    const __m256i z = _mm256_setzero_si256();
    const __m256i wx = _mm256_or_si256(_mm256_sub_epi32(k256, fx), _mm256_slli_epi32(fx, 16));
    const __m256 wy1 = _mm256_cvtepi32_ps(fy), wy0 = _mm256_cvtepi32_ps(_mm256_sub_epi32(k256, fy));
    const __m256 round = _mm256_set1_ps(32768.0f);
    __m256i q[4]; /* lanes 0|2, 1|3, 4|6, 5|7: r, g, b, a each */
    for (int g = 0; g < 4; g++) {
        const __m256i top = _mm256_shuffle_epi8(g < 2 ? p03 : p47, pair);
        const __m256i bot = _mm256_shuffle_epi8(g < 2 ? q03 : q47, pair);
        const int a = (g >> 1) * 4 + (g & 1); /* the lower lane of the pair */
        const __m256i sel = _mm256_setr_epi32(a, a, a, a, a + 2, a + 2, a + 2, a + 2);
        const __m256i w_ = _mm256_permutevar8x32_epi32(wx, sel);
        const __m256i tw = (g & 1) ? _mm256_unpackhi_epi8(top, z) : _mm256_unpacklo_epi8(top, z);
        const __m256i bw = (g & 1) ? _mm256_unpackhi_epi8(bot, z) : _mm256_unpacklo_epi8(bot, z);
        const __m256 tf = _mm256_cvtepi32_ps(_mm256_madd_epi16(tw, w_));
        const __m256 bf = _mm256_cvtepi32_ps(_mm256_madd_epi16(bw, w_));
        const __m256 y0_ = _mm256_permutevar8x32_ps(wy0, sel);
        const __m256 y1_ = _mm256_permutevar8x32_ps(wy1, sel);
        const __m256 s_ = _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(tf, y0_), _mm256_mul_ps(bf, y1_)),
                                        round);
        q[g] = _mm256_srli_epi32(_mm256_cvttps_epi32(s_), 16);
    }
    /* Per 128-bit half: lanes (0, 1, 4, 5) | (2, 3, 6, 7); put in order. */
    const __m256i px = _mm256_packus_epi16(_mm256_packs_epi32(q[0], q[1]), _mm256_packs_epi32(q[2], q[3]));
    return _mm256_permutevar8x32_epi32(px, _mm256_setr_epi32(0, 1, 4, 5, 2, 3, 6, 7));
}
#endif

#if defined(__AVX512F__) && defined(__AVX512BW__)
/* wb_tex_sampler_fx8 for sixteen lanes with AVX-512: the same integers
 * and the same exact float blend, lane for lane; the texel pairs come in
 * by four 8-lane gathers (as quick as plain loads here, and fewer
 * instructions).  Same texture limit (wb_tex_sampler_fx8_ok). */
static inline __m512i wb_tex_sampler_fx16(const WbTexSampler *t, __m512 su, __m512 sv)
{
    /* the scalar clamp: NaN and x <= -256 give -256, min(x, hi) else */
    const __m512 low = _mm512_set1_ps(-256.0f);
    const __mmask16 gu = _mm512_cmp_ps_mask(su, low, _CMP_GT_OS);
    const __mmask16 gv = _mm512_cmp_ps_mask(sv, low, _CMP_GT_OS);
    su = _mm512_mask_blend_ps(gu, low, _mm512_min_ps(su, _mm512_set1_ps(t->hx)));
    sv = _mm512_mask_blend_ps(gv, low, _mm512_min_ps(sv, _mm512_set1_ps(t->hy)));
    const __m512i k512 = _mm512_set1_epi32(512), k256 = _mm512_set1_epi32(256);
    const __m512 half = _mm512_set1_ps(512.5f);
    const __m512i iu = _mm512_add_epi32(
        _mm512_sub_epi32(_mm512_cvttps_epi32(_mm512_add_ps(su, half)), k512), k256);
    const __m512i iv = _mm512_add_epi32(
        _mm512_sub_epi32(_mm512_cvttps_epi32(_mm512_add_ps(sv, half)), k512), k256);
    const __m512i one = _mm512_set1_epi32(1), m255 = _mm512_set1_epi32(255);
    const __m512i zero = _mm512_setzero_si512();
    __m512i x0 = _mm512_sub_epi32(_mm512_srai_epi32(iu, 8), one);
    __m512i y0 = _mm512_sub_epi32(_mm512_srai_epi32(iv, 8), one);
    __m512i fx = _mm512_and_si512(iu, m255);
    const __m512i fy = _mm512_and_si512(iv, m255);
    const __m512i wm = _mm512_set1_epi32(t->wm), hm = _mm512_set1_epi32(t->hm);
    /* a clamped column pair: weight 0 on its right texel (see fx4) */
    const __mmask16 edge = _mm512_cmplt_epi32_mask(x0, zero) |
                           _mm512_cmpgt_epi32_mask(x0, _mm512_sub_epi32(wm, one));
    fx = _mm512_mask_mov_epi32(fx, edge, zero);
    __m512i y1 = _mm512_add_epi32(y0, one);
    x0 = _mm512_min_epi32(_mm512_max_epi32(x0, zero), wm);
    y0 = _mm512_min_epi32(_mm512_max_epi32(y0, zero), hm);
    y1 = _mm512_min_epi32(y1, hm);
    const __m512i w = _mm512_set1_epi32((int)t->w);
    const __m512i i0 = _mm512_add_epi32(_mm512_mullo_epi32(y0, w), x0);
    const __m512i i1 = _mm512_add_epi32(_mm512_mullo_epi32(y1, w), x0);
    /* texel pairs (a, b) of the top row, (c, d) of the bottom: lanes 0-7
     * and 8-15, 64 bits each, two lanes per 128-bit quarter */
    const void *base = t->px;
    const __m512i p0 = _mm512_i32gather_epi64(_mm512_castsi512_si256(i0), base, 4);
    const __m512i p1 = _mm512_i32gather_epi64(_mm512_extracti64x4_epi64(i0, 1), base, 4);
    const __m512i q0 = _mm512_i32gather_epi64(_mm512_castsi512_si256(i1), base, 4);
    const __m512i q1 = _mm512_i32gather_epi64(_mm512_extracti64x4_epi64(i1, 1), base, 4);
    /* channel pairs a.r b.r a.g b.g … per lane; then 16 bits each, of the
     * even lanes of a quarter (unpacklo) or the odd ones (unpackhi) */
    const __m512i pair = _mm512_broadcast_i32x4(
        _mm_setr_epi8(0, 4, 1, 5, 2, 6, 3, 7, 8, 12, 9, 13, 10, 14, 11, 15));
    const __m512i wx = _mm512_or_si512(_mm512_sub_epi32(k256, fx), _mm512_slli_epi32(fx, 16));
    const __m512 wy1 = _mm512_cvtepi32_ps(fy), wy0 = _mm512_cvtepi32_ps(_mm512_sub_epi32(k256, fy));
    const __m512 round = _mm512_set1_ps(32768.0f);
    __m512i q[4]; /* quarter k: lane 2k, 2k + 1, 8 + 2k, 9 + 2k; r, g, b, a each */
    for (int g = 0; g < 4; g++) {
        const __m512i top = _mm512_shuffle_epi8(g < 2 ? p0 : p1, pair);
        const __m512i bot = _mm512_shuffle_epi8(g < 2 ? q0 : q1, pair);
        const int a = (g >> 1) * 8 + (g & 1); /* the lane in quarter 0 */
        const __m512i sel = _mm512_add_epi32(
            _mm512_set1_epi32(a), _mm512_setr_epi32(0, 0, 0, 0, 2, 2, 2, 2, 4, 4, 4, 4, 6, 6, 6, 6));
        const __m512i w_ = _mm512_permutexvar_epi32(sel, wx);
        const __m512i tw = (g & 1) ? _mm512_unpackhi_epi8(top, zero) : _mm512_unpacklo_epi8(top, zero);
        const __m512i bw = (g & 1) ? _mm512_unpackhi_epi8(bot, zero) : _mm512_unpacklo_epi8(bot, zero);
        const __m512 tf = _mm512_cvtepi32_ps(_mm512_madd_epi16(tw, w_));
        const __m512 bf = _mm512_cvtepi32_ps(_mm512_madd_epi16(bw, w_));
        const __m512 y0_ = _mm512_permutexvar_ps(sel, wy0);
        const __m512 y1_ = _mm512_permutexvar_ps(sel, wy1);
        const __m512 s_ = _mm512_add_ps(_mm512_add_ps(_mm512_mul_ps(tf, y0_), _mm512_mul_ps(bf, y1_)),
                                        round);
        q[g] = _mm512_srli_epi32(_mm512_cvttps_epi32(s_), 16);
    }
    /* quarter k: lanes 2k, 2k + 1, 8 + 2k, 9 + 2k; put in order */
    const __m512i px = _mm512_packus_epi16(_mm512_packs_epi32(q[0], q[1]),
                                           _mm512_packs_epi32(q[2], q[3]));
    return _mm512_permutexvar_epi32(
        _mm512_setr_epi32(0, 1, 4, 5, 8, 9, 12, 13, 2, 3, 6, 7, 10, 11, 14, 15), px);
}
#endif

#endif
