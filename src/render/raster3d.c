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
 *               colour and depth samples, resolve to RGBA8.
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
        pixel_span(xlo, xhi, ctx->omin_x, ctx->omax_x, &c0, &c1);
        if (c1 < 0 || c0 >= W || c0 > c1)
            continue;
        int32_t ylo = a->fy < b->fy ? a->fy : b->fy, yhi = a->fy > b->fy ? a->fy : b->fy;
        ylo = c->fy < ylo ? c->fy : ylo;
        yhi = c->fy > yhi ? c->fy : yhi;
        int32_t r0, r1;
        pixel_span(ylo, yhi, ctx->omin_y, ctx->omax_y, &r0, &r1);
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

/* Rasterize one projected triangle into the band. */
static ALWAYS_INLINE void raster_tri(Band *b, const TriCtx *tc, const Corner *k0,
                                     const Corner *k1, const Corner *k2, const int S,
                                     const int mode, const int pass)
{
    const EndCtx *ctx = b->ctx;
    const Corner *K[3] = {k0, k1, k2};
    int64_t area = (int64_t)(k1->fx - k0->fx) * (k2->fy - k0->fy) -
                   (int64_t)(k1->fy - k0->fy) * (k2->fx - k0->fx);
    if (area == 0)
        return;
    if (area < 0) {
        K[1] = k2;
        K[2] = k1;
    }
    int32_t ymin = K[0]->fy, ymax = K[0]->fy, xmin = K[0]->fx, xmax = K[0]->fx;
    for (int i = 1; i < 3; i++) {
        ymin = K[i]->fy < ymin ? K[i]->fy : ymin;
        ymax = K[i]->fy > ymax ? K[i]->fy : ymax;
        xmin = K[i]->fx < xmin ? K[i]->fx : xmin;
        xmax = K[i]->fx > xmax ? K[i]->fx : xmax;
    }
    int32_t r0, r1, c0, c1;
    pixel_span(ymin, ymax, ctx->omin_y, ctx->omax_y, &r0, &r1);
    r0 = r0 < b->y0 ? b->y0 : r0;
    r1 = r1 >= b->y1 ? b->y1 - 1 : r1;
    if (r0 > r1)
        return;
    pixel_span(xmin, xmax, ctx->omin_x, ctx->omax_x, &c0, &c1);
    c0 = c0 < 0 ? 0 : c0;
    c1 = c1 >= b->w ? b->w - 1 : c1;
    if (c0 > c1)
        return;

    const int32_t X0 = c0 * FIX_ONE + FIX_HALF, Y0 = r0 * FIX_ONE + FIX_HALF;
    /* Planes of q and a·q, in px relative to K[0] and the first pixel. */
    float bx = (float)(K[1]->fx - K[0]->fx) * (1.0f / FIX_ONE);
    float by = (float)(K[1]->fy - K[0]->fy) * (1.0f / FIX_ONE);
    float cx = (float)(K[2]->fx - K[0]->fx) * (1.0f / FIX_ONE);
    float cy = (float)(K[2]->fy - K[0]->fy) * (1.0f / FIX_ONE);
    float pax = (float)(K[0]->fx - X0) * (1.0f / FIX_ONE);
    float pay = (float)(K[0]->fy - Y0) * (1.0f / FIX_ONE);
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
#ifdef __SSE2__
    if (S == 4) /* the loop below, lane for lane */
        _mm_storeu_ps(sh.dq, _mm_add_ps(_mm_mul_ps(_mm_set1_ps(pq.gx), _mm_loadu_ps(ctx->sx)),
                                        _mm_mul_ps(_mm_set1_ps(pq.gy), _mm_loadu_ps(ctx->sy))));
    else
#endif
        for (int s = 0; s < S; s++)
            sh.dq[s] = pq.gx * ctx->sx[s] + pq.gy * ctx->sy[s];
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

    const size_t stride = (size_t)b->w * (size_t)S;
    const bool narrow = xmax - xmin <= NARROW_FIX && ymax - ymin <= NARROW_FIX;
#ifdef __SSE2__
    if (narrow && S == 4) {
        /* The general narrow loop below for one vector of samples, with
         * the edge setup in int32 (|dx|, |dy| ≤ 2^14 and the first pixel
         * centre within 2^14 + 2^7 of every corner, so each product is
         * below 2^28.1 and erow below 2^30) and every edge value in a
         * register: the orb's triangles cover 2-3 px rows, so the per
         * triangle and per row work is most of the cost. */
        const __m128 ofx = _mm_loadu_ps(ctx->fx), ofy = _mm_loadu_ps(ctx->fy);
        __m128i ev[3], sxv[3], syv[3];
        for (int k = 0; k < 3; k++) {
            const Corner *p = K[k], *q = K[k == 2 ? 0 : k + 1];
            const int32_t dx = q->fx - p->fx, dy = q->fy - p->fy;
            const int32_t e0 = dx * (Y0 - p->fy) - dy * (X0 - p->fx) - edge_bias(dx, dy);
            sxv[k] = _mm_set1_epi32(-dy * FIX_ONE);
            syv[k] = _mm_set1_epi32(dx * FIX_ONE);
            const __m128 o = _mm_sub_ps(_mm_mul_ps(_mm_set1_ps((float)dx), ofy),
                                        _mm_mul_ps(_mm_set1_ps((float)dy), ofx));
            ev[k] = _mm_add_epi32(_mm_set1_epi32(e0), _mm_cvttps_epi32(o));
        }
        narrow4_loop(b, &sh, ev, sxv, syv, r0, r1, c0, c1, mode, pass);
        return;
    }
#endif
    int64_t erow[3], stepx[3], stepy[3], edx[3], edy[3];
    for (int k = 0; k < 3; k++) {
        const Corner *p = K[k], *q = K[k == 2 ? 0 : k + 1];
        int64_t dx = (int64_t)q->fx - p->fx, dy = (int64_t)q->fy - p->fy;
        erow[k] = dx * ((int64_t)Y0 - p->fy) - dy * ((int64_t)X0 - p->fx) - edge_bias(dx, dy);
        stepx[k] = -dy * FIX_ONE;
        stepy[k] = dx * FIX_ONE;
        edx[k] = dx;
        edy[k] = dy;
    }

#ifdef __SSE2__
    if (narrow && S >= 4) {
        /* Every edge value the loop meets fits int32 (|E| < 2^30 for a box
         * of at most 64 px), so four samples are tested per instruction
         * and stepped by one add per pixel. */
        /* Sample s of the first pixel: erow + dx·oy[s] − dy·ox[s].  Here
         * |dx|, |dy| ≤ 2^14 and |o| ≤ 2^7, so the products and their
         * difference (< 2^22) are exact in float, four samples at a time;
         * erow, a value inside the box, fits int32 like the sum. */
        __m128i row[3][4], sx4[3], sy4[3];
        for (int k = 0; k < 3; k++) {
            sx4[k] = _mm_set1_epi32((int32_t)stepx[k]);
            sy4[k] = _mm_set1_epi32((int32_t)stepy[k]);
            const __m128 fdx = _mm_set1_ps((float)edx[k]), fdy = _mm_set1_ps((float)edy[k]);
            const __m128i e0 = _mm_set1_epi32((int32_t)erow[k]);
            for (int q = 0; q < S / 4; q++) {
                __m128 o = _mm_sub_ps(_mm_mul_ps(fdx, _mm_loadu_ps(ctx->fy + 4 * q)),
                                      _mm_mul_ps(fdy, _mm_loadu_ps(ctx->fx + 4 * q)));
                row[k][q] = _mm_add_epi32(e0, _mm_cvttps_epi32(o));
            }
        }
        for (int32_t py = r0; py <= r1; py++) {
            /* The resolve reads this row's drawn columns from lo, hi. */
            b->lo[py - b->y0] = c0 < b->lo[py - b->y0] ? c0 : b->lo[py - b->y0];
            b->hi[py - b->y0] = c1 > b->hi[py - b->y0] ? c1 : b->hi[py - b->y0];
            __m128i e[3][4];
            for (int k = 0; k < 3; k++)
                for (int q = 0; q < S / 4; q++) {
                    e[k][q] = row[k][q];
                    row[k][q] = _mm_add_epi32(row[k][q], sy4[k]);
                }
            size_t base = (size_t)(py - b->y0) * stride + (size_t)c0 * (size_t)S;
            uint32_t *cp = b->color + base;
            float *dp = b->depth + base;
            const float dy = (float)(py - r0);
            shade_row(&sh, dy, mode);
            /* Most pixels of a 2-3 px triangle's box are empty: the loop
             * carries only the edge values and the index, and a pixel's
             * addresses are made when some sample is in. */
            const unsigned all = (1u << S) - 1u;
            for (int32_t i = 0; i <= c1 - c0; i++) {
                unsigned neg = 0;
                for (int q = 0; q < S / 4; q++) {
                    __m128i t = _mm_or_si128(_mm_or_si128(e[0][q], e[1][q]), e[2][q]);
                    neg |= (unsigned)_mm_movemask_ps(_mm_castsi128_ps(t)) << (4 * q);
                    e[0][q] = _mm_add_epi32(e[0][q], sx4[0]);
                    e[1][q] = _mm_add_epi32(e[1][q], sx4[1]);
                    e[2][q] = _mm_add_epi32(e[2][q], sx4[2]);
                }
                if (neg != all) {
                    const size_t o = (size_t)i * (size_t)S;
                    shade_pixel(&sh, cp + o, dp + o, ~neg & all, (float)i, dy, S, mode, pass);
                }
            }
        }
        return;
    }
#endif
    (void)narrow;
    int64_t off[3][16];
    for (int k = 0; k < 3; k++)
        for (int s = 0; s < S; s++)
            off[k][s] = edx[k] * ctx->oy[s] - edy[k] * ctx->ox[s];
    /* Wide triangles: edge values need 64 bits, so rather than testing
     * every pixel of the box, each row solves the three edge inequalities
     * for the run of pixels each sample covers.  Sample s of pixel c0 + i
     * is inside edge k iff v + st·i ≥ 0 with v = erow + off[s] and
     * st = stepx, an exact integer inequality whose solution is a
     * half-line in i: i ≥ ⌈−v/st⌉ (st > 0), i ≤ ⌊v/−st⌋ (st < 0), all or
     * nothing (st = 0).  The same pixels get the same masks, in the same
     * order, as a per-pixel test, and pixels no sample covers are skipped. */
    const int32_t n = c1 - c0;
    for (int32_t py = r0; py <= r1; py++) {
        b->lo[py - b->y0] = c0 < b->lo[py - b->y0] ? c0 : b->lo[py - b->y0];
        b->hi[py - b->y0] = c1 > b->hi[py - b->y0] ? c1 : b->hi[py - b->y0];
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
        size_t base = (size_t)(py - b->y0) * stride + (size_t)(c0 + L) * (size_t)S;
        uint32_t *cp = b->color + base;
        float *dp = b->depth + base;
        const float dy = (float)(py - r0);
        shade_row(&sh, dy, mode);
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
            for (int32_t i = L; i <= R; i++, cp += S, dp += S) {
                const __m128i iv = _mm_set1_epi32(i);
                unsigned mask = 0;
                for (int q = 0; q < S / 4; q++) {
                    __m128i in = _mm_and_si128(_mm_cmpgt_epi32(iv, lo4[q]),
                                               _mm_cmpgt_epi32(hi4[q], iv));
                    mask |= (unsigned)_mm_movemask_ps(_mm_castsi128_ps(in)) << (4 * q);
                }
                if (mask)
                    shade_pixel(&sh, cp, dp, mask, (float)i, dy, S, mode, pass);
            }
            continue;
        }
#endif
        for (int32_t i = L; i <= R; i++, cp += S, dp += S) {
            unsigned mask = 0;
            for (int s = 0; s < S; s++)
                mask |= (unsigned)(lo[s] <= i && i <= hi[s]) << s;
            if (mask)
                shade_pixel(&sh, cp, dp, mask, (float)i, dy, S, mode, pass);
        }
    }
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

/* ---- resolve ---------------------------------------------------------------- */

/* Average a pixel's samples in premultiplied space and write straight alpha:
 * c = round(255·Σc/Σa), a = round(Σa/S) (raster.h's resolve).  `same`:
 * every sample is sp[0]. */

/* Resolve w pixels of samples sp to out and, in the same pass while the
 * samples are in registers, make them clean again (colour bg, depth 0):
 * one sweep over the band's samples instead of a resolve then a clear. */
static ALWAYS_INLINE void resolve_clear_row_s(uint32_t *sp, float *dp, int w, const int S,
                                              uint32_t bg, uint8_t *out)
{
#ifdef __SSE2__
    if (S == 4) {
        /* Four opaque samples (every pixel of an opaque mesh on an opaque
         * background): Σa = 4·255, so resolve_px's c = ⌊(255·Σc + 510) /
         * 1020⌋ = ⌊(Σc + 2) / 4⌋ and a = 255, made here for the four
         * channels at once instead of three divisions; any other pixel
         * goes to resolve_px. */
        const __m128i bgv = _mm_set1_epi32((int32_t)bg);
        const __m128 zero = _mm_setzero_ps();
        const __m128i amask = _mm_set1_epi32((int32_t)0xFF000000u), z = _mm_setzero_si128();
        const __m128i two = _mm_set1_epi16(2);
        for (int x = 0; x < w; x++, sp += 4, dp += 4, out += 4) {
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
            _mm_storeu_si128((__m128i *)sp, bgv);
            _mm_storeu_ps(dp, zero);
        }
        return;
    }
    if (S > 4) {
        const __m128i bgv = _mm_set1_epi32((int32_t)bg);
        const __m128 zero = _mm_setzero_ps();
        for (int x = 0; x < w; x++, sp += S, dp += S, out += 4) {
            __m128i v[4];
            const __m128i c0v = _mm_shuffle_epi32(_mm_cvtsi32_si128((int)sp[0]), 0);
            __m128i eq = _mm_set1_epi32(-1);
            for (int q = 0; q < S / 4; q++) {
                v[q] = _mm_loadu_si128((const __m128i *)(sp + 4 * q));
                eq = _mm_and_si128(eq, _mm_cmpeq_epi32(v[q], c0v));
            }
            resolve_px(sp, _mm_movemask_epi8(eq) == 0xFFFF, S, out);
            for (int q = 0; q < S / 4; q++) {
                _mm_storeu_si128((__m128i *)(sp + 4 * q), bgv);
                _mm_storeu_ps(dp + 4 * q, zero);
            }
        }
        return;
    }
#endif
    for (int x = 0; x < w; x++, sp += S, dp += S, out += 4) {
        bool same = true;
        for (int s = 1; s < S; s++)
            same &= sp[s] == sp[0];
        resolve_px(sp, same, S, out);
        for (int s = 0; s < S; s++) {
            sp[s] = bg;
            dp[s] = 0.0f;
        }
    }
}

CLONES static void resolve_clear_row(uint32_t *sp, float *dp, int w, int S, uint32_t bg,
                                     uint8_t *out)
{
    switch (S) {
    case 4: resolve_clear_row_s(sp, dp, w, 4, bg, out); break;
    case 8: resolve_clear_row_s(sp, dp, w, 8, bg, out); break;
    case 16: resolve_clear_row_s(sp, dp, w, 16, bg, out); break;
    default: resolve_clear_row_s(sp, dp, w, 1, bg, out); break;
    }
}

/* n RGBA8 pixels of colour px (an empty image row is mostly this). */
static void fill_px(uint8_t *out, int n, const uint8_t px[4])
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

#ifdef BATCH8
/* fill_px eight pixels per store. */
__attribute__((target("avx2"))) static void fill_px8(uint8_t *out, int n, const uint8_t px[4])
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

/* Fill a worker's whole buffer with the clean state for `bg`. */
static void worker_clear(Worker *wk, size_t n, uint32_t bg)
{
    for (size_t i = 0; i < n; i++)
        wk->color[i] = bg;
    memset(wk->depth, 0, n * sizeof *wk->depth);   /* q = 0: infinitely far */
    for (int y = 0; y < BAND_ROWS; y++) {
        wk->lo[y] = INT32_MAX;
        wk->hi[y] = INT32_MIN;
    }
    wk->clean_bg = bg;
    wk->clean = true;
}

CLONES static void band_task(void *vctx, int task)
{
    EndCtx *ctx = vctx;
    WbRaster3 *r = ctx->r;
    Worker *wk = &r->workers[task];
    const int S = ctx->S;
    const size_t row_n = (size_t)r->w * (size_t)S;
    const uint32_t bg = r->background;
    if (!wk->clean || wk->clean_bg != bg)
        worker_clear(wk, (size_t)BAND_ROWS * row_n, bg);
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
        /* Resolve the drawn spans, paint the rest with the background's
         * pixel, and make the drawn spans clean again. */
        for (int y = b.y0; y < b.y1; y++) {
            int k = y - b.y0;
            uint8_t *out = wb_image_row(ctx->out, y);
            int32_t lo = wk->lo[k], hi = wk->hi[k];
            if (lo > hi)
                lo = r->w, hi = r->w - 1;
#ifdef BATCH8
            if (ctx->batch8) {
                fill_px8(out, lo, ctx->bg_px);
                fill_px8(out + 4 * (hi + 1), r->w - (hi + 1), ctx->bg_px);
            } else
#endif
            {
                fill_px(out, lo, ctx->bg_px);
                fill_px(out + 4 * (hi + 1), r->w - (hi + 1), ctx->bg_px);
            }
            if (lo > hi)
                continue;
            uint32_t *cp = wk->color + (size_t)k * row_n + (size_t)lo * (size_t)S;
            float *dp = wk->depth + (size_t)k * row_n + (size_t)lo * (size_t)S;
            resolve_clear_row(cp, dp, hi - lo + 1, S, bg, out + 4 * lo);
            wk->lo[k] = INT32_MAX;
            wk->hi[k] = INT32_MIN;
        }
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
    for (int i = 0; i < r->n_workers; i++) {
        free(r->workers[i].color);
        free(r->workers[i].depth);
    }
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
    Worker *w = realloc(r->workers, (size_t)n * sizeof *w);
    if (!w)
        return wb_error_set(err, WB_E_IO, "out of memory for render workers");
    r->workers = w;
    size_t cnt = (size_t)BAND_ROWS * (size_t)r->w * (size_t)r->S;
    for (int i = r->n_workers; i < n; i++) {
        w[i].color = malloc(cnt * sizeof *w[i].color);
        w[i].depth = malloc(cnt * sizeof *w[i].depth);
        if (!w[i].color || !w[i].depth) {
            free(w[i].color);
            free(w[i].depth);
            return wb_error_set(err, WB_E_IO, "out of memory for render band buffers");
        }
        w[i].clean = false;
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
    Pattern pat;
    wb_raster_pattern_init(&pat, r->S);
    ctx->omin_x = pat.omin_x;
    ctx->omax_x = pat.omax_x;
    ctx->omin_y = pat.omin_y;
    ctx->omax_y = pat.omax_y;
    for (int s = 0; s < r->S; s++) {
        ctx->ox[s] = pat.ox[s];
        ctx->oy[s] = pat.oy[s];
        ctx->fx[s] = (float)pat.ox[s];
        ctx->fy[s] = (float)pat.oy[s];
        ctx->sx[s] = (float)(pat.ox[s] / 16) / 16.0f;
        ctx->sy[s] = (float)(pat.oy[s] / 16) / 16.0f;
    }
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
    wb_raster_bands_run(pool, &ctx->bands, ctx->n_bands, band_task, ctx);
    return WB_OK;
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
