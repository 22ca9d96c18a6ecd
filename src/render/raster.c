/* raster.c — see raster.h for the contract and conventions.
 *
 * Design note.
 *
 * Fixed point.  Vertex positions become int32 in 1/256 px (FIX_ONE) once,
 * in the vertex stage.  For a triangle a, b, c with positive area the edge
 * function of edge p→q is
 *
 *     E(s) = (q.x - p.x)·(s.y - p.y) - (q.y - p.y)·(s.x - p.x),
 *
 * which is >= 0 on the inner side (y points down).  Coordinates are clamped
 * to ±2^28 (±2^20 px), so differences fit in 29 bits, products in 58 and
 * E in 60: int64 is exact, every sample gets the same answer from every
 * triangle that shares an edge, and there are no cracks.
 *
 * Top-left rule.  A sample exactly on an edge (E = 0) belongs to the
 * triangle only if the edge is a top edge (horizontal, interior below:
 * dy = 0, dx > 0) or a left edge (interior to the right: dy < 0).  Two
 * triangles sharing an edge run it in opposite directions, so exactly one
 * of them owns it.  Implemented as a bias: E - 1 >= 0 for other edges.
 *
 * Per triangle: bounding box of the samples it may cover (clipped to the
 * band), edge values at the box's first pixel centre, per-pixel steps and
 * per-sample offsets.  Per pixel: S sign tests give the coverage mask; a
 * covered pixel is shaded once from attribute planes set up per triangle.
 *
 * Shapes (polygon, disc, polyline) are triangle sets drawn into a per-band
 * coverage mask first (OR for unions, XOR for the even-odd rule: a fan
 * from vertex 0 covers each sample once per fan triangle containing it, and
 * the parity of that count is exactly even-odd insideness), then blended
 * once through the mask, so overlaps inside one shape never double-blend.
 */
#include "render/raster.h"

#include <assert.h>
#include <limits.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define FIX_ONE 256
#define FIX_HALF 128
#define FIX_LIMIT_PX 1048576.0f        /* 2^20 px */
#define FIX_INVALID INT32_MIN          /* a NaN/Inf vertex */
#define CHUNK_TRIS 64                  /* triangles per binning chunk (even) */
#define VTX_BLOCK 16384                /* vertices per vertex-stage task */
#define DISC_TOLERANCE_PX (1.0f / 64.0f)

#define ALWAYS_INLINE inline __attribute__((always_inline))

enum { CMD_MESH, CMD_SHAPE };
enum { MODE_COLOR, MODE_VCOLOR, MODE_TEX, MODE_COVER };

typedef struct WbRasterCmd {
    int kind;
    WbMesh mesh;                 /* CMD_MESH (arrays borrowed) */
    size_t v0, nv, t0, nt;       /* CMD_SHAPE: ranges in the shape arenas */
    bool evenodd;                /* CMD_SHAPE: XOR coverage, else OR */
    uint32_t color;              /* CMD_SHAPE */
    /* Filled in by wb_raster_end. */
    const int32_t *xy;           /* fixed-point vertices, 2 per vertex */
    const float *tuv;            /* MODE_TEX: scaled texture coordinates, 2 per vertex */
    const uint32_t *tri;         /* NULL: grid topology */
    int n_tri;
    size_t vtx_off;              /* into r->vtx and r->tuv */
    size_t chunk0;
    int n_chunks;
    int vtask0, ctask0;          /* first task of this command per stage */
} Cmd;

/* Pixel rows a chunk of triangles may touch (inclusive; empty: lo > hi). */
typedef struct WbRasterChunk {
    int32_t row_lo, row_hi;
} Chunk;

typedef struct WbRasterWorker {
    uint32_t *samples;           /* WB_RASTER_BAND_ROWS · w · S */
    uint16_t *cov;               /* WB_RASTER_BAND_ROWS · w coverage masks (shapes) */
} Worker;

/* Direct3D standard sample positions, 1/16 px from the pixel centre. */
static const int8_t PAT1[1][2] = {{0, 0}};
static const int8_t PAT4[4][2] = {{-2, -6}, {6, -2}, {-6, 2}, {2, 6}};
static const int8_t PAT8[8][2] = {{1, -3}, {-1, 3}, {5, 1}, {-3, -5},
                                  {-5, 5}, {-7, -1}, {3, 7}, {7, -7}};
static const int8_t PAT16[16][2] = {{1, 1},   {-1, -3}, {-3, 2}, {4, -1}, {-5, -2}, {2, 5},
                                    {5, 3},   {3, -5},  {-2, 6}, {0, -7}, {-4, -6}, {-6, 4},
                                    {-8, 0},  {7, -4},  {6, 7},  {-7, -8}};

static const int8_t (*pattern(int samples))[2]
{
    switch (samples) {
    case 4: return PAT4;
    case 8: return PAT8;
    case 16: return PAT16;
    default: return PAT1;
    }
}

void wb_raster_sample_offset(int samples, int i, int *dx16, int *dy16)
{
    const int8_t (*p)[2] = pattern(samples);
    *dx16 = p[i][0];
    *dy16 = p[i][1];
}

/* The sample pattern in the units the inner loop wants, shared read-only by
 * all bands of a frame. */
typedef struct Pattern {
    int S;
    int32_t ox[16], oy[16];          /* offsets in 1/256 px */
    int32_t omin_x, omax_x, omin_y, omax_y;
    int16_t yx[32];                  /* oy[s], ox[s] interleaved (for pmaddwd) */
    float cx[256], cy[256];          /* S <= 8: centroid offset (px) per mask */
} Pattern;

static void pattern_init(Pattern *p, int S)
{
    const int8_t (*pat)[2] = pattern(S);
    p->S = S;
    p->omin_x = p->omin_y = INT32_MAX;
    p->omax_x = p->omax_y = INT32_MIN;
    for (int s = 0; s < S; s++) {
        p->ox[s] = pat[s][0] * 16;
        p->oy[s] = pat[s][1] * 16;
        p->omin_x = p->ox[s] < p->omin_x ? p->ox[s] : p->omin_x;
        p->omax_x = p->ox[s] > p->omax_x ? p->ox[s] : p->omax_x;
        p->omin_y = p->oy[s] < p->omin_y ? p->oy[s] : p->omin_y;
        p->omax_y = p->oy[s] > p->omax_y ? p->oy[s] : p->omax_y;
        p->yx[2 * s] = (int16_t)p->oy[s];
        p->yx[2 * s + 1] = (int16_t)p->ox[s];
    }
    if (S > 8)
        return;
    for (unsigned m = 1; m < (1u << S); m++) {
        int sx = 0, sy = 0, n = 0;
        for (int s = 0; s < S; s++)
            if (m >> s & 1) {
                sx += p->ox[s];
                sy += p->oy[s];
                n++;
            }
        p->cx[m] = (float)sx / (float)(n * FIX_ONE);
        p->cy[m] = (float)sy / (float)(n * FIX_ONE);
    }
}

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

/* floor(v / 256) for |v| < 2^40, by shifting a value made non-negative
 * (right shifts of negative numbers are implementation-defined in C). */
static ALWAYS_INLINE int32_t floor_div256(int64_t v)
{
    const int64_t bias = (int64_t)1 << 40;
    return (int32_t)(((v + bias) >> 8) - (bias >> 8));
}

/* Pixels whose samples may lie in [lo, hi] (fixed point) along one axis:
 * sample k of pixel i sits at i·256 + 128 + o_k. */
static ALWAYS_INLINE void pixel_span(int32_t lo, int32_t hi, int32_t omin, int32_t omax,
                                     int32_t *first, int32_t *last)
{
    *first = -floor_div256(-((int64_t)lo - FIX_HALF - omax));   /* ceil */
    *last = floor_div256((int64_t)hi - FIX_HALF - omin);
}

/* Pixels → 1/256 px, rounded to nearest, clamped to ±2^20 px.  Rounding
 * by truncating a value made positive by an offset (exact in double),
 * because floor() is a library call on baseline x86-64. */
static inline int32_t to_fixed(float v)
{
    v = v < -FIX_LIMIT_PX ? -FIX_LIMIT_PX : v > FIX_LIMIT_PX ? FIX_LIMIT_PX : v;
    const double bias = 1073741824.0; /* 2^30 > 2^28 */
    return (int32_t)((int64_t)((double)v * FIX_ONE + 0.5 + bias) - (int64_t)bias);
}

/* Edge values of a triangle whose box is at most NARROW_FIX wide and high
 * fit in int32 everywhere the loop evaluates them: |E| <= 2·D·(D + 512)
 * < 2^30 for D = 2^14 (64 px), so small triangles test four samples per
 * SSE2 instruction. */
#define NARROW_FIX (1 << 14)

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

/* ---- colour arithmetic on packed premultiplied RGBA8 ---------------------- */

/* c·m/255 per channel, rounded to nearest (m in 0..255). */
static ALWAYS_INLINE uint32_t scale255(uint32_t c, uint32_t m)
{
    uint32_t rb = (c & 0x00FF00FFu) * m + 0x00800080u;
    rb = ((rb + ((rb >> 8) & 0x00FF00FFu)) >> 8) & 0x00FF00FFu;
    uint32_t ag = ((c >> 8) & 0x00FF00FFu) * m + 0x00800080u;
    ag = (ag + ((ag >> 8) & 0x00FF00FFu)) & 0xFF00FF00u;
    return rb | ag;
}

/* Porter-Duff "over": s + d·(1 - s.a).  Premultiplied channels never exceed
 * alpha, so no channel can carry into the next. */
static ALWAYS_INLINE uint32_t over(uint32_t s, uint32_t d)
{
    return s + scale255(d, 255u - (s >> 24));
}

static ALWAYS_INLINE uint32_t pack_premul(float r, float g, float b, float a)
{
    a = a < 0.0f ? 0.0f : a > 1.0f ? 1.0f : a;
    r = r < 0.0f ? 0.0f : r > a ? a : r;
    g = g < 0.0f ? 0.0f : g > a ? a : g;
    b = b < 0.0f ? 0.0f : b > a ? a : b;
    return WB_RGBA((uint32_t)(r * 255.0f + 0.5f), (uint32_t)(g * 255.0f + 0.5f),
                   (uint32_t)(b * 255.0f + 0.5f), (uint32_t)(a * 255.0f + 0.5f));
}

/* ---- one band ----------------------------------------------------------- */

typedef struct Band {
    const Pattern *pat;
    uint32_t *samples;
    uint16_t *cov;
    int w;
    int y0, y1;                       /* rows [y0, y1) */
    int cov_x0, cov_x1, cov_y0, cov_y1; /* touched part of cov (inclusive) */
} Band;

/* A linear attribute plane: value = o + gx·dx + gy·dy, (dx, dy) in px from
 * the centre of the triangle's first pixel. */
typedef struct Plane {
    float o, gx, gy;
} Plane;

/* Plane through (0,va), (b,vb), (c,vc), vertex positions relative to vertex
 * a; `pa` is vertex a relative to the origin pixel centre. */
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

static ALWAYS_INLINE float plane_at(Plane p, float dx, float dy)
{
    return p.o + p.gx * dx + p.gy * dy;
}

/* Shading state of one triangle. */
typedef struct Frag {
    bool has_alpha;
    Plane u, v, a, c[4];
    WbTexSampler tex; /* a copy: sample stores cannot alias it */
} Frag;

static ALWAYS_INLINE void frag_setup(Frag *f, const Cmd *cmd, const uint32_t idx[3],
                                     int32_t pos[3][2], int32_t ox, int32_t oy, int mode)
{
    /* Positions in px relative to vertex a, and a relative to the origin. */
    float bx = (float)(pos[1][0] - pos[0][0]) * (1.0f / FIX_ONE);
    float by = (float)(pos[1][1] - pos[0][1]) * (1.0f / FIX_ONE);
    float cx = (float)(pos[2][0] - pos[0][0]) * (1.0f / FIX_ONE);
    float cy = (float)(pos[2][1] - pos[0][1]) * (1.0f / FIX_ONE);
    float pax = (float)(pos[0][0] - ox) * (1.0f / FIX_ONE);
    float pay = (float)(pos[0][1] - oy) * (1.0f / FIX_ONE);
    float inv = 1.0f / (bx * cy - by * cx);
    uint32_t ia = idx[0], ib = idx[1], ic = idx[2];
    const WbMesh *m = &cmd->mesh;
    if (mode == MODE_TEX) {
        /* Planes of 256·(texel coordinate - 0.5), what wb_texture_sample_fx
         * takes; the vertex stage scaled the coordinates (tex_scale). */
        const float *t = cmd->tuv;
        f->u = plane(t[2 * ia], t[2 * ib], t[2 * ic], bx, by, cx, cy, inv, pax, pay);
        f->v = plane(t[2 * ia + 1], t[2 * ib + 1], t[2 * ic + 1], bx, by, cx, cy, inv, pax, pay);
        f->tex = wb_tex_sampler(m->texture);
    } else if (mode == MODE_VCOLOR) {
        for (int k = 0; k < 4; k++)
            f->c[k] = plane(m->rgba[4 * ia + k], m->rgba[4 * ib + k], m->rgba[4 * ic + k], bx,
                            by, cx, cy, inv, pax, pay);
    }
    if (f->has_alpha)
        f->a = plane(m->alpha[ia], m->alpha[ib], m->alpha[ic], bx, by, cx, cy, inv, pax, pay);
    else
        f->a = (Plane){0.0f, 0.0f, 0.0f}; /* unused; keeps gcc's uninitialized check quiet */
}

static ALWAYS_INLINE uint32_t frag_color(const Frag *f, const WbMesh *m, float dx, float dy,
                                         int mode)
{
    uint32_t c;
    if (mode == MODE_TEX)
        c = wb_tex_sampler_fx(&f->tex, plane_at(f->u, dx, dy), plane_at(f->v, dx, dy));
    else if (mode == MODE_VCOLOR)
        c = pack_premul(plane_at(f->c[0], dx, dy), plane_at(f->c[1], dx, dy),
                        plane_at(f->c[2], dx, dy), plane_at(f->c[3], dx, dy));
    else
        c = m->color;
    if (f->has_alpha) {
        float a = plane_at(f->a, dx, dy);
        a = a < 0.0f ? 0.0f : a > 1.0f ? 1.0f : a;
        c = scale255(c, (uint32_t)(a * 255.0f + 0.5f));
    }
    return c;
}

/* Store opaque colour c into the samples of `mask`. */
static ALWAYS_INLINE void store_opaque(uint32_t *sp, uint32_t c, unsigned mask, const int S)
{
    const unsigned full = (1u << S) - 1u;
#ifdef __SSE2__
    if (S >= 4) {
        /* Branch-free select per four samples: lane i takes c when bit i of
         * the mask is set. */
        const __m128i cv = _mm_set1_epi32((int32_t)c);
        if (S > 4 && mask == full) {
            for (int q = 0; q < S; q += 4)
                _mm_storeu_si128((__m128i *)(sp + q), cv);
            return;
        }
        /* (S = 4 selects even when the mask is full: cheaper than a branch
         * that edge pixels make unpredictable.) */
        const __m128i bits = _mm_setr_epi32(1, 2, 4, 8);
        for (int q = 0; q < S; q += 4) {
            __m128i sel = _mm_and_si128(_mm_set1_epi32((int32_t)(mask >> q)), bits);
            sel = _mm_cmpeq_epi32(sel, bits);
            __m128i old = _mm_loadu_si128((const __m128i *)(sp + q));
            _mm_storeu_si128((__m128i *)(sp + q),
                             _mm_or_si128(_mm_and_si128(sel, cv), _mm_andnot_si128(sel, old)));
        }
        return;
    }
#endif
    if (mask == full)
        for (int s = 0; s < S; s++)
            sp[s] = c;
    else
        for (unsigned mm = mask; mm; mm &= mm - 1)
            sp[__builtin_ctz(mm)] = c;
}

/* One pixel with a non-empty coverage mask: record it (shapes) or shade it
 * at (dx, dy) px from the triangle's first pixel and store. */
static ALWAYS_INLINE void pixel(Band *b, const Cmd *cmd, const Frag *f, uint32_t *sp,
                                uint16_t *cp, unsigned mask, int32_t ddx, int32_t ddy,
                                bool centroid_on, const int S, const int mode)
{
    if (mode == MODE_COVER) {
        if (cmd->evenodd)
            *cp ^= (uint16_t)mask;
        else
            *cp |= (uint16_t)mask;
        return;
    }
    const WbMesh *m = &cmd->mesh;
    const unsigned full = (1u << S) - 1u;
    float dx = (float)ddx, dy = (float)ddy;
    if (centroid_on && mask != full) {
        float ccx, ccy;
        centroid(b->pat, mask, &ccx, &ccy);
        dx += ccx;
        dy += ccy;
    }
    uint32_t c = frag_color(f, m, dx, dy, mode);
    uint32_t ca = c >> 24;
    if (ca == 255) {
        store_opaque(sp, c, mask, S);
    } else if (ca != 0) {
        for (unsigned mm = mask; mm; mm &= mm - 1) {
            int s = __builtin_ctz(mm);
            sp[s] = over(c, sp[s]);
        }
    }
}

/* Rasterize triangle (ia, ib, ic) of `cmd` into band `b`.  S and mode are
 * compile-time constants at every call site, so this one loop is
 * specialised per sample count and shading mode. */
static ALWAYS_INLINE void draw_tri(Band *b, const Cmd *cmd, uint32_t ia, uint32_t ib,
                                   uint32_t ic, const int S, const int mode)
{
    const Pattern *pat = b->pat;
    const int32_t *xy = cmd->xy;
    const WbMesh *m = &cmd->mesh;
    int32_t pos[3][2] = {{xy[2 * ia], xy[2 * ia + 1]},
                         {xy[2 * ib], xy[2 * ib + 1]},
                         {xy[2 * ic], xy[2 * ic + 1]}};
    if (pos[0][0] == FIX_INVALID || pos[1][0] == FIX_INVALID || pos[2][0] == FIX_INVALID)
        return;

    int32_t ymin = pos[0][1], ymax = pos[0][1];
    ymin = pos[1][1] < ymin ? pos[1][1] : ymin;
    ymax = pos[1][1] > ymax ? pos[1][1] : ymax;
    ymin = pos[2][1] < ymin ? pos[2][1] : ymin;
    ymax = pos[2][1] > ymax ? pos[2][1] : ymax;
    int32_t r0, r1;
    pixel_span(ymin, ymax, pat->omin_y, pat->omax_y, &r0, &r1);
    r0 = r0 < b->y0 ? b->y0 : r0;
    r1 = r1 >= b->y1 ? b->y1 - 1 : r1;
    if (r0 > r1)
        return;
    int32_t xmin = pos[0][0], xmax = pos[0][0];
    xmin = pos[1][0] < xmin ? pos[1][0] : xmin;
    xmax = pos[1][0] > xmax ? pos[1][0] : xmax;
    xmin = pos[2][0] < xmin ? pos[2][0] : xmin;
    xmax = pos[2][0] > xmax ? pos[2][0] : xmax;
    int32_t c0, c1;
    pixel_span(xmin, xmax, pat->omin_x, pat->omax_x, &c0, &c1);
    c0 = c0 < 0 ? 0 : c0;
    c1 = c1 >= b->w ? b->w - 1 : c1;
    if (c0 > c1)
        return;

    int64_t area = (int64_t)(pos[1][0] - pos[0][0]) * (pos[2][1] - pos[0][1]) -
                   (int64_t)(pos[1][1] - pos[0][1]) * (pos[2][0] - pos[0][0]);
    if (area == 0)
        return;
    uint32_t idx[3] = {ia, ib, ic};
    if (area < 0) {
        /* Make the winding positive; attributes follow their vertices. */
        int32_t t0 = pos[1][0], t1 = pos[1][1];
        pos[1][0] = pos[2][0];
        pos[1][1] = pos[2][1];
        pos[2][0] = t0;
        pos[2][1] = t1;
        idx[1] = ic;
        idx[2] = ib;
    }

    const int32_t X0 = c0 * FIX_ONE + FIX_HALF, Y0 = r0 * FIX_ONE + FIX_HALF;
    const bool narrow = xmax - xmin <= NARROW_FIX && ymax - ymin <= NARROW_FIX;

    if (mode == MODE_COVER) {
        b->cov_x0 = c0 < b->cov_x0 ? c0 : b->cov_x0;
        b->cov_x1 = c1 > b->cov_x1 ? c1 : b->cov_x1;
        b->cov_y0 = r0 < b->cov_y0 ? r0 : b->cov_y0;
        b->cov_y1 = r1 > b->cov_y1 ? r1 : b->cov_y1;
    }

    Frag f;
    f.has_alpha = false;
    if (mode != MODE_COVER) {
        if (m->alpha) {
            float a0 = m->alpha[ia], a1 = m->alpha[ib], a2 = m->alpha[ic];
            /* Fully opaque triangles skip the plane: exact inside a mask. */
            f.has_alpha = !(a0 >= 1.0f && a1 >= 1.0f && a2 >= 1.0f);
        }
        frag_setup(&f, cmd, idx, pos, X0, Y0, mode);
    }
    const unsigned full = (1u << S) - 1u;
    const bool centroid_on = m->centroid; /* a local: sample stores cannot alias it */
#ifdef __SSE2__
    if (narrow && S >= 4) {
        /* Edge values plus per-sample offsets as int32 lanes, stepped by
         * one add per pixel: the same int32 sums mask_narrow forms from
         * scratch (narrow: every value the loop meets fits int32, and the
         * wrapping adds past the box are never tested). */
        /* Edge k runs from vertex k to vertex k+1; lane k of each vector
         * below belongs to edge k.  Narrow: |dx|, |dy| <= 2^14 and the box
         * origin is within 2^14 + 384 of every vertex, so (dx, -dy) and
         * (Y0 - y, X0 - x) are int16 pairs and one pmaddwd gives the three
         * edge values dx·(Y0 - y) - dy·(X0 - x), exactly (|E| < 2^30); the
         * same (dx, -dy) pairs against the pattern's (oy, ox) give the
         * per-sample offsets dx·oy - dy·ox. */
        const __m128i zero = _mm_setzero_si128(), lo16 = _mm_set1_epi32(0xFFFF);
        const __m128i DX = _mm_setr_epi32(pos[1][0] - pos[0][0], pos[2][0] - pos[1][0],
                                          pos[0][0] - pos[2][0], 0);
        const __m128i DY = _mm_setr_epi32(pos[1][1] - pos[0][1], pos[2][1] - pos[1][1],
                                          pos[0][1] - pos[2][1], 0);
        const __m128i RX = _mm_setr_epi32(X0 - pos[0][0], X0 - pos[1][0], X0 - pos[2][0], 0);
        const __m128i RY = _mm_setr_epi32(Y0 - pos[0][1], Y0 - pos[1][1], Y0 - pos[2][1], 0);
        const __m128i NDY = _mm_sub_epi32(zero, DY);
        const __m128i A = _mm_or_si128(_mm_and_si128(DX, lo16), _mm_slli_epi32(NDY, 16));
        const __m128i B = _mm_or_si128(_mm_and_si128(RY, lo16), _mm_slli_epi32(RX, 16));
        /* Top-left bias: -1 unless dy < 0 or (dy == 0 and dx > 0). */
        const __m128i not_tl = _mm_or_si128(
            _mm_cmpgt_epi32(DY, zero),
            _mm_andnot_si128(_mm_cmpgt_epi32(DX, zero), _mm_cmpeq_epi32(DY, zero)));
        const __m128i E = _mm_add_epi32(_mm_madd_epi16(A, B), not_tl);
        const __m128i SX = _mm_slli_epi32(NDY, 8), SY = _mm_slli_epi32(DX, 8);
        const __m128i e3[3] = {_mm_shuffle_epi32(E, 0x00), _mm_shuffle_epi32(E, 0x55),
                               _mm_shuffle_epi32(E, 0xAA)};
        const __m128i d3[3] = {_mm_shuffle_epi32(A, 0x00), _mm_shuffle_epi32(A, 0x55),
                               _mm_shuffle_epi32(A, 0xAA)};
        __m128i row[3][S / 4];
        for (int k = 0; k < 3; k++)
            for (int q = 0; q < S; q += 4)
                row[k][q / 4] = _mm_add_epi32(
                    e3[k], _mm_madd_epi16(d3[k], _mm_loadu_si128((const __m128i *)(pat->yx + 2 * q))));
        const __m128i sx0 = _mm_shuffle_epi32(SX, 0x00), sx1 = _mm_shuffle_epi32(SX, 0x55);
        const __m128i sx2 = _mm_shuffle_epi32(SX, 0xAA);
        const __m128i sy0 = _mm_shuffle_epi32(SY, 0x00), sy1 = _mm_shuffle_epi32(SY, 0x55);
        const __m128i sy2 = _mm_shuffle_epi32(SY, 0xAA);
        uint32_t *sp_row = b->samples + ((size_t)(r0 - b->y0) * (size_t)b->w + (size_t)c0) * S;
        uint16_t *cp_row = b->cov + (size_t)(r0 - b->y0) * (size_t)b->w + (size_t)c0;
        for (int32_t py = r0; py <= r1; py++) {
            __m128i v[3][S / 4];
            for (int q = 0; q < S / 4; q++) {
                v[0][q] = row[0][q];
                v[1][q] = row[1][q];
                v[2][q] = row[2][q];
            }
            uint32_t *sp = sp_row;
            uint16_t *cp = cp_row;
            sp_row += (size_t)b->w * S;
            cp_row += b->w;
            for (int32_t px = c0; px <= c1; px++, sp += S, cp++) {
                unsigned neg = 0;
                for (int q = 0; q < S / 4; q++) {
                    __m128i t = _mm_or_si128(_mm_or_si128(v[0][q], v[1][q]), v[2][q]);
                    neg |= (unsigned)_mm_movemask_ps(_mm_castsi128_ps(t)) << (4 * q);
                    v[0][q] = _mm_add_epi32(v[0][q], sx0);
                    v[1][q] = _mm_add_epi32(v[1][q], sx1);
                    v[2][q] = _mm_add_epi32(v[2][q], sx2);
                }
                unsigned mask = ~neg & full;
                if (mask)
                    pixel(b, cmd, &f, sp, cp, mask, px - c0, py - r0, centroid_on, S, mode);
            }
            for (int q = 0; q < S / 4; q++) {
                row[0][q] = _mm_add_epi32(row[0][q], sy0);
                row[1][q] = _mm_add_epi32(row[1][q], sy1);
                row[2][q] = _mm_add_epi32(row[2][q], sy2);
            }
        }
        return;
    }
#endif
    /* Edge k runs from vertex k to vertex k+1. */
    /* Edge k runs from vertex k to vertex k+1. */
    int64_t erow[3], stepx[3], stepy[3], off[3][16];
    int32_t off32[3][16];
    for (int k = 0; k < 3; k++) {
        int k1 = k == 2 ? 0 : k + 1;
        int64_t dx = (int64_t)pos[k1][0] - pos[k][0], dy = (int64_t)pos[k1][1] - pos[k][1];
        bool top_left = dy < 0 || (dy == 0 && dx > 0);
        erow[k] = dx * ((int64_t)Y0 - pos[k][1]) - dy * ((int64_t)X0 - pos[k][0]) -
                  (top_left ? 0 : 1);
        stepx[k] = -dy * FIX_ONE;
        stepy[k] = dx * FIX_ONE;
        if (narrow) {
            int32_t dx32 = (int32_t)dx, dy32 = (int32_t)dy;
            for (int s = 0; s < S; s++)
                off32[k][s] = dx32 * pat->oy[s] - dy32 * pat->ox[s];
        } else {
            for (int s = 0; s < S; s++)
                off[k][s] = dx * pat->oy[s] - dy * pat->ox[s];
        }
    }

    for (int32_t py = r0; py <= r1; py++) {
        int64_t e0 = erow[0], e1 = erow[1], e2 = erow[2];
        uint32_t *sp = b->samples + ((size_t)(py - b->y0) * (size_t)b->w + (size_t)c0) * S;
        uint16_t *cp = b->cov + (size_t)(py - b->y0) * (size_t)b->w + (size_t)c0;
        for (int32_t px = c0; px <= c1; px++, sp += S, cp++) {
            unsigned mask = narrow ? mask_narrow(e0, e1, e2, off32, S)
                                   : mask_wide(e0, e1, e2, off, S);
            e0 += stepx[0];
            e1 += stepx[1];
            e2 += stepx[2];
            if (mask)
                pixel(b, cmd, &f, sp, cp, mask, px - c0, py - r0, centroid_on, S, mode);
        }
        erow[0] += stepy[0];
        erow[1] += stepy[1];
        erow[2] += stepy[2];
    }
}

/* Draw every chunk of `cmd` that reaches the band.  Triangles are visited
 * in submission order, so overlapping translucent triangles blend in the
 * same order in every band and for every thread count. */
static ALWAYS_INLINE void draw_cmd(Band *b, const Cmd *cmd, const Chunk *chunks, const int S,
                                   const int mode)
{
    const WbMesh *m = &cmd->mesh;
    const float *alpha = cmd->kind == CMD_MESH ? m->alpha : NULL;
    for (int k = 0; k < cmd->n_chunks; k++) {
        const Chunk *ch = &chunks[cmd->chunk0 + (size_t)k];
        if (ch->row_hi < b->y0 || ch->row_lo >= b->y1)
            continue;
        int t0 = k * CHUNK_TRIS, t1 = t0 + CHUNK_TRIS < cmd->n_tri ? t0 + CHUNK_TRIS : cmd->n_tri;
        if (cmd->tri) {
            const uint32_t *tri = cmd->tri + (size_t)t0 * 3;
            for (int t = t0; t < t1; t++, tri += 3) {
                if (alpha && !(alpha[tri[0]] > 0.0f || alpha[tri[1]] > 0.0f || alpha[tri[2]] > 0.0f))
                    continue;
                draw_tri(b, cmd, tri[0], tri[1], tri[2], S, mode);
            }
            continue;
        }
        /* Grid topology: walk cells from the chunk's first one (CHUNK_TRIS
         * is even, so a chunk starts on a cell). */
        uint32_t cols = (uint32_t)m->grid_cols, cell = (uint32_t)t0 / 2;
        uint32_t ci = cell % cols, cj = cell / cols;
        for (int t = t0; t < t1; t += 2) {
            uint32_t v00 = cj * (cols + 1) + ci, v10 = v00 + 1;
            uint32_t v01 = v00 + cols + 1, v11 = v01 + 1;
            if (!alpha || alpha[v00] > 0.0f || alpha[v10] > 0.0f || alpha[v01] > 0.0f)
                draw_tri(b, cmd, v00, v10, v01, S, mode);
            if (t + 1 < t1 && (!alpha || alpha[v10] > 0.0f || alpha[v11] > 0.0f || alpha[v01] > 0.0f))
                draw_tri(b, cmd, v10, v11, v01, S, mode);
            if (++ci == cols) {
                ci = 0;
                cj++;
            }
        }
    }
}

/* Blend a shape's colour through the coverage masks and clear them. */
static void cover_blend(Band *b, int S, uint32_t color)
{
    if (b->cov_x0 > b->cov_x1)
        return;
    uint32_t ca = color >> 24;
    for (int y = b->cov_y0; y <= b->cov_y1; y++) {
        size_t row = (size_t)(y - b->y0) * (size_t)b->w;
        for (int x = b->cov_x0; x <= b->cov_x1; x++) {
            unsigned mask = b->cov[row + (size_t)x];
            if (!mask)
                continue;
            b->cov[row + (size_t)x] = 0;
            uint32_t *sp = b->samples + (row + (size_t)x) * (size_t)S;
            for (; mask; mask &= mask - 1) {
                int s = __builtin_ctz(mask);
                sp[s] = ca == 255 ? color : over(color, sp[s]);
            }
        }
    }
    b->cov_x0 = b->cov_y0 = INT_MAX;
    b->cov_x1 = b->cov_y1 = INT_MIN;
}

#define DISPATCH(S_)                                                                          \
    case S_:                                                                                  \
        switch (mode) {                                                                       \
        case MODE_COLOR: draw_cmd(b, cmd, chunks, S_, MODE_COLOR); break;                     \
        case MODE_VCOLOR: draw_cmd(b, cmd, chunks, S_, MODE_VCOLOR); break;                   \
        case MODE_TEX: draw_cmd(b, cmd, chunks, S_, MODE_TEX); break;                         \
        default: draw_cmd(b, cmd, chunks, S_, MODE_COVER); break;                             \
        }                                                                                     \
        break;

static void band_cmd(Band *b, const Cmd *cmd, const Chunk *chunks)
{
    int mode = MODE_COVER;
    if (cmd->kind == CMD_MESH)
        mode = cmd->mesh.paint == WB_PAINT_TEXTURE ? MODE_TEX
             : cmd->mesh.paint == WB_PAINT_VERTEX_COLOR ? MODE_VCOLOR
             : MODE_COLOR;
    switch (b->pat->S) {
        DISPATCH(1)
        DISPATCH(4)
        DISPATCH(8)
        DISPATCH(16)
    default: assert(0 && "bad sample count");
    }
    if (mode == MODE_COVER)
        cover_blend(b, b->pat->S, cmd->color);
}

#undef DISPATCH

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
        uint32_t sr, sg, sb, sa;
        unsigned n;
        if (same) {
            uint32_t a = c0 >> 24;
            if (a == 255) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
                /* WB_RGBA keeps R in the low byte: the packed word is the
                 * output's R, G, B, 255 bytes as they are. */
                memcpy(out, &c0, 4);
#else
                out[0] = (uint8_t)WB_RGBA_R(c0);
                out[1] = (uint8_t)WB_RGBA_G(c0);
                out[2] = (uint8_t)WB_RGBA_B(c0);
                out[3] = 255;
#endif
                continue;
            }
            sr = WB_RGBA_R(c0), sg = WB_RGBA_G(c0), sb = WB_RGBA_B(c0), sa = a;
            n = 1;
        } else {
            sr = sg = sb = sa = 0;
            for (int s = 0; s < S; s++) {
                sr += WB_RGBA_R(sp[s]);
                sg += WB_RGBA_G(sp[s]);
                sb += WB_RGBA_B(sp[s]);
                sa += WB_RGBA_A(sp[s]);
            }
            n = (unsigned)S;
        }
        if (sa == 0) {
            out[0] = out[1] = out[2] = out[3] = 0;
            continue;
        }
        uint32_t r = (sr * 255 + sa / 2) / sa, g = (sg * 255 + sa / 2) / sa;
        uint32_t bl = (sb * 255 + sa / 2) / sa;
        out[0] = (uint8_t)(r > 255 ? 255 : r);
        out[1] = (uint8_t)(g > 255 ? 255 : g);
        out[2] = (uint8_t)(bl > 255 ? 255 : bl);
        out[3] = (uint8_t)((sa + n / 2) / n);
    }
}

static void resolve_row(const uint32_t *sp, int w, int S, uint8_t *out)
{
    switch (S) {
    case 4: resolve_row_s(sp, w, 4, out); break;
    case 8: resolve_row_s(sp, w, 8, out); break;
    case 16: resolve_row_s(sp, w, 16, out); break;
    default: resolve_row_s(sp, w, 1, out); break;
    }
}

/* ---- wb_raster_end stages ---------------------------------------------- */

typedef struct EndCtx {
    WbRaster *r;
    Pattern pat;
    int n_vtasks, n_ctasks;
    int n_bands;
    int keep;                     /* 0, 1 keep the first command's result, 2 reuse it */
    atomic_int next_band;
    WbImage *out;
} EndCtx;

static int cmd_for_task(const WbRaster *r, int task, bool chunk_stage)
{
    int lo = 0;
    for (int i = 0; i < r->n_cmds; i++) {
        int t0 = chunk_stage ? r->cmds[i].ctask0 : r->cmds[i].vtask0;
        if (t0 <= task)
            lo = i;
    }
    return lo;
}

/* Vertex stage: caller units → fixed-point pixels. */
static void vertex_task(void *vctx, int task)
{
    EndCtx *ctx = vctx;
    WbRaster *r = ctx->r;
    Cmd *cmd = &r->cmds[cmd_for_task(r, task, false)];
    const WbMesh *m = &cmd->mesh;
    int i0 = (task - cmd->vtask0) * VTX_BLOCK;
    int i1 = i0 + VTX_BLOCK < m->n_vertices ? i0 + VTX_BLOCK : m->n_vertices;
    int32_t *out = r->vtx + cmd->vtx_off;
    const WbXform2 t = m->to_px;
    if (m->paint == WB_PAINT_TEXTURE) {
        /* 256·(texel coordinate - 0.5), once per vertex instead of once
         * per triangle corner: the same float operations, so the same
         * values. */
        const WbXform2 tt = m->to_texel;
        const float usx = tt.sx * 256.0f, uox = tt.ox * 256.0f - 128.0f;
        const float vsy = tt.sy * 256.0f, voy = tt.oy * 256.0f - 128.0f;
        float *tuv = r->tuv + cmd->vtx_off;
        for (int i = i0; i < i1; i++) {
            tuv[2 * i] = m->u[i] * usx + uox;
            tuv[2 * i + 1] = m->v[i] * vsy + voy;
        }
    }
    for (int i = i0; i < i1; i++) {
        float x = m->x[i] * t.sx + t.ox, y = m->y[i] * t.sy + t.oy;
        if (!isfinite(x) || !isfinite(y)) {
            out[2 * i] = out[2 * i + 1] = FIX_INVALID;
            continue;
        }
        out[2 * i] = to_fixed(x);
        out[2 * i + 1] = to_fixed(y);
    }
}

/* Widen [*lo, *hi] by triangle (a, b, c)'s rows unless it draws nothing
 * (invalid vertex or all-zero alpha). */
static ALWAYS_INLINE void chunk_add(const int32_t *xy, const float *alpha, uint32_t a, uint32_t b,
                                    uint32_t c, int32_t *lo, int32_t *hi)
{
    if (alpha && !(alpha[a] > 0.0f || alpha[b] > 0.0f || alpha[c] > 0.0f))
        return;
    int32_t ya = xy[2 * a + 1], yb = xy[2 * b + 1], yc = xy[2 * c + 1];
    if (xy[2 * a] == FIX_INVALID || xy[2 * b] == FIX_INVALID || xy[2 * c] == FIX_INVALID)
        return;
    int32_t l = ya < yb ? ya : yb, h = ya > yb ? ya : yb;
    l = yc < l ? yc : l;
    h = yc > h ? yc : h;
    *lo = l < *lo ? l : *lo;
    *hi = h > *hi ? h : *hi;
}

/* Chunk stage: the rows each chunk of triangles may touch, for binning.
 * Chunks of a grid mesh are runs of cells within one or two cell rows, so
 * their boxes stay tight while the mesh is roughly in place. */
static void chunk_task(void *vctx, int task)
{
    EndCtx *ctx = vctx;
    WbRaster *r = ctx->r;
    Cmd *cmd = &r->cmds[cmd_for_task(r, task, true)];
    const float *alpha = cmd->kind == CMD_MESH ? cmd->mesh.alpha : NULL;
    int k = task - cmd->ctask0;
    int t0 = k * CHUNK_TRIS, t1 = t0 + CHUNK_TRIS < cmd->n_tri ? t0 + CHUNK_TRIS : cmd->n_tri;
    int32_t ymin = INT32_MAX, ymax = INT32_MIN;
    if (cmd->tri) {
        for (int t = t0; t < t1; t++)
            chunk_add(cmd->xy, alpha, cmd->tri[3 * t], cmd->tri[3 * t + 1], cmd->tri[3 * t + 2],
                      &ymin, &ymax);
    } else {
        uint32_t cols = (uint32_t)cmd->mesh.grid_cols, cell = (uint32_t)t0 / 2;
        uint32_t ci = cell % cols, cj = cell / cols;
        for (int t = t0; t < t1; t += 2) {
            uint32_t v00 = cj * (cols + 1) + ci, v01 = v00 + cols + 1;
            chunk_add(cmd->xy, alpha, v00, v00 + 1, v01, &ymin, &ymax);
            if (t + 1 < t1)
                chunk_add(cmd->xy, alpha, v00 + 1, v01 + 1, v01, &ymin, &ymax);
            if (++ci == cols) {
                ci = 0;
                cj++;
            }
        }
    }
    Chunk *ch = &r->chunks[cmd->chunk0 + (size_t)k];
    if (ymin > ymax) {
        ch->row_lo = INT32_MAX;
        ch->row_hi = INT32_MIN;
        return;
    }
    pixel_span(ymin, ymax, ctx->pat.omin_y, ctx->pat.omax_y, &ch->row_lo, &ch->row_hi);
}

static void band_task(void *vctx, int task)
{
    EndCtx *ctx = vctx;
    WbRaster *r = ctx->r;
    Worker *wk = &r->workers[task];
    const int S = r->samples;
    Band b = {.pat = &ctx->pat, .samples = wk->samples, .cov = wk->cov, .w = r->w,
              .cov_x0 = INT_MAX, .cov_y0 = INT_MAX, .cov_x1 = INT_MIN, .cov_y1 = INT_MIN};
    for (;;) {
        int band = atomic_fetch_add_explicit(&ctx->next_band, 1, memory_order_relaxed);
        if (band >= ctx->n_bands)
            break;
        b.y0 = band * WB_RASTER_BAND_ROWS;
        b.y1 = b.y0 + WB_RASTER_BAND_ROWS < r->h ? b.y0 + WB_RASTER_BAND_ROWS : r->h;
        size_t n = (size_t)(b.y1 - b.y0) * (size_t)r->w * (size_t)S;
        uint32_t *kept = ctx->keep ? r->kept + (size_t)b.y0 * (size_t)r->w * (size_t)S : NULL;
        int first = 0;
        if (ctx->keep == 2) {
            memcpy(b.samples, kept, n * sizeof *kept);
            first = 1;
        } else {
            const uint32_t bg = r->background; /* a local: the stores cannot alias it */
            uint32_t *sp = b.samples;
            size_t i = 0;
#ifdef __SSE2__
            const __m128i bgv = _mm_set1_epi32((int32_t)bg);
            for (; i + 4 <= n; i += 4)
                _mm_storeu_si128((__m128i *)(sp + i), bgv);
#endif
            for (; i < n; i++)
                sp[i] = bg;
        }
        for (int i = first; i < r->n_cmds; i++) {
            band_cmd(&b, &r->cmds[i], r->chunks);
            if (i == 0 && ctx->keep == 1)
                memcpy(kept, b.samples, n * sizeof *kept);
        }
        for (int y = b.y0; y < b.y1; y++)
            resolve_row(b.samples + (size_t)(y - b.y0) * (size_t)r->w * (size_t)S, r->w, S,
                        wb_image_row(ctx->out, y));
    }
}

static bool grow(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return true;
    size_t n = *cap ? *cap : 64;
    while (n < need)
        n *= 2;
    void *q = realloc(*p, n * elem);
    if (!q)
        return false;
    *p = q;
    *cap = n;
    return true;
}

static WbStatus ensure_workers(WbRaster *r, int n, WbError *err)
{
    if (r->n_workers >= n)
        return WB_OK;
    Worker *w = realloc(r->workers, (size_t)n * sizeof *w);
    if (!w)
        return wb_error_set(err, WB_E_IO, "out of memory for render workers");
    r->workers = w;
    size_t px = (size_t)WB_RASTER_BAND_ROWS * (size_t)r->w;
    for (int i = r->n_workers; i < n; i++) {
        w[i].samples = malloc(px * (size_t)r->samples * sizeof *w[i].samples);
        w[i].cov = calloc(px, sizeof *w[i].cov);
        if (!w[i].samples || !w[i].cov) {
            free(w[i].samples);
            free(w[i].cov);
            return wb_error_set(err, WB_E_IO, "out of memory for render band buffers");
        }
        r->n_workers = i + 1;
    }
    return WB_OK;
}

WbStatus wb_raster_end(WbRaster *r, WbPool *pool, WbImage *out, WbError *err)
{
    assert(out->w == r->w && out->h == r->h);
    if (r->failed)
        return wb_error_set(err, WB_E_IO, "out of memory while recording draw calls");

    /* Keeping the first command's result: reuse only what was kept on this
     * background, and keep nothing when its buffer cannot be had. */
    int keep = r->n_cmds > 0 ? r->keep_mode : 0;
    if (keep == 2 && !(r->kept_valid && r->kept_background == r->background))
        keep = 1;
    if (keep == 1) {
        if (!r->kept)
            r->kept = malloc((size_t)r->w * (size_t)r->h * (size_t)r->samples * sizeof *r->kept);
        if (!r->kept)
            keep = 0;
        r->kept_valid = false;
    }

    /* Lay out scratch: fixed-point vertices per mesh, chunks per command,
     * and each command's first task in the two parallel stages.  A reused
     * first command needs neither stage: it has no tasks and no chunks. */
    size_t n_vtx = 0, n_chunks = 0;
    int vtasks = 0, ctasks = 0;
    for (int i = 0; i < r->n_cmds; i++) {
        Cmd *c = &r->cmds[i];
        if (c->kind == CMD_MESH) {
            const WbMesh *m = &c->mesh;
            c->tri = m->indices;
            c->n_tri = m->indices ? m->n_triangles : 2 * m->grid_cols * m->grid_rows;
            c->vtx_off = 2 * n_vtx;
            n_vtx += (size_t)m->n_vertices;
        } else {
            c->tri = r->shape_tri + 3 * c->t0;
            c->n_tri = (int)c->nt;
        }
        bool skip = i == 0 && keep == 2;
        c->chunk0 = n_chunks;
        c->n_chunks = skip ? 0 : (c->n_tri + CHUNK_TRIS - 1) / CHUNK_TRIS;
        n_chunks += (size_t)c->n_chunks;
        c->vtask0 = vtasks;
        if (c->kind == CMD_MESH && !skip)
            vtasks += (c->mesh.n_vertices + VTX_BLOCK - 1) / VTX_BLOCK;
        c->ctask0 = ctasks;
        ctasks += c->n_chunks;
    }
    if (!grow((void **)&r->vtx, &r->cap_vtx, 2 * n_vtx, sizeof *r->vtx) ||
        !grow((void **)&r->tuv, &r->cap_tuv, 2 * n_vtx, sizeof *r->tuv) ||
        !grow((void **)&r->chunks, &r->cap_chunks, n_chunks, sizeof *r->chunks))
        return wb_error_set(err, WB_E_IO, "out of memory for %zu vertices", n_vtx);
    WbStatus st = ensure_workers(r, wb_pool_threads(pool), err);
    if (st != WB_OK)
        return st;
    for (int i = 0; i < r->n_cmds; i++) {
        Cmd *c = &r->cmds[i];
        c->xy = c->kind == CMD_MESH ? r->vtx + c->vtx_off : r->shape_xy + 2 * c->v0;
        c->tuv = c->kind == CMD_MESH ? r->tuv + c->vtx_off : NULL;
    }

    EndCtx ectx, *ctx = &ectx;
    ctx->r = r;
    ctx->out = out;
    pattern_init(&ctx->pat, r->samples);
    ctx->n_bands = (r->h + WB_RASTER_BAND_ROWS - 1) / WB_RASTER_BAND_ROWS;
    ctx->keep = keep;
    atomic_init(&ctx->next_band, 0);
    wb_pool_run(pool, vtasks, vertex_task, ctx);
    wb_pool_run(pool, ctasks, chunk_task, ctx);
    int threads = wb_pool_threads(pool);
    wb_pool_run(pool, threads < ctx->n_bands ? threads : ctx->n_bands, band_task, ctx);
    if (keep == 1) {
        r->kept_valid = true;
        r->kept_background = r->background;
    }
    return WB_OK;
}

/* ---- recording ---------------------------------------------------------- */

WbStatus wb_raster_init(WbRaster *r, int w, int h, int samples, WbError *err)
{
    memset(r, 0, sizeof *r);
    if (w <= 0 || h <= 0 || w > 32768 || h > 32768)
        return wb_error_set(err, WB_E_INPUT, "render size %dx%d is out of range (1..32768)", w, h);
    if (samples != 1 && samples != 4 && samples != 8 && samples != 16)
        return wb_error_set(err, WB_E_INPUT,
                            "antialiasing samples must be 1, 4, 8 or 16, not %d", samples);
    r->w = w;
    r->h = h;
    r->samples = samples;
    return WB_OK;
}

void wb_raster_free(WbRaster *r)
{
    if (!r)
        return;
    for (int i = 0; i < r->n_workers; i++) {
        free(r->workers[i].samples);
        free(r->workers[i].cov);
    }
    free(r->workers);
    free(r->cmds);
    free(r->shape_xy);
    free(r->shape_tri);
    free(r->vtx);
    free(r->tuv);
    free(r->kept);
    free(r->chunks);
    memset(r, 0, sizeof *r);
}

void wb_raster_begin(WbRaster *r, uint32_t background)
{
    r->background = background;
    r->n_cmds = 0;
    r->n_shape_v = 0;
    r->n_shape_t = 0;
    r->failed = false;
    r->keep_mode = 0;
}

void wb_raster_keep_first(WbRaster *r, bool reuse)
{
    r->keep_mode = reuse ? 2 : 1;
}

static Cmd *push_cmd(WbRaster *r)
{
    if (r->failed)
        return NULL;
    size_t cap = (size_t)r->cap_cmds;
    if (!grow((void **)&r->cmds, &cap, (size_t)r->n_cmds + 1, sizeof *r->cmds)) {
        r->failed = true;
        return NULL;
    }
    r->cap_cmds = (int)cap;
    Cmd *c = &r->cmds[r->n_cmds++];
    memset(c, 0, sizeof *c);
    return c;
}

void wb_raster_mesh(WbRaster *r, const WbMesh *mesh)
{
    assert(mesh->indices || (mesh->grid_cols > 0 && mesh->grid_rows > 0 &&
                             mesh->n_vertices == (mesh->grid_cols + 1) * (mesh->grid_rows + 1)));
    assert(mesh->paint != WB_PAINT_TEXTURE || (mesh->texture && mesh->u && mesh->v));
    assert(mesh->paint != WB_PAINT_VERTEX_COLOR || mesh->rgba);
    Cmd *c = push_cmd(r);
    if (!c)
        return;
    c->kind = CMD_MESH;
    c->mesh = *mesh;
}

/* A shape under construction: vertices and triangles go to the arenas. */
static Cmd *shape_begin(WbRaster *r, bool evenodd, uint32_t color)
{
    Cmd *c = push_cmd(r);
    if (!c)
        return NULL;
    c->kind = CMD_SHAPE;
    c->evenodd = evenodd;
    c->color = color;
    c->v0 = r->n_shape_v;
    c->t0 = r->n_shape_t;
    return c;
}

/* Append a vertex (px); returns its index within the shape. */
static uint32_t shape_vertex(WbRaster *r, Cmd *c, float x, float y)
{
    if (r->failed || !grow((void **)&r->shape_xy, &r->cap_shape_v, 2 * (r->n_shape_v + 1),
                           sizeof *r->shape_xy)) {
        r->failed = true;
        return 0;
    }
    int32_t *p = r->shape_xy + 2 * r->n_shape_v;
    if (!isfinite(x) || !isfinite(y)) {
        p[0] = p[1] = FIX_INVALID;
    } else {
        p[0] = to_fixed(x);
        p[1] = to_fixed(y);
    }
    r->n_shape_v++;
    return (uint32_t)(c->nv++);
}

static void shape_tri(WbRaster *r, Cmd *c, uint32_t a, uint32_t b, uint32_t d)
{
    if (r->failed || !grow((void **)&r->shape_tri, &r->cap_shape_t, 3 * (r->n_shape_t + 1),
                           sizeof *r->shape_tri)) {
        r->failed = true;
        return;
    }
    uint32_t *t = r->shape_tri + 3 * r->n_shape_t;
    t[0] = a;
    t[1] = b;
    t[2] = d;
    r->n_shape_t++;
    c->nt++;
}

void wb_raster_polygon(WbRaster *r, const float *xy, int n, uint32_t color)
{
    if (n < 3)
        return;
    Cmd *c = shape_begin(r, true, color);
    if (!c)
        return;
    for (int i = 0; i < n; i++)
        shape_vertex(r, c, xy[2 * i], xy[2 * i + 1]);
    for (int i = 1; i + 1 < n; i++)
        shape_tri(r, c, 0, (uint32_t)i, (uint32_t)i + 1);
}

/* Segments for a circle of radius rad whose chords stay within the
 * tolerance: the sagitta rad·(1 - cos(π/n)) <= tol. */
static int circle_segments(float rad)
{
    if (rad <= DISC_TOLERANCE_PX)
        return 8;
    double n = ceil(M_PI / acos(1.0 - (double)DISC_TOLERANCE_PX / (double)rad));
    return n < 8 ? 8 : n > 4096 ? 4096 : (int)n;
}

/* A fan around the centre; its triangles never overlap, so it works in
 * both OR and XOR shapes. */
static void add_disc(WbRaster *r, Cmd *c, float cx, float cy, float rad)
{
    if (!(rad > 0.0f))
        return;
    int n = circle_segments(rad);
    uint32_t centre = shape_vertex(r, c, cx, cy);
    uint32_t first = 0;
    for (int i = 0; i < n; i++) {
        double t = 2.0 * M_PI * i / n;
        uint32_t v = shape_vertex(r, c, cx + rad * (float)cos(t), cy + rad * (float)sin(t));
        if (i == 0)
            first = v;
        else
            shape_tri(r, c, centre, v - 1, v);
    }
    shape_tri(r, c, centre, first + (uint32_t)n - 1, first);
}

void wb_raster_disc(WbRaster *r, float cx, float cy, float radius, uint32_t color)
{
    Cmd *c = shape_begin(r, false, color);
    if (c)
        add_disc(r, c, cx, cy, radius);
}

void wb_raster_polyline(WbRaster *r, const float *xy, int n, float width, uint32_t color,
                        WbCap cap)
{
    if (n < 1 || !(width > 0.0f))
        return;
    Cmd *c = shape_begin(r, false, color);
    if (!c)
        return;
    float hw = 0.5f * width;
    for (int i = 0; i + 1 < n; i++) {
        float x0 = xy[2 * i], y0 = xy[2 * i + 1], x1 = xy[2 * i + 2], y1 = xy[2 * i + 3];
        float dx = x1 - x0, dy = y1 - y0, len = sqrtf(dx * dx + dy * dy);
        if (!(len > 0.0f))
            continue;
        float nx = -dy / len * hw, ny = dx / len * hw;
        uint32_t a = shape_vertex(r, c, x0 + nx, y0 + ny);
        uint32_t b = shape_vertex(r, c, x1 + nx, y1 + ny);
        uint32_t d = shape_vertex(r, c, x1 - nx, y1 - ny);
        uint32_t e = shape_vertex(r, c, x0 - nx, y0 - ny);
        shape_tri(r, c, a, b, d);
        shape_tri(r, c, a, d, e);
    }
    for (int i = 0; i < n; i++) {
        bool end = i == 0 || i == n - 1;
        if (!end || cap == WB_CAP_ROUND)
            add_disc(r, c, xy[2 * i], xy[2 * i + 1], hw);
    }
}
