/* weightmap.h — the jiggle weight map: per-texel softness for up to three
 * bones, the portable asset of the jiggle standard (with the seed).
 *
 * Layout: w×h texels (default 512×256), rows from the top (v = 0) down,
 * three floats per texel in [0, 1]: channel c is bone c's weight (R, G, B of
 * the PNG).  Texel (i, j) covers u ∈ [i/w, (i+1)/w), v ∈ [j/h, (j+1)/h);
 * its centre is ((i + ½)/w, (j + ½)/h).  u wraps (it is an angle on every
 * projection); v clamps.  File I/O is not here: convert to and from a
 * WbImage (RGBA8, alpha ignored on read and 255 on write) and use io/png.
 * An 8-bit image survives image → map → image bit for bit.
 */
#ifndef WB_WEIGHTMAP_H
#define WB_WEIGHTMAP_H

#include <stdbool.h>
#include <stdint.h>

#include "core/error.h"
#include "core/image.h"

#define WB_WEIGHTMAP_DEFAULT_W 512
#define WB_WEIGHTMAP_DEFAULT_H 256
#define WB_WEIGHTMAP_BONES 3
#define WB_WEIGHTMAP_FORCE_RADIUS_DEFAULT 0.15 /* force radius, fraction of the map width (×0.35) */

typedef struct WbWeightMap {
    int w, h;
    float *texel; /* w·h·3, owned (wb_weightmap_free) */
} WbWeightMap;

/* Allocate an all-zero w×h map.  WB_E_INPUT for sizes outside 1..16384,
 * WB_E_IO when out of memory; *m is zeroed on failure. */
WbStatus wb_weightmap_init(WbWeightMap *m, int w, int h, WbError *err);
void wb_weightmap_free(WbWeightMap *m);
void wb_weightmap_clear(WbWeightMap *m);

/* New map of img's size from its R, G, B bytes (÷255). */
WbStatus wb_weightmap_from_image(WbWeightMap *m, const WbImage *img, WbError *err);

/* New RGBA8 image (wb_image_free) with R, G, B = round(255·weight), A = 255. */
WbStatus wb_weightmap_to_image(const WbWeightMap *m, WbImage *img, WbError *err);

/* Painted area of each channel: Σ weight / texel count, in [0, 1].
 * wb_jiggle_size_from_area turns it into a bone size. */
void wb_weightmap_area(const WbWeightMap *m, double area[WB_WEIGHTMAP_BONES]);

/* Force radius (fraction of the map width, the reference slider) → box
 * radius in texels: max(1, force_radius · w · 0.35). */
double wb_weightmap_force_radius_px(const WbWeightMap *m, double force_radius);

/* dst = src blurred with a (2r+1)×(2r+1) box, r = max(1, ⌊radius_px⌋),
 * separable: u wraps, v repeats the edge row.  This spreads the jiggle
 * beyond the painted strokes.  Wrapping makes each row's sum exact, so the
 * total weight is preserved except near the top and bottom rows.  dst must
 * have src's size and may be src.  WB_E_IO if the scratch map cannot be
 * allocated. */
WbStatus wb_weightmap_blur(const WbWeightMap *src, WbWeightMap *dst, double radius_px, WbError *err);

/* Region gains: weight_c ← min(1, weight_c · all · bone[c]); gains ≥ 0. */
void wb_weightmap_gains(WbWeightMap *m, double all, const double bone[WB_WEIGHTMAP_BONES]);

/* Bilinear weights at (u, v) with the conventions above. */
void wb_weightmap_sample(const WbWeightMap *m, double u, double v, float out[WB_WEIGHTMAP_BONES]);

/* If the file name (any directory part is ignored) contains `seed-<digits>`,
 * store the number in *seed and return true.  The last such occurrence wins;
 * a number above 4294967295 does not count.  "jiggle-weights-seed-7.png" → 7. */
bool wb_weightmap_seed_from_name(const char *name, uint32_t *seed);

/* ---- presets: the reference's paint for each 3D shape ---------------------
 * Each shape has a UV projection (its own model frame, y up, unit-ish size):
 *   orb       sphere, u = atan2(z, x)/2π + ½, v = acos(y/|p|)/π (v = 0 at top)
 *   capsule   cylinder along y, u = atan2(x, z)/2π + ½, v = y + ½  (y ∈ [−½, ½])
 *   torus     u = atan2(x, z)/2π + ½, v = atan2(y, ρ − 0.66)/2π + ½, ρ = √(x²+z²)
 *   dancer    cylinder along its centreline, u as capsule, v = (y + 1)/2
 *   walker    cylinder, seam at the back, u as capsule, v = (y + 0.95)/1.79
 * (v is clamped to [0, 1] on the cylinders).  The preset paint:
 *   orb       heavy sagging bottom (bone 0) + softer equatorial band (bone 1)
 *   capsule   heavy hanging bottom cap (0) + mid belly (1)
 *   torus     three lobes evenly spaced on the outer rim (0, 1, 2)
 *   dancer    head-heavy stacked rings, feet anchored (0 top … 2 lower)
 *   walker    bust (0), glutes (1), groin (2) */
typedef enum WbWeightShape {
    WB_WEIGHT_ORB,
    WB_WEIGHT_CAPSULE,
    WB_WEIGHT_TORUS,
    WB_WEIGHT_DANCER,
    WB_WEIGHT_WALKER
} WbWeightShape;

/* Shape name ("orb", "capsule", "torus", "dancer", "walker") → enum. */
bool wb_weight_shape_from_name(const char *name, WbWeightShape *shape);

/* UV of a model-space point p on the shape (see the table above). */
void wb_weight_shape_uv(WbWeightShape shape, const double p[3], double uv[2]);

/* Clear m and paint the shape's preset. */
void wb_weightmap_preset(WbWeightMap *m, WbWeightShape shape);

/* Paint primitives (max-combine: a texel keeps the larger weight).
 * ring: weight·exp(−(v − vc)²/σ²) on every texel row (skipped below 0.01).
 * stamp: weight·exp(−d²/(0.18 R²)) within R = radius·w/2 texels of (u, v),
 *        distance wrapped in u. */
void wb_weightmap_ring(WbWeightMap *m, int bone, double v_centre, double v_sigma, double weight);
void wb_weightmap_stamp(WbWeightMap *m, int bone, double u, double v, double weight, double radius);

#endif
