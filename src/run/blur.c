/* blur.c — motion blur: sub-frame draws averaged in linear light (blur.h). */
#include "run/blur.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define BAND_ROWS 16   /* rows per pool task: fixed, so the split is the same on every pool */

/* sRGB encoding (IEC 61966-2-1), both ways, on 0..1. */
static double srgb_to_linear(double c)
{
    return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4);
}

bool wb_blur_enabled(const WbOutputDef *out)
{
    return out->motion_blur.samples > 1;
}

WbStatus wb_blur_init(WbBlur *b, const WbOutputDef *out, int w, int h, WbError *err)
{
    memset(b, 0, sizeof *b);
    b->samples = out->motion_blur.samples;
    for (int c = 0; c < 256; c++)
        b->lin[c] = (float)srgb_to_linear(c / 255.0);
    /* edge[k]: the linear value half way (in sRGB) between bytes k and k+1 */
    for (int k = 0; k < 255; k++)
        b->edge[k] = (float)srgb_to_linear((k + 0.5) / 255.0);
    /* start[k]: edges below bin k's lowest value k/BINS (as encode scales it) */
    int c = 0;
    for (int k = 0; k < WB_BLUR_BINS; k++) {
        float lo = (float)k / (float)WB_BLUR_BINS;
        while (c < 255 && lo > b->edge[c])
            c++;
        b->start[k] = (uint8_t)c;
    }
    WbStatus st = wb_image_alloc(&b->sample, w, h, err);
    if (st)
        return st;
    b->sum = malloc((size_t)w * (size_t)h * 4 * sizeof *b->sum);
    if (!b->sum) {
        wb_image_free(&b->sample);
        return wb_error_set(err, WB_E_IO, "out of memory for motion blur");
    }
    return WB_OK;
}

void wb_blur_free(WbBlur *b)
{
    wb_image_free(&b->sample);
    free(b->sum);
    b->sum = NULL;
}

int64_t wb_blur_sample_step(const WbOutputDef *out, int64_t f, int j, double rate)
{
    if (j == 0)
        return wb_runner_frame_step(out, f, rate);
    /* t_j·rate = (N·f − S·j)·rate / (N·fps) + preroll·rate, in long double
     * as the frame clock (runner.c), so S = 1 lands on the N·fps frames */
    long double n = out->motion_blur.samples;
    long double t = ((long double)f * n - (long double)out->motion_blur.shutter * j) *
                        (long double)rate / (n * (long double)out->fps) +
                    (long double)out->preroll * (long double)rate;
    return t <= 0 ? 0 : (int64_t)floorl(t + 1e-9L);
}

/* One pass over a band of rows: add the sample (first: set), or resolve. */
typedef struct Pass {
    WbBlur *b;
    const WbImage *img;        /* the sample, or the destination to resolve into */
    bool first, resolve;
} Pass;

static void add_rows(const WbBlur *b, const WbImage *img, bool first, int y0, int y1)
{
    for (int y = y0; y < y1; y++) {
        const uint8_t *p = wb_image_row(img, y);
        float *s = b->sum + (size_t)y * (size_t)img->w * 4;
        for (int x = 0; x < img->w; x++, p += 4, s += 4) {
            float a = p[3] / 255.0f;
            float v[4] = {a * b->lin[p[0]], a * b->lin[p[1]], a * b->lin[p[2]], a};
            for (int c = 0; c < 4; c++)
                s[c] = first ? v[c] : s[c] + v[c];
        }
    }
}

/* The byte whose sRGB code is nearest to linear value l: the number of
 * edges below l.  The table gives that number at the start of l's bin;
 * the edges within the bin (a few at most, near black) are stepped over. */
static uint8_t encode(const WbBlur *b, float l)
{
    float u = l * (float)WB_BLUR_BINS;
    int k = u > 0.0f ? (u < (float)(WB_BLUR_BINS - 1) ? (int)u : WB_BLUR_BINS - 1) : 0;
    int c = b->start[k];
    while (c < 255 && l > b->edge[c])
        c++;
    return (uint8_t)c;
}

static void resolve_rows(const WbBlur *b, const WbImage *dst, int y0, int y1)
{
    float n = (float)b->samples;
    for (int y = y0; y < y1; y++) {
        uint8_t *p = wb_image_row(dst, y);
        const float *s = b->sum + (size_t)y * (size_t)dst->w * 4;
        for (int x = 0; x < dst->w; x++, p += 4, s += 4) {
            if (!(s[3] > 0.0f)) {
                p[0] = p[1] = p[2] = p[3] = 0;
                continue;
            }
            for (int c = 0; c < 3; c++)
                p[c] = encode(b, s[c] / s[3]);
            float a = s[3] / n * 255.0f + 0.5f;
            p[3] = a >= 255.0f ? 255 : (uint8_t)a;
        }
    }
}

static void pass_task(void *ctx, int task)
{
    const Pass *ps = ctx;
    int y0 = task * BAND_ROWS, y1 = y0 + BAND_ROWS;
    if (y1 > ps->img->h)
        y1 = ps->img->h;
    if (ps->resolve)
        resolve_rows(ps->b, ps->img, y0, y1);
    else
        add_rows(ps->b, ps->img, ps->first, y0, y1);
}

static void run_pass(WbBlur *b, WbPool *pool, const WbImage *img, bool first, bool resolve)
{
    Pass ps = {.b = b, .img = img, .first = first, .resolve = resolve};
    wb_pool_run(pool, (img->h + BAND_ROWS - 1) / BAND_ROWS, pass_task, &ps);
}

WbStatus wb_blur_frame(WbBlur *b, const WbRunner *run, WbPool *pool, const WbOutputDef *out,
                       int64_t f, WbImage *dst, bool *changed, WbError *err)
{
    bool moved = !b->drawn;    /* a sample differs from the last frame's last one */
    bool within = false;       /* a sample differs from this frame's first */
    for (int j = b->samples - 1; j >= 0; j--) {
        WbStatus st = run->advance(run->self, wb_blur_sample_step(out, f, j, run->rate), err);
        if (st)
            return st;
        if (!b->drawn || run->changed(run->self)) {
            /* (unchanged: the sample image still holds this state) */
            if ((st = run->draw(run->self, pool, &b->sample, err)))
                return st;
            moved = true;
            within = within || j < b->samples - 1;
            b->drawn = true;
        }
        run_pass(b, pool, &b->sample, j == b->samples - 1, false);
    }
    /* Unchanged: every sample of this frame and of the last one showed the
     * same state, so the average is the last frame's. */
    *changed = moved || b->unsteady;
    b->unsteady = within;
    if (*changed)
        run_pass(b, pool, dst, false, true);
    return WB_OK;
}
