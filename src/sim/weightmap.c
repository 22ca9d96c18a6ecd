/* weightmap.c — weight map storage, area, blur, gains, presets (weightmap.h). */
#include "sim/weightmap.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { NB = WB_WEIGHTMAP_BONES, MAX_SIDE = 16384 };

static size_t texels(const WbWeightMap *m) { return (size_t)m->w * (size_t)m->h; }

WbStatus wb_weightmap_init(WbWeightMap *m, int w, int h, WbError *err)
{
    memset(m, 0, sizeof *m);
    if (w < 1 || h < 1 || w > MAX_SIDE || h > MAX_SIDE)
        return wb_error_set(err, WB_E_INPUT, "weight map: size %dx%d; expected 1 to %d per side", w, h,
                            MAX_SIDE);
    m->texel = calloc((size_t)w * (size_t)h * NB, sizeof *m->texel);
    if (!m->texel) return wb_error_set(err, WB_E_IO, "weight map: out of memory for %dx%d", w, h);
    m->w = w;
    m->h = h;
    return WB_OK;
}

void wb_weightmap_free(WbWeightMap *m)
{
    free(m->texel);
    memset(m, 0, sizeof *m);
}

void wb_weightmap_clear(WbWeightMap *m) { memset(m->texel, 0, texels(m) * NB * sizeof *m->texel); }

WbStatus wb_weightmap_from_image(WbWeightMap *m, const WbImage *img, WbError *err)
{
    WbStatus st = wb_weightmap_init(m, img->w, img->h, err);
    if (st != WB_OK) return st;
    for (int y = 0; y < img->h; y++) {
        const uint8_t *row = wb_image_row(img, y);
        float *t = m->texel + (size_t)y * (size_t)img->w * NB;
        for (int x = 0; x < img->w; x++)
            for (int c = 0; c < NB; c++) t[x * NB + c] = (float)row[4 * x + c] / 255.0f;
    }
    return WB_OK;
}

static uint8_t to_byte(float f)
{
    double s = (double)f * 255.0;
    if (!(s > 0.0)) return 0; /* also NaN */
    return s >= 255.0 ? 255 : (uint8_t)lrint(s);
}

WbStatus wb_weightmap_to_image(const WbWeightMap *m, WbImage *img, WbError *err)
{
    WbStatus st = wb_image_alloc(img, m->w, m->h, err);
    if (st != WB_OK) return st;
    for (int y = 0; y < m->h; y++) {
        uint8_t *row = wb_image_row(img, y);
        const float *t = m->texel + (size_t)y * (size_t)m->w * NB;
        for (int x = 0; x < m->w; x++) {
            for (int c = 0; c < NB; c++) row[4 * x + c] = to_byte(t[x * NB + c]);
            row[4 * x + 3] = 255;
        }
    }
    return WB_OK;
}

void wb_weightmap_area(const WbWeightMap *m, double area[NB])
{
    double sum[NB] = {0.0, 0.0, 0.0};
    size_t n = texels(m);
    for (size_t i = 0; i < n; i++)
        for (int c = 0; c < NB; c++) sum[c] += m->texel[i * NB + c];
    for (int c = 0; c < NB; c++) area[c] = sum[c] / (double)n;
}

double wb_weightmap_force_radius_px(const WbWeightMap *m, double force_radius)
{
    return fmax(1.0, force_radius * m->w * 0.35);
}

/* Horizontal box pass, one row: sliding window sum with u wrapping.  The
 * window is re-summed at the start of each row (exact, no drift across rows). */
static void blur_row(const float *src, float *dst, int w, int r)
{
    double inv = 1.0 / (2 * r + 1);
    for (int c = 0; c < NB; c++) {
        double sum = 0.0;
        for (int k = -r; k <= r; k++) sum += src[(((k % w) + w) % w) * NB + c];
        for (int x = 0; x < w; x++) {
            dst[x * NB + c] = (float)(sum * inv);
            int out = (((x - r) % w) + w) % w, in = (((x + r + 1) % w) + w) % w;
            sum += (double)src[in * NB + c] - (double)src[out * NB + c];
        }
    }
}

static int clampi(int v, int lo, int hi) { return v < lo ? lo : (v > hi ? hi : v); }

WbStatus wb_weightmap_blur(const WbWeightMap *src, WbWeightMap *dst, double radius_px, WbError *err)
{
    if (dst->w != src->w || dst->h != src->h)
        return wb_error_set(err, WB_E_INPUT, "weight map blur: %dx%d into %dx%d", src->w, src->h, dst->w,
                            dst->h);
    int w = src->w, h = src->h;
    int r = (int)fmin(fmax(1.0, floor(radius_px)), (double)MAX_SIDE);
    float *tmp = malloc(texels(src) * NB * sizeof *tmp);
    double *col = malloc((size_t)h * sizeof *col);
    if (!tmp || !col) {
        free(tmp);
        free(col);
        return wb_error_set(err, WB_E_IO, "weight map blur: out of memory");
    }
    for (int y = 0; y < h; y++) blur_row(src->texel + (size_t)y * w * NB, tmp + (size_t)y * w * NB, w, r);
    /* Vertical pass, edge rows repeated (v does not wrap). */
    double inv = 1.0 / (2 * r + 1);
    for (int x = 0; x < w; x++)
        for (int c = 0; c < NB; c++) {
            const float *base = tmp + (size_t)x * NB + c;
            size_t pitch = (size_t)w * NB;
            double sum = 0.0;
            for (int k = -r; k <= r; k++) sum += base[clampi(k, 0, h - 1) * pitch];
            for (int y = 0; y < h; y++) {
                col[y] = sum * inv;
                sum += (double)base[clampi(y + r + 1, 0, h - 1) * pitch] -
                       (double)base[clampi(y - r, 0, h - 1) * pitch];
            }
            for (int y = 0; y < h; y++) dst->texel[(size_t)y * pitch + (size_t)x * NB + c] = (float)col[y];
        }
    free(tmp);
    free(col);
    return WB_OK;
}

void wb_weightmap_gains(WbWeightMap *m, double all, const double bone[NB])
{
    size_t n = texels(m);
    for (size_t i = 0; i < n; i++)
        for (int c = 0; c < NB; c++) {
            double g = (double)m->texel[i * NB + c] * all * bone[c];
            m->texel[i * NB + c] = (float)fmin(1.0, fmax(0.0, g));
        }
}

void wb_weightmap_sample(const WbWeightMap *m, double u, double v, float out[NB])
{
    /* Texel centres at (i + ½)/w: shift by ½ and interpolate neighbours. */
    double fx = fmod(u * m->w - 0.5, (double)m->w), fy = v * m->h - 0.5;
    if (fx < 0.0) fx += m->w;
    double x0f = floor(fx), y0f = floor(fy);
    double tx = fx - x0f, ty = fy - y0f;
    long x0 = (long)x0f % m->w, x1 = (x0 + 1) % m->w;
    /* v clamps: rows above the first and below the last repeat the edge. */
    long y0 = (long)fmin(fmax(y0f, 0.0), m->h - 1.0), y1 = (long)fmin(fmax(y0f + 1.0, 0.0), m->h - 1.0);
    const float *a = m->texel + ((size_t)y0 * m->w + x0) * NB, *b = m->texel + ((size_t)y0 * m->w + x1) * NB;
    const float *c = m->texel + ((size_t)y1 * m->w + x0) * NB, *d = m->texel + ((size_t)y1 * m->w + x1) * NB;
    for (int k = 0; k < NB; k++) {
        double top = a[k] + (b[k] - a[k]) * tx, bot = c[k] + (d[k] - c[k]) * tx;
        out[k] = (float)(top + (bot - top) * ty);
    }
}

bool wb_weightmap_seed_from_name(const char *name, uint32_t *seed)
{
    const char *base = strrchr(name, '/');
    base = base ? base + 1 : name;
    bool found = false;
    for (const char *p = strstr(base, "seed-"); p; p = strstr(p + 1, "seed-")) {
        const char *q = p + 5;
        if (*q < '0' || *q > '9') continue;
        uint64_t n = 0;
        bool overflow = false;
        for (; *q >= '0' && *q <= '9'; q++) {
            n = n * 10 + (uint64_t)(*q - '0');
            if (n > UINT32_MAX) overflow = true, n = UINT32_MAX + (uint64_t)1;
        }
        if (overflow) continue;
        *seed = (uint32_t)n;
        found = true;
    }
    return found;
}

/* ---- presets ---------------------------------------------------------------- */

bool wb_weight_shape_from_name(const char *name, WbWeightShape *shape)
{
    static const char *const names[] = {"orb", "capsule", "torus", "dancer", "walker"};
    for (int i = 0; i < 5; i++)
        if (strcmp(name, names[i]) == 0) {
            *shape = (WbWeightShape)i;
            return true;
        }
    return false;
}

static double clamp01(double v) { return fmin(1.0, fmax(0.0, v)); }

void wb_weight_shape_uv(WbWeightShape shape, const double p[3], double uv[2])
{
    const double tau = 2.0 * M_PI;
    double x = p[0], y = p[1], z = p[2];
    uv[0] = atan2(x, z) / tau + 0.5;
    switch (shape) {
    case WB_WEIGHT_ORB: {
        double l = sqrt(x * x + y * y + z * z);
        if (l == 0.0) l = 1.0;
        uv[0] = atan2(z / l, x / l) / tau + 0.5;
        uv[1] = acos(fmax(-1.0, fmin(1.0, y / l))) / M_PI;
        break;
    }
    case WB_WEIGHT_CAPSULE: uv[1] = clamp01(y + 0.5); break;
    case WB_WEIGHT_TORUS: uv[1] = atan2(y, sqrt(x * x + z * z) - 0.66) / tau + 0.5; break;
    case WB_WEIGHT_DANCER: uv[1] = clamp01((y + 1.0) / 2.0); break;
    case WB_WEIGHT_WALKER: uv[1] = clamp01((y + 0.95) / 1.79); break;
    }
}

static void paint_max(WbWeightMap *m, int x, int y, int bone, double val)
{
    float *t = &m->texel[((size_t)y * m->w + x) * NB + bone];
    float f = (float)fmin(1.0, val);
    if (f > *t) *t = f;
}

void wb_weightmap_ring(WbWeightMap *m, int bone, double v_centre, double v_sigma, double weight)
{
    double inv = 1.0 / (v_sigma * v_sigma);
    for (int y = 0; y < m->h; y++) {
        double dv = (y + 0.5) / m->h - v_centre;
        double g = exp(-dv * dv * inv);
        if (g < 0.01) continue;
        for (int x = 0; x < m->w; x++) paint_max(m, x, y, bone, weight * g);
    }
}

void wb_weightmap_stamp(WbWeightMap *m, int bone, double u, double v, double weight, double radius)
{
    double cx = u * m->w, cy = v * m->h;
    double rad = radius * m->w * 0.5, r2 = rad * rad;
    double inv_sig2 = 1.0 / (r2 * 0.18);
    int y0 = (int)fmax(0.0, floor(cy - rad)), y1 = (int)fmin(m->h - 1.0, ceil(cy + rad));
    int xr = (int)ceil(rad);
    for (int y = y0; y <= y1; y++) {
        double dy = y + 0.5 - cy;
        for (int j = -xr; j <= xr + 1; j++) {
            int x = (((int)floor(cx) + j) % m->w + m->w) % m->w;
            double dx = x + 0.5 - cx;
            /* Shortest way round the u seam. */
            if (dx > m->w * 0.5) dx -= m->w;
            if (dx < -m->w * 0.5) dx += m->w;
            double d2 = dx * dx + dy * dy;
            if (d2 > r2) continue;
            paint_max(m, x, y, bone, weight * exp(-d2 * inv_sig2));
        }
    }
}

/* One brush dab of the reference painter (flow 0.34 toward `strength`,
 * brush radius 0.16) at a model-space point, on an empty texel region. */
static void dab_at(WbWeightMap *m, WbWeightShape shape, double x, double y, double z, int bone,
                   double strength)
{
    double p[3] = {x, y, z}, uv[2];
    wb_weight_shape_uv(shape, p, uv);
    wb_weightmap_stamp(m, bone, uv[0], uv[1], 0.34 * strength, 0.16);
}

void wb_weightmap_preset(WbWeightMap *m, WbWeightShape shape)
{
    wb_weightmap_clear(m);
    switch (shape) {
    case WB_WEIGHT_ORB:
        wb_weightmap_ring(m, 0, 0.82, 0.22, 1.0);
        wb_weightmap_ring(m, 1, 0.50, 0.12, 0.65);
        break;
    case WB_WEIGHT_CAPSULE:
        wb_weightmap_ring(m, 0, 0.07, 0.14, 1.0);
        wb_weightmap_ring(m, 1, 0.46, 0.12, 0.60);
        break;
    case WB_WEIGHT_TORUS:
        wb_weightmap_stamp(m, 0, 0.17, 0.50, 1.0, 0.22);
        wb_weightmap_stamp(m, 1, 0.50, 0.50, 1.0, 0.22);
        wb_weightmap_stamp(m, 2, 0.83, 0.50, 1.0, 0.22);
        break;
    case WB_WEIGHT_DANCER:
        wb_weightmap_ring(m, 0, 0.90, 0.09, 1.0);
        wb_weightmap_ring(m, 1, 0.66, 0.09, 0.80);
        wb_weightmap_ring(m, 2, 0.42, 0.10, 0.55);
        break;
    case WB_WEIGHT_WALKER:
        dab_at(m, shape, -0.105, 0.345, 0.135, 0, 1.0);
        dab_at(m, shape, 0.105, 0.345, 0.135, 0, 1.0);
        dab_at(m, shape, -0.105, -0.10, -0.115, 1, 1.0);
        dab_at(m, shape, 0.105, -0.10, -0.115, 1, 1.0);
        dab_at(m, shape, 0.0, -0.12, 0.13, 2, 0.85);
        break;
    }
}
