/* raster_core.c — the parts of the raster core that are not inner-loop
 * helpers: the sample pattern, the size checks and the band dispatch.
 * See raster_core.h. */
#include "render/raster_core.h"

#include "render/raster.h"

#include <stdlib.h>

/* Direct3D standard sample positions, 1/16 px from the pixel centre. */
static const int8_t PAT1[1][2] = {{0, 0}};
static const int8_t PAT4[4][2] = {{-2, -6}, {6, -2}, {-6, 2}, {2, 6}};
static const int8_t PAT8[8][2] = {{1, -3}, {-1, 3}, {5, 1}, {-3, -5},
                                  {-5, 5}, {-7, -1}, {3, 7}, {7, -7}};
static const int8_t PAT16[16][2] = {{1, 1},   {-1, -3}, {-3, 2}, {4, -1}, {-5, -2}, {2, 5},
                                    {5, 3},   {3, -5},  {-2, 6}, {0, -7}, {-4, -6}, {-6, 4},
                                    {-8, 0},  {7, -4},  {6, 7},  {-7, -8}};

static const int8_t (*pattern(int samples))[2]
{
    switch (samples) {
    case 4: return PAT4;
    case 8: return PAT8;
    case 16: return PAT16;
    default: return PAT1;
    }
}

void wb_raster_sample_offset(int samples, int i, int *dx16, int *dy16)
{
    const int8_t (*p)[2] = pattern(samples);
    *dx16 = p[i][0];
    *dy16 = p[i][1];
}

void wb_raster_pattern_init(Pattern *p, int S)
{
    const int8_t (*pat)[2] = pattern(S);
    p->S = S;
    p->omin_x = p->omin_y = INT32_MAX;
    p->omax_x = p->omax_y = INT32_MIN;
    for (int s = 0; s < S; s++) {
        p->ox[s] = pat[s][0] * 16;
        p->oy[s] = pat[s][1] * 16;
        p->omin_x = p->ox[s] < p->omin_x ? p->ox[s] : p->omin_x;
        p->omax_x = p->ox[s] > p->omax_x ? p->ox[s] : p->omax_x;
        p->omin_y = p->oy[s] < p->omin_y ? p->oy[s] : p->omin_y;
        p->omax_y = p->oy[s] > p->omax_y ? p->oy[s] : p->omax_y;
        p->yx[2 * s] = (int16_t)p->oy[s];
        p->yx[2 * s + 1] = (int16_t)p->ox[s];
        p->fx[s] = (float)p->ox[s];
        p->fy[s] = (float)p->oy[s];
        p->sx[s] = (float)pat[s][0] / 16.0f;
        p->sy[s] = (float)pat[s][1] / 16.0f;
    }
    if (S > 8)
        return;
    for (unsigned m = 1; m < (1u << S); m++) {
        int sx = 0, sy = 0, n = 0;
        for (int s = 0; s < S; s++)
            if (m >> s & 1) {
                sx += p->ox[s];
                sy += p->oy[s];
                n++;
            }
        p->cx[m] = (float)sx / (float)(n * FIX_ONE);
        p->cy[m] = (float)sy / (float)(n * FIX_ONE);
    }
}

WbStatus wb_raster_check_size(int w, int h, int samples, WbError *err)
{
    if (w <= 0 || h <= 0 || w > 32768 || h > 32768)
        return wb_error_set(err, WB_E_INPUT, "render size %dx%d is out of range (1..32768)", w, h);
    if (samples != 1 && samples != 4 && samples != 8 && samples != 16)
        return wb_error_set(err, WB_E_INPUT,
                            "antialiasing samples must be 1, 4, 8 or 16, not %d", samples);
    return WB_OK;
}

WbStatus wb_raster_bands_run(WbPool *pool, BandQueue *q, int n_bands, WbPoolFn task, void *ctx,
                             WbError *err)
{
    atomic_init(&q->next, 0);
    atomic_init(&q->stopped, false);
    q->n = n_bands;
    q->stop = wb_pool_stop(pool);
    int threads = wb_pool_threads(pool);
    wb_pool_run(pool, threads < n_bands ? threads : n_bands, task, ctx);
    if (atomic_load_explicit(&q->stopped, memory_order_relaxed))
        return wb_error_set(err, WB_E_INTERRUPTED, "interrupted while drawing");
    return WB_OK;
}

bool wb_depth_band_alloc(DepthBand *d, size_t n)
{
    d->color = malloc(n * sizeof *d->color);
    d->depth = malloc(n * sizeof *d->depth);
    d->clean = false;
    if (d->color && d->depth)
        return true;
    wb_depth_band_free(d);
    return false;
}

void wb_depth_band_free(DepthBand *d)
{
    free(d->color);
    free(d->depth);
    d->color = NULL;
    d->depth = NULL;
}

void wb_depth_band_clear(DepthBand *d, size_t n, uint32_t bg)
{
    for (size_t i = 0; i < n; i++)
        d->color[i] = bg;
    memset(d->depth, 0, n * sizeof *d->depth);   /* q = 0: infinitely far */
    for (int y = 0; y < DEPTH_BAND_ROWS; y++) {
        d->lo[y] = INT32_MAX;
        d->hi[y] = INT32_MIN;
    }
    d->clean_bg = bg;
    d->clean = true;
}
