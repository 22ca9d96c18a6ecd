/* photo_kernel.h — the photo mesh's loops, once per lane width.
 *
 * photo_kernel.inc holds the step, the motion test, the NaN scan and the
 * fold limit's corner scan,
 * written once over core/simd.h's lane types; photo_w4.c, photo_w8.c and
 * photo_w16.c compile it at 4, 8 and 16 lanes, and photo.c calls the width
 * core/cpu.h reports.  Only photo.c includes this.
 *
 * Every array is padded to a multiple of WB_PHOTO_LANES vertices (padding
 * sits at 0 with zero rest and velocity and never moves) and
 * WB_PHOTO_ALIGN-byte aligned, so every width runs whole, aligned vectors
 * with no tail.
 */
#ifndef WB_PHOTO_KERNEL_H
#define WB_PHOTO_KERNEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/photo.h"

#define WB_PHOTO_LANES 16
#define WB_PHOTO_ALIGN 64

static inline size_t wb_photo_padded(size_t n)
{
    return (n + WB_PHOTO_LANES - 1) / WB_PHOTO_LANES * WB_PHOTO_LANES;
}

/* Steps j0..n-1 of a fused run, with the cursor displacement of each step,
 * and the NaN/Inf scan of the final state when find_bad is set. */
typedef struct WbPhotoRun {
    const float *ddx, *ddy;
    int j0, n;
    bool find_bad;
    int64_t bad; /* out: first NaN/Inf vertex, or -1 */
} WbPhotoRun;

typedef struct WbPhotoKernels {
    void (*run)(WbPhotoState *s, const WbPhotoStep *k, WbPhotoRun *run);
    bool (*moving)(const WbPhotoState *s, const WbPhotoStep *k, float eps);
    int64_t (*find_nonfinite)(const WbPhotoState *s);
    int64_t (*corner_scan)(const WbPhotoState *s, float lim, float *nx, float *ny,
                           uint8_t *bad_row);
} WbPhotoKernels;

extern const WbPhotoKernels wb_photo_kernels_w4, wb_photo_kernels_w8, wb_photo_kernels_w16;

#endif
