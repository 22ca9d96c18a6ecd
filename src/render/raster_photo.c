/* raster_photo.c — the photo grid path: frames whose only draw call is a
 * grid recorded with wb_raster_photo_grid (the unmasked photo view), drawn
 * band by band from raster.c's wb_raster_end through the hooks in
 * raster_photo.h.  This file owns the path's chunk stage, the tiles, the
 * cell walk, the shading queue, the band's resolve and carrying
 * unchanged tiles over; raster_photo_simd.c holds the vector kernels.
 *
 * An opaque-mapped grid mesh drawn alone has a continuous texture map:
 * every triangle touching a pixel shades it from the same map at the same
 * pixel centre, so MSAA changes a pixel only where a VISIBLE edge crosses
 * it.  Inside the mesh no edge is visible; edges
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
 * the same for every thread count.
 */
#include "render/raster_photo.h"

#include <string.h>

#include "core/cpu.h"

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
    *e = dx * (Y0 - p[1]) - dy * (X0 - p[0]) - edge_bias(dx, dy);
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

/* Flat triangles of n consecutive cells v00 + l of one grid row (bit l of
 * d0, d1: see flat_group8), in cell order: up to eight, as a group of
 * eight, else cell by cell. */
static ALWAYS_INLINE void flat_cells8(Band *b, uint32_t *flat, ShadeQueue *q, const Cmd *cmd,
                                      const WbTexSampler *ts, uint32_t v00, uint32_t v01, int n,
                                      unsigned d0, unsigned d1)
{
#ifdef WB_RASTER_AVX2
    if (b->groups && wb_photo_group8(b, flat, q, cmd, ts, v00, v01, n, d0, d1))
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
        if (wb_photo_group16(b, flat, q, cmd, ts, v00, v01, n, d0, d1))
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
void wb_photo_band(Band *b, const Cmd *cmd, const Chunk *chunks, const uint8_t *tri_aa,
                   const uint8_t *dirty, uint32_t *flat, uint8_t *tiles, uint32_t bg)
{
    switch (b->pat->S) {
    case 4: band_photo_s(b, cmd, chunks, tri_aa, dirty, flat, tiles, bg, 4); break;
    case 8: band_photo_s(b, cmd, chunks, tri_aa, dirty, flat, tiles, bg, 8); break;
    default: band_photo_s(b, cmd, chunks, tri_aa, dirty, flat, tiles, bg, 16); break;
    }
}

/* The chunk stage of a photo frame (raster.c's chunk_one): chunk k's
 * rows, widened into *ylo, *yhi, and what the bands need of it: its
 * triangles' MSAA flags, its box, the box of its moved cells before and
 * after their move (carrying over) and whether a vertex is invalid. */
void wb_photo_chunk(EndCtx *ctx, const Cmd *cmd, int k, int32_t *ylo, int32_t *yhi)
{
    WbRaster *r = ctx->r;
    int t0 = k * CHUNK_TRIS, t1 = t0 + CHUNK_TRIS < cmd->n_tri ? t0 + CHUNK_TRIS : cmd->n_tri;
    uint32_t cols = (uint32_t)cmd->mesh.grid_cols, cell = (uint32_t)t0 / 2;
    uint32_t rows = (uint32_t)cmd->mesh.grid_rows;
    uint32_t ci = cell % cols, cj = cell / cols;
    const int32_t *xy = cmd->xy;
    const int32_t *prev = ctx->carry ? ctx->slot->vtx + cmd->vtx_off : NULL;
    int32_t mx0 = INT32_MAX, mx1 = INT32_MIN, my0 = INT32_MAX, my1 = INT32_MIN;
    int32_t xmin = INT32_MAX, xmax = INT32_MIN;
    const int32_t fw = r->w * FIX_ONE, fh = r->h * FIX_ONE; /* the frame, fixed point */
    int32_t ymin = *ylo, ymax = *yhi;
    bool aa = false, invalid = false;
    for (int t = t0; t < t1; t += 2) {
        uint32_t v00 = cj * (cols + 1) + ci, v01 = v00 + cols + 1;
#ifdef WB_RASTER_AVX2
        int32_t cb[4], mb[4];
        bool caa;
        if (ctx->groups && t + 16 <= t1 && ci + 8 <= cols &&
            wb_photo_cells8(xy, prev, v00, v01, ci, cj, cols, rows, fw, fh, r->tri_aa + t, cb, mb,
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
        if (t + 1 < t1) {
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
        chunk_add(xy, NULL, v00, v00 + 1, v01, &ymin, &ymax);
        if (t + 1 < t1)
            chunk_add(xy, NULL, v00 + 1, v01 + 1, v01, &ymin, &ymax);
        /* A cell with an invalid vertex: its AA triangles. */
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
        if (++ci == cols) {
            ci = 0;
            cj++;
        }
    }
    Chunk *chg = &r->chunks[cmd->chunk0 + (size_t)k];
    chg->aa_mask = 0;
    for (int t = t0; aa && t < t1; t++)
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
    *ylo = ymin;
    *yhi = ymax;
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
    return c->photo && c->kind == CMD_MESH && !m->indices && m->paint == WB_PAINT_TEXTURE && !m->alpha &&
           !m->centroid;
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

/* Before the vertex stage: does the frame take the path, and its carrying
 * over and vector kernels (ctx->avx2 is set). */
void wb_photo_frame_begin(WbRaster *r, EndCtx *ctx, int keep, size_t n_vtx)
{
    ctx->photo = photo_path(r, keep) &&
                 grow((void **)&r->tri_aa, &r->cap_tri_aa, (size_t)r->cmds[0].n_tri,
                      sizeof *r->tri_aa);
    carry_setup(r, ctx, n_vtx);
    ctx->groups = ctx->avx2;
#ifdef WB_RASTER_AVX2
    if (ctx->groups)
        wb_photo_compress_table(ctx->compress);
#endif
    ctx->wide = false;
#ifdef WB_TEX_FX16
    ctx->wide = ctx->groups && !r->no_avx512 && wb_tex_sampler_fx16_cpu() &&
                wb_cpu_has(WB_CPU_AVX512DQ);
#endif
}

/* After the chunk stage: a NaN/Inf vertex leaves a hole whose rim no
 * border cell marks, so such a frame takes the general path; else bin the
 * chunks to bands and, carrying over, mark the tiles moved cells reach. */
void wb_photo_frame_chunked(WbRaster *r, EndCtx *ctx)
{
    for (int k = 0; ctx->photo && k < r->cmds[0].n_chunks; k++)
        if (r->chunks[r->cmds[0].chunk0 + (size_t)k].invalid)
            ctx->photo = false;
    if (ctx->photo)
        band_chunks(r, ctx);
    if (ctx->photo && ctx->carry && !atomic_load_explicit(&ctx->uv_moved, memory_order_relaxed)) {
        mark_moved(r, &r->cmds[0], r->chunks, r->dirty);
        ctx->dirty = r->dirty;
    }
}

/* After the frame: the slot's image holds it; remember what it was drawn
 * from (the vertex buffers swap: the next frame writes the slot's old
 * ones).  A frame drawn any other way into a remembered image makes that
 * image's slot forget it. */
void wb_photo_carry_finish(WbRaster *r, const EndCtx *ctx)
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
