/* jiggle_view.c — jiggle scenes as antialiased 2D primitives (see
 * jiggle_view.h). */
#include "render/jiggle_view.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/scratch.h"
#include "render/ramp.h"
#include "render/texture.h"

/* A solid shape is filled by SHAPE_RINGS rings of its n outline points
 * scaled toward the centre, the tint fading in from the rim over the outer
 * TINT_DEPTH of the way (a fan from the centre spread each rim colour in a
 * wedge to the middle, so a tinted stretch of rim showed as a pie slice).
 * Mesh capacity: a ring shape has 2n vertices and 2n triangles; a solid
 * one SHAPE_RINGS·n + 1 and (2·SHAPE_RINGS − 1)·n. */
#define SHAPE_RINGS 8
#define TINT_DEPTH 0.45
#define MESH_V (SHAPE_RINGS * WB_JIGGLE_VIEW_MAX_OUTLINE + 1)
#define MESH_T ((2 * SHAPE_RINGS - 1) * WB_JIGGLE_VIEW_MAX_OUTLINE)

static uint32_t premul(WbColor c)
{
    return wb_rgba_premul(c.r, c.g, c.b, c.a);
}

WbStatus wb_jiggle_view_init(WbJiggleView *v, const WbJiggleViewSetup *s, WbError *err)
{
    memset(v, 0, sizeof *v);
    if (!(s->world_h > 0 && isfinite(s->world_h) && isfinite(s->cx) && isfinite(s->cy)))
        return wb_error_set(err, WB_E_INPUT, "jiggle view: world height %g must be positive",
                            s->world_h);
    if (!(s->world_w >= 0 && isfinite(s->world_w)))
        return wb_error_set(err, WB_E_INPUT, "jiggle view: world width %g must be 0 or positive",
                            s->world_w);
    WbStatus st = wb_raster_init(&v->raster, s->width, s->height, s->samples, err);
    if (st)
        return st;
    v->mx = malloc(sizeof *v->mx * MESH_V);
    v->my = malloc(sizeof *v->my * MESH_V);
    v->mrgba = malloc(sizeof *v->mrgba * 4 * MESH_V);
    v->midx = malloc(sizeof *v->midx * 3 * MESH_T);
    if (!v->mx || !v->my || !v->mrgba || !v->midx) {
        wb_jiggle_view_free(v);
        return wb_error_set(err, WB_E_IO, "out of memory");
    }
    /* y up: pixel y = oy − k·y, the world point (cx, cy) at the centre;
     * k pixels per unit: the height alone, or the axis that binds first
     * (contain) or last (cover) when the scene's width is given */
    double k = s->height / s->world_h;
    if (s->world_w > 0) {
        double kw = s->width / s->world_w;
        k = s->fit == WB_FIT_COVER ? fmax(k, kw) : fmin(k, kw);
    }
    v->to_px = (WbXform2){(float)k, (float)-k, (float)(0.5 * s->width - k * s->cx),
                          (float)(0.5 * s->height + k * s->cy)};
    v->background = s->transparent ? 0u : premul(s->background);
    return WB_OK;
}

void wb_jiggle_view_free(WbJiggleView *v)
{
    wb_raster_free(&v->raster);
    free(v->xy);
    free(v->mx);
    free(v->my);
    free(v->mrgba);
    free(v->midx);
    memset(v, 0, sizeof *v);
}

float wb_jiggle_view_px_per_unit(const WbJiggleView *v)
{
    return v->to_px.sx;
}

void wb_jiggle_view_x_range(const WbJiggleView *v, double *x0, double *x1)
{
    *x0 = -v->to_px.ox / v->to_px.sx;
    *x1 = (v->raster.w - v->to_px.ox) / v->to_px.sx;
}

void wb_jiggle_view_begin(WbJiggleView *v)
{
    v->failed = false;
    wb_raster_begin(&v->raster, v->background);
}

/* Room for n points in the scratch; grows only (steady frames do not
 * allocate); false and `failed` when out of memory. */
static bool reserve(WbJiggleView *v, int n)
{
    if (wb_scratch_reserve_xy(&v->xy, &v->cap_xy, n, 256))
        return true;
    v->failed = true;
    return false;
}

static void put_rgba(float *dst, const float *src)
{
    float a = src[3];
    dst[0] = src[0] * a;
    dst[1] = src[1] * a;
    dst[2] = src[2] * a;
    dst[3] = a;
}

/* Stroke a closed outline of n world points (pairs in `pts`). */
static void stroke_closed(WbJiggleView *v, const float *pts, int n, float width, uint32_t c)
{
    if (!(width > 0) || !reserve(v, n + 1))
        return;
    const WbXform2 m = v->to_px;
    for (int i = 0; i <= n; i++) {
        int k = i % n;
        v->xy[2 * i] = m.sx * pts[2 * k] + m.ox;
        v->xy[2 * i + 1] = m.sy * pts[2 * k + 1] + m.oy;
    }
    wb_raster_polyline(&v->raster, v->xy, n + 1, width, c, WB_CAP_ROUND);
}

void wb_jiggle_view_shape(WbJiggleView *v, const float *outer, const float *inner, int n,
                          const float *rgba_outer, const float *rgba_inner, float cx, float cy,
                          const float centre_rgba[4], WbColor outline, float outline_px)
{
    if (n < 3 || n > WB_JIGGLE_VIEW_MAX_OUTLINE)
        return;
    for (int i = 0; i < n; i++) {
        v->mx[i] = outer[2 * i];
        v->my[i] = outer[2 * i + 1];
        put_rgba(v->mrgba + 4 * i, rgba_outer + 4 * i);
    }
    int nv, nt = 0;
    if (inner) {
        /* strip: quad (o_i, o_i+1, h_i+1, h_i) as two triangles */
        for (int i = 0; i < n; i++) {
            v->mx[n + i] = inner[2 * i];
            v->my[n + i] = inner[2 * i + 1];
            put_rgba(v->mrgba + 4 * (n + i), rgba_inner + 4 * i);
        }
        nv = 2 * n;
        for (int i = 0; i < n; i++) {
            uint32_t a = (uint32_t)i, b = (uint32_t)((i + 1) % n);
            uint32_t *t = v->midx + 3 * nt;
            t[0] = a, t[1] = b, t[2] = (uint32_t)n + b;
            t[3] = a, t[4] = (uint32_t)n + b, t[5] = (uint32_t)n + a;
            nt += 2;
        }
    } else {
        /* rings k = 1 .. SHAPE_RINGS − 1 at vertex k·n (the outline is
         * ring SHAPE_RINGS, at 0), the centre last */
        const int c = SHAPE_RINGS * n;
        v->mx[c] = cx;
        v->my[c] = cy;
        put_rgba(v->mrgba + 4 * c, centre_rgba);
        for (int k = 1; k < SHAPE_RINGS; k++) {
            const float t = (float)k / SHAPE_RINGS;
            const float f = (float)wb_smoothstep(1.0 - TINT_DEPTH, 1.0, t);
            for (int i = 0; i < n; i++) {
                const int q = k * n + i;
                v->mx[q] = cx + t * (v->mx[i] - cx);
                v->my[q] = cy + t * (v->my[i] - cy);
                for (int ch = 0; ch < 4; ch++)
                    v->mrgba[4 * q + ch] =
                        v->mrgba[4 * c + ch] + f * (v->mrgba[4 * i + ch] - v->mrgba[4 * c + ch]);
            }
        }
        nv = c + 1;
        /* ring of t = k/SHAPE_RINGS: index k·n, the outline (k = SHAPE_RINGS) 0 */
#define RING(k) ((k) == SHAPE_RINGS ? 0 : (k) * n)
        for (int i = 0; i < n; i++) {
            const int i1 = (i + 1) % n;
            uint32_t *t = v->midx + 3 * nt++;
            t[0] = (uint32_t)c, t[1] = (uint32_t)(RING(1) + i), t[2] = (uint32_t)(RING(1) + i1);
            for (int k = 1; k < SHAPE_RINGS; k++) {
                const uint32_t a = (uint32_t)(RING(k) + i), b = (uint32_t)(RING(k) + i1);
                const uint32_t d = (uint32_t)(RING(k + 1) + i1), e = (uint32_t)(RING(k + 1) + i);
                t = v->midx + 3 * nt;
                t[0] = a, t[1] = e, t[2] = d;
                t[3] = a, t[4] = d, t[5] = b;
                nt += 2;
            }
        }
#undef RING
    }
    WbMesh mesh = {
        .n_vertices = nv,
        .x = v->mx,
        .y = v->my,
        .to_px = v->to_px,
        .indices = v->midx,
        .n_triangles = nt,
        .paint = WB_PAINT_VERTEX_COLOR,
        .rgba = v->mrgba,
    };
    wb_raster_mesh(&v->raster, &mesh);
    uint32_t c = premul(outline);
    stroke_closed(v, outer, n, outline_px, c);
    if (inner)
        stroke_closed(v, inner, n, outline_px, c);
}

void wb_jiggle_view_rect(WbJiggleView *v, double x0, double y0, double x1, double y1,
                         WbColor colour)
{
    const WbXform2 m = v->to_px;
    float X0 = m.sx * (float)x0 + m.ox, X1 = m.sx * (float)x1 + m.ox;
    float Y0 = m.sy * (float)y0 + m.oy, Y1 = m.sy * (float)y1 + m.oy;
    float q[8] = {X0, Y0, X1, Y0, X1, Y1, X0, Y1};
    wb_raster_polygon(&v->raster, q, 4, premul(colour));
}

void wb_jiggle_view_floor(WbJiggleView *v, double y, WbColor fill, WbColor line, float line_px)
{
    const WbXform2 m = v->to_px;
    float py = m.sy * (float)y + m.oy, w = (float)v->raster.w, h = (float)v->raster.h;
    if (py >= h + line_px)
        return;
    float top = fmaxf(py, -line_px);
    float q[8] = {-4.0f, top, w + 4.0f, top, w + 4.0f, h + 4.0f, -4.0f, h + 4.0f};
    wb_raster_polygon(&v->raster, q, 4, premul(fill));
    if (line_px > 0) {
        float l[4] = {-4.0f, py, w + 4.0f, py};
        wb_raster_polyline(&v->raster, l, 2, line_px, premul(line), WB_CAP_BUTT);
    }
}

/* Points on a circle of pixel radius r: chords within 1/8 px of the arc. */
static int circle_points(WbJiggleView *v, float px, float py, float r)
{
    int n = (int)ceilf((float)M_PI / acosf(fmaxf(0.0f, 1.0f - 0.125f / fmaxf(r, 0.25f))));
    n = n < 12 ? 12 : n > 2048 ? 2048 : n;
    if (!reserve(v, n + 1))
        return 0;
    for (int i = 0; i <= n; i++) {
        double a = 2.0 * M_PI * (i % n) / n;
        v->xy[2 * i] = px + r * (float)cos(a);
        v->xy[2 * i + 1] = py + r * (float)sin(a);
    }
    return n;
}

void wb_jiggle_view_circle(WbJiggleView *v, double x, double y, double radius, WbColor fill,
                           WbColor line, float line_px)
{
    const WbXform2 m = v->to_px;
    float px = m.sx * (float)x + m.ox, py = m.sy * (float)y + m.oy;
    float r = m.sx * (float)radius;
    if (fill.a > 0)
        wb_raster_disc(&v->raster, px, py, r, premul(fill));
    int n;
    if (line_px > 0 && (n = circle_points(v, px, py, r)) > 0)
        wb_raster_polyline(&v->raster, v->xy, n + 1, line_px, premul(line), WB_CAP_ROUND);
}

void wb_jiggle_view_marker(WbJiggleView *v, double x, double y, float radius_px, float line_px,
                           WbColor colour)
{
    const WbXform2 m = v->to_px;
    float px = m.sx * (float)x + m.ox, py = m.sy * (float)y + m.oy;
    int n = circle_points(v, px, py, radius_px);
    if (n > 0)
        wb_raster_polyline(&v->raster, v->xy, n + 1, line_px, premul(colour), WB_CAP_ROUND);
}

void wb_jiggle_view_polyline(WbJiggleView *v, const double *xy, int n, float width_px,
                             WbColor colour)
{
    if (n < 1 || !(width_px > 0) || !reserve(v, n))
        return;
    const WbXform2 m = v->to_px;
    for (int i = 0; i < n; i++) {
        v->xy[2 * i] = m.sx * (float)xy[2 * i] + m.ox;
        v->xy[2 * i + 1] = m.sy * (float)xy[2 * i + 1] + m.oy;
    }
    wb_raster_polyline(&v->raster, v->xy, n, width_px, premul(colour), WB_CAP_ROUND);
}

void wb_jiggle_view_dot(WbJiggleView *v, double x, double y, float radius_px, WbColor colour)
{
    const WbXform2 m = v->to_px;
    wb_raster_disc(&v->raster, m.sx * (float)x + m.ox, m.sy * (float)y + m.oy, radius_px,
                   premul(colour));
}

WbStatus wb_jiggle_view_end(WbJiggleView *v, WbPool *pool, WbImage *out, WbError *err)
{
    if (v->failed)
        return wb_error_set(err, WB_E_IO, "out of memory drawing the jiggle scene");
    return wb_raster_end(&v->raster, pool, out, err);
}
