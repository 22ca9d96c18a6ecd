/* rope_view.h — draws rope scenes (SPEC 4.4, 5) through the rasterizer.
 *
 * The world is the rectangle [0, world_w] × [0, world_h] in metres, origin
 * top left, y down (the rope scene's `view`).  It is framed into the W×H
 * output like a photo: `fit` shows all of it, centred, letterboxed with the
 * background; `fill` covers the output and crops.  Every draw call takes
 * world coordinates and pixel widths (wb_rope_view_px_per_m converts).
 *
 * A frame is wb_rope_view_begin, any number of draw calls (later ones paint
 * over earlier ones), wb_rope_view_end.  Lines are antialiased by the
 * rasterizer's multisampling; positions keep sub-pixel precision, so a rope
 * moving by a fraction of a pixel moves smoothly.
 */
#ifndef WB_ROPE_VIEW_H
#define WB_ROPE_VIEW_H

#include <stdbool.h>

#include "core/color.h"
#include "core/error.h"
#include "core/fit.h"
#include "core/image.h"
#include "core/pool.h"
#include "render/raster.h"
#include "sim/rope.h"

typedef struct WbRopeViewSetup {
    int width, height;     /* output pixels */
    int samples;           /* 1, 4, 8 or 16 */
    WbFit fit;
    double world_w, world_h; /* metres, > 0 */
    WbColor background;    /* straight RGBA 0..1; ignored when transparent */
    bool transparent;
} WbRopeViewSetup;

typedef struct WbRopeView {
    WbRaster raster;       /* owned */
    WbXform2 to_px;        /* metres → output pixels */
    uint32_t background;   /* premultiplied */
    float *xy;             /* scratch for pixel polylines, owned */
    int cap_xy;            /* points xy holds */
    bool failed;           /* scratch ran out of memory during recording */
} WbRopeView;

/* WB_E_INPUT for a bad size, sample count or world; WB_E_IO out of memory.
 * On failure v owns nothing. */
WbStatus wb_rope_view_init(WbRopeView *v, const WbRopeViewSetup *s, WbError *err);
void wb_rope_view_free(WbRopeView *v);

/* Pixels per metre of the framing (the same on both axes). */
float wb_rope_view_px_per_m(const WbRopeView *v);

/* Start a frame filled with the background. */
void wb_rope_view_begin(WbRopeView *v);

/* A filled convex (or any simple) polygon of n world points with an outline
 * `outline_px` wide in a darker shade of `fill`. */
void wb_rope_view_obstacle(WbRopeView *v, const double *x, const double *y, int n, WbColor fill,
                           float outline_px);

/* A rope piece: the smooth curve (centripetal Catmull-Rom) through n world
 * points, `width_px` thick with round joins and round caps (n = 1 draws a
 * dot, n = 2 a straight segment). */
void wb_rope_view_rope(WbRopeView *v, const float *x, const float *y, int n, float width_px,
                       WbColor colour);

/* A pinned anchor: a light disc of radius `radius_px` inside a dark ring. */
void wb_rope_view_anchor(WbRopeView *v, float x, float y, float radius_px);

/* An end weight: a disc of radius `radius_px` in `colour` with a dark rim. */
void wb_rope_view_weight(WbRopeView *v, float x, float y, float radius_px, WbColor colour);

/* How wb_rope_view_draw draws one rope of the state. */
typedef struct WbRopeViewLine {
    float width_px;        /* drawn width */
    float weight_r;        /* end weight's disc radius, metres; 0 = no weight */
    WbColor colour;
    bool anchor_start, anchor_end; /* pinned ends get an anchor */
} WbRopeViewLine;

typedef struct WbRopeViewObstacle {
    const double *x, *y;   /* n world points */
    int n;
    WbColor colour;
} WbRopeViewObstacle;

/* The whole picture of a rope state between begin and end: the obstacles,
 * then each rope as its uncut pieces (a run of active links is one curve),
 * then the end weights and the anchors.  lines[i] is rope i's look. */
void wb_rope_view_draw(WbRopeView *v, const WbRopeState *s, const WbRopeViewObstacle *obstacles,
                       int n_obstacles, const WbRopeViewLine *lines, float outline_px);

/* Rasterize the frame into out (width × height, caller-owned) with the
 * pool's threads (NULL = this thread); the same bytes for every pool size.
 * WB_E_IO when memory ran out while recording or drawing. */
WbStatus wb_rope_view_end(WbRopeView *v, WbPool *pool, WbImage *out, WbError *err);

#endif
