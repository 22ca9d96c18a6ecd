/* photo_fold.h — keeps the photo mesh from folding over itself.
 *
 * The springs of photo.h are independent, so nothing stops a strong pull
 * (a grab dragged far, or a grab pulling across a pin) from moving a vertex
 * past its neighbours: the triangles flip and the picture doubles back.
 * The limit runs after a spring step, in two stages.  First every grid row
 * is put back in order along x and every column along y (no vertex closer
 * than WB_PHOTO_FOLD_MIN of a cell to the next): runs of vertices that
 * overtook each other move together at their mean (an isotonic regression,
 * photo_fold.c).  That undoes the wide fold a pull makes ahead of itself.
 * Then, for what shear can still fold, for each cell (i, j) of the grid it
 * takes the four corner triangles (each corner with its two edge
 * neighbours; together they cover both diagonals the rasterizer may use)
 * and their signed areas.  A cell whose smallest area falls below
 * WB_PHOTO_FOLD_MIN times its rest area has its vertices' displacements
 * (and velocities) pulled towards the cell's common part m:
 *     d_v ← m + t (d_v - m),   v_v ← u + t (v_v - u)
 * with the largest t in [0, 1] (found by bisection) that brings the cell
 * back to that area.  m, u are the means over the cell's vertices, or 0
 * when a vertex of the cell has mask weight 0 (it stays at rest: the mask
 * invariant of photo.h); t = 0 is the rest cell moved by m, never folded.
 * A cell that does not fall below the bound is not touched, bit for bit.
 *
 * Cells go in row order, each seeing its neighbours' limits (a fixed
 * order: the result depends on nothing but the state); further sweeps run
 * while the last one limited anything, up to a fixed number.
 * Scalar code compiled once: the same bits at every SIMD width.
 */
#ifndef WB_PHOTO_FOLD_H
#define WB_PHOTO_FOLD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/photo.h"

/* A cell is limited when a corner triangle's signed area falls below this
 * fraction of its rest area (0 = flat, below 0 = inverted). */
#define WB_PHOTO_FOLD_MIN 0.02f

/* Working memory of the limit, for a grid (no allocation in a step). */
typedef struct WbPhotoFoldScratch {
    double *sum, *vsum;       /* grid+1 each */
    size_t *len;
} WbPhotoFoldScratch;

/* False when out of memory (then nothing needs freeing). */
bool wb_photo_fold_scratch_init(WbPhotoFoldScratch *w, int grid);
void wb_photo_fold_scratch_free(WbPhotoFoldScratch *w);

/* Limit s (see above).  Returns how much it had to hold: the vertices the
 * ordering moved plus the cell limits applied (a cell limited in several
 * sweeps counts in each); 0 when nothing came near folding. */
int64_t wb_photo_fold_limit(WbPhotoState *s, WbPhotoFoldScratch *w);

/* Corner triangles with a signed area ≤ 0 (flat or inverted), over the
 * whole mesh: 4 per cell at most.  For tests and diagnostics. */
int64_t wb_photo_fold_count(const WbPhotoState *s);

#endif
