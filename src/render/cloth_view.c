/* cloth_view.c — the cloth scene in 3D: floor checker, bodies, the sheet.
 * See cloth_view.h for what is drawn and why. */
#include "render/cloth_view.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "render/ramp.h"
#include "render/texture.h"

#define BODY_SLICES 32      /* sphere tessellation: smooth silhouettes at 720p */
#define BODY_STACKS 16
#define BACK_SHADE 0.78f    /* back of the cloth: a shade darker than the front */
#define DARK_SQUARE 0.86f   /* the floor checker's dark squares */
#define SHEEN_WHITE 0.3f    /* sheen colour = colour lerped 30 % toward white */
#define FLOOR_MIN_HALF 8.0f /* floor half-size, metres, at least ... */
#define FLOOR_PER_DIST 3.0f /* ... and this many camera distances */
#define FLOOR_DROP 0.004f   /* floor drawn this far below floor_y, metres */
#define SHADOW_OPACITY 0.999f /* < 1: the blended pass, after every opaque mesh */

static float clamp01(float x) { return x < 0.0f ? 0.0f : x > 1.0f ? 1.0f : x; }


/* Diffuse + ambient light a horizontal, upward-facing surface gets from `l`
 * (per channel): the hemisphere ambient is all sky for n = +y, each light
 * adds colour · max(0, n·dir). */
static void floor_light(const WbLighting *l, float out[3])
{
    const WbLight *ls[2] = {&l->key, &l->fill};
    for (int c = 0; c < 3; c++)
        out[c] = l->sky[c];
    for (int k = 0; k < 2; k++) {
        const float *d = ls[k]->dir;
        float len = sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        float ndl = len > 0.0f ? d[1] / len : 0.0f;
        if (ndl <= 0.0f)
            continue;
        for (int c = 0; c < 3; c++)
            out[c] += 0.85f * ls[k]->color[c] * ndl;
    }
}

/* The floor: a grid of WB_CLOTH_VIEW_CHECKER squares around the camera's
 * target (snapped to the checker so the pattern stays put), its vertex
 * colours lit once and blended into the background with distance. */
static WbStatus build_floor(WbClothView *v, WbError *err)
{
    const WbClothViewSetup *s = &v->setup;
    const double *t = s->camera.target, *e = s->camera.eye;
    float dist = (float)sqrt((e[0] - t[0]) * (e[0] - t[0]) + (e[1] - t[1]) * (e[1] - t[1]) +
                             (e[2] - t[2]) * (e[2] - t[2]));
    float half = fmaxf(FLOOR_MIN_HALF, FLOOR_PER_DIST * dist);
    int cells = 2 * (int)ceilf(half / WB_CLOTH_VIEW_CHECKER);
    if (cells > 400)
        cells = 400;
    float q = WB_CLOTH_VIEW_CHECKER;
    float cx = q * floorf((float)t[0] / q), cz = q * floorf((float)t[2] / q);
    float x0 = cx - q * (float)(cells / 2), z0 = cz - q * (float)(cells / 2);
    int nv = (cells + 1) * (cells + 1), nt = cells * cells; /* triangles per colour */
    v->floor_pos = malloc(sizeof(float) * 3 * (size_t)nv);
    v->floor_rgba[0] = malloc(sizeof(float) * 4 * (size_t)nv);
    v->floor_rgba[1] = malloc(sizeof(float) * 4 * (size_t)nv);
    for (int k = 0; k < 4; k++)
        if (!(v->floor_idx[k] = malloc(sizeof(uint32_t) * 3 * (size_t)nt)))
            return wb_error_set(err, WB_E_IO, "out of memory");
    if (!v->floor_pos || !v->floor_rgba[0] || !v->floor_rgba[1])
        return wb_error_set(err, WB_E_IO, "out of memory");
    float lit[3];
    floor_light(&v->light, lit);
    const float *bg = s->background;
    float r_in = 0.45f * half, r_out = 0.95f * half;
    for (int k = 0; k <= cells; k++) {
        for (int i = 0; i <= cells; i++) {
            int n = k * (cells + 1) + i;
            float x = x0 + q * (float)i, z = z0 + q * (float)k;
            v->floor_pos[3 * n] = x;
            /* a few millimetres below the collision plane: cloth resting on
             * the floor must not fight it for depth */
            v->floor_pos[3 * n + 1] = s->floor_y - FLOOR_DROP;
            v->floor_pos[3 * n + 2] = z;
            float d = sqrtf((x - (float)t[0]) * (x - (float)t[0]) +
                            (z - (float)t[2]) * (z - (float)t[2]));
            float fog = (float)wb_smoothstep(r_in, r_out, d);
            for (int sq = 0; sq < 2; sq++) {
                float *o = &v->floor_rgba[sq][4 * n];
                float shade = sq ? DARK_SQUARE : 1.0f;
                /* premultiplied: floor (alpha 1) over the fog toward the
                 * background's premultiplied colour */
                for (int c = 0; c < 3; c++) {
                    float f = clamp01(s->floor_colour[c] * shade * lit[c]);
                    o[c] = f * (1.0f - fog) + bg[c] * bg[3] * fog;
                }
                o[3] = (1.0f - fog) + bg[3] * fog;
            }
        }
    }
    for (int sq = 0; sq < 2; sq++) {
        float shade = sq ? DARK_SQUARE : 1.0f, f[3];
        for (int c = 0; c < 3; c++)
            f[c] = clamp01(s->floor_colour[c] * shade * lit[c]);
        v->floor_color[sq] = wb_rgba_premul(f[0], f[1], f[2], 1.0);
    }
    int m[4] = {0, 0, 0, 0};
    for (int k = 0; k < cells; k++) {
        for (int i = 0; i < cells; i++) {
            uint32_t a = (uint32_t)(k * (cells + 1) + i), b = a + 1;
            uint32_t c = a + (uint32_t)(cells + 1), d = c + 1;
            int sq = (i + k + (int)lroundf(cx / q) + (int)lroundf(cz / q)) & 1;
            /* a square whose far corner is inside r_in has no fog at all */
            float fx = fmaxf(fabsf(x0 + q * (float)i - (float)t[0]),
                             fabsf(x0 + q * (float)(i + 1) - (float)t[0]));
            float fz = fmaxf(fabsf(z0 + q * (float)k - (float)t[2]),
                             fabsf(z0 + q * (float)(k + 1) - (float)t[2]));
            if (sqrtf(fx * fx + fz * fz) <= r_in)
                sq += 2;
            uint32_t *o = &v->floor_idx[sq][3 * m[sq]];
            /* counter-clockwise seen from above (+y): a, c, d and a, d, b */
            o[0] = a; o[1] = c; o[2] = d;
            o[3] = a; o[4] = d; o[5] = b;
            m[sq] += 2;
        }
    }
    v->floor_vertices = nv;
    for (int k = 0; k < 4; k++)
        v->floor_triangles[k] = m[k];
    return WB_OK;
}

WbStatus wb_cloth_view_init(WbClothView *v, const WbClothViewSetup *s, WbError *err)
{
    memset(v, 0, sizeof *v);
    v->setup = *s;
    WbStatus st = wb_raster3_create(&v->raster, s->width, s->height, s->samples, err);
    if (st)
        return st;
    v->light = wb_lighting_default();
    const float *bg = s->background;
    v->background = wb_rgba_premul(bg[0], bg[1], bg[2], bg[3]);
    if (s->floor && (st = build_floor(v, err))) {
        wb_cloth_view_free(v);
        return st;
    }
    return WB_OK;
}

/* The per-frame cloth arrays (cloth_buffers). */
static void free_cloth_arrays(WbClothView *v)
{
    free(v->pos);
    free(v->shadow_pos);
    free(v->shadow_rgba);
    free(v->idx);
    free(v->fpos);
    free(v->fnormal);
    free(v->facc);
    free(v->fidx);
    free(v->frows);
    free(v->fsmooth);
}

void wb_cloth_view_free(WbClothView *v)
{
    if (!v)
        return;
    wb_raster3_destroy(v->raster);
    wb_meshbuf_free(&v->bodies);
    free(v->torso_pos);
    free(v->torso_normal);
    free(v->torso_idx);
    free(v->floor_pos);
    for (int k = 0; k < 2; k++)
        free(v->floor_rgba[k]);
    for (int k = 0; k < 4; k++)
        free(v->floor_idx[k]);
    free_cloth_arrays(v);
    memset(v, 0, sizeof *v);
}

/* Record the triangles appended since `first` as one part of colour rgb. */
static WbStatus close_part(WbClothView *v, int first, const float rgb[3], WbError *err)
{
    if (v->n_parts == WB_CLOTH_VIEW_MAX_PARTS)
        return wb_error_set(err, WB_E_INPUT, "cloth view: more than %d bodies",
                            WB_CLOTH_VIEW_MAX_PARTS);
    v->parts[v->n_parts++] = (WbClothViewPart){
        first, v->bodies.n_triangles - first,
        wb_rgba_premul(clamp01(rgb[0]), clamp01(rgb[1]), clamp01(rgb[2]), 1.0)};
    return WB_OK;
}

WbStatus wb_cloth_view_add_sphere(WbClothView *v, const float c[3], float r, const float rgb[3],
                                  WbError *err)
{
    int first = v->bodies.n_triangles;
    WbStatus st = wb_mesh3_sphere(&v->bodies, c, r, BODY_SLICES, BODY_STACKS, err);
    return st ? st : close_part(v, first, rgb, err);
}

#define EDGE_SLICES 16 /* tessellation of a box's rounded edges */
#define EDGE_STACKS 3

/* Turn the vertices from `first` on (made along y around the origin) so
 * that y points along `axis` (0 = x, 2 = z; rotations, so the winding
 * stays counter-clockwise), then move them to `at`. */
static void turn_vertices(WbMeshBuf *b, int first, int axis, const float at[3])
{
    for (int k = first; k < b->n_vertices; k++) {
        float *vec[2] = {b->pos + 3 * k, b->normal + 3 * k};
        for (int m = 0; m < 2; m++) {
            float x = vec[m][0], y = vec[m][1], z = vec[m][2];
            if (axis == 0) { /* about z: (0, 1, 0) -> (1, 0, 0) */
                vec[m][0] = y;
                vec[m][1] = -x;
            } else if (axis == 2) { /* about x: (0, 1, 0) -> (0, 0, 1) */
                vec[m][1] = -z;
                vec[m][2] = y;
            }
        }
        for (int q = 0; q < 3; q++)
            b->pos[3 * k + q] += at[q];
    }
}

/* A box with its edges rounded by `round`: three slabs, each the full box
 * along one axis and inset by `round` along the other two, and a capsule
 * of radius `round` along each of the 12 edges (their caps round the
 * corners).  The faces stay where the solver's box is; only the edges are
 * drawn inside it, so cloth folded over an edge — whose triangles cut the
 * corner between particles resting `margin` off the two faces — no longer
 * shows the edge through it. */
WbStatus wb_cloth_view_add_box(WbClothView *v, const float lo[3], const float hi[3], float round,
                               const float rgb[3], WbError *err)
{
    WbMeshBuf *b = &v->bodies;
    int first = b->n_triangles;
    float c[3], h[3], hmin = INFINITY;
    for (int q = 0; q < 3; q++) {
        c[q] = 0.5f * (lo[q] + hi[q]);
        h[q] = 0.5f * (hi[q] - lo[q]);
        hmin = fminf(hmin, h[q]);
    }
    float r = fminf(round > 0.0f ? round : 0.0f, 0.9f * hmin);
    if (!(r > 1e-5f)) {
        WbStatus st = wb_mesh3_box(b, lo, hi, err);
        return st ? st : close_part(v, first, rgb, err);
    }
    /* The slabs' faces stop a hair (2 % of the rounding) inside the box's:
     * where a face meets an edge's capsule the two are tangent, and equal
     * depths there would interleave flat and smooth shading pixel by pixel
     * along the silhouette; so the capsule is in front near the tangent,
     * over a band where its normal is within ~10° of the face's. */
    const float hair = 0.02f * r;
    for (int a = 0; a < 3; a++) { /* the slabs */
        float slo[3], shi[3];
        for (int q = 0; q < 3; q++) {
            slo[q] = q == a ? lo[q] + hair : lo[q] + r;
            shi[q] = q == a ? hi[q] - hair : hi[q] - r;
        }
        WbStatus st = wb_mesh3_box(b, slo, shi, err);
        if (st)
            return st;
    }
    static const float origin[3] = {0.0f, 0.0f, 0.0f};
    for (int a = 0; a < 3; a++) { /* the edges along axis a */
        int u = (a + 1) % 3, w = (a + 2) % 3;
        for (int e = 0; e < 4; e++) {
            float at[3];
            at[a] = c[a];
            at[u] = c[u] + (e & 1 ? 1.0f : -1.0f) * (h[u] - r);
            at[w] = c[w] + (e & 2 ? 1.0f : -1.0f) * (h[w] - r);
            int fv = b->n_vertices;
            WbStatus st = wb_mesh3_capsule(b, origin, r, h[a] - r, EDGE_SLICES, EDGE_STACKS, err);
            if (st)
                return st;
            turn_vertices(b, fv, a, at);
        }
    }
    return close_part(v, first, rgb, err);
}

/* Radius of the union of the torso spheres sp[0..n) in the horizontal
 * plane at height y, along the ray from the axis (ax, az) in direction
 * (dx, dz): each sphere cuts the plane in a circle; the farthest exit of
 * the ray from any circle is the union's boundary (the centre spheres sit
 * on the axis, so the section is star-shaped around it). */
static float union_radius(const WbSphere *sp, int n, float ax, float az, float y, float dx,
                          float dz)
{
    float best = 0.0f;
    for (int k = 0; k < n; k++) {
        float h = y - sp[k].y, r2 = sp[k].r * sp[k].r - h * h;
        if (r2 <= 0.0f)
            continue;
        float cx = sp[k].x - ax, cz = sp[k].z - az;
        float along = cx * dx + cz * dz, off2 = cx * cx + cz * cz - along * along;
        if (off2 > r2)
            continue;
        float t = along + sqrtf(r2 - off2);
        best = fmaxf(best, t);
    }
    return best;
}

#define TORSO_AROUND 48   /* vertices per ring */
#define TORSO_BETWEEN 4   /* rings per slice interval (the slice ring included) */
#define TORSO_CAP 8       /* rings over each cap, pole excluded */
#define TORSO_SKIN 0.004f /* metres the loft may stand out of the union: half the
                             solver's default collision margin (0.008) */

/* The torso under construction: the spheres, the ray directions around
 * the axis and the vertex being written. */
typedef struct Torso {
    const WbSphere *sp;
    int n;                       /* torso spheres (3 per slice) */
    float ax, az;                /* the body axis */
    float dir[TORSO_AROUND][2];  /* (cos, sin) of each ray, x and z */
    float *pos;
    int q;                       /* vertices written */
} Torso;

/* Append the ring at height y whose radius along ray m is r[m]. */
static void put_ring(Torso *t, float y, const float r[TORSO_AROUND])
{
    for (int m = 0; m < TORSO_AROUND; m++, t->q++) {
        t->pos[3 * t->q] = t->ax + r[m] * t->dir[m][0];
        t->pos[3 * t->q + 1] = y;
        t->pos[3 * t->q + 2] = t->az + r[m] * t->dir[m][1];
    }
}

/* The exact section of the union at height y. */
static void exact_radii(const Torso *t, float y, float r[TORSO_AROUND])
{
    for (int m = 0; m < TORSO_AROUND; m++)
        r[m] = union_radius(t->sp, t->n, t->ax, t->az, y, t->dir[m][0], t->dir[m][1]);
}

/* Between slice rings p1 and p2 (p0, p3 their outer neighbours) at
 * parameter u in (0, 1): the uniform Catmull-Rom radius, never more than
 * TORSO_SKIN outside the union at that height (where small spheres dip
 * deeper than that, the surface follows them). */
static void loft_radii(const Torso *t, const float *p0, const float *p1, const float *p2,
                       const float *p3, float u, float y, float r[TORSO_AROUND])
{
    exact_radii(t, y, r);
    for (int m = 0; m < TORSO_AROUND; m++) {
        float c = 0.5f * (2.0f * p1[m] + (p2[m] - p0[m]) * u +
                          (2.0f * p0[m] - 5.0f * p1[m] + 4.0f * p2[m] - p3[m]) * u * u +
                          (3.0f * p1[m] - p0[m] - 3.0f * p2[m] + p3[m]) * u * u * u);
        r[m] = fminf(c, r[m] + TORSO_SKIN);
    }
}

/* Two triangles per quad between consecutive rings and a fan to each pole,
 * counter-clockwise seen from outside (the angle runs from +x toward +z,
 * which is to the left seen from outside).  Returns the triangle count. */
static int torso_indices(uint32_t *I, int rings, uint32_t bottom, uint32_t top)
{
    int t = 0;
    for (int r = 0; r + 1 < rings; r++) {
        for (int m = 0; m < TORSO_AROUND; m++) {
            uint32_t a = (uint32_t)(r * TORSO_AROUND + m);
            uint32_t b = (uint32_t)(r * TORSO_AROUND + (m + 1) % TORSO_AROUND);
            uint32_t c = a + TORSO_AROUND, d = b + TORSO_AROUND;
            I[3 * t] = a; I[3 * t + 1] = c; I[3 * t + 2] = d; t++;
            I[3 * t] = a; I[3 * t + 1] = d; I[3 * t + 2] = b; t++;
        }
    }
    uint32_t last = (uint32_t)((rings - 1) * TORSO_AROUND);
    for (int m = 0; m < TORSO_AROUND; m++) {
        uint32_t a = (uint32_t)m, b = (uint32_t)((m + 1) % TORSO_AROUND);
        I[3 * t] = bottom; I[3 * t + 1] = a; I[3 * t + 2] = b; t++;
        I[3 * t] = last + a; I[3 * t + 1] = top; I[3 * t + 2] = last + b; t++;
    }
    return t;
}

/* The torso: rings of TORSO_AROUND vertices.  At each slice plane and over
 * the two caps the ring is the exact section of the sphere union; between
 * slices the ring radius follows a Catmull-Rom curve through the slice
 * rings, which smooths away the union's dips (a few millimetres at the
 * default spacing), capped at TORSO_SKIN outside the union so it stays
 * well inside the solver's collision margin. */
static WbStatus build_torso(WbClothView *v, const WbSphere *sp, int slices, WbError *err)
{
    int rings = (slices - 1) * TORSO_BETWEEN + 1 + 2 * TORSO_CAP;
    int nv = rings * TORSO_AROUND + 2, nt = 2 * TORSO_AROUND * (rings - 1) + 2 * TORSO_AROUND;
    v->torso_pos = malloc(sizeof(float) * 3 * (size_t)nv);
    v->torso_normal = malloc(sizeof(float) * 3 * (size_t)nv);
    v->torso_idx = malloc(sizeof(uint32_t) * 3 * (size_t)nt);
    float *slice_r = malloc(sizeof(float) * (size_t)slices * TORSO_AROUND);
    if (!v->torso_pos || !v->torso_normal || !v->torso_idx || !slice_r) {
        free(slice_r);
        return wb_error_set(err, WB_E_IO, "out of memory");
    }
    Torso t = {.sp = sp, .n = 3 * slices, .ax = sp[0].x, .az = sp[0].z, .pos = v->torso_pos};
    for (int m = 0; m < TORSO_AROUND; m++) {
        double th = 2.0 * M_PI * m / TORSO_AROUND;
        t.dir[m][0] = (float)cos(th);
        t.dir[m][1] = (float)sin(th);
    }
    for (int k = 0; k < slices; k++)
        exact_radii(&t, sp[3 * k].y, &slice_r[k * TORSO_AROUND]);
    /* the centre spheres are the deepest: the caps end at their poles */
    float y_lo = sp[0].y, y_hi = sp[3 * (slices - 1)].y;
    float r_lo = sp[0].r, r_hi = sp[3 * (slices - 1)].r;
    float r[TORSO_AROUND];
    for (int c = TORSO_CAP; c >= 1; c--) {   /* bottom cap, pole excluded */
        float y = y_lo - r_lo * sinf((float)(M_PI / 2) * (float)c / (TORSO_CAP + 1));
        exact_radii(&t, y, r);
        put_ring(&t, y, r);
    }
    for (int k = 0; k < slices; k++) {
        put_ring(&t, sp[3 * k].y, &slice_r[k * TORSO_AROUND]);
        if (k + 1 == slices)
            break;
        const float *p0 = &slice_r[(k > 0 ? k - 1 : 0) * TORSO_AROUND];
        const float *p1 = &slice_r[k * TORSO_AROUND], *p2 = p1 + TORSO_AROUND;
        const float *p3 = k + 2 < slices ? p2 + TORSO_AROUND : p2;
        for (int u = 1; u < TORSO_BETWEEN; u++) {
            float f = (float)u / TORSO_BETWEEN;
            float y = sp[3 * k].y + (sp[3 * k + 3].y - sp[3 * k].y) * f;
            loft_radii(&t, p0, p1, p2, p3, f, y, r);
            put_ring(&t, y, r);
        }
    }
    for (int c = 1; c <= TORSO_CAP; c++) {   /* top cap */
        float y = y_hi + r_hi * sinf((float)(M_PI / 2) * (float)c / (TORSO_CAP + 1));
        exact_radii(&t, y, r);
        put_ring(&t, y, r);
    }
    free(slice_r);
    int bottom = t.q, top = t.q + 1;
    float *P = v->torso_pos;
    P[3 * bottom] = t.ax;
    P[3 * bottom + 1] = y_lo - r_lo;
    P[3 * bottom + 2] = t.az;
    P[3 * top] = t.ax;
    P[3 * top + 1] = y_hi + r_hi;
    P[3 * top + 2] = t.az;
    v->torso_vertices = nv;
    v->torso_triangles = torso_indices(v->torso_idx, rings, (uint32_t)bottom, (uint32_t)top);
    return wb_mesh3_normals(v->torso_pos, nv, v->torso_idx, v->torso_triangles, v->torso_normal,
                            err);
}

WbStatus wb_cloth_view_add_mannequin(WbClothView *v, const WbMannequinDef *def,
                                     const float rgb[3], WbError *err)
{
    WbSphere sp[WB_CLOTH_MAX_SPHERES];
    int n = wb_mannequin_build(def, sp, WB_CLOTH_MAX_SPHERES);
    if (n < 6)
        return wb_error_set(err, WB_E_INPUT, "cloth view: invalid mannequin");
    if (v->torso_pos)
        return wb_error_set(err, WB_E_INPUT, "cloth view: one mannequin per view");
    WbStatus st = build_torso(v, sp, def->slices, err);
    if (st)
        return st;
    v->torso_color = wb_rgba_premul(clamp01(rgb[0]), clamp01(rgb[1]), clamp01(rgb[2]), 1.0);
    int first = v->bodies.n_triangles;
    float lo = sp[0].y - sp[0].r, hi = sp[3 * (def->slices - 1)].y;
    float scale = def->torso_height / 0.55f;   /* of the default form */
    if (def->head_radius > 0.0f) {
        const WbSphere *hd = &sp[n - 1];
        float c[3] = {hd->x, hd->y, hd->z};
        st = wb_mesh3_sphere(&v->bodies, c, hd->r, BODY_SLICES, BODY_STACKS, err);
        /* neck: from inside the shoulders to the head's centre */
        float r = 0.045f * scale;
        float nc[3] = {def->position[0], 0.5f * (hi + hd->y), def->position[2]};
        if (!st)
            st = wb_mesh3_capsule(&v->bodies, nc, r, 0.5f * (hd->y - hi), BODY_SLICES, 6, err);
    }
    float foot = def->position[1];
    if (!st && lo - foot > 0.0f) {
        /* stand: a pole from the floor into the hips and a round foot */
        float r = 0.022f * scale, top = lo + 0.05f * scale;
        float c[3] = {def->position[0], 0.5f * (foot + top), def->position[2]};
        st = wb_mesh3_capsule(&v->bodies, c, r, 0.5f * (top - foot), 16, 4, err);
        if (!st) {
            float base[3] = {def->position[0], foot, def->position[2]};
            const float radius[2] = {0.2f * scale, 0.2f * scale};
            const float y[2] = {0.0f, 0.025f * scale};
            st = wb_mesh3_lathe(&v->bodies, base, radius, y, 2, BODY_SLICES, err);
        }
    }
    return st ? st : close_part(v, first, rgb, err);
}

void wb_cloth_view_move_bodies(WbClothView *v, const float by[3])
{
    for (int k = 0; k < v->bodies.n_vertices; k++)
        for (int c = 0; c < 3; c++)
            v->bodies.pos[3 * k + c] += by[c];
    for (int k = 0; k < v->torso_vertices; k++)
        for (int c = 0; c < 3; c++)
            v->torso_pos[3 * k + c] += by[c];
}

int wb_cloth_view_refine(int nx, int ny)
{
    int m = nx > ny ? nx : ny;
    return m <= 100 ? WB_CLOTH_VIEW_MAX_REFINE : m <= 200 ? 2 : 1;
}

/* Size the per-frame cloth arrays for an nx × ny grid. */
static WbStatus cloth_buffers(WbClothView *v, int nx, int ny, WbError *err)
{
    if (v->nx == nx && v->ny == ny && v->pos)
        return WB_OK;
    const int R = wb_cloth_view_refine(nx, ny);
    const int fnx = (nx - 1) * R + 1, fny = (ny - 1) * R + 1;
    size_t n = (size_t)nx * (size_t)ny, tris = 2 * (size_t)(nx - 1) * (size_t)(ny - 1);
    size_t fn = (size_t)fnx * (size_t)fny;
    free_cloth_arrays(v);
    v->pos = malloc(sizeof(float) * 3 * n);
    v->shadow_pos = malloc(sizeof(float) * 3 * n);
    v->shadow_rgba = malloc(sizeof(float) * 4 * n);
    v->idx = malloc(sizeof(uint32_t) * 3 * tris);
    v->fpos = malloc(sizeof(float) * 3 * fn);
    v->fnormal = malloc(sizeof(float) * 3 * fn);
    v->facc = malloc(sizeof(double) * 3 * fn);
    v->fidx = malloc(sizeof(uint32_t) * 3 * tris * (size_t)R * (size_t)R);
    v->frows = malloc(sizeof(float) * 3 * (size_t)fnx * (size_t)(ny + 2));
    v->fsmooth = malloc(tris / 2 + 1);
    if (!v->pos || !v->shadow_pos || !v->shadow_rgba || !v->idx || !v->fpos || !v->fnormal ||
        !v->facc || !v->fidx || !v->frows || !v->fsmooth) {
        v->nx = v->ny = 0;
        return wb_error_set(err, WB_E_IO, "out of memory");
    }
    v->nx = nx;
    v->ny = ny;
    v->refine = R;
    v->fnx = fnx;
    v->fny = fny;
    return WB_OK;
}

/* Catmull-Rom weights of the four control points at t = u/R, u = 0..R:
 * exactly (0, 1, 0, 0) at u = 0 and (0, 0, 1, 0) at u = R, so the surface
 * passes through every particle. */
static void catmull_rom(int R, float (*w)[4])
{
    for (int u = 0; u <= R; u++) {
        double t = (double)u / R, t2 = t * t, t3 = t2 * t;
        w[u][0] = (float)(0.5 * (-t3 + 2.0 * t2 - t));
        w[u][1] = (float)(0.5 * (3.0 * t3 - 5.0 * t2 + 2.0));
        w[u][2] = (float)(0.5 * (-3.0 * t3 + 4.0 * t2 + t));
        w[u][3] = (float)(0.5 * (t3 - t2));
    }
}

/* The drawn sheet from the particles: v->fpos, v->fnormal, v->fidx.  A
 * cell is smooth when the 4×4 particles its patch reads (those inside the
 * grid: past an edge the patch extends the last link straight) are all
 * live; a refined vertex takes the patch's point when every cell it lies
 * on is smooth, else the point of the flat cell (its triangles, split
 * a-d as drawn), which agrees along every shared edge, so the sheet stays
 * closed either way. */
static void refine_sheet(WbClothView *v, const WbClothState *s)
{
    const int nx = s->nx, ny = s->ny, R = v->refine, fnx = v->fnx, fny = v->fny;
    const int cx = nx - 1, cy = ny - 1;
    v->fn_triangles = 0;
    if (cx < 1 || cy < 1)
        return; /* a row or a column of particles: no cells */
    float wt[WB_CLOTH_VIEW_MAX_REFINE + 1][4];
    catmull_rom(R, wt);
    const float *P[3] = {s->x, s->y, s->z};
    for (int j = 0; j < cy; j++)
        for (int i = 0; i < cx; i++) {
            bool ok = true;
            for (int b = j - 1; b <= j + 2 && ok; b++)
                for (int a = i - 1; a <= i + 2 && ok; a++) {
                    int aa = a < 0 ? 0 : a > cx ? cx : a, bb = b < 0 ? 0 : b > cy ? cy : b;
                    ok = s->w[bb * nx + aa] >= 0.0f;
                }
            v->fsmooth[j * cx + i] = ok;
        }
    /* rows: each particle row interpolated along i (frows row jj + 1 for
     * jj = -1 .. ny, the outer two extended straight) */
    float *H = v->frows;
    for (int jj = 0; jj < ny; jj++) {
        float *row = H + 3 * (size_t)fnx * (size_t)(jj + 1);
        for (int I = 0; I < fnx; I++) {
            int i = I / R < cx ? I / R : cx - 1, u = I - i * R;
            for (int c = 0; c < 3; c++) {
                const float *p = P[c] + (size_t)jj * (size_t)nx;
                float p1 = p[i], p2 = p[i + 1];
                float p0 = i > 0 ? p[i - 1] : 2.0f * p1 - p2;
                float p3 = i + 2 < nx ? p[i + 2] : 2.0f * p2 - p1;
                row[3 * I + c] = wt[u][0] * p0 + wt[u][1] * p1 + wt[u][2] * p2 + wt[u][3] * p3;
            }
        }
    }
    const size_t rl = 3 * (size_t)fnx;
    for (size_t k = 0; k < rl; k++) {
        H[k] = 2.0f * H[rl + k] - H[2 * rl + k];
        H[(size_t)(ny + 1) * rl + k] = 2.0f * H[(size_t)ny * rl + k] - H[(size_t)(ny - 1) * rl + k];
    }
    for (int J = 0; J < fny; J++) {
        int j = J / R < cy ? J / R : cy - 1, vv = J - j * R;
        const float *r0 = H + (size_t)j * rl, *r1 = r0 + rl, *r2 = r1 + rl, *r3 = r2 + rl;
        for (int I = 0; I < fnx; I++) {
            int i = I / R < cx ? I / R : cx - 1, u = I - i * R;
            /* the cells this vertex lies on: i - 1 too on a particle
             * column (u = 0), likewise j - 1 on a particle row */
            const int i0 = u == 0 && i > 0 ? i - 1 : i, j0 = vv == 0 && j > 0 ? j - 1 : j;
            bool smooth = true;
            for (int b = j0; b <= j && smooth; b++)
                for (int a = i0; a <= i && smooth; a++)
                    smooth = v->fsmooth[b * cx + a];
            float *o = v->fpos + 3 * ((size_t)J * (size_t)fnx + (size_t)I);
            if (smooth) {
                for (int c = 0; c < 3; c++)
                    o[c] = wt[vv][0] * r0[3 * I + c] + wt[vv][1] * r1[3 * I + c] +
                           wt[vv][2] * r2[3 * I + c] + wt[vv][3] * r3[3 * I + c];
                continue;
            }
            /* flat: a + s(b − a) + t(d − b) on a-b-d (s ≥ t), a + s(d − c) + t(c − a) on a-d-c */
            const float sx = (float)u / (float)R, ty = (float)vv / (float)R;
            const size_t a = (size_t)j * (size_t)nx + (size_t)i, b = a + 1, c = a + (size_t)nx,
                         d = c + 1;
            for (int q = 0; q < 3; q++) {
                const float *p = P[q];
                o[q] = sx >= ty ? p[a] + sx * (p[b] - p[a]) + ty * (p[d] - p[b])
                                : p[a] + sx * (p[d] - p[c]) + ty * (p[c] - p[a]);
            }
        }
    }
    /* triangles, each drawn when the grid triangle it lies in is: a
     * refined cell above its cell's a-d diagonal (u > v) lies in a-b-d, one
     * below it (u < v) in a-d-c, and one on it (u = v) has its a-b-d half
     * in a-b-d and its a-d-c half in a-d-c */
    int m = 0;
    for (int j = 0; j < cy; j++)
        for (int i = 0; i < cx; i++) {
            const size_t a = (size_t)j * (size_t)nx + (size_t)i;
            const bool live_a = s->w[a] >= 0.0f, live_d = s->w[a + (size_t)nx + 1] >= 0.0f;
            const bool abd = live_a && live_d && s->w[a + 1] >= 0.0f;
            const bool adc = live_a && live_d && s->w[a + (size_t)nx] >= 0.0f;
            if (!abd && !adc)
                continue;
            for (int vv = 0; vv < R; vv++)
                for (int u = 0; u < R; u++) {
                    uint32_t A = (uint32_t)((j * R + vv) * fnx + i * R + u), B = A + 1,
                             C = A + (uint32_t)fnx, D = C + 1;
                    if (u >= vv ? abd : adc) {
                        v->fidx[3 * m] = A;
                        v->fidx[3 * m + 1] = B;
                        v->fidx[3 * m + 2] = D;
                        m++;
                    }
                    if (u > vv ? abd : adc) {
                        v->fidx[3 * m] = A;
                        v->fidx[3 * m + 1] = D;
                        v->fidx[3 * m + 2] = C;
                        m++;
                    }
                }
        }
    v->fn_triangles = m;
    wb_mesh3_normals_into(v->fpos, fnx * fny, v->fidx, m, v->fnormal, v->facc);
}

static WbMaterial cloth_material(const WbClothViewSetup *s)
{
    WbMaterial m = wb_material_default();
    m.diffuse = 0.9f;
    m.specular = s->gloss;
    /* a tight highlight for a glossy weave, a broad faint one for a matte */
    m.shininess = 6.0f + 60.0f * s->gloss;
    m.sheen = s->sheen;
    for (int c = 0; c < 3; c++) {
        m.sheen_color[c] = s->colour[c] + SHEEN_WHITE * (1.0f - s->colour[c]);
        m.back_tint[c] = BACK_SHADE;
    }
    m.two_sided = true;
    return m;
}

WbStatus wb_cloth_view_draw(WbClothView *v, const WbClothState *s, WbPool *pool, WbImage *out,
                            WbError *err)
{
    WbStatus st = cloth_buffers(v, s->nx, s->ny, err);
    if (st)
        return st;
    const WbClothViewSetup *su = &v->setup;
    const int nx = s->nx, ny = s->ny, n = s->n;
    for (int k = 0; k < n; k++) {
        v->pos[3 * k] = s->x[k];
        v->pos[3 * k + 1] = s->y[k];
        v->pos[3 * k + 2] = s->z[k];
    }
    refine_sheet(v, s);
    v->n_triangles = 0;

    WbCamera cam = su->camera;
    wb_raster3_begin(v->raster, &cam, &v->light, v->background);
    if (su->floor) {
        WbMaterial flat = wb_material_default();
        flat.unlit = true;
        for (int sq = 0; sq < 4; sq++) {
            WbMesh3 fm = {
                .n_vertices = v->floor_vertices,
                .pos = v->floor_pos,
                .normal = NULL,
                .indices = v->floor_idx[sq],
                .n_triangles = v->floor_triangles[sq],
                .paint = sq < 2 ? WB_PAINT_VERTEX_COLOR : WB_PAINT_COLOR,
                .rgba = sq < 2 ? v->floor_rgba[sq] : NULL,
                .color = sq < 2 ? 0u : v->floor_color[sq - 2],
                .material = flat,
                .opacity = 1.0f,
                .cull_back = false,
            };
            if (fm.n_triangles > 0)
                wb_raster3_mesh(v->raster, &fm);
        }
        /* contact shadow: the cloth flattened a millimetre above the floor,
         * dark where the cloth is low, gone 0.6 m up */
        for (int k = 0; k < n; k++) {
            float h = s->y[k] - su->floor_y;
            float a = 0.35f * (1.0f - (float)wb_smoothstep(0.0, 0.6, h));
            v->shadow_pos[3 * k] = s->x[k];
            v->shadow_pos[3 * k + 1] = su->floor_y + 1e-3f;
            v->shadow_pos[3 * k + 2] = s->z[k];
            float *o = &v->shadow_rgba[4 * k];
            o[0] = o[1] = o[2] = 0.0f;
            o[3] = a;
        }
        /* the two triangles of each cell, split as the sheet's, but only
         * those with a corner of non-zero alpha: the other ones draw
         * nothing (their colour is 0 at every pixel, which the blended
         * pass skips), so they are neither set up nor walked */
        const float *al = v->shadow_rgba + 3;
        int m = 0;
        for (int j = 0; j + 1 < ny; j++) {
            for (int i = 0; i + 1 < nx; i++) {
                int a = j * nx + i, b = a + 1, c = a + nx, d = c + 1;
                int tri[2][3] = {{a, b, d}, {a, d, c}};
                for (int t = 0; t < 2; t++) {
                    const int *f = tri[t];
                    if (s->w[f[0]] < 0.0f || s->w[f[1]] < 0.0f || s->w[f[2]] < 0.0f)
                        continue;
                    if (al[4 * f[0]] == 0.0f && al[4 * f[1]] == 0.0f && al[4 * f[2]] == 0.0f)
                        continue;
                    for (int q = 0; q < 3; q++)
                        v->idx[3 * m + q] = (uint32_t)f[q];
                    m++;
                }
            }
        }
        v->n_triangles = m;
        WbMesh3 sm = {
            .n_vertices = n,
            .pos = v->shadow_pos,
            .indices = v->idx,
            .n_triangles = m,
            .paint = WB_PAINT_VERTEX_COLOR,
            .rgba = v->shadow_rgba,
            .material = flat,
            .opacity = SHADOW_OPACITY,
        };
        wb_raster3_mesh(v->raster, &sm);
    }
    WbMaterial body = wb_material_default();
    body.specular = 0.25f;
    body.shininess = 24.0f;
    for (int p = 0; p < v->n_parts; p++) {
        WbMesh3 bm = {
            .n_vertices = v->bodies.n_vertices,
            .pos = v->bodies.pos,
            .normal = v->bodies.normal,
            .indices = v->bodies.idx + 3 * (size_t)v->parts[p].first_triangle,
            .n_triangles = v->parts[p].n_triangles,
            .paint = WB_PAINT_COLOR,
            .color = v->parts[p].color,
            .material = body,
            .opacity = 1.0f,
            .cull_back = true,
        };
        wb_raster3_mesh(v->raster, &bm);
    }
    if (v->torso_pos) {
        WbMesh3 tm = {
            .n_vertices = v->torso_vertices,
            .pos = v->torso_pos,
            .normal = v->torso_normal,
            .indices = v->torso_idx,
            .n_triangles = v->torso_triangles,
            .paint = WB_PAINT_COLOR,
            .color = v->torso_color,
            .material = body,
            .opacity = 1.0f,
            .cull_back = true,
        };
        wb_raster3_mesh(v->raster, &tm);
    }
    WbMesh3 cm = {
        .n_vertices = v->fnx * v->fny,
        .pos = v->fpos,
        .normal = v->fnormal,
        .indices = v->fidx,
        .n_triangles = v->fn_triangles,
        .paint = WB_PAINT_COLOR,
        .color = wb_rgba_premul(clamp01(su->colour[0]), clamp01(su->colour[1]),
                                clamp01(su->colour[2]), 1.0),
        .material = cloth_material(su),
        .opacity = 1.0f,
        .cull_back = false,
    };
    wb_raster3_mesh(v->raster, &cm);
    return wb_raster3_end(v->raster, pool, out, err);
}
