/* jiggle_outline.h — the 2D jiggle shapes (disc, capsule, ring): outline
 * geometry, their UV projection onto a weight map, and their preset paint
 * of three edge bones each (SPEC 4.2, the reference's 2D page).
 *
 * Model frame: y up, centred on the origin, 2 units tall (y ∈ [−1, 1]):
 *   disc     radius 1
 *   capsule  points within WB_OUTLINE_CAPSULE_R of the segment
 *            (0, ±WB_OUTLINE_CAPSULE_L): a pill 2 tall, 2·R wide
 *   ring     outer radius 1, hole of radius WB_OUTLINE_RING_INNER
 * Outline point i of n lies on the ray at angle θ_i = 2π·i/n from +x,
 * counter-clockwise; a ring's hole has the same n points on the same rays,
 * so outer and inner point i pair up.
 *
 * Projection (a "polar" UV, the 2D counterpart of the sphere's):
 *     u = atan2(y, x)/2π + ½   (u = ½ at +x, ¾ at the top, ¼ at the bottom)
 *     v = clamp(½ − y/2, 0, 1) (v = 0 at the top, 1 at the bottom)
 * Preset paint (mirroring the orb / capsule / torus presets of the 3D page
 * with three bones on the outline):
 *   disc     heavy sagging bottom (bone 0) + right (1) and left (2) flanks
 *   capsule  heavy hanging bottom cap (0) + right (1) and left (2) belly
 *   ring     three lobes 120° apart on the outer rim, one at the bottom
 * Pure: no I/O, no globals; nothing allocates but the caller's map.
 */
#ifndef WB_JIGGLE_OUTLINE_H
#define WB_JIGGLE_OUTLINE_H

#include <stdbool.h>

#include "sim/weightmap.h"

#define WB_OUTLINE_CAPSULE_R 0.62
#define WB_OUTLINE_CAPSULE_L 0.38
#define WB_OUTLINE_RING_INNER 0.55

typedef enum WbOutlineShape { WB_OUTLINE_DISC, WB_OUTLINE_CAPSULE, WB_OUTLINE_RING } WbOutlineShape;

/* "disc", "capsule", "ring" → shape. */
bool wb_outline_shape_from_name(const char *name, WbOutlineShape *shape);

/* True when the shape has a hole (the ring). */
bool wb_outline_has_hole(WbOutlineShape shape);

/* n outline points (x, y pairs) into xy; for a ring, inner (may be NULL
 * for other shapes) gets the hole's n points.  n ≥ 3. */
void wb_outline_points(WbOutlineShape shape, int n, float *xy, float *inner);

/* UV of a model-frame point (see the projection above). */
void wb_outline_uv(double x, double y, double uv[2]);

/* Clear m and paint the shape's preset (any map size). */
void wb_outline_preset(WbWeightMap *m, WbOutlineShape shape);

#endif
