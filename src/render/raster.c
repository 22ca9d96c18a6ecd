/* raster.c — see raster.h for the contract and conventions.
 *
 * The 2D recorder: recording, wb_raster_end's vertex and chunk stages, and
 * the general bands.  The triangle loop is raster_2d.h's; fixed point,
 * edges, the top-left rule and the resolve are raster_core.h's; frames of
 * one photo grid go to raster_photo.c.
 *
 * Shapes (polygon, disc, polyline) are triangle sets drawn into a per-band
 * coverage mask first (OR for unions, XOR for the even-odd rule: a fan
 * from vertex 0 covers each sample once per fan triangle containing it, and
 * the parity of that count is exactly even-odd insideness), then blended
 * once through the mask, so overlaps inside one shape never double-blend.
 */
#include "render/raster.h"
#include "render/raster_photo.h"

#include <assert.h>
#include <limits.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "core/cpu.h"

#define VTX_BLOCK 16384                /* vertices per vertex-stage task */
#define CHUNK_TASK 64                  /* chunks per chunk-stage task */
#define DISC_TOLERANCE_PX (1.0f / 64.0f)

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
        /* Carrying pixels over needs every coordinate as last frame (bit
         * for bit: -0 and 0 count as moved, which only costs drawing). */
        if (ctx->carry && memcmp(tuv + 2 * (size_t)i0, ctx->slot->tuv + cmd->vtx_off + 2 * (size_t)i0,
                                 2 * (size_t)(i1 - i0) * sizeof *tuv) != 0)
            atomic_store_explicit(&ctx->uv_moved, true, memory_order_relaxed);
    }
    int i = i0;
#if WB_SIMD_WIDE
    if (ctx->avx2)
        i += wb_raster_to_fixed_w8(m->x + i, m->y + i, t, out + 2 * i, i1 - i);
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

/* Chunk stage: the rows each chunk of triangles may touch, for binning.
 * Chunks of a grid mesh are runs of cells within one or two cell rows, so
 * their boxes stay tight while the mesh is roughly in place.  A photo
 * frame's grid takes the photo module's own stage (wb_photo_chunk). */
static void chunk_one(EndCtx *ctx, Cmd *cmd, int k)
{
    const float *alpha = cmd->kind == CMD_MESH ? cmd->mesh.alpha : NULL;
    int t0 = k * CHUNK_TRIS, t1 = t0 + CHUNK_TRIS < cmd->n_tri ? t0 + CHUNK_TRIS : cmd->n_tri;
    int32_t ymin = INT32_MAX, ymax = INT32_MIN;
    if (cmd->tri) {
        for (int t = t0; t < t1; t++)
            chunk_add(cmd->xy, alpha, cmd->tri[3 * t], cmd->tri[3 * t + 1], cmd->tri[3 * t + 2],
                      &ymin, &ymax);
    } else if (ctx->photo) {
        wb_photo_chunk(ctx, cmd, k, &ymin, &ymax);
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
    Chunk *ch = &ctx->r->chunks[cmd->chunk0 + (size_t)k];
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
    for (int band; (band = band_next(&ctx->bands)) >= 0;) {
        b.y0 = band * WB_RASTER_BAND_ROWS;
        b.y1 = b.y0 + WB_RASTER_BAND_ROWS < r->h ? b.y0 + WB_RASTER_BAND_ROWS : r->h;
        if (ctx->photo) {
            b.k0 = ctx->band_k0[band];
            b.k1 = ctx->band_k1[band];
            /* (Carrying over, only the dirty tiles: the output holds the
             * rest.) */
            wb_photo_band(&b, &r->cmds[0], r->chunks, r->tri_aa, ctx->dirty, wk->flat, wk->tiles,
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
    wb_raster_pattern_init(&ctx->pat, r->samples);
    ctx->n_bands = (r->h + WB_RASTER_BAND_ROWS - 1) / WB_RASTER_BAND_ROWS;
    ctx->keep = keep;
    ctx->avx2 = WB_SIMD_WIDE && !r->one_at_a_time && wb_cpu_lanes() >= 8;
    wb_photo_frame_begin(r, ctx, keep, n_vtx);
    atomic_init(&ctx->uv_moved, false);
    wb_pool_run(pool, vtasks, vertex_task, ctx);
    wb_pool_run(pool, ctasks, chunk_task, ctx);
    wb_photo_frame_chunked(r, ctx);
    st = wb_raster_bands_run(pool, &ctx->bands, ctx->n_bands, band_task, ctx, err);
    wb_photo_carry_finish(r, ctx);
    if (st) { /* stopped: the image is unfinished, keep nothing of it */
        r->kept_valid = false;
        return st;
    }
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
    WbStatus st = wb_raster_check_size(w, h, samples, err);
    if (st != WB_OK)
        return st;
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

void wb_raster_photo_grid(WbRaster *r, const WbMesh *grid)
{
    assert(!grid->indices && grid->paint == WB_PAINT_TEXTURE && !grid->alpha && !grid->centroid);
    wb_raster_mesh(r, grid);
    if (!r->failed)
        r->cmds[r->n_cmds - 1].photo = true;
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
