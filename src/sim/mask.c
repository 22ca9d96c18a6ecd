/* mask.c — flood-fill segmentation with a feathered edge.
 *
 * Scanline fill: pop a seed, extend it left and right along its row while
 * pixels match, mark the run, then push one seed per matching run in the rows
 * above and below.  The stack holds at most a few entries per run, never one
 * per pixel, and every pixel is visited a bounded number of times.
 */
#include "sim/mask.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct Fill {
    const WbImage *img;
    double ref[3];
    double tol2;          /* (tolerance · √3 · 255)², compared with 8-bit distances */
    uint8_t *done;        /* 1 = filled */
    int *stack;           /* x, y pairs */
    size_t top, cap;
} Fill;

static bool matches(const Fill *f, int x, int y)
{
    const uint8_t *p = wb_image_row(f->img, y) + 4 * (size_t)x;
    double dr = p[0] - f->ref[0], dg = p[1] - f->ref[1], db = p[2] - f->ref[2];
    return dr * dr + dg * dg + db * db <= f->tol2;
}

static bool open_pixel(const Fill *f, int x, int y)
{
    return !f->done[(size_t)y * f->img->w + x] && matches(f, x, y);
}

static bool push(Fill *f, int x, int y)
{
    if (f->top + 2 > f->cap) {
        size_t cap = f->cap ? 2 * f->cap : 1024;
        int *s = realloc(f->stack, cap * sizeof *s);
        if (!s)
            return false;
        f->stack = s;
        f->cap = cap;
    }
    f->stack[f->top++] = x;
    f->stack[f->top++] = y;
    return true;
}

/* Push one seed for each run of open pixels in row y between x0 and x1. */
static bool scan_row(Fill *f, int x0, int x1, int y)
{
    if (y < 0 || y >= f->img->h)
        return true;
    bool in_run = false;
    for (int x = x0; x <= x1; x++) {
        bool open = open_pixel(f, x, y);
        if (open && !in_run && !push(f, x, y))
            return false;
        in_run = open;
    }
    return true;
}

static bool flood(Fill *f, int sx, int sy)
{
    int w = f->img->w;
    if (!push(f, sx, sy))
        return false;
    while (f->top) {
        int y = f->stack[--f->top];
        int x = f->stack[--f->top];
        if (!open_pixel(f, x, y))
            continue;
        int l = x, r = x;
        while (l > 0 && open_pixel(f, l - 1, y))
            l--;
        while (r + 1 < w && open_pixel(f, r + 1, y))
            r++;
        memset(f->done + (size_t)y * w + l, 1, (size_t)(r - l + 1));
        if (!scan_row(f, l, r, y - 1) || !scan_row(f, l, r, y + 1))
            return false;
    }
    return true;
}

/* [1 2 1]/4 along x then y, edges clamped: a one-pixel feather. */
static void feather(float *m, float *tmp, int w, int h)
{
    for (int y = 0; y < h; y++) {
        const float *row = m + (size_t)y * w;
        for (int x = 0; x < w; x++) {
            float a = row[x > 0 ? x - 1 : 0], b = row[x], c = row[x + 1 < w ? x + 1 : x];
            tmp[(size_t)y * w + x] = 0.25f * a + 0.5f * b + 0.25f * c;
        }
    }
    for (int y = 0; y < h; y++) {
        const float *up = tmp + (size_t)(y > 0 ? y - 1 : 0) * w;
        const float *mid = tmp + (size_t)y * w;
        const float *dn = tmp + (size_t)(y + 1 < h ? y + 1 : y) * w;
        for (int x = 0; x < w; x++)
            m[(size_t)y * w + x] = 0.25f * up[x] + 0.5f * mid[x] + 0.25f * dn[x];
    }
}

WbStatus wb_mask_segment(const WbImage *photo, double at_x, double at_y, double tolerance,
                         float **mask_out, WbError *err)
{
    *mask_out = NULL;
    if (!photo->px || photo->w < 1 || photo->h < 1)
        return wb_error_set(err, WB_E_INPUT, "segment: the image is empty");
    if (!(at_x >= 0 && at_x <= 1 && at_y >= 0 && at_y <= 1))
        return wb_error_set(err, WB_E_INPUT, "segment.at [%g, %g] is outside the image [0,1]²",
                            at_x, at_y);
    if (!(tolerance >= 0 && tolerance <= 1))
        return wb_error_set(err, WB_E_INPUT, "segment.tolerance %g is outside [0, 1]", tolerance);
    int w = photo->w, h = photo->h;
    size_t n = (size_t)w * h;
    int sx = (int)(at_x * w), sy = (int)(at_y * h);
    sx = sx >= w ? w - 1 : sx;
    sy = sy >= h ? h - 1 : sy;

    Fill f = {.img = photo, .done = calloc(n, 1)};
    float *m = malloc(n * sizeof *m), *tmp = malloc(n * sizeof *tmp);
    const uint8_t *seed = wb_image_row(photo, sy) + 4 * (size_t)sx;
    for (int c = 0; c < 3; c++)
        f.ref[c] = seed[c];
    double t = tolerance * sqrt(3.0) * 255.0;
    f.tol2 = t * t;
    bool ok = f.done && m && tmp && flood(&f, sx, sy);
    if (ok) {
        for (size_t i = 0; i < n; i++)
            m[i] = f.done[i] ? 1.0f : 0.0f;
        feather(m, tmp, w, h);
    }
    free(f.done);
    free(f.stack);
    free(tmp);
    if (!ok) {
        free(m);
        return wb_error_set(err, WB_E_IO, "segment: out of memory for a %dx%d mask", w, h);
    }
    *mask_out = m;
    return WB_OK;
}
