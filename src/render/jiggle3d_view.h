/* jiggle3d_view.h — the jiggle kind's 3D views (SPEC 4.2): the orb,
 * capsule, torus, air dancer and walker as lit, depth-buffered meshes
 * through the shared 3D rasterizer (raster3d.h).
 *
 * Each shape is tessellated once in its MODEL frame (y up, about one unit
 * tall, centred as weightmap.h's UV projections expect), and every vertex
 * samples the weight map at its rest UV (wb_weight_shape_uv), so a map
 * painted for a shape — the preset or `wobble weights export`'s PNG —
 * lands where it was painted.  Per frame the rest vertices are deformed by
 * the standard's rule, vertex += Σ_b w_b · offset_b (wb_jiggle_deform),
 * then optionally styled, moved to the body's position and re-normalled:
 *
 *   squash   volume-preserving scale along each bone's offset direction,
 *            about the bone's rest point, blended by the vertex's weight
 *            (stretch s along d = offset/|offset|, 1/√s across it, so the
 *            local volume s·(1/√s)² = 1).  Styling only: the bones'
 *            offsets — the standard's state — are never touched.
 *   dancer   the tube's cross-sections turn to stay square to its bent
 *            centreline (a first-order rotation: y −= r·∂c/∂y, where c(y)
 *            is the ring's mean offset), so it sways instead of shearing;
 *            its feet carry no weight and stay anchored.
 *   floor    with a floor, no vertex goes below it (the surface flattens
 *            on contact; the bones meet the floor collider in the runner).
 *
 * Heatmap mode paints vertex colours from the three channels (R, G, B =
 * bones 0, 1, 2 over a dark base, faint paint boosted as 1 − (1 − w)³)
 * instead of the shape's colour.  A floor
 * is drawn as an unlit checkerboard that fades into the background, with a
 * soft contact shadow under the shape.  The bone overlay draws each bone's
 * rest point and its offset tip joined by a line, on top of everything.
 *
 * Ownership: the view owns its meshes, scratch and rasterizer; per-frame
 * drawing allocates nothing once the first frame has been drawn.  Pure
 * helpers (shape mesh, squash, heatmap colour, bone rest points) are
 * exposed for tests.
 */
#ifndef WB_JIGGLE3D_VIEW_H
#define WB_JIGGLE3D_VIEW_H

#include <stdbool.h>
#include <stddef.h>

#include "core/color.h"
#include "core/error.h"
#include "core/image.h"
#include "core/pool.h"
#include "render/mesh3.h"
#include "render/raster3d.h"
#include "sim/weightmap.h"

#define WB_JIGGLE3_SQUASH_MAX 1.0   /* squash-and-stretch amount range [0, 1], 0 = off */

typedef struct WbJiggle3Setup {
    int width, height;      /* output pixels */
    int samples;            /* 1, 4, 8 or 16 */
    WbWeightShape shape;
    WbColor colour;         /* the shape's colour (straight alpha) */
    WbColor background;     /* ignored when transparent */
    bool transparent;
    bool heatmap;           /* vertex colours from the weight channels */
    double squash;          /* squash-and-stretch amount, [0, WB_JIGGLE3_SQUASH_MAX] */
    bool floor;             /* draw a floor plane at floor_y and keep vertices above it */
    double floor_y;
    bool sphere;            /* draw a sphere collider (centre xyz, radius) */
    double sphere_at[3], sphere_r;
    bool capsule;           /* draw a capsule collider (axis ends a, b; radius) */
    double capsule_a[3], capsule_b[3], capsule_r;
} WbJiggle3Setup;

/* Per-frame inputs. */
typedef struct WbJiggle3Frame {
    const double *offsets;  /* 9: the three bones' offsets (world units); a chain's tips */
    bool chain;             /* overlay: a link from each bone's tip to the next one's */
    double body[3];         /* where the model's origin is in the world */
    double yaw, pitch;      /* camera orbit around the shape's centre, degrees */
    double distance;        /* camera distance, world units; ≤ 0 = fit the shape */
    double fov;             /* vertical field of view, degrees */
    bool overlay;           /* draw the bones (rest point → offset tip) */
} WbJiggle3Frame;

/* Floor colours drawn flat, at most (the two tones and the background). */
#define WB_JIGGLE3_FLOOR_FLAT 4

typedef struct WbJiggle3View {
    WbJiggle3Setup setup;
    WbMeshBuf mesh;         /* the shape: rest positions (model frame), uv, indices */
    float *weights;         /* 3 per vertex: bones 0..2 at the vertex's rest UV */
    float *dwdy;            /* dancer: 3 per vertex, ∂(ring mean weight)/∂y; else NULL */
    float *pos, *normal;    /* this frame's deformed world positions and normals */
    double *normal_acc;     /* 3 per vertex: the normals' sums (no per-frame allocation) */
    float *rgba;            /* heatmap colours, premultiplied (NULL when not heatmap) */
    double bone_rest[9];    /* model frame rest points (weighted centroids) */
    double bone_weight[3];  /* Σ weight of each bone over the vertices */
    double centre[3];       /* model frame: middle of the bounding box */
    double radius;          /* bounding-sphere radius about centre */
    double reach;           /* squash length scale, world units */
    WbMeshBuf floor;        /* unlit checker cells */
    float *floor_rgba;
    /* floor.idx: first the cells of one opaque colour, floor_tris[g]
     * triangles of floor_color[g] (g < floor_flat), then the other cells,
     * floor_tris[WB_JIGGLE3_FLOOR_FLAT] triangles with vertex colours */
    int floor_flat;
    uint32_t floor_color[WB_JIGGLE3_FLOOR_FLAT];
    int floor_tris[WB_JIGGLE3_FLOOR_FLAT + 1];
    float *shadow_pos, *shadow_rgba; /* contact shadow disc (placed per frame) */
    uint32_t *shadow_idx;
    WbMeshBuf extra;        /* sphere collider, dancer's blower box */
    WbMeshBuf bones;        /* overlay meshes (rebuilt per frame) */
    WbRaster3 *raster;
} WbJiggle3View;

/* Build shape's mesh (model frame, appended to b): orb sphere r 0.8,
 * capsule r 0.25 from y −0.5 to 0.5, torus 0.66/0.28, dancer tube from
 * y −1 to 1, walker torso from y −0.95 to 0.84 (seam at the back, −z).
 * Closed and watertight by index.  Errors as mesh3.h. */
WbStatus wb_jiggle3_shape_mesh(WbMeshBuf *b, WbWeightShape shape, WbError *err);

/* Weights of n model-frame points: w[3i..3i+3) = the map at their UV. */
void wb_jiggle3_sample_weights(const WbWeightMap *m, WbWeightShape shape, const float *pos,
                               size_t n, float *w);

/* Each bone's rest point: the weight-weighted centroid of the n points
 * (the origin for a bone with no weight); weight_sum gets Σ w_b. */
void wb_jiggle3_bone_rest(const float *pos, const float *w, size_t n, double rest[9],
                          double weight_sum[3]);

/* Squash-and-stretch styling: pos[i] += Σ_b w_b·(S_b − I)(rest[i] − bone_rest_b),
 * S_b = s·d dᵀ + (I − d dᵀ)/√s, d = offset_b/|offset_b|,
 * s = 1 + amount·min(|offset_b|/reach, 1).  amount 0 or zero offsets leave pos as is.
 * rest, pos: 3n floats; w: 3n. */
void wb_jiggle3_squash(float *pos, const float *rest, const float *w, size_t n,
                       const double bone_rest[9], const double offsets[9], double amount,
                       double reach);

/* Heatmap colour of one vertex: channel k = 0.25 + 0.75·(1 − (1 − w_k)³),
 * w clamped to [0, 1]; alpha 1 (so straight = premultiplied). */
void wb_jiggle3_heat(const float w[3], float rgba[4]);

/* Build the view: the shape's mesh, its weights from m (any size), the
 * floor and the rasterizer.  WB_E_INPUT for a bad size or sample count,
 * WB_E_IO when out of memory; on failure v owns nothing. */
WbStatus wb_jiggle3_view_init(WbJiggle3View *v, const WbJiggle3Setup *s, const WbWeightMap *m,
                              WbError *err);
void wb_jiggle3_view_free(WbJiggle3View *v);

/* The camera a frame uses (target = the shape's centre at rest, moved with the body). */
WbCamera wb_jiggle3_view_camera(const WbJiggle3View *v, const WbJiggle3Frame *f);

/* Deform, style and draw one frame into out (width × height, caller-owned):
 * the same bytes for every pool size.  WB_E_IO when memory ran out. */
WbStatus wb_jiggle3_view_draw(WbJiggle3View *v, const WbJiggle3Frame *f, WbPool *pool,
                              WbImage *out, WbError *err);

#endif
