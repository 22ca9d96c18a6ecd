/* scratch.h — grow-only scratch buffers that a renderer keeps from frame to
 * frame.
 *
 * A view records each frame's geometry (pixel polylines, outlines) into a
 * buffer it owns and reuses.  The buffer only grows, doubling from a first
 * capacity until it holds what is asked, so once a scene's largest shape has
 * been drawn the following frames allocate nothing.
 *
 * Capacities count elements, not bytes.  On failure (out of memory, or a
 * size that does not fit in size_t) the buffer and its capacity are left as
 * they were: still valid, still owned by the caller, freed with free().
 */
#ifndef WB_SCRATCH_H
#define WB_SCRATCH_H

#include <stdbool.h>
#include <stddef.h>

/* Make *buf (capacity *cap elements of elem bytes; NULL with capacity 0 at
 * first) hold at least need elements: unchanged when it already does, else
 * reallocated to first·2^k ≥ need elements (first ≥ 1) and *cap updated.
 * The contents up to the old capacity are kept.  false on failure. */
bool wb_scratch_reserve(void **buf, size_t *cap, size_t need, size_t elem, size_t first);

/* The same for a buffer of points, each an (x, y) pair of floats: *xy holds
 * *cap points and is made to hold at least need (≥ 0) of them. */
bool wb_scratch_reserve_xy(float **xy, int *cap, int need, int first);

#endif
