/* mesh3.c — see mesh3.h.
 *
 * Every curved generator is a stack of rings of `slices` vertices, with an
 * optional pole vertex below the first ring and above the last (sphere,
 * ellipsoid, capsule, lathe), or a doubly wrapped grid (torus).  One helper
 * stitches rings together, so the winding and the seam sharing are written
 * once: around a ring, angle a runs so that the tangent d/da points along
 * +x at the ring's +z side, i.e. positions (r·sin a, y, r·cos a); with "up
 * the stack" (+y on a sphere) that gives (d/da) × (d/dstack) pointing
 * outward, so the quad (j,i) (j,i+1) (j+1,i+1) (j+1,i) splits into two
 * counter-clockwise triangles seen from outside.
 */
#include "render/mesh3.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define TAU 6.28318530717958647692
/* Keeps index arithmetic and array sizes far from int and uint32 limits. */
#define MAX_ELEMS (1 << 26)

void wb_meshbuf_free(WbMeshBuf *b)
{
    if (!b)
        return;
    free(b->pos);
    free(b->normal);
    free(b->uv);
    free(b->idx);
    memset(b, 0, sizeof *b);
}

void wb_meshbuf_clear(WbMeshBuf *b)
{
    b->n_vertices = 0;
    b->n_triangles = 0;
}

static bool grow_f(float **p, int per, int need)
{
    float *q = realloc(*p, (size_t)need * (size_t)per * sizeof *q);
    if (!q)
        return false;
    *p = q;
    return true;
}

/* Make room for nv more vertices and nt more triangles, all or nothing as
 * far as the counts go (a partial realloc only grows capacity). */
static WbStatus reserve(WbMeshBuf *b, long nv, long nt, WbError *err)
{
    if (nv > MAX_ELEMS - b->n_vertices || nt > MAX_ELEMS - b->n_triangles)
        return wb_error_set(err, WB_E_INPUT, "mesh too large (%ld vertices, %ld triangles)",
                            nv + b->n_vertices, nt + b->n_triangles);
    int need_v = b->n_vertices + (int)nv, need_t = b->n_triangles + (int)nt;
    if (need_v > b->cap_vertices) {
        int cap = b->cap_vertices ? b->cap_vertices : 64;
        while (cap < need_v)
            cap *= 2;
        if (!grow_f(&b->pos, 3, cap) ||
            !grow_f(&b->normal, 3, cap) || !grow_f(&b->uv, 2, cap))
            return wb_error_set(err, WB_E_IO, "out of memory for %d mesh vertices", cap);
        b->cap_vertices = cap;
    }
    if (need_t > b->cap_triangles) {
        int cap = b->cap_triangles ? b->cap_triangles : 64;
        while (cap < need_t)
            cap *= 2;
        uint32_t *q = realloc(b->idx, (size_t)cap * 3 * sizeof *q);
        if (!q)
            return wb_error_set(err, WB_E_IO, "out of memory for %d mesh triangles", cap);
        b->idx = q;
        b->cap_triangles = cap;
    }
    return WB_OK;
}

static uint32_t vertex(WbMeshBuf *b, double x, double y, double z, double nx, double ny,
                       double nz, double u, double v)
{
    int i = b->n_vertices++;
    float *p = b->pos + 3 * i, *n = b->normal + 3 * i, *t = b->uv + 2 * i;
    p[0] = (float)x, p[1] = (float)y, p[2] = (float)z;
    double l = sqrt(nx * nx + ny * ny + nz * nz);
    if (l > 0.0) {
        n[0] = (float)(nx / l), n[1] = (float)(ny / l), n[2] = (float)(nz / l);
    } else {
        n[0] = 0.0f, n[1] = 1.0f, n[2] = 0.0f;
    }
    t[0] = (float)u, t[1] = (float)v;
    return (uint32_t)i;
}

static void tri(WbMeshBuf *b, uint32_t a, uint32_t c, uint32_t d)
{
    uint32_t *t = b->idx + 3 * b->n_triangles++;
    t[0] = a, t[1] = c, t[2] = d;
}

/* Stitch n_rings rings of `slices` vertices starting at index ring0 (ring
 * j, slice i at ring0 + j·slices + i), wrapping around each ring, plus fans
 * to an optional pole below ring 0 and above the last ring (-1 = none). */
static void stitch(WbMeshBuf *b, uint32_t ring0, int n_rings, int slices, long bottom, long top)
{
    uint32_t S = (uint32_t)slices;
    for (int j = 0; j + 1 < n_rings; j++)
        for (uint32_t i = 0; i < S; i++) {
            uint32_t i1 = (i + 1) % S;
            uint32_t a = ring0 + (uint32_t)j * S + i, c = ring0 + (uint32_t)j * S + i1;
            uint32_t d = c + S, e = a + S;
            tri(b, a, c, d);
            tri(b, a, d, e);
        }
    if (bottom >= 0)
        for (uint32_t i = 0; i < S; i++)
            tri(b, (uint32_t)bottom, ring0 + (i + 1) % S, ring0 + i);
    if (top >= 0) {
        uint32_t last = ring0 + (uint32_t)(n_rings - 1) * S;
        for (uint32_t i = 0; i < S; i++)
            tri(b, (uint32_t)top, last + i, last + (i + 1) % S);
    }
}

static bool finite_pos(const float *v, int n)
{
    for (int i = 0; i < n; i++)
        if (!isfinite(v[i]))
            return false;
    return true;
}

WbStatus wb_mesh3_ellipsoid(WbMeshBuf *b, const float c[3], const float radii[3], int slices,
                            int stacks, WbError *err)
{
    if (slices < 3 || stacks < 2)
        return wb_error_set(err, WB_E_INPUT,
                            "ellipsoid needs at least 3 slices and 2 stacks (got %d, %d)",
                            slices, stacks);
    if (!(radii[0] > 0.0f && radii[1] > 0.0f && radii[2] > 0.0f) || !finite_pos(radii, 3) ||
        !finite_pos(c, 3))
        return wb_error_set(err, WB_E_INPUT, "ellipsoid radii must be finite and > 0");
    long nr = stacks - 1;
    WbStatus st = reserve(b, (long)slices * nr + 2, 2L * slices * nr, err);
    if (st != WB_OK)
        return st;
    double A = radii[0], B = radii[1], C = radii[2];
    /* Unit sphere point (sin t·sin a, −cos t, sin t·cos a), t from the south
     * pole; the ellipsoid normal is ∝ (x/A², y/B², z/C²). */
    uint32_t south = vertex(b, c[0], c[1] - B, c[2], 0.0, -1.0, 0.0, 0.5, 0.0);
    uint32_t ring0 = (uint32_t)b->n_vertices;
    for (long j = 1; j <= nr; j++) {
        double t = M_PI * (double)j / stacks, st_ = sin(t), ct = cos(t);
        for (int i = 0; i < slices; i++) {
            double a = TAU * i / slices, sa = sin(a), ca = cos(a);
            double ux = st_ * sa, uy = -ct, uz = st_ * ca;
            vertex(b, c[0] + A * ux, c[1] + B * uy, c[2] + C * uz, ux / A, uy / B, uz / C,
                   (double)i / slices, (double)j / stacks);
        }
    }
    uint32_t north = vertex(b, c[0], c[1] + B, c[2], 0.0, 1.0, 0.0, 0.5, 1.0);
    stitch(b, ring0, (int)nr, slices, south, north);
    return WB_OK;
}

WbStatus wb_mesh3_sphere(WbMeshBuf *b, const float c[3], float radius, int slices, int stacks,
                         WbError *err)
{
    if (!(radius > 0.0f) || !isfinite(radius))
        return wb_error_set(err, WB_E_INPUT, "sphere radius must be finite and > 0");
    const float r[3] = {radius, radius, radius};
    return wb_mesh3_ellipsoid(b, c, r, slices, stacks, err);
}

WbStatus wb_mesh3_capsule(WbMeshBuf *b, const float c[3], float radius, float half_length,
                          int slices, int stacks, WbError *err)
{
    if (slices < 3 || stacks < 1)
        return wb_error_set(err, WB_E_INPUT,
                            "capsule needs at least 3 slices and 1 stack (got %d, %d)", slices,
                            stacks);
    if (!(radius > 0.0f) || !(half_length >= 0.0f) || !isfinite(radius) ||
        !isfinite(half_length) || !finite_pos(c, 3))
        return wb_error_set(err, WB_E_INPUT, "capsule needs radius > 0 and half_length >= 0");
    /* Rings: bottom cap latitudes k = 1..stacks (the last one the bottom
     * equator, at y = −h), then the top cap from its equator (y = +h) up to
     * k = stacks−1 below the pole.  With h = 0 the two equators coincide
     * in position but stay separate rings joined by a zero-height band, so
     * the topology does not depend on h. */
    long nr = 2L * stacks;
    WbStatus st = reserve(b, (long)slices * nr + 2, 2L * slices * nr, err);
    if (st != WB_OK)
        return st;
    double R = radius, H = half_length, total = 2.0 * (R + H);
    uint32_t south = vertex(b, c[0], c[1] - H - R, c[2], 0.0, -1.0, 0.0, 0.5, 0.0);
    uint32_t ring0 = (uint32_t)b->n_vertices;
    for (long j = 0; j < nr; j++) {
        bool upper = j >= stacks;
        long k = upper ? j - stacks : j + 1;          /* latitude step within its cap */
        double t = upper ? M_PI_2 + M_PI_2 * (double)k / stacks : M_PI_2 * (double)k / stacks;
        double st_ = sin(t), ct = cos(t), yc = upper ? H : -H;
        for (int i = 0; i < slices; i++) {
            double a = TAU * i / slices, sa = sin(a), ca = cos(a);
            double y = yc - R * ct;
            vertex(b, c[0] + R * st_ * sa, c[1] + y, c[2] + R * st_ * ca, st_ * sa, -ct,
                   st_ * ca, (double)i / slices, (y + H + R) / total);
        }
    }
    uint32_t north = vertex(b, c[0], c[1] + H + R, c[2], 0.0, 1.0, 0.0, 0.5, 1.0);
    stitch(b, ring0, (int)nr, slices, south, north);
    return WB_OK;
}

WbStatus wb_mesh3_torus(WbMeshBuf *b, const float c[3], float major, float minor, int slices,
                        int rings, WbError *err)
{
    if (slices < 3 || rings < 3)
        return wb_error_set(err, WB_E_INPUT,
                            "torus needs at least 3 slices and 3 rings (got %d, %d)", slices,
                            rings);
    if (!(minor > 0.0f) || !(major > minor) || !isfinite(major) || !finite_pos(c, 3))
        return wb_error_set(err, WB_E_INPUT, "torus needs 0 < minor < major");
    WbStatus st = reserve(b, (long)slices * rings, 2L * slices * rings, err);
    if (st != WB_OK)
        return st;
    /* Ring j is the circle at tube angle b_j (0 = outer equator, rising
     * toward +y), so "up the stack" is d/db: with d/da that is outward. */
    uint32_t ring0 = (uint32_t)b->n_vertices;
    for (int j = 0; j < rings; j++) {
        double tb = TAU * j / rings, cb = cos(tb), sb = sin(tb);
        for (int i = 0; i < slices; i++) {
            double a = TAU * i / slices, sa = sin(a), ca = cos(a), rr = major + minor * cb;
            vertex(b, c[0] + rr * sa, c[1] + minor * sb, c[2] + rr * ca, cb * sa, sb, cb * ca,
                   (double)i / slices, (double)j / rings);
        }
    }
    /* Stitch rings 0..rings−1 and close the tube: ring rings−1 to ring 0. */
    stitch(b, ring0, rings, slices, -1, -1);
    uint32_t S = (uint32_t)slices, last = ring0 + (uint32_t)(rings - 1) * S;
    for (uint32_t i = 0; i < S; i++) {
        uint32_t i1 = (i + 1) % S;
        tri(b, last + i, last + i1, ring0 + i1);
        tri(b, last + i, ring0 + i1, ring0 + i);
    }
    return WB_OK;
}

WbStatus wb_mesh3_lathe(WbMeshBuf *b, const float c[3], const float *radius, const float *y,
                        int n_profile, int slices, WbError *err)
{
    if (n_profile < 2 || slices < 3)
        return wb_error_set(err, WB_E_INPUT,
                            "lathe needs at least 2 profile points and 3 slices (got %d, %d)",
                            n_profile, slices);
    for (int k = 0; k < n_profile; k++) {
        if (!(radius[k] >= 0.0f) || !isfinite(radius[k]) || !isfinite(y[k]))
            return wb_error_set(err, WB_E_INPUT, "lathe profile point %d is not finite with radius >= 0", k);
        if (radius[k] == 0.0f && k > 0 && k < n_profile - 1)
            return wb_error_set(err, WB_E_INPUT,
                                "lathe profile point %d: only the end points may have radius 0", k);
    }
    if (n_profile == 2 && radius[0] == 0.0f && radius[1] == 0.0f)
        return wb_error_set(err, WB_E_INPUT, "lathe profile has no width");
    if (!finite_pos(c, 3))
        return wb_error_set(err, WB_E_INPUT, "lathe centre is not finite");
    bool pole_lo = radius[0] == 0.0f, pole_hi = radius[n_profile - 1] == 0.0f;
    int k0 = pole_lo ? 1 : 0, k1 = pole_hi ? n_profile - 2 : n_profile - 1;
    int nr = k1 - k0 + 1;
    long nv = (long)slices * nr + 2, nt = 2L * slices * (nr - 1) + 2L * slices;
    WbStatus st = reserve(b, nv, nt, err);
    if (st != WB_OK)
        return st;
    /* v by arc length along the profile (caps count their radius). */
    double len = 0.0;
    for (int k = 0; k + 1 < n_profile; k++)
        len += hypot((double)radius[k + 1] - radius[k], (double)y[k + 1] - y[k]);
    len += (pole_lo ? 0.0 : radius[0]) + (pole_hi ? 0.0 : radius[n_profile - 1]);
    if (!(len > 0.0))
        len = 1.0;
    double at = pole_lo ? 0.0 : radius[0];
    int v_first = b->n_vertices;
    int t_first = b->n_triangles;
    /* Bottom: the pole itself, or the cap's centre (a flat fan). */
    uint32_t bottom = vertex(b, c[0], c[1] + y[0], c[2], 0.0, -1.0, 0.0, 0.5, 0.0);
    uint32_t ring0 = (uint32_t)b->n_vertices;
    for (int k = k0; k <= k1; k++) {
        if (k > 0)
            at += hypot((double)radius[k] - radius[k - 1], (double)y[k] - y[k - 1]);
        for (int i = 0; i < slices; i++) {
            double a = TAU * i / slices;
            vertex(b, c[0] + radius[k] * sin(a), c[1] + y[k], c[2] + radius[k] * cos(a), 0.0,
                   1.0, 0.0, (double)i / slices, at / len);
        }
    }
    uint32_t top = vertex(b, c[0], c[1] + y[n_profile - 1], c[2], 0.0, 1.0, 0.0, 0.5, 1.0);
    stitch(b, ring0, nr, slices, bottom, top);
    /* Normals from the surface actually built: smooth over the side,
     * exactly ∓y at cap centres and poles. */
    {
        int n = b->n_vertices - v_first, t = b->n_triangles - t_first;
        uint32_t *local = malloc((size_t)t * 3 * sizeof *local);
        if (!local) {
            b->n_vertices = v_first;
            b->n_triangles = t_first;
            return wb_error_set(err, WB_E_IO, "out of memory for lathe normals");
        }
        for (int i = 0; i < 3 * t; i++)
            local[i] = b->idx[3 * t_first + i] - (uint32_t)v_first;
        st = wb_mesh3_normals(b->pos + 3 * v_first, n, local, t,
                              b->normal + 3 * v_first, err);
        free(local);
        if (st) {
            b->n_vertices = v_first;
            b->n_triangles = t_first;
            return st;
        }
    }
    return WB_OK;
}

WbStatus wb_mesh3_box(WbMeshBuf *b, const float lo[3], const float hi[3], WbError *err)
{
    if (!finite_pos(lo, 3) || !finite_pos(hi, 3) || !(hi[0] > lo[0] && hi[1] > lo[1] && hi[2] > lo[2]))
        return wb_error_set(err, WB_E_INPUT, "box needs finite corners with hi > lo");
    WbStatus st = reserve(b, 24, 12, err);
    if (st != WB_OK)
        return st;
    /* Face k: axis ax, side ±1; corners walk (u, v) = (0,0) (1,0) (1,1) (0,1)
     * along two axes chosen so that (du × dv) points out of the face. */
    for (int ax = 0; ax < 3; ax++)
        for (int sgn = -1; sgn <= 1; sgn += 2) {
            int ua = (ax + 1) % 3, va = (ax + 2) % 3;
            if (sgn < 0) {
                int t = ua;
                ua = va;
                va = t;
            }
            uint32_t base = (uint32_t)b->n_vertices;
            for (int k = 0; k < 4; k++) {
                int cu = k == 1 || k == 2, cv = k >= 2;
                double p[3], n[3] = {0.0, 0.0, 0.0};
                p[ax] = sgn > 0 ? hi[ax] : lo[ax];
                p[ua] = cu ? hi[ua] : lo[ua];
                p[va] = cv ? hi[va] : lo[va];
                n[ax] = sgn;
                vertex(b, p[0], p[1], p[2], n[0], n[1], n[2], cu, cv);
            }
            tri(b, base, base + 1, base + 2);
            tri(b, base, base + 2, base + 3);
        }
    return WB_OK;
}

WbStatus wb_mesh3_plane(WbMeshBuf *b, const float c[3], float sx, float sz, int nx, int nz,
                        WbError *err)
{
    if (nx < 1 || nz < 1)
        return wb_error_set(err, WB_E_INPUT, "plane needs at least 1x1 cells (got %dx%d)", nx, nz);
    if (!(sx > 0.0f) || !(sz > 0.0f) || !isfinite(sx) || !isfinite(sz) || !finite_pos(c, 3))
        return wb_error_set(err, WB_E_INPUT, "plane size must be finite and > 0");
    WbStatus st = reserve(b, (long)(nx + 1) * (nz + 1), 2L * nx * nz, err);
    if (st != WB_OK)
        return st;
    uint32_t base = (uint32_t)b->n_vertices;
    for (int k = 0; k <= nz; k++)
        for (int i = 0; i <= nx; i++) {
            double u = (double)i / nx, v = (double)k / nz;
            vertex(b, c[0] + sx * (u - 0.5), c[1], c[2] + sz * (v - 0.5), 0.0, 1.0, 0.0, u, v);
        }
    /* (+z) × (+x) = +y: (i,k) → (i,k+1) → (i+1,k+1) is counter-clockwise
     * seen from above. */
    uint32_t row = (uint32_t)nx + 1;
    for (int k = 0; k < nz; k++)
        for (int i = 0; i < nx; i++) {
            uint32_t a = base + (uint32_t)k * row + (uint32_t)i;
            tri(b, a, a + row, a + row + 1);
            tri(b, a, a + row + 1, a + 1);
        }
    return WB_OK;
}

/* Normalise the summed cross products (see wb_mesh3_normals). */
static void normalise_sums(float *normal, int n_vertices)
{
    for (int v = 0; v < n_vertices; v++) {
        float *n = normal + 3 * v;
        double l = sqrt((double)n[0] * n[0] + (double)n[1] * n[1] + (double)n[2] * n[2]);
        if (l > 0.0 && isfinite(l)) {
#ifdef __SSE2__
            /* x and y divided in one instruction (each lane the same quotient) */
            const __m128d q = _mm_div_pd(_mm_setr_pd(n[0], n[1]), _mm_set1_pd(l));
            n[0] = (float)_mm_cvtsd_f64(q), n[1] = (float)_mm_cvtsd_f64(_mm_unpackhi_pd(q, q));
            n[2] = (float)(n[2] / l);
#else
            n[0] = (float)(n[0] / l), n[1] = (float)(n[1] / l), n[2] = (float)(n[2] / l);
#endif
        } else {
            n[0] = 0.0f, n[1] = 1.0f, n[2] = 0.0f;
        }
    }
}

void wb_mesh3_normals_into(const float *pos, int n_vertices, const uint32_t *idx,
                           int n_triangles, float *normal, double *acc)
{
    if (!normal)
        return;
    /* Sum in double: the cross product is twice the triangle's area times
     * its unit normal, so the sum is the area-weighted average direction. */
    for (int i = 0; i < 3 * n_vertices; i++)
        acc[i] = 0.0;
    const uint32_t nv = (uint32_t)n_vertices;
    for (int t = 0; t < n_triangles; t++) {
        const uint32_t *f = idx + 3 * (size_t)t;
        const uint32_t i0 = f[0], i1 = f[1], i2 = f[2];
        if (i0 >= nv || i1 >= nv || i2 >= nv)
            continue;
        const float *a = pos + 3 * (size_t)i0, *bb = pos + 3 * (size_t)i1,
                    *cc = pos + 3 * (size_t)i2;
        double e1[3] = {(double)bb[0] - a[0], (double)bb[1] - a[1], (double)bb[2] - a[2]};
        double e2[3] = {(double)cc[0] - a[0], (double)cc[1] - a[1], (double)cc[2] - a[2]};
        double n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                       e1[0] * e2[1] - e1[1] * e2[0]};
        /* Corner by corner, x, y, z: the same additions in the same order
         * (a repeated index adds twice, one after the other), x and y as
         * one pair of doubles. */
        double *s[3] = {acc + 3 * (size_t)i0, acc + 3 * (size_t)i1, acc + 3 * (size_t)i2};
#ifdef __SSE2__
        const __m128d nxy = _mm_setr_pd(n[0], n[1]);
        for (int k = 0; k < 3; k++) {
            _mm_storeu_pd(s[k], _mm_add_pd(_mm_loadu_pd(s[k]), nxy));
            s[k][2] += n[2];
        }
#else
        for (int k = 0; k < 3; k++) {
            s[k][0] += n[0];
            s[k][1] += n[1];
            s[k][2] += n[2];
        }
#endif
    }
    for (int i = 0; i < 3 * n_vertices; i++)
        normal[i] = (float)acc[i];
    normalise_sums(normal, n_vertices);
}

WbStatus wb_mesh3_normals(const float *pos, int n_vertices, const uint32_t *idx,
                          int n_triangles, float *normal, WbError *err)
{
    if (!normal)
        return WB_OK;
    /* + 1: never malloc(0), which may return NULL for an empty mesh */
    double *acc = malloc(((size_t)n_vertices * 3 + 1) * sizeof *acc);
    if (!acc)
        return wb_error_set(err, WB_E_IO, "out of memory for the normals of %d vertices",
                            n_vertices);
    wb_mesh3_normals_into(pos, n_vertices, idx, n_triangles, normal, acc);
    free(acc);
    return WB_OK;
}
