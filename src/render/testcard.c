#include "render/testcard.h"

#include <math.h>

/* The card lives in a unit square scaled to the shorter edge, so shapes keep
 * their proportions at any aspect ratio.  Coordinates: u in [0, W/S], v in
 * [0, H/S], S = min(W, H), origin top left. */
typedef struct Card {
    double uw, vh;        /* extent in card units */
    double bx, by, br;    /* ball centre and radius */
    double px;            /* one pixel in card units */
} Card;

static double clamp01(double x) { return x < 0 ? 0 : x > 1 ? 1 : x; }

static void hue_rgb(double h, double rgb[3])
{
    /* Smooth hue wheel, h in [0,1). */
    for (int i = 0; i < 3; i++) {
        double t = h + (double)i / 3.0;
        rgb[i] = 0.5 + 0.5 * cos(2.0 * M_PI * t);
    }
}

static double ball_inside(const Card *c, double u, double v)
{
    double dx = u - c->bx, dy = v - c->by;
    return dx * dx + dy * dy <= c->br * c->br ? 1.0 : 0.0;
}

static void card_sample(const Card *c, double u, double v, double rgb[3])
{
    /* Background: a soft diagonal hue gradient. */
    hue_rgb(0.55 + 0.25 * (u / c->uw) + 0.15 * (v / c->vh), rgb);
    for (int i = 0; i < 3; i++)
        rgb[i] = 0.25 + 0.45 * rgb[i];

    /* Colour bars across the top eighth. */
    if (v < 0.125) {
        static const double bars[8][3] = {
            {1, 1, 1}, {1, 1, 0}, {0, 1, 1}, {0, 1, 0},
            {1, 0, 1}, {1, 0, 0}, {0, 0, 1}, {0.1, 0.1, 0.1},
        };
        int k = (int)(u / c->uw * 8.0);
        if (k > 7) k = 7;
        for (int i = 0; i < 3; i++)
            rgb[i] = 0.08 + 0.84 * bars[k][i];
        return;
    }
    /* Concentric rings in the lower left: a chirp whose spacing tightens
     * outwards, so both coarse and fine motion shows. */
    double rx = u - 0.22, ry = v - 0.78;
    double rr = sqrt(rx * rx + ry * ry);
    if (rr < 0.18) {
        double s = 0.5 + 0.5 * cos(2.0 * M_PI * 90.0 * rr * rr / 0.18);
        for (int i = 0; i < 3; i++)
            rgb[i] = 0.1 + 0.8 * s;
        return;
    }
    /* Checkerboard in the lower right. */
    double cx0 = c->uw - 0.40, cy0 = 0.60;
    if (u > cx0 && u < c->uw - 0.04 && v > cy0 && v < 0.96) {
        int a = (int)floor((u - cx0) / 0.045), b = (int)floor((v - cy0) / 0.045);
        double k = ((a + b) & 1) ? 0.92 : 0.12;
        rgb[0] = k;
        rgb[1] = k * 0.95;
        rgb[2] = k * 0.85;
        return;
    }
    /* A jelly block on the right: one soft colour with a gentle gradient,
     * the target of the flood-fill segmentation example. */
    double jx = (u - (c->uw - 0.22)) / 0.12, jy = (v - 0.36) / 0.12;
    if (jx * jx * jx * jx + jy * jy * jy * jy <= 1.0) {
        double g = 0.06 * jy;
        rgb[0] = 0.40 - g;
        rgb[1] = 0.30 - g;
        rgb[2] = 0.86 - g;
        return;
    }
    /* The ball: lit sphere with diagonal stripes and a specular highlight. */
    double dx = (u - c->bx) / c->br, dy = (v - c->by) / c->br;
    double d2 = dx * dx + dy * dy;
    if (d2 <= 1.0) {
        double nz = sqrt(1.0 - d2);
        double l[3] = {-0.45, -0.55, 0.70};
        double ll = sqrt(l[0] * l[0] + l[1] * l[1] + l[2] * l[2]);
        double diff = clamp01((dx * l[0] + dy * l[1] + nz * l[2]) / ll);
        double stripe = 0.5 + 0.5 * cos(2.0 * M_PI * 4.0 * (dx + dy) / (1.0 + 0.6 * nz));
        double base[3] = {0.90, 0.28 + 0.35 * stripe, 0.15 + 0.10 * stripe};
        /* Blinn-Phong highlight with the viewer on +z. */
        double hx = l[0] / ll, hy = l[1] / ll, hz = l[2] / ll + 1.0;
        double hl = sqrt(hx * hx + hy * hy + hz * hz);
        double spec = pow(clamp01((dx * hx + dy * hy + nz * hz) / hl), 60.0);
        for (int i = 0; i < 3; i++)
            rgb[i] = clamp01(base[i] * (0.18 + 0.82 * diff) + 0.9 * spec);
        return;
    }
    /* A fine grid over the background: one-pixel lines every 1/24. */
    double gu = fmod(u, 1.0 / 24.0), gv = fmod(v, 1.0 / 24.0);
    if (gu < c->px || gv < c->px) {
        for (int i = 0; i < 3; i++)
            rgb[i] = 0.85 * rgb[i] + 0.15;
    }
}

WbStatus wb_testcard_make(WbImage *out, int w, int h, bool mask, WbError *err)
{
    WbStatus st = wb_image_alloc(out, w, h, err);
    if (st)
        return st;
    double s = w < h ? w : h;
    Card c = {
        .uw = w / s, .vh = h / s,
        .bx = 0.5 * w / s, .by = 0.52 * h / s, .br = 0.24,
        .px = 1.0 / s,
    };
    enum { SS = 4 };
    for (int y = 0; y < h; y++) {
        uint8_t *row = wb_image_row(out, y);
        for (int x = 0; x < w; x++) {
            double acc[3] = {0, 0, 0};
            for (int j = 0; j < SS; j++) {
                for (int i = 0; i < SS; i++) {
                    double u = (x + (i + 0.5) / SS) / s, v = (y + (j + 0.5) / SS) / s;
                    if (mask) {
                        acc[0] += ball_inside(&c, u, v);
                    } else {
                        double rgb[3];
                        card_sample(&c, u, v, rgb);
                        for (int k = 0; k < 3; k++)
                            acc[k] += rgb[k];
                    }
                }
            }
            for (int k = 0; k < 3; k++) {
                double val = (mask ? acc[0] : acc[k]) / (SS * SS);
                row[4 * x + k] = (uint8_t)lrint(clamp01(val) * 255.0);
            }
            row[4 * x + 3] = 255;
        }
    }
    return WB_OK;
}
