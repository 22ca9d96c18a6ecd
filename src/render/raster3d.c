/* raster3d.c — see raster3d.h for the contract and conventions.
 *
 * Design note.
 *
 * Stages of wb_raster3_end, each a loop over fixed index ranges run on the
 * pool (so the bytes never depend on the thread count):
 *
 *   1. vertex   (per block of vertices)   world → clip (float), outcodes
 *               against the near plane and the x/y guard band, fixed-point
 *               pixel position and q = 1/w for vertices inside all of them;
 *               texture coordinates in the sampler's units.
 *   2. setup    (per block of triangles)  validity, facing and culling, the
 *               pixel rows each triangle covers.
 *   3. binning  (serial, cheap)           per band, the list of triangles
 *               that reach it, in draw order: opaque meshes, translucent,
 *               then on_top, each in submission order; marks the vertices
 *               those triangles use.
 *   4. light    (per block of vertices)   Gouraud lighting (front, and back
 *               for two-sided materials) of the marked vertices only;
 *      facet    (per block of triangles)  lighting of meshes without
 *               normals, once per drawn triangle from its face normal.
 *   5. band     (per BAND_ROWS rows)      draw the band's triangles into its
 *               colour and depth samples through the core's triangle walk
 *               (raster_core.h tri_walk, with shade_pixel as its callback),
 *               resolve to RGBA8 and clear (depth_band_resolve).
 *
 * Coverage.  Vertices are int32 in 1/256 px.  For a triangle with
 * positive fixed-point area the edge function of edge p→q,
 *     E(s) = (q.x − p.x)·(s.y − p.y) − (q.y − p.y)·(s.x − p.x),
 * is ≥ 0 on the inner side, with raster_core.h's top-left rule, so a
 * sample exactly on a shared edge belongs to exactly one of its two
 * triangles.  Sample positions are the core's pattern, raster.c's too.
 *
 * Depth and attributes.  q = 1/w, and a·q for every attribute a, are
 * linear in screen space: planes through the three projected vertices.
 * Depth is q at each sample; attributes are (a·q)/q at the pixel centre
 * (perspective-correct), so shading happens once per pixel per triangle.
 */
#include "render/raster3d_internal.h"

/* ---- defaults ------------------------------------------------------------- */

WbLighting wb_lighting_default(void)
{
    WbLighting l = {
        .key = {.dir = {-0.45f, 0.75f, 0.55f}, .color = {0.95f, 0.88f, 0.78f}},
        .fill = {.dir = {0.7f, 0.15f, 0.35f}, .color = {0.22f, 0.27f, 0.36f}},
        .sky = {0.30f, 0.33f, 0.38f},
        .ground = {0.14f, 0.12f, 0.11f},
    };
    return l;
}

WbMaterial wb_material_default(void)
{
    WbMaterial m = {
        .diffuse = 0.85f,
        .specular = 0.15f,
        .shininess = 32.0f,
        .sheen = 0.0f,
        .sheen_color = {1.0f, 1.0f, 1.0f},
        .two_sided = false,
        .back_tint = {1.0f, 1.0f, 1.0f},
        .unlit = false,
    };
    return m;
}
/* Binning: per band, its triangles in draw order (serial: a few
 * operations per visible triangle).  false when out of memory. */
static bool bin_triangles(WbRaster3 *r, const int *order, int n_bands)
{
    if (!grow((void **)&r->bin_start, &r->cap_bin_start, (size_t)n_bands + 1, sizeof *r->bin_start))
        return false;
    size_t *start = r->bin_start;
    memset(start, 0, ((size_t)n_bands + 1) * sizeof *start);
    for (int i = 0; i < r->n_cmds; i++) {
        const Cmd *c = &r->cmds[order[i]];
        const TriInfo *ti = r->tinfo + c->t_off;
        const bool mark = (c->lit && !c->facet) || c->fold;
        uint8_t *used = r->used + c->v_off;
        for (int t = 0; t < c->m.n_triangles; t++)
            if (ti[t].r0 <= ti[t].r1) {
                for (int bnd = ti[t].r0 / BAND_ROWS; bnd <= ti[t].r1 / BAND_ROWS; bnd++)
                    start[bnd + 1]++;
                if (mark) {
                    const uint32_t *f = c->m.indices + 3 * (size_t)t;
                    used[f[0]] = used[f[1]] = used[f[2]] = 1;
                }
            }
    }
    for (int bnd = 0; bnd < n_bands; bnd++)
        start[bnd + 1] += start[bnd];
    if (!grow((void **)&r->bins, &r->cap_bins, start[n_bands] + 1, sizeof *r->bins))
        return false;
    /* Fill, using start[] as cursors shifted down by one band, then shift
     * back. */
    for (int i = 0; i < r->n_cmds; i++) {
        const Cmd *c = &r->cmds[order[i]];
        const TriInfo *ti = r->tinfo + c->t_off;
        const uint32_t tag = (uint32_t)order[i] << 2;
        for (int t = 0; t < c->m.n_triangles; t++)
            if (ti[t].r0 <= ti[t].r1)
                for (int bnd = ti[t].r0 / BAND_ROWS; bnd <= ti[t].r1 / BAND_ROWS; bnd++)
                    r->bins[start[bnd]++] = (Bin){(uint32_t)t, tag | ti[t].flags};
    }
    for (int bnd = n_bands; bnd > 0; bnd--)
        start[bnd] = start[bnd - 1];
    start[0] = 0;
    return true;
}

/* ---- the stages at the width core/cpu.h reports (raster3d_kernel.inc) ------ */

typedef struct Stages {
    void (*vertex)(void *, int), (*setup)(void *, int), (*light)(void *, int),
        (*band)(void *, int);
} Stages;

static Stages stages(void)
{
#if WB_SIMD_WIDE
    if (wb_cpu_lanes() >= 16) /* lighting has no 16-lane form: its 8-lane one */
        return (Stages){wb_raster3d_vertex_task_w16, wb_raster3d_setup_task_w16,
                        wb_raster3d_light_task_w8, wb_raster3d_band_task_w16};
    if (wb_cpu_lanes() >= 8)
        return (Stages){wb_raster3d_vertex_task_w8, wb_raster3d_setup_task_w8,
                        wb_raster3d_light_task_w8, wb_raster3d_band_task_w8};
#endif
    return (Stages){wb_raster3d_vertex_task_w4, wb_raster3d_setup_task_w4,
                    wb_raster3d_light_task_w4, wb_raster3d_band_task_w4};
}

/* ---- public API ------------------------------------------------------------- */

WbStatus wb_raster3_create(WbRaster3 **out, int w, int h, int samples, WbError *err)
{
    *out = NULL;
    WbStatus st = wb_raster_check_size(w, h, samples, err);
    if (st != WB_OK)
        return st;
    WbRaster3 *r = calloc(1, sizeof *r);
    if (!r)
        return wb_error_set(err, WB_E_IO, "out of memory for the 3D renderer");
    r->w = w;
    r->h = h;
    r->S = samples;
    r->gx = 2.0 * GUARD_PX / w;
    r->gy = 2.0 * GUARD_PX / h;
    WbCamera cam = wb_camera_orbit((const double[3]){0.0, 0.0, 0.0}, 0.0, 0.0, 1.0);
    wb_raster3_begin(r, &cam, NULL, 0);
    *out = r;
    return WB_OK;
}

void wb_raster3_destroy(WbRaster3 *r)
{
    if (!r)
        return;
    for (int i = 0; i < r->n_workers; i++)
        wb_depth_band_free(&r->workers[i]);
    free(r->workers);
    free(r->cmds);
    free(r->vtx);
    free(r->tuv);
    free(r->lit);
    free(r->attr);
    free(r->tinfo);
    free(r->used);
    free(r->bins);
    free(r->bin_start);
    free(r->order);
    free(r);
}

void wb_raster3_begin(WbRaster3 *r, const WbCamera *cam, const WbLighting *light,
                      uint32_t background)
{
    r->cam = *cam;
    r->light = light ? *light : wb_lighting_default();
    normalize3f(r->light.key.dir);
    normalize3f(r->light.fill.dir);
    r->background = background;
    wb_camera_matrix(&r->cam, (double)r->w / (double)r->h, r->m);
    r->n_cmds = 0;
    r->failed = false;
}

void wb_raster3_mesh(WbRaster3 *r, const WbMesh3 *m)
{
    assert(m->n_vertices >= 0 && m->n_triangles >= 0);
    assert(m->n_triangles == 0 || (m->pos && m->indices));
    assert(m->paint != WB_PAINT_TEXTURE || (m->texture && m->uv));
    assert(m->paint != WB_PAINT_VERTEX_COLOR || m->rgba);
    if (r->failed || !(m->opacity > 0.0f) || m->n_triangles <= 0 || m->n_vertices <= 0)
        return;
    size_t cap = (size_t)r->cap_cmds;
    if (!grow((void **)&r->cmds, &cap, (size_t)r->n_cmds + 1, sizeof *r->cmds)) {
        r->failed = true;
        return;
    }
    r->cap_cmds = (int)cap;
    Cmd *c = &r->cmds[r->n_cmds++];
    memset(c, 0, sizeof *c);
    c->m = *m;
    c->pass = m->on_top ? PASS_TOP : m->opacity < 1.0f ? PASS_BLEND : PASS_OPAQUE;
    c->lit = !m->material.unlit;
    c->facet = c->lit && !m->normal;
    c->lit_stride = !c->lit ? 0 : m->material.two_sided ? 12 : 6;
    c->fold_sides = c->lit_stride == 12 ? 2 : 1;
    if (m->paint == WB_PAINT_TEXTURE)
        c->mode = c->lit ? MODE_TEX_LIT : MODE_TEX;
    else if (m->paint == WB_PAINT_VERTEX_COLOR || c->lit)
        c->mode = MODE_RGBA;
    else
        c->mode = MODE_FLAT;
    c->fold = c->mode == MODE_RGBA && !c->facet;
}

static WbStatus ensure_workers(WbRaster3 *r, int n, WbError *err)
{
    if (r->n_workers >= n)
        return WB_OK;
    DepthBand *w = realloc(r->workers, (size_t)n * sizeof *w);
    if (!w)
        return wb_error_set(err, WB_E_IO, "out of memory for render workers");
    r->workers = w;
    size_t cnt = (size_t)BAND_ROWS * (size_t)r->w * (size_t)r->S;
    for (int i = r->n_workers; i < n; i++) {
        if (!wb_depth_band_alloc(&w[i], cnt))
            return wb_error_set(err, WB_E_IO, "out of memory for render band buffers");
        r->n_workers = i + 1;
    }
    return WB_OK;
}

WbStatus wb_raster3_end(WbRaster3 *r, WbPool *pool, WbImage *out, WbError *err)
{
    assert(out->w == r->w && out->h == r->h);
    if (r->failed)
        return wb_error_set(err, WB_E_IO, "out of memory while recording 3D meshes");
    size_t n_vtx = 0, n_lit = 0, n_tri = 0, n_attr = 0;
    int vtasks = 0, ftasks = 0, stasks = 0;
    for (int i = 0; i < r->n_cmds; i++) {
        Cmd *c = &r->cmds[i];
        const WbMesh3 *m = &c->m;
        c->v_off = n_vtx;
        n_vtx += (size_t)m->n_vertices;
        c->l_off = n_lit;
        if (!c->fold)
            n_lit += (size_t)c->lit_stride * (size_t)(c->facet ? m->n_triangles : m->n_vertices);
        c->a_off = n_attr;
        n_attr += c->fold ? 4 * (size_t)c->fold_sides * (size_t)m->n_vertices : 0;
        c->t_off = n_tri;
        n_tri += (size_t)m->n_triangles;
        c->vtask0 = vtasks;
        vtasks += (m->n_vertices + VTX_BLOCK - 1) / VTX_BLOCK;
        c->ftask0 = ftasks;
        ftasks += c->facet ? (m->n_triangles + TRI_BLOCK - 1) / TRI_BLOCK : 0;
        c->stask0 = stasks;
        stasks += (m->n_triangles + TRI_BLOCK - 1) / TRI_BLOCK;
    }
    if (!grow((void **)&r->order, &r->cap_order, (size_t)r->n_cmds + 1, sizeof *r->order) ||
        !grow((void **)&r->vtx, &r->cap_vtx, n_vtx, sizeof *r->vtx) ||
        !grow((void **)&r->tuv, &r->cap_tuv, 2 * n_vtx, sizeof *r->tuv) ||
        !grow((void **)&r->lit, &r->cap_lit, n_lit, sizeof *r->lit) ||
        !grow((void **)&r->attr, &r->cap_attr, n_attr, sizeof *r->attr) ||
        !grow((void **)&r->tinfo, &r->cap_tinfo, n_tri, sizeof *r->tinfo) ||
        !grow((void **)&r->used, &r->cap_used, n_vtx, sizeof *r->used))
        return wb_error_set(err, WB_E_IO, "out of memory for %zu 3D vertices", n_vtx);
    WbStatus st = ensure_workers(r, wb_pool_threads(pool), err);
    if (st != WB_OK)
        return st;
    /* Draw order: opaque, translucent, on_top; submission order within. */
    int *order = r->order, n = 0;
    for (int pass = 0; pass < N_PASSES; pass++)
        for (int i = 0; i < r->n_cmds; i++)
            if (r->cmds[i].pass == pass)
                order[n++] = i;

    EndCtx ectx = {.r = r, .S = r->S, .out = out};
    EndCtx *ctx = &ectx;
    wb_raster_pattern_init(&ctx->pat, r->S);
    {
        uint32_t bgs[16];
        for (int s = 0; s < r->S; s++)
            bgs[s] = r->background;
        resolve_px(bgs, true, r->S, ctx->bg_px);
    }
    ctx->n_bands = (r->h + BAND_ROWS - 1) / BAND_ROWS;
    if (n_vtx)
        memset(r->used, 0, n_vtx * sizeof *r->used);
    const Stages run = stages();
    wb_pool_run(pool, vtasks, run.vertex, ctx);
    wb_pool_run(pool, stasks, run.setup, ctx);
    if (!bin_triangles(r, order, ctx->n_bands))
        return wb_error_set(err, WB_E_IO, "out of memory for binning %zu triangles", n_tri);
    wb_pool_run(pool, vtasks, run.light, ctx);
    wb_pool_run(pool, ftasks, wb_raster3d_facet_task, ctx);
    return wb_raster_bands_run(pool, &ctx->bands, ctx->n_bands, run.band, ctx, err);
}

bool wb_raster3_project(const WbRaster3 *r, const double p[3], float px[2], float *depth)
{
    const double *M = r->m;
    double c[4];
    for (int k = 0; k < 4; k++)
        c[k] = M[4 * k] * p[0] + M[4 * k + 1] * p[1] + M[4 * k + 2] * p[2] + M[4 * k + 3];
    if (!(c[3] > 0.0) || !(c[2] + c[3] >= 0.0) || !isfinite(c[0]) || !isfinite(c[1]))
        return false;
    px[0] = (float)((c[0] / c[3] + 1.0) * 0.5 * r->w);
    px[1] = (float)((1.0 - c[1] / c[3]) * 0.5 * r->h);
    *depth = (float)c[3];
    return true;
}
