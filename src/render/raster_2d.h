/* raster_2d.h — the 2D recorder's frame state and triangle loop, shared by
 * raster.c (recording, the vertex and chunk stages, general bands) and the
 * photo grid module (raster_photo.c and its lane kernels).  Internal to
 * src/render.
 *
 * draw_tri is the one 2D triangle loop: every mesh, shape and the photo
 * grid's MSAA tiles go through it, specialised per sample count and
 * shading mode (compile-time constants at each call site).  Per triangle:
 * the bounding box of the samples it may cover (clipped to the band), edge
 * values at the box's first pixel centre, per-pixel steps and per-sample
 * offsets.  Per pixel: S sign tests give the coverage mask; a covered
 * pixel is shaded once from attribute planes set up per triangle.
 */
#ifndef WB_RASTER_2D_H
#define WB_RASTER_2D_H

#include "render/raster.h"
#include "render/raster_core.h"

#include <limits.h>
#include <stdatomic.h>

/* The vertex stage's eight-lane conversion (raster_photo_cells_w8.c, the
 * 2D raster's one other AVX2 kernel): to_fixed of the first n − n % 8
 * vertices; returns how many. */
#if WB_SIMD_WIDE
int wb_raster_to_fixed_w8(const float *x, const float *y, WbXform2 t, int32_t *out, int n);
#endif

#define CHUNK_TRIS 64                  /* triangles per binning chunk (even) */

enum { CMD_MESH, CMD_SHAPE };
enum { MODE_COLOR, MODE_VCOLOR, MODE_TEX, MODE_COVER };

typedef struct WbRasterCmd {
    int kind;
    WbMesh mesh;                 /* CMD_MESH (arrays borrowed) */
    size_t v0, nv, t0, nt;       /* CMD_SHAPE: ranges in the shape arenas */
    bool evenodd;                /* CMD_SHAPE: XOR coverage, else OR */
    bool photo;                  /* CMD_MESH: recorded by wb_raster_photo_grid */
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

/* ---- one band ---------------------------------------------------------- */

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
        const __m128i E = _mm_add_epi32(_mm_madd_epi16(A, B), edge_bias4(DX, DY));
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
    int64_t erow[3], stepx[3], stepy[3], off[3][16];
    int32_t off32[3][16];
    for (int k = 0; k < 3; k++) {
        int k1 = k == 2 ? 0 : k + 1;
        int64_t dx = (int64_t)pos[k1][0] - pos[k][0], dy = (int64_t)pos[k1][1] - pos[k][1];
        erow[k] = dx * ((int64_t)Y0 - pos[k][1]) - dy * ((int64_t)X0 - pos[k][0]) -
                  edge_bias(dx, dy);
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

/* ---- wb_raster_end's state ----------------------------------------------- */

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
    BandQueue bands;
    WbImage *out;
} EndCtx;

#endif
