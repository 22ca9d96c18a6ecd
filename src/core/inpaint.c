/* inpaint.c — push-pull membrane fill (see inpaint.h).
 *
 * Level 0 is the photo, premultiplied, in floats on the 0..255 scale, with
 * its confidence c.  Pull: level l+1 is half the size (rounded up), each
 * pixel the [1 3 3 1]/8 tent over the four nearest of level l in x and in
 * y (edges replicated) of the weighted colour c·P and of c; its colour is
 * then A = Σc·P / Σc and its confidence α = Σc (1 where every pixel under
 * it was known, 0 where none was).  Push: the coarsest level's colour is
 * the fill; each finer level starts from the coarser fill upsampled
 * bilinearly (centres at (x + 1/2)/2 - 1/2) and keeps
 *     F = α·A + (1 - α)·U,
 * then RELAX Jacobi steps replace U by the mean of the four neighbours:
 * the discrete membrane (Laplace) equation with the known pixels as its
 * boundary, which is what removes the pyramid's blocks and seams.
 */
#include "core/inpaint.h"

#include <stdlib.h>
#include <string.h>

/* Jacobi steps per pyramid level. */
#define RELAX 8

/* The fill works on the box around the unknown pixels grown by 1/4 of its
 * larger side, and at least this many pixels: the membrane depends only on
 * the known pixels around the region, and the pyramid's coarse levels see
 * enough of them. */
#define CONTEXT 16

/* Channels of a pulled pixel: weighted premultiplied colour, then weight. */
#define NC 5

typedef struct Level {
    int w, h;
    float *v;   /* NC floats a pixel: Σc·P and Σc, then A and α */
} Level;

static int clampi(int i, int n)
{
    return i < 0 ? 0 : i >= n ? n - 1 : i;
}

/* Square max filter of radius r over the mask, then c = 1 - max. */
static void confidence(const float *mask, int w, int h, int r, float *c, float *tmp)
{
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            float m = 0.0f;
            for (int d = -r; d <= r; d++) {
                float v = mask[(size_t)y * (size_t)w + (size_t)clampi(x + d, w)];
                m = v > m ? v : m;
            }
            tmp[(size_t)y * (size_t)w + (size_t)x] = m;
        }
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            float m = 0.0f;
            for (int d = -r; d <= r; d++) {
                float v = tmp[(size_t)clampi(y + d, h) * (size_t)w + (size_t)x];
                m = v > m ? v : m;
            }
            m = m > 1.0f ? 1.0f : m;
            c[(size_t)y * (size_t)w + (size_t)x] = 1.0f - m;
        }
}

/* Premultiplied colour of src's pixel i, 0..255 scale. */
static void premul(const WbImage *src, int x, int y, float *p)
{
    const uint8_t *s = wb_image_row(src, y) + 4 * (size_t)x;
    float a = s[3];
    for (int k = 0; k < 3; k++)
        p[k] = (float)s[k] * a / 255.0f;
    p[3] = a;
}

/* The [1 3 3 1]/8 tent of n channels, halving one axis: out has (len+1)/2
 * samples per line; lines are `lines` apart by `lstep` floats, samples by
 * `sstep` (in and out alike, out's counted in its own samples). */
static void tent_down(const float *in, float *out, int len, int lines, size_t in_sstep,
                      size_t in_lstep, size_t out_sstep, size_t out_lstep, int n)
{
    static const float k[4] = {0.125f, 0.375f, 0.375f, 0.125f};
    int half = (len + 1) / 2;
    for (int l = 0; l < lines; l++)
        for (int X = 0; X < half; X++) {
            float *o = out + (size_t)l * out_lstep + (size_t)X * out_sstep;
            for (int ch = 0; ch < n; ch++)
                o[ch] = 0.0f;
            for (int t = 0; t < 4; t++) {
                const float *s = in + (size_t)l * in_lstep +
                                 (size_t)clampi(2 * X - 1 + t, len) * in_sstep;
                for (int ch = 0; ch < n; ch++)
                    o[ch] += k[t] * s[ch];
            }
        }
}

/* Bilinear doubling of 4 channels along one axis: fine sample x lies at
 * coarse x/2 - 1/4, so an even x is 1/4 of X-1 and 3/4 of X, an odd x 3/4
 * of X and 1/4 of X+1 (X = x/2, edges replicated). */
static void bilinear_up(const float *in, float *out, int len_in, int len_out, int lines,
                        size_t sstep, size_t in_lstep, size_t out_lstep)
{
    for (int l = 0; l < lines; l++)
        for (int x = 0; x < len_out; x++) {
            int X = x / 2, Y = x & 1 ? clampi(X + 1, len_in) : clampi(X - 1, len_in);
            const float *a = in + (size_t)l * in_lstep + (size_t)clampi(X, len_in) * sstep;
            const float *b = in + (size_t)l * in_lstep + (size_t)Y * sstep;
            float *o = out + (size_t)l * out_lstep + (size_t)x * sstep;
            for (int ch = 0; ch < 4; ch++)
                o[ch] = 0.75f * a[ch] + 0.25f * b[ch];
        }
}

/* Pull level `to` from level `from` (NC channels, Σc·P and Σc). */
static void pull(const Level *from, Level *to, float *tmp)
{
    int w = from->w, h = from->h;
    /* x: w×h → to->w × h in tmp; y: → to->w × to->h. */
    tent_down(from->v, tmp, w, h, NC, (size_t)w * NC, NC, (size_t)to->w * NC, NC);
    tent_down(tmp, to->v, h, to->w, (size_t)to->w * NC, NC, (size_t)to->w * NC, NC, NC);
}

/* Σc·P, Σc → A, α in place (level 0 already holds A = P, α = c). */
static void normalize(Level *lv)
{
    size_t n = (size_t)lv->w * (size_t)lv->h;
    for (size_t i = 0; i < n; i++) {
        float *p = lv->v + i * NC;
        float wsum = p[4];
        for (int ch = 0; ch < 4; ch++)
            p[ch] = wsum > 0.0f ? p[ch] / wsum : 0.0f;
        p[4] = wsum > 1.0f ? 1.0f : wsum;
    }
}

/* The pixels a relaxation step can change: the box around those with
 * α < 1 (elsewhere F = A already); x1 <= x0 when there are none. */
typedef struct Box {
    int x0, y0, x1, y1;   /* half open */
} Box;

static Box unknown_box(const Level *lv)
{
    Box b = {lv->w, lv->h, 0, 0};
    for (int y = 0; y < lv->h; y++)
        for (int x = 0; x < lv->w; x++)
            if (lv->v[((size_t)y * (size_t)lv->w + (size_t)x) * NC + 4] < 1.0f) {
                b.x0 = x < b.x0 ? x : b.x0;
                b.y0 = y < b.y0 ? y : b.y0;
                b.x1 = x + 1 > b.x1 ? x + 1 : b.x1;
                b.y1 = y + 1 > b.y1 ? y + 1 : b.y1;
            }
    return b;
}

/* One Jacobi step F' = α·A + (1 - α)·mean4(F) over the box of a level
 * (g holds F outside it). */
static void relax(const Level *lv, Box b, const float *f, float *g)
{
    int w = lv->w, h = lv->h;
    for (int y = b.y0; y < b.y1; y++)
        for (int x = b.x0; x < b.x1; x++) {
            size_t i = (size_t)y * (size_t)w + (size_t)x;
            const float *av = lv->v + i * NC;
            float al = av[4];
            const float *n0 = f + 4 * ((size_t)y * (size_t)w + (size_t)clampi(x - 1, w));
            const float *n1 = f + 4 * ((size_t)y * (size_t)w + (size_t)clampi(x + 1, w));
            const float *n2 = f + 4 * ((size_t)clampi(y - 1, h) * (size_t)w + (size_t)x);
            const float *n3 = f + 4 * ((size_t)clampi(y + 1, h) * (size_t)w + (size_t)x);
            for (int ch = 0; ch < 4; ch++) {
                float mean = 0.25f * ((n0[ch] + n1[ch]) + (n2[ch] + n3[ch]));
                g[4 * i + ch] = al * av[ch] + (1.0f - al) * mean;
            }
        }
}

/* Push from the coarsest level down to level 0: the fill, 4 floats a
 * pixel, lands in *out (one of the two buffers). */
static void push(Level *lv, int n_levels, float *buf_a, float *buf_b, float *tmp, float **out)
{
    const Level *top = &lv[n_levels - 1];
    float *f = buf_a, *g = buf_b;
    for (int ch = 0; ch < 4; ch++)
        f[ch] = top->v[ch];
    for (int l = n_levels - 2; l >= 0; l--) {
        const Level *c = &lv[l + 1], *L = &lv[l];
        /* Upsample f (c->w × c->h) into g (L->w × L->h). */
        bilinear_up(f, tmp, c->w, L->w, c->h, 4, (size_t)c->w * 4, (size_t)L->w * 4);
        bilinear_up(tmp, g, c->h, L->h, L->w, (size_t)L->w * 4, 4, 4);
        size_t n = (size_t)L->w * (size_t)L->h;
        for (size_t i = 0; i < n; i++) {
            const float *av = L->v + i * NC;
            for (int ch = 0; ch < 4; ch++)
                g[4 * i + ch] = av[4] * av[ch] + (1.0f - av[4]) * g[4 * i + ch];
        }
        /* Both buffers hold F outside the box. */
        Box b = unknown_box(L);
        memcpy(f, g, n * 4 * sizeof *f);
        for (int k = 0; k < RELAX; k++) {
            relax(L, b, g, f);
            float *t = f;
            f = g;
            g = t;
        }
        /* The level's fill is in g; the next level reads it as f. */
        float *t = f;
        f = g;
        g = t;
    }
    *out = f;
}

/* Straight RGBA8 of a premultiplied 0..255 float colour. */
static void unpremul(const float *f, uint8_t *d)
{
    float a = f[3] > 255.0f ? 255.0f : f[3];
    int a8 = (int)(a + 0.5f);
    if (a8 <= 0) {
        memset(d, 0, 4);
        return;
    }
    for (int ch = 0; ch < 3; ch++) {
        float v = f[ch] * 255.0f / a;
        v = v > 255.0f ? 255.0f : v < 0.0f ? 0.0f : v;
        d[ch] = (uint8_t)(int)(v + 0.5f);
    }
    d[3] = (uint8_t)a8;
}

/* dst = c·src + (1 - c)·fill; fill gives pixel i's premultiplied colour
 * (NULL = the flat colour `flat`). */
static void compose(const WbImage *src, const float *c, const float *fill, const float *flat,
                    WbImage *dst)
{
    for (int y = 0; y < src->h; y++) {
        const uint8_t *s = wb_image_row(src, y);
        uint8_t *d = wb_image_row(dst, y);
        for (int x = 0; x < src->w; x++) {
            size_t i = (size_t)y * (size_t)src->w + (size_t)x;
            if (c[i] >= 1.0f) {
                memcpy(d + 4 * (size_t)x, s + 4 * (size_t)x, 4);
                continue;
            }
            float p[4], o[4];
            premul(src, x, y, p);
            const float *q = fill ? fill + 4 * i : flat;
            for (int ch = 0; ch < 4; ch++)
                o[ch] = c[i] * p[ch] + (1.0f - c[i]) * q[ch];
            unpremul(o, d + 4 * (size_t)x);
        }
    }
}

/* The pyramid: level 0 from src and c, then pull to 1×1.  Returns the
 * number of levels, 0 when out of memory. */
static int build(const WbImage *src, const float *c, Level *lv, int max_levels, float *tmp)
{
    int n = 0, w = src->w, h = src->h;
    for (;;) {
        lv[n].w = w;
        lv[n].h = h;
        lv[n].v = malloc((size_t)w * (size_t)h * NC * sizeof(float));
        if (!lv[n].v)
            return 0;
        n++;
        if ((w == 1 && h == 1) || n == max_levels)
            break;
        w = (w + 1) / 2;
        h = (h + 1) / 2;
    }
    for (int y = 0; y < src->h; y++)
        for (int x = 0; x < src->w; x++) {
            size_t i = (size_t)y * (size_t)src->w + (size_t)x;
            float *p = lv[0].v + i * NC;
            premul(src, x, y, p);
            for (int ch = 0; ch < 4; ch++)
                p[ch] *= c[i];
            p[4] = c[i];
        }
    for (int l = 0; l + 1 < n; l++)
        pull(&lv[l], &lv[l + 1], tmp);
    /* Level 0 as A = P, α = c exactly (no division). */
    for (int l = 1; l < n; l++)
        normalize(&lv[l]);
    for (int y = 0; y < src->h; y++)
        for (int x = 0; x < src->w; x++) {
            size_t i = (size_t)y * (size_t)src->w + (size_t)x;
            premul(src, x, y, lv[0].v + i * NC);
            lv[0].v[i * NC + 4] = c[i];
        }
    return n;
}

static WbStatus fill_from_surroundings(const WbImage *src, const float *c, WbImage *dst,
                                       WbError *err)
{
    enum { MAX_LEVELS = 40 };
    Level lv[MAX_LEVELS] = {{0}};
    size_t n = (size_t)src->w * (size_t)src->h;
    float *tmp = malloc(n * NC * sizeof(float));
    float *fa = malloc(n * 4 * sizeof(float));
    float *fb = malloc(n * 4 * sizeof(float));
    int levels = tmp && fa && fb ? build(src, c, lv, MAX_LEVELS, tmp) : 0;
    WbStatus st = WB_OK;
    if (!levels) {
        st = wb_error_set(err, WB_E_IO, "out of memory filling a %dx%d photo", src->w, src->h);
    } else if (lv[levels - 1].v[4] <= 0.0f) {
        /* No pixel is known: nothing to continue. */
        for (int y = 0; y < src->h; y++)
            memcpy(wb_image_row(dst, y), wb_image_row(src, y), 4 * (size_t)src->w);
    } else {
        float *fill;
        push(lv, levels, fa, fb, tmp, &fill);
        compose(src, c, fill, NULL, dst);
    }
    for (int l = 0; l < MAX_LEVELS; l++)
        free(lv[l].v);
    free(tmp);
    free(fa);
    free(fb);
    return st;
}

/* Fill the box around the pixels with c < 1 (see CONTEXT); dst is src
 * elsewhere. */
static WbStatus fill_box(const WbImage *src, const float *c, WbImage *dst, WbError *err)
{
    int w = src->w, h = src->h;
    int x0 = w, y0 = h, x1 = 0, y1 = 0;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            if (c[(size_t)y * (size_t)w + (size_t)x] < 1.0f) {
                x0 = x < x0 ? x : x0;
                y0 = y < y0 ? y : y0;
                x1 = x + 1 > x1 ? x + 1 : x1;
                y1 = y + 1 > y1 ? y + 1 : y1;
            }
    for (int y = 0; y < h; y++)
        memcpy(wb_image_row(dst, y), wb_image_row(src, y), 4 * (size_t)w);
    if (x1 <= x0)
        return WB_OK;
    int side = x1 - x0 > y1 - y0 ? x1 - x0 : y1 - y0;
    int grow = side / 4 > CONTEXT ? side / 4 : CONTEXT;
    x0 = x0 - grow < 0 ? 0 : x0 - grow;
    y0 = y0 - grow < 0 ? 0 : y0 - grow;
    x1 = x1 + grow > w ? w : x1 + grow;
    y1 = y1 + grow > h ? h : y1 + grow;
    int bw = x1 - x0, bh = y1 - y0;
    float *bc = malloc((size_t)bw * (size_t)bh * sizeof *bc);
    if (!bc)
        return wb_error_set(err, WB_E_IO, "out of memory filling a %dx%d photo", w, h);
    for (int y = 0; y < bh; y++)
        memcpy(bc + (size_t)y * (size_t)bw, c + (size_t)(y0 + y) * (size_t)w + (size_t)x0,
               (size_t)bw * sizeof *bc);
    WbImage s = {.px = wb_image_row(src, y0) + 4 * (size_t)x0, .w = bw, .h = bh,
                 .stride = src->stride};
    WbImage d = {.px = wb_image_row(dst, y0) + 4 * (size_t)x0, .w = bw, .h = bh,
                 .stride = dst->stride};
    WbStatus st = fill_from_surroundings(&s, bc, &d, err);
    free(bc);
    return st;
}

WbStatus wb_inpaint(const WbImage *src, const float *mask, const WbInpaintDef *def,
                    WbImage *dst, WbError *err)
{
    if (def->margin < 0)
        return wb_error_set(err, WB_E_INPUT, "inpaint margin %d is negative", def->margin);
    WbStatus st = wb_image_alloc(dst, src->w, src->h, err);
    if (st)
        return st;
    size_t n = (size_t)src->w * (size_t)src->h;
    float *c = malloc(n * sizeof *c), *tmp = malloc(n * sizeof *tmp);
    if (!c || !tmp) {
        st = wb_error_set(err, WB_E_IO, "out of memory filling a %dx%d photo", src->w, src->h);
    } else {
        confidence(mask, src->w, src->h, def->margin, c, tmp);
        if (def->flat) {
            const WbColor *k = &def->color;
            float a = (float)(k->a * 255.0);
            float flat[4] = {(float)k->r * a, (float)k->g * a, (float)k->b * a, a};
            compose(src, c, NULL, flat, dst);
        } else {
            st = fill_box(src, c, dst, err);
        }
    }
    free(c);
    free(tmp);
    if (st)
        wb_image_free(dst);
    return st;
}
