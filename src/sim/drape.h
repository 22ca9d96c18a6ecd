/* drape.h — the virtual drape test: a fabric's drape coefficient measured
 * by the cloth solver (the textile lab's Cusick test, BS 5058 / ISO 9073-9).
 *
 * A circular specimen of radius R is clamped, centred and flat, between two
 * horizontal discs of radius r (the standard holds the specimen between a
 * support disc and a clamp disc; here the particles over the disc are
 * pinned, which is exactly that clamp, so nothing can slide off).  The ring
 * outside the disc drapes under gravity until it settles; the drape
 * coefficient is then
 *
 *     DC = (A_shadow − π r²) / (A_flat − π r²)
 *
 * where A_shadow is the area of the specimen's vertical projection (its
 * shadow on a horizontal plane) and A_flat that of the same mesh lying flat.
 * The standard writes π R² for A_flat; the mesh's own flat shadow is used
 * instead so the polygonal edge of the cut grid (a little short of π R²)
 * does not bias the ratio: a specimen that does not sag at all gives
 * DC = 1 exactly, one that hangs straight down gives about 0.
 *
 * The specimen is a grid covering the bounding square 2R × 2R with the
 * particles farther than R from the centre made inert (wb_cloth_set_inert),
 * so the solver keeps its vector sweeps.  Units: metres, seconds, kg.
 *
 * Pure: no I/O, no globals; wb_drape_run allocates the cloth and the shadow
 * raster and frees them before it returns.
 */
#ifndef WB_DRAPE_H
#define WB_DRAPE_H

#include <stdbool.h>

#include "core/error.h"
#include "sim/cloth.h"
#include "sim/fabric.h"

typedef struct WbDrapeDef {
    float radius;         /* specimen R, metres (0.15: the standard's 30 cm specimen) */
    float disc_radius;    /* clamp disc r, metres (0.09: the standard's 18 cm disc) */
    int grid;             /* particles per side of the 2R square, odd so the centre
                             is a particle (27: 11.5 mm spacing, 5 links across the
                             6 cm ring; six presets drape in ~2 s of CPU) */
    WbClothSolver solver; /* WB_CLOTH_XPBD (weight and bending modulus set the drape) */
    WbClothBending bending; /* WB_CLOTH_BEND_DIHEDRAL */
    int substeps;         /* per 1/60 s frame (4) */
    int iterations;       /* per substep (8) */
    float gravity;        /* m/s² (9.81); 0 gives the undraped specimen */
    float max_stretch;    /* the solver's hard stretch limit (1.12) */
    float settle_speed;   /* m/s: settled when no particle moves faster ... (0.01) */
    int settle_frames;    /* ... for this many consecutive frames (30 = 0.5 s) */
    float max_time;       /* s: give up and measure anyway (8) */
    float cell;           /* shadow raster cell, metres (0.0005) */
} WbDrapeDef;

typedef struct WbDrapeResult {
    double drape_coefficient; /* DC, see above; 1 = no sag */
    double shadow_area;       /* A_shadow, m² */
    double flat_area;         /* A_flat, m² */
    double disc_area;         /* π r², m² */
    float max_stretch;        /* wb_cloth_max_stretch at the end */
    double settle_s;          /* time of the first of the quiet frames that ended
                                 the run, s; max_time when it never settled */
    bool settled;
    int frames;               /* frames simulated */
} WbDrapeResult;

/* The standard test at the resolution `wobble presets fabric` uses. */
WbDrapeDef wb_drape_default(void);

/* Run the drape test of `fabric`.  WB_E_INPUT for an invalid def (the
 * message names the field) or fabric; WB_E_IO when memory runs out.
 * Deterministic: the same inputs give the same bits. */
WbStatus wb_drape_run(const WbDrapeDef *def, const WbFabric *fabric, WbDrapeResult *out,
                      WbError *err);

/* Area (m²) of the vertical projection onto the x–z plane of the union of
 * the cloth's triangles (those with no inert corner; the split of
 * wb_cloth_normals), measured by marking every cell of a square raster of
 * side 2·half_extent centred on (cx, cz) whose centre lies in a projected
 * triangle.  Parts outside the raster are not counted.  The error is about
 * half a cell along the shadow's outline.  WB_E_INPUT for a cell or extent
 * that is not positive or a raster over 4096² cells; WB_E_IO when memory
 * runs out. */
WbStatus wb_drape_shadow_area(const WbClothState *s, float cx, float cz, float half_extent,
                              float cell, double *area, WbError *err);

#endif
