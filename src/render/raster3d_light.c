/* raster3d_light.c — stage 4 of wb_raster3_end: Gouraud lighting of the
 * drawn vertices (light_task, with an AVX2 eight-vertex version for fold
 * commands) and of meshes without normals (facet_task). */
#include "render/raster3d_internal.h"

/* ---- lighting --------------------------------------------------------------- */

/* Colour and lighting.
 *
 * Lighting is split into a multiplier of the base colour and an
 * additive highlight, out = base·mul + add·base_alpha (premultiplied), so a
 * texture can be lit per pixel from interpolated (mul, add); a single
 * colour or vertex colours are folded with the lighting at the vertices
 * (classic Gouraud) and only the result is interpolated.
 *
 * The vertex stage lights each vertex once per frame in straight colour,
 * then premultiplies: hemisphere ambient (ground → sky blended by
 * (n·up + 1)/2), Lambert diffuse and Blinn–Phong specular from the key and
 * fill lights (half vector with the direction to the eye), fabric sheen
 * sheen·(1 − |n·v|)^5 · sheen_color.  Specular and sheen are added on top
 * of the lit base colour, scaled by the base alpha, so a transparent texel
 * stays transparent.
 */

/* Light one point with unit normal n (toward the viewer's side for the face
 * being lit) at p: out = mul rgb, add rgb. */
static ALWAYS_INLINE void light_point(const WbRaster3 *r, const WbMaterial *mat, const float n[3],
                        const float p[3], const float tint[3], float out[6])
{
    const WbLighting *L = &r->light;
    float v[3] = {(float)(r->cam.eye[0] - p[0]), (float)(r->cam.eye[1] - p[1]),
                  (float)(r->cam.eye[2] - p[2])};
    normalize3f(v);
    float t = 0.5f * (n[1] + 1.0f);
    float mul[3], add[3] = {0.0f, 0.0f, 0.0f};
    for (int k = 0; k < 3; k++)
        mul[k] = L->ground[k] + (L->sky[k] - L->ground[k]) * t;
    const WbLight *ls[2] = {&L->key, &L->fill};
    for (int i = 0; i < 2; i++) {
        const float *l = ls[i]->dir;
        float ndl = n[0] * l[0] + n[1] * l[1] + n[2] * l[2];
        if (!(ndl > 0.0f))
            continue;
        float dif = mat->diffuse * ndl;
        float spec = 0.0f;
        if (mat->specular > 0.0f) {
            float h[3] = {l[0] + v[0], l[1] + v[1], l[2] + v[2]};
            normalize3f(h);
            float ndh = n[0] * h[0] + n[1] * h[1] + n[2] * h[2];
            if (ndh > 0.0f)
                spec = mat->specular * powf(ndh, mat->shininess >= 1.0f ? mat->shininess : 1.0f);
        }
        for (int k = 0; k < 3; k++) {
            mul[k] += dif * ls[i]->color[k];
            add[k] += spec * ls[i]->color[k];
        }
    }
    if (mat->sheen > 0.0f) {
        float ndv = fabsf(n[0] * v[0] + n[1] * v[1] + n[2] * v[2]);
        float g = 1.0f - (ndv < 1.0f ? ndv : 1.0f), g2 = g * g;
        float s = mat->sheen * g2 * g2 * g;
        for (int k = 0; k < 3; k++)
            add[k] += s * mat->sheen_color[k];
    }
    for (int k = 0; k < 3; k++) {
        out[k] = mul[k] * tint[k];
        out[3 + k] = add[k];
    }
}

/* Front (and for two-sided materials back) lighting records at p. */
static void light_record(const WbRaster3 *r, const Cmd *cmd, const float n_in[3],
                         const float p[3], float *out)
{
    static const float white[3] = {1.0f, 1.0f, 1.0f};
    const WbMaterial *mat = &cmd->m.material;
    float n[3] = {n_in[0], n_in[1], n_in[2]};
    normalize3f(n);
    if (n[0] == 0.0f && n[1] == 0.0f && n[2] == 0.0f)
        n[1] = 1.0f;
    light_point(r, mat, n, p, white, out);
    if (cmd->lit_stride == 12) {
        float nb[3] = {-n[0], -n[1], -n[2]};
        light_point(r, mat, nb, p, mat->back_tint, out + 6);
    }
}

/* Lighting of meshes without normals: one record per triangle, from its
 * face normal (counter-clockwise = front) at its centroid. */
void wb_raster3d_facet_task(void *vctx, int task)
{
    EndCtx *ctx = vctx;
    WbRaster3 *r = ctx->r;
    const Cmd *cmd = &r->cmds[cmd_for_task(r, task, 1)];
    const WbMesh3 *m = &cmd->m;
    int t0 = (task - cmd->ftask0) * TRI_BLOCK;
    int t1 = t0 + TRI_BLOCK < m->n_triangles ? t0 + TRI_BLOCK : m->n_triangles;
    float *lit = r->lit + cmd->l_off;
    const TriInfo *info = r->tinfo + cmd->t_off;
    const uint32_t nv = (uint32_t)m->n_vertices;
    for (int t = t0; t < t1; t++) {
        if (info[t].r0 > info[t].r1)
            continue;   /* not drawn: its record is never read */
        const uint32_t *f = m->indices + 3 * (size_t)t;
        float *rec = lit + (size_t)cmd->lit_stride * (size_t)t;
        if (f[0] >= nv || f[1] >= nv || f[2] >= nv) {
            memset(rec, 0, (size_t)cmd->lit_stride * sizeof *rec);
            continue;
        }
        const float *a = m->pos + 3 * f[0], *b = m->pos + 3 * f[1], *c = m->pos + 3 * f[2];
        float e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
        float e2[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
        float n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                      e1[0] * e2[1] - e1[1] * e2[0]};
        float p[3] = {(a[0] + b[0] + c[0]) / 3.0f, (a[1] + b[1] + c[1]) / 3.0f,
                      (a[2] + b[2] + c[2]) / 3.0f};
        light_record(r, cmd, n, p, rec);
    }
}

#ifdef BATCH8
/* Eight consecutive float triples (24 floats at p) → their x, y and z
 * lanes: six 128-bit loads and five shuffles (gathers are slow on AMD). */
__attribute__((target("avx2"))) static inline void load3x8(const float *p, __m256 out[3])
{
    /* x0 y0 z0 x1 | x4 y4 z4 x5,  y1 z1 x2 y2 | y5 z5 x6 y6,  z2 x3 y3 z3 | z6 x7 y7 z7 */
    const __m256 m03 = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(p)),
                                            _mm_loadu_ps(p + 12), 1);
    const __m256 m14 = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(p + 4)),
                                            _mm_loadu_ps(p + 16), 1);
    const __m256 m25 = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(p + 8)),
                                            _mm_loadu_ps(p + 20), 1);
    const __m256 xy = _mm256_shuffle_ps(m14, m25, _MM_SHUFFLE(2, 1, 3, 2));
    const __m256 yz = _mm256_shuffle_ps(m03, m14, _MM_SHUFFLE(1, 0, 2, 1));
    out[0] = _mm256_shuffle_ps(m03, xy, _MM_SHUFFLE(2, 0, 3, 0));
    out[1] = _mm256_shuffle_ps(yz, xy, _MM_SHUFFLE(3, 1, 2, 0));
    out[2] = _mm256_shuffle_ps(yz, m25, _MM_SHUFFLE(3, 0, 3, 1));
}

/* normalize3f in lanes (the same quotients). */
__attribute__((target("avx2"))) static inline void normalize8(__m256 v[3])
{
    const __m256 l = _mm256_sqrt_ps(_mm256_add_ps(
        _mm256_add_ps(_mm256_mul_ps(v[0], v[0]), _mm256_mul_ps(v[1], v[1])),
        _mm256_mul_ps(v[2], v[2])));
    /* l > 0 and finite; else the vector becomes 0 */
    const __m256 ok = _mm256_and_ps(_mm256_cmp_ps(l, _mm256_setzero_ps(), _CMP_GT_OQ),
                                    _mm256_cmp_ps(l, _mm256_set1_ps(INFINITY), _CMP_LT_OQ));
    for (int k = 0; k < 3; k++)
        v[k] = _mm256_and_ps(ok, _mm256_div_ps(v[k], l));
}

__attribute__((target("avx2"))) static inline __m256 dot8(const __m256 a[3], const __m256 b[3])
{
    return _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(a[0], b[0]), _mm256_mul_ps(a[1], b[1])),
                         _mm256_mul_ps(a[2], b[2]));
}

/* light_point for eight points in lanes (unit normals n, unit directions v
 * to the eye), the same operations in the same order; powf is called per
 * lane, only where light_point calls it (lanes in `live`). */
__attribute__((target("avx2"))) static void light_point8(const WbRaster3 *r,
                                                         const WbMaterial *mat, const __m256 n[3],
                                                         const __m256 v[3], const float tint[3],
                                                         unsigned live, __m256 mul[3],
                                                         __m256 add[3])
{
    const WbLighting *L = &r->light;
    const __m256 t = _mm256_mul_ps(_mm256_set1_ps(0.5f), _mm256_add_ps(n[1], _mm256_set1_ps(1.0f)));
    for (int k = 0; k < 3; k++) {
        mul[k] = _mm256_add_ps(_mm256_set1_ps(L->ground[k]),
                               _mm256_mul_ps(_mm256_set1_ps(L->sky[k] - L->ground[k]), t));
        add[k] = _mm256_setzero_ps();
    }
    const float shin = mat->shininess >= 1.0f ? mat->shininess : 1.0f;
    const WbLight *ls[2] = {&L->key, &L->fill};
    for (int i = 0; i < 2; i++) {
        const float *ld = ls[i]->dir;
        const __m256 l[3] = {_mm256_set1_ps(ld[0]), _mm256_set1_ps(ld[1]), _mm256_set1_ps(ld[2])};
        const __m256 ndl = dot8(n, l);
        const __m256 lit = _mm256_cmp_ps(ndl, _mm256_setzero_ps(), _CMP_GT_OQ);
        const unsigned lm = (unsigned)_mm256_movemask_ps(lit) & live;
        if (!lm)
            continue;
        const __m256 dif = _mm256_mul_ps(_mm256_set1_ps(mat->diffuse), ndl);
        __m256 spec = _mm256_setzero_ps();
        if (mat->specular > 0.0f) {
            __m256 h[3] = {_mm256_add_ps(l[0], v[0]), _mm256_add_ps(l[1], v[1]),
                           _mm256_add_ps(l[2], v[2])};
            normalize8(h);
            const __m256 ndh = dot8(n, h);
            const unsigned pm =
                lm & (unsigned)_mm256_movemask_ps(_mm256_cmp_ps(ndh, _mm256_setzero_ps(), _CMP_GT_OQ));
            float nd[8], sp[8] = {0};
            _mm256_storeu_ps(nd, ndh);
            for (unsigned m = pm; m; m &= m - 1) {
                const int j = __builtin_ctz(m);
                sp[j] = mat->specular * powf(nd[j], shin);
            }
            spec = _mm256_loadu_ps(sp);
        }
        for (int k = 0; k < 3; k++) {
            const __m256 c = _mm256_set1_ps(ls[i]->color[k]);
            mul[k] = _mm256_blendv_ps(mul[k], _mm256_add_ps(mul[k], _mm256_mul_ps(dif, c)), lit);
            add[k] = _mm256_blendv_ps(add[k], _mm256_add_ps(add[k], _mm256_mul_ps(spec, c)), lit);
        }
    }
    if (mat->sheen > 0.0f) {
        const __m256 ndv = _mm256_andnot_ps(_mm256_set1_ps(-0.0f), dot8(n, v));
        const __m256 one = _mm256_set1_ps(1.0f);
        const __m256 g = _mm256_sub_ps(one, _mm256_min_ps(ndv, one)), g2 = _mm256_mul_ps(g, g);
        const __m256 sh = _mm256_mul_ps(
            _mm256_mul_ps(_mm256_mul_ps(_mm256_set1_ps(mat->sheen), g2), g2), g);
        for (int k = 0; k < 3; k++)
            add[k] = _mm256_add_ps(add[k], _mm256_mul_ps(sh, _mm256_set1_ps(mat->sheen_color[k])));
    }
    for (int k = 0; k < 3; k++)
        mul[k] = _mm256_mul_ps(mul[k], _mm256_set1_ps(tint[k]));
}

/* light_task for a lit fold command: light_record and fold_rgba for eight
 * vertices per vector, lane for lane the same floats. */
__attribute__((target("avx2"))) static void light_fold8(const WbRaster3 *r, const Cmd *cmd,
                                                        int i0, int i1)
{
    static const float white[3] = {1.0f, 1.0f, 1.0f};
    const WbMesh3 *m = &cmd->m;
    const WbMaterial *mat = &m->material;
    const TriCtx tc = tri_ctx(r, cmd);
    const uint8_t *used = r->used + cmd->v_off;
    float *attr = r->attr + cmd->a_off;
    const int sides = cmd->fold_sides;
    const bool vcol = m->paint == WB_PAINT_VERTEX_COLOR;
    const __m256 op = _mm256_set1_ps(tc.opacity);
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    for (int i = i0; i < i1; i += 8) {
        const int nl = i1 - i < 8 ? i1 - i : 8;
        unsigned live = 0;
        for (int l = 0; l < nl; l++)
            live |= (unsigned)(used[i + l] != 0) << l;
        if (!live)
            continue;
        /* idle lanes repeat the last vertex */
        const __m256i vi = _mm256_min_epi32(_mm256_add_epi32(_mm256_set1_epi32(i), lane),
                                            _mm256_set1_epi32(i1 - 1));
        __m256 n[3], p[3], v[3];
        if (nl == 8) {
            load3x8(m->normal + 3 * (size_t)i, n);
            load3x8(m->pos + 3 * (size_t)i, p);
        } else {
            float tn[24], tp[24];
            for (int l = 0; l < 8; l++) {
                const size_t j = 3 * (size_t)(l < nl ? i + l : i1 - 1);
                memcpy(tn + 3 * l, m->normal + j, 3 * sizeof *tn);
                memcpy(tp + 3 * l, m->pos + j, 3 * sizeof *tp);
            }
            load3x8(tn, n);
            load3x8(tp, p);
        }
        for (int k = 0; k < 3; k++) {
            /* (float)(eye − p) in double, four lanes at a time */
            const __m256d e = _mm256_set1_pd(r->cam.eye[k]);
            const __m128 lo = _mm256_cvtpd_ps(_mm256_sub_pd(e, _mm256_cvtps_pd(_mm256_castps256_ps128(p[k]))));
            const __m128 hi = _mm256_cvtpd_ps(_mm256_sub_pd(e, _mm256_cvtps_pd(_mm256_extractf128_ps(p[k], 1))));
            v[k] = _mm256_insertf128_ps(_mm256_castps128_ps256(lo), hi, 1);
        }
        normalize8(v);
        /* light_record: the unit normal, (0, 1, 0) when it has none */
        normalize8(n);
        const __m256 z = _mm256_setzero_ps();
        const __m256 none = _mm256_and_ps(
            _mm256_and_ps(_mm256_cmp_ps(n[0], z, _CMP_EQ_OQ), _mm256_cmp_ps(n[1], z, _CMP_EQ_OQ)),
            _mm256_cmp_ps(n[2], z, _CMP_EQ_OQ));
        n[1] = _mm256_blendv_ps(n[1], _mm256_set1_ps(1.0f), none);
        __m256 c[4];
        if (vcol) {
            const __m256i i4 = _mm256_slli_epi32(vi, 2);
            for (int k = 0; k < 4; k++)
                c[k] = _mm256_i32gather_ps(m->rgba + k, i4, 4);
        } else {
            for (int k = 0; k < 4; k++)
                c[k] = _mm256_set1_ps(tc.base[k]);
        }
        for (int sd = 0; sd < sides; sd++) {
            __m256 mul[3], add[3];
            if (sd == 0) {
                light_point8(r, mat, n, v, white, live, mul, add);
            } else {
                const __m256 sign = _mm256_set1_ps(-0.0f);
                const __m256 nb[3] = {_mm256_xor_ps(n[0], sign), _mm256_xor_ps(n[1], sign),
                                      _mm256_xor_ps(n[2], sign)};
                light_point8(r, mat, nb, v, mat->back_tint, live, mul, add);
            }
            /* fold_rgba: (c·mul + add·c_a)·opacity, alpha c_a·opacity */
            __m256i o[4];
            for (int k = 0; k < 3; k++)
                o[k] = _mm256_castps_si256(_mm256_mul_ps(
                    _mm256_add_ps(_mm256_mul_ps(c[k], mul[k]), _mm256_mul_ps(add[k], c[3])), op));
            o[3] = _mm256_castps_si256(_mm256_mul_ps(c[3], op));
            int32_t out[8][4];
            transpose_4x8(o, out);
            for (unsigned mm = live; mm; mm &= mm - 1) {
                const int l = __builtin_ctz(mm);
                memcpy(attr + 4 * ((size_t)sides * (size_t)(i + l) + (size_t)sd), out[l],
                       4 * sizeof *attr);
            }
        }
    }
}
#endif

/* Gouraud lighting of the vertices a triangle to draw uses (the others —
 * behind back faces that are culled, off screen — are never read, so they
 * are not lit: about half of a closed mesh's vertices): lighting records,
 * or for fold commands the finished corner colours. */
CLONES void wb_raster3d_light_task(void *vctx, int task)
{
    EndCtx *ctx = vctx;
    WbRaster3 *r = ctx->r;
    const Cmd *cmd = &r->cmds[cmd_for_task(r, task, 0)];
    if (!cmd->fold && (!cmd->lit || cmd->facet))
        return;
    const WbMesh3 *m = &cmd->m;
    int i0 = (task - cmd->vtask0) * VTX_BLOCK;
    int i1 = i0 + VTX_BLOCK < m->n_vertices ? i0 + VTX_BLOCK : m->n_vertices;
    const uint8_t *used = r->used + cmd->v_off;
    if (!cmd->fold) {
        float *lit = r->lit + cmd->l_off;
        for (int i = i0; i < i1; i++)
            if (used[i])
                light_record(r, cmd, m->normal + 3 * (size_t)i, m->pos + 3 * (size_t)i,
                             lit + (size_t)cmd->lit_stride * (size_t)i);
        return;
    }
#ifdef BATCH8
    /* (the vertex colours' gather index, 4·vertex, is an int32) */
    if (cmd->lit && ctx->batch8 && m->n_vertices < (1 << 29)) {
        light_fold8(r, cmd, i0, i1);
        return;
    }
#endif
    const TriCtx tc = tri_ctx(r, cmd);
    float *attr = r->attr + cmd->a_off;
    const int sides = cmd->fold_sides;
    for (int i = i0; i < i1; i++) {
        if (!used[i])
            continue;
        float rec[12];
        if (cmd->lit)
            light_record(r, cmd, m->normal + 3 * (size_t)i, m->pos + 3 * (size_t)i, rec);
        const float *c = m->paint == WB_PAINT_VERTEX_COLOR ? m->rgba + 4 * (size_t)i : tc.base;
        float *a = attr + 4 * (size_t)sides * (size_t)i;
        fold_rgba(c, cmd->lit ? rec : NULL, tc.opacity, a);
        if (sides == 2)
            fold_rgba(c, rec + 6, tc.opacity, a + 4);
    }
}

