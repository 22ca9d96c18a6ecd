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
#include "render/raster_core.h"

#include <assert.h>
#include <limits.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define WB_RASTER_AVX2 1
#include <immintrin.h>
#endif
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "core/cpu.h"

#define FIX_LIMIT_PX 1048576.0f        /* 2^20 px */
#define FIX_INVALID INT32_MIN          /* a NaN/Inf vertex */
#define CHUNK_TRIS 64                  /* triangles per binning chunk (even) */
#define VTX_BLOCK 16384                /* vertices per vertex-stage task */
#define CHUNK_TASK 64                  /* chunks per chunk-stage task */
#define DISC_TOLERANCE_PX (1.0f / 64.0f)

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
    uint64_t aa_mask;            /* photo path: bit i: its triangle i is drawn only with MSAA */
    uint8_t invalid;             /* photo path: holds a NaN/Inf vertex */
    /* Photo path carrying pixels over: the fixed-point box of its moved
     * cells, before and after their move (empty: x0 > x1). */
    int32_t moved_x0, moved_x1, moved_y0, moved_y1;
    int32_t x0, x1, y0, y1;      /* photo path: the fixed-point box of its cells */
} Chunk;

typedef struct WbRasterWorker {
    uint32_t *samples;           /* WB_RASTER_BAND_ROWS · w · S */
    uint16_t *cov;               /* WB_RASTER_BAND_ROWS · w coverage masks (shapes) */
    uint32_t *flat;              /* WB_RASTER_BAND_ROWS · w centre samples (photo path; when
                                    they go straight into the output, the saved
                                    carried-over tiles) */
    uint8_t *tiles;              /* TILE_ROWS · tiles_x MSAA tile flags (photo path) */
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

/* ---- one band ----------------------------------------------------------- */

typedef struct Band {
    const Pattern *pat;
    uint32_t *samples;
    uint16_t *cov;
    int w;
    int y0, y1;                       /* rows [y0, y1) */
    int cx0, cx1, cy0, cy1;           /* pixels draw_tri may write (inclusive) */
    WbImage *out;                     /* the frame (photo path resolve) */
    int cov_x0, cov_x1, cov_y0, cov_y1; /* touched part of cov (inclusive) */
    bool groups;                      /* photo path: flat cells eight at a time (AVX2) */
    bool wide;                        /* with groups: cells and shading sixteen at a time
                                         (AVX-512) */
    const uint64_t *compress;         /* with groups: see compress_table */
    int k0, k1;                       /* photo path: the chunks that may reach the band */
    int pitch;                        /* photo path: words from one flat row to the next */
} Band;

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
        c = mul255(c, (uint32_t)(a * 255.0f + 0.5f));
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
            sp[s] = blend_over(c, sp[s]);
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
    r0 = r0 < b->cy0 ? b->cy0 : r0;
    r1 = r1 > b->cy1 ? b->cy1 : r1;
    if (r0 > r1)
        return;
    int32_t xmin = pos[0][0], xmax = pos[0][0];
    xmin = pos[1][0] < xmin ? pos[1][0] : xmin;
    xmax = pos[1][0] > xmax ? pos[1][0] : xmax;
    xmin = pos[2][0] < xmin ? pos[2][0] : xmin;
    xmax = pos[2][0] > xmax ? pos[2][0] : xmax;
    int32_t c0, c1;
    pixel_span(xmin, xmax, pat->omin_x, pat->omax_x, &c0, &c1);
    c0 = c0 < b->cx0 ? b->cx0 : c0;
    c1 = c1 > b->cx1 ? b->cx1 : c1;
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
                sp[s] = ca == 255 ? color : blend_over(color, sp[s]);
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
        resolve_px(sp, same, S, out);
    }
}

/* resolve_row_s for one sample per pixel, four opaque pixels at a time
 * (their packed words are already the output bytes). */
static void resolve_flat_row(const uint32_t *sp, int w, uint8_t *out)
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

static void resolve_row(const uint32_t *sp, int w, int S, uint8_t *out)
{
    switch (S) {
    case 4: resolve_row_s(sp, w, 4, out); break;
    case 8: resolve_row_s(sp, w, 8, out); break;
    case 16: resolve_row_s(sp, w, 16, out); break;
    default: resolve_row_s(sp, w, 1, out); break;
    }
}

/* ---- the photo path ----------------------------------------------------- *
 *
 * An opaque-mapped grid mesh drawn alone (the unmasked photo frame) has a
 * continuous texture map: every triangle touching a pixel shades it from
 * the same map at the same pixel centre, so MSAA changes a pixel only where
 * a VISIBLE edge crosses it.  Inside the mesh no edge is visible; edges
 * show only on the silhouette (the border cells) and along folds, where a
 * flipped triangle (negative area) lies over its neighbours.  (Wherever the
 * mesh overlaps itself some triangle is flipped, or the overlap is bounded
 * by the border: a mesh map that keeps its orientation everywhere is
 * locally one-to-one, so a second layer can only begin at the border.)
 *
 * So the band is cut into tiles of TILE_W × TILE_H pixels.  A tile is an
 * MSAA tile when the sample box of an "AA triangle" reaches it: a border
 * cell's triangle (unless the cell's border edges all lie off the frame,
 * see edge_outside), a flipped or zero-area one, or one too large for the
 * int32 edge loop.  MSAA tiles are drawn exactly as before (every triangle
 * reaching the tile, all S samples, clipped to the tile) and resolved from
 * their samples.  Every other pixel gets ONE sample at its centre from the
 * triangle that owns the centre under the top-left rule (no seams, no
 * double blending), shaded once, in submission order: what the MSAA path
 * stores in all S samples of a pixel no edge crosses.  AA triangles are
 * never drawn with the centre sample: their pixels all lie in MSAA tiles.
 * The output stays a function of the recorded frame and the band, so it is
 * the same for every thread count. */

#define TILE_W 16
#define TILE_H 8
#define TILE_ROWS (WB_RASTER_BAND_ROWS / TILE_H)

static int tiles_x(int w)
{
    return (w + TILE_W - 1) / TILE_W;
}

/* Triangle (ia, ib, ic) of a mesh with valid vertices: is it drawn with
 * MSAA only?  (Positive area, at most NARROW_FIX wide and high, not on the
 * border: no.) */
static ALWAYS_INLINE bool aa_triangle_at(int32_t ax, int32_t ay, int32_t bx, int32_t by,
                                         int32_t cx, int32_t cy)
{
    int64_t area = (int64_t)(bx - ax) * (cy - ay) - (int64_t)(by - ay) * (cx - ax);
    if (area <= 0)
        return true;
    int32_t x0 = ax < bx ? ax : bx, x1 = ax > bx ? ax : bx;
    int32_t y0 = ay < by ? ay : by, y1 = ay > by ? ay : by;
    x0 = cx < x0 ? cx : x0;
    x1 = cx > x1 ? cx : x1;
    y0 = cy < y0 ? cy : y0;
    y1 = cy > y1 ? cy : y1;
    return x1 - x0 > NARROW_FIX || y1 - y0 > NARROW_FIX;
}

static ALWAYS_INLINE bool aa_triangle(const int32_t *xy, uint32_t ia, uint32_t ib, uint32_t ic,
                                      bool border)
{
    return border || aa_triangle_at(xy[2 * ia], xy[2 * ia + 1], xy[2 * ib], xy[2 * ib + 1],
                                    xy[2 * ic], xy[2 * ic + 1]);
}

/* Is a border edge p–q of the photo mesh out of the frame (fw × fh, fixed
 * point)?  Both ends on or past one side: then the segment crosses no
 * pixel's samples (they all lie inside the frame), so no visible pixel is
 * cut by it, and the cell only needs MSAA for what any cell needs it for.
 * A mesh filling the frame (`fit: fill`) has its left and right borders
 * on the frame's edges: drawn without this, every cell along them took the
 * MSAA path for nothing. */
static ALWAYS_INLINE bool edge_outside(int32_t px, int32_t py, int32_t qx, int32_t qy, int32_t fw,
                                       int32_t fh)
{
    return (px <= 0 && qx <= 0) || (px >= fw && qx >= fw) || (py <= 0 && qy <= 0) ||
           (py >= fh && qy >= fh);
}

/* Is cell (ci, cj) of a cols × rows grid, corners v00, v00 + 1, v01,
 * v01 + 1 in xy, a border cell whose border edges may show?  Then its
 * triangles are drawn with MSAA (the silhouette). */
static ALWAYS_INLINE bool border_shows(const int32_t *xy, uint32_t v00, uint32_t v01, uint32_t ci,
                                       uint32_t cj, uint32_t cols, uint32_t rows, int32_t fw,
                                       int32_t fh)
{
    const int32_t *a = xy + 2 * v00, *c = xy + 2 * v01; /* a[2], c[2]: the corners to the right */
    return (ci == 0 && !edge_outside(a[0], a[1], c[0], c[1], fw, fh)) ||
           (ci == cols - 1 && !edge_outside(a[2], a[3], c[2], c[3], fw, fh)) ||
           (cj == 0 && !edge_outside(a[0], a[1], a[2], a[3], fw, fh)) ||
           (cj == rows - 1 && !edge_outside(c[0], c[1], c[2], c[3], fw, fh));
}

/* Min and max of n values. */
static ALWAYS_INLINE void span4(int32_t a, int32_t b, int32_t c, int32_t d, int n, int32_t *lo,
                                int32_t *hi)
{
    int32_t l = a < b ? a : b, h = a > b ? a : b;
    l = c < l ? c : l;
    h = c > h ? c : h;
    if (n == 4) {
        l = d < l ? d : l;
        h = d > h ? d : h;
    }
    *lo = l;
    *hi = h;
}

/* The tiles [tx0, tx1] × [ty0, ty1] of the band that samples in the box
 * [x0, x1] × [y0, y1] (fixed point) may reach; false when none. */
static ALWAYS_INLINE bool box_tiles(const Band *b, int32_t x0, int32_t x1, int32_t y0,
                                    int32_t y1, int *tx0, int *tx1, int *ty0, int *ty1)
{
    const Pattern *pat = b->pat;
    int32_t r0, r1, c0, c1;
    pixel_span(y0, y1, pat->omin_y, pat->omax_y, &r0, &r1);
    pixel_span(x0, x1, pat->omin_x, pat->omax_x, &c0, &c1);
    r0 = r0 < b->y0 ? b->y0 : r0;
    r1 = r1 >= b->y1 ? b->y1 - 1 : r1;
    c0 = c0 < 0 ? 0 : c0;
    c1 = c1 >= b->w ? b->w - 1 : c1;
    if (r0 > r1 || c0 > c1)
        return false;
    *ty0 = (r0 - b->y0) / TILE_H;
    *ty1 = (r1 - b->y0) / TILE_H;
    *tx0 = c0 / TILE_W;
    *tx1 = c1 / TILE_W;
    return true;
}

/* The tiles a triangle's samples may reach (see box_tiles). */
static ALWAYS_INLINE bool tri_tiles(const Band *b, const int32_t *xy, uint32_t ia, uint32_t ib,
                                    uint32_t ic, int *tx0, int *tx1, int *ty0, int *ty1)
{
    int32_t x0, x1, y0, y1;
    span4(xy[2 * ia], xy[2 * ib], xy[2 * ic], 0, 3, &x0, &x1);
    span4(xy[2 * ia + 1], xy[2 * ib + 1], xy[2 * ic + 1], 0, 3, &y0, &y1);
    return box_tiles(b, x0, x1, y0, y1, tx0, tx1, ty0, ty1);
}

/* Mark the tiles a triangle's samples may reach. */
static void mark_tiles(Band *b, uint8_t *tiles, int tw, const int32_t *xy, uint32_t ia,
                       uint32_t ib, uint32_t ic)
{
    int tx0, tx1, ty0, ty1;
    if (!tri_tiles(b, xy, ia, ib, ic, &tx0, &tx1, &ty0, &ty1))
        return;
    for (int ty = ty0; ty <= ty1; ty++)
        memset(tiles + (size_t)ty * (size_t)tw + (size_t)tx0, 1, (size_t)(tx1 - tx0 + 1));
}

/* Draw a triangle into the MSAA tiles its samples may reach, clipped to
 * each tile. */
static ALWAYS_INLINE void draw_tri_tiles(Band *b, const uint8_t *tiles, int tw, const Cmd *cmd,
                                         uint32_t ia, uint32_t ib, uint32_t ic, const int S)
{
    int tx0, tx1, ty0, ty1;
    if (!tri_tiles(b, cmd->xy, ia, ib, ic, &tx0, &tx1, &ty0, &ty1))
        return;
    for (int ty = ty0; ty <= ty1; ty++)
        for (int tx = tx0; tx <= tx1; tx++) {
            if (!tiles[(size_t)ty * (size_t)tw + (size_t)tx])
                continue;
            b->cy0 = b->y0 + ty * TILE_H;
            b->cy1 = b->cy0 + TILE_H - 1 < b->y1 - 1 ? b->cy0 + TILE_H - 1 : b->y1 - 1;
            b->cx0 = tx * TILE_W;
            b->cx1 = b->cx0 + TILE_W - 1 < b->w - 1 ? b->cx0 + TILE_W - 1 : b->w - 1;
            draw_tri(b, cmd, ia, ib, ic, S, MODE_TEX);
        }
}

/* The texture planes of triangle (ia, ib, ic) at positions a, b, c, origin
 * (ox, oy): frag_setup's MODE_TEX arithmetic, without the rest of a Frag. */
static ALWAYS_INLINE void tex_planes(const float *t, uint32_t ia, uint32_t ib, uint32_t ic,
                                     const int32_t a[2], const int32_t b[2], const int32_t c[2],
                                     int32_t ox, int32_t oy, Plane *pu, Plane *pv)
{
    float bx = (float)(b[0] - a[0]) * (1.0f / FIX_ONE);
    float by = (float)(b[1] - a[1]) * (1.0f / FIX_ONE);
    float cx = (float)(c[0] - a[0]) * (1.0f / FIX_ONE);
    float cy = (float)(c[1] - a[1]) * (1.0f / FIX_ONE);
    float pax = (float)(a[0] - ox) * (1.0f / FIX_ONE);
    float pay = (float)(a[1] - oy) * (1.0f / FIX_ONE);
    float inv = 1.0f / (bx * cy - by * cx);
    *pu = plane(t[2 * ia], t[2 * ib], t[2 * ic], bx, by, cx, cy, inv, pax, pay);
    *pv = plane(t[2 * ia + 1], t[2 * ib + 1], t[2 * ic + 1], bx, by, cx, cy, inv, pax, pay);
}

/* Edge k of a triangle at the box origin (X0, Y0), with the top-left bias,
 * and its steps per pixel. */
static ALWAYS_INLINE void edge_setup(const int32_t p[2], const int32_t q[2], int32_t X0,
                                     int32_t Y0, int32_t *e, int32_t *sx, int32_t *sy)
{
    int32_t dx = q[0] - p[0], dy = q[1] - p[1];
    bool top_left = dy < 0 || (dy == 0 && dx > 0);
    *e = dx * (Y0 - p[1]) - dy * (X0 - p[0]) - (top_left ? 0 : 1);
    *sx = -dy * FIX_ONE;
    *sy = dx * FIX_ONE;
}

#ifdef __SSE2__
/* (0, s, 2s, 3s). */
static ALWAYS_INLINE __m128i lane_steps(int32_t s)
{
    return _mm_setr_epi32(0, s, 2 * s, 3 * s);
}
#endif

/* Store a shaded colour into the flat buffer. */
static ALWAYS_INLINE void flat_store(uint32_t *dst, uint32_t c)
{
    uint32_t ca = c >> 24;
    if (ca == 255)
        *dst = c;
    else if (ca != 0)
        *dst = blend_over(c, *dst);
}

/* The flat pixels waiting to be shaded, first in first out.  A cell's box
 * row holds only one or two covered pixels on average at 1080p, so
 * shading four lanes per box row would waste most of the sampler's work:
 * covered pixels queue up (their flat-buffer offset and texture
 * coordinates) and are sampled four at a time, in batches: a batch reads
 * the queue long after its lanes were written one by one, so the vector
 * loads do not stall on store forwarding.  The stores happen in queue
 * order, which is submission order (flat_group8 queues a group's pixels in
 * another order only when no two of them are the same pixel), so a pixel
 * two flat triangles cover (a mesh overlapping itself away from its fold)
 * ends up exactly as if each were stored at once. */
#define QUEUE_BATCH 32
/* Room for what flat_group8 or flat_group16 may add at once past a batch:
 * up to 32 offsets of sixteen lanes, each stored as a whole vector. */
#define QUEUE_CAP (QUEUE_BATCH + 32 * 16 + 16)
typedef struct ShadeQueue {
    float u[QUEUE_CAP], v[QUEUE_CAP];
    uint32_t at[QUEUE_CAP];
    int n;
} ShadeQueue;

#ifdef __SSE2__
/* Store four shaded pixels (colours c) at flat offsets at[0..3]. */
static ALWAYS_INLINE void store4(uint32_t *flat, const uint32_t *at, __m128i c)
{
    uint32_t cc[4];
    _mm_storeu_si128((__m128i *)cc, c);
    const __m128i amask = _mm_set1_epi32((int)0xFF000000u);
    if (_mm_movemask_epi8(_mm_cmpeq_epi32(_mm_and_si128(c, amask), amask)) == 0xFFFF) {
        for (int k = 0; k < 4; k++)
            flat[at[k]] = cc[k];
    } else {
        for (int k = 0; k < 4; k++)
            flat_store(flat + at[k], cc[k]);
    }
}

/* Shade every complete group of four queued pixels, keep the rest. */
static ALWAYS_INLINE void queue_flush(ShadeQueue *q, uint32_t *flat, const WbTexSampler *ts)
{
    int i = 0;
    for (; i + 4 <= q->n; i += 4)
        store4(flat, q->at + i,
               wb_tex_sampler_fx4(ts, _mm_loadu_ps(q->u + i), _mm_loadu_ps(q->v + i)));
    for (int k = 0; i + k < q->n; k++) {
        q->u[k] = q->u[i + k];
        q->v[k] = q->v[i + k];
        q->at[k] = q->at[i + k];
    }
    q->n -= i;
}

/* Shade the covered lanes (mask m) of a 4-pixel group at flat offset at0:
 * a full group with nothing queued before it at once, else queued. */
static ALWAYS_INLINE void queue_push(ShadeQueue *q, uint32_t *flat, const WbTexSampler *ts,
                                     unsigned m, uint32_t at0, __m128 su, __m128 sv)
{
    if (m == 15 && q->n == 0) {
        const uint32_t at[4] = {at0, at0 + 1, at0 + 2, at0 + 3};
        store4(flat, at, wb_tex_sampler_fx4(ts, su, sv));
        return;
    }
    float u[4], v[4];
    _mm_storeu_ps(u, su);
    _mm_storeu_ps(v, sv);
    int n = q->n;
    for (; m; m &= m - 1) {
        const int j = __builtin_ctz(m);
        q->u[n] = u[j];
        q->v[n] = v[j];
        q->at[n] = at0 + (uint32_t)j;
        n++;
    }
    q->n = n;
    if (n >= QUEUE_BATCH)
        queue_flush(q, flat, ts);
}

/* Shade everything queued (the last group's spare lanes repeat its first
 * pixel and are not stored). */
static ALWAYS_INLINE void queue_drain(ShadeQueue *q, uint32_t *flat, const WbTexSampler *ts)
{
    queue_flush(q, flat, ts);
    if (q->n == 0)
        return;
    const int n = q->n;
    for (int k = n; k < 4; k++) {
        q->u[k] = q->u[0];
        q->v[k] = q->v[0];
    }
    uint32_t cc[4];
    _mm_storeu_si128((__m128i *)cc,
                     wb_tex_sampler_fx4(ts, _mm_loadu_ps(q->u), _mm_loadu_ps(q->v)));
    for (int k = 0; k < n; k++)
        flat_store(flat + q->at[k], cc[k]);
    q->n = 0;
}
#endif

/* One centre sample per pixel for the triangles of grid cell (P[0] = v00,
 * P[1] = v10, P[2] = v01, P[3] = v11; v01 is the one below v00) that are
 * drawn flat: T0 = (v00, v10, v01) when d0, T1 = (v10, v11, v01) when d1.
 * Both have positive area and are narrow (see aa_triangle), so their edge
 * values over the box of the drawn ones fit int32 (|E| <= 2·2^14·(2^15 +
 * 1024) < 2^31).  (xmin..ymax) is the box of all four vertices.
 *
 * The two triangles share the diagonal v10–v01, run in opposite directions,
 * so their biased edge values there are D and -D - 1 = ~D: the top-left
 * rule gives each diagonal pixel to exactly one of them, and one edge
 * vector serves both (T0 inside: D >= 0; T1 inside: ~D >= 0, i.e. D < 0).
 * Each covered pixel is shaded once, at its centre, from its triangle's
 * planes — the colour the MSAA path stores in every sample no edge
 * crosses.  SSE2 tests four pixels of a row at a time and works out their
 * texture coordinates; the covered ones go to the shading queue (q). */
static ALWAYS_INLINE void flat_cell(Band *b, uint32_t *flat, ShadeQueue *q, const Cmd *cmd,
                                    const WbTexSampler *ts, uint32_t v00, uint32_t v01,
                                    const int32_t P[4][2], int32_t xmin, int32_t xmax,
                                    int32_t ymin, int32_t ymax, bool d0, bool d1)
{
    const uint32_t v10 = v00 + 1, v11 = v01 + 1;
    if (!(d0 && d1)) {
        /* One triangle: its own box, T0 {0,1,2} or T1 {1,3,2}. */
        int k = d0 ? 0 : 3;
        span4(P[k][0], P[1][0], P[2][0], 0, 3, &xmin, &xmax);
        span4(P[k][1], P[1][1], P[2][1], 0, 3, &ymin, &ymax);
    }
    int32_t r0, r1, c0, c1;
    pixel_span(ymin, ymax, 0, 0, &r0, &r1);
    r0 = r0 < b->y0 ? b->y0 : r0;
    r1 = r1 >= b->y1 ? b->y1 - 1 : r1;
    if (r0 > r1)
        return;
    pixel_span(xmin, xmax, 0, 0, &c0, &c1);
    c0 = c0 < 0 ? 0 : c0;
    c1 = c1 >= b->w ? b->w - 1 : c1;
    if (c0 > c1)
        return;
    const int32_t X0 = c0 * FIX_ONE + FIX_HALF, Y0 = r0 * FIX_ONE + FIX_HALF;

    /* Edges: 0 top (T0), 1 the diagonal (both), 2 left (T0), 3 right (T1),
     * 4 bottom (T1).  An undrawn triangle's own edges stay at -1 with zero
     * steps: never inside. */
    int32_t e[5], sx[5], sy[5];
    Plane pu[2] = {{0, 0, 0}, {0, 0, 0}}, pv[2] = {{0, 0, 0}, {0, 0, 0}};
    edge_setup(P[1], P[2], X0, Y0, &e[1], &sx[1], &sy[1]);
    if (d0) {
        tex_planes(cmd->tuv, v00, v10, v01, P[0], P[1], P[2], X0, Y0, &pu[0], &pv[0]);
        edge_setup(P[0], P[1], X0, Y0, &e[0], &sx[0], &sy[0]);
        edge_setup(P[2], P[0], X0, Y0, &e[2], &sx[2], &sy[2]);
    } else {
        e[0] = e[2] = -1;
        sx[0] = sy[0] = sx[2] = sy[2] = 0;
    }
    if (d1) {
        tex_planes(cmd->tuv, v10, v11, v01, P[1], P[3], P[2], X0, Y0, &pu[1], &pv[1]);
        edge_setup(P[1], P[3], X0, Y0, &e[3], &sx[3], &sy[3]);
        edge_setup(P[3], P[2], X0, Y0, &e[4], &sx[4], &sy[4]);
    } else {
        e[3] = e[4] = -1;
        sx[3] = sy[3] = sx[4] = sy[4] = 0;
    }
    uint32_t *row = flat + (size_t)(r0 - b->y0) * (size_t)b->pitch;
#ifdef __SSE2__
    /* Lane j of edge k's vector: its value j pixels to the right. */
    __m128i ev[5];
    for (int k = 0; k < 5; k++)
        ev[k] = _mm_add_epi32(_mm_set1_epi32(e[k]),
                              lane_steps(sx[k]));
    /* Lane j of the pixel offset from the box's first column, and the two
     * triangles' texture planes, lane-wise: plane_at's very operations. */
    const __m128 lanes = _mm_setr_ps(0.0f, 1.0f, 2.0f, 3.0f);
    const __m128 gu0 = _mm_set1_ps(pu[0].gx), hu0 = _mm_set1_ps(pu[0].gy), ou0 = _mm_set1_ps(pu[0].o);
    const __m128 gv0 = _mm_set1_ps(pv[0].gx), hv0 = _mm_set1_ps(pv[0].gy), ov0 = _mm_set1_ps(pv[0].o);
    const __m128 gu1 = _mm_set1_ps(pu[1].gx), hu1 = _mm_set1_ps(pu[1].gy), ou1 = _mm_set1_ps(pu[1].o);
    const __m128 gv1 = _mm_set1_ps(pv[1].gx), hv1 = _mm_set1_ps(pv[1].gy), ov1 = _mm_set1_ps(pv[1].o);
    const __m128i none = _mm_set1_epi32(-1);
    for (int32_t py = r0; py <= r1; py++, row += b->pitch) {
        const __m128 fy = _mm_set1_ps((float)(py - r0));
        __m128i v0 = ev[0], v1 = ev[1], v2 = ev[2], v3 = ev[3], v4 = ev[4];
        for (int32_t px = c0;;) {
            /* T0: top, diagonal, left all >= 0; T1: right, bottom >= 0 and
             * the diagonal < 0 (see above). */
            __m128i in0 = _mm_cmpgt_epi32(_mm_or_si128(_mm_or_si128(v0, v1), v2), none);
            __m128i in1 = _mm_srai_epi32(_mm_andnot_si128(_mm_or_si128(v3, v4), v1), 31);
            const int n = c1 - px + 1;
            if (n < 4) {
                const __m128i valid = _mm_cmpgt_epi32(_mm_set1_epi32(n), _mm_setr_epi32(0, 1, 2, 3));
                in0 = _mm_and_si128(in0, valid);
                in1 = _mm_and_si128(in1, valid);
            }
            const __m128i cov = _mm_or_si128(in0, in1);
            if (_mm_movemask_epi8(cov)) {
                const __m128 fx = _mm_add_ps(_mm_set1_ps((float)(px - c0)), lanes);
                __m128 su, sv;
                if (_mm_movemask_epi8(in0)) {
                    su = _mm_add_ps(_mm_add_ps(ou0, _mm_mul_ps(gu0, fx)), _mm_mul_ps(hu0, fy));
                    sv = _mm_add_ps(_mm_add_ps(ov0, _mm_mul_ps(gv0, fx)), _mm_mul_ps(hv0, fy));
                    if (_mm_movemask_epi8(in1)) {
                        const __m128 t1 = _mm_castsi128_ps(in1);
                        const __m128 su1 = _mm_add_ps(_mm_add_ps(ou1, _mm_mul_ps(gu1, fx)),
                                                      _mm_mul_ps(hu1, fy));
                        const __m128 sv1 = _mm_add_ps(_mm_add_ps(ov1, _mm_mul_ps(gv1, fx)),
                                                      _mm_mul_ps(hv1, fy));
                        su = _mm_or_ps(_mm_andnot_ps(t1, su), _mm_and_ps(t1, su1));
                        sv = _mm_or_ps(_mm_andnot_ps(t1, sv), _mm_and_ps(t1, sv1));
                    }
                } else {
                    su = _mm_add_ps(_mm_add_ps(ou1, _mm_mul_ps(gu1, fx)), _mm_mul_ps(hu1, fy));
                    sv = _mm_add_ps(_mm_add_ps(ov1, _mm_mul_ps(gv1, fx)), _mm_mul_ps(hv1, fy));
                }
                queue_push(q, flat, ts, (unsigned)_mm_movemask_ps(_mm_castsi128_ps(cov)),
                           (uint32_t)(row + px - flat), su, sv);
            }
            px += 4;
            if (px > c1)
                break;
            v0 = _mm_add_epi32(v0, _mm_set1_epi32(4 * sx[0]));
            v1 = _mm_add_epi32(v1, _mm_set1_epi32(4 * sx[1]));
            v2 = _mm_add_epi32(v2, _mm_set1_epi32(4 * sx[2]));
            v3 = _mm_add_epi32(v3, _mm_set1_epi32(4 * sx[3]));
            v4 = _mm_add_epi32(v4, _mm_set1_epi32(4 * sx[4]));
        }
        for (int k = 0; k < 5; k++)
            ev[k] = _mm_add_epi32(ev[k], _mm_set1_epi32(sy[k]));
    }
#else
    (void)q;
    for (int32_t py = r0; py <= r1; py++, row += b->pitch) {
        const float fy = (float)(py - r0);
        int32_t v[5];
        for (int k = 0; k < 5; k++)
            v[k] = e[k];
        for (int32_t px = c0; px <= c1; px++) {
            int tri = (v[0] | v[1] | v[2]) >= 0 ? 0 : (v[3] | v[4] | ~v[1]) >= 0 ? 1 : -1;
            if (tri >= 0) {
                const float fx = (float)(px - c0);
                flat_store(row + px, wb_tex_sampler_fx(ts, plane_at(pu[tri], fx, fy),
                                                       plane_at(pv[tri], fx, fy)));
            }
            for (int k = 0; k < 5; k++)
                v[k] += sx[k];
        }
        for (int k = 0; k < 5; k++)
            e[k] += sy[k];
    }
#endif
}

#ifdef WB_RASTER_AVX2
/* Eight cells at a time: flat_cell's arithmetic with one cell per AVX2
 * lane.  At 1080p a cell covers about six pixels, so per-cell setup (box,
 * five edges, two texture planes with a division) outweighs the pixels;
 * done for eight cells at once it nearly vanishes.  Cells v00 + l (l < n,
 * one grid row) with flat triangles d0 (bit l: T0) and d1 (bit l: T1).
 *
 * Every value is flat_cell's, by the same operations: the box (of the drawn
 * triangles), its clip, the biased edge values at its first pixel centre
 * and their steps, the planes at that origin, and (o + gx·dx) + gy·dy at
 * offset (dx, dy).  The lanes walk the offsets of the largest box; a lane
 * takes offset (dx, dy) only inside its own box.  Covered pixels go to the
 * shading queue offset by offset, which is not flat_cell's order (cell by
 * cell): where two cells of the group cover one pixel (the mesh overlaps
 * itself) the last one must win, so then the group gives up.  Returns
 * false, having queued nothing, when it gives up or when the largest box
 * spans more than 32 pixel offsets (the per-lane masks are 32 bits):
 * flat_cell then draws those cells one by one. */
/* Vertices v .. v + 7 of interleaved (x, y) pairs, as an x and a y vector
 * (16 consecutive words: the caller makes sure they exist). */
__attribute__((target("avx2"))) static inline void load8_xy(const int32_t *xy, uint32_t v,
                                                            __m256i *x, __m256i *y)
{
    const __m256i even_odd = _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7);
    const __m256i lo = _mm256_permutevar8x32_epi32(
        _mm256_loadu_si256((const __m256i *)(xy + 2 * (size_t)v)), even_odd);
    const __m256i hi = _mm256_permutevar8x32_epi32(
        _mm256_loadu_si256((const __m256i *)(xy + 2 * (size_t)v + 8)), even_odd);
    *x = _mm256_permute2x128_si256(lo, hi, 0x20);
    *y = _mm256_permute2x128_si256(lo, hi, 0x31);
}

__attribute__((target("avx2"))) static inline int32_t hmin8(__m256i v)
{
    __m128i m = _mm_min_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    m = _mm_min_epi32(m, _mm_shuffle_epi32(m, 0x4E));
    m = _mm_min_epi32(m, _mm_shuffle_epi32(m, 0xB1));
    return _mm_cvtsi128_si32(m);
}

__attribute__((target("avx2"))) static inline int32_t hmax8(__m256i v)
{
    __m128i m = _mm_max_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    m = _mm_max_epi32(m, _mm_shuffle_epi32(m, 0x4E));
    m = _mm_max_epi32(m, _mm_shuffle_epi32(m, 0xB1));
    return _mm_cvtsi128_si32(m);
}

/* aa_triangle_at for eight triangles (all-ones lanes: MSAA only).  Where
 * the box is narrow (at most NARROW_FIX = 2^14 each way) every difference
 * fits 15 bits and the area 30: int32 is exact there; elsewhere the answer
 * is yes whatever the area. */
__attribute__((target("avx2"))) static inline __m256i aa_triangle8(__m256i ax, __m256i ay,
                                                                   __m256i bx, __m256i by,
                                                                   __m256i cx, __m256i cy)
{
    const __m256i narrow = _mm256_set1_epi32(NARROW_FIX);
    const __m256i w = _mm256_sub_epi32(_mm256_max_epi32(_mm256_max_epi32(ax, bx), cx),
                                       _mm256_min_epi32(_mm256_min_epi32(ax, bx), cx));
    const __m256i h = _mm256_sub_epi32(_mm256_max_epi32(_mm256_max_epi32(ay, by), cy),
                                       _mm256_min_epi32(_mm256_min_epi32(ay, by), cy));
    const __m256i wide = _mm256_or_si256(_mm256_cmpgt_epi32(w, narrow), _mm256_cmpgt_epi32(h, narrow));
    const __m256i area = _mm256_sub_epi32(
        _mm256_mullo_epi32(_mm256_sub_epi32(bx, ax), _mm256_sub_epi32(cy, ay)),
        _mm256_mullo_epi32(_mm256_sub_epi32(by, ay), _mm256_sub_epi32(cx, ax)));
    const __m256i flat = _mm256_cmpgt_epi32(area, _mm256_setzero_si256());
    return _mm256_or_si256(wide, _mm256_xor_si256(flat, _mm256_set1_epi32(-1)));
}

/* ~edge_outside for eight edges: all-ones lanes where the edge may show. */
__attribute__((target("avx2"))) static inline __m256i edge_shows8(__m256i px, __m256i py,
                                                                  __m256i qx, __m256i qy,
                                                                  int32_t fw, int32_t fh)
{
    const __m256i z = _mm256_setzero_si256(), w1 = _mm256_set1_epi32(fw - 1),
                  h1 = _mm256_set1_epi32(fh - 1);
    /* on or past a side: both <= 0 (neither > 0), or both >= fw (both > fw − 1) */
    const __m256i left = _mm256_or_si256(_mm256_cmpgt_epi32(px, z), _mm256_cmpgt_epi32(qx, z));
    const __m256i top = _mm256_or_si256(_mm256_cmpgt_epi32(py, z), _mm256_cmpgt_epi32(qy, z));
    const __m256i right = _mm256_and_si256(_mm256_cmpgt_epi32(px, w1), _mm256_cmpgt_epi32(qx, w1));
    const __m256i bottom = _mm256_and_si256(_mm256_cmpgt_epi32(py, h1), _mm256_cmpgt_epi32(qy, h1));
    /* shows: inside every side's test */
    return _mm256_andnot_si256(_mm256_or_si256(right, bottom), _mm256_and_si256(left, top));
}

/* The chunk stage's work for eight cells ci .. ci + 7 of grid row cj (ci + 8
 * <= cols: every vertex read exists): MSAA flags into tri_aa[0..15], the
 * box into box[] (xmin, xmax, ymin, ymax) and, with prev, the moved cells'
 * boxes before and after into moved[] (same order).  False, having done
 * nothing, when a vertex is invalid: the cell-by-cell loop takes them. */
__attribute__((target("avx2"))) static bool photo_cells8(const int32_t *xy, const int32_t *prev,
                                                         uint32_t v00, uint32_t v01, uint32_t ci,
                                                         uint32_t cj, uint32_t cols,
                                                         uint32_t rows, int32_t fw, int32_t fh,
                                                         uint8_t *tri_aa, int32_t box[4],
                                                         int32_t moved[4], bool *aa)
{
    __m256i px[4], py[4];
    load8_xy(xy, v00, &px[0], &py[0]);
    load8_xy(xy, v00 + 1, &px[1], &py[1]);
    load8_xy(xy, v01, &px[2], &py[2]);
    load8_xy(xy, v01 + 1, &px[3], &py[3]);
    const __m256i inv = _mm256_set1_epi32(FIX_INVALID);
    __m256i bad = _mm256_setzero_si256();
    for (int k = 0; k < 4; k++)
        bad = _mm256_or_si256(bad, _mm256_cmpeq_epi32(px[k], inv));
    if (!_mm256_testz_si256(bad, bad))
        return false;
    const __m256i xl = _mm256_min_epi32(_mm256_min_epi32(px[0], px[1]), _mm256_min_epi32(px[2], px[3]));
    const __m256i xh = _mm256_max_epi32(_mm256_max_epi32(px[0], px[1]), _mm256_max_epi32(px[2], px[3]));
    const __m256i yl = _mm256_min_epi32(_mm256_min_epi32(py[0], py[1]), _mm256_min_epi32(py[2], py[3]));
    const __m256i yh = _mm256_max_epi32(_mm256_max_epi32(py[0], py[1]), _mm256_max_epi32(py[2], py[3]));
    box[0] = hmin8(xl);
    box[1] = hmax8(xh);
    box[2] = hmin8(yl);
    box[3] = hmax8(yh);
    /* Border cells whose border edges may show are MSAA (border_shows). */
    const __m256i col = _mm256_add_epi32(_mm256_set1_epi32((int)ci), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    __m256i border = _mm256_or_si256(
        _mm256_and_si256(_mm256_cmpeq_epi32(col, _mm256_setzero_si256()),
                         edge_shows8(px[0], py[0], px[2], py[2], fw, fh)),
        _mm256_and_si256(_mm256_cmpeq_epi32(col, _mm256_set1_epi32((int)cols - 1)),
                         edge_shows8(px[1], py[1], px[3], py[3], fw, fh)));
    if (cj == 0)
        border = _mm256_or_si256(border, edge_shows8(px[0], py[0], px[1], py[1], fw, fh));
    if (cj == rows - 1)
        border = _mm256_or_si256(border, edge_shows8(px[2], py[2], px[3], py[3], fw, fh));
    const __m256i a0 = _mm256_or_si256(border, aa_triangle8(px[0], py[0], px[1], py[1], px[2], py[2]));
    const __m256i a1 = _mm256_or_si256(border, aa_triangle8(px[1], py[1], px[3], py[3], px[2], py[2]));
    /* Bytes a0[l], a1[l] alternating: a 16-bit word per lane, packed. */
    const __m256i one = _mm256_set1_epi32(1);
    const __m256i w = _mm256_or_si256(_mm256_and_si256(a0, one),
                                      _mm256_slli_epi32(_mm256_and_si256(a1, one), 8));
    const __m256i packed = _mm256_permute4x64_epi64(_mm256_packus_epi32(w, _mm256_setzero_si256()), 0x08);
    _mm_storeu_si128((__m128i *)tri_aa, _mm256_castsi256_si128(packed));
    *aa = !_mm256_testz_si256(_mm256_or_si256(a0, a1), _mm256_or_si256(a0, a1));
    moved[0] = moved[2] = INT32_MAX;
    moved[1] = moved[3] = INT32_MIN;
    if (prev) {
        __m256i qx[4], qy[4];
        load8_xy(prev, v00, &qx[0], &qy[0]);
        load8_xy(prev, v00 + 1, &qx[1], &qy[1]);
        load8_xy(prev, v01, &qx[2], &qy[2]);
        load8_xy(prev, v01 + 1, &qx[3], &qy[3]);
        __m256i diff = _mm256_setzero_si256();
        for (int k = 0; k < 4; k++)
            diff = _mm256_or_si256(diff, _mm256_or_si256(_mm256_xor_si256(px[k], qx[k]),
                                                         _mm256_xor_si256(py[k], qy[k])));
        const __m256i still = _mm256_cmpeq_epi32(diff, _mm256_setzero_si256());
        if (_mm256_movemask_ps(_mm256_castsi256_ps(still)) != 0xFF) {
            const __m256i lo = _mm256_set1_epi32(INT32_MAX), hi = _mm256_set1_epi32(INT32_MIN);
            const __m256i oxl = _mm256_min_epi32(_mm256_min_epi32(qx[0], qx[1]), _mm256_min_epi32(qx[2], qx[3]));
            const __m256i oxh = _mm256_max_epi32(_mm256_max_epi32(qx[0], qx[1]), _mm256_max_epi32(qx[2], qx[3]));
            const __m256i oyl = _mm256_min_epi32(_mm256_min_epi32(qy[0], qy[1]), _mm256_min_epi32(qy[2], qy[3]));
            const __m256i oyh = _mm256_max_epi32(_mm256_max_epi32(qy[0], qy[1]), _mm256_max_epi32(qy[2], qy[3]));
            moved[0] = hmin8(_mm256_blendv_epi8(_mm256_min_epi32(xl, oxl), lo, still));
            moved[1] = hmax8(_mm256_blendv_epi8(_mm256_max_epi32(xh, oxh), hi, still));
            moved[2] = hmin8(_mm256_blendv_epi8(_mm256_min_epi32(yl, oyl), lo, still));
            moved[3] = hmax8(_mm256_blendv_epi8(_mm256_max_epi32(yh, oyh), hi, still));
        }
    }
    return true;
}

#ifdef WB_TEX_FX8
/* queue_flush, eight pixels per sample where it can (the same colours:
 * see wb_tex_sampler_fx8), stored in queue order. */
__attribute__((target("avx2"))) static void queue_flush8(ShadeQueue *q, uint32_t *flat,
                                                         const WbTexSampler *ts)
{
    int i = 0;
    for (; i + 8 <= q->n; i += 8) {
        const __m256i c = wb_tex_sampler_fx8(ts, _mm256_loadu_ps(q->u + i), _mm256_loadu_ps(q->v + i));
        store4(flat, q->at + i, _mm256_castsi256_si128(c));
        store4(flat, q->at + i + 4, _mm256_extracti128_si256(c, 1));
    }
    if (i + 4 <= q->n) {
        store4(flat, q->at + i,
               wb_tex_sampler_fx4(ts, _mm_loadu_ps(q->u + i), _mm_loadu_ps(q->v + i)));
        i += 4;
    }
    for (int k = 0; i + k < q->n; k++) {
        q->u[k] = q->u[i + k];
        q->v[k] = q->v[i + k];
        q->at[k] = q->at[i + k];
    }
    q->n -= i;
}
#endif

#ifdef WB_TEX_FX16
/* queue_flush8 sixteen pixels per sample (wb_tex_sampler_fx16: the same
 * colours), stored in queue order; fewer than sixteen wait in the queue
 * for the next flush or the band's queue_drain. */
WB_TEX_AVX512 static void queue_flush16(ShadeQueue *q, uint32_t *flat, const WbTexSampler *ts)
{
    int i = 0;
    for (; i + 16 <= q->n; i += 16) {
        const __m512i c = wb_tex_sampler_fx16(ts, _mm512_loadu_ps(q->u + i), _mm512_loadu_ps(q->v + i));
        store4(flat, q->at + i, _mm512_castsi512_si128(c));
        store4(flat, q->at + i + 4, _mm512_extracti32x4_epi32(c, 1));
        store4(flat, q->at + i + 8, _mm512_extracti32x4_epi32(c, 2));
        store4(flat, q->at + i + 12, _mm512_extracti32x4_epi32(c, 3));
    }
    for (int k = 0; i + k < q->n; k++) {
        q->u[k] = q->u[i + k];
        q->v[k] = q->v[i + k];
        q->at[k] = q->at[i + k];
    }
    q->n -= i;
}
#endif

/* own_pixels_once's check through a bitmap of the group's pixels, 64
 * columns by 32 rows from the leftmost and topmost box (a group reaching
 * past that answers no), for `lanes` lanes of arrays. */
static bool own_pixels_bitmap(const uint32_t *LM, const int32_t *C0, const int32_t *R0,
                              int lanes, int W, int H)
{
    int32_t gx = INT32_MAX, gy = INT32_MAX, gy1 = INT32_MIN;
    for (int l = 0; l < lanes; l++)
        if (LM[l]) {
            gx = C0[l] < gx ? C0[l] : gx;
            gy = R0[l] < gy ? R0[l] : gy;
            gy1 = R0[l] > gy1 ? R0[l] : gy1;
        }
    if (gy > gy1)
        return true; /* no lane covers anything */
    if (gy1 - gy + H > 32)
        return false;
    uint64_t rows[32];
    memset(rows, 0, sizeof *rows * (size_t)(gy1 - gy + H));
    const uint64_t row_mask = ((uint64_t)1 << W) - 1;
    for (int l = 0; l < lanes; l++) {
        if (!LM[l])
            continue;
        const int shift = C0[l] - gx;
        if (shift + W > 64)
            return false;
        uint64_t *row = rows + (R0[l] - gy);
        for (uint64_t bits, m = LM[l]; m; m >>= W, row++) {
            bits = (m & row_mask) << shift;
            if (*row & bits)
                return false;
            *row |= bits;
        }
    }
    return true;
}

/* Is no pixel covered by two lanes?  Lane l covers offset k = dy·W + dx
 * of its box (first pixel c0[l], r0[l]; last c0 + wx, r0 + hy) where bit k
 * of lm[l] is set; the lanes are consecutive cells of a grid row.
 *
 * Lanes two or more apart first: where the mesh runs left to right, every
 * box ends left of the boxes two lanes on, and they cannot share a pixel.
 * Neighbours, whose boxes always meet, then compare masks: lane l + 1's
 * offset (dy, dx) is lane l's (dy + dr, dx + dc), with (dc, dr) the shift
 * between their boxes, so its mask, cut to the columns that stay in the
 * row and shifted by dr·W + dc, meets lane l's exactly where they share a
 * pixel.  A group failing the first test goes through a bitmap of its
 * pixels, 64 columns by 32 rows from the leftmost and topmost box; one
 * reaching past that answers no (the cell-by-cell path draws it then, as
 * it draws overlaps). */
__attribute__((target("avx2"))) static inline __m256i lanes_up(__m256i v, __m256i idx,
                                                                int below, int32_t fill)
{
    /* lane l ← lane idx[l] (idx: l - n, for a shift up by n), then the
     * first `below` lanes ← fill */
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    return _mm256_blendv_epi8(_mm256_permutevar8x32_epi32(v, idx), _mm256_set1_epi32(fill),
                              _mm256_cmpgt_epi32(_mm256_set1_epi32(below), lane));
}

__attribute__((target("avx2"))) static bool own_pixels_once(__m256i lm, __m256i c0, __m256i r0,
                                                            __m256i wx, int W, int H)
{
    const __m256i zero = _mm256_setzero_si256();
    const __m256i dead = _mm256_cmpeq_epi32(lm, zero);
    const __m256i lo = _mm256_blendv_epi8(c0, _mm256_set1_epi32(INT32_MAX), dead);
    __m256i pm = _mm256_blendv_epi8(_mm256_add_epi32(c0, wx), _mm256_set1_epi32(INT32_MIN), dead);
    pm = _mm256_max_epi32(pm, lanes_up(pm, _mm256_setr_epi32(0, 0, 1, 2, 3, 4, 5, 6), 1, INT32_MIN));
    pm = _mm256_max_epi32(pm, lanes_up(pm, _mm256_setr_epi32(0, 0, 0, 1, 2, 3, 4, 5), 2, INT32_MIN));
    pm = _mm256_max_epi32(pm, lanes_up(pm, _mm256_setr_epi32(0, 0, 0, 0, 0, 1, 2, 3), 4, INT32_MIN));
    /* pm[l]: the right end of lanes 0..l; lane l + 2 must start past it. */
    const __m256i ends = lanes_up(pm, _mm256_setr_epi32(0, 0, 0, 1, 2, 3, 4, 5), 2, INT32_MIN);
    if (_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpgt_epi32(lo, ends))) == 0xFF) {
        const __m256i down = _mm256_setr_epi32(1, 2, 3, 4, 5, 6, 7, 7);
        const __m256i lm1 = _mm256_blendv_epi8(_mm256_permutevar8x32_epi32(lm, down), zero,
                                               _mm256_setr_epi32(0, 0, 0, 0, 0, 0, 0, -1));
        const __m256i dc = _mm256_sub_epi32(_mm256_permutevar8x32_epi32(c0, down), c0);
        const __m256i dr = _mm256_sub_epi32(_mm256_permutevar8x32_epi32(r0, down), r0);
        /* Lane l + 1's columns that land in lane l's rows: dx < W - dc
         * (dc >= 0) or dx >= -dc (dc < 0), every row. */
        const __m256i wv = _mm256_set1_epi32(W), one = _mm256_set1_epi32(1);
        const __m256i adc = _mm256_abs_epi32(dc);
        const __m256i n = _mm256_max_epi32(_mm256_sub_epi32(wv, adc), zero);
        __m256i cols = _mm256_sub_epi32(_mm256_sllv_epi32(one, n), one);
        const __m256i neg = _mm256_cmpgt_epi32(zero, dc);
        cols = _mm256_blendv_epi8(cols, _mm256_sllv_epi32(cols, adc), neg);
        uint32_t rep = 0;
        for (int dy = 0; dy < H; dy++)
            rep |= 1u << (dy * W);
        cols = _mm256_mullo_epi32(cols, _mm256_set1_epi32((int)rep));
        const __m256i m = _mm256_and_si256(lm1, cols);
        const __m256i t = _mm256_add_epi32(_mm256_mullo_epi32(dr, wv), dc);
        const __m256i moved = _mm256_blendv_epi8(_mm256_sllv_epi32(m, t),
                                                 _mm256_srlv_epi32(m, _mm256_sub_epi32(zero, t)),
                                                 _mm256_cmpgt_epi32(zero, t));
        const __m256i both = _mm256_and_si256(moved, lm);
        return _mm256_testz_si256(both, both);
    }
    uint32_t LM[8];
    int32_t C0[8], R0[8];
    _mm256_storeu_si256((__m256i *)LM, lm);
    _mm256_storeu_si256((__m256i *)C0, c0);
    _mm256_storeu_si256((__m256i *)R0, r0);
    return own_pixels_bitmap(LM, C0, R0, 8, W, H);
}

/* own_pixels_once on arrays (wb_raster_group_owns_pixels). */
__attribute__((target("avx2"))) static int own_pixels_once_a(const uint32_t mask[8],
                                                             const int32_t c0[8],
                                                             const int32_t r0[8],
                                                             const int32_t wx[8], int W, int H)
{
    return own_pixels_once(_mm256_loadu_si256((const __m256i *)mask),
                           _mm256_loadu_si256((const __m256i *)c0),
                           _mm256_loadu_si256((const __m256i *)r0),
                           _mm256_loadu_si256((const __m256i *)wx), W, H);
}

__attribute__((target("avx2"))) static bool flat_group8(Band *b, uint32_t *flat, ShadeQueue *q,
                                                        const Cmd *cmd, const WbTexSampler *ts,
                                                        uint32_t v00, uint32_t v01, int n,
                                                        unsigned d0, unsigned d1)
{
    /* Corners P0 = v00, P1 = v10, P2 = v01, P3 = v11 of each lane's cell,
     * and their texture coordinates.  A full group reads them straight
     * from the interleaved arrays (its last vertex, v01 + 8, exists: it
     * ends the next row's run); a shorter one copies them, idle lanes
     * repeating lane 0. */
    const int32_t *xy = cmd->xy;
    const float *t = cmd->tuv;
    __m256i px[4], py[4];
    __m256 tu[4], tv[4];
    const uint32_t first[4] = {v00, v00 + 1, v01, v01 + 1};
    if (n == 8) {
        const __m256i even_odd = _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7);
        for (int k = 0; k < 4; k++) {
            load8_xy(xy, first[k], &px[k], &py[k]);
            const __m256 ulo = _mm256_permutevar8x32_ps(_mm256_loadu_ps(t + 2 * first[k]), even_odd);
            const __m256 uhi = _mm256_permutevar8x32_ps(_mm256_loadu_ps(t + 2 * first[k] + 8),
                                                        even_odd);
            tu[k] = _mm256_permute2f128_ps(ulo, uhi, 0x20);
            tv[k] = _mm256_permute2f128_ps(ulo, uhi, 0x31);
        }
    } else {
        int32_t X[4][8], Y[4][8];
        float U[4][8], V[4][8];
        for (int l = 0; l < 8; l++) {
            const uint32_t o = (uint32_t)(l < n ? l : 0);
            for (int k = 0; k < 4; k++) {
                X[k][l] = xy[2 * (first[k] + o)];
                Y[k][l] = xy[2 * (first[k] + o) + 1];
                U[k][l] = t[2 * (first[k] + o)];
                V[k][l] = t[2 * (first[k] + o) + 1];
            }
        }
        for (int k = 0; k < 4; k++) {
            px[k] = _mm256_loadu_si256((const __m256i *)X[k]);
            py[k] = _mm256_loadu_si256((const __m256i *)Y[k]);
            tu[k] = _mm256_loadu_ps(U[k]);
            tv[k] = _mm256_loadu_ps(V[k]);
        }
    }
    const __m256i lane_bit = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
    const __m256i zero = _mm256_setzero_si256(), ones = _mm256_set1_epi32(-1);
    const __m256i m0 = _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_set1_epi32((int)d0), lane_bit),
                                          lane_bit);
    const __m256i m1 = _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_set1_epi32((int)d1), lane_bit),
                                          lane_bit);
    /* The box of the drawn triangles: T0 alone leaves out P3, T1 alone P0
     * (flat_cell's one-triangle box). */
    const __m256i only0 = _mm256_andnot_si256(m1, m0), only1 = _mm256_andnot_si256(m0, m1);
    const __m256i ax = _mm256_blendv_epi8(px[0], px[3], only1);
    const __m256i ay = _mm256_blendv_epi8(py[0], py[3], only1);
    const __m256i bx = _mm256_blendv_epi8(px[3], px[0], only0);
    const __m256i by = _mm256_blendv_epi8(py[3], py[0], only0);
    const __m256i xmin = _mm256_min_epi32(_mm256_min_epi32(ax, bx), _mm256_min_epi32(px[1], px[2]));
    const __m256i xmax = _mm256_max_epi32(_mm256_max_epi32(ax, bx), _mm256_max_epi32(px[1], px[2]));
    const __m256i ymin = _mm256_min_epi32(_mm256_min_epi32(ay, by), _mm256_min_epi32(py[1], py[2]));
    const __m256i ymax = _mm256_max_epi32(_mm256_max_epi32(ay, by), _mm256_max_epi32(py[1], py[2]));
    /* pixel_span with no sample offsets: first = ceil((lo - 128) / 256),
     * last = floor((hi - 128) / 256); coordinates are within ±2^28, so the
     * arithmetic shift is the floor division. */
    const __m256i h128 = _mm256_set1_epi32(FIX_HALF);
    __m256i r0 = _mm256_sub_epi32(zero, _mm256_srai_epi32(_mm256_sub_epi32(h128, ymin), 8));
    __m256i r1 = _mm256_srai_epi32(_mm256_sub_epi32(ymax, h128), 8);
    __m256i c0 = _mm256_sub_epi32(zero, _mm256_srai_epi32(_mm256_sub_epi32(h128, xmin), 8));
    __m256i c1 = _mm256_srai_epi32(_mm256_sub_epi32(xmax, h128), 8);
    r0 = _mm256_max_epi32(r0, _mm256_set1_epi32(b->y0));
    r1 = _mm256_min_epi32(r1, _mm256_set1_epi32(b->y1 - 1));
    c0 = _mm256_max_epi32(c0, zero);
    c1 = _mm256_min_epi32(c1, _mm256_set1_epi32(b->w - 1));
    /* Box extents minus one; a lane draws when both are >= 0. */
    const __m256i hy = _mm256_sub_epi32(r1, r0), wx = _mm256_sub_epi32(c1, c0);
    const __m256i live = _mm256_andnot_si256(_mm256_or_si256(hy, wx), _mm256_or_si256(m0, m1));
    const __m256i on = _mm256_srai_epi32(live, 31); /* the lanes that draw */
    int mask_on = _mm256_movemask_ps(_mm256_castsi256_ps(on));
    if (!mask_on)
        return true;
    int32_t HY[8], WX[8];
    _mm256_storeu_si256((__m256i *)HY, _mm256_blendv_epi8(_mm256_set1_epi32(-1), hy, on));
    _mm256_storeu_si256((__m256i *)WX, _mm256_blendv_epi8(_mm256_set1_epi32(-1), wx, on));
    int H = 0, W = 0;
#pragma GCC unroll 8
    for (int l = 0; l < 8; l++) {
        H = HY[l] + 1 > H ? HY[l] + 1 : H;
        W = WX[l] + 1 > W ? WX[l] + 1 : W;
    }
    if (H * W > 32)
        return false;
    const __m256i k256 = _mm256_set1_epi32(FIX_ONE);
    const __m256i X0 = _mm256_add_epi32(_mm256_mullo_epi32(c0, k256), h128);
    const __m256i Y0 = _mm256_add_epi32(_mm256_mullo_epi32(r0, k256), h128);

    /* Edges as in flat_cell: 0 P0→P1, 1 P1→P2 (the diagonal), 2 P2→P0,
     * 3 P1→P3, 4 P3→P2; an undrawn triangle's own edges are -1, steps 0. */
    static const int EP[5][2] = {{0, 1}, {1, 2}, {2, 0}, {1, 3}, {3, 2}};
    __m256i e[5], sx[5], sy[5];
#pragma GCC unroll 5
    for (int k = 0; k < 5; k++) {
        const __m256i dx = _mm256_sub_epi32(px[EP[k][1]], px[EP[k][0]]);
        const __m256i dy = _mm256_sub_epi32(py[EP[k][1]], py[EP[k][0]]);
        /* top_left = dy < 0 || (dy == 0 && dx > 0); bias -1 otherwise. */
        const __m256i tl = _mm256_or_si256(_mm256_cmpgt_epi32(zero, dy),
                                           _mm256_and_si256(_mm256_cmpeq_epi32(dy, zero),
                                                            _mm256_cmpgt_epi32(dx, zero)));
        __m256i ek = _mm256_sub_epi32(
            _mm256_mullo_epi32(dx, _mm256_sub_epi32(Y0, py[EP[k][0]])),
            _mm256_mullo_epi32(dy, _mm256_sub_epi32(X0, px[EP[k][0]])));
        ek = _mm256_add_epi32(ek, _mm256_andnot_si256(tl, ones));
        __m256i sxk = _mm256_mullo_epi32(_mm256_sub_epi32(zero, dy), k256);
        __m256i syk = _mm256_mullo_epi32(dx, k256);
        if (k != 1) {
            const __m256i keep = k < 3 ? m0 : m1;
            ek = _mm256_blendv_epi8(ones, ek, keep);
            sxk = _mm256_and_si256(sxk, keep);
            syk = _mm256_and_si256(syk, keep);
        }
        e[k] = ek;
        sx[k] = sxk;
        sy[k] = syk;
    }

    /* Texture planes (tex_planes' operations): T0 = (P0, P1, P2), T1 =
     * (P1, P3, P2). */
    const __m256 inv_fix = _mm256_set1_ps(1.0f / FIX_ONE);
    const __m256 one = _mm256_set1_ps(1.0f);
    __m256 pu[2][3], pv[2][3]; /* o, gx, gy */
    static const int TV[2][3] = {{0, 1, 2}, {1, 3, 2}};
#pragma GCC unroll 2
    for (int tri = 0; tri < 2; tri++) {
        const int ia = TV[tri][0], ib = TV[tri][1], ic = TV[tri][2];
        const __m256 fbx = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_sub_epi32(px[ib], px[ia])), inv_fix);
        const __m256 fby = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_sub_epi32(py[ib], py[ia])), inv_fix);
        const __m256 fcx = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_sub_epi32(px[ic], px[ia])), inv_fix);
        const __m256 fcy = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_sub_epi32(py[ic], py[ia])), inv_fix);
        const __m256 pax = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_sub_epi32(px[ia], X0)), inv_fix);
        const __m256 pay = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_sub_epi32(py[ia], Y0)), inv_fix);
        const __m256 inv = _mm256_div_ps(one, _mm256_sub_ps(_mm256_mul_ps(fbx, fcy),
                                                            _mm256_mul_ps(fby, fcx)));
#pragma GCC unroll 2
        for (int c = 0; c < 2; c++) {
            const __m256 *T = c == 0 ? tu : tv;
            const __m256 va = T[ia], vb = T[ib], vc = T[ic];
            const __m256 dd1 = _mm256_sub_ps(vb, va), dd2 = _mm256_sub_ps(vc, va);
            const __m256 gx = _mm256_mul_ps(
                _mm256_sub_ps(_mm256_mul_ps(dd1, fcy), _mm256_mul_ps(dd2, fby)), inv);
            const __m256 gy = _mm256_mul_ps(
                _mm256_sub_ps(_mm256_mul_ps(dd2, fbx), _mm256_mul_ps(dd1, fcx)), inv);
            const __m256 o = _mm256_sub_ps(_mm256_sub_ps(va, _mm256_mul_ps(gx, pax)),
                                           _mm256_mul_ps(gy, pay));
            __m256 *P = c == 0 ? pu[tri] : pv[tri];
            P[0] = o;
            P[1] = gx;
            P[2] = gy;
        }
    }

    /* Walk the offsets; lane l keeps the ones inside its box and its
     * triangles, noting offset k in bit k of its mask.  The covered lanes
     * of each offset go straight to the queue, packed (compress_table):
     * offset-major order, not flat_cell's cell-major one.  The two store
     * the same pixels, and where no pixel is covered twice the order of
     * the stores cannot matter; own_pixels_once checks that afterwards,
     * and when it fails the group takes back what it queued. */
    const __m256i at0 = _mm256_add_epi32(
        _mm256_mullo_epi32(_mm256_sub_epi32(r0, _mm256_set1_epi32(b->y0)), _mm256_set1_epi32(b->pitch)),
        c0);
    const int qn0 = q->n;
    int qn = qn0;
    __m256i lm = zero;
    int k = 0;
    for (int dy = 0; dy < H; dy++) {
        /* The planes' row terms gy·dy, the same products for the row. */
        const __m256 fy = _mm256_set1_ps((float)dy);
        const __m256 yu0 = _mm256_mul_ps(pu[0][2], fy), yu1 = _mm256_mul_ps(pu[1][2], fy);
        const __m256 yv0 = _mm256_mul_ps(pv[0][2], fy), yv1 = _mm256_mul_ps(pv[1][2], fy);
        const __m256i rowin = _mm256_and_si256(on, _mm256_cmpgt_epi32(_mm256_add_epi32(hy, _mm256_set1_epi32(1)),
                                                                        _mm256_set1_epi32(dy)));
        /* (The five-edge loops are unrolled by hand-held pragma: rolled, gcc
         * keeps ev[] in memory and spends six instructions per edge.) */
        __m256i ev[5];
#pragma GCC unroll 5
        for (int j = 0; j < 5; j++)
            ev[j] = e[j];
        for (int dx = 0; dx < W; dx++, k++) {
            const __m256i in0 = _mm256_cmpgt_epi32(_mm256_or_si256(_mm256_or_si256(ev[0], ev[1]), ev[2]), ones);
            const __m256i in1 = _mm256_srai_epi32(_mm256_andnot_si256(_mm256_or_si256(ev[3], ev[4]), ev[1]), 31);
            const __m256i inx = _mm256_cmpgt_epi32(_mm256_add_epi32(wx, _mm256_set1_epi32(1)), _mm256_set1_epi32(dx));
            const __m256i cov = _mm256_and_si256(_mm256_and_si256(rowin, inx), _mm256_or_si256(in0, in1));
            const int cm = _mm256_movemask_ps(_mm256_castsi256_ps(cov));
            if (cm) {
                const __m256 fx = _mm256_set1_ps((float)dx);
                const __m256 t1 = _mm256_castsi256_ps(in1);
                const __m256 u0 = _mm256_add_ps(_mm256_add_ps(pu[0][0], _mm256_mul_ps(pu[0][1], fx)), yu0);
                const __m256 u1 = _mm256_add_ps(_mm256_add_ps(pu[1][0], _mm256_mul_ps(pu[1][1], fx)), yu1);
                const __m256 w0 = _mm256_add_ps(_mm256_add_ps(pv[0][0], _mm256_mul_ps(pv[0][1], fx)), yv0);
                const __m256 w1 = _mm256_add_ps(_mm256_add_ps(pv[1][0], _mm256_mul_ps(pv[1][1], fx)), yv1);
                const __m256i perm = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)&b->compress[cm]));
                _mm256_storeu_ps(q->u + qn, _mm256_permutevar8x32_ps(_mm256_blendv_ps(u0, u1, t1), perm));
                _mm256_storeu_ps(q->v + qn, _mm256_permutevar8x32_ps(_mm256_blendv_ps(w0, w1, t1), perm));
                _mm256_storeu_si256((__m256i *)(q->at + qn),
                                    _mm256_permutevar8x32_epi32(
                                        _mm256_add_epi32(at0, _mm256_set1_epi32(dy * b->pitch + dx)), perm));
                qn += __builtin_popcount((unsigned)cm);
                lm = _mm256_or_si256(lm, _mm256_and_si256(cov, _mm256_set1_epi32((int)(1u << k))));
            }
#pragma GCC unroll 5
            for (int j = 0; j < 5; j++)
                ev[j] = _mm256_add_epi32(ev[j], sx[j]);
        }
#pragma GCC unroll 5
        for (int j = 0; j < 5; j++)
            e[j] = _mm256_add_epi32(e[j], sy[j]);
    }
    if (!own_pixels_once(lm, c0, r0, wx, W, H)) {
        q->n = qn0;
        return false;
    }
    q->n = qn;
    if (qn >= QUEUE_BATCH) {
#ifdef WB_TEX_FX16
        if (b->wide && wb_tex_sampler_fx8_ok(ts))
            queue_flush16(q, flat, ts);
        else
#endif
#ifdef WB_TEX_FX8
        if (wb_tex_sampler_fx8_ok(ts))
            queue_flush8(q, flat, ts);
        else
#endif
            queue_flush(q, flat, ts);
    }
    return true;
}
#endif

#ifdef WB_TEX_FX16
/* ---- sixteen cells at a time (AVX-512 F, BW, DQ) ------------------------
 *
 * flat_group8 and own_pixels_once on sixteen lanes: the same integer and
 * IEEE operations lane for lane, so the same pixels in the same queue order
 * rules; the lane masks live in mask registers and the covered lanes of an
 * offset are packed by vcompress instead of a permutation table.  Taken
 * where the processor has AVX-512 (Band.wide). */
#define AVX512G __attribute__((target("avx512f,avx512bw,avx512dq")))

/* Vertices v .. v + 15 of interleaved (x, y) pairs (32 words that exist). */
AVX512G static inline void load16_xy(const int32_t *xy, uint32_t v, __m512i *x, __m512i *y)
{
    const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26,
                                           28, 30);
    const __m512i a = _mm512_loadu_si512(xy + 2 * (size_t)v);
    const __m512i b = _mm512_loadu_si512(xy + 2 * (size_t)v + 16);
    *x = _mm512_permutex2var_epi32(a, even, b);
    *y = _mm512_permutex2var_epi32(a, _mm512_add_epi32(even, _mm512_set1_epi32(1)), b);
}

/* lane l <- lane l - n, the first n lanes <- fill */
AVX512G static inline __m512i lanes_up16(__m512i v, int n, int32_t fill)
{
    switch (n) {
    case 1: return _mm512_alignr_epi32(v, _mm512_set1_epi32(fill), 15);
    case 2: return _mm512_alignr_epi32(v, _mm512_set1_epi32(fill), 14);
    case 4: return _mm512_alignr_epi32(v, _mm512_set1_epi32(fill), 12);
    default: return _mm512_alignr_epi32(v, _mm512_set1_epi32(fill), 8);
    }
}

/* own_pixels_once for sixteen lanes (see there). */
AVX512G static bool own_pixels_once16(__m512i lm, __m512i c0, __m512i r0, __m512i wx, int W,
                                      int H)
{
    const __m512i zero = _mm512_setzero_si512();
    const __mmask16 dead = _mm512_cmpeq_epi32_mask(lm, zero);
    const __m512i lo = _mm512_mask_blend_epi32(dead, c0, _mm512_set1_epi32(INT32_MAX));
    __m512i pm = _mm512_mask_blend_epi32(dead, _mm512_add_epi32(c0, wx), _mm512_set1_epi32(INT32_MIN));
    pm = _mm512_max_epi32(pm, lanes_up16(pm, 1, INT32_MIN));
    pm = _mm512_max_epi32(pm, lanes_up16(pm, 2, INT32_MIN));
    pm = _mm512_max_epi32(pm, lanes_up16(pm, 4, INT32_MIN));
    pm = _mm512_max_epi32(pm, lanes_up16(pm, 8, INT32_MIN));
    /* pm[l]: the right end of lanes 0..l; lane l + 2 must start past it. */
    const __m512i ends = lanes_up16(pm, 2, INT32_MIN);
    if (_mm512_cmpgt_epi32_mask(lo, ends) == 0xFFFF) {
        /* lane l <- lane l + 1 (the last lane: 0 masks, its shift unused) */
        const __m512i lm1 = _mm512_alignr_epi32(zero, lm, 1);
        const __m512i dc = _mm512_sub_epi32(_mm512_alignr_epi32(c0, c0, 1), c0);
        const __m512i dr = _mm512_sub_epi32(_mm512_alignr_epi32(r0, r0, 1), r0);
        const __m512i wv = _mm512_set1_epi32(W), one = _mm512_set1_epi32(1);
        const __m512i adc = _mm512_abs_epi32(dc);
        const __m512i n = _mm512_max_epi32(_mm512_sub_epi32(wv, adc), zero);
        __m512i cols = _mm512_sub_epi32(_mm512_sllv_epi32(one, n), one);
        const __mmask16 neg = _mm512_cmplt_epi32_mask(dc, zero);
        cols = _mm512_mask_blend_epi32(neg, cols, _mm512_sllv_epi32(cols, adc));
        uint32_t rep = 0;
        for (int dy = 0; dy < H; dy++)
            rep |= 1u << (dy * W);
        cols = _mm512_mullo_epi32(cols, _mm512_set1_epi32((int)rep));
        const __m512i m = _mm512_and_si512(lm1, cols);
        const __m512i t = _mm512_add_epi32(_mm512_mullo_epi32(dr, wv), dc);
        const __m512i moved = _mm512_mask_blend_epi32(
            _mm512_cmplt_epi32_mask(t, zero), _mm512_sllv_epi32(m, t),
            _mm512_srlv_epi32(m, _mm512_sub_epi32(zero, t)));
        return _mm512_test_epi32_mask(moved, lm) == 0;
    }
    uint32_t LM[16];
    int32_t C0[16], R0[16];
    _mm512_storeu_si512(LM, lm);
    _mm512_storeu_si512(C0, c0);
    _mm512_storeu_si512(R0, r0);
    return own_pixels_bitmap(LM, C0, R0, 16, W, H);
}

/* own_pixels_once16 on arrays (wb_raster_group_owns_pixels). */
AVX512G static int own_pixels_once16_a(const uint32_t mask[16], const int32_t c0[16],
                                       const int32_t r0[16], const int32_t wx[16], int W, int H)
{
    return own_pixels_once16(_mm512_loadu_si512(mask), _mm512_loadu_si512(c0),
                             _mm512_loadu_si512(r0), _mm512_loadu_si512(wx), W, H);
}

/* flat_group8 for up to sixteen consecutive cells of a grid row (bit l of
 * d0, d1 for cell v00 + l). */
AVX512G static bool flat_group16(Band *b, uint32_t *flat, ShadeQueue *q, const Cmd *cmd,
                                 const WbTexSampler *ts, uint32_t v00, uint32_t v01, int n,
                                 unsigned d0, unsigned d1)
{
    const int32_t *xy = cmd->xy;
    const float *t = cmd->tuv;
    __m512i px[4], py[4];
    __m512 tu[4], tv[4];
    const uint32_t first[4] = {v00, v00 + 1, v01, v01 + 1};
    if (n == 16) {
        /* (v01 + 16 ends the next row's run: every word read exists) */
        for (int k = 0; k < 4; k++) {
            load16_xy(xy, first[k], &px[k], &py[k]);
            __m512i u, v;
            load16_xy((const int32_t *)(const void *)t, first[k], &u, &v);
            tu[k] = _mm512_castsi512_ps(u);
            tv[k] = _mm512_castsi512_ps(v);
        }
    } else {
        int32_t X[4][16], Y[4][16];
        float U[4][16], V[4][16];
        for (int l = 0; l < 16; l++) {
            const uint32_t o = (uint32_t)(l < n ? l : 0);
            for (int k = 0; k < 4; k++) {
                X[k][l] = xy[2 * (first[k] + o)];
                Y[k][l] = xy[2 * (first[k] + o) + 1];
                U[k][l] = t[2 * (first[k] + o)];
                V[k][l] = t[2 * (first[k] + o) + 1];
            }
        }
        for (int k = 0; k < 4; k++) {
            px[k] = _mm512_loadu_si512(X[k]);
            py[k] = _mm512_loadu_si512(Y[k]);
            tu[k] = _mm512_loadu_ps(U[k]);
            tv[k] = _mm512_loadu_ps(V[k]);
        }
    }
    const __m512i zero = _mm512_setzero_si512(), ones = _mm512_set1_epi32(-1);
    const __mmask16 m0 = (__mmask16)d0, m1 = (__mmask16)d1;
    const __mmask16 only0 = m0 & (__mmask16)~m1, only1 = m1 & (__mmask16)~m0;
    const __m512i ax = _mm512_mask_blend_epi32(only1, px[0], px[3]);
    const __m512i ay = _mm512_mask_blend_epi32(only1, py[0], py[3]);
    const __m512i bx = _mm512_mask_blend_epi32(only0, px[3], px[0]);
    const __m512i by = _mm512_mask_blend_epi32(only0, py[3], py[0]);
    const __m512i xmin = _mm512_min_epi32(_mm512_min_epi32(ax, bx), _mm512_min_epi32(px[1], px[2]));
    const __m512i xmax = _mm512_max_epi32(_mm512_max_epi32(ax, bx), _mm512_max_epi32(px[1], px[2]));
    const __m512i ymin = _mm512_min_epi32(_mm512_min_epi32(ay, by), _mm512_min_epi32(py[1], py[2]));
    const __m512i ymax = _mm512_max_epi32(_mm512_max_epi32(ay, by), _mm512_max_epi32(py[1], py[2]));
    const __m512i h128 = _mm512_set1_epi32(FIX_HALF);
    __m512i r0 = _mm512_sub_epi32(zero, _mm512_srai_epi32(_mm512_sub_epi32(h128, ymin), 8));
    __m512i r1 = _mm512_srai_epi32(_mm512_sub_epi32(ymax, h128), 8);
    __m512i c0 = _mm512_sub_epi32(zero, _mm512_srai_epi32(_mm512_sub_epi32(h128, xmin), 8));
    __m512i c1 = _mm512_srai_epi32(_mm512_sub_epi32(xmax, h128), 8);
    r0 = _mm512_max_epi32(r0, _mm512_set1_epi32(b->y0));
    r1 = _mm512_min_epi32(r1, _mm512_set1_epi32(b->y1 - 1));
    c0 = _mm512_max_epi32(c0, zero);
    c1 = _mm512_min_epi32(c1, _mm512_set1_epi32(b->w - 1));
    const __m512i hy = _mm512_sub_epi32(r1, r0), wx = _mm512_sub_epi32(c1, c0);
    /* the lanes that draw: a triangle and a box with both extents >= 0 */
    const __mmask16 on = (m0 | m1) & _mm512_cmpge_epi32_mask(_mm512_or_si512(hy, wx), zero);
    if (!on)
        return true;
    const int H = _mm512_mask_reduce_max_epi32(on, hy) + 1;
    const int W = _mm512_mask_reduce_max_epi32(on, wx) + 1;
    if (H * W > 32)
        return false;
    const __m512i k256 = _mm512_set1_epi32(FIX_ONE);
    const __m512i X0 = _mm512_add_epi32(_mm512_mullo_epi32(c0, k256), h128);
    const __m512i Y0 = _mm512_add_epi32(_mm512_mullo_epi32(r0, k256), h128);

    static const int EP[5][2] = {{0, 1}, {1, 2}, {2, 0}, {1, 3}, {3, 2}};
    __m512i e[5], sx[5], sy[5];
#pragma GCC unroll 5
    for (int k = 0; k < 5; k++) {
        const __m512i dx = _mm512_sub_epi32(px[EP[k][1]], px[EP[k][0]]);
        const __m512i dy = _mm512_sub_epi32(py[EP[k][1]], py[EP[k][0]]);
        const __mmask16 tl = _mm512_cmplt_epi32_mask(dy, zero) |
                             (_mm512_cmpeq_epi32_mask(dy, zero) & _mm512_cmpgt_epi32_mask(dx, zero));
        __m512i ek = _mm512_sub_epi32(_mm512_mullo_epi32(dx, _mm512_sub_epi32(Y0, py[EP[k][0]])),
                                      _mm512_mullo_epi32(dy, _mm512_sub_epi32(X0, px[EP[k][0]])));
        ek = _mm512_mask_add_epi32(ek, (__mmask16)~tl, ek, ones);
        __m512i sxk = _mm512_mullo_epi32(_mm512_sub_epi32(zero, dy), k256);
        __m512i syk = _mm512_mullo_epi32(dx, k256);
        if (k != 1) {
            const __mmask16 keep = k < 3 ? m0 : m1;
            ek = _mm512_mask_blend_epi32(keep, ones, ek);
            sxk = _mm512_maskz_mov_epi32(keep, sxk);
            syk = _mm512_maskz_mov_epi32(keep, syk);
        }
        e[k] = ek;
        sx[k] = sxk;
        sy[k] = syk;
    }

    const __m512 inv_fix = _mm512_set1_ps(1.0f / FIX_ONE);
    const __m512 one = _mm512_set1_ps(1.0f);
    __m512 pu[2][3], pv[2][3]; /* o, gx, gy */
    static const int TV[2][3] = {{0, 1, 2}, {1, 3, 2}};
#pragma GCC unroll 2
    for (int tri = 0; tri < 2; tri++) {
        const int ia = TV[tri][0], ib = TV[tri][1], ic = TV[tri][2];
        const __m512 fbx = _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_sub_epi32(px[ib], px[ia])), inv_fix);
        const __m512 fby = _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_sub_epi32(py[ib], py[ia])), inv_fix);
        const __m512 fcx = _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_sub_epi32(px[ic], px[ia])), inv_fix);
        const __m512 fcy = _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_sub_epi32(py[ic], py[ia])), inv_fix);
        const __m512 pax = _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_sub_epi32(px[ia], X0)), inv_fix);
        const __m512 pay = _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_sub_epi32(py[ia], Y0)), inv_fix);
        const __m512 inv = _mm512_div_ps(one, _mm512_sub_ps(_mm512_mul_ps(fbx, fcy),
                                                            _mm512_mul_ps(fby, fcx)));
#pragma GCC unroll 2
        for (int c = 0; c < 2; c++) {
            const __m512 *T = c == 0 ? tu : tv;
            const __m512 va = T[ia], vb = T[ib], vc = T[ic];
            const __m512 dd1 = _mm512_sub_ps(vb, va), dd2 = _mm512_sub_ps(vc, va);
            const __m512 gx = _mm512_mul_ps(
                _mm512_sub_ps(_mm512_mul_ps(dd1, fcy), _mm512_mul_ps(dd2, fby)), inv);
            const __m512 gy = _mm512_mul_ps(
                _mm512_sub_ps(_mm512_mul_ps(dd2, fbx), _mm512_mul_ps(dd1, fcx)), inv);
            const __m512 o = _mm512_sub_ps(_mm512_sub_ps(va, _mm512_mul_ps(gx, pax)),
                                           _mm512_mul_ps(gy, pay));
            __m512 *P = c == 0 ? pu[tri] : pv[tri];
            P[0] = o;
            P[1] = gx;
            P[2] = gy;
        }
    }

    /* The offsets, as in flat_group8; the covered lanes of each packed to
     * the queue's end by vcompress (whole-vector stores: QUEUE_CAP). */
    const __m512i at0 = _mm512_add_epi32(
        _mm512_mullo_epi32(_mm512_sub_epi32(r0, _mm512_set1_epi32(b->y0)), _mm512_set1_epi32(b->pitch)),
        c0);
    const __m512i hy1 = _mm512_add_epi32(hy, _mm512_set1_epi32(1));
    const __m512i wx1 = _mm512_add_epi32(wx, _mm512_set1_epi32(1));
    const int qn0 = q->n;
    int qn = qn0;
    __m512i lm = zero;
    int k = 0;
    for (int dy = 0; dy < H; dy++) {
        const __m512 fy = _mm512_set1_ps((float)dy);
        const __m512 yu0 = _mm512_mul_ps(pu[0][2], fy), yu1 = _mm512_mul_ps(pu[1][2], fy);
        const __m512 yv0 = _mm512_mul_ps(pv[0][2], fy), yv1 = _mm512_mul_ps(pv[1][2], fy);
        const __mmask16 rowin = on & _mm512_cmpgt_epi32_mask(hy1, _mm512_set1_epi32(dy));
        __m512i ev[5];
#pragma GCC unroll 5
        for (int j = 0; j < 5; j++)
            ev[j] = e[j];
        for (int dx = 0; dx < W; dx++, k++) {
            const __mmask16 in0 = _mm512_cmpgt_epi32_mask(
                _mm512_or_si512(_mm512_or_si512(ev[0], ev[1]), ev[2]), ones);
            const __mmask16 in1 = _mm512_movepi32_mask(
                _mm512_andnot_si512(_mm512_or_si512(ev[3], ev[4]), ev[1]));
            const __mmask16 cov =
                rowin & _mm512_cmpgt_epi32_mask(wx1, _mm512_set1_epi32(dx)) & (in0 | in1);
            if (cov) {
                const __m512 fx = _mm512_set1_ps((float)dx);
                const __m512 u0 = _mm512_add_ps(_mm512_add_ps(pu[0][0], _mm512_mul_ps(pu[0][1], fx)), yu0);
                const __m512 u1 = _mm512_add_ps(_mm512_add_ps(pu[1][0], _mm512_mul_ps(pu[1][1], fx)), yu1);
                const __m512 w0 = _mm512_add_ps(_mm512_add_ps(pv[0][0], _mm512_mul_ps(pv[0][1], fx)), yv0);
                const __m512 w1 = _mm512_add_ps(_mm512_add_ps(pv[1][0], _mm512_mul_ps(pv[1][1], fx)), yv1);
                _mm512_storeu_ps(q->u + qn, _mm512_maskz_compress_ps(cov, _mm512_mask_blend_ps(in1, u0, u1)));
                _mm512_storeu_ps(q->v + qn, _mm512_maskz_compress_ps(cov, _mm512_mask_blend_ps(in1, w0, w1)));
                _mm512_storeu_si512(q->at + qn,
                                    _mm512_maskz_compress_epi32(
                                        cov, _mm512_add_epi32(at0, _mm512_set1_epi32(dy * b->pitch + dx))));
                qn += __builtin_popcount((unsigned)cov);
                lm = _mm512_mask_or_epi32(lm, cov, lm, _mm512_set1_epi32((int)(1u << k)));
            }
#pragma GCC unroll 5
            for (int j = 0; j < 5; j++)
                ev[j] = _mm512_add_epi32(ev[j], sx[j]);
        }
#pragma GCC unroll 5
        for (int j = 0; j < 5; j++)
            e[j] = _mm512_add_epi32(e[j], sy[j]);
    }
    if (!own_pixels_once16(lm, c0, r0, wx, W, H)) {
        q->n = qn0;
        return false;
    }
    q->n = qn;
    if (qn >= QUEUE_BATCH) {
        if (wb_tex_sampler_fx8_ok(ts))
            queue_flush16(q, flat, ts);
        else
            queue_flush(q, flat, ts);
    }
    return true;
}
#endif

/* Flat triangles of n consecutive cells v00 + l of one grid row (bit l of
 * d0, d1: see flat_group8), in cell order: up to eight, as a group of
 * eight, else cell by cell. */
static ALWAYS_INLINE void flat_cells8(Band *b, uint32_t *flat, ShadeQueue *q, const Cmd *cmd,
                                      const WbTexSampler *ts, uint32_t v00, uint32_t v01, int n,
                                      unsigned d0, unsigned d1)
{
#ifdef WB_RASTER_AVX2
    if (b->groups && flat_group8(b, flat, q, cmd, ts, v00, v01, n, d0, d1))
        return;
#endif
    const int32_t *xy = cmd->xy;
    for (int l = 0; l < n; l++, v00++, v01++) {
        const bool a = d0 >> l & 1, c = d1 >> l & 1;
        if (!a && !c)
            continue;
        const int32_t P[4][2] = {{xy[2 * v00], xy[2 * v00 + 1]},
                                 {xy[2 * v00 + 2], xy[2 * v00 + 3]},
                                 {xy[2 * v01], xy[2 * v01 + 1]},
                                 {xy[2 * v01 + 2], xy[2 * v01 + 3]}};
        int32_t xmin, xmax, ymin, ymax;
        span4(P[0][0], P[1][0], P[2][0], P[3][0], 4, &xmin, &xmax);
        span4(P[0][1], P[1][1], P[2][1], P[3][1], 4, &ymin, &ymax);
        flat_cell(b, flat, q, cmd, ts, v00, v01, P, xmin, xmax, ymin, ymax, a, c);
    }
}

/* Up to sixteen (with AVX-512, Band.wide) or eight: sixteen at once, else
 * each half as eight, in order (the same as cell order). */
static ALWAYS_INLINE void flat_cells(Band *b, uint32_t *flat, ShadeQueue *q, const Cmd *cmd,
                                     const WbTexSampler *ts, uint32_t v00, uint32_t v01, int n,
                                     unsigned d0, unsigned d1)
{
#ifdef WB_TEX_FX16
    if (b->wide) {
        if (flat_group16(b, flat, q, cmd, ts, v00, v01, n, d0, d1))
            return;
        if (n > 8) {
            flat_cells8(b, flat, q, cmd, ts, v00, v01, 8, d0 & 0xFF, d1 & 0xFF);
            flat_cells8(b, flat, q, cmd, ts, v00 + 8, v01 + 8, n - 8, d0 >> 8, d1 >> 8);
            return;
        }
    }
#endif
    flat_cells8(b, flat, q, cmd, ts, v00, v01, n, d0, d1);
}

/* Does the sample box (xmin..ymax, fixed point) of a cell reach an MSAA
 * tile? */
static ALWAYS_INLINE bool cell_in_tiles(const Band *b, const uint8_t *tiles, int tw,
                                        int32_t xmin, int32_t xmax, int32_t ymin, int32_t ymax)
{
    int tx0, tx1, ty0, ty1;
    if (!box_tiles(b, xmin, xmax, ymin, ymax, &tx0, &tx1, &ty0, &ty1))
        return false;
    for (int ty = ty0; ty <= ty1; ty++)
        for (int tx = tx0; tx <= tx1; tx++)
            if (tiles[(size_t)ty * (size_t)tw + (size_t)tx])
                return true;
    return false;
}

/* Bits 0, 2, 4, ..., 30 of v as bits 0..15. */
static ALWAYS_INLINE unsigned even_bits(uint32_t v)
{
    v &= 0x55555555u;
    v = (v | v >> 1) & 0x33333333u;
    v = (v | v >> 2) & 0x0F0F0F0Fu;
    v = (v | v >> 4) & 0x00FF00FFu;
    return (v | v >> 8) & 0x0000FFFFu;
}

/* p[0..n) = v, four words per store (gcc -O2 leaves the plain loop
 * scalar). */
static ALWAYS_INLINE void fill32(uint32_t *p, size_t n, uint32_t v)
{
    size_t i = 0;
#ifdef __SSE2__
    const __m128i v4 = _mm_set1_epi32((int)v);
    for (; i + 4 <= n; i += 4)
        _mm_storeu_si128((__m128i *)(p + i), v4);
#endif
    for (; i < n; i++)
        p[i] = v;
}

#define MAX_TILES_X ((32768 + TILE_W - 1) / TILE_W)

/* The pixels of the band's tiles marked in `which` (tw per tile row; band
 * of w × nrows pixels) from src to dst (rows dpitch, spitch words apart). */
static void copy_tiles(uint32_t *dst, int dpitch, const uint32_t *src, int spitch,
                       const uint8_t *which, int tw, int w, int nrows)
{
    for (int y = 0; y < nrows; y++) {
        const uint8_t *trow = which + (size_t)(y / TILE_H) * (size_t)tw;
        for (int tx = 0, x0, x1; wb_tile_run(trow, tw, TILE_W, w, &tx, &x0, &x1);)
            memcpy(dst + (size_t)y * (size_t)dpitch + (size_t)x0,
                   src + (size_t)y * (size_t)spitch + (size_t)x0, 4 * (size_t)(x1 - x0));
    }
}

/* The photo path for one band; see the section comment.  With `dirty`
 * (the frame's tiles that must be drawn, the rest of b->out already holding
 * their pixels), only cells reaching a dirty tile are drawn and only dirty
 * tiles are resolved. */
static ALWAYS_INLINE void band_photo_s(Band *b, const Cmd *cmd, const Chunk *chunks,
                                       const uint8_t *tri_aa, const uint8_t *dirty,
                                       uint32_t *flat, uint8_t *tiles, uint32_t bg, const int S)
{
    const int w = b->w, tw = tiles_x(w), nrows = b->y1 - b->y0;
    const int trows = (nrows + TILE_H - 1) / TILE_H;
    if (dirty) {
        dirty += (size_t)(b->y0 / TILE_H) * (size_t)tw;
        if (!memchr(dirty, 1, (size_t)trows * (size_t)tw))
            return;
    }
    /* Flat pixels go straight into the output rows on an opaque
     * background: each flat pixel is then opaque, and resolving an opaque
     * pixel copies its word, so the resolve's pass over the band is not
     * needed; MSAA tiles are resolved over whatever flat cells left there.
     * Carried-over tiles must keep their pixels, but a cell reaching a
     * dirty tile may also cover a carried-over neighbour: the carried-over
     * tiles of the chunks that get drawn (`touched`) are saved in the flat
     * buffer first and put back at the end. */
    bool direct = false;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    direct = bg >> 24 == 255 && b->out->stride % 4 == 0;
#endif
    uint32_t *const saved = flat;
    uint8_t touched[TILE_ROWS * MAX_TILES_X];
    const bool guard = direct && dirty && memchr(dirty, 0, (size_t)trows * (size_t)tw);
    b->pitch = w;
    if (direct) {
        flat = (uint32_t *)(void *)wb_image_row(b->out, b->y0);
        b->pitch = (int)(b->out->stride / 4);
    }
    if (guard) {
        memset(touched, 0, (size_t)trows * (size_t)tw);
        for (int k = b->k0; k <= b->k1; k++) {
            const Chunk *ch = &chunks[cmd->chunk0 + (size_t)k];
            int cx0, cx1, cy0, cy1;
            if (ch->row_hi < b->y0 || ch->row_lo >= b->y1 ||
                !box_tiles(b, ch->x0, ch->x1, ch->y0, ch->y1, &cx0, &cx1, &cy0, &cy1))
                continue;
            bool any = false;
            for (int ty = cy0; ty <= cy1 && !any; ty++)
                any = memchr(dirty + (size_t)ty * (size_t)tw + (size_t)cx0, 1,
                             (size_t)(cx1 - cx0 + 1)) != NULL;
            for (int ty = cy0; any && ty <= cy1; ty++)
                memset(touched + (size_t)ty * (size_t)tw + (size_t)cx0, 1, (size_t)(cx1 - cx0 + 1));
        }
        for (size_t i = 0; i < (size_t)trows * (size_t)tw; i++)
            touched[i] &= (uint8_t)!dirty[i];
        copy_tiles(saved, w, flat, b->pitch, touched, tw, w, nrows);
    }
    memset(tiles, 0, (size_t)TILE_ROWS * (size_t)tw);
    const uint32_t cols = (uint32_t)cmd->mesh.grid_cols;
    for (int k = b->k0; k <= b->k1; k++) {
        const Chunk *ch = &chunks[cmd->chunk0 + (size_t)k];
        if (!ch->aa_mask || ch->row_hi < b->y0 || ch->row_lo >= b->y1)
            continue;
        for (uint64_t m = ch->aa_mask; m; m &= m - 1) {
            const uint32_t t = (uint32_t)(k * CHUNK_TRIS + __builtin_ctzll(m));
            const uint32_t v00 = t / 2 / cols * (cols + 1) + t / 2 % cols, v01 = v00 + cols + 1;
            if (t & 1)
                mark_tiles(b, tiles, tw, cmd->xy, v00 + 1, v01 + 1, v01);
            else
                mark_tiles(b, tiles, tw, cmd->xy, v00, v00 + 1, v01);
        }
    }
    /* Background: the flat pixels (straight into the output: only of the
     * dirty tiles), the samples in MSAA tiles. */
    for (int y = 0; y < nrows; y++) {
        uint32_t *row = flat + (size_t)y * (size_t)b->pitch;
        if (!direct || !dirty) {
            fill32(row, (size_t)w, bg);
            continue;
        }
        const uint8_t *drow = dirty + (size_t)(y / TILE_H) * (size_t)tw;
        for (int tx = 0, x0, x1; wb_tile_run(drow, tw, TILE_W, w, &tx, &x0, &x1);)
            fill32(row + x0, (size_t)(x1 - x0), bg);
    }
    for (int ty = 0; ty * TILE_H < nrows; ty++)
        for (int tx = 0; tx < tw; tx++) {
            if (!tiles[(size_t)ty * (size_t)tw + (size_t)tx])
                continue;
            int x0 = tx * TILE_W, x1 = x0 + TILE_W < w ? x0 + TILE_W : w;
            for (int y = ty * TILE_H; y < nrows && y < (ty + 1) * TILE_H; y++) {
                fill32(b->samples + ((size_t)y * (size_t)w + (size_t)x0) * (size_t)S,
                       (size_t)(x1 - x0) * (size_t)S, bg);
            }
        }
    /* Cell by cell (chunks hold whole cells: CHUNK_TRIS is even), in
     * submission order in each buffer. */
    const WbTexSampler ts = wb_tex_sampler(cmd->mesh.texture);
    ShadeQueue queue = {.n = 0};
    for (int k = b->k0; k <= b->k1; k++) {
        const Chunk *ch = &chunks[cmd->chunk0 + (size_t)k];
        if (ch->row_hi < b->y0 || ch->row_lo >= b->y1)
            continue;
        int t0 = k * CHUNK_TRIS, t1 = t0 + CHUNK_TRIS < cmd->n_tri ? t0 + CHUNK_TRIS : cmd->n_tri;
        uint32_t ci = (uint32_t)t0 / 2 % cols, cj = (uint32_t)t0 / 2 / cols;
        /* The tiles the chunk's cells may reach here: none dirty, skip it;
         * no MSAA tile and (carrying over) all dirty, no cell needs a look
         * of its own: flat triangles go straight to flat_cells. */
        int cx0, cx1, cy0, cy1;
        if (!box_tiles(b, ch->x0, ch->x1, ch->y0, ch->y1, &cx0, &cx1, &cy0, &cy1))
            continue;
        bool any_aa = false, any_dirty = !dirty, all_dirty = true;
        for (int ty = cy0; ty <= cy1; ty++)
            for (int tx = cx0; tx <= cx1; tx++) {
                const size_t i = (size_t)ty * (size_t)tw + (size_t)tx;
                any_aa |= tiles[i] != 0;
                if (dirty) {
                    any_dirty |= dirty[i] != 0;
                    all_dirty &= dirty[i] != 0;
                }
            }
        if (!any_dirty)
            continue;
        const int group = b->wide ? 16 : 8; /* cells per flat_cells call */
        if (!any_aa && all_dirty) {
            for (int t = t0; t < t1;) {
                int n = (t1 - t) / 2;
                n = n < group ? n : group;
                n = (uint32_t)n < cols - ci ? n : (int)(cols - ci);
                /* Bit l of d0, d1: the even, odd bits 2l, 2l + 1 of the
                 * chunk's MSAA mask from t on, cleared. */
                const unsigned live = (1u << n) - 1;
                const unsigned d0 = ~even_bits((uint32_t)(ch->aa_mask >> (t - t0))) & live;
                const unsigned d1 = ~even_bits((uint32_t)(ch->aa_mask >> (t - t0 + 1))) & live;
                const uint32_t v00 = cj * (cols + 1) + ci;
                if (d0 | d1)
                    flat_cells(b, flat, &queue, cmd, &ts, v00, v00 + cols + 1, n, d0, d1);
                t += 2 * n;
                ci += (uint32_t)n;
                if (ci == cols) {
                    ci = 0;
                    cj++;
                }
            }
            continue;
        }
        /* Flat triangles go in groups of up to eight (sixteen: Band.wide)
         * consecutive cells of one grid row (g0: the group's first cell, gd0/gd1: bit l for
         * cell g0 + l's flat triangles); MSAA ones are drawn at once (a
         * separate buffer: the two orders do not meet). */
        uint32_t g0 = 0, g01 = 0;
        int gn = 0;
        unsigned gd0 = 0, gd1 = 0;
        for (int t = t0; t < t1; t += 2) {
            uint32_t v00 = cj * (cols + 1) + ci, v01 = v00 + cols + 1;
            bool d0 = !tri_aa[t], d1 = !tri_aa[t + 1];
            const int32_t *xy = cmd->xy;
            int32_t xmin, xmax, ymin, ymax;
            span4(xy[2 * v00], xy[2 * v00 + 2], xy[2 * v01], xy[2 * v01 + 2], 4, &xmin, &xmax);
            span4(xy[2 * v00 + 1], xy[2 * v00 + 3], xy[2 * v01 + 1], xy[2 * v01 + 3], 4, &ymin,
                  &ymax);
            if (gn == 0) {
                g0 = v00;
                g01 = v01;
            }
            /* (A cell reaching only carried-over pixels is skipped.) */
            if (!dirty || cell_in_tiles(b, dirty, tw, xmin, xmax, ymin, ymax)) {
                gd0 |= (unsigned)d0 << gn;
                gd1 |= (unsigned)d1 << gn;
                if (cell_in_tiles(b, tiles, tw, xmin, xmax, ymin, ymax)) {
                    draw_tri_tiles(b, tiles, tw, cmd, v00, v00 + 1, v01, S);
                    draw_tri_tiles(b, tiles, tw, cmd, v00 + 1, v01 + 1, v01, S);
                }
            }
            gn++;
            bool row_end = ++ci == cols;
            if (row_end) {
                ci = 0;
                cj++;
            }
            if (gn == group || row_end || t + 2 >= t1) {
                if (gd0 | gd1)
                    flat_cells(b, flat, &queue, cmd, &ts, g0, g01, gn, gd0, gd1);
                gn = 0;
                gd0 = gd1 = 0;
            }
        }
    }
#ifdef __SSE2__
    queue_drain(&queue, flat, &ts);
#endif
    /* Resolve: runs of MSAA tiles from their samples, the rest from the
     * flat buffer (one sample: "same" everywhere) unless the flat pixels
     * went straight into b->out; carried-over tiles keep what b->out holds
     * (the ones the drawn cells reached get their saved pixels back). */
    for (int y = 0; y < nrows; y++) {
        const uint8_t *trow = tiles + (size_t)(y / TILE_H) * (size_t)tw;
        const uint8_t *drow = dirty ? dirty + (size_t)(y / TILE_H) * (size_t)tw : NULL;
        uint8_t *out = wb_image_row(b->out, b->y0 + y);
        for (int tx = 0; tx < tw;) {
            int tx1 = tx;
            if (drow && !drow[tx]) {
                while (tx1 < tw && !drow[tx1])
                    tx1++;
                tx = tx1;
                continue;
            }
            while (tx1 < tw && trow[tx1] == trow[tx] && (!drow || drow[tx1]))
                tx1++;
            int x0 = tx * TILE_W, x1 = tx1 * TILE_W < w ? tx1 * TILE_W : w;
            if (trow[tx])
                resolve_row_s(b->samples + ((size_t)y * (size_t)w + (size_t)x0) * (size_t)S,
                              x1 - x0, S, out + 4 * (size_t)x0);
            else if (!direct)
                resolve_flat_row(flat + (size_t)y * (size_t)w + (size_t)x0, x1 - x0,
                                 out + 4 * (size_t)x0);
            tx = tx1;
        }
    }
    if (guard)
        copy_tiles(flat, b->pitch, saved, w, touched, tw, w, nrows);
}

/* Also built for AVX2 and picked at load time: the same SSE2 intrinsics in
 * VEX form (three-operand, fewer register copies) plus whatever integer
 * min/max and 32-bit multiplies the compiler finds; the arithmetic is the
 * same IEEE and integer operations, so both versions give the same bytes. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("avx2", "default")))
#endif
static void band_photo(Band *b, const Cmd *cmd, const Chunk *chunks, const uint8_t *tri_aa,
                       const uint8_t *dirty, uint32_t *flat, uint8_t *tiles, uint32_t bg)
{
    switch (b->pat->S) {
    case 4: band_photo_s(b, cmd, chunks, tri_aa, dirty, flat, tiles, bg, 4); break;
    case 8: band_photo_s(b, cmd, chunks, tri_aa, dirty, flat, tiles, bg, 8); break;
    default: band_photo_s(b, cmd, chunks, tri_aa, dirty, flat, tiles, bg, 16); break;
    }
}

/* ---- wb_raster_end stages ---------------------------------------------- */

typedef struct EndCtx {
    WbRaster *r;
    Pattern pat;
    int n_vtasks, n_ctasks;
    int n_bands;
    int keep;                     /* 0, 1 keep the first command's result, 2 reuse it */
    bool photo;                   /* the one command takes the photo path */
    WbRasterCarry *slot;          /* photo path, carrying over: the output's slot */
    bool carry;                   /* slot holds a frame: compare with its inputs */
    atomic_bool uv_moved;         /* carry: a texture coordinate changed */
    const uint8_t *dirty;         /* photo path: tiles to draw (NULL: all) */
    bool groups;                  /* photo path: flat cells eight at a time */
    bool avx2;                    /* the CPU has AVX2 (and the tests want it) */
    bool wide;                    /* with groups: the CPU has AVX-512 (F, BW) */
    uint64_t compress[256];       /* with groups: see compress_table */
    /* Photo path: per band, the first and last chunk whose rows reach it
     * (chunks follow the grid rows, so for a sane mesh the range is
     * short; k0 > k1 for none). */
    int band_k0[(32768 + WB_RASTER_BAND_ROWS - 1) / WB_RASTER_BAND_ROWS];
    int band_k1[(32768 + WB_RASTER_BAND_ROWS - 1) / WB_RASTER_BAND_ROWS];
    atomic_int next_band;
    WbImage *out;
} EndCtx;

#ifdef WB_RASTER_AVX2
/* compress[m]: the lanes set in the eight-bit mask m in ascending order,
 * one per byte (the rest 0): the permutation that packs those lanes of a
 * vector to its front. */
static void compress_table(uint64_t compress[256])
{
    for (int m = 0; m < 256; m++) {
        uint64_t packed = 0;
        int n = 0;
        for (int l = 0; l < 8; l++)
            if (m >> l & 1)
                packed |= (uint64_t)l << (8 * n++);
        compress[m] = packed;
    }
}
#endif

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

#ifdef WB_RASTER_AVX2
/* to_fixed(x·sx + ox), to_fixed(y·sy + oy) of eight vertices into eight
 * (x, y) pairs, FIX_INVALID for both where either is not finite: the same
 * float and double operations, lane by lane.  The sum v·256 + 0.5 + 2^30
 * is exact and below 2^31, so the truncation to int32 is the floor. */
__attribute__((target("avx2"))) static void to_fixed8(const float *x, const float *y,
                                                      WbXform2 t, int32_t *out)
{
    const __m256 px = _mm256_add_ps(_mm256_mul_ps(_mm256_loadu_ps(x), _mm256_set1_ps(t.sx)),
                                    _mm256_set1_ps(t.ox));
    const __m256 py = _mm256_add_ps(_mm256_mul_ps(_mm256_loadu_ps(y), _mm256_set1_ps(t.sy)),
                                    _mm256_set1_ps(t.oy));
    const __m256 zero = _mm256_setzero_ps();
    const __m256 finite = _mm256_and_ps(_mm256_cmp_ps(_mm256_sub_ps(px, px), zero, _CMP_EQ_OQ),
                                        _mm256_cmp_ps(_mm256_sub_ps(py, py), zero, _CMP_EQ_OQ));
    const __m256 lo = _mm256_set1_ps(-FIX_LIMIT_PX), hi = _mm256_set1_ps(FIX_LIMIT_PX);
    const __m256d k = _mm256_set1_pd(FIX_ONE), half = _mm256_set1_pd(0.5);
    const __m256d bias = _mm256_set1_pd(1073741824.0);
    __m256i v[2];
    for (int c = 0; c < 2; c++) {
        const __m256 f = _mm256_min_ps(_mm256_max_ps(c ? py : px, lo), hi);
        const __m256d d0 = _mm256_add_pd(
            _mm256_add_pd(_mm256_mul_pd(_mm256_cvtps_pd(_mm256_castps256_ps128(f)), k), half), bias);
        const __m256d d1 = _mm256_add_pd(
            _mm256_add_pd(_mm256_mul_pd(_mm256_cvtps_pd(_mm256_extractf128_ps(f, 1)), k), half),
            bias);
        const __m256i i = _mm256_inserti128_si256(_mm256_castsi128_si256(_mm256_cvttpd_epi32(d0)),
                                                  _mm256_cvttpd_epi32(d1), 1);
        v[c] = _mm256_blendv_epi8(_mm256_set1_epi32(FIX_INVALID),
                                  _mm256_sub_epi32(i, _mm256_set1_epi32(1 << 30)),
                                  _mm256_castps_si256(finite));
    }
    const __m256i a = _mm256_unpacklo_epi32(v[0], v[1]), b = _mm256_unpackhi_epi32(v[0], v[1]);
    _mm256_storeu_si256((__m256i *)out, _mm256_permute2x128_si256(a, b, 0x20));
    _mm256_storeu_si256((__m256i *)(out + 8), _mm256_permute2x128_si256(a, b, 0x31));
}
#endif

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
        /* Carrying pixels over needs every coordinate as last frame (bit
         * for bit: -0 and 0 count as moved, which only costs drawing). */
        if (ctx->carry && memcmp(tuv + 2 * (size_t)i0, ctx->slot->tuv + cmd->vtx_off + 2 * (size_t)i0,
                                 2 * (size_t)(i1 - i0) * sizeof *tuv) != 0)
            atomic_store_explicit(&ctx->uv_moved, true, memory_order_relaxed);
    }
    int i = i0;
#ifdef WB_RASTER_AVX2
    if (ctx->avx2)
        for (; i + 8 <= i1; i += 8)
            to_fixed8(m->x + i, m->y + i, t, out + 2 * i);
#endif
    for (; i < i1; i++) {
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
static void chunk_one(EndCtx *ctx, Cmd *cmd, int k)
{
    WbRaster *r = ctx->r;
    const float *alpha = cmd->kind == CMD_MESH ? cmd->mesh.alpha : NULL;
    int t0 = k * CHUNK_TRIS, t1 = t0 + CHUNK_TRIS < cmd->n_tri ? t0 + CHUNK_TRIS : cmd->n_tri;
    int32_t ymin = INT32_MAX, ymax = INT32_MIN;
    if (cmd->tri) {
        for (int t = t0; t < t1; t++)
            chunk_add(cmd->xy, alpha, cmd->tri[3 * t], cmd->tri[3 * t + 1], cmd->tri[3 * t + 2],
                      &ymin, &ymax);
    } else {
        uint32_t cols = (uint32_t)cmd->mesh.grid_cols, cell = (uint32_t)t0 / 2;
        uint32_t rows = (uint32_t)cmd->mesh.grid_rows;
        uint32_t ci = cell % cols, cj = cell / cols;
        const int32_t *xy = cmd->xy;
        const int32_t *prev = ctx->carry ? ctx->slot->vtx + cmd->vtx_off : NULL;
        int32_t mx0 = INT32_MAX, mx1 = INT32_MIN, my0 = INT32_MAX, my1 = INT32_MIN;
        int32_t xmin = INT32_MAX, xmax = INT32_MIN;
        const int32_t fw = r->w * FIX_ONE, fh = r->h * FIX_ONE; /* the frame, fixed point */
        bool aa = false, invalid = false;
        for (int t = t0; t < t1; t += 2) {
            uint32_t v00 = cj * (cols + 1) + ci, v01 = v00 + cols + 1;
#ifdef WB_RASTER_AVX2
            int32_t cb[4], mb[4];
            bool caa;
            if (ctx->groups && ctx->photo && t + 16 <= t1 && ci + 8 <= cols &&
                photo_cells8(xy, prev, v00, v01, ci, cj, cols, rows, fw, fh, r->tri_aa + t, cb, mb,
                             &caa)) {
                xmin = cb[0] < xmin ? cb[0] : xmin;
                xmax = cb[1] > xmax ? cb[1] : xmax;
                ymin = cb[2] < ymin ? cb[2] : ymin;
                ymax = cb[3] > ymax ? cb[3] : ymax;
                mx0 = mb[0] < mx0 ? mb[0] : mx0;
                mx1 = mb[1] > mx1 ? mb[1] : mx1;
                my0 = mb[2] < my0 ? mb[2] : my0;
                my1 = mb[3] > my1 ? mb[3] : my1;
                aa |= caa;
                t += 14; /* and 2 more by the loop: eight cells */
                ci += 8;
                if (ci == cols) {
                    ci = 0;
                    cj++;
                }
                continue;
            }
#endif
            if (ctx->photo && t + 1 < t1) {
                /* The photo frame's cells, each vertex read once: both
                 * triangles valid (the rule) cover the rows of all four. */
                const int32_t x00 = xy[2 * v00], y00 = xy[2 * v00 + 1];
                const int32_t x10 = xy[2 * v00 + 2], y10 = xy[2 * v00 + 3];
                const int32_t x01 = xy[2 * v01], y01 = xy[2 * v01 + 1];
                const int32_t x11 = xy[2 * v01 + 2], y11 = xy[2 * v01 + 3];
                if (x00 != FIX_INVALID && x10 != FIX_INVALID && x01 != FIX_INVALID &&
                    x11 != FIX_INVALID) {
                    int32_t l, h;
                    int32_t xl, xh;
                    span4(x00, x10, x01, x11, 4, &xl, &xh);
                    xmin = xl < xmin ? xl : xmin;
                    xmax = xh > xmax ? xh : xmax;
                    span4(y00, y10, y01, y11, 4, &l, &h);
                    ymin = l < ymin ? l : ymin;
                    ymax = h > ymax ? h : ymax;
                    bool border = border_shows(xy, v00, v01, ci, cj, cols, rows, fw, fh);
                    uint8_t a0 = border || aa_triangle_at(x00, y00, x10, y10, x01, y01);
                    uint8_t a1 = border || aa_triangle_at(x10, y10, x11, y11, x01, y01);
                    r->tri_aa[t] = a0;
                    r->tri_aa[t + 1] = a1;
                    aa |= a0 | a1;
                    /* A moved cell: its box before and after the move
                     * (last frame's vertices were all valid: it took the
                     * photo path). */
                    const int32_t *p0 = prev ? prev + 2 * v00 : NULL;
                    const int32_t *p1 = prev ? prev + 2 * v01 : NULL;
                    if (prev && ((p0[0] ^ x00) | (p0[1] ^ y00) | (p0[2] ^ x10) | (p0[3] ^ y10) |
                                 (p1[0] ^ x01) | (p1[1] ^ y01) | (p1[2] ^ x11) | (p1[3] ^ y11))) {
                        int32_t ol, oh;
                        my0 = l < my0 ? l : my0;
                        my1 = h > my1 ? h : my1;
                        span4(p0[1], p0[3], p1[1], p1[3], 4, &ol, &oh);
                        my0 = ol < my0 ? ol : my0;
                        my1 = oh > my1 ? oh : my1;
                        span4(x00, x10, x01, x11, 4, &l, &h);
                        span4(p0[0], p0[2], p1[0], p1[2], 4, &ol, &oh);
                        l = ol < l ? ol : l;
                        h = oh > h ? oh : h;
                        mx0 = l < mx0 ? l : mx0;
                        mx1 = h > mx1 ? h : mx1;
                    }
                    if (++ci == cols) {
                        ci = 0;
                        cj++;
                    }
                    continue;
                }
            }
            chunk_add(xy, alpha, v00, v00 + 1, v01, &ymin, &ymax);
            if (t + 1 < t1)
                chunk_add(xy, alpha, v00 + 1, v01 + 1, v01, &ymin, &ymax);
            if (ctx->photo) {
                /* The photo path's AA triangles (see its section). */
                const bool bad = xy[2 * v00] == FIX_INVALID || xy[2 * v00 + 2] == FIX_INVALID ||
                                 xy[2 * v01] == FIX_INVALID || xy[2 * v01 + 2] == FIX_INVALID;
                const bool border = border_shows(xy, v00, v01, ci, cj, cols, rows, fw, fh);
                invalid |= bad;
                /* (A frame with an invalid vertex leaves the photo path:
                 * its flags are never read, and its edges would overflow.) */
                uint8_t a0 = bad || aa_triangle(xy, v00, v00 + 1, v01, border);
                uint8_t a1 = t + 1 < t1 && (bad || aa_triangle(xy, v00 + 1, v01 + 1, v01, border));
                r->tri_aa[t] = a0;
                if (t + 1 < t1)
                    r->tri_aa[t + 1] = a1;
                aa |= a0 | a1;
            }
            if (++ci == cols) {
                ci = 0;
                cj++;
            }
        }
        Chunk *chg = &r->chunks[cmd->chunk0 + (size_t)k];
        chg->aa_mask = 0;
        for (int t = t0; aa && ctx->photo && t < t1; t++)
            chg->aa_mask |= (uint64_t)(r->tri_aa[t] != 0) << (t - t0);
        chg->invalid = invalid;
        chg->moved_x0 = mx0;
        chg->moved_x1 = mx1;
        chg->moved_y0 = my0;
        chg->moved_y1 = my1;
        chg->x0 = xmin;
        chg->x1 = xmax;
        chg->y0 = ymin;
        chg->y1 = ymax;
    }
    Chunk *ch = &r->chunks[cmd->chunk0 + (size_t)k];
    if (ymin > ymax) {
        ch->row_lo = INT32_MAX;
        ch->row_hi = INT32_MIN;
        return;
    }
    pixel_span(ymin, ymax, ctx->pat.omin_y, ctx->pat.omax_y, &ch->row_lo, &ch->row_hi);
}

/* A run of CHUNK_TASK chunks of one command.  Claiming a task is an
 * atomic add on a line both threads write, and one chunk (32 cells) was
 * too little work for it: a chunk per task cost a 1080p photo frame drawn
 * on two threads ~10 % more than 64 chunks per task. */
static void chunk_task(void *vctx, int task)
{
    EndCtx *ctx = vctx;
    Cmd *cmd = &ctx->r->cmds[cmd_for_task(ctx->r, task, true)];
    const int k0 = (task - cmd->ctask0) * CHUNK_TASK;
    const int k1 = k0 + CHUNK_TASK < cmd->n_chunks ? k0 + CHUNK_TASK : cmd->n_chunks;
    for (int k = k0; k < k1; k++)
        chunk_one(ctx, cmd, k);
}

/* ctx->band_k0/k1 from the chunks' rows. */
static void band_chunks(const WbRaster *r, EndCtx *ctx)
{
    for (int i = 0; i < ctx->n_bands; i++) {
        ctx->band_k0[i] = INT_MAX;
        ctx->band_k1[i] = -1;
    }
    const Cmd *c = &r->cmds[0];
    for (int k = 0; k < c->n_chunks; k++) {
        const Chunk *ch = &r->chunks[c->chunk0 + (size_t)k];
        if (ch->row_hi < 0 || ch->row_lo >= r->h || ch->row_lo > ch->row_hi)
            continue;
        const int b0 = (ch->row_lo > 0 ? ch->row_lo : 0) / WB_RASTER_BAND_ROWS;
        const int b1 = (ch->row_hi < r->h ? ch->row_hi : r->h - 1) / WB_RASTER_BAND_ROWS;
        for (int i = b0; i <= b1; i++) {
            ctx->band_k0[i] = k < ctx->band_k0[i] ? k : ctx->band_k0[i];
            ctx->band_k1[i] = k;
        }
    }
}

/* Does this frame take the photo path?  One opaque textured grid mesh
 * (no per-vertex alpha, centre shading), drawn fresh with MSAA. */
static bool photo_path(const WbRaster *r, int keep)
{
    if (r->n_cmds != 1 || keep != 0 || r->samples == 1)
        return false;
    const Cmd *c = &r->cmds[0];
    const WbMesh *m = &c->mesh;
    return c->kind == CMD_MESH && !m->indices && m->paint == WB_PAINT_TEXTURE && !m->alpha &&
           !m->centroid;
}

static void band_task(void *vctx, int task)
{
    EndCtx *ctx = vctx;
    WbRaster *r = ctx->r;
    Worker *wk = &r->workers[task];
    const int S = r->samples;
    Band b = {.pat = &ctx->pat, .samples = wk->samples, .cov = wk->cov, .w = r->w,
              .cov_x0 = INT_MAX, .cov_y0 = INT_MAX, .cov_x1 = INT_MIN, .cov_y1 = INT_MIN,
              .out = ctx->out, .groups = ctx->groups, .wide = ctx->wide,
              .compress = ctx->compress};
    for (;;) {
        int band = atomic_fetch_add_explicit(&ctx->next_band, 1, memory_order_relaxed);
        if (band >= ctx->n_bands)
            break;
        b.y0 = band * WB_RASTER_BAND_ROWS;
        b.y1 = b.y0 + WB_RASTER_BAND_ROWS < r->h ? b.y0 + WB_RASTER_BAND_ROWS : r->h;
        if (ctx->photo) {
            b.k0 = ctx->band_k0[band];
            b.k1 = ctx->band_k1[band];
            /* (Carrying over, only the dirty tiles: the output holds the
             * rest.) */
            band_photo(&b, &r->cmds[0], r->chunks, r->tri_aa, ctx->dirty, wk->flat, wk->tiles,
                       r->background);
            continue;
        }
        b.cx0 = 0;
        b.cx1 = r->w - 1;
        b.cy0 = b.y0;
        b.cy1 = b.y1 - 1;
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
        /* + 4: the photo path's 4-pixel stores may run past a row's end. */
        w[i].flat = malloc((px + 4) * sizeof *w[i].flat);
        w[i].tiles = malloc((size_t)TILE_ROWS * (size_t)tiles_x(r->w));
        if (!w[i].samples || !w[i].cov || !w[i].flat || !w[i].tiles) {
            free(w[i].samples);
            free(w[i].cov);
            free(w[i].flat);
            free(w[i].tiles);
            return wb_error_set(err, WB_E_IO, "out of memory for render band buffers");
        }
        r->n_workers = i + 1;
    }
    return WB_OK;
}

/* Carrying over: mark the tiles each chunk's moved cells reach, before or
 * after their move.  Pixel i's samples lie within 1/2 px of its centre, so
 * widening the span by a whole pixel each way (offsets ±FIX_ONE) covers
 * every pixel a moved cell draws with one sample or with MSAA, and every
 * MSAA tile whose flag a moved triangle sets or clears.  Any other tile is
 * reached by the same cells with the same vertices as last frame. */
static void mark_moved(const WbRaster *r, const Cmd *cmd, const Chunk *chunks, uint8_t *dirty)
{
    const int tw = tiles_x(r->w), th = (r->h + TILE_H - 1) / TILE_H;
    memset(dirty, 0, (size_t)tw * (size_t)th);
    for (int k = 0; k < cmd->n_chunks; k++) {
        const Chunk *ch = &chunks[cmd->chunk0 + (size_t)k];
        if (ch->moved_x0 > ch->moved_x1)
            continue;
        int32_t r0, r1, c0, c1;
        pixel_span(ch->moved_y0, ch->moved_y1, -FIX_ONE, FIX_ONE, &r0, &r1);
        pixel_span(ch->moved_x0, ch->moved_x1, -FIX_ONE, FIX_ONE, &c0, &c1);
        r0 = r0 < 0 ? 0 : r0;
        r1 = r1 >= r->h ? r->h - 1 : r1;
        c0 = c0 < 0 ? 0 : c0;
        c1 = c1 >= r->w ? r->w - 1 : c1;
        if (r0 > r1 || c0 > c1)
            continue;
        for (int ty = r0 / TILE_H; ty <= r1 / TILE_H; ty++)
            memset(dirty + (size_t)ty * (size_t)tw + (size_t)(c0 / TILE_W), 1,
                   (size_t)(c1 / TILE_W - c0 / TILE_W + 1));
    }
}

/* The slot remembering output image `out` (wb_raster_carry_over), or NULL. */
static WbRasterCarry *carry_slot_of(WbRaster *r, const WbImage *out)
{
    for (int i = 0; i < WB_RASTER_CARRY_SLOTS; i++) {
        WbRasterCarry *c = &r->carried[i];
        if (c->px && c->px == out->px && c->w == out->w && c->h == out->h &&
            c->stride == out->stride)
            return c;
    }
    return NULL;
}

/* Carrying over: which slot this photo frame is drawn into (the output's
 * own, else the least recently used one, taken over) and whether it can be
 * drawn on top of what the output holds (ctx->carry: compare with the
 * slot's vertices).  No slot (ctx->slot NULL): draw everything. */
static void carry_setup(WbRaster *r, EndCtx *ctx, size_t n_vtx)
{
    ctx->slot = NULL;
    ctx->carry = false;
    ctx->dirty = NULL;
    if (!ctx->photo || !r->carry)
        return;
    WbRasterCarry *c = carry_slot_of(r, ctx->out);
    if (!c) {
        c = &r->carried[0];
        for (int i = 1; i < WB_RASTER_CARRY_SLOTS; i++)
            if (r->carried[i].used < c->used)
                c = &r->carried[i];
        *c = (WbRasterCarry){.px = ctx->out->px, .w = ctx->out->w, .h = ctx->out->h,
                             .stride = ctx->out->stride, .vtx = c->vtx, .cap_vtx = c->cap_vtx,
                             .tuv = c->tuv, .cap_tuv = c->cap_tuv, .used = c->used};
    }
    const size_t tiles = (size_t)tiles_x(r->w) * (size_t)((r->h + TILE_H - 1) / TILE_H);
    if (!grow((void **)&c->vtx, &c->cap_vtx, 2 * n_vtx, sizeof *c->vtx) ||
        !grow((void **)&c->tuv, &c->cap_tuv, 2 * n_vtx, sizeof *c->tuv) ||
        !grow((void **)&r->dirty, &r->cap_dirty, tiles, 1)) {
        c->valid = false; /* short of memory: draw everything, remember nothing */
        return;
    }
    ctx->slot = c;
    const WbMesh *m = &r->cmds[0].mesh;
    ctx->carry = c->valid && c->texture == m->texture && c->background == r->background &&
                 c->cols == m->grid_cols && c->rows == m->grid_rows;
}

/* After the frame: the slot's image holds it; remember what it was drawn
 * from (the vertex buffers swap: the next frame writes the slot's old
 * ones).  A frame drawn any other way into a remembered image makes that
 * image's slot forget it. */
static void carry_finish(WbRaster *r, const EndCtx *ctx)
{
    WbRasterCarry *c = ctx->slot;
    if (!c || !ctx->photo) { /* (a NaN/Inf vertex turns the frame off the path) */
        WbRasterCarry *o = carry_slot_of(r, ctx->out);
        if (o)
            o->valid = false;
        return;
    }
#define SWAP(T, a, b) \
    do {              \
        T t_ = (a);   \
        (a) = (b);    \
        (b) = t_;     \
    } while (0)
    SWAP(int32_t *, r->vtx, c->vtx);
    SWAP(size_t, r->cap_vtx, c->cap_vtx);
    SWAP(float *, r->tuv, c->tuv);
    SWAP(size_t, r->cap_tuv, c->cap_tuv);
#undef SWAP
    const WbMesh *m = &r->cmds[0].mesh;
    c->texture = m->texture;
    c->background = r->background;
    c->cols = m->grid_cols;
    c->rows = m->grid_rows;
    c->valid = true;
    c->used = ++r->carry_clock;
}

void wb_raster_carry_over(WbRaster *r, bool on)
{
    r->carry = on;
    for (int i = 0; i < WB_RASTER_CARRY_SLOTS; i++) {
        r->carried[i].px = NULL;
        r->carried[i].valid = false;
    }
}

void wb_raster_damage(const WbRaster *r, WbDamage *d)
{
    if (r->drew_dirty)
        wb_damage_set_tiles(d, TILE_W, TILE_H, tiles_x(r->w), (r->h + TILE_H - 1) / TILE_H,
                            r->dirty);
    else
        d->kind = WB_DAMAGE_ALL;
}

WbStatus wb_raster_end(WbRaster *r, WbPool *pool, WbImage *out, WbError *err)
{
    assert(out->w == r->w && out->h == r->h);
    r->drew_dirty = false;
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
        ctasks += (c->n_chunks + CHUNK_TASK - 1) / CHUNK_TASK;
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
    ctx->photo = photo_path(r, keep) &&
                 grow((void **)&r->tri_aa, &r->cap_tri_aa, (size_t)r->cmds[0].n_tri,
                      sizeof *r->tri_aa);
    carry_setup(r, ctx, n_vtx);
    ctx->groups = ctx->avx2 = false;
#ifdef WB_RASTER_AVX2
    ctx->avx2 = !r->one_at_a_time && wb_cpu_has(WB_CPU_AVX2);
    ctx->groups = ctx->avx2;
    if (ctx->groups)
        compress_table(ctx->compress);
#endif
    ctx->wide = false;
#ifdef WB_TEX_FX16
    ctx->wide = ctx->groups && !r->no_avx512 && wb_tex_sampler_fx16_cpu() &&
                wb_cpu_has(WB_CPU_AVX512DQ);
#endif
    atomic_init(&ctx->uv_moved, false);
    atomic_init(&ctx->next_band, 0);
    wb_pool_run(pool, vtasks, vertex_task, ctx);
    wb_pool_run(pool, ctasks, chunk_task, ctx);
    /* A NaN/Inf vertex leaves a hole whose rim no border cell marks: such a
     * frame takes the general path. */
    for (int k = 0; ctx->photo && k < r->cmds[0].n_chunks; k++)
        if (r->chunks[r->cmds[0].chunk0 + (size_t)k].invalid)
            ctx->photo = false;
    if (ctx->photo)
        band_chunks(r, ctx);
    if (ctx->photo && ctx->carry && !atomic_load_explicit(&ctx->uv_moved, memory_order_relaxed)) {
        mark_moved(r, &r->cmds[0], r->chunks, r->dirty);
        ctx->dirty = r->dirty;
    }
    int threads = wb_pool_threads(pool);
    wb_pool_run(pool, threads < ctx->n_bands ? threads : ctx->n_bands, band_task, ctx);
    carry_finish(r, ctx);
    r->drew_dirty = ctx->dirty != NULL;
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
        free(r->workers[i].flat);
        free(r->workers[i].tiles);
    }
    free(r->workers);
    free(r->cmds);
    free(r->shape_xy);
    free(r->shape_tri);
    free(r->vtx);
    free(r->tuv);
    free(r->kept);
    free(r->chunks);
    free(r->tri_aa);
    for (int i = 0; i < WB_RASTER_CARRY_SLOTS; i++) {
        free(r->carried[i].vtx);
        free(r->carried[i].tuv);
    }
    free(r->dirty);
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

int wb_raster_group_owns_pixels(int lanes, const uint32_t *mask, const int32_t *c0,
                                const int32_t *r0, const int32_t *wx, int W, int H)
{
#ifdef WB_TEX_FX16
    if (lanes == 16 && wb_tex_sampler_fx16_cpu() && wb_cpu_has(WB_CPU_AVX512DQ))
        return own_pixels_once16_a(mask, c0, r0, wx, W, H);
#endif
#ifdef WB_RASTER_AVX2
    if (lanes == 8 && wb_cpu_has(WB_CPU_AVX2))
        return own_pixels_once_a(mask, c0, r0, wx, W, H);
#endif
    (void)lanes, (void)mask, (void)c0, (void)r0, (void)wx, (void)W, (void)H;
    return -1;
}
