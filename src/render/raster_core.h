/* raster_core.h — the one rasterizer core under wobble's three triangle
 * paths: the 2D recorder (raster.c), the photo grid (raster_photo.c) and
 * the depth-buffered 3D pipeline (raster3d.c).
 *
 * Internal to src/render.  Each of these is written once, here: fixed-point
 * vertices and edge functions with the top-left rule, the sample pattern
 * and coverage masks, packed premultiplied RGBA8 arithmetic, linear
 * attribute planes, the resolve, the size checks and the dispatch of bands
 * to workers.  One definition keeps the paths' conventions from drifting
 * apart (the same sample grid, rounding and fill rule), which is what lets
 * a 3D view and an overlay drawn by the 2D path meet without a seam.  The
 * helpers that sit in inner loops are static inline here; the rest is in
 * raster_core.c.
 */
#ifndef WB_RASTER_CORE_H
#define WB_RASTER_CORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <stdatomic.h>

#include "core/error.h"
#include "core/pool.h"
#include "core/scratch.h"
#include "render/texture.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define WB_RASTER_CORE_X86 1 /* AVX2 / AVX-512 forms of the edge helpers */
#include <immintrin.h>
#endif

#define FIX_ONE 256  /* 1 px in fixed point: 8 bits of sub-pixel precision */
#define FIX_HALF 128

#define ALWAYS_INLINE inline __attribute__((always_inline))

/* Grow-only per-frame arrays (capacity in elements, doubling from 64). */
static inline bool grow(void **p, size_t *cap, size_t need, size_t elem)
{
    return wb_scratch_reserve(p, cap, need, elem, 64);
}

/* ---- fixed point ------------------------------------------------------------ *
 *
 * Vertex positions become int32 in 1/256 px (FIX_ONE) once, in each path's
 * vertex stage.  For a triangle a, b, c with positive area the edge
 * function of edge p→q is
 *
 *     E(s) = (q.x - p.x)·(s.y - p.y) - (q.y - p.y)·(s.x - p.x),
 *
 * which is >= 0 on the inner side (y points down).  Coordinates stay within
 * ±2^28 (±2^20 px: clamped in 2D, the guard band in 3D), so differences fit
 * in 29 bits, products in 58 and E in 60: int64 is exact, every sample gets
 * the same answer from every triangle sharing an edge, and there are no
 * cracks.  Boxes at most NARROW_FIX wide and high keep every E the loops
 * meet below 2^30, so those run in int32 lanes. */

#define FIX_LIMIT_PX 1048576.0f /* 2^20 px */
#define FIX_INVALID INT32_MIN   /* a NaN/Inf vertex */
#define NARROW_FIX (1 << 14)    /* 64 px */

/* Pixels → 1/256 px, rounded to nearest, by truncating a value made
 * positive by an offset (exact in double): floor() is a library call on
 * baseline x86-64.  |v| must be below 2^20 px. */
static ALWAYS_INLINE int32_t fix_round(double v)
{
    const double bias = 1073741824.0; /* 2^30 > 2^28 */
    return (int32_t)((int64_t)(v * FIX_ONE + 0.5 + bias) - (int64_t)bias);
}

/* fix_round of v clamped to ±2^20 px (the 2D paths take any float). */
static inline int32_t to_fixed(float v)
{
    v = v < -FIX_LIMIT_PX ? -FIX_LIMIT_PX : v > FIX_LIMIT_PX ? FIX_LIMIT_PX : v;
    return fix_round((double)v);
}

/* floor(v / 256) for |v| < 2^40, by shifting a value made non-negative
 * (right shifts of negative numbers are implementation-defined in C). */
static ALWAYS_INLINE int32_t floor_div256(int64_t v)
{
    const int64_t bias = (int64_t)1 << 40;
    return (int32_t)(((v + bias) >> 8) - (bias >> 8));
}

/* ---- the top-left rule -------------------------------------------------------- *
 *
 * A sample exactly on an edge (E = 0) belongs to the triangle only if the
 * edge is a top edge (horizontal, interior below: dy = 0, dx > 0) or a left
 * edge (interior to the right: dy < 0).  Two triangles sharing an edge run
 * it in opposite directions, so exactly one of them owns it.  Implemented
 * as a bias: E - 1 >= 0 for the other edges.  The vector forms give -1 in
 * the lanes to bias (added to E), 0 elsewhere: the same integers. */

static ALWAYS_INLINE int32_t edge_bias(int64_t dx, int64_t dy)
{
    return dy < 0 || (dy == 0 && dx > 0) ? 0 : 1;
}

#ifdef __SSE2__
static ALWAYS_INLINE __m128i edge_bias4(__m128i dx, __m128i dy)
{
    const __m128i zero = _mm_setzero_si128();
    return _mm_or_si128(_mm_cmpgt_epi32(dy, zero),
                        _mm_andnot_si128(_mm_cmpgt_epi32(dx, zero), _mm_cmpeq_epi32(dy, zero)));
}
#endif

#ifdef WB_RASTER_CORE_X86
__attribute__((target("avx2"))) static ALWAYS_INLINE __m256i edge_bias8(__m256i dx, __m256i dy)
{
    const __m256i zero = _mm256_setzero_si256();
    return _mm256_or_si256(_mm256_cmpgt_epi32(dy, zero),
                           _mm256_andnot_si256(_mm256_cmpgt_epi32(dx, zero),
                                               _mm256_cmpeq_epi32(dy, zero)));
}

/* The lanes to bias, as a mask. */
__attribute__((target("avx512f"))) static ALWAYS_INLINE __mmask16 edge_bias16(__m512i dx,
                                                                             __m512i dy)
{
    const __m512i zero = _mm512_setzero_si512();
    return (__mmask16)~(_mm512_cmplt_epi32_mask(dy, zero) |
                        (_mm512_cmpeq_epi32_mask(dy, zero) & _mm512_cmpgt_epi32_mask(dx, zero)));
}
#endif

/* ---- samples -------------------------------------------------------------------- */

/* The sample pattern (Direct3D standard positions) in the units the inner
 * loops want, shared read-only by all bands of a frame. */
typedef struct Pattern {
    int S;
    int32_t ox[16], oy[16];          /* offsets in 1/256 px */
    int32_t omin_x, omax_x, omin_y, omax_y;
    int16_t yx[32];                  /* oy[s], ox[s] interleaved (for pmaddwd) */
    float cx[256], cy[256];          /* S <= 8: centroid offset (px) per mask */
} Pattern;

void wb_raster_pattern_init(Pattern *p, int S);

/* Centroid of the covered samples, px from the pixel centre. */
static ALWAYS_INLINE void centroid(const Pattern *p, unsigned mask, float *cx, float *cy)
{
    if (p->S <= 8) {
        *cx = p->cx[mask];
        *cy = p->cy[mask];
        return;
    }
    int sx = 0, sy = 0, n = 0;
    for (unsigned m = mask; m; m &= m - 1) {
        int s = __builtin_ctz(m);
        sx += p->ox[s];
        sy += p->oy[s];
        n++;
    }
    *cx = (float)sx / (float)(n * FIX_ONE);
    *cy = (float)sy / (float)(n * FIX_ONE);
}

/* Pixels whose samples may lie in [lo, hi] (fixed point) along one axis:
 * sample k of pixel i sits at i·256 + 128 + o_k, o_k in [omin, omax]. */
static ALWAYS_INLINE void pixel_span(int32_t lo, int32_t hi, int32_t omin, int32_t omax,
                                     int32_t *first, int32_t *last)
{
    *first = -floor_div256(-((int64_t)lo - FIX_HALF - omax)); /* ceil */
    *last = floor_div256((int64_t)hi - FIX_HALF - omin);
}

/* ---- coverage masks ----------------------------------------------------------- */

/* Coverage mask of one pixel: bit s set when sample s is inside all three
 * edges (edge value + per-sample offset >= 0). */
static ALWAYS_INLINE unsigned mask_narrow(int64_t e0, int64_t e1, int64_t e2,
                                          int32_t off[3][16], const int S)
{
#ifdef __SSE2__
    if (S >= 4) {
        const __m128i v0 = _mm_set1_epi32((int32_t)e0), v1 = _mm_set1_epi32((int32_t)e1);
        const __m128i v2 = _mm_set1_epi32((int32_t)e2);
        unsigned neg = 0;
        for (int q = 0; q < S; q += 4) {
            __m128i t0 = _mm_add_epi32(v0, _mm_loadu_si128((const __m128i *)(off[0] + q)));
            __m128i t1 = _mm_add_epi32(v1, _mm_loadu_si128((const __m128i *)(off[1] + q)));
            __m128i t2 = _mm_add_epi32(v2, _mm_loadu_si128((const __m128i *)(off[2] + q)));
            __m128i t = _mm_or_si128(_mm_or_si128(t0, t1), t2);
            neg |= (unsigned)_mm_movemask_ps(_mm_castsi128_ps(t)) << q;
        }
        return ~neg & ((1u << S) - 1u);
    }
#endif
    unsigned mask = 0;
    for (int s = 0; s < S; s++)
        mask |= (((int32_t)e0 + off[0][s]) | ((int32_t)e1 + off[1][s]) |
                 ((int32_t)e2 + off[2][s])) >= 0 ? 1u << s : 0u;
    return mask;
}

static ALWAYS_INLINE unsigned mask_wide(int64_t e0, int64_t e1, int64_t e2,
                                        int64_t off[3][16], const int S)
{
    unsigned mask = 0;
    for (int s = 0; s < S; s++)
        mask |= (unsigned)(((e0 + off[0][s]) | (e1 + off[1][s]) | (e2 + off[2][s])) >= 0) << s;
    return mask;
}

/* ---- colour arithmetic on packed premultiplied RGBA8 ------------------------ */

/* c·m/255 per channel, rounded to nearest (m in 0..255); the channels
 * never carry into each other. */
static ALWAYS_INLINE uint32_t mul255(uint32_t c, uint32_t m)
{
    uint32_t rb = (c & 0x00FF00FFu) * m + 0x00800080u;
    rb = ((rb + ((rb >> 8) & 0x00FF00FFu)) >> 8) & 0x00FF00FFu;
    uint32_t ag = ((c >> 8) & 0x00FF00FFu) * m + 0x00800080u;
    ag = (ag + ((ag >> 8) & 0x00FF00FFu)) & 0xFF00FF00u;
    return rb | ag;
}

/* Porter–Duff "over", premultiplied: s + d·(1 − s.a).  Premultiplied
 * channels never exceed alpha, so no channel can carry into the next. */
static ALWAYS_INLINE uint32_t blend_over(uint32_t s, uint32_t d)
{
    return s + mul255(d, 255u - (s >> 24));
}

/* Premultiplied floats in [0, 1] → packed, rounded, each colour clamped to
 * alpha (NaN → 0). */
static ALWAYS_INLINE uint32_t pack_premul(float r, float g, float b, float a)
{
    a = a > 0.0f ? (a < 1.0f ? a : 1.0f) : 0.0f;
    r = r > 0.0f ? (r < a ? r : a) : 0.0f;
    g = g > 0.0f ? (g < a ? g : a) : 0.0f;
    b = b > 0.0f ? (b < a ? b : a) : 0.0f;
    return WB_RGBA((uint32_t)(r * 255.0f + 0.5f), (uint32_t)(g * 255.0f + 0.5f),
                   (uint32_t)(b * 255.0f + 0.5f), (uint32_t)(a * 255.0f + 0.5f));
}

/* ---- attribute planes -------------------------------------------------------- */

/* A linear attribute plane: value = o + gx·dx + gy·dy, (dx, dy) in px from
 * the centre of the triangle's first pixel. */
typedef struct Plane {
    float o, gx, gy;
} Plane;

/* Plane through (0,va), (b,vb), (c,vc), vertex positions relative to vertex
 * a (inv_det = 1 / (bx·cy − by·cx)); (pax, pay) is vertex a relative to the
 * origin pixel centre. */
static ALWAYS_INLINE Plane plane(float va, float vb, float vc, float bx, float by, float cx,
                                 float cy, float inv_det, float pax, float pay)
{
    float d1 = vb - va, d2 = vc - va;
    Plane p;
    p.gx = (d1 * cy - d2 * by) * inv_det;
    p.gy = (d2 * bx - d1 * cx) * inv_det;
    p.o = va - p.gx * pax - p.gy * pay;
    return p;
}

/* Evaluated in this order ((o + gx·dx) + gy·dy) everywhere: vector code
 * that must give the same bits repeats it lane-wise. */
static ALWAYS_INLINE float plane_at(Plane p, float dx, float dy)
{
    return p.o + p.gx * dx + p.gy * dy;
}

/* ---- resolve ----------------------------------------------------------------- */

/* One pixel's S samples (same: all equal to sp[0]) → straight-alpha RGBA8:
 * the mean in premultiplied space, c = round(255·Σc/Σa), a = round(Σa/S). */
static ALWAYS_INLINE void resolve_px(const uint32_t *sp, bool same, const int S, uint8_t *out)
{
    uint32_t c0 = sp[0];
    uint32_t sr, sg, sb, sa, n;
    if (same && c0 >> 24 == 255) {
        /* Opaque and uniform: the straight colour is the premultiplied one
         * (255·c/255 = c). */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        memcpy(out, &c0, 4); /* WB_RGBA keeps R in the low byte, as in memory */
#else
        out[0] = (uint8_t)WB_RGBA_R(c0);
        out[1] = (uint8_t)WB_RGBA_G(c0);
        out[2] = (uint8_t)WB_RGBA_B(c0);
        out[3] = 255;
#endif
        return;
    }
    if (same) {
        sr = WB_RGBA_R(c0), sg = WB_RGBA_G(c0), sb = WB_RGBA_B(c0), sa = WB_RGBA_A(c0);
        n = 1;
    } else {
        sr = sg = sb = sa = 0;
        for (int s = 0; s < S; s++) {
            sr += WB_RGBA_R(sp[s]);
            sg += WB_RGBA_G(sp[s]);
            sb += WB_RGBA_B(sp[s]);
            sa += WB_RGBA_A(sp[s]);
        }
        n = (uint32_t)S;
    }
    if (sa == 0) {
        out[0] = out[1] = out[2] = out[3] = 0;
        return;
    }
    uint32_t cr = (sr * 255 + sa / 2) / sa, cg = (sg * 255 + sa / 2) / sa;
    uint32_t cb = (sb * 255 + sa / 2) / sa;
    out[0] = (uint8_t)(cr > 255 ? 255 : cr);
    out[1] = (uint8_t)(cg > 255 ? 255 : cg);
    out[2] = (uint8_t)(cb > 255 ? 255 : cb);
    out[3] = (uint8_t)((sa + n / 2) / n);
}

/* Resolve one band row: average the samples in premultiplied space and
 * write straight alpha, c = round(255·Σc / Σa), a = round(Σa / S).  S is a
 * compile-time constant at each call site. */
static ALWAYS_INLINE void resolve_row_s(const uint32_t *sp, int w, const int S, uint8_t *out)
{
    for (int x = 0; x < w; x++, sp += S, out += 4) {
        uint32_t c0 = sp[0];
        bool same = true;
#ifdef __SSE2__
        if (S >= 4) {
            const __m128i c0v = _mm_set1_epi32((int32_t)c0);
            __m128i eq = _mm_cmpeq_epi32(_mm_loadu_si128((const __m128i *)sp), c0v);
            for (int q = 4; q < S; q += 4)
                eq = _mm_and_si128(eq, _mm_cmpeq_epi32(_mm_loadu_si128((const __m128i *)(sp + q)), c0v));
            same = _mm_movemask_epi8(eq) == 0xFFFF;
        } else
#endif
        {
            for (int s = 1; s < S; s++)
                same &= sp[s] == c0;
        }
        resolve_px(sp, same, S, out);
    }
}

/* resolve_row_s for one sample per pixel, four opaque pixels at a time
 * (their packed words are already the output bytes). */
static inline void resolve_flat_row(const uint32_t *sp, int w, uint8_t *out)
{
    int x = 0;
#if defined(__SSE2__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    const __m128i amask = _mm_set1_epi32((int)0xFF000000u);
    for (; x + 4 <= w; x += 4) {
        const __m128i c = _mm_loadu_si128((const __m128i *)(sp + x));
        if (_mm_movemask_epi8(_mm_cmpeq_epi32(_mm_and_si128(c, amask), amask)) == 0xFFFF)
            _mm_storeu_si128((__m128i *)(out + 4 * (size_t)x), c);
        else
            resolve_row_s(sp + x, 4, 1, out + 4 * (size_t)x);
    }
#endif
    resolve_row_s(sp + x, w - x, 1, out + 4 * (size_t)x);
}

/* ---- limits, bands and workers ----------------------------------------------- */

/* WB_E_INPUT unless 1 <= w, h <= 32768 and samples is 1, 4, 8 or 16. */
WbStatus wb_raster_check_size(int w, int h, int samples, WbError *err);

/* Bands handed to workers: every worker task claims the next band until
 * none is left.  Bands are fixed rows (never derived from the thread
 * count), so the bytes do not depend on which worker draws which band. */
typedef struct BandQueue {
    atomic_int next;
    int n;
} BandQueue;

/* Run `task` (worker index as its task) on min(threads, n_bands) workers,
 * each pulling bands from q with band_next. */
void wb_raster_bands_run(WbPool *pool, BandQueue *q, int n_bands, WbPoolFn task, void *ctx);

/* The next band to draw, or -1 when every band is taken. */
static inline int band_next(BandQueue *q)
{
    int band = atomic_fetch_add_explicit(&q->next, 1, memory_order_relaxed);
    return band < q->n ? band : -1;
}

#endif
