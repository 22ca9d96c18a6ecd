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

void wb_jiggle_view_capsule(WbJiggleView *v, const double ab[4], double radius, WbColor fill,
                            WbColor line, float line_px)
{
    const WbXform2 m = v->to_px;
    float x0 = m.sx * (float)ab[0] + m.ox, y0 = m.sy * (float)ab[1] + m.oy;
    float x1 = m.sx * (float)ab[2] + m.ox, y1 = m.sy * (float)ab[3] + m.oy;
    float r = m.sx * (float)radius;
    /* Half circles around each end (chords within 1/8 px), joined by the sides. */
    int h = (int)ceilf((float)M_PI / acosf(fmaxf(0.0f, 1.0f - 0.125f / fmaxf(r, 0.25f))) / 2.0f);
    h = h < 6 ? 6 : h > 1024 ? 1024 : h;
    int n = 2 * (h + 1);
    if (!reserve(v, n + 1))
        return;
    double phi = atan2((double)y1 - y0, (double)x1 - x0);
    for (int i = 0; i <= h; i++) {
        double a = phi - M_PI / 2 + M_PI * i / h;
        v->xy[2 * i] = x1 + r * (float)cos(a);
        v->xy[2 * i + 1] = y1 + r * (float)sin(a);
        v->xy[2 * (h + 1 + i)] = x0 - r * (float)cos(a);
        v->xy[2 * (h + 1 + i) + 1] = y0 - r * (float)sin(a);
    }
    if (fill.a > 0)
        wb_raster_polygon(&v->raster, v->xy, n, premul(fill));
    v->xy[2 * n] = v->xy[0];
    v->xy[2 * n + 1] = v->xy[1];
    if (line_px > 0)
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

/* ---------------------------------------------------------------- frames */

/* The jiggle pictures' palette (straight RGBA). */
static const WbColor BONE_TINT[3] = {
    {0.88, 0.31, 0.37, 1.0}, {0.31, 0.71, 0.47, 1.0}, {0.31, 0.50, 0.88, 1.0}};
static const WbColor INK = {0.12, 0.13, 0.16, 1.0};
static const WbColor HANDLE = {0.92, 0.92, 0.88, 1.0};
static const WbColor AXIS = {0.55, 0.57, 0.62, 1.0};
static const WbColor FLOOR_FILL = {0.20, 0.22, 0.26, 1.0};
static const WbColor FLOOR_LINE = {0.62, 0.66, 0.72, 1.0};
static const WbColor COLLIDER_FILL = {0.62, 0.66, 0.72, 0.22};
static const WbColor COLLIDER_LINE = {0.80, 0.83, 0.88, 1.0};
/* 1d: handle and ζ = 0.14 / 1 / 1.7 */
static const WbColor REGIME[3] = {
    {0.98, 0.62, 0.25, 1.0}, {0.36, 0.80, 0.52, 1.0}, {0.42, 0.62, 0.98, 1.0}};


void wb_jiggle_view_tint(const float w[3], WbColor base, float rgba[4])
{
    double s = (double)w[0] + w[1] + w[2];
    double k = s > 1.0 ? 1.0 / s : 1.0;
    double c[3] = {base.r, base.g, base.b};
    for (int b = 0; b < 3; b++) {
        double wb = w[b] * k * 0.9;
        c[0] += wb * (BONE_TINT[b].r - base.r);
        c[1] += wb * (BONE_TINT[b].g - base.g);
        c[2] += wb * (BONE_TINT[b].b - base.b);
    }
    for (int i = 0; i < 3; i++)
        rgba[i] = (float)c[i];
    rgba[3] = (float)base.a;
}

void wb_jiggle_view_draw_2d(WbJiggleView *v, const WbJiggle2dFrame *f)
{
    float ppu = wb_jiggle_view_px_per_unit(v);
    float line = fmaxf(1.0f, ppu * 0.018f);
    if (f->floor)
        wb_jiggle_view_floor(v, f->floor_y, FLOOR_FILL, FLOOR_LINE, line);
    if (f->ring)
        wb_jiggle_view_circle(v, f->ring_x, f->ring_y, f->ring_r, COLLIDER_FILL, COLLIDER_LINE,
                              line);
    if (f->capsule)
        wb_jiggle_view_capsule(v, f->capsule_ab, f->capsule_r, COLLIDER_FILL, COLLIDER_LINE,
                               line);
    const float centre[4] = {(float)f->colour.r, (float)f->colour.g, (float)f->colour.b,
                             (float)f->colour.a};
    WbColor rim = {f->colour.r * 0.45, f->colour.g * 0.45, f->colour.b * 0.45, 1.0};
    wb_jiggle_view_shape(v, f->outer, f->inner, f->n, f->rgba_outer, f->rgba_inner,
                         (float)f->body[0], (float)f->body[1], centre, rim, line);
    if (f->overlay) {
        const double *rest = f->rest;
        for (int b = 0; b < 3; b++) {
            if (!(f->bone_weight[b] > 0))
                continue;
            double seg[4] = {rest[3 * b], rest[3 * b + 1], rest[3 * b] + f->offsets[3 * b],
                             rest[3 * b + 1] + f->offsets[3 * b + 1]};
            wb_jiggle_view_marker(v, seg[0], seg[1], 3.5f * line, line, INK);
            wb_jiggle_view_polyline(v, seg, 2, line, INK);
            wb_jiggle_view_dot(v, seg[2], seg[3], 2.2f * line, BONE_TINT[b]);
        }
        /* a chain's links, joint to joint, under the joints' dots */
        for (int b = 1; f->chain && b < 3; b++) {
            const double *o = f->offsets;
            double link[4] = {rest[3 * b - 3] + o[3 * b - 3], rest[3 * b - 2] + o[3 * b - 2],
                              rest[3 * b] + o[3 * b], rest[3 * b + 1] + o[3 * b + 1]};
            wb_jiggle_view_polyline(v, link, 2, 1.6f * line, INK);
        }
    }
}

/* 1d, the trace panel between left and right: zero line, time axis, and
 * the handle's and the masses' heights over the last `win` seconds. */
static void draw_1d_traces(WbJiggleView *v, const WbJiggle1dFrame *f, double left, double right, double axis_y, float line,
                           double now, double win)
{
    float ppu = wb_jiggle_view_px_per_unit(v);
    /* panel, zero line, time axis with ticks at whole seconds */
    wb_jiggle_view_rect(v, left, -1.5, right, 1.5, (WbColor){1, 1, 1, 0.04});
    double zero[4] = {left, 0.0, right, 0.0};
    wb_jiggle_view_polyline(v, zero, 2, line * 0.75f, (WbColor){AXIS.r, AXIS.g, AXIS.b, 0.5});
    double ax[4] = {left, axis_y, right, axis_y};
    wb_jiggle_view_polyline(v, ax, 2, line, AXIS);
    double scale = (right - left) / win;
    for (double s = ceil(now - win); s <= now + 1e-9; s += 1.0) {
        double x = right - (now - s) * scale;
        if (x < left - 1e-9)
            continue;
        double tick[4] = {x, axis_y, x, axis_y - 0.08};
        wb_jiggle_view_polyline(v, tick, 2, line, AXIS);
    }
    /* traces: at most ~2 samples per pixel of panel */
    int64_t n = f->trace_n;
    int64_t first = 0;
    while (first < n && f->trace[5 * ((f->trace_head + first) % f->trace_cap)] < now - win)
        first++;
    if (first > 0)
        first--; /* one sample before the window so the trace reaches the edge */
    int64_t count = n - first;
    double px = (right - left) * ppu;
    int64_t stride = count > 2 * (int64_t)px ? (count + 2 * (int64_t)px - 1) / (2 * (int64_t)px) : 1;
    for (int c = 0; c < 4; c++) {
        int m = 0;
        for (int64_t i = first; i < n; i += stride) {
            const double *s = f->trace + 5 * ((f->trace_head + i) % f->trace_cap);
            double x = right - (now - s[0]) * scale;
            f->scratch[2 * m] = x < left ? left : x;
            f->scratch[2 * m + 1] = s[1 + c];
            m++;
        }
        if (n > 0 && (n - 1 - first) % stride) {
            const double *s = f->trace + 5 * ((f->trace_head + n - 1) % f->trace_cap);
            f->scratch[2 * m] = right - (now - s[0]) * scale;
            f->scratch[2 * m + 1] = s[1 + c];
            m++;
        }
        WbColor colour = c == 0 ? HANDLE : REGIME[c - 1];
        if (c == 0)
            colour.a = 0.55;
        if (m > 0)
            wb_jiggle_view_polyline(v, f->scratch, m, c == 0 ? line : 1.6f * line, colour);
    }
}

/* 1d: the handle (a bar) at column col and the masses hanging beside it on
 * springs, pitch apart. */
static void draw_1d_masses(WbJiggleView *v, const WbJiggle1dFrame *f, double col, double pitch,
                           float line)
{
    float ppu = wb_jiggle_view_px_per_unit(v);
    double h = f->handle;
    double bar[4] = {col - 0.1, h, col + 0.1, h};
    wb_jiggle_view_polyline(v, bar, 2, 3.0f * line, HANDLE);
    for (int b = 0; b < 3; b++) {
        double mx = col + (b + 1) * pitch, my = h + f->mass[b];
        double spring[4] = {col + 0.1, h, mx, my};
        if (f->chain && b > 0) {
            spring[0] = mx - pitch;
            spring[1] = h + f->mass[b - 1];
        }
        wb_jiggle_view_polyline(v, spring, 2, line * 0.75f,
                                (WbColor){HANDLE.r, HANDLE.g, HANDLE.b, 0.35});
        wb_jiggle_view_dot(v, mx, my, 0.09f * ppu, REGIME[b]);
        wb_jiggle_view_marker(v, mx, my, 0.09f * ppu, line * 0.75f, INK);
    }
}

/* 1d layout (world units, y up): the handle and the three masses in a
 * column on the left, their traces scrolling right to left in the panel
 * beside it (newest sample at the panel's right edge), a time axis with a
 * tick every second under it. */
void wb_jiggle_view_draw_1d(WbJiggleView *v, const WbJiggle1dFrame *f)
{
    double x0, x1;
    wb_jiggle_view_x_range(v, &x0, &x1);
    float ppu = wb_jiggle_view_px_per_unit(v);
    float line = fmaxf(1.0f, ppu * 0.012f);
    double col = x0 + 0.25, pitch = 0.32;
    double left = col + 4 * pitch + 0.1, right = x1 - 0.15, axis_y = -1.55;
    double now = f->now, win = f->window;
    /* A frame too narrow for the trace panel (under a pixel wide) shows the
     * handle and the masses only. */
    if ((right - left) * ppu >= 1.0)
        draw_1d_traces(v, f, left, right, axis_y, line, now, win);
    draw_1d_masses(v, f, col, pitch, line);
}
