/* cloth_view.h — the 3D picture of a cloth scene, drawn through raster3d.
 *
 * What is drawn, back to front of the frame's recipe:
 *   - the floor: a checker of 0.5 m squares (light = floor colour, dark a
 *     shade less) so sliding and falling read, lit as a horizontal surface
 *     by the scene's lights once (it is flat) and faded into the background
 *     with distance from the camera's target, so it has no hard far edge;
 *   - a soft contact shadow: the cloth projected straight down onto the
 *     floor, darker the closer the cloth is to it (per vertex);
 *   - the bodies: the dress form as one smooth torso surface (exactly the
 *     union of its collision spheres in each slice plane and over the hip
 *     and shoulder caps, a Catmull-Rom loft between slices at most 4 mm
 *     out of the union, inside the solver's 8 mm collision margin, so cloth
 *     never appears to pass through it), the head sphere, a neck, a pole
 *     and a round foot; the sphere and box obstacles;
 *   - the cloth: a smooth surface through the particles, two-sided (the
 *     back a shade darker), with the fabric's colour, specular gloss and a
 *     grazing-angle sheen tinted toward white by 30 % (the reference's
 *     fabric lustre).  The grid is refined for drawing (wb_cloth_view_refine
 *     times per cell and side) by a Catmull-Rom patch through the particles,
 *     with area-weighted normals of the refined triangles: lighting is
 *     interpolated over each triangle (raster3d is Gouraud), and over the
 *     grid's own cells a fold's gloss and sheen, which change fast across
 *     it, came out as a row of beads along the fold, one per cell.  Cells
 *     next to an inert particle are drawn flat (their two triangles,
 *     subdivided), so a cut's edge stays where the particles are.
 * Units: metres, y up.  Everything is deterministic: raster3d's output is
 * bit-identical for any pool size.
 */
#ifndef WB_CLOTH_VIEW_H
#define WB_CLOTH_VIEW_H

#include <stdbool.h>
#include <stdint.h>

#include "core/error.h"
#include "core/image.h"
#include "core/pool.h"
#include "render/camera.h"
#include "render/mesh3.h"
#include "render/raster3d.h"
#include "sim/cloth.h"

#define WB_CLOTH_VIEW_MAX_PARTS 64   /* coloured body parts (spheres, boxes, the form) */
#define WB_CLOTH_VIEW_CHECKER 0.5f   /* floor square, metres */

typedef struct WbClothViewSetup {
    int width, height;        /* pixels */
    int samples;              /* 1, 4, 8 or 16 */
    WbCamera camera;
    float background[4];      /* straight RGBA 0..1; alpha 0 = transparent */
    float colour[3];          /* cloth front, straight sRGB 0..1 */
    float sheen;              /* 0..1 grazing lustre */
    float gloss;              /* 0..1 specular highlight */
    bool floor;
    float floor_y;            /* metres */
    float floor_colour[3];
} WbClothViewSetup;

/* One coloured range of the body mesh. */
typedef struct WbClothViewPart {
    int first_triangle, n_triangles;
    uint32_t color;           /* premultiplied */
} WbClothViewPart;

typedef struct WbClothView {
    WbClothViewSetup setup;
    WbRaster3 *raster;
    WbLighting light;
    uint32_t background;      /* premultiplied */
    WbMeshBuf bodies;         /* every body shape, one buffer */
    WbClothViewPart parts[WB_CLOTH_VIEW_MAX_PARTS];
    int n_parts;
    /* the dress form's torso: one smooth surface over its spheres */
    float *torso_pos, *torso_normal;
    uint32_t *torso_idx;
    int torso_vertices, torso_triangles;
    uint32_t torso_color;
    /* floor: one vertex grid; index lists of the light and dark squares
     * that fade into the background (0, 1: vertex colours) and of those
     * that do not (2, 3: one flat colour each, the cheaper fill) */
    float *floor_pos, *floor_rgba[2];
    uint32_t *floor_idx[4];
    uint32_t floor_color[2];   /* premultiplied, of the unfaded squares */
    int floor_vertices, floor_triangles[4];
    /* cloth and its shadow, refilled every frame from the state */
    int nx, ny;
    float *pos, *shadow_pos, *shadow_rgba;
    uint32_t *idx;             /* the shadow: the grid's triangles that draw */
    int n_triangles;
    /* the sheet as drawn: the grid refined `refine` times per cell */
    int refine, fnx, fny;
    float *fpos, *fnormal;
    double *facc;              /* normals' sums (wb_mesh3_normals_into) */
    float *frows;              /* particle rows refined along i, one extra each side */
    uint8_t *fsmooth;          /* per grid cell: its patch reads only live particles */
    uint32_t *fidx;
    int fn_triangles;
} WbClothView;

/* Set up the view (raster, lights, floor).  WB_E_INPUT for a bad size or
 * sample count, WB_E_IO when memory runs out; on failure v owns nothing. */
WbStatus wb_cloth_view_init(WbClothView *v, const WbClothViewSetup *s, WbError *err);
void wb_cloth_view_free(WbClothView *v);

/* Add bodies (drawn every frame).  Colours are straight RGB 0..1.
 * WB_E_INPUT when WB_CLOTH_VIEW_MAX_PARTS parts exist already; WB_E_IO when
 * memory runs out. */
WbStatus wb_cloth_view_add_sphere(WbClothView *v, const float c[3], float r, const float rgb[3],
                                  WbError *err);
/* An axis-aligned box from lo to hi with its edges rounded by `round`
 * metres (at most 0.9 of its smallest half extent; 0 = sharp): the cloth
 * view passes half a cloth link, so a sheet folded over an edge does not
 * show the edge through it (see cloth_view.c). */
WbStatus wb_cloth_view_add_box(WbClothView *v, const float lo[3], const float hi[3], float round,
                               const float rgb[3], WbError *err);
/* The dress form of `def` (its spheres as wb_mannequin_build makes them):
 * the torso surface, head, neck, and a stand from position.y to the hips.
 * Only one form per view (WB_E_INPUT for a second). */
WbStatus wb_cloth_view_add_mannequin(WbClothView *v, const WbMannequinDef *def,
                                     const float rgb[3], WbError *err);

/* Move every body added so far by `by` metres (a cloth teleport,
 * wb_cloth_translate); the floor stays. */
void wb_cloth_view_move_bodies(WbClothView *v, const float by[3]);

/* How many times the view refines each cell of an nx × ny cloth grid per
 * side: 3 up to 100 particles per side, 2 up to 200, else 1 (so refining
 * never makes the drawn sheet more than ~400 vertices a side). */
int wb_cloth_view_refine(int nx, int ny);
#define WB_CLOTH_VIEW_MAX_REFINE 3

/* Draw the cloth state (its positions; the normals come from the refined
 * surface) with the bodies and the floor into out (w×h straight RGBA8).
 * Triangles with an inert corner are left out.  Errors of raster3d are
 * passed on. */
WbStatus wb_cloth_view_draw(WbClothView *v, const WbClothState *s, WbPool *pool, WbImage *out,
                            WbError *err);

#endif
