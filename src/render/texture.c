#include "render/texture.h"

#include <stdlib.h>
#include <string.h>

uint32_t wb_rgba_premul(double r, double g, double b, double a)
{
    a = a < 0 ? 0 : a > 1 ? 1 : a;
    r = r < 0 ? 0 : r > 1 ? 1 : r;
    g = g < 0 ? 0 : g > 1 ? 1 : g;
    b = b < 0 ? 0 : b > 1 ? 1 : b;
    /* Round the premultiplied value, never above alpha (r,g,b <= 1). */
    unsigned A = (unsigned)(a * 255.0 + 0.5);
    unsigned R = (unsigned)(r * a * 255.0 + 0.5);
    unsigned G = (unsigned)(g * a * 255.0 + 0.5);
    unsigned B = (unsigned)(b * a * 255.0 + 0.5);
    R = R > A ? A : R;
    G = G > A ? A : G;
    B = B > A ? A : B;
    return WB_RGBA(R, G, B, A);
}

static WbStatus texture_alloc(WbTexture *tex, int w, int h, WbError *err)
{
    memset(tex, 0, sizeof *tex);
    if (w <= 0 || h <= 0 || w > 65536 || h > 65536)
        return wb_error_set(err, WB_E_INPUT, "texture size %dx%d is out of range", w, h);
    tex->px = malloc(((size_t)w * (size_t)h + 1) * sizeof *tex->px);
    if (!tex->px)
        return wb_error_set(err, WB_E_IO, "out of memory for a %dx%d texture", w, h);
    tex->px[(size_t)w * (size_t)h] = 0; /* the spare texel (see WbTexture) */
    tex->w = w;
    tex->h = h;
    return WB_OK;
}

WbStatus wb_texture_from_image(WbTexture *tex, const WbImage *img, WbError *err)
{
    WbStatus st = texture_alloc(tex, img->w, img->h, err);
    if (st != WB_OK)
        return st;
    for (int y = 0; y < img->h; y++) {
        const uint8_t *s = wb_image_row(img, y);
        uint32_t *d = tex->px + (size_t)y * (size_t)img->w;
        for (int x = 0; x < img->w; x++, s += 4) {
            unsigned a = s[3];
            if (a == 255) {
                d[x] = WB_RGBA(s[0], s[1], s[2], 255);
                continue;
            }
            /* round(c·a/255) exactly: (t + 128 + ((t + 128) >> 8)) >> 8. */
            unsigned c[3];
            for (int k = 0; k < 3; k++) {
                unsigned t = s[k] * a + 128;
                c[k] = (t + (t >> 8)) >> 8;
            }
            d[x] = WB_RGBA(c[0], c[1], c[2], a);
        }
    }
    return WB_OK;
}

/* Overlap of source cell [i, i+1) with destination cell [lo, hi) in source
 * units, for the separable box filter. */
static double overlap(int i, double lo, double hi)
{
    double a = i > lo ? i : lo, b = i + 1 < hi ? i + 1 : hi;
    return b > a ? b - a : 0.0;
}

WbStatus wb_texture_downscale(WbTexture *dst, const WbTexture *src, int w, int h, WbError *err)
{
    if (w > src->w || h > src->h || w <= 0 || h <= 0) {
        memset(dst, 0, sizeof *dst);
        return wb_error_set(err, WB_E_INPUT, "cannot downscale a %dx%d texture to %dx%d",
                            src->w, src->h, w, h);
    }
    WbStatus st = texture_alloc(dst, w, h, err);
    if (st != WB_OK)
        return st;
    /* Horizontal pass into a float buffer (src->h rows × w), then vertical.
     * Premultiplied channels average linearly, so the result is exact up to
     * the final rounding. */
    float *tmp = malloc((size_t)w * (size_t)src->h * 4 * sizeof *tmp);
    if (!tmp) {
        wb_texture_free(dst);
        return wb_error_set(err, WB_E_IO, "out of memory downscaling a %dx%d texture", src->w, src->h);
    }
    double sx = (double)src->w / w, sy = (double)src->h / h;
    for (int y = 0; y < src->h; y++) {
        const uint32_t *row = src->px + (size_t)y * (size_t)src->w;
        for (int x = 0; x < w; x++) {
            double lo = x * sx, hi = (x + 1) * sx, acc[4] = {0, 0, 0, 0};
            for (int i = (int)lo; i < src->w && i < hi; i++) {
                double f = overlap(i, lo, hi);
                for (int k = 0; k < 4; k++)
                    acc[k] += f * (double)((row[i] >> (8 * k)) & 0xFFu);
            }
            for (int k = 0; k < 4; k++)
                tmp[((size_t)y * (size_t)w + (size_t)x) * 4 + (size_t)k] = (float)(acc[k] / sx);
        }
    }
    for (int y = 0; y < h; y++) {
        double lo = y * sy, hi = (y + 1) * sy;
        for (int x = 0; x < w; x++) {
            double acc[4] = {0, 0, 0, 0};
            for (int j = (int)lo; j < src->h && j < hi; j++) {
                double f = overlap(j, lo, hi);
                const float *t = tmp + ((size_t)j * (size_t)w + (size_t)x) * 4;
                for (int k = 0; k < 4; k++)
                    acc[k] += f * t[k];
            }
            unsigned c[4];
            for (int k = 0; k < 4; k++) {
                double v = acc[k] / sy + 0.5;
                c[k] = v >= 255.0 ? 255u : (unsigned)v;
            }
            for (int k = 0; k < 3; k++)
                c[k] = c[k] > c[3] ? c[3] : c[k];
            dst->px[(size_t)y * (size_t)w + (size_t)x] = WB_RGBA(c[0], c[1], c[2], c[3]);
        }
    }
    free(tmp);
    return WB_OK;
}

void wb_texture_free(WbTexture *tex)
{
    if (!tex)
        return;
    free(tex->px);
    memset(tex, 0, sizeof *tex);
}
