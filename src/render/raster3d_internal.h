/* raster3d_internal.h — the 3D rasterizer's private types and the helpers
 * its stages share in their inner loops (raster3d.c: API, frame, binning;
 * raster3d_kernel.inc: the vertex, setup and band stages, with the AVX2
 * eight-triangle run; raster3d_light_kernel.inc: the light stages). */
#ifndef WB_RENDER_RASTER3D_INTERNAL_H
#define WB_RENDER_RASTER3D_INTERNAL_H

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
#define BAND_ROWS DEPTH_BAND_ROWS
#define VTX_BLOCK 8192
#define TRI_BLOCK 8192
#define MAX_POLY 9                 /* a triangle clipped by 5 planes */
#define MAX_ATTR 8

/* The per-frame stages are built once per width (raster3d_kernel.inc,
 * raster3d_light_kernel.inc; core/simd.h): the AVX2 forms below exist only
 * in the 8-lane files. */
#if defined(__AVX2__)
#include <immintrin.h>
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
    DepthBand *workers;        /* per thread: one band's samples */
    int n_workers;
};


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

typedef struct EndCtx {
    WbRaster3 *r;
    int S;
    Pattern pat;                       /* the core's sample pattern */
    int n_bands;
    BandQueue bands;
    uint8_t bg_px[4];                  /* the background, resolved */
    WbImage *out;
} EndCtx;

static inline int cmd_for_task(const WbRaster3 *r, int task, int stage)
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
static inline TriCtx tri_ctx(const WbRaster3 *r, const Cmd *cmd)
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

#ifdef __AVX2__
/* a[s] holds sample s of eight lanes; out[l] gets lane l's four samples. */
static inline void transpose_4x8(const __m256i a[4], int32_t out[8][4])
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

#endif

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
        /* blended four samples at once, stored to those that passed */
        const __m128i bits = _mm_setr_epi32(1, 2, 4, 8);
        for (int q = 0; q < S / 4; q++) {
            const unsigned mq = mask >> (4 * q) & 15u;
            if (!mq)
                continue;
            const __m128i old = _mm_loadu_si128((const __m128i *)(cp + 4 * q));
            const __m128i nv = blend_over4(col, old);
            const __m128i sel = _mm_cmpeq_epi32(_mm_and_si128(_mm_set1_epi32((int32_t)mq), bits), bits);
            _mm_storeu_si128((__m128i *)(cp + 4 * q),
                             _mm_or_si128(_mm_and_si128(sel, nv), _mm_andnot_si128(sel, old)));
            if (pass == PASS_OPAQUE) {
                const __m128 self = _mm_castsi128_ps(sel), od = _mm_loadu_ps(dp + 4 * q);
                _mm_storeu_ps(dp + 4 * q, _mm_or_ps(_mm_and_ps(self, qs[q]), _mm_andnot_ps(self, od)));
            }
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

#endif

/* One triangle's walk through the core (raster_core.h's tri_walk): the
 * band's samples and the triangle's shading. */
typedef struct Walk3 {
    Shade *sh;
    uint32_t *color;
    float *depth;
    int32_t *lo, *hi;          /* the band's drawn spans, from its first row */
    int32_t y0;                /* the band's first row */
} Walk3;

static ALWAYS_INLINE Walk3 walk3(const Band *b, Shade *sh)
{
    return (Walk3){.sh = sh, .color = b->color, .depth = b->depth, .lo = b->lo, .hi = b->hi,
                   .y0 = b->y0};
}

/* A row of the triangle's box starts: widen the row's drawn span (the
 * resolve reads it) and hoist the planes' y terms. */
static ALWAYS_INLINE void walk3_row(void *ud, const TriBox *t, int32_t py, const int S,
                                    const int mode, const int pass)
{
    (void)S, (void)pass;
    Walk3 *w = ud;
    int32_t *lo = w->lo + (py - w->y0), *hi = w->hi + (py - w->y0);
    *lo = t->c0 < *lo ? t->c0 : *lo;
    *hi = t->c1 > *hi ? t->c1 : *hi;
    shade_row(w->sh, (float)(py - t->r0), mode);
}

/* A covered pixel: depth test, shade, store (shade_pixel). */
static ALWAYS_INLINE void walk3_pixel(void *ud, size_t si, unsigned mask, int32_t i, int32_t j,
                                      const int S, const int mode, const int pass)
{
    Walk3 *w = ud;
    shade_pixel(w->sh, w->color + si, w->depth + si, mask, (float)i, (float)j, S, mode, pass);
}

#ifdef __AVX512F__
/* walk3_quad's pixels one at a time (shade_pixel), for a colour not opaque. */
static inline void quad_by_pixel(const Shade *sh, uint32_t *cp, float *dp, unsigned mask,
                                 int32_t i, int32_t j, const int mode)
{
    for (int p = 0; p < 4; p++)
        if (mask >> 4 * p & 15u)
            shade_pixel(sh, cp + 4 * p, dp + 4 * p, mask >> 4 * p & 15u, (float)(i + p), (float)j,
                        4, mode, PASS_OPAQUE);
}

/* Four neighbouring pixels, 4 samples each, an opaque pass's flat or
 * interpolated colour (MODE_FLAT, MODE_RGBA): shade_pixel's results for
 * pixels i .. i + 3, side by side in 16 lanes with shade_pixel's and
 * shade_color's float operations lane for lane (so the same bits; a
 * pixel's colour channels take the lanes of its samples).  Loads and
 * stores are masked to the covered samples, so nothing past the box is
 * touched.  A pixel passing the depth test with a colour not opaque sends
 * the quad through shade_pixel, pixel by pixel (nothing of it is stored
 * before, so shade_pixel tests depth again from the same samples). */
static ALWAYS_INLINE void walk3_quad(void *ud, size_t si, unsigned mask, int32_t i, int32_t j,
                                     const int mode, const int pass)
{
    (void)pass;
    Walk3 *w = ud;
    const Shade *sh = w->sh;
    uint32_t *cp = w->color + si;
    float *dp = w->depth + si;
    const __mmask16 m = (__mmask16)mask;
    const __m512 dx = _mm512_cvtepi32_ps(_mm512_add_epi32(
        _mm512_set1_epi32(i), _mm512_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3)));
    const __m512 qc = _mm512_add_ps(
        _mm512_add_ps(_mm512_set1_ps(sh->pq.o), _mm512_mul_ps(_mm512_set1_ps(sh->pq.gx), dx)),
        _mm512_set1_ps(sh->qy));
    const __m512 qs = _mm512_add_ps(qc, _mm512_broadcast_f32x4(_mm_loadu_ps(sh->dq)));
    const __mmask16 pm = _mm512_mask_cmp_ps_mask(m, qs, _mm512_maskz_loadu_ps(m, dp), _CMP_GT_OQ);
    if (!pm)
        return;
    if (mode == MODE_FLAT) {
        if (sh->flat >> 24 != 255u) {
            quad_by_pixel(sh, cp, dp, mask, i, j, MODE_FLAT);
            return;
        }
        _mm512_mask_storeu_ps(dp, pm, qs);
        _mm512_mask_storeu_epi32(cp, pm, _mm512_set1_epi32((int32_t)sh->flat));
        return;
    }
    const __m512 qf = _mm512_set1_ps(sh->qfloor);
    const __m512 iq = _mm512_div_ps(_mm512_set1_ps(1.0f),
                                    _mm512_mask_blend_ps(_mm512_cmp_ps_mask(qc, qf, _CMP_GT_OQ), qf, qc));
    __m512 v = _mm512_add_ps(_mm512_add_ps(_mm512_broadcast_f32x4(sh->po),
                                           _mm512_mul_ps(_mm512_broadcast_f32x4(sh->pgx), dx)),
                             _mm512_broadcast_f32x4(sh->ay));
    v = _mm512_mul_ps(v, iq);
    __m512 a = _mm512_permute_ps(v, 0xFF);
    a = _mm512_min_ps(_mm512_max_ps(a, _mm512_setzero_ps()), _mm512_set1_ps(1.0f));
    v = _mm512_min_ps(_mm512_max_ps(v, _mm512_setzero_ps()), a);
    v = _mm512_add_ps(_mm512_mul_ps(v, _mm512_set1_ps(255.0f)), _mm512_set1_ps(0.5f));
    /* each channel in [0, 255] (NaN clamps to 0 as in shade_color), so
     * truncating to bytes is the SSE path's saturating packs */
    const __m128i px = _mm512_cvtepi32_epi8(_mm512_cvttps_epi32(v));
    const __m512i col = _mm512_permutexvar_epi32(
        _mm512_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3), _mm512_castsi128_si512(px));
    if (_mm512_mask_cmpneq_epi32_mask(pm, _mm512_srli_epi32(col, 24), _mm512_set1_epi32(255))) {
        quad_by_pixel(sh, cp, dp, mask, i, j, MODE_RGBA);
        return;
    }
    _mm512_mask_storeu_ps(dp, pm, qs);
    _mm512_mask_storeu_epi32(cp, pm, col);
}
#endif

/* Pixels i0..i1 of row j, every sample covered (a wide triangle's inside):
 * shade_pixel's results.  Opaque flat or interpolated colours, 4 samples,
 * go two pixels at a time, with shade_pixel's and shade_color's float
 * operations lane for lane (so the same bits); a pair with a colour not
 * opaque goes pixel by pixel. */
static ALWAYS_INLINE void walk3_span(void *ud, size_t si, int32_t i0, int32_t i1, int32_t j,
                                     const int S, const int mode, const int pass)
{
    int32_t i = i0;
#ifdef __AVX2__
    Walk3 *w = ud;
    const Shade *sh = w->sh;
    if (S == 4 && pass == PASS_OPAQUE &&
        (mode == MODE_RGBA || (mode == MODE_FLAT && sh->flat >> 24 == 255u))) {
        const __m256 o = _mm256_set1_ps(sh->pq.o), gx = _mm256_set1_ps(sh->pq.gx);
        const __m256 qy = _mm256_set1_ps(sh->qy);
        const __m256 dq = _mm256_broadcast_ps((const __m128 *)(const void *)sh->dq);
        const __m256i two = _mm256_set1_epi32(2);
        __m256i col = _mm256_set1_epi32((int32_t)sh->flat);
        __m256i iv = _mm256_add_epi32(_mm256_set1_epi32(i0),
                                      _mm256_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1));
        uint32_t *cp = w->color + si;
        float *dp = w->depth + si;
        for (; i < i1; i += 2, cp += 8, dp += 8, si += 8) {
            const __m256 dx = _mm256_cvtepi32_ps(iv);
            iv = _mm256_add_epi32(iv, two);
            /* q at the two centres, then at each sample; the depth test */
            const __m256 qc = _mm256_add_ps(_mm256_add_ps(o, _mm256_mul_ps(gx, dx)), qy);
            const __m256 qs = _mm256_add_ps(qc, dq);
            const __m256 d = _mm256_loadu_ps(dp);
            const __m256 nearer = _mm256_cmp_ps(qs, d, _CMP_GT_OQ);
            if (mode == MODE_RGBA) {
                /* shade_color: (a·q)/q, clamped and rounded */
                const __m256 qf = _mm256_set1_ps(sh->qfloor);
                const __m256 iq = _mm256_div_ps(
                    _mm256_set1_ps(1.0f), _mm256_blendv_ps(qf, qc, _mm256_cmp_ps(qc, qf, _CMP_GT_OQ)));
                __m256 v = _mm256_add_ps(
                    _mm256_add_ps(_mm256_broadcast_ps(&sh->po),
                                  _mm256_mul_ps(_mm256_broadcast_ps(&sh->pgx), dx)),
                    _mm256_broadcast_ps(&sh->ay));
                v = _mm256_mul_ps(v, iq);
                __m256 a = _mm256_permute_ps(v, 0xFF);
                a = _mm256_min_ps(_mm256_max_ps(a, _mm256_setzero_ps()), _mm256_set1_ps(1.0f));
                v = _mm256_min_ps(_mm256_max_ps(v, _mm256_setzero_ps()), a);
                v = _mm256_add_ps(_mm256_mul_ps(v, _mm256_set1_ps(255.0f)), _mm256_set1_ps(0.5f));
                __m256i c8 = _mm256_cvttps_epi32(v);
                c8 = _mm256_packs_epi32(c8, c8);
                c8 = _mm256_packus_epi16(c8, c8);
                /* each half's first lane holds its pixel's colour */
                const uint32_t c0 = (uint32_t)_mm256_extract_epi32(c8, 0);
                const uint32_t c1 = (uint32_t)_mm256_extract_epi32(c8, 4);
                if ((c0 & c1) >> 24 != 255u) {
                    walk3_pixel(ud, si, 15u, i, j, S, mode, pass);
                    walk3_pixel(ud, si + 4, 15u, i + 1, j, S, mode, pass);
                    continue;
                }
                col = _mm256_setr_epi32((int32_t)c0, (int32_t)c0, (int32_t)c0, (int32_t)c0,
                                        (int32_t)c1, (int32_t)c1, (int32_t)c1, (int32_t)c1);
            }
            _mm256_storeu_ps(dp, _mm256_blendv_ps(d, qs, nearer));
            const __m256i c = _mm256_loadu_si256((const __m256i *)(void *)cp);
            _mm256_storeu_si256((__m256i *)(void *)cp,
                                _mm256_blendv_epi8(c, col, _mm256_castps_si256(nearer)));
        }
    }
#endif
    for (; i <= i1; i++, si += (size_t)S)
        walk3_pixel(ud, si, (1u << S) - 1u, i, j, S, mode, pass);
}

/* The stages at each width (raster3d_kernel.inc, raster3d_light_kernel.inc),
 * pool tasks over an EndCtx; raster3d.c picks one width per frame. */
void wb_raster3d_vertex_task_w4(void *vctx, int task);
void wb_raster3d_setup_task_w4(void *vctx, int task);
void wb_raster3d_light_task_w4(void *vctx, int task);
void wb_raster3d_band_task_w4(void *vctx, int task);
#if WB_SIMD_WIDE
void wb_raster3d_vertex_task_w8(void *vctx, int task);
void wb_raster3d_setup_task_w8(void *vctx, int task);
void wb_raster3d_light_task_w8(void *vctx, int task);
void wb_raster3d_band_task_w8(void *vctx, int task);
void wb_raster3d_vertex_task_w16(void *vctx, int task);
void wb_raster3d_setup_task_w16(void *vctx, int task);
void wb_raster3d_band_task_w16(void *vctx, int task);
#endif
void wb_raster3d_facet_task(void *vctx, int task);

#endif
