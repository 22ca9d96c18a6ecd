#include "render/photo_edge.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

/* t reflected into [0, len] (a triangle wave of period 2·len). */
static float mirror(float t, float len)
{
    if (t >= 0.0f && t <= len)
        return t;
    float p = fmodf(fabsf(t), 2.0f * len);
    return p > len ? 2.0f * len - p : p;
}

void wb_photo_edge_lattice(int grid, float ext_u, float ext_v, WbEdgeMode mode, const float *x,
                           const float *y, const float *rx, const float *ry, float *ex, float *ey,
                           float *eu, float *ev)
{
    const int n = grid + 1, en = grid + 3;
    for (int j = 0; j < n; j++) {
        size_t k = (size_t)j * (size_t)n, e = (size_t)(j + 1) * (size_t)en + 1;
        memcpy(ex + e, x + k, (size_t)n * sizeof *ex);
        memcpy(ey + e, y + k, (size_t)n * sizeof *ey);
        if (eu) {
            memcpy(eu + e, rx + k, (size_t)n * sizeof *eu);
            memcpy(ev + e, ry + k, (size_t)n * sizeof *ev);
        }
    }
    /* The ring, walked as every lattice vertex with I or J on the outside. */
    for (int J = 0; J < en; J++) {
        int step = (J == 0 || J == en - 1) ? 1 : en - 1;
        for (int I = 0; I < en; I += step) {
            int i = I - 1, j = J - 1;
            int sx = i < 0 ? -1 : i > grid ? 1 : 0;  /* outside which edge */
            int sy = j < 0 ? -1 : j > grid ? 1 : 0;
            int bi = i < 0 ? 0 : i > grid ? grid : i;
            int bj = j < 0 ? 0 : j > grid ? grid : j;
            size_t b = (size_t)bj * (size_t)n + (size_t)bi;
            float cx = x[b], cy = y[b];
            /* Back on its rest edge along each axis it is outside on where b
             * is pulled inwards of it; b's own coordinate otherwise. */
            bool in_x = sx && (cx - rx[b]) * (float)sx < 0.0f;
            bool in_y = sy && (cy - ry[b]) * (float)sy < 0.0f;
            float px = in_x ? rx[b] : cx, py = in_y ? ry[b] : cy;
            size_t e = (size_t)J * (size_t)en + (size_t)I;
            ex[e] = px;
            ey[e] = py;
            if (!eu)
                continue;
            if (mode == WB_EDGE_MIRROR) {
                /* b's texture coordinates, continued to where the vertex
                 * is, then reflected at the border */
                eu[e] = mirror(rx[b] + (px - cx), ext_u);
                ev[e] = mirror(ry[b] + (py - cy), ext_v);
            } else {
                /* b's own: each border pixel runs straight out to the
                 * rest edge, square to it */
                eu[e] = rx[b];
                ev[e] = ry[b];
            }
        }
    }
}

int wb_photo_edge_ring(int grid, uint32_t *idx)
{
    const uint32_t en = (uint32_t)grid + 3;
    const uint32_t cells = (uint32_t)grid + 2;
    int m = 0;
    for (uint32_t J = 0; J < cells; J++)
        for (uint32_t I = 0; I < cells; I++) {
            if (J != 0 && J != cells - 1 && I != 0 && I != cells - 1)
                continue;
            uint32_t a = J * en + I, b = a + 1, c = a + en, d = c + 1;
            uint32_t t[6] = {a, b, c, b, d, c};
            memcpy(idx + m, t, sizeof t);
            m += 6;
        }
    return m / 3;
}
