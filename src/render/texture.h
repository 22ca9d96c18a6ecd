/* texture.h — premultiplied RGBA8 textures and bilinear sampling.
 *
 * A WbTexture holds premultiplied-alpha texels packed one per uint32 (see
 * WB_RGBA below).  Premultiplying before filtering is what keeps a
 * transparent texel's (meaningless) colour from bleeding into its opaque
 * neighbours, so alpha edges never grow dark or coloured fringes.
 *
 * Sampling conventions (used by every caller, stated once here):
 *   - Texture coordinates are in TEXELS, origin at the top-left corner of
 *     texel (0,0), y down.  Texel (i,j) covers [i,i+1)×[j,j+1) and its
 *     CENTRE is at (i+0.5, j+0.5): sampling exactly there returns the texel
 *     unchanged.
 *   - Bilinear filtering between the four nearest texel centres, with the
 *     fractional weights rounded to 1/256 (so a coordinate within 1/512 of a
 *     texel centre returns that texel exactly) and the result rounded to
 *     nearest.
 *   - Clamp to edge: coordinates outside [0.5, w-0.5] use the border texels.
 */
#ifndef WB_TEXTURE_H
#define WB_TEXTURE_H

#include <math.h>
#include <stdint.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "core/cpu.h"
#include "core/error.h"
#include "core/image.h"

/* Packed premultiplied RGBA8: R in bits 0-7, G 8-15, B 16-23, A 24-31.
 * Premultiplied means r,g,b <= a. */
#define WB_RGBA(r, g, b, a) \
    ((uint32_t)(r) | (uint32_t)(g) << 8 | (uint32_t)(b) << 16 | (uint32_t)(a) << 24)
#define WB_RGBA_R(c) ((c) & 0xFFu)
#define WB_RGBA_G(c) (((c) >> 8) & 0xFFu)
#define WB_RGBA_B(c) (((c) >> 16) & 0xFFu)
#define WB_RGBA_A(c) ((c) >> 24)

typedef struct WbTexture {
    uint32_t *px;   /* w*h premultiplied texels, row-major, owned; one spare
                       zero texel follows the last, so a sampler may load a
                       texel and its right neighbour as one pair anywhere */
    int w, h;
} WbTexture;

/* Copy a straight-alpha image into a new premultiplied texture
 * (c' = round(c·a/255)).  WB_E_IO when out of memory. */
WbStatus wb_texture_from_image(WbTexture *tex, const WbImage *img, WbError *err);

/* Area-average (box filter) downscale of `src` to w×h (each no larger than
 * src's), in premultiplied space: every destination texel is the exact mean
 * of the source area it covers.  Used to pre-shrink a large photo to about
 * the output resolution, which bilinear sampling alone would alias. */
WbStatus wb_texture_downscale(WbTexture *dst, const WbTexture *src, int w, int h, WbError *err);

void wb_texture_free(WbTexture *tex);

/* Straight RGBA in [0,1] to a packed premultiplied colour (rounded). */
uint32_t wb_rgba_premul(double r, double g, double b, double a);

/* A texture with the constants of sampling worked out once, for loops that
 * sample one texture many times (the rasterizer's pixel loop): a local
 * WbTexSampler stays in registers, where a WbTexture behind a pointer would
 * be re-read after every store the loop makes.  Borrows tex->px. */
typedef struct WbTexSampler {
    const uint32_t *px;
    long w;           /* row stride in texels */
    int wm, hm;       /* w - 1, h - 1: the last texel column and row */
    float hx, hy;     /* 256·w, 256·h: the clamp limits of su, sv */
} WbTexSampler;

static inline WbTexSampler wb_tex_sampler(const WbTexture *tex)
{
    return (WbTexSampler){.px = tex->px, .w = tex->w, .wm = tex->w - 1, .hm = tex->h - 1,
                          .hx = (float)tex->w * 256.0f, .hy = (float)tex->h * 256.0f};
}

/* Bilinear sample with coordinates given as su = 256·(u - 0.5), sv =
 * 256·(v - 0.5): texel centres on multiples of 256.  The rasterizer's
 * attribute planes produce these directly, which saves the per-pixel
 * scaling.  Inline because it runs once per shaded pixel. */
static inline __attribute__((always_inline)) uint32_t wb_tex_sampler_fx(const WbTexSampler *t,
                                                                        float su, float sv)
{
    /* Clamp (NaN fails both tests and lands on the low side), then round to
     * the nearest 1/256 texel by truncating a value made positive: floorf
     * and lrintf are library calls on baseline x86-64. */
    const float low = -256.0f;
    su = su > low ? (su < t->hx ? su : t->hx) : low;
    sv = sv > low ? (sv < t->hy ? sv : t->hy) : low;
    int iu = (int)(su + 512.5f) - 512, iv = (int)(sv + 512.5f) - 512;
    /* iu, iv >= -256, so the shifts are of non-negative values, and
     * x0 >= -1, x1 = x0 + 1 >= 0 (likewise y): x1 and y1 need only the
     * upper clamp. */
    int x0 = ((iu + 256) >> 8) - 1, y0 = ((iv + 256) >> 8) - 1;
    int fx = (iu + 256) & 255, fy = (iv + 256) & 255;
    int x1 = x0 + 1, y1 = y0 + 1;
    const int wm = t->wm, hm = t->hm;
    x0 = x0 < 0 ? 0 : x0 > wm ? wm : x0;
    x1 = x1 > wm ? wm : x1;
    y0 = y0 < 0 ? 0 : y0 > hm ? hm : y0;
    y1 = y1 > hm ? hm : y1;
    const uint32_t *r0 = t->px + (long)y0 * t->w;
    const uint32_t *r1 = t->px + (long)y1 * t->w;
    uint32_t a = r0[x0], b = r0[x1], c = r1[x0], d = r1[x1];
    if (fx == 0 && fy == 0)
        return a;
#ifdef __SSE2__
    /* Same integers as the scalar path below, four channels at once:
     * horizontal blends h = a·(256-fx) + b·fx <= 65280 by pmaddwd on
     * interleaved (a, b) channel pairs, then the vertical blend in float,
     * where h·(256-fy) + h'·fy + 32768 < 2^24 is exact. */
    const __m128i z = _mm_setzero_si128();
    const __m128i wx = _mm_set1_epi32((int)((uint32_t)(256 - fx) | (uint32_t)fx << 16));
    __m128i ab = _mm_unpacklo_epi8(_mm_unpacklo_epi8(_mm_cvtsi32_si128((int)a),
                                                     _mm_cvtsi32_si128((int)b)), z);
    __m128i cd = _mm_unpacklo_epi8(_mm_unpacklo_epi8(_mm_cvtsi32_si128((int)c),
                                                     _mm_cvtsi32_si128((int)d)), z);
    __m128 top = _mm_cvtepi32_ps(_mm_madd_epi16(ab, wx));
    __m128 bot = _mm_cvtepi32_ps(_mm_madd_epi16(cd, wx));
    __m128 sum = _mm_add_ps(_mm_add_ps(_mm_mul_ps(top, _mm_set1_ps((float)(256 - fy))),
                                       _mm_mul_ps(bot, _mm_set1_ps((float)fy))),
                            _mm_set1_ps(32768.0f));
    __m128i q = _mm_srli_epi32(_mm_cvttps_epi32(sum), 16);
    q = _mm_packs_epi32(q, z);
    return (uint32_t)_mm_cvtsi128_si32(_mm_packus_epi16(q, z));
#else
    /* Weights sum to 65536.  Two channels per 64-bit word, one per 32-bit
     * lane (R|B and G|A): a lane's weighted sum is at most 255·65536 < 2^24,
     * so lanes never carry into each other. */
    uint64_t w00 = (uint64_t)((256 - fx) * (256 - fy)), w10 = (uint64_t)(fx * (256 - fy));
    uint64_t w01 = (uint64_t)((256 - fx) * fy), w11 = (uint64_t)(fx * fy);
#define WB_LO(c) ((uint64_t)((c) & 0xFFu) | (uint64_t)((c) & 0xFF0000u) << 16)
#define WB_HI(c) ((uint64_t)(((c) >> 8) & 0xFFu) | (uint64_t)(((c) >> 8) & 0xFF0000u) << 16)
    uint64_t lo = WB_LO(a) * w00 + WB_LO(b) * w10 + WB_LO(c) * w01 + WB_LO(d) * w11;
    uint64_t hi = WB_HI(a) * w00 + WB_HI(b) * w10 + WB_HI(c) * w01 + WB_HI(d) * w11;
#undef WB_LO
#undef WB_HI
    const uint64_t half = 0x0000800000008000u;
    lo = ((lo + half) >> 16) & 0x000000FF000000FFu;
    hi = ((hi + half) >> 16) & 0x000000FF000000FFu;
    return (uint32_t)(lo | lo >> 16) | (uint32_t)(hi | hi >> 16) << 8;
#endif
}

#ifdef __SSE2__
/* Four wb_tex_sampler_fx samples at once, lane k at (su[k], sv[k]), packed
 * one colour per 32-bit lane: the very same integers as four scalar calls
 * (same clamp, same rounding of the weights, same exact float blend), with
 * the coordinate arithmetic, the weights and the blends shared by the four
 * lanes; only the texel loads stay per lane (SSE2 has no gather): two
 * 8-byte loads, one per texel row, each fetching a horizontal pair. */
static inline __attribute__((always_inline)) __m128i wb_tex_sampler_fx4(const WbTexSampler *t,
                                                                        __m128 su, __m128 sv)
{
    /* The scalar clamp, lane-wise: minps(x, hi) is x < hi ? x : hi (NaN
     * gives hi), and the outer test is on x itself, so NaN gives low. */
    const __m128 low = _mm_set1_ps(-256.0f);
    const __m128 gu = _mm_cmpgt_ps(su, low), gv = _mm_cmpgt_ps(sv, low);
    su = _mm_or_ps(_mm_and_ps(gu, _mm_min_ps(su, _mm_set1_ps(t->hx))), _mm_andnot_ps(gu, low));
    sv = _mm_or_ps(_mm_and_ps(gv, _mm_min_ps(sv, _mm_set1_ps(t->hy))), _mm_andnot_ps(gv, low));
    const __m128i k512 = _mm_set1_epi32(512), k256 = _mm_set1_epi32(256);
    const __m128 half = _mm_set1_ps(512.5f);
    __m128i iu = _mm_add_epi32(_mm_sub_epi32(_mm_cvttps_epi32(_mm_add_ps(su, half)), k512), k256);
    __m128i iv = _mm_add_epi32(_mm_sub_epi32(_mm_cvttps_epi32(_mm_add_ps(sv, half)), k512), k256);
    const __m128i one = _mm_set1_epi32(1), m255 = _mm_set1_epi32(255);
    __m128i x0 = _mm_sub_epi32(_mm_srai_epi32(iu, 8), one);
    __m128i y0 = _mm_sub_epi32(_mm_srai_epi32(iv, 8), one);
    __m128i fx = _mm_and_si128(iu, m255), fy = _mm_and_si128(iv, m255);
    /* A lane whose column pair is clamped (x0 = -1, or x0 >= wm) reads one
     * column twice in the scalar path, a·(256-fx) + a·fx = a·256: the same
     * as weight fx = 0 on the clamped column and its right neighbour, so
     * every lane loads its pair with one 8-byte load (the texture keeps a
     * spare texel after its last, see WbTexture).  Rows clamp as in the
     * scalar path.  x0, y0 >= -1: max(x, 0) clears the -1. */
    const __m128i wm = _mm_set1_epi32(t->wm), hm = _mm_set1_epi32(t->hm);
    const __m128i edge = _mm_or_si128(_mm_srai_epi32(x0, 31),
                                      _mm_cmpgt_epi32(x0, _mm_sub_epi32(wm, one)));
    fx = _mm_andnot_si128(edge, fx);
    __m128i y1 = _mm_add_epi32(y0, one);
    x0 = _mm_andnot_si128(_mm_srai_epi32(x0, 31), x0);
    y0 = _mm_andnot_si128(_mm_srai_epi32(y0, 31), y0);
#define WB_MIN_EPI32(x, m) \
    _mm_or_si128(_mm_and_si128(_mm_cmpgt_epi32(x, m), m), _mm_andnot_si128(_mm_cmpgt_epi32(x, m), x))
    x0 = WB_MIN_EPI32(x0, wm);
    y0 = WB_MIN_EPI32(y0, hm);
    y1 = WB_MIN_EPI32(y1, hm);
#undef WB_MIN_EPI32
    int32_t X0[4], Y0[4], Y1[4];
    _mm_storeu_si128((__m128i *)X0, x0);
    _mm_storeu_si128((__m128i *)Y0, y0);
    _mm_storeu_si128((__m128i *)Y1, y1);
    const __m128i z = _mm_setzero_si128();
    __m128i ab[4], cd[4];
    for (int k = 0; k < 4; k++) {
        /* (a, b) and (c, d) as interleaved channel pairs: a.r b.r a.g b.g … */
        __m128i p = _mm_loadl_epi64((const __m128i *)(t->px + (long)Y0[k] * t->w + X0[k]));
        __m128i q = _mm_loadl_epi64((const __m128i *)(t->px + (long)Y1[k] * t->w + X0[k]));
        ab[k] = _mm_unpacklo_epi8(_mm_unpacklo_epi8(p, _mm_srli_si128(p, 4)), z);
        cd[k] = _mm_unpacklo_epi8(_mm_unpacklo_epi8(q, _mm_srli_si128(q, 4)), z);
    }
    const __m128i wx = _mm_or_si128(_mm_sub_epi32(k256, fx), _mm_slli_epi32(fx, 16));
    const __m128 wy1 = _mm_cvtepi32_ps(fy), wy0 = _mm_cvtepi32_ps(_mm_sub_epi32(k256, fy));
    const __m128 round = _mm_set1_ps(32768.0f);
    __m128i q[4];
#define WB_LANE(k)                                                                             \
    do {                                                                                     \
        const __m128i w_ = _mm_shuffle_epi32(wx, (k) * 0x55);                                \
        const __m128 top_ = _mm_cvtepi32_ps(_mm_madd_epi16(ab[k], w_));                      \
        const __m128 bot_ = _mm_cvtepi32_ps(_mm_madd_epi16(cd[k], w_));                      \
        const __m128 y0_ = _mm_shuffle_ps(wy0, wy0, (k) * 0x55);                              \
        const __m128 y1_ = _mm_shuffle_ps(wy1, wy1, (k) * 0x55);                              \
        const __m128 s_ = _mm_add_ps(_mm_add_ps(_mm_mul_ps(top_, y0_), _mm_mul_ps(bot_, y1_)), \
                                     round);                                                 \
        q[k] = _mm_srli_epi32(_mm_cvttps_epi32(s_), 16);                                     \
    } while (0)
    WB_LANE(0);
    WB_LANE(1);
    WB_LANE(2);
    WB_LANE(3);
#undef WB_LANE
    return _mm_packus_epi16(_mm_packs_epi32(q[0], q[1]), _mm_packs_epi32(q[2], q[3]));
}
#endif

/* Do the eight- and sixteen-lane samplers (texture_lanes.h) take this
 * texture?  Their texel indices are 32-bit: fewer than 2^31 texels. */
static inline int wb_tex_sampler_fx8_ok(const WbTexSampler *t)
{
    return (double)t->w * (double)(t->hm + 1) < 2147483647.0;
}

#if WB_SIMD_WIDE
/* texture_lanes.h's 8- and 16-lane samplers on arrays of 8 and 16 (built
 * in raster_photo_cells_w8.c, _w16.c; for the tests).  Call only where
 * wb_cpu_lanes() reaches the width. */
void wb_tex_sample_w8(const WbTexSampler *ts, const float *u, const float *v, uint32_t *out);
void wb_tex_sample_w16(const WbTexSampler *ts, const float *u, const float *v, uint32_t *out);
#endif

/* The same sample from a WbTexture. */
static inline __attribute__((always_inline)) uint32_t wb_texture_sample_fx(const WbTexture *tex,
                                                                          float su, float sv)
{
    const WbTexSampler t = wb_tex_sampler(tex);
    return wb_tex_sampler_fx(&t, su, sv);
}

/* Bilinear sample at (u, v) texels; see the conventions above. */
static inline uint32_t wb_texture_sample(const WbTexture *tex, float u, float v)
{
    return wb_texture_sample_fx(tex, u * 256.0f - 128.0f, v * 256.0f - 128.0f);
}

#endif
