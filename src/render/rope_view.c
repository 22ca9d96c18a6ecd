/* rope_view.c — rope scenes as antialiased 2D primitives (see rope_view.h). */
#include "render/rope_view.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/scratch.h"
#include "render/texture.h"

/* Ring and rim colours: a near-black that reads on light and dark
 * backgrounds alike, and the anchor's light centre. */
static const WbColor RING = {0.11, 0.12, 0.14, 1.0};
static const WbColor ANCHOR_FILL = {0.93, 0.93, 0.90, 1.0};

static uint32_t premul(WbColor c)
{
    return wb_rgba_premul(c.r, c.g, c.b, c.a);
}

/* The outline of a shape is its fill at 55 % brightness: visible on any
 * fill, same hue. */
static WbColor shade(WbColor c)
{
    return (WbColor){c.r * 0.55, c.g * 0.55, c.b * 0.55, c.a};
}

WbStatus wb_rope_view_init(WbRopeView *v, const WbRopeViewSetup *s, WbError *err)
{
    memset(v, 0, sizeof *v);
    if (!(s->world_w > 0 && s->world_h > 0 && isfinite(s->world_w) && isfinite(s->world_h)))
        return wb_error_set(err, WB_E_INPUT, "rope view: world size %gx%g must be positive",
                            s->world_w, s->world_h);
    WbStatus st = wb_raster_init(&v->raster, s->width, s->height, s->samples, err);
    if (st)
        return st;
    /* fit: the whole world visible (smaller scale); fill: output covered. */
    double sx = s->width / s->world_w, sy = s->height / s->world_h;
    double k = s->fit == WB_FIT_COVER ? fmax(sx, sy) : fmin(sx, sy);
    v->to_px = (WbXform2){(float)k, (float)k, (float)(0.5 * (s->width - k * s->world_w)),
                          (float)(0.5 * (s->height - k * s->world_h))};
    v->background = s->transparent ? 0u : premul(s->background);
    return WB_OK;
}

void wb_rope_view_free(WbRopeView *v)
{
    wb_raster_free(&v->raster);
    free(v->xy);
    memset(v, 0, sizeof *v);
}

float wb_rope_view_px_per_m(const WbRopeView *v)
{
    return v->to_px.sx;
}

void wb_rope_view_begin(WbRopeView *v)
{
    v->failed = false;
    wb_raster_begin(&v->raster, v->background);
}

/* Room for n points in the scratch; false (and failed set) when out of
 * memory.  Grows only, so steady frames do not allocate. */
static bool reserve(WbRopeView *v, int n)
{
    if (wb_scratch_reserve_xy(&v->xy, &v->cap_xy, n, 64))
        return true;
    v->failed = true;
    return false;
}

void wb_rope_view_obstacle(WbRopeView *v, const double *x, const double *y, int n, WbColor fill,
                           float outline_px)
{
    if (n < 3 || !reserve(v, n + 1))
        return;
    const WbXform2 m = v->to_px;
    for (int i = 0; i <= n; i++) {
        int k = i % n;
        v->xy[2 * i] = m.sx * (float)x[k] + m.ox;
        v->xy[2 * i + 1] = m.sy * (float)y[k] + m.oy;
    }
    wb_raster_polygon(&v->raster, v->xy, n, premul(fill));
    /* closed outline: the first point repeated, so the last corner gets
     * its round join like the others */
    if (outline_px > 0)
        wb_raster_polyline(&v->raster, v->xy, n + 1, outline_px, premul(shade(fill)),
                           WB_CAP_ROUND);
}

/* Pieces per segment of the smoothed rope: about one per 4 px, at most
 * SUBDIV_MAX (a rope's segments are short; this only rounds its bends). */
#define SUBDIV_MAX 8

/* Centripetal Catmull–Rom (α = ½) between p1 and p2 at u ∈ [0, 1], by
 * Barry and Goldman's pyramid: it passes through every particle, and the
 * centripetal knots keep it from looping or overshooting at sharp bends
 * (a rope pulled tight over a corner).  Returns false for a degenerate
 * knot interval (coincident particles), where the caller draws straight. */
static bool catmull_rom(const float *p0, const float *p1, const float *p2, const float *p3,
                        float u, float *out)
{
    float d01 = hypotf(p1[0] - p0[0], p1[1] - p0[1]);
    float d12 = hypotf(p2[0] - p1[0], p2[1] - p1[1]);
    float d23 = hypotf(p3[0] - p2[0], p3[1] - p2[1]);
    float t0 = 0.0f, t1 = t0 + sqrtf(d01), t2 = t1 + sqrtf(d12), t3 = t2 + sqrtf(d23);
    if (t1 - t0 < 1e-3f || t2 - t1 < 1e-3f || t3 - t2 < 1e-3f)
        return false;
    float t = t1 + (t2 - t1) * u;
    for (int k = 0; k < 2; k++) {
        float a1 = ((t1 - t) * p0[k] + (t - t0) * p1[k]) / (t1 - t0);
        float a2 = ((t2 - t) * p1[k] + (t - t1) * p2[k]) / (t2 - t1);
        float a3 = ((t3 - t) * p2[k] + (t - t2) * p3[k]) / (t3 - t2);
        float b1 = ((t2 - t) * a1 + (t - t0) * a2) / (t2 - t0);
        float b2 = ((t3 - t) * a2 + (t - t1) * a3) / (t3 - t1);
        out[k] = ((t2 - t) * b1 + (t - t1) * b2) / (t2 - t1);
    }
    return true;
}

void wb_rope_view_rope(WbRopeView *v, const float *x, const float *y, int n, float width_px,
                       WbColor colour)
{
    if (n < 1 || !(width_px > 0) || !reserve(v, n + (n - 1) * SUBDIV_MAX + 1))
        return;
    const WbXform2 m = v->to_px;
    float *p = v->xy, *out = v->xy + 2 * n;
    for (int i = 0; i < n; i++) {
        p[2 * i] = m.sx * x[i] + m.ox;
        p[2 * i + 1] = m.sy * y[i] + m.oy;
    }
    if (n < 3) {
        wb_raster_polyline(&v->raster, p, n, width_px, premul(colour), WB_CAP_ROUND);
        return;
    }
    /* the particles are the rope's samples; draw the smooth curve through
     * them, ends continued by reflection (p−1 = 2p0 − p1) */
    int k = 0;
    out[k++] = p[0];
    out[k++] = p[1];
    for (int i = 0; i + 1 < n; i++) {
        const float *p1 = p + 2 * i, *p2 = p + 2 * (i + 1);
        float q0[2], q3[2];
        if (i == 0) {
            q0[0] = 2 * p1[0] - p2[0];
            q0[1] = 2 * p1[1] - p2[1];
        } else {
            q0[0] = p1[-2];
            q0[1] = p1[-1];
        }
        if (i + 2 < n) {
            q3[0] = p2[2];
            q3[1] = p2[3];
        } else {
            q3[0] = 2 * p2[0] - p1[0];
            q3[1] = 2 * p2[1] - p1[1];
        }
        float len = hypotf(p2[0] - p1[0], p2[1] - p1[1]);
        int pieces = (int)ceilf(len / 4.0f);
        pieces = pieces < 1 ? 1 : pieces > SUBDIV_MAX ? SUBDIV_MAX : pieces;
        for (int j = 1; j < pieces; j++) {
            float q[2];
            if (!catmull_rom(q0, p1, p2, q3, (float)j / (float)pieces, q))
                break;
            out[k++] = q[0];
            out[k++] = q[1];
        }
        out[k++] = p2[0];
        out[k++] = p2[1];
    }
    wb_raster_polyline(&v->raster, out, k / 2, width_px, premul(colour), WB_CAP_ROUND);
}

void wb_rope_view_anchor(WbRopeView *v, float x, float y, float radius_px)
{
    const WbXform2 m = v->to_px;
    float px = m.sx * x + m.ox, py = m.sy * y + m.oy;
    wb_raster_disc(&v->raster, px, py, radius_px, premul(RING));
    wb_raster_disc(&v->raster, px, py, radius_px * 0.55f, premul(ANCHOR_FILL));
}

void wb_rope_view_weight(WbRopeView *v, float x, float y, float radius_px, WbColor colour)
{
    const WbXform2 m = v->to_px;
    float px = m.sx * x + m.ox, py = m.sy * y + m.oy;
    /* rim about 1/6 of the radius, at least a pixel */
    float rim = fmaxf(1.0f, radius_px / 6.0f);
    wb_raster_disc(&v->raster, px, py, radius_px, premul(shade(colour)));
    if (radius_px > rim)
        wb_raster_disc(&v->raster, px, py, radius_px - rim, premul(colour));
}

WbStatus wb_rope_view_end(WbRopeView *v, WbPool *pool, WbImage *out, WbError *err)
{
    if (v->failed)
        return wb_error_set(err, WB_E_IO, "out of memory drawing the ropes");
    return wb_raster_end(&v->raster, pool, out, err);
}

void wb_rope_view_draw(WbRopeView *v, const WbRopeState *s, const WbRopeViewObstacle *obstacles,
                       int n_obstacles, const WbRopeViewLine *lines, float outline_px)
{
    float ppm = wb_rope_view_px_per_m(v);
    for (int o = 0; o < n_obstacles; o++)
        wb_rope_view_obstacle(v, obstacles[o].x, obstacles[o].y, obstacles[o].n,
                              obstacles[o].colour, outline_px);
    for (int i = 0; i < s->n_ropes; i++) {
        int a = s->rope_first[i];
        for (int l = s->link_first[i]; l <= s->link_first[i + 1]; l++) {
            bool end = l == s->link_first[i + 1] || !s->active[l];
            if (!end)
                continue;
            int b = l == s->link_first[i + 1] ? s->rope_first[i + 1] - 1 : s->la[l];
            wb_rope_view_rope(v, s->x + a, s->y + a, b - a + 1, lines[i].width_px,
                              lines[i].colour);
            a = b + 1;
        }
    }
    for (int i = 0; i < s->n_ropes; i++) {
        const WbRopeViewLine *l = &lines[i];
        int first = s->rope_first[i], last = s->rope_first[i + 1] - 1;
        float w = l->width_px;
        if (l->weight_r > 0.0f)
            wb_rope_view_weight(v, s->x[last], s->y[last], l->weight_r * ppm, l->colour);
        float ar = fmaxf(w * 1.2f, 3.0f);
        if (l->anchor_start)
            wb_rope_view_anchor(v, s->x[first], s->y[first], ar);
        if (l->anchor_end)
            wb_rope_view_anchor(v, s->x[last], s->y[last], ar);
    }
}
