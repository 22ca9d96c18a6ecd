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
/* ---- stages 1–3 ------------------------------------------------------------- */

CLONES static void vertex_task(void *vctx, int task)
{
    EndCtx *ctx = vctx;
    WbRaster3 *r = ctx->r;
    const Cmd *cmd = &r->cmds[cmd_for_task(r, task, 0)];
    const WbMesh3 *m = &cmd->m;
    int i0 = (task - cmd->vtask0) * VTX_BLOCK;
    int i1 = i0 + VTX_BLOCK < m->n_vertices ? i0 + VTX_BLOCK : m->n_vertices;
    Vtx *out = r->vtx + cmd->v_off;
    const double *M = r->m;
    const double hw = 0.5 * r->w, hh = 0.5 * r->h;
    const float gx = (float)r->gx, gy = (float)r->gy;
#ifdef __SSE2__
    /* Columns of rows (0, 1) and (2, 3) side by side: each lane the
     * scalar line's operations in its order, ((m0·x + m1·y) + m2·z) + m3. */
    __m128d ca[4], cb[4];
    for (int j = 0; j < 4; j++) {
        ca[j] = _mm_setr_pd(M[j], M[4 + j]);
        cb[j] = _mm_setr_pd(M[8 + j], M[12 + j]);
    }
    const __m128d one = _mm_set1_pd(1.0), half = _mm_setr_pd(hw, hh);
#endif
    for (int i = i0; i < i1; i++) {
        const float *p = m->pos + 3 * (size_t)i;
        Vtx *v = &out[i];
#ifdef __SSE2__
        {
            const __m128d x = _mm_set1_pd(p[0]), y = _mm_set1_pd(p[1]), z = _mm_set1_pd(p[2]);
            const __m128d a = _mm_add_pd(_mm_add_pd(_mm_add_pd(_mm_mul_pd(ca[0], x),
                                                               _mm_mul_pd(ca[1], y)),
                                                    _mm_mul_pd(ca[2], z)),
                                         ca[3]);
            const __m128d b = _mm_add_pd(_mm_add_pd(_mm_add_pd(_mm_mul_pd(cb[0], x),
                                                               _mm_mul_pd(cb[1], y)),
                                                    _mm_mul_pd(cb[2], z)),
                                         cb[3]);
            _mm_storeu_ps(v->c, _mm_movelh_ps(_mm_cvtpd_ps(a), _mm_cvtpd_ps(b)));
        }
#else
        for (int k = 0; k < 4; k++)
            v->c[k] = (float)(M[4 * k] * p[0] + M[4 * k + 1] * p[1] + M[4 * k + 2] * p[2] +
                              M[4 * k + 3]);
#endif
        float x = v->c[0], y = v->c[1], z = v->c[2], w = v->c[3];
        if (!isfinite(x) || !isfinite(y) || !isfinite(z) || !isfinite(w)) {
            v->out = OUT_BAD;
            continue;
        }
        uint32_t oc = 0;
        oc |= z + w < 0.0f ? OUT_NEAR : 0u;
        oc |= x + gx * w < 0.0f ? OUT_LEFT : 0u;
        oc |= gx * w - x < 0.0f ? OUT_RIGHT : 0u;
        oc |= y + gy * w < 0.0f ? OUT_BOTTOM : 0u;
        oc |= gy * w - y < 0.0f ? OUT_TOP : 0u;
        if (!(w > 0.0f))
            oc |= OUT_NEAR;
        v->out = oc;
        if (oc == 0) {
            double iw = 1.0 / (double)w;
#ifdef __SSE2__
            /* fix_round of x and y at once: (1 + x·iw)·hw and (1 + (−y·iw))·hh
             * are the scalar lines' values (IEEE addition commutes and
             * negation is exact); below 2^31 the int32 truncation is the
             * int64 one. */
            const __m128d t = _mm_mul_pd(_mm_setr_pd((double)x, -(double)y), _mm_set1_pd(iw));
            const __m128d pxy = _mm_mul_pd(_mm_add_pd(one, t), half);
            const __m128d bias = _mm_set1_pd(1073741824.0);
            const __m128i f = _mm_cvttpd_epi32(_mm_add_pd(
                _mm_add_pd(_mm_mul_pd(pxy, _mm_set1_pd(FIX_ONE)), _mm_set1_pd(0.5)), bias));
            const __m128i fb = _mm_sub_epi32(f, _mm_set1_epi32(1073741824));
            v->fx = _mm_cvtsi128_si32(fb);
            v->fy = _mm_cvtsi128_si32(_mm_shuffle_epi32(fb, 1));
#else
            v->fx = fix_round(((double)x * iw + 1.0) * hw);
            v->fy = fix_round((1.0 - (double)y * iw) * hh);
#endif
            v->q = (float)iw;
        }
    }
    if (m->paint == WB_PAINT_TEXTURE) {
        /* 256·(texel coordinate − 0.5): what wb_tex_sampler_fx takes. */
        const WbXform2 t = m->to_texel;
        const float usx = t.sx * 256.0f, uox = t.ox * 256.0f - 128.0f;
        const float vsy = t.sy * 256.0f, voy = t.oy * 256.0f - 128.0f;
        float *tuv = r->tuv + 2 * cmd->v_off;
        for (int i = i0; i < i1; i++) {
            tuv[2 * i] = m->uv[2 * i] * usx + uox;
            tuv[2 * i + 1] = m->uv[2 * i + 1] * vsy + voy;
        }
    }
}

/* Setup: which triangles draw at all, which way they face, the rows they
 * may cover.  A triangle needing clipping may reach anywhere: it gets the
 * whole frame (rare: only triangles crossing the near plane or enormous
 * ones). */
CLONES static void setup_task(void *vctx, int task)
{
    EndCtx *ctx = vctx;
    WbRaster3 *r = ctx->r;
    const Cmd *cmd = &r->cmds[cmd_for_task(r, task, 2)];
    const WbMesh3 *m = &cmd->m;
    const Vtx *vtx = r->vtx + cmd->v_off;
    int t0 = (task - cmd->stask0) * TRI_BLOCK;
    int t1 = t0 + TRI_BLOCK < m->n_triangles ? t0 + TRI_BLOCK : m->n_triangles;
    TriInfo *info = r->tinfo + cmd->t_off;
    const uint32_t nv = (uint32_t)m->n_vertices;
    const bool cull = m->cull_back;
    const int32_t W = r->w, Hm = r->h - 1;
    for (int t = t0; t < t1; t++) {
        const uint32_t *f = m->indices + 3 * (size_t)t;
        TriInfo *ti = &info[t];
        ti->r0 = 1;
        ti->r1 = 0;
        ti->flags = 0;
        if (f[0] >= nv || f[1] >= nv || f[2] >= nv)
            continue;
        const Vtx *a = &vtx[f[0]], *b = &vtx[f[1]], *c = &vtx[f[2]];
        uint32_t oa = a->out, ob = b->out, oc = c->out;
        if (((oa | ob | oc) & OUT_BAD) || (oa & ob & oc))
            continue;
        /* Facing from det[x y w] (see the design note). */
        double det = (double)a->c[0] * ((double)b->c[1] * c->c[3] - (double)b->c[3] * c->c[1]) -
                     (double)a->c[1] * ((double)b->c[0] * c->c[3] - (double)b->c[3] * c->c[0]) +
                     (double)a->c[3] * ((double)b->c[0] * c->c[1] - (double)b->c[1] * c->c[0]);
        bool back = det < 0.0;
        if (back && cull)
            continue;
        ti->flags = back ? TRI_BACK : 0u;
        if (oa | ob | oc) {
            ti->flags |= TRI_CLIP;
            ti->r0 = 0;
            ti->r1 = Hm;
            continue;
        }
        int64_t area = (int64_t)(b->fx - a->fx) * (c->fy - a->fy) -
                       (int64_t)(b->fy - a->fy) * (c->fx - a->fx);
        if (area == 0)
            continue;
        int32_t xlo = a->fx < b->fx ? a->fx : b->fx, xhi = a->fx > b->fx ? a->fx : b->fx;
        xlo = c->fx < xlo ? c->fx : xlo;
        xhi = c->fx > xhi ? c->fx : xhi;
        int32_t c0, c1;
        pixel_span(xlo, xhi, ctx->pat.omin_x, ctx->pat.omax_x, &c0, &c1);
        if (c1 < 0 || c0 >= W || c0 > c1)
            continue;
        int32_t ylo = a->fy < b->fy ? a->fy : b->fy, yhi = a->fy > b->fy ? a->fy : b->fy;
        ylo = c->fy < ylo ? c->fy : ylo;
        yhi = c->fy > yhi ? c->fy : yhi;
        int32_t r0, r1;
        pixel_span(ylo, yhi, ctx->pat.omin_y, ctx->pat.omax_y, &r0, &r1);
        r0 = r0 < 0 ? 0 : r0;
        r1 = r1 > Hm ? Hm : r1;
        ti->r0 = r0;
        ti->r1 = r1;
    }
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

/* ---- triangle drawing ------------------------------------------------------- */

/* Facing and clipping.
 *
 * Facing.  det[x y w] of the three clip-space vertices is the orientation
 * of the triangle seen from the eye (it is the triple product of the three
 * eye-relative points, up to the positive factors of the projection), so
 * det > 0 ⇔ counter-clockwise on screen ⇔ front, even for triangles that
 * cross the near plane.
 *
 * Clipping.  A triangle with a vertex outside the near plane (z < −w) or
 * the guard band (|x| > gx·w, |y| > gy·w, i.e. more than GUARD_PX pixels
 * from the image centre) is clipped in homogeneous space, where clip
 * coordinates and attributes are linear, by Sutherland–Hodgman against
 * those five planes; the convex polygon is drawn as a fan.  An edge is
 * always cut from its inside end toward its outside end, so the two
 * triangles sharing an edge compute the same cut point bit for bit and
 * the clipped mesh stays watertight.  Inside the guard band every
 * fixed-point coordinate is below 2^20 px, so the 64-bit edge functions
 * are exact.
 */

/* Rasterize one projected triangle into the band: its shading set up
 * once, then the core's walk with shade_pixel at each covered pixel. */
static ALWAYS_INLINE void raster_tri(Band *b, const TriCtx *tc, const Corner *k0,
                                     const Corner *k1, const Corner *k2, const int S,
                                     const int mode, const int pass)
{
    const EndCtx *ctx = b->ctx;
    TriBox t;
    bool swapped;
    if (!tri_box(&t, (const int32_t[3]){k0->fx, k1->fx, k2->fx},
                 (const int32_t[3]){k0->fy, k1->fy, k2->fy}, &ctx->pat, 0, b->w - 1, b->y0,
                 b->y1 - 1, &swapped))
        return;
    const Corner *K[3] = {k0, swapped ? k2 : k1, swapped ? k1 : k2};
    /* Planes of q and a·q, in px relative to K[0] and the first pixel. */
    float bx = (float)(K[1]->fx - K[0]->fx) * (1.0f / FIX_ONE);
    float by = (float)(K[1]->fy - K[0]->fy) * (1.0f / FIX_ONE);
    float cx = (float)(K[2]->fx - K[0]->fx) * (1.0f / FIX_ONE);
    float cy = (float)(K[2]->fy - K[0]->fy) * (1.0f / FIX_ONE);
    float pax = (float)(K[0]->fx - t.X0) * (1.0f / FIX_ONE);
    float pay = (float)(K[0]->fy - t.Y0) * (1.0f / FIX_ONE);
    float inv = 1.0f / (bx * cy - by * cx);
    Plane pq = plane(K[0]->q, K[1]->q, K[2]->q, bx, by, cx, cy, inv, pax, pay);
    float qmin = K[0]->q < K[1]->q ? K[0]->q : K[1]->q;
    qmin = K[2]->q < qmin ? K[2]->q : qmin;
    const float qfloor = 0.5f * qmin;
    const int NA = mode == MODE_RGBA ? 4 : mode == MODE_TEX ? 2 : mode == MODE_TEX_LIT ? 8 : 0;
#ifdef __SSE2__
    const bool vec4 = mode == MODE_RGBA;   /* planes made four at a time below */
#else
    const bool vec4 = false;
#endif
    Plane pa[MAX_ATTR];
    for (int i = 0; i < (vec4 ? 0 : NA); i++)
        pa[i] = plane(K[0]->a[i] * K[0]->q, K[1]->a[i] * K[1]->q, K[2]->a[i] * K[2]->q, bx, by,
                       cx, cy, inv, pax, pay);
    Shade sh;
    sh.pq = pq;
    sh.qfloor = qfloor;
    for (int i = 0; i < (vec4 ? 0 : NA); i++)
        sh.pa[i] = pa[i];
    const Pattern *pat = &ctx->pat;
#ifdef __SSE2__
    if (S == 4) /* the loop below, lane for lane */
        _mm_storeu_ps(sh.dq, _mm_add_ps(_mm_mul_ps(_mm_set1_ps(pq.gx), _mm_loadu_ps(pat->sx)),
                                        _mm_mul_ps(_mm_set1_ps(pq.gy), _mm_loadu_ps(pat->sy))));
    else
#endif
        for (int s = 0; s < S; s++)
            sh.dq[s] = pq.gx * pat->sx[s] + pq.gy * pat->sy[s];
    if (mode == MODE_TEX || mode == MODE_TEX_LIT)
        sh.tex = wb_tex_sampler(tc->cmd->m.texture);
    sh.flat = tc->flat;
    sh.opacity = tc->opacity;
#ifdef __SSE2__
    if (mode == MODE_RGBA)
        rgba_planes(&sh, K[0]->a, K[1]->a, K[2]->a, K[0]->q, K[1]->q, K[2]->q, bx, by, cx, cy,
                    inv, pax, pay);
    if (mode == MODE_TEX_LIT) {
        sh.po = _mm_setr_ps(pa[2].o, pa[3].o, pa[4].o, pa[0].o);
        sh.pgx = _mm_setr_ps(pa[2].gx, pa[3].gx, pa[4].gx, pa[0].gx);
        sh.pgy = _mm_setr_ps(pa[2].gy, pa[3].gy, pa[4].gy, pa[0].gy);
        sh.po2 = _mm_setr_ps(pa[5].o, pa[6].o, pa[7].o, pa[1].o);
        sh.pgx2 = _mm_setr_ps(pa[5].gx, pa[6].gx, pa[7].gx, pa[1].gx);
        sh.pgy2 = _mm_setr_ps(pa[5].gy, pa[6].gy, pa[7].gy, pa[1].gy);
    }
#endif
    Walk3 w = walk3(b, &sh);
    tri_walk(&t, pat, b->y0, (size_t)b->w * (size_t)S, &w, walk3_row, walk3_pixel, S, mode,
             pass);
}

/* Clip-space corner of vertex vi (for clipping). */
static ALWAYS_INLINE void clipv_of(const TriCtx *tc, uint32_t vi, int t, bool back, ClipV *o,
                                   const int mode)
{
    const Vtx *v = &tc->vtx[vi];
    for (int k = 0; k < 4; k++)
        o->c[k] = v->c[k];
    corner_attr(tc, vi, t, back, o->a, mode);
}

/* Signed distance of a clip point to clipping plane `pl` (inside ≥ 0). */
static ALWAYS_INLINE float plane_dist(const float c[4], int pl, float gx, float gy)
{
    switch (pl) {
    case 0: return c[2] + c[3];
    case 1: return c[0] + gx * c[3];
    case 2: return gx * c[3] - c[0];
    case 3: return c[1] + gy * c[3];
    default: return gy * c[3] - c[1];
    }
}

/* The cut point of edge in→out on a plane, computed from the inside end so
 * that both triangles sharing the edge get the same bits. */
static void cut(const ClipV *in, const ClipV *out, float din, float dout, ClipV *o, int na)
{
    float t = din / (din - dout);
    for (int k = 0; k < 4; k++)
        o->c[k] = in->c[k] + (out->c[k] - in->c[k]) * t;
    for (int k = 0; k < na; k++)
        o->a[k] = in->a[k] + (out->a[k] - in->a[k]) * t;
}

/* Clip a triangle against the planes in `planes` (outcode bits), then
 * project and draw the fan. */
static ALWAYS_INLINE void clip_and_draw(Band *b, const TriCtx *tc, const uint32_t f[3], int t,
                                        bool back, uint32_t planes, const int S, const int mode,
                                        const int pass)
{
    const WbRaster3 *r = b->ctx->r;
    const int na = mode == MODE_RGBA ? 4 : mode == MODE_TEX ? 2 : mode == MODE_TEX_LIT ? 8 : 0;
    const float gx = (float)r->gx, gy = (float)r->gy;
    ClipV buf[2][MAX_POLY];
    int n = 3;
    for (int i = 0; i < 3; i++)
        clipv_of(tc, f[i], t, back, &buf[0][i], mode);
    int cur = 0;
    for (int pl = 0; pl < 5; pl++) {
        if (!(planes & (1u << pl)))
            continue;
        const ClipV *src = buf[cur];
        ClipV *dst = buf[cur ^ 1];
        int m = 0;
        for (int i = 0; i < n; i++) {
            const ClipV *p = &src[i], *q = &src[(i + 1) % n];
            float dp = plane_dist(p->c, pl, gx, gy), dq = plane_dist(q->c, pl, gx, gy);
            bool pin = dp >= 0.0f, qin = dq >= 0.0f;
            if (pin)
                dst[m++] = *p;
            if (pin != qin && m < MAX_POLY) {
                if (pin)
                    cut(p, q, dp, dq, &dst[m++], na);
                else
                    cut(q, p, dq, dp, &dst[m++], na);
            }
        }
        n = m;
        cur ^= 1;
        if (n < 3)
            return;
    }
    Corner k[MAX_POLY];
    const double hw = 0.5 * r->w, hh = 0.5 * r->h;
    for (int i = 0; i < n; i++) {
        const ClipV *v = &buf[cur][i];
        float w = v->c[3];
        if (!(w > 0.0f))
            return;   /* only reachable through float rounding at the near plane */
        double iw = 1.0 / (double)w;
        double x = ((double)v->c[0] * iw + 1.0) * hw, y = (1.0 - (double)v->c[1] * iw) * hh;
        /* The planes were cut in float: keep within the fixed-point range. */
        x = x < -1048000.0 ? -1048000.0 : x > 1048000.0 ? 1048000.0 : x;
        y = y < -1048000.0 ? -1048000.0 : y > 1048000.0 ? 1048000.0 : y;
        k[i].fx = fix_round(x);
        k[i].fy = fix_round(y);
        k[i].q = (float)iw;
        for (int a = 0; a < na; a++)
            k[i].a[a] = v->a[a];
    }
    for (int i = 1; i + 1 < n; i++)
        raster_tri(b, tc, &k[0], &k[i], &k[i + 1], S, mode, pass);
}

static ALWAYS_INLINE void draw_tri(Band *b, const TriCtx *tc, uint32_t t, uint32_t flags,
                                   const int S, const int mode, const int pass)
{
    const uint32_t *f = tc->cmd->m.indices + 3 * (size_t)t;
    bool back = flags & TRI_BACK;
    if (flags & TRI_CLIP) {
        const Vtx *v = tc->vtx;
        clip_and_draw(b, tc, f, (int)t, back, v[f[0]].out | v[f[1]].out | v[f[2]].out, S, mode,
                      pass);
        return;
    }
    Corner k[3];
    for (int i = 0; i < 3; i++) {
        const Vtx *v = &tc->vtx[f[i]];
        k[i].fx = v->fx;
        k[i].fy = v->fy;
        k[i].q = v->q;
        corner_attr(tc, f[i], (int)t, back, k[i].a, mode);
    }
    raster_tri(b, tc, &k[0], &k[1], &k[2], S, mode, pass);
}

/* The band's run of triangles [i0, i1) of one command. */
static ALWAYS_INLINE void draw_run(Band *b, const TriCtx *tc, const Bin *bins, size_t i0,
                                   size_t i1, const int S, const int mode, const int pass)
{
    for (size_t i = i0; i < i1; i++)
        draw_tri(b, tc, bins[i].tri, bins[i].cmd_flags & 3u, S, mode, pass);
}

/* One function per (samples, paint mode), each with draw_run inlined and
 * those constants folded; the pass (a per-pixel branch the predictor
 * learns at once) stays a parameter.  Separate functions, not copies
 * inlined into band_run: one function that large takes the compiler
 * (above all with the sanitizers) super-linear time and memory. */
typedef void (*RunFn)(Band *b, const TriCtx *tc, const Bin *bins, size_t i0, size_t i1,
                      int pass);

#define RUN_FN(S_, M_)                                                                    \
    CLONES static void run_##S_##_##M_(Band *b, const TriCtx *tc, const Bin *bins, size_t i0,    \
                                size_t i1, int pass)                                      \
    {                                                                                     \
        draw_run(b, tc, bins, i0, i1, S_, M_, pass);                                      \
    }
#define RUN_FNS(S_)                                                                       \
    RUN_FN(S_, MODE_FLAT) RUN_FN(S_, MODE_RGBA) RUN_FN(S_, MODE_TEX) RUN_FN(S_, MODE_TEX_LIT)
RUN_FNS(1)
RUN_FNS(4)
RUN_FNS(8)
RUN_FNS(16)

#define RUN_ROW(S_) {run_##S_##_MODE_FLAT, run_##S_##_MODE_RGBA, run_##S_##_MODE_TEX, \
                     run_##S_##_MODE_TEX_LIT}
/* [samples: 1, 4, 8, 16][mode] */
static const RunFn RUNS[4][4] = {RUN_ROW(1), RUN_ROW(4), RUN_ROW(8), RUN_ROW(16)};

/* The commonest case (an opaque mesh, vertex colours, 4 samples: the jiggle
 * view's) with the pass a constant too, so that the per-pixel depth test
 * and stores carry no test of it; the same code as run_4_MODE_RGBA with
 * pass = PASS_OPAQUE. */
CLONES void wb_raster3d_run_4_rgba_opaque(Band *b, const TriCtx *tc, const Bin *bins, size_t i0,
                                     size_t i1)
{
    draw_run(b, tc, bins, i0, i1, 4, MODE_RGBA, PASS_OPAQUE);
}

static void band_run(Band *b, const Cmd *cmd, const Bin *bins, size_t i0, size_t i1)
{
    const TriCtx tc = tri_ctx(b->ctx->r, cmd);
    const int S = b->ctx->S;
    assert(S == 1 || S == 4 || S == 8 || S == 16);
    int si = S == 1 ? 0 : S == 4 ? 1 : S == 8 ? 2 : 3;
    int mi = cmd->mode == MODE_FLAT ? 0 : cmd->mode == MODE_RGBA ? 1 : cmd->mode == MODE_TEX ? 2 : 3;
    int pass = cmd->pass == PASS_OPAQUE ? PASS_OPAQUE
                                        : cmd->pass == PASS_BLEND ? PASS_BLEND : PASS_TOP;
#ifdef BATCH8
    if (si == 1 && mi == 1 && pass == PASS_OPAQUE && cmd->fold && b->ctx->batch8) {
        wb_raster3d_run_4_rgba_opaque8(b, &tc, bins, i0, i1);
        return;
    }
#endif
    if (si == 1 && mi == 1 && pass == PASS_OPAQUE)
        wb_raster3d_run_4_rgba_opaque(b, &tc, bins, i0, i1);
    else
        RUNS[si][mi](b, &tc, bins, i0, i1, pass);
}

#undef RUN_ROW
#undef RUN_FNS
#undef RUN_FN

CLONES static void band_task(void *vctx, int task)
{
    EndCtx *ctx = vctx;
    WbRaster3 *r = ctx->r;
    DepthBand *wk = &r->workers[task];
    const int S = ctx->S;
    const uint32_t bg = r->background;
    if (!wk->clean || wk->clean_bg != bg)
        wb_depth_band_clear(wk, (size_t)BAND_ROWS * (size_t)r->w * (size_t)S, bg);
    Band b = {.ctx = ctx, .color = wk->color, .depth = wk->depth, .w = r->w, .lo = wk->lo,
              .hi = wk->hi};
    for (int band; (band = band_next(&ctx->bands)) >= 0;) {
        b.y0 = band * BAND_ROWS;
        b.y1 = b.y0 + BAND_ROWS < r->h ? b.y0 + BAND_ROWS : r->h;
        /* Runs of one command among the band's triangles. */
        const Bin *bins = r->bins;
        size_t i = r->bin_start[band], end = r->bin_start[band + 1];
        while (i < end) {
            uint32_t c = bins[i].cmd_flags >> 2;
            size_t j = i + 1;
            while (j < end && bins[j].cmd_flags >> 2 == c)
                j++;
            band_run(&b, &r->cmds[c], bins, i, j);
            i = j;
        }
        depth_band_resolve(wk, b.y0, b.y1, r->w, S, bg, ctx->bg_px, ctx->batch8, ctx->out);
    }
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
#ifdef BATCH8
    ctx->batch8 = wb_cpu_has(WB_CPU_AVX2);
#endif
    if (n_vtx)
        memset(r->used, 0, n_vtx * sizeof *r->used);
    wb_pool_run(pool, vtasks, vertex_task, ctx);
    wb_pool_run(pool, stasks, setup_task, ctx);
    if (!bin_triangles(r, order, ctx->n_bands))
        return wb_error_set(err, WB_E_IO, "out of memory for binning %zu triangles", n_tri);
    wb_pool_run(pool, vtasks, wb_raster3d_light_task, ctx);
    wb_pool_run(pool, ftasks, wb_raster3d_facet_task, ctx);
    return wb_raster_bands_run(pool, &ctx->bands, ctx->n_bands, band_task, ctx, err);
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
