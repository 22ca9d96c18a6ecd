#include "io/yuv.h"

#include <string.h>

/* Coefficients × 2^16.  Luma: 219/255 · (Kr, Kg, Kb). */
#define FIX(x) ((int32_t)((x) * 65536.0 + ((x) < 0 ? -0.5 : 0.5)))
static const int32_t YR = FIX(219.0 / 255.0 * 0.2126);
static const int32_t YG = FIX(219.0 / 255.0 * 0.7152);
static const int32_t YB = FIX(219.0 / 255.0 * 0.0722);
/* Cb = 224/255 · (B - Y')/1.8556, Cr = 224/255 · (R - Y')/1.5748. */
static const int32_t UR = FIX(224.0 / 255.0 * -0.2126 / 1.8556);
static const int32_t UG = FIX(224.0 / 255.0 * -0.7152 / 1.8556);
static const int32_t UB = FIX(224.0 / 255.0 * 0.5);
static const int32_t VR = FIX(224.0 / 255.0 * 0.5);
static const int32_t VG = FIX(224.0 / 255.0 * -0.7152 / 1.5748);
static const int32_t VB = FIX(224.0 / 255.0 * -0.0722 / 1.5748);

static void luma_row(const uint8_t *p, uint8_t *y, int w)
{
    for (int x = 0; x < w; x++, p += 4)
        y[x] = (uint8_t)((YR * p[0] + YG * p[1] + YB * p[2] + (16 << 16) + (1 << 15)) >> 16);
}

/* One chroma row from RGBA rows r0 and r1 (r1 == r0 on an odd last row). */
static void chroma_row(const uint8_t *r0, const uint8_t *r1, uint8_t *u, uint8_t *v, int w)
{
    int cw = (w + 1) / 2;
    for (int i = 0; i < cw; i++) {
        int x = 2 * i, xl = x > 0 ? x - 1 : 0, xr = x + 1 < w ? x + 1 : w - 1;
        int32_t s[3];
        for (int c = 0; c < 3; c++)
            s[c] = r0[4 * xl + c] + 2 * r0[4 * x + c] + r0[4 * xr + c] + r1[4 * xl + c] +
                   2 * r1[4 * x + c] + r1[4 * xr + c];
        /* s is 8× the filtered value: 16 + 3 fractional bits. */
        u[i] = (uint8_t)((UR * s[0] + UG * s[1] + UB * s[2] + (128 << 19) + (1 << 18)) >> 19);
        v[i] = (uint8_t)((VR * s[0] + VG * s[1] + VB * s[2] + (128 << 19) + (1 << 18)) >> 19);
    }
}

void wb_rgba_to_yuv420(const WbImage *src, uint8_t *const planes[4], const int linesize[4])
{
    int w = src->w, h = src->h;
    for (int y = 0; y < h; y++) {
        const uint8_t *row = wb_image_row(src, y);
        luma_row(row, planes[0] + (ptrdiff_t)y * linesize[0], w);
        if (planes[3]) {
            uint8_t *a = planes[3] + (ptrdiff_t)y * linesize[3];
            for (int x = 0; x < w; x++)
                a[x] = row[4 * x + 3];
        }
    }
    for (int j = 0; j < (h + 1) / 2; j++) {
        const uint8_t *r0 = wb_image_row(src, 2 * j);
        const uint8_t *r1 = 2 * j + 1 < h ? wb_image_row(src, 2 * j + 1) : r0;
        chroma_row(r0, r1, planes[1] + (ptrdiff_t)j * linesize[1],
                   planes[2] + (ptrdiff_t)j * linesize[2], w);
    }
}
