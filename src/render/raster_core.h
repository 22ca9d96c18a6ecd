/* raster_core.h — the one rasterizer core under wobble's three triangle
 * paths: the 2D recorder (raster.c), the photo grid (raster_photo.c) and
 * the depth-buffered 3D pipeline (raster3d.c).
 *
 * Internal to src/render.  Each of these is written once, here: fixed-point
 * vertices and edge functions with the top-left rule, the sample pattern
 * and coverage masks, the triangle walk (edge setup and per-sample
 * coverage, the path's depth test and shading inlined as callbacks; the
 * 3D path's, raster_2d.h's draw_tri still walks its own), packed
 * premultiplied RGBA8 arithmetic, linear attribute planes, the resolve
 * (fused with the clear of the 3D depth bands), the size checks and the
 * dispatch of bands to workers.  One definition keeps the paths'
 * conventions from drifting apart (the same sample grid, rounding and fill
 * rule), which is what lets a 3D view and an overlay drawn by the 2D path
 * meet without a seam.  The helpers that sit in inner loops are static
 * inline here; the rest is in raster_core.c.
 */
#ifndef WB_RASTER_CORE_H
#define WB_RASTER_CORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <stdatomic.h>

#include "core/error.h"
#include "core/image.h"
#include "core/pool.h"
#include "core/scratch.h"
#include "render/texture.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif
/* The AVX2 and AVX-512 forms below exist only in the lane kernels built
 * for those widths (*_w8.c, *_w16.c: see core/simd.h). */
#if defined(__AVX2__)
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
 * cracks.  Boxes whose every E the loops meet fits int32 (box_narrow: at
 * most NARROW_FIX wide and high, or thin) run in int32 lanes. */

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

#ifdef __AVX2__
static ALWAYS_INLINE __m256i edge_bias8(__m256i dx, __m256i dy)
{
    const __m256i zero = _mm256_setzero_si256();
    return _mm256_or_si256(_mm256_cmpgt_epi32(dy, zero),
                           _mm256_andnot_si256(_mm256_cmpgt_epi32(dx, zero),
                                               _mm256_cmpeq_epi32(dy, zero)));
}
#endif

#ifdef WB_W
/* The same at core/simd.h's lane width (the kernels written once). */
static ALWAYS_INLINE WbI edge_bias_lanes(WbI dx, WbI dy)
{
    const WbI zero = wb_i_set(0);
    return (dy > zero) | ((dy == zero) & ~(dx > zero));
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
    float fx[16], fy[16];            /* ox, oy as floats (1/256 px, exact) */
    float sx[16], sy[16];            /* the offsets in px (1/16 px steps, exact) */
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

/* ---- the triangle walk -------------------------------------------------------- *
 *
 * Per triangle, once: the box of pixels whose samples it may cover, the
 * edge values at the box's first pixel centre and their per-pixel and
 * per-row steps.  Then per pixel of the box the coverage mask, handed with
 * the pixel to the caller's callbacks: `row` when a row of the box starts,
 * `pixel` for every pixel some sample covers.  The callbacks are the
 * path's depth test, shading and store; they and their last three
 * arguments (S, mode, pass: constants at each call site) are known where
 * the walk is inlined, so the compiler folds them into the loops. */

/* A triangle ready to walk. */
typedef struct TriBox {
    int32_t x[3], y[3];        /* corners, counter-clockwise (positive area), 1/256 px */
    int32_t r0, r1, c0, c1;    /* pixels whose samples it may cover, clipped (inclusive) */
    int32_t X0, Y0;            /* centre of pixel (c0, r0), 1/256 px */
    bool narrow;               /* box_narrow: every edge value the walk meets, stepped
                                  or not, fits int32 */
} TriBox;

/* row(ud, t, py, S, mode, pass): row py of the box starts.  pixel(ud, si, mask, i, j, S,
 * mode, pass): pixel (c0 + i, r0 + j), its first sample at index si of the
 * buffer, samples `mask` (non-empty) covered. */
typedef void (*TriRowFn)(void *ud, const TriBox *t, int32_t py, int S, int mode, int pass);
typedef void (*TriPixelFn)(void *ud, size_t si, unsigned mask, int32_t i, int32_t j, int S,
                           int mode, int pass);
/* span(ud, si, i0, i1, j, S, mode, pass): pixels c0 + i0 .. c0 + i1 of row
 * r0 + j, every sample of each covered, the first's samples at si. */
typedef void (*TriSpanFn)(void *ud, size_t si, int32_t i0, int32_t i1, int32_t j, int S,
                          int mode, int pass);

/* Whether the walk of t (corners, pixel box and X0, Y0 set; W × H the
 * corners' extents) may run in int32: every edge value it meets, stepped
 * or not, fits.  A box at most NARROW_FIX wide and high always does (each
 * product below 2^28.1, E below 2^30).  Past that, a box of at most 64 px
 * columns (longer rows are cheaper solved for their runs: the wide path)
 * does when E, affine, fits at the corners of its pixel box widened by
 * 2 px (the samples and one step past the last pixel or row lie within
 * 1.5 px): a pole, or a sliver cut to a band's rows.  |dx|, |dy| ≤
 * 2^20 keep the sample offsets' products dx·oy − dy·ox (multiples of 16,
 * below 2^28) exact in float. */
static ALWAYS_INLINE bool box_narrow(const TriBox *t, int64_t W, int64_t H)
{
    if (W <= NARROW_FIX && H <= NARROW_FIX)
        return true;
    const int64_t lim = INT32_MAX, big = (int64_t)1 << 20, m = 2 * FIX_ONE;
    if (t->c1 - t->c0 > NARROW_FIX / FIX_ONE || W > big || H > big)
        return false;
    const int64_t px[2] = {(int64_t)t->X0 - m, (int64_t)t->X0 + (int64_t)(t->c1 - t->c0) * FIX_ONE + m};
    const int64_t py[2] = {(int64_t)t->Y0 - m, (int64_t)t->Y0 + (int64_t)(t->r1 - t->r0) * FIX_ONE + m};
    for (int k = 0; k < 3; k++) {
        const int k1 = k == 2 ? 0 : k + 1;
        const int64_t dx = (int64_t)t->x[k1] - t->x[k], dy = (int64_t)t->y[k1] - t->y[k];
        for (int c = 0; c < 4; c++) {
            const int64_t e = dx * (py[c >> 1] - t->y[k]) - dy * (px[c & 1] - t->x[k]);
            if (e > lim || e < -lim)
                return false;
        }
    }
    return true;
}

/* The box of corners (x, y) clipped to pixels [cx0, cx1] × [cy0, cy1];
 * false when no pixel is left or the area is zero.  *swapped: corners 1
 * and 2 were exchanged to make the area positive (attributes follow). */
static ALWAYS_INLINE bool tri_box(TriBox *t, const int32_t x[3], const int32_t y[3],
                                  const Pattern *p, int32_t cx0, int32_t cx1, int32_t cy0,
                                  int32_t cy1, bool *swapped)
{
    int64_t area = (int64_t)(x[1] - x[0]) * (y[2] - y[0]) - (int64_t)(y[1] - y[0]) * (x[2] - x[0]);
    if (area == 0)
        return false;
    int32_t ymin = y[0], ymax = y[0], xmin = x[0], xmax = x[0];
    for (int i = 1; i < 3; i++) {
        ymin = y[i] < ymin ? y[i] : ymin;
        ymax = y[i] > ymax ? y[i] : ymax;
        xmin = x[i] < xmin ? x[i] : xmin;
        xmax = x[i] > xmax ? x[i] : xmax;
    }
    pixel_span(ymin, ymax, p->omin_y, p->omax_y, &t->r0, &t->r1);
    t->r0 = t->r0 < cy0 ? cy0 : t->r0;
    t->r1 = t->r1 > cy1 ? cy1 : t->r1;
    if (t->r0 > t->r1)
        return false;
    pixel_span(xmin, xmax, p->omin_x, p->omax_x, &t->c0, &t->c1);
    t->c0 = t->c0 < cx0 ? cx0 : t->c0;
    t->c1 = t->c1 > cx1 ? cx1 : t->c1;
    if (t->c0 > t->c1)
        return false;
    *swapped = area < 0;
    const int k1 = area < 0 ? 2 : 1, k2 = area < 0 ? 1 : 2;
    t->x[0] = x[0], t->y[0] = y[0];
    t->x[1] = x[k1], t->y[1] = y[k1];
    t->x[2] = x[k2], t->y[2] = y[k2];
    t->X0 = t->c0 * FIX_ONE + FIX_HALF;
    t->Y0 = t->r0 * FIX_ONE + FIX_HALF;
    t->narrow = box_narrow(t, (int64_t)xmax - xmin, (int64_t)ymax - ymin);
    return true;
}

#ifdef __SSE2__
/* A narrow box, 4 samples per pixel: ev holds edge k's values at the first
 * pixel's four samples, stepped by sx per pixel and sy per row, all in
 * int32.  The loop carries only the edge values and the index (most pixels
 * of a 2-3 px triangle's box are empty).  Samples of row py start at
 * (py − y0)·stride. */
static ALWAYS_INLINE void tri_walk_narrow4(const TriBox *t, const __m128i ev[3],
                                           const __m128i sxv[3], const __m128i syv[3],
                                           int32_t y0, size_t stride, void *ud, TriRowFn row,
                                           TriPixelFn pixel, const int mode, const int pass)
{
    const __m128i s0 = sxv[0], s1 = sxv[1], s2 = sxv[2];
    const __m128i t0 = syv[0], t1 = syv[1], t2 = syv[2];
    __m128i w0 = ev[0], w1 = ev[1], w2 = ev[2];
    const int32_t n = t->c1 - t->c0, rows = t->r1 - t->r0;
    size_t si = (size_t)(t->r0 - y0) * stride + (size_t)t->c0 * 4;
    for (int32_t j = 0; j <= rows; j++, si += stride) {
        row(ud, t, t->r0 + j, 4, mode, pass);
        __m128i e0 = w0, e1 = w1, e2 = w2;
        w0 = _mm_add_epi32(w0, t0);
        w1 = _mm_add_epi32(w1, t1);
        w2 = _mm_add_epi32(w2, t2);
        for (int32_t i = 0; i <= n; i++) {
            const unsigned neg = (unsigned)_mm_movemask_ps(
                _mm_castsi128_ps(_mm_or_si128(_mm_or_si128(e0, e1), e2)));
            e0 = _mm_add_epi32(e0, s0);
            e1 = _mm_add_epi32(e1, s1);
            e2 = _mm_add_epi32(e2, s2);
            if (neg != 15u)
                pixel(ud, si + 4 * (size_t)i, ~neg & 15u, i, j, 4, mode, pass);
        }
    }
}
#endif

/* quad(ud, si, mask, i, j, mode, pass): pixels (c0 + i .. c0 + i + 3,
 * r0 + j), 4 samples each from index si; bit 4p + s of mask: sample s of
 * pixel i + p covered (none past the box).  Never called with mask 0. */
typedef void (*TriQuadFn)(void *ud, size_t si, unsigned mask, int32_t i, int32_t j, int mode,
                          int pass);

#ifdef __AVX512F__

/* tri_walk_narrow4 four pixels per step: one 16-lane vector holds the edge
 * values of four neighbouring pixels' samples (each the one before plus
 * one step: the same int32 sums, wrapping alike), so a 2-4 px wide box row
 * is one test, without a branch per pixel, and the caller shades the
 * pixels side by side.  Pixels past the box get no mask bits (their edge
 * values, a few px out, are never used). */
static ALWAYS_INLINE void tri_walk_narrow4x4(const TriBox *t, const __m128i ev[3],
                                             const __m128i sxv[3], const __m128i syv[3],
                                             int32_t y0, size_t stride, void *ud, TriRowFn row,
                                             TriQuadFn quad, const int mode, const int pass)
{
    __m512i w[3], st[3], sy[3];
    for (int k = 0; k < 3; k++) {
        const __m128i e1 = _mm_add_epi32(ev[k], sxv[k]), e2 = _mm_add_epi32(e1, sxv[k]);
        const __m128i e3 = _mm_add_epi32(e2, sxv[k]);
        w[k] = _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_set_m128i(e1, ev[k])),
                                  _mm256_set_m128i(e3, e2), 1);
        st[k] = _mm512_broadcast_i32x4(_mm_slli_epi32(sxv[k], 2));
        sy[k] = _mm512_broadcast_i32x4(syv[k]);
    }
    const int32_t n = t->c1 - t->c0, rows = t->r1 - t->r0;
    /* the samples of the pixels of the last quad that lie in the box */
    const unsigned tail = 0xFFFFu >> (4 * (3 - (n & 3)));
    const __m512i zero = _mm512_setzero_si512();
    size_t si = (size_t)(t->r0 - y0) * stride + (size_t)t->c0 * 4;
    for (int32_t j = 0; j <= rows; j++, si += stride) {
        row(ud, t, t->r0 + j, 4, mode, pass);
        __m512i e0 = w[0], e1 = w[1], e2 = w[2];
        w[0] = _mm512_add_epi32(w[0], sy[0]);
        w[1] = _mm512_add_epi32(w[1], sy[1]);
        w[2] = _mm512_add_epi32(w[2], sy[2]);
        for (int32_t i = 0; i <= n; i += 4) {
            /* covered: every edge value non-negative (the sign bit of the or) */
            unsigned cov = _mm512_cmpge_epi32_mask(
                _mm512_or_si512(_mm512_or_si512(e0, e1), e2), zero);
            e0 = _mm512_add_epi32(e0, st[0]);
            e1 = _mm512_add_epi32(e1, st[1]);
            e2 = _mm512_add_epi32(e2, st[2]);
            if (i + 3 > n)
                cov &= tail;
            if (cov)
                quad(ud, si + 4 * (size_t)i, cov, i, j, mode, pass);
        }
    }
}
#endif

/* Walk the box of t (see tri_box) with S samples per pixel over a buffer
 * whose row py starts at sample (py − y0)·stride.  quad, when not NULL,
 * takes a narrow 4-sample box's pixels four at a time (AVX-512 builds). */
static ALWAYS_INLINE void tri_walk(const TriBox *t, const Pattern *pat, int32_t y0,
                                   size_t stride, void *ud, TriRowFn row, TriPixelFn pixel,
                                   TriSpanFn span, TriQuadFn quad, const int S, const int mode,
                                   const int pass)
{
    const int32_t X0 = t->X0, Y0 = t->Y0, r0 = t->r0, r1 = t->r1, c0 = t->c0, c1 = t->c1;
#ifdef __SSE2__
    if (t->narrow && S == 4) {
        /* The general narrow loop below for one vector of samples, with
         * the edge setup in int32 (the first pixel's edge values fit: see
         * box_narrow) and every edge value in a register: small
         * triangles cover 2-3 px rows, so the per triangle and per row
         * work is most of the cost. */
        const __m128 ofx = _mm_loadu_ps(pat->fx), ofy = _mm_loadu_ps(pat->fy);
        __m128i ev[3], sxv[3], syv[3];
        for (int k = 0; k < 3; k++) {
            const int k1 = k == 2 ? 0 : k + 1;
            const int32_t dx = t->x[k1] - t->x[k], dy = t->y[k1] - t->y[k];
            const int32_t e0 = (int32_t)((int64_t)dx * (Y0 - t->y[k]) -
                                         (int64_t)dy * (X0 - t->x[k]) - edge_bias(dx, dy));
            sxv[k] = _mm_set1_epi32(-dy * FIX_ONE);
            syv[k] = _mm_set1_epi32(dx * FIX_ONE);
            const __m128 o = _mm_sub_ps(_mm_mul_ps(_mm_set1_ps((float)dx), ofy),
                                        _mm_mul_ps(_mm_set1_ps((float)dy), ofx));
            ev[k] = _mm_add_epi32(_mm_set1_epi32(e0), _mm_cvttps_epi32(o));
        }
#ifdef __AVX512F__
        if (quad) {
            tri_walk_narrow4x4(t, ev, sxv, syv, y0, stride, ud, row, quad, mode, pass);
            return;
        }
#endif
        tri_walk_narrow4(t, ev, sxv, syv, y0, stride, ud, row, pixel, mode, pass);
        return;
    }
#endif
    /* Edge k runs from corner k to corner k + 1. */
    int64_t erow[3], stepx[3], stepy[3], edx[3], edy[3];
    for (int k = 0; k < 3; k++) {
        const int k1 = k == 2 ? 0 : k + 1;
        int64_t dx = (int64_t)t->x[k1] - t->x[k], dy = (int64_t)t->y[k1] - t->y[k];
        erow[k] = dx * ((int64_t)Y0 - t->y[k]) - dy * ((int64_t)X0 - t->x[k]) - edge_bias(dx, dy);
        stepx[k] = -dy * FIX_ONE;
        stepy[k] = dx * FIX_ONE;
        edx[k] = dx;
        edy[k] = dy;
    }
#ifdef __SSE2__
    if (t->narrow && S >= 4) {
        /* Every edge value the loop meets fits int32 (box_narrow), so four
         * samples are tested per instruction and stepped by one add per
         * pixel.  Sample s of the first pixel: erow + dx·oy[s] − dy·ox[s],
         * exact in float (box_narrow), four samples at a time. */
        __m128i rowv[3][4], sx4[3], sy4[3];
        for (int k = 0; k < 3; k++) {
            sx4[k] = _mm_set1_epi32((int32_t)stepx[k]);
            sy4[k] = _mm_set1_epi32((int32_t)stepy[k]);
            const __m128 fdx = _mm_set1_ps((float)edx[k]), fdy = _mm_set1_ps((float)edy[k]);
            const __m128i e0 = _mm_set1_epi32((int32_t)erow[k]);
            for (int q = 0; q < S / 4; q++) {
                __m128 o = _mm_sub_ps(_mm_mul_ps(fdx, _mm_loadu_ps(pat->fy + 4 * q)),
                                      _mm_mul_ps(fdy, _mm_loadu_ps(pat->fx + 4 * q)));
                rowv[k][q] = _mm_add_epi32(e0, _mm_cvttps_epi32(o));
            }
        }
        const unsigned all = (1u << S) - 1u;
        for (int32_t py = r0; py <= r1; py++) {
            row(ud, t, py, S, mode, pass);
            __m128i e[3][4];
            for (int k = 0; k < 3; k++)
                for (int q = 0; q < S / 4; q++) {
                    e[k][q] = rowv[k][q];
                    rowv[k][q] = _mm_add_epi32(rowv[k][q], sy4[k]);
                }
            const size_t base = (size_t)(py - y0) * stride + (size_t)c0 * (size_t)S;
            for (int32_t i = 0; i <= c1 - c0; i++) {
                unsigned neg = 0;
                for (int q = 0; q < S / 4; q++) {
                    __m128i v = _mm_or_si128(_mm_or_si128(e[0][q], e[1][q]), e[2][q]);
                    neg |= (unsigned)_mm_movemask_ps(_mm_castsi128_ps(v)) << (4 * q);
                    e[0][q] = _mm_add_epi32(e[0][q], sx4[0]);
                    e[1][q] = _mm_add_epi32(e[1][q], sx4[1]);
                    e[2][q] = _mm_add_epi32(e[2][q], sx4[2]);
                }
                if (neg != all)
                    pixel(ud, base + (size_t)i * (size_t)S, ~neg & all, i, py - r0, S, mode,
                          pass);
            }
        }
        return;
    }
#endif
    int64_t off[3][16];
    for (int k = 0; k < 3; k++)
        for (int s = 0; s < S; s++)
            off[k][s] = edx[k] * pat->oy[s] - edy[k] * pat->ox[s];
    /* Wide boxes (or one sample): edge values need 64 bits, so rather than
     * testing every pixel of the box, each row solves the three edge
     * inequalities for the run of pixels each sample covers.  Sample s of
     * pixel c0 + i is inside edge k iff v + st·i ≥ 0 with v = erow + off[s]
     * and st = stepx, an exact integer inequality whose solution is a
     * half-line in i: i ≥ ⌈−v/st⌉ (st > 0), i ≤ ⌊v/−st⌋ (st < 0), all or
     * nothing (st = 0).  The same pixels get the same masks, in the same
     * order, as a per-pixel test, and pixels no sample covers are skipped. */
    const int32_t n = c1 - c0;
    for (int32_t py = r0; py <= r1; py++) {
        row(ud, t, py, S, mode, pass);
        int32_t lo[16], hi[16];
        int32_t L = INT32_MAX, R = INT32_MIN;
        for (int s = 0; s < S; s++) {
            int64_t a = 0, z = n;
            for (int k = 0; k < 3; k++) {
                const int64_t v = erow[k] + off[k][s], st = stepx[k];
                if (st > 0) {
                    if (v < 0) {
                        int64_t m = (-v + st - 1) / st;
                        a = m > a ? m : a;
                    }
                } else if (st < 0) {
                    if (v < 0) {
                        z = -1;
                    } else {
                        int64_t m = v / -st;
                        z = m < z ? m : z;
                    }
                } else if (v < 0) {
                    z = -1;
                }
            }
            if (a > z) {
                lo[s] = INT32_MAX / 2;   /* empty: no i satisfies lo ≤ i ≤ hi */
                hi[s] = INT32_MIN / 2;
                continue;
            }
            lo[s] = (int32_t)a;
            hi[s] = (int32_t)z;
            L = lo[s] < L ? lo[s] : L;
            R = hi[s] > R ? hi[s] : R;
        }
        erow[0] += stepy[0];
        erow[1] += stepy[1];
        erow[2] += stepy[2];
        if (L > R)
            continue;
        size_t si = (size_t)(py - y0) * stride + (size_t)(c0 + L) * (size_t)S;
#ifdef __SSE2__
        if (S >= 4) {
            __m128i lo4[4], hi4[4];
            for (int q = 0; q < S / 4; q++) {
                /* lo − 1 < i < hi + 1 ⇔ lo ≤ i ≤ hi */
                lo4[q] = _mm_sub_epi32(_mm_loadu_si128((const __m128i *)(lo + 4 * q)),
                                       _mm_set1_epi32(1));
                hi4[q] = _mm_add_epi32(_mm_loadu_si128((const __m128i *)(hi + 4 * q)),
                                       _mm_set1_epi32(1));
            }
            /* the pixels every sample covers, [F0, F1], go to span at once */
            int32_t F0 = INT32_MAX, F1 = INT32_MIN;
            if (span) {
                F0 = L, F1 = R;
                for (int s = 0; s < S; s++) {
                    F0 = lo[s] > F0 ? lo[s] : F0;
                    F1 = hi[s] < F1 ? hi[s] : F1;
                }
                if (F0 > F1)
                    F0 = INT32_MAX;
            }
            for (int32_t i = L; i <= R; i++, si += (size_t)S) {
                if (i == F0) {
                    span(ud, si, F0, F1, py - r0, S, mode, pass);
                    si += (size_t)(F1 - F0) * (size_t)S;
                    i = F1;
                    continue;
                }
                const __m128i iv = _mm_set1_epi32(i);
                unsigned mask = 0;
                for (int q = 0; q < S / 4; q++) {
                    __m128i in = _mm_and_si128(_mm_cmpgt_epi32(iv, lo4[q]),
                                               _mm_cmpgt_epi32(hi4[q], iv));
                    mask |= (unsigned)_mm_movemask_ps(_mm_castsi128_ps(in)) << (4 * q);
                }
                if (mask)
                    pixel(ud, si, mask, i, py - r0, S, mode, pass);
            }
            continue;
        }
#endif
        for (int32_t i = L; i <= R; i++, si += (size_t)S) {
            unsigned mask = 0;
            for (int s = 0; s < S; s++)
                mask |= (unsigned)(lo[s] <= i && i <= hi[s]) << s;
            if (mask)
                pixel(ud, si, mask, i, py - r0, S, mode, pass);
        }
    }
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

#ifdef __SSE2__
/* blend_over of s onto four samples d at once: mul255's steps per channel
 * in 16-bit lanes (c·m + 128 and its high byte added back, both below
 * 2^16), then s added bytewise (no channel carries), so the same bits. */
static ALWAYS_INLINE __m128i blend_over4(uint32_t s, __m128i d)
{
    const __m128i z = _mm_setzero_si128(), m = _mm_set1_epi16((int16_t)(255u - (s >> 24)));
    const __m128i r = _mm_set1_epi16(128);
    __m128i lo = _mm_add_epi16(_mm_mullo_epi16(_mm_unpacklo_epi8(d, z), m), r);
    __m128i hi = _mm_add_epi16(_mm_mullo_epi16(_mm_unpackhi_epi8(d, z), m), r);
    lo = _mm_srli_epi16(_mm_add_epi16(lo, _mm_srli_epi16(lo, 8)), 8);
    hi = _mm_srli_epi16(_mm_add_epi16(hi, _mm_srli_epi16(hi, 8)), 8);
    return _mm_add_epi8(_mm_set1_epi32((int32_t)s), _mm_packus_epi16(lo, hi));
}
#endif

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

/* Resolve w pixels of samples sp to out: average in premultiplied space
 * and write straight alpha, c = round(255·Σc / Σa), a = round(Σa / S).
 * With `clear`, also make the samples clean again in the same pass, while
 * they are in registers (colour bg, depth dp 0: the 3D bands' buffers),
 * one sweep instead of a resolve then a clear; without, dp and bg are
 * unused and sp is only read.  S and clear are compile-time constants at
 * each call site. */
static ALWAYS_INLINE void resolve_clear_row_s(uint32_t *sp, float *dp, int w, const int S,
                                              uint32_t bg, uint8_t *out, const bool clear)
{
#ifdef __SSE2__
    const __m128i bgv = _mm_set1_epi32((int32_t)bg);
    const __m128 zero = _mm_setzero_ps();
    if (S == 4) {
        /* Four opaque samples (every pixel of an opaque mesh on an opaque
         * background): Σa = 4·255, so resolve_px's c = ⌊(255·Σc + 510) /
         * 1020⌋ = ⌊(Σc + 2) / 4⌋ and a = 255, made here for the four
         * channels at once instead of three divisions; any other pixel
         * goes to resolve_px. */
        const __m128i amask = _mm_set1_epi32((int32_t)0xFF000000u), z = _mm_setzero_si128();
        const __m128i two = _mm_set1_epi16(2);
        for (int x = 0; x < w;) {
#ifdef __AVX2__
            /* Four pixels at once when all their samples are opaque: the
             * same sums, two pixels per 256-bit vector (a pixel of four
             * equal samples c gives ⌊(4c + 2)/4⌋ = c, resolve_px's copy). */
            if (x + 4 <= w) {
                const __m256i amask8 = _mm256_set1_epi32((int32_t)0xFF000000u);
                const __m256i v0 = _mm256_loadu_si256((const __m256i *)(const void *)sp);
                const __m256i v1 = _mm256_loadu_si256((const __m256i *)(const void *)(sp + 8));
                const __m256i a = _mm256_and_si256(_mm256_and_si256(v0, v1), amask8);
                if (_mm256_movemask_epi8(_mm256_cmpeq_epi32(a, amask8)) == -1) {
                    const __m256i z8 = _mm256_setzero_si256(), two8 = _mm256_set1_epi16(2);
                    /* per 128-bit half (one pixel): samples 0+2 and 1+3,
                     * then the two halves; v0 holds pixels 0, 1, v1 2, 3 */
                    __m256i t0 = _mm256_add_epi16(_mm256_unpacklo_epi8(v0, z8),
                                                  _mm256_unpackhi_epi8(v0, z8));
                    __m256i t1 = _mm256_add_epi16(_mm256_unpacklo_epi8(v1, z8),
                                                  _mm256_unpackhi_epi8(v1, z8));
                    t0 = _mm256_add_epi16(t0, _mm256_shuffle_epi32(t0, 0x4E));
                    t1 = _mm256_add_epi16(t1, _mm256_shuffle_epi32(t1, 0x4E));
                    t0 = _mm256_srli_epi16(_mm256_add_epi16(t0, two8), 2);
                    t1 = _mm256_srli_epi16(_mm256_add_epi16(t1, two8), 2);
                    /* dwords: low half p0 p0 p2 p2, high half p1 p1 p3 p3 */
                    const __m256i p = _mm256_permutevar8x32_epi32(
                        _mm256_packus_epi16(t0, t1), _mm256_setr_epi32(0, 4, 2, 6, 0, 4, 2, 6));
                    _mm_storeu_si128((__m128i *)(void *)out, _mm256_castsi256_si128(p));
                    if (clear) {
                        const __m256i bg8 = _mm256_set1_epi32((int32_t)bg);
                        _mm256_storeu_si256((__m256i *)(void *)sp, bg8);
                        _mm256_storeu_si256((__m256i *)(void *)(sp + 8), bg8);
                        _mm256_storeu_ps(dp, _mm256_setzero_ps());
                        _mm256_storeu_ps(dp + 8, _mm256_setzero_ps());
                        dp += 16;
                    }
                    x += 4, sp += 16, out += 16;
                    continue;
                }
            }
#endif
            const __m128i v = _mm_loadu_si128((const __m128i *)sp);
            const bool same = _mm_movemask_epi8(_mm_cmpeq_epi32(v, _mm_shuffle_epi32(v, 0))) == 0xFFFF;
            if (!same &&
                _mm_movemask_epi8(_mm_cmpeq_epi32(_mm_and_si128(v, amask), amask)) == 0xFFFF) {
                /* per channel: samples 0+2 and 1+3, then the two halves */
                __m128i t = _mm_add_epi16(_mm_unpacklo_epi8(v, z), _mm_unpackhi_epi8(v, z));
                t = _mm_add_epi16(t, _mm_shuffle_epi32(t, 0x4E));
                t = _mm_srli_epi16(_mm_add_epi16(t, two), 2);
                const uint32_t px = (uint32_t)_mm_cvtsi128_si32(_mm_packus_epi16(t, t));
                memcpy(out, &px, 4);
            } else {
                resolve_px(sp, same, 4, out);
            }
            if (clear) {
                _mm_storeu_si128((__m128i *)sp, bgv);
                _mm_storeu_ps(dp, zero);
                dp += 4;
            }
            x++, sp += 4, out += 4;
        }
        return;
    }
    if (S > 4) {
        for (int x = 0; x < w; x++, sp += S, out += 4) {
            const __m128i c0v = _mm_shuffle_epi32(_mm_cvtsi32_si128((int)sp[0]), 0);
            __m128i eq = _mm_set1_epi32(-1);
            for (int q = 0; q < S / 4; q++)
                eq = _mm_and_si128(eq, _mm_cmpeq_epi32(_mm_loadu_si128((const __m128i *)(sp + 4 * q)),
                                                       c0v));
            resolve_px(sp, _mm_movemask_epi8(eq) == 0xFFFF, S, out);
            if (clear) {
                for (int q = 0; q < S / 4; q++) {
                    _mm_storeu_si128((__m128i *)(sp + 4 * q), bgv);
                    _mm_storeu_ps(dp + 4 * q, zero);
                }
                dp += S;
            }
        }
        return;
    }
#endif
    for (int x = 0; x < w; x++, sp += S, out += 4) {
        bool same = true;
        for (int s = 1; s < S; s++)
            same &= sp[s] == sp[0];
        resolve_px(sp, same, S, out);
        if (clear) {
            for (int s = 0; s < S; s++) {
                sp[s] = bg;
                dp[s] = 0.0f;
            }
            dp += S;
        }
    }
}

/* resolve_clear_row_s without the clear (the 2D bands: sp only read). */
static ALWAYS_INLINE void resolve_row_s(const uint32_t *sp, int w, const int S, uint8_t *out)
{
    resolve_clear_row_s((uint32_t *)(uintptr_t)sp, NULL, w, S, 0, out, false);
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
 * count), so the bytes do not depend on which worker draws which band.
 * The pool's stop flag (wb_pool_set_stop) is looked at before each band:
 * once set, no band is handed out and the frame is left unfinished
 * (`stopped`), so a huge frame answers a signal within one band. */
typedef struct BandQueue {
    atomic_int next;
    int n;
    const volatile sig_atomic_t *stop; /* the pool's, or NULL */
    atomic_bool stopped;               /* a band was withheld */
} BandQueue;

/* Run `task` (worker index as its task) on min(threads, n_bands) workers,
 * each pulling bands from q with band_next.  WB_E_INTERRUPTED (err set)
 * when the pool's stop flag withheld a band: the image is then unfinished. */
WbStatus wb_raster_bands_run(WbPool *pool, BandQueue *q, int n_bands, WbPoolFn task, void *ctx,
                             WbError *err);

/* The next band to draw, or -1 when every band is taken or a stop is due. */
static inline int band_next(BandQueue *q)
{
    if (q->stop && *q->stop) {
        atomic_store_explicit(&q->stopped, true, memory_order_relaxed);
        return -1;
    }
    int band = atomic_fetch_add_explicit(&q->next, 1, memory_order_relaxed);
    return band < q->n ? band : -1;
}

/* ---- depth bands ---------------------------------------------------------------- */

/* Rows per 3D band: fixed (never derived from the thread count), and small
 * enough that a band's colour and depth samples (w·16·S·8 bytes: 655 KiB
 * at 1280 wide and 4 samples) stay in the cache between drawing and the
 * resolve. */
#define DEPTH_BAND_ROWS 16

/* One worker's band of colour and depth samples.  Between bands the buffer
 * is kept clean (every sample `clean_bg`, depth 0) except the row spans
 * drawn since, which depth_band_resolve clears after resolving them, so an
 * empty part of the frame costs neither a clear nor a resolve of its
 * samples. */
typedef struct DepthBand {
    uint32_t *color;           /* DEPTH_BAND_ROWS · w · S premultiplied samples */
    float *depth;              /* the same count of depths; 0 = nothing drawn */
    int32_t lo[DEPTH_BAND_ROWS], hi[DEPTH_BAND_ROWS]; /* drawn pixel span per row
                                                         (lo > hi: none) */
    uint32_t clean_bg;
    bool clean;                /* the buffer holds clean_bg / 0 outside the spans */
} DepthBand;

/* Buffers for n samples (clean = false); false when out of memory (then
 * nothing is held). */
bool wb_depth_band_alloc(DepthBand *d, size_t n);
void wb_depth_band_free(DepthBand *d);
/* Make all n samples clean for `bg`. */
void wb_depth_band_clear(DepthBand *d, size_t n, uint32_t bg);

/* n RGBA8 pixels of colour px (an empty image row is mostly this). */
static inline void fill_px(uint8_t *out, int n, const uint8_t px[4])
{
    uint32_t v;
    memcpy(&v, px, 4);
    int x = 0;
#ifdef __SSE2__
    const __m128i v4 = _mm_set1_epi32((int32_t)v);
    for (; x + 4 <= n; x += 4)
        _mm_storeu_si128((__m128i *)(out + 4 * x), v4);
#endif
    for (; x < n; x++)
        memcpy(out + 4 * x, &v, 4);
}

#ifdef __AVX2__
/* fill_px eight pixels per store. */
static inline void fill_px8(uint8_t *out, int n, const uint8_t px[4])
{
    uint32_t v;
    memcpy(&v, px, 4);
    const __m256i v8 = _mm256_set1_epi32((int32_t)v);
    int x = 0;
    for (; x + 8 <= n; x += 8)
        _mm256_storeu_si256((__m256i *)(void *)(out + 4 * x), v8);
    fill_px(out + 4 * x, n - x, px);
}
#endif

/* Finish rows [y0, y1) of a band (w pixels wide, S samples): resolve each
 * row's drawn span into out and make it clean again (colour bg, depth 0),
 * and paint the rest of the row with bg_px, the background resolved.
 * wide: fill eight pixels per store (only where built for AVX2). */
static ALWAYS_INLINE void depth_band_resolve(DepthBand *d, int y0, int y1, int w, int S,
                                             uint32_t bg, const uint8_t bg_px[4], bool wide,
                                             WbImage *out)
{
    const size_t row_n = (size_t)w * (size_t)S;
    for (int y = y0; y < y1; y++) {
        const int k = y - y0;
        uint8_t *o = wb_image_row(out, y);
        int32_t lo = d->lo[k], hi = d->hi[k];
        if (lo > hi)
            lo = w, hi = w - 1;
#ifdef __AVX2__
        if (wide) {
            fill_px8(o, lo, bg_px);
            fill_px8(o + 4 * (hi + 1), w - (hi + 1), bg_px);
        } else
#endif
        {
            (void)wide;
            fill_px(o, lo, bg_px);
            fill_px(o + 4 * (hi + 1), w - (hi + 1), bg_px);
        }
        if (lo > hi)
            continue;
        uint32_t *cp = d->color + (size_t)k * row_n + (size_t)lo * (size_t)S;
        float *dp = d->depth + (size_t)k * row_n + (size_t)lo * (size_t)S;
        const int n = hi - lo + 1;
        uint8_t *ro = o + 4 * lo;
        switch (S) {
        case 4: resolve_clear_row_s(cp, dp, n, 4, bg, ro, true); break;
        case 8: resolve_clear_row_s(cp, dp, n, 8, bg, ro, true); break;
        case 16: resolve_clear_row_s(cp, dp, n, 16, bg, ro, true); break;
        default: resolve_clear_row_s(cp, dp, n, 1, bg, ro, true); break;
        }
        d->lo[k] = INT32_MAX;
        d->hi[k] = INT32_MIN;
    }
}

#endif
