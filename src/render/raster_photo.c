/* raster_photo.c — the photo grid path: frames whose only draw call is a
 * grid recorded with wb_raster_photo_grid (the unmasked photo view), drawn
 * band by band from raster.c's wb_raster_end through the hooks in
 * raster_photo.h.  This file owns the path's chunk stage, the tiles, the
 * cell walk, the shading queue, the band's resolve and carrying
 * unchanged tiles over; the band itself is raster_photo_band_kernel.inc,
 * the cell groups raster_photo_cells_kernel.inc.
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

/* The photo path for one band, at the width core/cpu.h reports
 * (raster_photo_band_kernel.inc). */
void wb_photo_band(Band *b, const Cmd *cmd, const Chunk *chunks, const uint8_t *tri_aa,
                   const uint8_t *dirty, uint32_t *flat, uint8_t *tiles, uint32_t bg)
{
#if WB_SIMD_WIDE
    if (wb_cpu_lanes() >= 8) {
        wb_photo_band_w8(b, cmd, chunks, tri_aa, dirty, flat, tiles, bg);
        return;
    }
#endif
    wb_photo_band_w4(b, cmd, chunks, tri_aa, dirty, flat, tiles, bg);
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
#if WB_SIMD_WIDE
        int32_t cb[4], mb[4];
        bool caa;
        if (ctx->groups && t + 16 <= t1 && ci + 8 <= cols &&
            wb_photo_cells_w8(xy, prev, v00, v01, ci, cj, cols, rows, fw, fh, r->tri_aa + t, cb,
                              mb, &caa)) {
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

/* Before the vertex stage: does the frame take the path, and its carrying
 * over and vector kernels (ctx->avx2 is set). */
void wb_photo_frame_begin(WbRaster *r, EndCtx *ctx, int keep, size_t n_vtx)
{
    ctx->photo = photo_path(r, keep) &&
                 grow((void **)&r->tri_aa, &r->cap_tri_aa, (size_t)r->cmds[0].n_tri,
                      sizeof *r->tri_aa);
    carry_setup(r, ctx, n_vtx);
    ctx->groups = ctx->avx2;
    if (ctx->groups)
        compress_table(ctx->compress);
    ctx->wide = ctx->groups && !r->no_avx512 && wb_cpu_lanes() >= 16;
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

/* Does no pixel belong to two lanes of a cell group (the tests' view of
 * own_pixels_once); -1 where `lanes` is not a width this CPU runs. */
int wb_raster_group_owns_pixels(int lanes, const uint32_t *mask, const int32_t *c0,
                                const int32_t *r0, const int32_t *wx, int W, int H)
{
#if WB_SIMD_WIDE
    if (lanes == 16 && wb_cpu_lanes() >= 16)
        return wb_photo_owns_w16(mask, c0, r0, wx, W, H);
    if (lanes == 8 && wb_cpu_lanes() >= 8)
        return wb_photo_owns_w8(mask, c0, r0, wx, W, H);
#endif
    (void)lanes, (void)mask, (void)c0, (void)r0, (void)wx, (void)W, (void)H;
    return -1;
}
