/* jiggle_view.h — draws jiggle scenes (SPEC 4.2) in 2D through the shared
 * rasterizer: the 2D view's deformed outlines, colliders and bone overlay,
 * and the 1D view's handle, masses and scrolling traces.
 *
 * World coordinates are y UP (the jiggle core's frame).  The view frames
 * the world rectangle centred on (cx, cy), `world_h` units tall and as wide
 * as the output's aspect makes it, so one unit is the same number of pixels
 * on both axes.  With `world_w` > 0 the scene is world_w × world_h and is
 * framed as output.fit says: `fit` (WB_FIT_CONTAIN) shows all of it, with
 * room to spare on one axis when the output's aspect differs (a portrait
 * frame no longer cuts the sides off); `fill` (WB_FIT_COVER) covers the
 * frame and crops.  Every draw call takes world coordinates and pixel
 * widths.
 *
 * A frame is wb_jiggle_view_begin, draw calls in painting order,
 * wb_jiggle_view_end.  Everything is antialiased by the rasterizer's
 * multisampling and keeps sub-pixel positions, so slow motion is smooth.
 *
 * Ownership: the view owns its raster and scratch; draw calls copy what
 * they are given.  A frame holds at most one shape (wb_jiggle_view_shape).
 */
#ifndef WB_JIGGLE_VIEW_H
#define WB_JIGGLE_VIEW_H

#include <stdbool.h>
#include <stdint.h>

#include "core/color.h"
#include "core/error.h"
#include "core/fit.h"
#include "core/image.h"
#include "core/pool.h"
#include "render/raster.h"

#define WB_JIGGLE_VIEW_MAX_OUTLINE 1024 /* points of one outline */

typedef struct WbJiggleViewSetup {
    int width, height;     /* output pixels */
    int samples;           /* 1, 4, 8 or 16 */
    double cx, cy;         /* world point at the frame's centre */
    double world_h;        /* world units shown top to bottom, > 0 */
    double world_w;        /* scene width to frame by `fit`; 0 = world_h alone sets the scale */
    WbFit fit;             /* with world_w: contain (all visible) or cover (cropped) */
    WbColor background;    /* ignored when transparent */
    bool transparent;
} WbJiggleViewSetup;

typedef struct WbJiggleView {
    WbRaster raster;       /* owned */
    WbXform2 to_px;        /* world (y up) → pixels (sy < 0) */
    uint32_t background;   /* premultiplied */
    float *xy;             /* scratch for pixel polylines, owned */
    int cap_xy;
    /* the shape mesh of this frame: kept until wb_jiggle_view_end */
    float *mx, *my, *mrgba;
    uint32_t *midx;
    bool failed;
} WbJiggleView;

/* WB_E_INPUT for a bad size, sample count or world height; WB_E_IO when out
 * of memory.  On failure v owns nothing. */
WbStatus wb_jiggle_view_init(WbJiggleView *v, const WbJiggleViewSetup *s, WbError *err);
void wb_jiggle_view_free(WbJiggleView *v);

/* Pixels per world unit. */
float wb_jiggle_view_px_per_unit(const WbJiggleView *v);

/* World x range visible ([x0, x1]) for layouts that use the full width. */
void wb_jiggle_view_x_range(const WbJiggleView *v, double *x0, double *x1);

void wb_jiggle_view_begin(WbJiggleView *v);

/* A filled shape with per-vertex colours.  outer: n world points (x, y
 * pairs) of a closed outline; inner: NULL for a solid shape (filled as a
 * fan from (cx, cy), which it must see all of), or n points of a hole
 * matched one to one with outer (a ring, filled as a strip).  rgba_outer /
 * rgba_inner: 4 straight-alpha floats per point in [0, 1]; the centre gets
 * centre_rgba.  Then the outlines are stroked `outline_px` wide in
 * `outline`.  3 <= n <= WB_JIGGLE_VIEW_MAX_OUTLINE; one shape per frame. */
void wb_jiggle_view_shape(WbJiggleView *v, const float *outer, const float *inner, int n,
                          const float *rgba_outer, const float *rgba_inner, float cx, float cy,
                          const float centre_rgba[4], WbColor outline, float outline_px);

/* Everything below world height y, filled, with a line along its top. */
void wb_jiggle_view_floor(WbJiggleView *v, double y, WbColor fill, WbColor line, float line_px);

/* A world-space circle: filled (fill alpha 0 = not filled) and stroked. */
void wb_jiggle_view_circle(WbJiggleView *v, double x, double y, double radius, WbColor fill,
                           WbColor line, float line_px);

/* A ring of pixel radius around a world point (an outline only). */
void wb_jiggle_view_marker(WbJiggleView *v, double x, double y, float radius_px, float line_px,
                           WbColor colour);

/* A polyline of n world points (x, y pairs), round joins and caps. */
void wb_jiggle_view_polyline(WbJiggleView *v, const double *xy, int n, float width_px,
                             WbColor colour);

/* A dot of pixel radius at a world point. */
void wb_jiggle_view_dot(WbJiggleView *v, double x, double y, float radius_px, WbColor colour);

/* An axis-aligned world rectangle, filled. */
void wb_jiggle_view_rect(WbJiggleView *v, double x0, double y0, double x1, double y1,
                         WbColor colour);

/* ---- whole pictures, drawn between begin and end ---- */

/* Colour of an outline point from its three bone weights: base tinted
 * toward each bone's colour by 0.9 of its weight (weights summing over 1
 * are scaled down to 1).  rgba straight, for wb_jiggle_view_shape. */
void wb_jiggle_view_tint(const float w[3], WbColor base, float rgba[4]);

/* The 2D picture: the floor and the ring and capsule colliders when present, the
 * deformed shape, and with overlay each weighted bone as rest point → offset. */
typedef struct WbJiggle2dFrame {
    const float *outer, *inner;           /* deformed outline, world (x, y); inner NULL: no hole */
    const float *rgba_outer, *rgba_inner; /* per point (wb_jiggle_view_tint) */
    int n;                                /* points per outline */
    double body[2];                       /* the shape's centre, world */
    WbColor colour;                       /* the shape's colour; its rim is a darker shade */
    bool floor;
    double floor_y;
    bool ring;
    double ring_x, ring_y, ring_r;        /* world units */
    bool capsule;
    double capsule_ab[4], capsule_r;      /* axis ends (x, y) and radius, world units */
    bool overlay;
    bool chain;                           /* overlay: a link from each joint to the next */
    double rest[9], offsets[9];           /* 3 bones: rest (world) and offset, x y z */
    double bone_weight[3];                /* a bone of weight 0 is not drawn */
} WbJiggle2dFrame;
/* A capsule (segment (x0, y0)-(x1, y1) swept by radius, world units): filled
 * and outlined like wb_jiggle_view_circle. */
void wb_jiggle_view_capsule(WbJiggleView *v, const double ab[4], double radius, WbColor fill,
                            WbColor line, float line_px);
void wb_jiggle_view_draw_2d(WbJiggleView *v, const WbJiggle2dFrame *f);

/* The 1D picture (world units, y up): the handle and the three masses in a
 * column on the left, their traces scrolling right to left in a panel
 * beside it (newest sample at its right edge) over the last `window`
 * seconds, a time axis with a tick every second under it. */
typedef struct WbJiggle1dFrame {
    double now, window;                   /* s */
    double handle;                        /* the handle's height */
    double mass[3];                       /* each mass's offset from it */
    bool chain;                           /* mass b hangs from mass b - 1 (0: the handle) */
    const double *trace;                  /* ring of (t, handle, m0, m1, m2) samples */
    int64_t trace_cap, trace_n, trace_head;
    double *scratch;                      /* 2·(trace_cap + 2) doubles */
} WbJiggle1dFrame;
void wb_jiggle_view_draw_1d(WbJiggleView *v, const WbJiggle1dFrame *f);

/* Rasterize into out (width × height, caller-owned); the same bytes for
 * every pool size.  WB_E_IO when memory ran out while recording. */
WbStatus wb_jiggle_view_end(WbJiggleView *v, WbPool *pool, WbImage *out, WbError *err);

#endif
