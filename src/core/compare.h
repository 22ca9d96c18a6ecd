/* compare.h — comparing a rendered frame with a golden one.
 *
 * Metrics over the RGBA channels of two images of the same size:
 *   max_diff  the largest absolute difference of any channel (0..255);
 *   share     the fraction of pixels where some channel differs by more
 *             than `threshold`;
 *   psnr      10·log10(255² / MSE) over all channels, in dB (INFINITY when
 *             the images are identical).
 * A frame passes when share ≤ max_share and psnr ≥ min_psnr.
 */
#ifndef WB_COMPARE_H
#define WB_COMPARE_H

#include <stdbool.h>

#include "core/error.h"
#include "core/image.h"

typedef struct WbCompareLimits {
    int threshold;      /* a pixel differs when a channel differs by more (0..255) */
    double max_share;   /* largest passing fraction of differing pixels, 0..1 */
    double min_psnr;    /* smallest passing PSNR in dB; 0 = no PSNR limit */
} WbCompareLimits;

typedef struct WbCompareResult {
    int max_diff;
    long differing;     /* pixels over the threshold */
    double share;
    double psnr;
    bool pass;
} WbCompareResult;

/* Compare a with b (same size; caller checks). */
void wb_compare(const WbImage *a, const WbImage *b, const WbCompareLimits *lim,
                WbCompareResult *out);

/* A diff picture a person can read: the golden frame dimmed to grey, with
 * differing pixels in red (brightness ∝ difference, so a one-level change is
 * still visible) and pixels under the threshold in amber when they differ at
 * all.  Allocates out (same size). */
WbStatus wb_compare_diff_image(const WbImage *golden, const WbImage *actual, int threshold,
                               WbImage *out, WbError *err);

#endif
