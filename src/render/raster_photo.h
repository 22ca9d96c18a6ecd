/* raster_photo.h — the photo grid path's pieces shared inside src/render:
 * its tiles, the per-cell tests its chunk stage runs, the shading queue
 * (raster_photo.c and its lane kernels), the hooks raster.c's
 * wb_raster_end calls and the vector kernels' entry points.  The path
 * itself is described in raster_photo.c.
 */
#ifndef WB_RASTER_PHOTO_H
#define WB_RASTER_PHOTO_H

#include "render/raster_2d.h"

#define TILE_W 16
#define TILE_H 8
#define TILE_ROWS (WB_RASTER_BAND_ROWS / TILE_H)

static inline int tiles_x(int w)
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
 * order, which is submission order (a cell group queues its pixels in
 * another order only when no two of them are the same pixel), so a pixel
 * two flat triangles cover (a mesh overlapping itself away from its fold)
 * ends up exactly as if each were stored at once. */
#define QUEUE_BATCH 32
/* Room for what a cell group (wb_photo_group) may add at once past a batch:
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

/* ---- the path's entry points (raster_photo.c) ------------------------------- */

/* wb_raster_end's photo hooks, in its order: before the vertex stage,
 * decide whether the frame takes the path (ctx->photo) and set the path up;
 * in the chunk stage, chunk k of the grid (its rows in *ylo, *yhi, its
 * box, moved box and MSAA flags in its Chunk); after the chunk stage, leave
 * the path on a NaN/Inf vertex and bin the chunks to bands. */
void wb_photo_frame_begin(WbRaster *r, EndCtx *ctx, int keep, size_t n_vtx);
void wb_photo_chunk(EndCtx *ctx, const Cmd *cmd, int k, int32_t *ylo, int32_t *yhi);
void wb_photo_frame_chunked(WbRaster *r, EndCtx *ctx);
/* The photo path for one band (see raster_photo.c). */
void wb_photo_band(Band *b, const Cmd *cmd, const Chunk *chunks, const uint8_t *tri_aa,
                   const uint8_t *dirty, uint32_t *flat, uint8_t *tiles, uint32_t bg);
/* After the frame (carrying pixels over, wb_raster_carry_over): remember
 * what the slot's image was drawn from. */
void wb_photo_carry_finish(WbRaster *r, const EndCtx *ctx);

/* ---- the band and the cell groups at each width ------------------------------
 * (raster_photo_band_kernel.inc at 4 and 8 lanes, raster_photo_cells_kernel.inc
 * at 8 and 16; see core/simd.h for the policy). */

void wb_photo_band_w4(Band *b, const Cmd *cmd, const Chunk *chunks, const uint8_t *tri_aa,
                      const uint8_t *dirty, uint32_t *flat, uint8_t *tiles, uint32_t bg);
#if WB_SIMD_WIDE
void wb_photo_band_w8(Band *b, const Cmd *cmd, const Chunk *chunks, const uint8_t *tri_aa,
                      const uint8_t *dirty, uint32_t *flat, uint8_t *tiles, uint32_t bg);
/* The chunk stage's work for eight cells of a grid row (see there). */
bool wb_photo_cells_w8(const int32_t *xy, const int32_t *prev, uint32_t v00, uint32_t v01,
                       uint32_t ci, uint32_t cj, uint32_t cols, uint32_t rows, int32_t fw,
                       int32_t fh, uint8_t *aa, int32_t box[4], int32_t moved[4], bool *any_aa);
/* Flat cells of one grid row, eight or sixteen at a time; false when the
 * group gives up (cell by cell then). */
bool wb_photo_group_w8(Band *b, uint32_t *flat, ShadeQueue *q, const Cmd *cmd,
                       const WbTexSampler *ts, uint32_t v00, uint32_t v01, int n, unsigned d0,
                       unsigned d1);
bool wb_photo_group_w16(Band *b, uint32_t *flat, ShadeQueue *q, const Cmd *cmd,
                        const WbTexSampler *ts, uint32_t v00, uint32_t v01, int n, unsigned d0,
                        unsigned d1);
/* The shading queue sixteen pixels per sample (the 8-lane group's flush
 * with Band.wide). */
void wb_photo_flush_w16(ShadeQueue *q, uint32_t *flat, const WbTexSampler *ts);
/* own_pixels_once on arrays of 8 or 16 lanes. */
int wb_photo_owns_w8(const uint32_t *mask, const int32_t *c0, const int32_t *r0,
                     const int32_t *wx, int W, int H);
int wb_photo_owns_w16(const uint32_t *mask, const int32_t *c0, const int32_t *r0,
                      const int32_t *wx, int W, int H);
#endif

#endif
