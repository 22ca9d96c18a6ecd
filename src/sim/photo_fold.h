/* photo_fold.h — keeps the photo mesh from folding over itself.
 *
 * The springs of photo.h are independent, so nothing stops a strong pull
 * (a grab dragged far, or a grab pulling across a pin) from moving a vertex
 * past its neighbours: the triangles flip and the picture doubles back.
 *
 * The limit takes back motion.  Before a run of steps the positions are
 * saved (P); after it, every cell's four corner triangles (each corner
 * with its two edge neighbours: together both diagonals the rasterizer may
 * use) get their doubled signed area A, and A' from P.  A triangle is bad
 * when A ≤ 0, or when A < floor and A < A'/2 (floor = WB_PHOTO_FOLD_MIN of
 * the rest area): a triangle near the floor may shrink, by at most half a
 * run, so the mesh can still move through tight spots.  Every vertex of a
 * bad triangle, grabbed and pinned ones too (a grab stops dragging what
 * would fold), goes back to P; its 8 neighbours keep at most half their
 * run's motion, so what is taken back fades out instead of tearing.
 * Velocities are kept (a held vertex keeps its spring's phase).  Passes
 * repeat over the cells around the vertices just moved, each pass judging
 * all its triangles before it moves anything (the result does not depend
 * on the order of the cells).
 *
 * Guarantee: kept motion only goes down, and with every vertex back at P
 * each triangle has A = A' > 0 and is not bad, so the passes end with no
 * triangle at A ≤ 0.  From the rest mesh on, no triangle is ever flat or
 * inverted.  A run where no triangle falls below the floor costs one sign
 * pass and is left bit for bit.  Scalar code compiled once: the same bits
 * at every SIMD width.
 */
#ifndef WB_PHOTO_FOLD_H
#define WB_PHOTO_FOLD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/photo.h"

/* The floor: a fraction of a corner triangle's rest area (0 = flat). */
#define WB_PHOTO_FOLD_MIN 0.02f

/* The saved positions and working memory, for a grid (no allocation in a
 * step). */
typedef struct WbPhotoFoldScratch {
    float *px, *py;           /* positions before the run, n each */
    float *nx, *ny;           /* the next run's, written by the limit */
    uint8_t *bad_row;         /* grid: cell rows with a triangle below the floor */
    float *sx, *sy;           /* positions after it, of the touched vertices */
    uint8_t *level;           /* motion kept, in halves (2 = untouched) */
    uint32_t *stamp, pass;    /* the pass that last listed a vertex */
    size_t *list, *next;      /* vertices lowered in the current pass; spare */
    size_t *touched, n_touched; /* vertices lowered in this limit */
} WbPhotoFoldScratch;

/* False when out of memory (then nothing needs freeing). */
bool wb_photo_fold_scratch_init(WbPhotoFoldScratch *w, int grid);
void wb_photo_fold_scratch_free(WbPhotoFoldScratch *w);

/* Save s's positions: the state the next limit may go back to.  It must
 * have no triangle with a signed area ≤ 0 for the guarantee to hold.  The
 * limit saves its result itself; call this at the start and whenever
 * anything else moves the mesh. */
void wb_photo_fold_save(const WbPhotoState *s, WbPhotoFoldScratch *w);

/* Limit s against the saved positions (see above), then save the result.
 * Returns the vertices that gave motion back; 0 when no triangle fell
 * below the floor (then s is left bit for bit). */
int64_t wb_photo_fold_limit(WbPhotoState *s, WbPhotoFoldScratch *w);

/* Corner triangles with a signed area ≤ 0 (flat or inverted), over the
 * whole mesh: 4 per cell at most.  For tests and diagnostics. */
int64_t wb_photo_fold_count(const WbPhotoState *s);

#endif
