#include "core/compare.h"

#include <math.h>
#include <stdlib.h>

static int pixel_diff(const uint8_t *p, const uint8_t *q, double *sq)
{
    int m = 0;
    for (int c = 0; c < 4; c++) {
        int d = abs((int)p[c] - (int)q[c]);
        *sq += (double)d * d;
        if (d > m)
            m = d;
    }
    return m;
}

void wb_compare(const WbImage *a, const WbImage *b, const WbCompareLimits *lim,
                WbCompareResult *out)
{
    double sq = 0;
    int max_diff = 0;
    long differing = 0;
    for (int y = 0; y < a->h; y++) {
        const uint8_t *ra = wb_image_row(a, y), *rb = wb_image_row(b, y);
        for (int x = 0; x < a->w; x++) {
            int d = pixel_diff(ra + 4 * x, rb + 4 * x, &sq);
            if (d > max_diff)
                max_diff = d;
            if (d > lim->threshold)
                differing++;
        }
    }
    double n = (double)a->w * a->h;
    double mse = sq / (4.0 * n);
    out->max_diff = max_diff;
    out->differing = differing;
    out->share = (double)differing / n;
    out->psnr = mse > 0 ? 10.0 * log10(255.0 * 255.0 / mse) : INFINITY;
    out->pass = out->share <= lim->max_share && (lim->min_psnr <= 0 || out->psnr >= lim->min_psnr);
}

WbStatus wb_compare_diff_image(const WbImage *golden, const WbImage *actual, int threshold,
                               WbImage *out, WbError *err)
{
    WbStatus st = wb_image_alloc(out, golden->w, golden->h, err);
    if (st)
        return st;
    for (int y = 0; y < golden->h; y++) {
        const uint8_t *g = wb_image_row(golden, y), *a = wb_image_row(actual, y);
        uint8_t *o = wb_image_row(out, y);
        for (int x = 0; x < golden->w; x++) {
            double sq = 0;
            int d = pixel_diff(g + 4 * x, a + 4 * x, &sq);
            /* Dimmed luma of the golden frame as context. */
            int luma = (54 * g[4 * x] + 183 * g[4 * x + 1] + 19 * g[4 * x + 2]) >> 8;
            int bg = 40 + luma / 4;
            uint8_t *p = o + 4 * x;
            if (d > threshold) {
                int v = 128 + (d * 127 + 127) / 255 + 64;
                p[0] = (uint8_t)(v > 255 ? 255 : v);
                p[1] = (uint8_t)(bg / 3);
                p[2] = (uint8_t)(bg / 3);
            } else if (d > 0) {
                p[0] = 200;
                p[1] = 150;
                p[2] = (uint8_t)(bg / 2);
            } else {
                p[0] = p[1] = p[2] = (uint8_t)bg;
            }
            p[3] = 255;
        }
    }
    return WB_OK;
}
