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
#include "render/raster3d.h"
#include "render/raster_core.h"

#include <assert.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#include <limits.h>
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "core/cpu.h"

#define GUARD_PX 524288.0          /* 2^19 px from the image centre */
/* Rows per band: fixed (never derived from the thread count), and small
 * enough that a band's colour and depth samples (w·16·S·8 bytes: 655 KiB
 * at 1280 wide and 4 samples) stay in the cache between drawing and the
 * resolve. */
#define BAND_ROWS 16
#define VTX_BLOCK 8192
#define TRI_BLOCK 8192
#define MAX_POLY 9                 /* a triangle clipped by 5 planes */
#define MAX_ATTR 8

/* The stages' loops are also built for AVX2 and picked at load time: the
 * same SSE2 intrinsics in VEX form (three operands, fewer register copies)
 * and whatever integer min/max the compiler finds; the arithmetic is the
 * same IEEE and integer operations (no FMA: -ffp-contract=off, and FMA is
 * not part of the avx2 target), so both versions give the same bytes.
 * -DWB_NO_CLONES builds the default one alone (to compare the two). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(WB_NO_CLONES)
#define CLONES __attribute__((target_clones("avx2", "default")))
/* With the clones, the jiggle view's run (4 samples, folded vertex
 * colours, opaque) also has an AVX2 version that sets up eight triangles
 * per vector (run_4_rgba_opaque8), picked at run time. */
#define BATCH8 1
#include <immintrin.h>
#else
#define CLONES
#endif


/* Outcode bits. */
enum { OUT_NEAR = 1, OUT_LEFT = 2, OUT_RIGHT = 4, OUT_BOTTOM = 8, OUT_TOP = 16, OUT_BAD = 32 };

/* Shading modes (what is interpolated). */
enum {
    MODE_FLAT,      /* one premultiplied colour: nothing interpolated */
    MODE_RGBA,      /* 4 planes: premultiplied r, g, b, a (lighting folded in) */
    MODE_TEX,       /* 2 planes: su, sv (unlit texture) */
    MODE_TEX_LIT    /* 8 planes: su, sv, mul rgb, add rgb */
};

enum { PASS_OPAQUE, PASS_BLEND, PASS_TOP, N_PASSES };

/* A transformed vertex. */
typedef struct Vtx {
    float c[4];                /* clip coordinates */
    int32_t fx, fy;            /* 1/256 px, valid when out == 0 */
    float q;                   /* 1/w, valid when out == 0 */
    uint32_t out;              /* outcode */
} Vtx;

typedef struct Cmd {
    WbMesh3 m;
    int mode, pass;
    int n_attr;
    bool lit, facet;           /* lit: has lighting records; facet: one per triangle */
    int lit_stride;            /* floats per lighting record: 6, or 12 when two-sided */
    /* fold: MODE_RGBA with per-vertex colours or records (not facet): the
     * corner colour (colour, lighting and opacity folded) is made once per
     * drawn vertex in the light stage, 4 floats per face side, instead of
     * once per corner of every triangle in every band. */
    bool fold;
    int fold_sides;            /* 2 when the back face has its own record */
    size_t v_off;              /* into vtx and (×2) tuv */
    size_t l_off;              /* into lit (floats) */
    size_t a_off;              /* into attr (floats) when fold */
    size_t t_off;              /* into tinfo */
    int vtask0, ftask0, stask0;
} Cmd;

/* Per triangle, from the setup stage. */
enum { TRI_BACK = 1, TRI_CLIP = 2 };
typedef struct TriInfo {
    int32_t r0, r1;            /* pixel rows it may cover; r0 > r1: nothing to draw */
    uint32_t flags;            /* TRI_BACK, TRI_CLIP */
} TriInfo;

/* A band's triangle: its index and (command << 2 | flags). */
typedef struct Bin {
    uint32_t tri, cmd_flags;
} Bin;

/* Per thread: one band's samples.  Between bands the buffer is kept clean
 * (every sample `clean_bg`, depth 0) except the row spans drawn since,
 * which are cleared after the resolve, so an empty part of the frame costs
 * neither a clear nor a resolve of its samples. */
typedef struct Worker {
    uint32_t *color;           /* BAND_ROWS · w · S premultiplied samples */
    float *depth;              /* the same count of q = 1/w; 0 = nothing drawn */
    int32_t lo[BAND_ROWS], hi[BAND_ROWS];  /* drawn pixel span per row (lo > hi: none) */
    uint32_t clean_bg;
    bool clean;                /* the buffer holds clean_bg / 0 outside the spans */
} Worker;

struct WbRaster3 {
    int w, h, S;
    WbCamera cam;
    WbLighting light;          /* directions normalised */
    uint32_t background;
    double m[16];              /* world → clip */
    double gx, gy;             /* guard band in NDC units */

    Cmd *cmds;
    int n_cmds, cap_cmds;
    bool failed;

    Vtx *vtx;
    size_t cap_vtx;
    float *tuv;
    size_t cap_tuv;
    float *lit;
    size_t cap_lit;
    float *attr;               /* folded corner colours (Cmd.fold) */
    size_t cap_attr;
    TriInfo *tinfo;
    size_t cap_tinfo;
    uint8_t *used;             /* per vertex: 1 when a triangle to draw uses it */
    size_t cap_used;
    Bin *bins;
    size_t cap_bins;
    size_t *bin_start;         /* per band, n_bands + 1 */
    size_t cap_bin_start;
    int *order;                /* command indices in draw order */
    size_t cap_order;
    Worker *workers;
    int n_workers;
};

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

/* ---- small helpers -------------------------------------------------------- */

static ALWAYS_INLINE void normalize3f(float v[3])
{
    float l = sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    if (l > 0.0f && isfinite(l)) {
#ifdef __SSE2__
        /* the three divisions in one (the same quotient in each lane) */
        float t[4];
        _mm_storeu_ps(t, _mm_div_ps(_mm_setr_ps(v[0], v[1], v[2], 1.0f), _mm_set1_ps(l)));
        v[0] = t[0];
        v[1] = t[1];
        v[2] = t[2];
#else
        v[0] /= l;
        v[1] /= l;
        v[2] /= l;
#endif
    } else {
        v[0] = v[1] = v[2] = 0.0f;
    }
}

/* ---- colour arithmetic on packed premultiplied RGBA8 ---------------------- */

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

/* ---- stages 1–3 ------------------------------------------------------------- */

typedef struct EndCtx {
    WbRaster3 *r;
    int S;
    int32_t ox[16], oy[16];            /* sample offsets, 1/256 px */
    int32_t omin_x, omax_x, omin_y, omax_y;
    float sx[16], sy[16];              /* the same in px */
    float fx[16], fy[16];              /* ox, oy as floats (1/256 px, exact) */
    int n_bands;
    BandQueue bands;
    bool batch8;                       /* the CPU runs run_4_rgba_opaque8 */
    uint8_t bg_px[4];                  /* the background, resolved */
    WbImage *out;
} EndCtx;

static int cmd_for_task(const WbRaster3 *r, int task, int stage)
{
    int lo = 0;
    for (int i = 0; i < r->n_cmds; i++) {
        const Cmd *c = &r->cmds[i];
        int t0 = stage == 0 ? c->vtask0 : stage == 1 ? c->ftask0 : c->stask0;
        if (t0 <= task)
            lo = i;
    }
    return lo;
}

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

/* Lighting of meshes without normals: one record per triangle, from its
 * face normal (counter-clockwise = front) at its centroid. */
static void facet_task(void *vctx, int task)
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

/* ---- triangle setup and drawing ---------------------------------------------- */

typedef struct Band {
    const EndCtx *ctx;
    uint32_t *color;
    float *depth;
    int32_t *lo, *hi;          /* drawn span per band row */
    int w, y0, y1;
} Band;

/* A projected corner: fixed-point position, q = 1/w and attributes (not
 * yet multiplied by q). */
typedef struct Corner {
    int32_t fx, fy;
    float q;
    float a[MAX_ATTR];
} Corner;

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

/* A clip-space polygon vertex. */
typedef struct ClipV {
    float c[4];
    float a[MAX_ATTR];
} ClipV;

/* Per-triangle constants of a command, fixed for the frame. */
typedef struct TriCtx {
    const Cmd *cmd;
    const Vtx *vtx;
    const float *tuv;
    const float *lit;
    const float *attr;    /* fold: the corner colours */
    float base[4];        /* MODE_RGBA with a single colour: premultiplied, [0,1] */
    uint32_t flat;        /* MODE_FLAT colour (opacity applied) */
    float opacity;
} TriCtx;

/* The folded MODE_RGBA corner colour: colour lanes (c·mul + add·c_a)·opacity,
 * alpha lane c_a·opacity (rec NULL: unlit, c·opacity). */
static ALWAYS_INLINE void fold_rgba(const float c_in[4], const float *rec, float opacity,
                                    float *a)
{
#ifdef __SSE2__
    /* The scalar lines below, lane for lane. */
    const __m128 c = _mm_loadu_ps(c_in);
    const __m128 op = _mm_set1_ps(opacity);
    __m128 out = _mm_mul_ps(c, op);
    if (rec) {
        const __m128 mul = _mm_setr_ps(rec[0], rec[1], rec[2], 0.0f);
        const __m128 add = _mm_setr_ps(rec[3], rec[4], rec[5], 0.0f);
        const __m128 lit = _mm_mul_ps(
            _mm_add_ps(_mm_mul_ps(c, mul), _mm_mul_ps(add, _mm_shuffle_ps(c, c, 0xFF))), op);
        const __m128 rgb = _mm_castsi128_ps(_mm_setr_epi32(-1, -1, -1, 0));
        out = _mm_or_ps(_mm_and_ps(rgb, lit), _mm_andnot_ps(rgb, out));
    }
    _mm_storeu_ps(a, out);
#else
    const float *c = c_in;
    if (rec) {
        for (int k = 0; k < 3; k++)
            a[k] = (c[k] * rec[k] + rec[3 + k] * c[3]) * opacity;
    } else {
        for (int k = 0; k < 3; k++)
            a[k] = c[k] * opacity;
    }
    a[3] = c[3] * opacity;
#endif
}

/* Attributes of vertex vi as triangle t's corner, for the face chosen. */
static ALWAYS_INLINE void corner_attr(const TriCtx *tc, uint32_t vi, int t, bool back, float *a,
                                      const int mode)
{
    const Cmd *cmd = tc->cmd;
    if (mode == MODE_RGBA && cmd->fold) {
        const float *f = tc->attr + 4 * ((size_t)vi * (size_t)cmd->fold_sides +
                                         (back && cmd->fold_sides == 2 ? 1 : 0));
        memcpy(a, f, 4 * sizeof *a);
        return;
    }
    const float *rec = NULL;
    if (cmd->lit) {
        size_t ri = cmd->facet ? (size_t)t : (size_t)vi;
        rec = tc->lit + ri * (size_t)cmd->lit_stride + (back && cmd->lit_stride == 12 ? 6 : 0);
    }
    if (mode == MODE_RGBA) {
        fold_rgba(cmd->m.paint == WB_PAINT_VERTEX_COLOR ? cmd->m.rgba + 4 * (size_t)vi : tc->base,
                  rec, tc->opacity, a);
    } else if (mode == MODE_TEX || mode == MODE_TEX_LIT) {
        a[0] = tc->tuv[2 * (size_t)vi];
        a[1] = tc->tuv[2 * (size_t)vi + 1];
        if (mode == MODE_TEX_LIT)
            for (int k = 0; k < 6; k++)
                a[2 + k] = rec[k];
    }
}

/* The per-frame constants of a command's triangles. */
static TriCtx tri_ctx(const WbRaster3 *r, const Cmd *cmd)
{
    TriCtx tc = {.cmd = cmd, .vtx = r->vtx + cmd->v_off, .tuv = r->tuv + 2 * cmd->v_off,
                 .lit = r->lit + cmd->l_off, .attr = r->attr + cmd->a_off};
    const WbMesh3 *m = &cmd->m;
    tc.opacity = m->opacity < 1.0f ? m->opacity : 1.0f;
    const float k = 1.0f / 255.0f;
    tc.base[0] = (float)WB_RGBA_R(m->color) * k;
    tc.base[1] = (float)WB_RGBA_G(m->color) * k;
    tc.base[2] = (float)WB_RGBA_B(m->color) * k;
    tc.base[3] = (float)WB_RGBA_A(m->color) * k;
    tc.flat = tc.opacity < 1.0f ? mul255(m->color, (uint32_t)(tc.opacity * 255.0f + 0.5f))
                                : m->color;
    return tc;
}

#ifdef BATCH8
/* a[s] holds sample s of eight lanes; out[l] gets lane l's four samples. */
__attribute__((target("avx2"))) static inline void transpose_4x8(const __m256i a[4],
                                                                 int32_t out[8][4])
{
    const __m256i t0 = _mm256_unpacklo_epi32(a[0], a[1]), t1 = _mm256_unpackhi_epi32(a[0], a[1]);
    const __m256i t2 = _mm256_unpacklo_epi32(a[2], a[3]), t3 = _mm256_unpackhi_epi32(a[2], a[3]);
    /* u0: lanes 0 | 4, u1: 1 | 5, u2: 2 | 6, u3: 3 | 7 */
    const __m256i u0 = _mm256_unpacklo_epi64(t0, t2), u1 = _mm256_unpackhi_epi64(t0, t2);
    const __m256i u2 = _mm256_unpacklo_epi64(t1, t3), u3 = _mm256_unpackhi_epi64(t1, t3);
    _mm256_storeu_si256((__m256i *)out[0], _mm256_permute2x128_si256(u0, u1, 0x20));
    _mm256_storeu_si256((__m256i *)out[2], _mm256_permute2x128_si256(u2, u3, 0x20));
    _mm256_storeu_si256((__m256i *)out[4], _mm256_permute2x128_si256(u0, u1, 0x31));
    _mm256_storeu_si256((__m256i *)out[6], _mm256_permute2x128_si256(u2, u3, 0x31));
}

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
CLONES static void light_task(void *vctx, int task)
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

/* A triangle's shading state, set up once per triangle (per band). */
typedef struct Shade {
    Plane pq;                  /* q = 1/w */
    Plane pa[MAX_ATTR];        /* a·q */
    float qfloor;              /* q never divides below this (extrapolated centres) */
    float dq[16];              /* q at sample s minus q at the pixel centre */
    WbTexSampler tex;
    uint32_t flat;
    float opacity;
#ifdef __SSE2__
    __m128 po, pgx, pgy;       /* MODE_RGBA: the four a·q planes side by side;
                                  MODE_TEX_LIT: mul r, g, b and su */
    __m128 po2, pgx2, pgy2;    /* MODE_TEX_LIT: add r, g, b and sv */
    __m128 ay, ay2;            /* the current row's pgy·dy, pgy2·dy */
#endif
    float qy;                  /* the current row's pq.gy·dy */
} Shade;

/* Start a row dy px below the first: the planes' y terms, which are the
 * same for the whole row (plane_at adds them last, so hoisting the
 * products leaves every result unchanged). */
static ALWAYS_INLINE void shade_row(Shade *sh, float dy, const int mode)
{
    sh->qy = sh->pq.gy * dy;
#ifdef __SSE2__
    if (mode == MODE_RGBA || mode == MODE_TEX_LIT)
        sh->ay = _mm_mul_ps(sh->pgy, _mm_set1_ps(dy));
    if (mode == MODE_TEX_LIT)
        sh->ay2 = _mm_mul_ps(sh->pgy2, _mm_set1_ps(dy));
#endif
}

/* Colour of the triangle at (dx, dy) px from its first pixel centre, where
 * q = qc. */
static ALWAYS_INLINE uint32_t shade_color(const Shade *sh, float qc, float dx, float dy,
                                          const int mode)
{
    if (mode == MODE_FLAT)
        return sh->flat;
    float iq = 1.0f / (qc > sh->qfloor ? qc : sh->qfloor);
#ifdef __SSE2__
    if (mode == MODE_RGBA) {
        /* (a·q)/q for r, g, b, a at once; clamp a to [0, 1] and each colour
         * to [0, a] (premultiplied), round to nearest. */
        __m128 v = _mm_add_ps(_mm_add_ps(sh->po, _mm_mul_ps(sh->pgx, _mm_set1_ps(dx))), sh->ay);
        v = _mm_mul_ps(v, _mm_set1_ps(iq));
        __m128 a = _mm_shuffle_ps(v, v, 0xFF);
        a = _mm_min_ps(_mm_max_ps(a, _mm_setzero_ps()), _mm_set1_ps(1.0f));
        v = _mm_min_ps(_mm_max_ps(v, _mm_setzero_ps()), a);
        v = _mm_add_ps(_mm_mul_ps(v, _mm_set1_ps(255.0f)), _mm_set1_ps(0.5f));
        __m128i iv = _mm_cvttps_epi32(v);
        iv = _mm_packs_epi32(iv, iv);
        return (uint32_t)_mm_cvtsi128_si32(_mm_packus_epi16(iv, iv));
    }
#endif
#ifdef __SSE2__
    if (mode == MODE_TEX_LIT) {
        /* The scalar path below, lane for lane: the same float operations
         * in the same order (IEEE single either way), so the same bits.
         * Lane 3 carries su (m) and sv (d); it is then set to 1 and 0 so
         * that the alpha lane computes ta·1 + 0·ta = ta. */
        const __m128 vdx = _mm_set1_ps(dx), viq = _mm_set1_ps(iq);
        __m128 m = _mm_add_ps(_mm_add_ps(sh->po, _mm_mul_ps(sh->pgx, vdx)), sh->ay);
        __m128 d = _mm_add_ps(_mm_add_ps(sh->po2, _mm_mul_ps(sh->pgx2, vdx)), sh->ay2);
        m = _mm_mul_ps(m, viq);
        d = _mm_mul_ps(d, viq);
        const float su = _mm_cvtss_f32(_mm_shuffle_ps(m, m, 0xFF));
        const float sv = _mm_cvtss_f32(_mm_shuffle_ps(d, d, 0xFF));
        const __m128 rgb = _mm_castsi128_ps(_mm_setr_epi32(-1, -1, -1, 0));
        m = _mm_or_ps(_mm_and_ps(m, rgb), _mm_setr_ps(0.0f, 0.0f, 0.0f, 1.0f));
        d = _mm_and_ps(d, rgb);
        uint32_t t = wb_tex_sampler_fx(&sh->tex, su, sv);
        const __m128i z = _mm_setzero_si128();
        __m128i ti = _mm_unpacklo_epi16(_mm_unpacklo_epi8(_mm_cvtsi32_si128((int)t), z), z);
        __m128 tk = _mm_mul_ps(_mm_cvtepi32_ps(ti), _mm_set1_ps(1.0f / 255.0f));
        __m128 ta = _mm_shuffle_ps(tk, tk, 0xFF);
        __m128 c = _mm_add_ps(_mm_mul_ps(tk, m), _mm_mul_ps(d, ta));
        c = _mm_mul_ps(c, _mm_set1_ps(sh->opacity));
        /* pack_premul(): alpha to [0, 1], colours to [0, alpha], round to nearest. */
        __m128 a = _mm_shuffle_ps(c, c, 0xFF);
        a = _mm_min_ps(_mm_max_ps(a, _mm_setzero_ps()), _mm_set1_ps(1.0f));
        c = _mm_min_ps(_mm_max_ps(c, _mm_setzero_ps()), a);
        c = _mm_add_ps(_mm_mul_ps(c, _mm_set1_ps(255.0f)), _mm_set1_ps(0.5f));
        __m128i ic = _mm_cvttps_epi32(c);
        ic = _mm_packs_epi32(ic, ic);
        return (uint32_t)_mm_cvtsi128_si32(_mm_packus_epi16(ic, ic));
    }
#endif
    float a[MAX_ATTR];
    const int NA = mode == MODE_RGBA ? 4 : mode == MODE_TEX ? 2 : 8;
    for (int i = 0; i < NA; i++)
        a[i] = plane_at(sh->pa[i], dx, dy) * iq;
    if (mode == MODE_RGBA)
        return pack_premul(a[0], a[1], a[2], a[3]);
    uint32_t t = wb_tex_sampler_fx(&sh->tex, a[0], a[1]);
    const float opacity = sh->opacity;
    if (mode == MODE_TEX_LIT) {
        const float k = 1.0f / 255.0f;
        float ta = (float)WB_RGBA_A(t) * k;
        float cr = (float)WB_RGBA_R(t) * k * a[2] + a[5] * ta;
        float cg = (float)WB_RGBA_G(t) * k * a[3] + a[6] * ta;
        float cb = (float)WB_RGBA_B(t) * k * a[4] + a[7] * ta;
        return pack_premul(cr * opacity, cg * opacity, cb * opacity, ta * opacity);
    }
    return opacity < 1.0f ? mul255(t, (uint32_t)(opacity * 255.0f + 0.5f)) : t;
}

/* One pixel with coverage `mask`: depth test (unless on_top), shade once,
 * store to the samples that passed, write depth (opaque pass). */
static ALWAYS_INLINE void shade_pixel(const Shade *sh, uint32_t *cp, float *dp, unsigned mask,
                                      float dx, float dy, const int S, const int mode,
                                      const int pass)
{
    float qc = sh->pq.o + sh->pq.gx * dx + sh->qy;   /* plane_at(sh->pq, dx, dy) */
#ifdef __SSE2__
    if (S >= 4) {
        __m128 qv = _mm_set1_ps(qc);
        __m128 qs[4];
        for (int q = 0; q < S / 4; q++)
            qs[q] = _mm_add_ps(qv, _mm_loadu_ps(sh->dq + 4 * q));
        if (pass != PASS_TOP) {
            unsigned nearer = 0;
            for (int q = 0; q < S / 4; q++) {
                nearer |= (unsigned)_mm_movemask_ps(_mm_cmpgt_ps(qs[q], _mm_loadu_ps(dp + 4 * q)))
                          << (4 * q);
            }
            mask &= nearer;
            if (!mask)
                return;
        }
        uint32_t col = shade_color(sh, qc, dx, dy, mode);
        uint32_t ca = col >> 24;
        if (ca == 0)
            return;
        if (ca == 255) {
            const __m128i cv = _mm_set1_epi32((int32_t)col);
            if (mask == (1u << S) - 1u) {
                /* Every sample passed (the inside of a triangle): plain
                 * stores, no blend with the old samples. */
                for (int q = 0; q < S / 4; q++) {
                    _mm_storeu_si128((__m128i *)(cp + 4 * q), cv);
                    if (pass == PASS_OPAQUE)
                        _mm_storeu_ps(dp + 4 * q, qs[q]);
                }
                return;
            }
            const __m128i bits = _mm_setr_epi32(1, 2, 4, 8);
            for (int q = 0; q < S / 4; q++) {
                __m128i sel = _mm_cmpeq_epi32(
                    _mm_and_si128(_mm_set1_epi32((int32_t)(mask >> (4 * q))), bits), bits);
                __m128i old = _mm_loadu_si128((const __m128i *)(cp + 4 * q));
                _mm_storeu_si128((__m128i *)(cp + 4 * q),
                                 _mm_or_si128(_mm_and_si128(sel, cv), _mm_andnot_si128(sel, old)));
                if (pass == PASS_OPAQUE) {
                    __m128 self = _mm_castsi128_ps(sel);
                    __m128 od = _mm_loadu_ps(dp + 4 * q);
                    _mm_storeu_ps(dp + 4 * q, _mm_or_ps(_mm_and_ps(self, qs[q]),
                                                        _mm_andnot_ps(self, od)));
                }
            }
            return;
        }
        for (unsigned mm = mask; mm; mm &= mm - 1) {
            int s = __builtin_ctz(mm);
            cp[s] = blend_over(col, cp[s]);
            if (pass == PASS_OPAQUE)
                dp[s] = qc + sh->dq[s];
        }
        return;
    }
#endif
    if (pass != PASS_TOP) {
        unsigned nearer = 0;
        for (unsigned mm = mask; mm; mm &= mm - 1) {
            int s = __builtin_ctz(mm);
            nearer |= (unsigned)(qc + sh->dq[s] > dp[s]) << s;
        }
        mask = nearer;
        if (!mask)
            return;
    }
    uint32_t col = shade_color(sh, qc, dx, dy, mode);
    uint32_t ca = col >> 24;
    if (ca == 0)
        return;
    for (unsigned mm = mask; mm; mm &= mm - 1) {
        int s = __builtin_ctz(mm);
        cp[s] = ca == 255 ? col : blend_over(col, cp[s]);
        if (pass == PASS_OPAQUE)
            dp[s] = qc + sh->dq[s];
    }
}

#ifdef __SSE2__
/* MODE_RGBA: plane() for r, g, b, a at once, lane for lane, from the
 * corners' attributes a0..a2 and q0..q2 (see raster_tri for the rest). */
static ALWAYS_INLINE void rgba_planes(Shade *sh, const float *a0, const float *a1,
                                      const float *a2, float q0, float q1, float q2, float bx,
                                      float by, float cx, float cy, float inv, float pax,
                                      float pay)
{
    const __m128 va = _mm_mul_ps(_mm_loadu_ps(a0), _mm_set1_ps(q0));
    const __m128 vb = _mm_mul_ps(_mm_loadu_ps(a1), _mm_set1_ps(q1));
    const __m128 vc = _mm_mul_ps(_mm_loadu_ps(a2), _mm_set1_ps(q2));
    const __m128 d1 = _mm_sub_ps(vb, va), d2 = _mm_sub_ps(vc, va);
    const __m128 vinv = _mm_set1_ps(inv);
    sh->pgx = _mm_mul_ps(_mm_sub_ps(_mm_mul_ps(d1, _mm_set1_ps(cy)), _mm_mul_ps(d2, _mm_set1_ps(by))),
                         vinv);
    sh->pgy = _mm_mul_ps(_mm_sub_ps(_mm_mul_ps(d2, _mm_set1_ps(bx)), _mm_mul_ps(d1, _mm_set1_ps(cx))),
                         vinv);
    sh->po = _mm_sub_ps(_mm_sub_ps(va, _mm_mul_ps(sh->pgx, _mm_set1_ps(pax))),
                        _mm_mul_ps(sh->pgy, _mm_set1_ps(pay)));
}

/* The narrow triangle's box, 4 samples per pixel: edge values ev (the
 * first pixel's four samples per edge), stepped by sx per pixel and sy per
 * row, all in int32 (see raster_tri); pixels some sample covers are
 * shaded. */
static ALWAYS_INLINE void narrow4_loop(Band *b, Shade *sh, const __m128i ev[3],
                                       const __m128i sxv[3], const __m128i syv[3], int32_t r0,
                                       int32_t r1, int32_t c0, int32_t c1, const int mode,
                                       const int pass)
{
    const size_t stride = (size_t)b->w * 4;
    const __m128i s0 = sxv[0], s1 = sxv[1], s2 = sxv[2];
    const __m128i t0 = syv[0], t1 = syv[1], t2 = syv[2];
    __m128i w0 = ev[0], w1 = ev[1], w2 = ev[2];
    const int32_t n = c1 - c0, rows = r1 - r0;
    int32_t *lo = b->lo + (r0 - b->y0), *hi = b->hi + (r0 - b->y0);
    uint32_t *crow = b->color + (size_t)(r0 - b->y0) * stride + (size_t)c0 * 4;
    float *drow = b->depth + (size_t)(r0 - b->y0) * stride + (size_t)c0 * 4;
    for (int32_t j = 0; j <= rows; j++, crow += stride, drow += stride) {
        /* The resolve reads this row's drawn columns from lo, hi. */
        lo[j] = c0 < lo[j] ? c0 : lo[j];
        hi[j] = c1 > hi[j] ? c1 : hi[j];
        __m128i e0 = w0, e1 = w1, e2 = w2;
        w0 = _mm_add_epi32(w0, t0);
        w1 = _mm_add_epi32(w1, t1);
        w2 = _mm_add_epi32(w2, t2);
        const float dy = (float)j;
        shade_row(sh, dy, mode);
        for (int32_t i = 0; i <= n; i++) {
            const unsigned neg = (unsigned)_mm_movemask_ps(
                _mm_castsi128_ps(_mm_or_si128(_mm_or_si128(e0, e1), e2)));
            e0 = _mm_add_epi32(e0, s0);
            e1 = _mm_add_epi32(e1, s1);
            e2 = _mm_add_epi32(e2, s2);
            if (neg != 15u)
                shade_pixel(sh, crow + 4 * (size_t)i, drow + 4 * (size_t)i, ~neg & 15u,
                            (float)i, dy, 4, mode, pass);
        }
    }
}

#endif

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
CLONES static void run_4_rgba_opaque(Band *b, const TriCtx *tc, const Bin *bins, size_t i0,
                                     size_t i1)
{
    draw_run(b, tc, bins, i0, i1, 4, MODE_RGBA, PASS_OPAQUE);
}

#ifdef BATCH8
/* ---- eight triangles per vector (AVX2) ---------------------------------------
 *
 * run_4_rgba_opaque's triangles, set up eight at a time: each lane does
 * draw_tri's and raster_tri's integer and float operations for one
 * triangle, in the same order (IEEE single, no FMA; int32 where raster_tri's
 * narrow path uses int32 and where its int64 values provably fit), so a
 * lane's box, edge values, steps and planes are raster_tri's bits.  Then
 * each lane's triangle is drawn from the lane data by the same narrow loop.
 * Lanes raster_tri would not draw by that loop (clipped or wide
 * triangles) are drawn by the one-at-a-time code, in their turn: the
 * triangles are drawn in bin order either way. */

/* One lane's results, laid out for the per-triangle loop. */
typedef struct Lanes8 {
    int32_t v[3][8];           /* corner vertices, counter-clockwise */
    int32_t r0[8], r1[8], c0[8], c1[8];
    int32_t sx[3][8], sy[3][8];
    int32_t ev[3][8][4];       /* edge k at the first pixel's four samples, per lane */
    float dq[8][4];
    float bx[8], by[8], cx[8], cy[8], pax[8], pay[8], inv[8];
    float po[8], pgx[8], pgy[8], qfloor[8];
    float q[3][8];
} Lanes8;

/* Set up bins[0..n) (1 ≤ n ≤ 8) into L.  *fast: lanes to draw from L;
 * *slow: lanes for the one-at-a-time code; other lanes draw nothing
 * (raster_tri returns early for them: zero area or no pixel in the band). */
__attribute__((target("avx2"))) static void setup8(const Band *b, const TriCtx *tc,
                                                   const Bin *bins, int n, Lanes8 *L,
                                                   unsigned *fast, unsigned *slow)
{
    const EndCtx *ctx = b->ctx;
    const unsigned valid = (1u << n) - 1u;
    const __m256i zero = _mm256_setzero_si256();
    /* Corners: indices, then each vertex's fx, fy, q, out (16 bytes of its
     * Vtx) transposed into lanes (gathers are slow on AMD). */
    int32_t vi[3][8];
    __m128i raw[3][8];
    unsigned clip = 0;
    for (int l = 0; l < 8; l++) {
        /* idle lanes repeat lane 0 */
        const Bin *bn = &bins[l < n ? l : 0];
        clip |= (bn->cmd_flags & TRI_CLIP ? 1u : 0u) << l;
        const uint32_t *f = tc->cmd->m.indices + 3 * (size_t)bn->tri;
        for (int k = 0; k < 3; k++) {
            vi[k][l] = (int32_t)f[k];
            raw[k][l] = _mm_loadu_si128((const __m128i *)(const void *)&tc->vtx[f[k]].fx);
        }
    }
    __m256i vx[3], vy[3], v[3];
    __m256 vq[3];
    for (int k = 0; k < 3; k++) {
        __m256i y[4];
        for (int j = 0; j < 4; j++)
            y[j] = _mm256_inserti128_si256(_mm256_castsi128_si256(raw[k][j]), raw[k][j + 4], 1);
        /* fx fy q out of lanes j | j + 4 → one vector per field */
        const __m256i a = _mm256_unpacklo_epi32(y[0], y[1]), b2 = _mm256_unpacklo_epi32(y[2], y[3]);
        const __m256i c = _mm256_unpackhi_epi32(y[0], y[1]), d = _mm256_unpackhi_epi32(y[2], y[3]);
        vx[k] = _mm256_unpacklo_epi64(a, b2);
        vy[k] = _mm256_unpackhi_epi64(a, b2);
        vq[k] = _mm256_castsi256_ps(_mm256_unpacklo_epi64(c, d));
        v[k] = _mm256_loadu_si256((const __m256i *)vi[k]);
    }
    __m256i v0 = v[0], v1 = v[1], v2 = v[2];
    const __m256i x0 = vx[0], y0 = vy[0];
    __m256i x1 = vx[1], y1 = vy[1], x2 = vx[2], y2 = vy[2];
    const __m256 q0 = vq[0];
    __m256 q1 = vq[1], q2 = vq[2];
    /* The box, and raster_tri's narrow test (wide lanes go the slow way,
     * so below every difference is at most 2^14 and int32 is exact). */
    const __m256i xmin = _mm256_min_epi32(_mm256_min_epi32(x0, x1), x2);
    const __m256i xmax = _mm256_max_epi32(_mm256_max_epi32(x0, x1), x2);
    const __m256i ymin = _mm256_min_epi32(_mm256_min_epi32(y0, y1), y2);
    const __m256i ymax = _mm256_max_epi32(_mm256_max_epi32(y0, y1), y2);
    const __m256i lim = _mm256_set1_epi32(NARROW_FIX);
    const __m256i wide = _mm256_or_si256(_mm256_cmpgt_epi32(_mm256_sub_epi32(xmax, xmin), lim),
                                         _mm256_cmpgt_epi32(_mm256_sub_epi32(ymax, ymin), lim));
    /* Area (|products| ≤ 2^28), and the swap making it counter-clockwise. */
    const __m256i area = _mm256_sub_epi32(
        _mm256_mullo_epi32(_mm256_sub_epi32(x1, x0), _mm256_sub_epi32(y2, y0)),
        _mm256_mullo_epi32(_mm256_sub_epi32(y1, y0), _mm256_sub_epi32(x2, x0)));
    const __m256i sw = _mm256_cmpgt_epi32(zero, area);
    {
        const __m256i tx = x1, ty = y1, tv = v1;
        x1 = _mm256_blendv_epi8(x1, x2, sw);
        x2 = _mm256_blendv_epi8(x2, tx, sw);
        y1 = _mm256_blendv_epi8(y1, y2, sw);
        y2 = _mm256_blendv_epi8(y2, ty, sw);
        v1 = _mm256_blendv_epi8(v1, v2, sw);
        v2 = _mm256_blendv_epi8(v2, tv, sw);
        const __m256 swf = _mm256_castsi256_ps(sw), tq = q1;
        q1 = _mm256_blendv_ps(q1, q2, swf);
        q2 = _mm256_blendv_ps(q2, tq, swf);
    }
    /* pixel_span (|coordinates| < 2^28: the arithmetic shift is the floor
     * division), clamped to the band and the image. */
    __m256i r0 = _mm256_sub_epi32(
        zero, _mm256_srai_epi32(_mm256_sub_epi32(_mm256_set1_epi32(FIX_HALF + ctx->omax_y), ymin), 8));
    __m256i r1 = _mm256_srai_epi32(_mm256_sub_epi32(ymax, _mm256_set1_epi32(FIX_HALF + ctx->omin_y)), 8);
    __m256i c0 = _mm256_sub_epi32(
        zero, _mm256_srai_epi32(_mm256_sub_epi32(_mm256_set1_epi32(FIX_HALF + ctx->omax_x), xmin), 8));
    __m256i c1 = _mm256_srai_epi32(_mm256_sub_epi32(xmax, _mm256_set1_epi32(FIX_HALF + ctx->omin_x)), 8);
    r0 = _mm256_max_epi32(r0, _mm256_set1_epi32(b->y0));
    r1 = _mm256_min_epi32(r1, _mm256_set1_epi32(b->y1 - 1));
    c0 = _mm256_max_epi32(c0, zero);
    c1 = _mm256_min_epi32(c1, _mm256_set1_epi32(b->w - 1));
    const __m256i none = _mm256_or_si256(
        _mm256_or_si256(_mm256_cmpgt_epi32(r0, r1), _mm256_cmpgt_epi32(c0, c1)),
        _mm256_cmpeq_epi32(area, zero));
    const unsigned widem = (unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(wide));
    const unsigned nonem = (unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(none));
    *slow = (clip | widem) & valid;
    *fast = ~(clip | widem | nonem) & valid;
    if (!*fast)
        return;
    /* Planes of q in px relative to corner 0 and the first pixel centre. */
    const __m256i X0 = _mm256_add_epi32(_mm256_slli_epi32(c0, 8), _mm256_set1_epi32(FIX_HALF));
    const __m256i Y0 = _mm256_add_epi32(_mm256_slli_epi32(r0, 8), _mm256_set1_epi32(FIX_HALF));
    const __m256 k = _mm256_set1_ps(1.0f / FIX_ONE);
    const __m256 bx = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_sub_epi32(x1, x0)), k);
    const __m256 by = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_sub_epi32(y1, y0)), k);
    const __m256 cx = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_sub_epi32(x2, x0)), k);
    const __m256 cy = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_sub_epi32(y2, y0)), k);
    const __m256 pax = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_sub_epi32(x0, X0)), k);
    const __m256 pay = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_sub_epi32(y0, Y0)), k);
    const __m256 inv = _mm256_div_ps(_mm256_set1_ps(1.0f),
                                     _mm256_sub_ps(_mm256_mul_ps(bx, cy), _mm256_mul_ps(by, cx)));
    const __m256 d1 = _mm256_sub_ps(q1, q0), d2 = _mm256_sub_ps(q2, q0);
    const __m256 gx = _mm256_mul_ps(_mm256_sub_ps(_mm256_mul_ps(d1, cy), _mm256_mul_ps(d2, by)), inv);
    const __m256 gy = _mm256_mul_ps(_mm256_sub_ps(_mm256_mul_ps(d2, bx), _mm256_mul_ps(d1, cx)), inv);
    const __m256 po = _mm256_sub_ps(_mm256_sub_ps(q0, _mm256_mul_ps(gx, pax)), _mm256_mul_ps(gy, pay));
    const __m256 qmin = _mm256_min_ps(q2, _mm256_min_ps(q0, q1));
    _mm256_storeu_ps(L->qfloor, _mm256_mul_ps(_mm256_set1_ps(0.5f), qmin));
    __m256i a4[4];
    for (int s = 0; s < 4; s++)
        a4[s] = _mm256_castps_si256(
            _mm256_add_ps(_mm256_mul_ps(gx, _mm256_set1_ps(ctx->sx[s])),
                          _mm256_mul_ps(gy, _mm256_set1_ps(ctx->sy[s]))));
    transpose_4x8(a4, (int32_t(*)[4])(void *)L->dq);
    /* Edges k: corner k → corner k + 1 (raster_tri's narrow setup). */
    const __m256i ex[3] = {x0, x1, x2}, ey[3] = {y0, y1, y2};
    for (int e = 0; e < 3; e++) {
        const __m256i px = ex[e], py = ey[e], qx = ex[e == 2 ? 0 : e + 1], qy = ey[e == 2 ? 0 : e + 1];
        const __m256i dx = _mm256_sub_epi32(qx, px), dy = _mm256_sub_epi32(qy, py);
        const __m256i e0 = _mm256_add_epi32(
            _mm256_sub_epi32(_mm256_mullo_epi32(dx, _mm256_sub_epi32(Y0, py)),
                             _mm256_mullo_epi32(dy, _mm256_sub_epi32(X0, px))),
            edge_bias8(dx, dy));
        _mm256_storeu_si256((__m256i *)L->sx[e], _mm256_slli_epi32(_mm256_sub_epi32(zero, dy), 8));
        _mm256_storeu_si256((__m256i *)L->sy[e], _mm256_slli_epi32(dx, 8));
        const __m256 fdx = _mm256_cvtepi32_ps(dx), fdy = _mm256_cvtepi32_ps(dy);
        for (int s = 0; s < 4; s++)
            a4[s] = _mm256_add_epi32(
                e0, _mm256_cvttps_epi32(_mm256_sub_ps(_mm256_mul_ps(fdx, _mm256_set1_ps(ctx->fy[s])),
                                                      _mm256_mul_ps(fdy, _mm256_set1_ps(ctx->fx[s])))));
        transpose_4x8(a4, L->ev[e]);
    }
    _mm256_storeu_si256((__m256i *)L->v[0], v0);
    _mm256_storeu_si256((__m256i *)L->v[1], v1);
    _mm256_storeu_si256((__m256i *)L->v[2], v2);
    _mm256_storeu_si256((__m256i *)L->r0, r0);
    _mm256_storeu_si256((__m256i *)L->r1, r1);
    _mm256_storeu_si256((__m256i *)L->c0, c0);
    _mm256_storeu_si256((__m256i *)L->c1, c1);
    _mm256_storeu_ps(L->bx, bx);
    _mm256_storeu_ps(L->by, by);
    _mm256_storeu_ps(L->cx, cx);
    _mm256_storeu_ps(L->cy, cy);
    _mm256_storeu_ps(L->pax, pax);
    _mm256_storeu_ps(L->pay, pay);
    _mm256_storeu_ps(L->inv, inv);
    _mm256_storeu_ps(L->po, po);
    _mm256_storeu_ps(L->pgx, gx);
    _mm256_storeu_ps(L->pgy, gy);
    _mm256_storeu_ps(L->q[0], q0);
    _mm256_storeu_ps(L->q[1], q1);
    _mm256_storeu_ps(L->q[2], q2);
}

/* run_4_rgba_opaque for a fold command, eight triangles set up at once. */
__attribute__((target("avx2"))) static void run_4_rgba_opaque8(Band *b, const TriCtx *tc,
                                                               const Bin *bins, size_t i0,
                                                               size_t i1)
{
    const Cmd *cmd = tc->cmd;
    const size_t stride = 4 * (size_t)cmd->fold_sides;
    /* corner_attr's record: the back face's is the second of two */
    const float *attr[2] = {tc->attr, tc->attr + (cmd->fold_sides == 2 ? 4 : 0)};
    Lanes8 L;
    Shade sh;
    sh.flat = tc->flat;
    sh.opacity = tc->opacity;
    for (size_t i = i0; i < i1; i += 8) {
        const int n = i1 - i < 8 ? (int)(i1 - i) : 8;
        unsigned fast, slow;
        setup8(b, tc, bins + i, n, &L, &fast, &slow);
        for (unsigned todo = fast | slow; todo; todo &= todo - 1) {
            const int l = __builtin_ctz(todo);
            if (slow >> l & 1u) {
                run_4_rgba_opaque(b, tc, bins, i + (size_t)l, i + (size_t)l + 1);
                continue;
            }
            const float *a = attr[bins[i + (size_t)l].cmd_flags & TRI_BACK ? 1 : 0];
            sh.pq = (Plane){L.po[l], L.pgx[l], L.pgy[l]};
            sh.qfloor = L.qfloor[l];
            _mm_storeu_ps(sh.dq, _mm_loadu_ps(L.dq[l]));
            rgba_planes(&sh, a + stride * (size_t)L.v[0][l], a + stride * (size_t)L.v[1][l],
                        a + stride * (size_t)L.v[2][l], L.q[0][l], L.q[1][l], L.q[2][l], L.bx[l],
                        L.by[l], L.cx[l], L.cy[l], L.inv[l], L.pax[l], L.pay[l]);
            __m128i ev[3], sxv[3], syv[3];
            for (int e = 0; e < 3; e++) {
                ev[e] = _mm_loadu_si128((const __m128i *)L.ev[e][l]);
                sxv[e] = _mm_set1_epi32(L.sx[e][l]);
                syv[e] = _mm_set1_epi32(L.sy[e][l]);
            }
            narrow4_loop(b, &sh, ev, sxv, syv, L.r0[l], L.r1[l], L.c0[l], L.c1[l], MODE_RGBA,
                         PASS_OPAQUE);
        }
    }
}
#endif

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
        run_4_rgba_opaque8(b, &tc, bins, i0, i1);
        return;
    }
#endif
    if (si == 1 && mi == 1 && pass == PASS_OPAQUE)
        run_4_rgba_opaque(b, &tc, bins, i0, i1);
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
    wb_pool_run(pool, vtasks, light_task, ctx);
    wb_pool_run(pool, ftasks, facet_task, ctx);
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
