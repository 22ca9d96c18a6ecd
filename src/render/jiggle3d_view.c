/* jiggle3d_view.c — the jiggle kind's 3D views (see jiggle3d_view.h). */
#include "render/jiggle3d_view.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "render/camera.h"
#include "render/ramp.h"
#include "render/texture.h"
#include "sim/jiggle.h"

/* Model-frame sizes (weightmap.h's UV projections assume them). */
#define ORB_R 0.8f
#define CAPSULE_R 0.25f
#define CAPSULE_HALF 0.25f          /* cylinder half length: total height 1 */
#define TORUS_MAJOR 0.66f
#define TORUS_MINOR 0.28f
#define WALKER_SX 1.2f              /* torso cross-section: wider than deep */
#define WALKER_SZ 0.82f
#define WALKER_BUST 0.075           /* units outward at the bust dabs' centres */
#define WALKER_GLUTES 0.06
#define WALKER_DAB 0.34             /* a preset dab's peak weight (weightmap.c) */
#define FLOOR_CELL 0.5f             /* checker cell, world units */
#define FLOOR_CELLS 40              /* per side: the floor spans ±10 units */
#define FLOOR_FADE0 3.0             /* the checker fades into the background ... */
#define FLOOR_FADE1 9.5             /* ... between these distances from the shape */
#define FLOOR_LIFT 0.003f           /* shadow above the floor (no depth fight) */
#define FLAT_MARGIN 1e-3f           /* of a byte: a flat floor colour's distance from a tie */
#define SHADOW_SEG 48
#define SHADOW_RINGS 6
#define DANCER_DY 0.01              /* centreline slope by central differences */
#define DANCER_RING_SAMPLES 64      /* u samples of a ring's mean weight */
#define DANCER_SHOULDER_Y 0.52      /* the arms leave the body here ... */
#define DANCER_ARM_R 0.065f         /* ... as tubes this thick, */
#define DANCER_ARM_HALF 0.26f       /* half as long between the caps' centres, */
#define DANCER_ARM_RAISE (M_PI / 6) /* raised this far above the horizontal */

static const float BONE_TINT[3][3] = {{0.88f, 0.31f, 0.37f}, {0.31f, 0.71f, 0.47f},
                                      {0.31f, 0.50f, 0.88f}};

/* ---- shape meshes --------------------------------------------------------- */

/* A smooth profile through control points (r, y): uniform Catmull–Rom,
 * `per` samples per segment, the ends repeated as their own neighbours. */
static int profile_spline(const float (*cp)[2], int n_cp, int per, float *r, float *y)
{
    int m = 0;
    for (int i = 0; i + 1 < n_cp; i++) {
        const float *p0 = cp[i > 0 ? i - 1 : 0], *p1 = cp[i], *p2 = cp[i + 1];
        const float *p3 = cp[i + 2 < n_cp ? i + 2 : n_cp - 1];
        for (int k = 0; k < per; k++) {
            float t = (float)k / (float)per, t2 = t * t, t3 = t2 * t;
            float c0 = -0.5f * t3 + t2 - 0.5f * t, c1 = 1.5f * t3 - 2.5f * t2 + 1.0f;
            float c2 = -1.5f * t3 + 2.0f * t2 + 0.5f * t, c3 = 0.5f * t3 - 0.5f * t2;
            r[m] = fmaxf(0.0f, c0 * p0[0] + c1 * p1[0] + c2 * p2[0] + c3 * p3[0]);
            y[m] = c0 * p0[1] + c1 * p1[1] + c2 * p2[1] + c3 * p3[1];
            /* the spline may overshoot near the tight ends: keep the
             * profile rising and inside the ends' heights */
            y[m] = fminf(cp[n_cp - 1][1], fmaxf(m ? y[m - 1] : cp[0][1], y[m]));
            m++;
        }
    }
    r[m] = cp[n_cp - 1][0];
    y[m] = cp[n_cp - 1][1];
    return m + 1;
}

/* Capsule as a lathe so the cylinder has rings along it (the belly region
 * bends smoothly): hemispheres of radius R around y = ±H, poles at ±(H+R). */
static WbStatus capsule_mesh(WbMeshBuf *b, WbError *err)
{
    enum { CAP = 20, BODY = 28, N = 2 * CAP + BODY + 1 };
    float r[N], y[N];
    int m = 0;
    for (int k = 0; k < CAP; k++) {
        double a = -M_PI / 2 + M_PI / 2 * k / CAP;
        r[m] = (float)(CAPSULE_R * cos(a));
        y[m++] = (float)(-CAPSULE_HALF + CAPSULE_R * sin(a));
    }
    for (int k = 0; k < BODY; k++) {
        r[m] = CAPSULE_R;
        y[m++] = -CAPSULE_HALF + 2.0f * CAPSULE_HALF * (float)k / BODY;
    }
    for (int k = 0; k <= CAP; k++) {
        double a = M_PI / 2 * k / CAP;
        r[m] = k == CAP ? 0.0f : (float)(CAPSULE_R * cos(a));
        y[m++] = (float)(CAPSULE_HALF + CAPSULE_R * sin(a));
    }
    r[0] = 0.0f;
    const float c[3] = {0, 0, 0};
    return wb_mesh3_lathe(b, c, r, y, m, 96, err);
}

/* The air dancer: a tube r 0.19 standing on its feet at y = −1, a head
 * bulge near the top, rounded off at y = 1, and two arms: tubes r 0.065
 * from inside the body at shoulder height, raised 30° above the
 * horizontal, out to x = ±0.65.  The arms are no bones of their own: each
 * takes the weights and the centreline slope of the point where it leaves
 * the body (dancer_arms), so it rides and tilts with that ring as if fixed
 * to it (deform()'s centreline correction drops the arm on the side the
 * body leans to). */
static WbStatus dancer_arm(WbMeshBuf *b, float side, WbError *err)
{
    const float o[3] = {0, 0, 0};
    const int first = b->n_vertices;
    WbStatus st = wb_mesh3_capsule(b, o, DANCER_ARM_R, DANCER_ARM_HALF, 24, 6, err);
    if (st)
        return st;
    /* the capsule's axis (+y) onto (side·cos 30°, sin 30°, 0), its centre
     * DANCER_ARM_HALF + 0.05 along it from the shoulder (side·0.1, 0.52) */
    const double a = side * (M_PI / 2 - DANCER_ARM_RAISE), ca = cos(a), sa = sin(a);
    const double reach = DANCER_ARM_HALF + 0.05;
    const double c[3] = {side * 0.10 + sa * reach, DANCER_SHOULDER_Y + ca * reach, 0.0};
    for (int i = first; i < b->n_vertices; i++) {
        float *p = b->pos + 3 * i, *n = b->normal + 3 * i;
        const double x = p[0], y = p[1], nx = n[0], ny = n[1];
        p[0] = (float)(c[0] + ca * x + sa * y);
        p[1] = (float)(c[1] - sa * x + ca * y);
        p[2] = (float)(c[2] + p[2]);
        n[0] = (float)(ca * nx + sa * ny);
        n[1] = (float)(-sa * nx + ca * ny);
    }
    return WB_OK;
}

static WbStatus dancer_body(WbMeshBuf *b, WbError *err)
{
    static const float cp[][2] = {
        {0.00f, -1.00f}, {0.17f, -0.995f}, {0.19f, -0.97f}, {0.19f, -0.6f}, {0.19f, -0.2f},
        {0.19f, 0.2f},   {0.19f, 0.55f},   {0.205f, 0.68f}, {0.235f, 0.80f}, {0.22f, 0.90f},
        {0.15f, 0.975f}, {0.00f, 1.00f}};
    enum { NCP = sizeof cp / sizeof cp[0], PER = 10 };
    float r[NCP * PER + 1], y[NCP * PER + 1];
    int m = profile_spline(cp, NCP, PER, r, y);
    const float c[3] = {0, 0, 0};
    return wb_mesh3_lathe(b, c, r, y, m, 72, err);
}

/* The body, then the right arm (+x), then the left one, of as many
 * vertices each. */
static WbStatus dancer_mesh(WbMeshBuf *b, WbError *err)
{
    WbStatus st = dancer_body(b, err);
    if (!st)
        st = dancer_arm(b, 1.0f, err);
    return st ? st : dancer_arm(b, -1.0f, err);
}

/* The walker: a mannequin torso (thighs, hips, waist, chest, shoulders,
 * neck) as a body of revolution, squeezed to an oval section, then given
 * bust and glutes where the preset paints them: each vertex moves out
 * radially by WALKER_BUST·w0 + WALKER_GLUTES·w1 of the preset's raw dabs
 * (normalised to 1 at a dab's centre).  A radial move keeps the vertex's
 * angle and height, so its UV (weightmap.h: seam at −z, the back) is the
 * same before and after. */
static WbStatus walker_mesh(WbMeshBuf *b, WbError *err)
{
    static const float cp[][2] = {
        {0.00f, -0.95f}, {0.10f, -0.935f}, {0.14f, -0.86f}, {0.165f, -0.62f}, {0.195f, -0.35f},
        {0.215f, -0.14f}, {0.20f, 0.02f},  {0.17f, 0.12f},  {0.185f, 0.28f},  {0.20f, 0.40f},
        {0.205f, 0.54f}, {0.17f, 0.64f},  {0.085f, 0.71f}, {0.07f, 0.78f},   {0.05f, 0.83f},
        {0.00f, 0.84f}};
    enum { NCP = sizeof cp / sizeof cp[0], PER = 8 };
    float r[NCP * PER + 1], y[NCP * PER + 1];
    int m = profile_spline(cp, NCP, PER, r, y);
    const float c[3] = {0, 0, 0};
    int first = b->n_vertices;
    WbStatus st = wb_mesh3_lathe(b, c, r, y, m, 96, err);
    if (st)
        return st;
    WbWeightMap paint;
    if ((st = wb_weightmap_init(&paint, WB_WEIGHTMAP_DEFAULT_W, WB_WEIGHTMAP_DEFAULT_H, err)))
        return st;
    wb_weightmap_preset(&paint, WB_WEIGHT_WALKER);
    for (int i = first; i < b->n_vertices; i++) {
        float *p = b->pos + 3 * i;
        p[0] *= WALKER_SX;
        p[2] *= WALKER_SZ;
        double q[3] = {p[0], p[1], p[2]}, uv[2], rho = sqrt(q[0] * q[0] + q[2] * q[2]);
        float w[3];
        if (!(rho > 0))
            continue;
        wb_weight_shape_uv(WB_WEIGHT_WALKER, q, uv);
        wb_weightmap_sample(&paint, uv[0], uv[1], w);
        double grow = (WALKER_BUST * w[0] + WALKER_GLUTES * w[1]) / WALKER_DAB;
        p[0] = (float)(q[0] * (1.0 + grow / rho));
        p[2] = (float)(q[2] * (1.0 + grow / rho));
    }
    wb_weightmap_free(&paint);
    return WB_OK;
}

WbStatus wb_jiggle3_shape_mesh(WbMeshBuf *b, WbWeightShape shape, WbError *err)
{
    const float c[3] = {0, 0, 0};
    switch (shape) {
    case WB_WEIGHT_ORB: return wb_mesh3_sphere(b, c, ORB_R, 128, 80, err);
    case WB_WEIGHT_CAPSULE: return capsule_mesh(b, err);
    case WB_WEIGHT_TORUS: return wb_mesh3_torus(b, c, TORUS_MAJOR, TORUS_MINOR, 160, 64, err);
    case WB_WEIGHT_DANCER: return dancer_mesh(b, err);
    case WB_WEIGHT_WALKER: return walker_mesh(b, err);
    }
    return wb_error_set(err, WB_E_INPUT, "unknown jiggle shape %d", (int)shape);
}

void wb_jiggle3_sample_weights(const WbWeightMap *m, WbWeightShape shape, const float *pos,
                               size_t n, float *w)
{
    for (size_t i = 0; i < n; i++) {
        const double p[3] = {pos[3 * i], pos[3 * i + 1], pos[3 * i + 2]};
        double uv[2];
        wb_weight_shape_uv(shape, p, uv);
        wb_weightmap_sample(m, uv[0], uv[1], w + 3 * i);
    }
}

void wb_jiggle3_bone_rest(const float *pos, const float *w, size_t n, double rest[9],
                          double weight_sum[3])
{
    for (int b = 0; b < 3; b++) {
        double sw = 0, s[3] = {0, 0, 0};
        for (size_t i = 0; i < n; i++) {
            double wi = w[3 * i + b];
            sw += wi;
            for (int k = 0; k < 3; k++)
                s[k] += wi * pos[3 * i + k];
        }
        weight_sum[b] = sw;
        for (int k = 0; k < 3; k++)
            rest[3 * b + k] = sw > 0 ? s[k] / sw : 0.0;
    }
}

void wb_jiggle3_squash(float *pos, const float *rest, const float *w, size_t n,
                       const double bone_rest[9], const double offsets[9], double amount,
                       double reach)
{
    if (!(amount > 0) || !(reach > 0))
        return;
    /* Per bone: S − I = (s − 1/√s)·d dᵀ + (1/√s − 1)·I, applied to
     * r = rest − bone_rest: Δ = (1/√s − 1)·r + (s − 1/√s)(r·d)·d. */
    double d[3][3], k_iso[3], k_dir[3];
    bool any = false;
    for (int b = 0; b < 3; b++) {
        const double *o = offsets + 3 * b;
        double len = sqrt(o[0] * o[0] + o[1] * o[1] + o[2] * o[2]);
        k_iso[b] = k_dir[b] = 0.0;
        d[b][0] = d[b][1] = d[b][2] = 0.0;
        if (!(len > 1e-12))
            continue;
        double s = 1.0 + amount * fmin(len / reach, 1.0), q = 1.0 / sqrt(s);
        for (int k = 0; k < 3; k++)
            d[b][k] = o[k] / len;
        k_iso[b] = q - 1.0;
        k_dir[b] = s - q;
        any = true;
    }
    if (!any)
        return;
#ifdef __SSE2__
    /* The scalar loop below with x and y as one pair of doubles: each lane
     * the same operations in the same order, so the same bits. */
    __m128d brxy[3], dxy[3];
    for (int b = 0; b < 3; b++) {
        brxy[b] = _mm_loadu_pd(bone_rest + 3 * b);
        dxy[b] = _mm_loadu_pd(d[b]);
    }
    for (size_t i = 0; i < n; i++) {
        const float *p = rest + 3 * i;
        const __m128d pxy = _mm_setr_pd(p[0], p[1]);
        __m128d axy = _mm_setzero_pd();
        double az = 0.0;
        for (int b = 0; b < 3; b++) {
            double wb = w[3 * i + b];
            if (wb == 0.0 || k_dir[b] == 0.0)
                continue;
            const __m128d rxy = _mm_sub_pd(pxy, brxy[b]);
            const double rz = p[2] - bone_rest[3 * b + 2];
            const __m128d m = _mm_mul_pd(rxy, dxy[b]);
            const double rd = (_mm_cvtsd_f64(m) + _mm_cvtsd_f64(_mm_unpackhi_pd(m, m))) +
                              rz * d[b][2];
            const double kr = k_dir[b] * rd;
            axy = _mm_add_pd(axy, _mm_mul_pd(_mm_set1_pd(wb),
                                             _mm_add_pd(_mm_mul_pd(_mm_set1_pd(k_iso[b]), rxy),
                                                        _mm_mul_pd(_mm_set1_pd(kr), dxy[b]))));
            az += wb * (k_iso[b] * rz + kr * d[b][2]);
        }
        pos[3 * i] += (float)_mm_cvtsd_f64(axy);
        pos[3 * i + 1] += (float)_mm_cvtsd_f64(_mm_unpackhi_pd(axy, axy));
        pos[3 * i + 2] += (float)az;
    }
#else
    for (size_t i = 0; i < n; i++) {
        const float *p = rest + 3 * i;
        double acc[3] = {0, 0, 0};
        for (int b = 0; b < 3; b++) {
            double wb = w[3 * i + b];
            if (wb == 0.0 || k_dir[b] == 0.0)
                continue;
            double r[3] = {p[0] - bone_rest[3 * b], p[1] - bone_rest[3 * b + 1],
                           p[2] - bone_rest[3 * b + 2]};
            double rd = r[0] * d[b][0] + r[1] * d[b][1] + r[2] * d[b][2];
            for (int k = 0; k < 3; k++)
                acc[k] += wb * (k_iso[b] * r[k] + k_dir[b] * rd * d[b][k]);
        }
        for (int k = 0; k < 3; k++)
            pos[3 * i + k] += (float)acc[k];
    }
#endif
}

void wb_jiggle3_heat(const float w[3], float rgba[4])
{
    /* a dark base where nothing jiggles, each channel its own primary;
     * faint paint is boosted (1 − (1 − w)³) so a 0.3 dab still reads */
    for (int k = 0; k < 3; k++) {
        float x = w[k] < 0.0f ? 0.0f : (w[k] > 1.0f ? 1.0f : w[k]);
        float c = 0.25f + 0.75f * (1.0f - (1.0f - x) * (1.0f - x) * (1.0f - x));
        rgba[k] = c > 1.0f ? 1.0f : (c < 0.0f ? 0.0f : c);
    }
    rgba[3] = 1.0f;
}

/* ---- setup ------------------------------------------------------------------ */

/* Mean weight of each bone around the dancer's ring at model height y. */
static void ring_mean(const WbWeightMap *m, double y, double out[3])
{
    out[0] = out[1] = out[2] = 0.0;
    double v = fmin(1.0, fmax(0.0, (y + 1.0) / 2.0)); /* weightmap.h: dancer v */
    for (int k = 0; k < DANCER_RING_SAMPLES; k++) {
        float w[3];
        wb_weightmap_sample(m, (k + 0.5) / DANCER_RING_SAMPLES, v, w);
        for (int b = 0; b < 3; b++)
            out[b] += w[b];
    }
    for (int b = 0; b < 3; b++)
        out[b] /= DANCER_RING_SAMPLES;
}

static void dancer_slopes(WbJiggle3View *v, const WbWeightMap *m, int body)
{
    const int n = v->mesh.n_vertices;
    double last_y = NAN, slope[3] = {0, 0, 0};
    for (int i = 0; i < n; i++) {
        double y = i < body ? v->mesh.pos[3 * i + 1] : DANCER_SHOULDER_Y;
        if (y != last_y) { /* lathe vertices come ring by ring: one evaluation per ring */
            double a[3], c[3];
            ring_mean(m, y + DANCER_DY, a);
            ring_mean(m, y - DANCER_DY, c);
            for (int b = 0; b < 3; b++)
                slope[b] = (a[b] - c[b]) / (2.0 * DANCER_DY);
            last_y = y;
        }
        for (int b = 0; b < 3; b++)
            v->dwdy[3 * i + b] = (float)slope[b];
    }
}

/* The arms (the vertices after the body's `body`, right then left) take
 * the weights of the body's surface where they leave it. */
static void dancer_arms(WbJiggle3View *v, const WbWeightMap *m, int body)
{
    const int per = (v->mesh.n_vertices - body) / 2;
    for (int k = 0; k < 2; k++) {
        const float side = k ? -1.0f : 1.0f, at[3] = {side * 0.19f, DANCER_SHOULDER_Y, 0.0f};
        float w[3];
        wb_jiggle3_sample_weights(m, WB_WEIGHT_DANCER, at, 1, w);
        for (int i = body + k * per; i < body + (k + 1) * per; i++)
            memcpy(v->weights + 3 * i, w, sizeof w);
    }
}

/* Floor: unlit checker cells, each its own 4 vertices so the checker is
 * crisp, colours fading into the background with distance. */
static WbStatus build_floor(WbJiggle3View *v, WbError *err)
{
    const WbJiggle3Setup *s = &v->setup;
    const WbColor bg = s->transparent ? (WbColor){0.5, 0.5, 0.5, 0.0} : s->background;
    double lum = 0.2126 * bg.r + 0.7152 * bg.g + 0.0722 * bg.b;
    double lift = lum < 0.5 ? 1.0 : -1.0;
    double tone[2][3];
    for (int k = 0; k < 3; k++) {
        double c[3] = {bg.r, bg.g, bg.b};
        tone[0][k] = c[k] + lift * 0.07;
        tone[1][k] = c[k] + lift * 0.045;
    }
    tone[0][2] += lift * 0.01;
    float half = FLOOR_CELL * FLOOR_CELLS / 2.0f;
    for (int cz = 0; cz < FLOOR_CELLS; cz++)
        for (int cx = 0; cx < FLOOR_CELLS; cx++) {
            const float c[3] = {-half + FLOOR_CELL * (cx + 0.5f), (float)s->floor_y,
                                -half + FLOOR_CELL * (cz + 0.5f)};
            WbStatus st = wb_mesh3_plane(&v->floor, c, FLOOR_CELL, FLOOR_CELL, 1, 1, err);
            if (st)
                return st;
        }
    int nv = v->floor.n_vertices;
    v->floor_rgba = malloc(sizeof *v->floor_rgba * 4 * (size_t)nv);
    if (!v->floor_rgba)
        return wb_error_set(err, WB_E_IO, "out of memory");
    for (int i = 0; i < nv; i++) {
        int cell = i / 4, cx = cell % FLOOR_CELLS, cz = cell / FLOOR_CELLS;
        const double *t = tone[(cx + cz) & 1];
        double x = v->floor.pos[3 * i], z = v->floor.pos[3 * i + 2];
        double f = wb_smoothstep(FLOOR_FADE0, FLOOR_FADE1, sqrt(x * x + z * z));
        double a = s->transparent ? 1.0 - f : 1.0;
        const double c[3] = {bg.r, bg.g, bg.b};
        for (int k = 0; k < 3; k++) {
            double col = t[k] + (c[k] - t[k]) * f;
            v->floor_rgba[4 * i + k] = (float)(fmin(1.0, fmax(0.0, col)) * a);
        }
        v->floor_rgba[4 * i + 3] = (float)a;
    }
    /* Cells with one opaque colour at all four corners (the two tones
     * inside the fade; past it the background, unless that is at a
     * rounding tie) first, a group per colour, drawn flat: the colour the
     * interpolation would give at every pixel, without interpolating it;
     * the other cells after, in group WB_JIGGLE3_FLOOR_FLAT. */
    uint32_t *idx = v->floor.idx;
    const int cells = v->floor.n_triangles / 2;
    uint32_t *sorted = malloc(sizeof *sorted * 6 * (size_t)cells);
    int8_t *group = malloc((size_t)cells);
    if (!sorted || !group) {
        free(sorted);
        free(group);
        return wb_error_set(err, WB_E_IO, "out of memory");
    }
    uint32_t flat_of[WB_JIGGLE3_FLOOR_FLAT]; /* each group's first cell's first vertex */
    v->floor_flat = 0;
    for (int cell = 0; cell < cells; cell++) {
        const float *c0 = &v->floor_rgba[4 * idx[6 * cell]];
        bool flat = c0[3] == 1.0f;
        for (int k = 1; k < 4 && flat; k++)
            flat = memcmp(c0, &v->floor_rgba[4 * (4 * cell + k)], 4 * sizeof *c0) == 0;
        /* and well clear of a rounding tie, where the interpolation's last
         * bits would decide the byte */
        for (int k = 0; k < 3 && flat; k++) {
            const float e = c0[k] * 255.0f + 0.5f;
            flat = e - floorf(e) > FLAT_MARGIN && floorf(e) + 1.0f - e > FLAT_MARGIN;
        }
        int g = 0;
        while (flat && g < v->floor_flat &&
               memcmp(c0, &v->floor_rgba[4 * flat_of[g]], 4 * sizeof *c0) != 0)
            g++;
        if (flat && g == v->floor_flat && g < WB_JIGGLE3_FLOOR_FLAT) {
            flat_of[g] = idx[6 * cell];
            uint32_t col = 0xFF000000u;
            for (int k = 0; k < 3; k++)
                col |= (uint32_t)(c0[k] * 255.0f + 0.5f) << (8 * k);
            v->floor_color[v->floor_flat++] = col;
        }
        group[cell] = (int8_t)(flat && g < v->floor_flat ? g : WB_JIGGLE3_FLOOR_FLAT);
    }
    int m = 0;
    for (int g = 0; g <= WB_JIGGLE3_FLOOR_FLAT; g++) {
        const int first = m;
        for (int cell = 0; cell < cells; cell++)
            if (group[cell] == g) {
                memcpy(sorted + 3 * (size_t)m, idx + 6 * (size_t)cell, 6 * sizeof *idx);
                m += 2;
            }
        v->floor_tris[g] = m - first;
    }
    memcpy(idx, sorted, sizeof *sorted * 6 * (size_t)cells);
    free(sorted);
    free(group);
    return WB_OK;
}

/* The contact shadow's disc: a centre and SHADOW_RINGS rings of SHADOW_SEG
 * points (placed per frame), alpha falling off as (1 − ρ²)², black
 * (premultiplied: rgb 0), triangles counter-clockwise seen from above. */
static WbStatus build_shadow(WbJiggle3View *v, WbError *err)
{
    const int nv = 1 + SHADOW_SEG * SHADOW_RINGS, nt = SHADOW_SEG * (2 * SHADOW_RINGS - 1);
    v->shadow_pos = malloc(sizeof *v->shadow_pos * 3 * nv);
    v->shadow_rgba = calloc((size_t)nv * 4, sizeof *v->shadow_rgba);
    v->shadow_idx = malloc(sizeof *v->shadow_idx * 3 * nt);
    if (!v->shadow_pos || !v->shadow_rgba || !v->shadow_idx)
        return wb_error_set(err, WB_E_IO, "out of memory");
    for (int i = 0; i < nv; i++) {
        double rho = i == 0 ? 0.0 : (double)((i - 1) / SHADOW_SEG + 1) / SHADOW_RINGS;
        v->shadow_rgba[4 * i + 3] = (float)((1.0 - rho * rho) * (1.0 - rho * rho));
    }
    /* the angle runs from +z toward +x: counter-clockwise seen from +y */
    uint32_t *q = v->shadow_idx;
    for (int k = 0; k < SHADOW_SEG; k++) {
        *q++ = 0;
        *q++ = 1 + (uint32_t)k;
        *q++ = 1 + (uint32_t)((k + 1) % SHADOW_SEG);
    }
    for (int r = 1; r < SHADOW_RINGS; r++)
        for (int k = 0; k < SHADOW_SEG; k++) {
            uint32_t i0 = 1 + (uint32_t)((r - 1) * SHADOW_SEG + k);
            uint32_t i1 = 1 + (uint32_t)((r - 1) * SHADOW_SEG + (k + 1) % SHADOW_SEG);
            uint32_t o0 = i0 + SHADOW_SEG, o1 = i1 + SHADOW_SEG;
            *q++ = i0, *q++ = o0, *q++ = o1;
            *q++ = i0, *q++ = o1, *q++ = i1;
        }
    return WB_OK;
}

static WbStatus grow(float **p, size_t n, WbError *err)
{
    float *q = malloc(sizeof *q * n);
    if (!q)
        return wb_error_set(err, WB_E_IO, "out of memory");
    *p = q;
    return WB_OK;
}

WbStatus wb_jiggle3_view_init(WbJiggle3View *v, const WbJiggle3Setup *s, const WbWeightMap *m,
                              WbError *err)
{
    memset(v, 0, sizeof *v);
    v->setup = *s;
    v->setup.squash = fmin(WB_JIGGLE3_SQUASH_MAX, fmax(0.0, s->squash));
    WbStatus st = wb_raster3_create(&v->raster, s->width, s->height, s->samples, err);
    if (st)
        return st;
    if ((st = wb_jiggle3_shape_mesh(&v->mesh, s->shape, err)))
        goto fail;
    size_t n = (size_t)v->mesh.n_vertices;
    if ((st = grow(&v->weights, 3 * n, err)) || (st = grow(&v->pos, 3 * n, err)) ||
        (st = grow(&v->normal, 3 * n, err)))
        goto fail;
    v->normal_acc = malloc(sizeof *v->normal_acc * 3 * n);
    if (!v->normal_acc) {
        st = wb_error_set(err, WB_E_IO, "out of memory");
        goto fail;
    }
    wb_jiggle3_sample_weights(m, s->shape, v->mesh.pos, n, v->weights);
    int body = 0;
    if (s->shape == WB_WEIGHT_DANCER) {
        WbMeshBuf tmp = {0};
        st = dancer_body(&tmp, err);
        body = tmp.n_vertices;
        wb_meshbuf_free(&tmp);
        if (st || (st = grow(&v->dwdy, 3 * n, err)))
            goto fail;
        dancer_arms(v, m, body);
    }
    wb_jiggle3_bone_rest(v->mesh.pos, v->weights, n, v->bone_rest, v->bone_weight);
    if (s->shape == WB_WEIGHT_DANCER)
        dancer_slopes(v, m, body);
    if (s->heatmap) {
        if ((st = grow(&v->rgba, 4 * n, err)))
            goto fail;
        for (size_t i = 0; i < n; i++)
            wb_jiggle3_heat(v->weights + 3 * i, v->rgba + 4 * i);
    }
    /* bounding box → centre and radius (camera framing, shadow size) */
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (size_t i = 0; i < n; i++)
        for (int k = 0; k < 3; k++) {
            lo[k] = fmin(lo[k], v->mesh.pos[3 * i + k]);
            hi[k] = fmax(hi[k], v->mesh.pos[3 * i + k]);
        }
    double r2 = 0;
    for (int k = 0; k < 3; k++) {
        v->centre[k] = 0.5 * (lo[k] + hi[k]);
        r2 += 0.25 * (hi[k] - lo[k]) * (hi[k] - lo[k]);
    }
    v->radius = sqrt(r2);
    v->reach = 0.25 * (hi[1] - lo[1]) + 0.25 * fmax(hi[0] - lo[0], hi[2] - lo[2]);
    if (s->floor && ((st = build_floor(v, err)) || (st = build_shadow(v, err))))
        goto fail;
    return WB_OK;
fail:
    wb_jiggle3_view_free(v);
    return st;
}

void wb_jiggle3_view_free(WbJiggle3View *v)
{
    wb_raster3_destroy(v->raster);
    wb_meshbuf_free(&v->mesh);
    wb_meshbuf_free(&v->floor);
    free(v->shadow_pos);
    free(v->shadow_idx);
    wb_meshbuf_free(&v->extra);
    wb_meshbuf_free(&v->bones);
    free(v->weights);
    free(v->dwdy);
    free(v->pos);
    free(v->normal);
    free(v->normal_acc);
    free(v->rgba);
    free(v->floor_rgba);
    free(v->shadow_rgba);
    memset(v, 0, sizeof *v);
}

/* ---- per frame -------------------------------------------------------------- */

WbCamera wb_jiggle3_view_camera(const WbJiggle3View *v, const WbJiggle3Frame *f)
{
    double fov = f->fov > 1.0 && f->fov < 170.0 ? f->fov : 40.0;
    double dist = f->distance;
    if (!(dist > 0)) {
        /* The bounding sphere's outline spans 1/1.3 of the frame's shorter
         * side.  Seen from d, the sphere's outline is a cone of half-angle
         * α with sin α = r/d, which lands at tan α on the image plane; the
         * frame's half-extent there is T = tan(fov/2) (times the aspect
         * when the frame is taller than wide).  tan α = t = T/1.3 gives
         *   d = r/sin(atan t) = r·√(1 + t²)/t,
         * always > r: the camera stays outside the shape at any fov (r/t
         * alone put it inside the orb from fov ≈ 115° on, and the orb
         * vanished; it also drew the shape larger the wider the fov). */
        double aspect = (double)v->setup.width / v->setup.height;
        double half = tan(fov * M_PI / 360.0);
        double t = fmin(half, half * aspect) / 1.3;
        dist = v->radius * sqrt(1.0 + t * t) / t;
    }
    WbCamera c = wb_camera_orbit(v->centre, f->yaw, f->pitch, dist);
    c.fov_y = fov;
    return c;
}

/* The standard's deformation plus the styling of the header, into v->pos. */
static void deform(WbJiggle3View *v, const WbJiggle3Frame *f)
{
    const size_t n = (size_t)v->mesh.n_vertices;
    const float *rest = v->mesh.pos;
    memcpy(v->pos, rest, sizeof *v->pos * 3 * n);
    wb_jiggle_deform(v->pos, 3, n, v->weights, 3, f->offsets);
    wb_jiggle3_squash(v->pos, rest, v->weights, n, v->bone_rest, f->offsets, v->setup.squash,
                      v->reach);
    if (v->dwdy) {
        for (size_t i = 0; i < n; i++) {
            const float *g = v->dwdy + 3 * i;
            double sx = g[0] * f->offsets[0] + g[1] * f->offsets[3] + g[2] * f->offsets[6];
            double sz = g[0] * f->offsets[2] + g[1] * f->offsets[5] + g[2] * f->offsets[8];
            v->pos[3 * i + 1] -= (float)(rest[3 * i] * sx + rest[3 * i + 2] * sz);
        }
    }
    const float b[3] = {(float)f->body[0], (float)f->body[1], (float)f->body[2]};
    const float fl = (float)v->setup.floor_y;
    for (size_t i = 0; i < n; i++) {
        for (int k = 0; k < 3; k++)
            v->pos[3 * i + k] += b[k];
        if (v->setup.floor && v->pos[3 * i + 1] < fl)
            v->pos[3 * i + 1] = fl;
    }
    wb_mesh3_normals_into(v->pos, (int)n, v->mesh.idx, v->mesh.n_triangles, v->normal,
                          v->normal_acc);
}

static WbMesh3 mesh_of(const WbMeshBuf *b, int tri0, int tri1)
{
    WbMesh3 m = {
        .n_vertices = b->n_vertices,
        .pos = b->pos,
        .normal = b->normal,
        .indices = b->idx + 3 * (size_t)tri0,
        .n_triangles = tri1 - tri0,
        .paint = WB_PAINT_COLOR,
        .material = wb_material_default(),
        .opacity = 1.0f,
        .cull_back = true,
    };
    return m;
}

static uint32_t premul3(const float c[3], float k)
{
    return wb_rgba_premul(fmin(1.0, c[0] * k), fmin(1.0, c[1] * k), fmin(1.0, c[2] * k), 1.0);
}

/* The contact shadow under the body: a disc a little wider than the
 * shape, fainter and wider the higher the shape's bottom is above the floor. */
static void record_shadow(WbJiggle3View *v, const WbJiggle3Frame *f)
{
    double lowest = INFINITY, rx = 0;
    for (int i = 0; i < v->mesh.n_vertices; i++) {
        lowest = fmin(lowest, v->pos[3 * i + 1]);
        double dx = v->mesh.pos[3 * i], dz = v->mesh.pos[3 * i + 2];
        rx = fmax(rx, sqrt(dx * dx + dz * dz));
    }
    double h = fmax(0.0, lowest - v->setup.floor_y);
    double R = rx * 1.15 + 0.6 * h;
    float y = (float)v->setup.floor_y + FLOOR_LIFT;
    float *p = v->shadow_pos;
    p[0] = (float)f->body[0];
    p[1] = y;
    p[2] = (float)f->body[2];
    for (int r = 0; r < SHADOW_RINGS; r++)
        for (int k = 0; k < SHADOW_SEG; k++) {
            int i = 1 + r * SHADOW_SEG + k;
            double a = 2.0 * M_PI * k / SHADOW_SEG, rho = R * (r + 1) / SHADOW_RINGS;
            p[3 * i] = (float)(f->body[0] + rho * sin(a));
            p[3 * i + 1] = y;
            p[3 * i + 2] = (float)(f->body[2] + rho * cos(a));
        }
    WbMesh3 m = {
        .n_vertices = 1 + SHADOW_SEG * SHADOW_RINGS,
        .pos = v->shadow_pos,
        .indices = v->shadow_idx,
        .n_triangles = SHADOW_SEG * (2 * SHADOW_RINGS - 1),
        .paint = WB_PAINT_VERTEX_COLOR,
        .rgba = v->shadow_rgba,
        .material = wb_material_default(),
        .opacity = (float)(0.42 * exp(-2.0 * h / fmax(0.1, v->radius))),
    };
    m.material.unlit = true;
    if (m.opacity > 0.0f)
        wb_raster3_mesh(v->raster, &m);
}

/* A thin square prism from a to b (the bone's line), appended to m. */
static WbStatus prism(WbMeshBuf *m, const double a[3], const double b[3], double width,
                      WbError *err)
{
    double d[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
    double len = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    if (len < 1e-6)
        return WB_OK;
    for (int k = 0; k < 3; k++)
        d[k] /= len;
    /* any vector not parallel to d, then two perpendiculars */
    double t[3] = {fabs(d[1]) < 0.9 ? 0.0 : 1.0, fabs(d[1]) < 0.9 ? 1.0 : 0.0, 0.0};
    double e1[3] = {d[1] * t[2] - d[2] * t[1], d[2] * t[0] - d[0] * t[2],
                    d[0] * t[1] - d[1] * t[0]};
    double l1 = sqrt(e1[0] * e1[0] + e1[1] * e1[1] + e1[2] * e1[2]);
    for (int k = 0; k < 3; k++)
        e1[k] *= width / l1;
    /* e2 = e1 × d keeps (e1, d, e2) right-handed: the box's winding survives */
    double e2[3] = {e1[1] * d[2] - e1[2] * d[1], e1[2] * d[0] - e1[0] * d[2],
                    e1[0] * d[1] - e1[1] * d[0]};
    /* reuse the box generator for storage, then place its 8 corners */
    const float lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
    int v0 = m->n_vertices;
    WbStatus st = wb_mesh3_box(m, lo, hi, err);
    if (st)
        return st;
    for (int i = v0; i < m->n_vertices; i++) {
        float *p = m->pos + 3 * i;
        double u = p[0] - 0.5, w = p[2] - 0.5, along = p[1];
        for (int k = 0; k < 3; k++)
            p[k] = (float)(a[k] + along * len * d[k] + 2.0 * u * e1[k] + 2.0 * w * e2[k]);
    }
    return WB_OK;
}

/* Bone overlay: per bone a grey rest bead, a line and a tinted tip bead,
 * drawn on top of everything (no depth test) so the bones show through. */
static WbStatus record_bones(WbJiggle3View *v, const WbJiggle3Frame *f, WbError *err)
{
    WbMeshBuf *m = &v->bones;
    wb_meshbuf_clear(m);
    int tri[3][4];
    double s = v->radius;
    for (int b = 0; b < 3; b++) {
        const double *o = f->offsets + 3 * b;
        double rest[3], tip[3];
        for (int k = 0; k < 3; k++) {
            rest[k] = v->bone_rest[3 * b + k] + f->body[k];
            tip[k] = rest[k] + o[k];
        }
        tri[b][0] = m->n_triangles;
        WbStatus st = prism(m, rest, tip, 0.006 * s, err);
        if (!st && f->chain && b > 0) {
            double prev[3];
            for (int k = 0; k < 3; k++)
                prev[k] = v->bone_rest[3 * b - 3 + k] + f->body[k] + f->offsets[3 * b - 3 + k];
            st = prism(m, prev, tip, 0.009 * s, err);
        }
        tri[b][1] = m->n_triangles;
        const float cr[3] = {(float)rest[0], (float)rest[1], (float)rest[2]};
        const float ct[3] = {(float)tip[0], (float)tip[1], (float)tip[2]};
        if (!st)
            st = wb_mesh3_sphere(m, cr, (float)(0.03 * s), 16, 10, err);
        tri[b][2] = m->n_triangles;
        if (!st)
            st = wb_mesh3_sphere(m, ct, (float)(0.05 * s), 20, 12, err);
        tri[b][3] = m->n_triangles;
        if (st)
            return st;
    }
    for (int b = 0; b < 3; b++) {
        if (!(v->bone_weight[b] > 0))
            continue;
        const float ink[3] = {0.93f, 0.94f, 0.96f};
        WbMesh3 line = mesh_of(m, tri[b][0], tri[b][1]);
        line.normal = NULL;
        line.material.unlit = true;
        line.color = premul3(ink, 1.0f);
        line.on_top = true;
        WbMesh3 bead = mesh_of(m, tri[b][1], tri[b][2]);
        bead.color = premul3(ink, 0.8f);
        bead.on_top = true;
        WbMesh3 tipm = mesh_of(m, tri[b][2], tri[b][3]);
        tipm.color = premul3(BONE_TINT[b], 1.0f);
        tipm.on_top = true;
        if (line.n_triangles)
            wb_raster3_mesh(v->raster, &line);
        wb_raster3_mesh(v->raster, &bead);
        wb_raster3_mesh(v->raster, &tipm);
    }
    return WB_OK;
}

/* The capsule collider: wb_mesh3_capsule's y-axis capsule turned onto the
 * axis a-b (a right-handed frame u, d, w with d along b - a) and centred
 * between the ends. */
static WbStatus capsule_collider_mesh(WbMeshBuf *m, const WbJiggle3Setup *s, WbError *err)
{
    double d[3], len = 0.0;
    for (int k = 0; k < 3; k++) {
        d[k] = s->capsule_b[k] - s->capsule_a[k];
        len += d[k] * d[k];
    }
    len = sqrt(len);
    if (len > 0) {
        for (int k = 0; k < 3; k++)
            d[k] /= len;
    } else {
        d[0] = d[2] = 0.0;
        d[1] = 1.0;
    }
    const double h[3] = {fabs(d[2]) < 0.9 ? 0.0 : 1.0, 0.0, fabs(d[2]) < 0.9 ? 1.0 : 0.0};
    double u[3] = {h[1] * d[2] - h[2] * d[1], h[2] * d[0] - h[0] * d[2], h[0] * d[1] - h[1] * d[0]};
    double un = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
    for (int k = 0; k < 3; k++)
        u[k] /= un;
    const double w[3] = {u[1] * d[2] - u[2] * d[1], u[2] * d[0] - u[0] * d[2],
                         u[0] * d[1] - u[1] * d[0]};
    const float origin[3] = {0.0f, 0.0f, 0.0f};
    int v0 = m->n_vertices;
    WbStatus st = wb_mesh3_capsule(m, origin, (float)s->capsule_r, (float)(0.5 * len), 48, 16,
                                   err);
    if (st)
        return st;
    for (int i = v0; i < m->n_vertices; i++) {
        float *p = m->pos + 3 * i, *n = m->normal + 3 * i;
        double lp[3] = {p[0], p[1], p[2]}, ln[3] = {n[0], n[1], n[2]};
        for (int k = 0; k < 3; k++) {
            double mid = 0.5 * (s->capsule_a[k] + s->capsule_b[k]);
            p[k] = (float)(mid + lp[0] * u[k] + lp[1] * d[k] + lp[2] * w[k]);
            n[k] = (float)(ln[0] * u[k] + ln[1] * d[k] + ln[2] * w[k]);
        }
    }
    return WB_OK;
}

/* Static props that move with the body or stand in the world: the air
 * dancer's blower box and the sphere and capsule colliders. */
static WbStatus record_extra(WbJiggle3View *v, const WbJiggle3Frame *f, WbError *err)
{
    WbMeshBuf *m = &v->extra;
    wb_meshbuf_clear(m);
    WbStatus st;
    int box_end = 0;
    if (v->setup.shape == WB_WEIGHT_DANCER) {
        const float lo[3] = {(float)f->body[0] - 0.3f, (float)f->body[1] - 1.12f,
                             (float)f->body[2] - 0.3f};
        const float hi[3] = {(float)f->body[0] + 0.3f, (float)f->body[1] - 0.995f,
                             (float)f->body[2] + 0.3f};
        if ((st = wb_mesh3_box(m, lo, hi, err)))
            return st;
        box_end = m->n_triangles;
    }
    if (v->setup.sphere) {
        const float c[3] = {(float)v->setup.sphere_at[0], (float)v->setup.sphere_at[1],
                            (float)v->setup.sphere_at[2]};
        if ((st = wb_mesh3_sphere(m, c, (float)v->setup.sphere_r, 64, 32, err)))
            return st;
    }
    if (v->setup.capsule && (st = capsule_collider_mesh(m, &v->setup, err)))
        return st;
    if (box_end) {
        const float grey[3] = {0.32f, 0.34f, 0.38f};
        WbMesh3 box = mesh_of(m, 0, box_end);
        box.color = premul3(grey, 1.0f);
        wb_raster3_mesh(v->raster, &box);
    }
    if (m->n_triangles > box_end) {
        const float steel[3] = {0.62f, 0.66f, 0.72f};
        WbMesh3 ball = mesh_of(m, box_end, m->n_triangles);
        ball.color = premul3(steel, 1.0f);
        ball.material.specular = 0.5f;
        wb_raster3_mesh(v->raster, &ball);
    }
    return WB_OK;
}

WbStatus wb_jiggle3_view_draw(WbJiggle3View *v, const WbJiggle3Frame *f, WbPool *pool,
                              WbImage *out, WbError *err)
{
    const WbJiggle3Setup *s = &v->setup;
    WbCamera cam = wb_jiggle3_view_camera(v, f);
    WbLighting light = wb_lighting_default();
    uint32_t bg = s->transparent ? 0u
                                 : wb_rgba_premul(s->background.r, s->background.g,
                                                  s->background.b, 1.0);
    wb_raster3_begin(v->raster, &cam, &light, bg);
    deform(v, f);
    WbMesh3 shape = {
        .n_vertices = v->mesh.n_vertices,
        .pos = v->pos,
        .normal = v->normal,
        .indices = v->mesh.idx,
        .n_triangles = v->mesh.n_triangles,
        .paint = v->rgba ? WB_PAINT_VERTEX_COLOR : WB_PAINT_COLOR,
        .rgba = v->rgba,
        .color = wb_rgba_premul(s->colour.r, s->colour.g, s->colour.b, 1.0),
        .material = wb_material_default(),
        .opacity = 1.0f,
        .cull_back = true,
    };
    shape.material.specular = 0.3f;
    shape.material.shininess = 40.0f;
    wb_raster3_mesh(v->raster, &shape);
    WbStatus st = record_extra(v, f, err);
    if (st)
        return st;
    if (s->floor) {
        for (int g = 0, t0 = 0; g <= WB_JIGGLE3_FLOOR_FLAT; t0 += v->floor_tris[g++]) {
            WbMesh3 floor = mesh_of(&v->floor, t0, t0 + v->floor_tris[g]);
            if (g < WB_JIGGLE3_FLOOR_FLAT) {
                floor.color = v->floor_color[g];
            } else {
                floor.paint = WB_PAINT_VERTEX_COLOR;
                floor.rgba = v->floor_rgba;
            }
            floor.material.unlit = true;
            floor.cull_back = false;
            if (floor.n_triangles > 0)
                wb_raster3_mesh(v->raster, &floor);
        }
        record_shadow(v, f);
    }
    if (f->overlay && (st = record_bones(v, f, err)))
        return st;
    return wb_raster3_end(v->raster, pool, out, err);
}
