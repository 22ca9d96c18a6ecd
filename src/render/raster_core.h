/* raster_core.h — the arithmetic wobble's two rasterizers share.
 *
 * Internal to src/render (raster.c, the 2D path; raster3d.c, the depth-
 * buffered 3D path): fixed-point pixel spans, packed premultiplied RGBA8
 * arithmetic, linear attribute planes and the multisample resolve.  One
 * definition of each keeps the two paths' conventions from drifting apart
 * (the same sample grid, the same rounding, the same resolve), which is
 * what lets a 3D view and an overlay drawn by the 2D path meet without a
 * seam.  Everything here is static inline: it sits in the inner loops.
 */
#ifndef WB_RASTER_CORE_H
#define WB_RASTER_CORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "core/scratch.h"
#include "render/texture.h"

#define FIX_ONE 256  /* 1 px in fixed point: 8 bits of sub-pixel precision */
#define FIX_HALF 128

#define ALWAYS_INLINE inline __attribute__((always_inline))

/* Grow-only per-frame arrays (capacity in elements, doubling from 64). */
static inline bool grow(void **p, size_t *cap, size_t need, size_t elem)
{
    return wb_scratch_reserve(p, cap, need, elem, 64);
}

/* ---- fixed point ----------------------------------------------------------- */

/* floor(v / 256) for |v| < 2^40, by shifting a value made non-negative
 * (right shifts of negative numbers are implementation-defined in C). */
static ALWAYS_INLINE int32_t floor_div256(int64_t v)
{
    const int64_t bias = (int64_t)1 << 40;
    return (int32_t)(((v + bias) >> 8) - (bias >> 8));
}

/* Pixels whose samples may lie in [lo, hi] (fixed point) along one axis:
 * sample k of pixel i sits at i·256 + 128 + o_k, o_k in [omin, omax]. */
static ALWAYS_INLINE void pixel_span(int32_t lo, int32_t hi, int32_t omin, int32_t omax,
                                     int32_t *first, int32_t *last)
{
    *first = -floor_div256(-((int64_t)lo - FIX_HALF - omax)); /* ceil */
    *last = floor_div256((int64_t)hi - FIX_HALF - omin);
}

/* ---- colour arithmetic on packed premultiplied RGBA8 ------------------------ */

/* c·m/255 per channel, rounded to nearest (m in 0..255); the channels
 * never carry into each other. */
static ALWAYS_INLINE uint32_t mul255(uint32_t c, uint32_t m)
{
    uint32_t rb = (c & 0x00FF00FFu) * m + 0x00800080u;
    rb = ((rb + ((rb >> 8) & 0x00FF00FFu)) >> 8) & 0x00FF00FFu;
    uint32_t ag = ((c >> 8) & 0x00FF00FFu) * m + 0x00800080u;
    ag = (ag + ((ag >> 8) & 0x00FF00FFu)) & 0xFF00FF00u;
    return rb | ag;
}

/* Porter–Duff "over", premultiplied: s + d·(1 − s.a).  Premultiplied
 * channels never exceed alpha, so no channel can carry into the next. */
static ALWAYS_INLINE uint32_t blend_over(uint32_t s, uint32_t d)
{
    return s + mul255(d, 255u - (s >> 24));
}

/* Premultiplied floats in [0, 1] → packed, rounded, each colour clamped to
 * alpha (NaN → 0). */
static ALWAYS_INLINE uint32_t pack_premul(float r, float g, float b, float a)
{
    a = a > 0.0f ? (a < 1.0f ? a : 1.0f) : 0.0f;
    r = r > 0.0f ? (r < a ? r : a) : 0.0f;
    g = g > 0.0f ? (g < a ? g : a) : 0.0f;
    b = b > 0.0f ? (b < a ? b : a) : 0.0f;
    return WB_RGBA((uint32_t)(r * 255.0f + 0.5f), (uint32_t)(g * 255.0f + 0.5f),
                   (uint32_t)(b * 255.0f + 0.5f), (uint32_t)(a * 255.0f + 0.5f));
}

/* ---- attribute planes -------------------------------------------------------- */

/* A linear attribute plane: value = o + gx·dx + gy·dy, (dx, dy) in px from
 * the centre of the triangle's first pixel. */
typedef struct Plane {
    float o, gx, gy;
} Plane;

/* Plane through (0,va), (b,vb), (c,vc), vertex positions relative to vertex
 * a (inv_det = 1 / (bx·cy − by·cx)); (pax, pay) is vertex a relative to the
 * origin pixel centre. */
static ALWAYS_INLINE Plane plane(float va, float vb, float vc, float bx, float by, float cx,
                                 float cy, float inv_det, float pax, float pay)
{
    float d1 = vb - va, d2 = vc - va;
    Plane p;
    p.gx = (d1 * cy - d2 * by) * inv_det;
    p.gy = (d2 * bx - d1 * cx) * inv_det;
    p.o = va - p.gx * pax - p.gy * pay;
    return p;
}

/* Evaluated in this order ((o + gx·dx) + gy·dy) everywhere: vector code
 * that must give the same bits repeats it lane-wise. */
static ALWAYS_INLINE float plane_at(Plane p, float dx, float dy)
{
    return p.o + p.gx * dx + p.gy * dy;
}

/* ---- resolve ----------------------------------------------------------------- */

/* One pixel's S samples (same: all equal to sp[0]) → straight-alpha RGBA8:
 * the mean in premultiplied space, c = round(255·Σc/Σa), a = round(Σa/S). */
static ALWAYS_INLINE void resolve_px(const uint32_t *sp, bool same, const int S, uint8_t *out)
{
    uint32_t c0 = sp[0];
    uint32_t sr, sg, sb, sa, n;
    if (same && c0 >> 24 == 255) {
        /* Opaque and uniform: the straight colour is the premultiplied one
         * (255·c/255 = c). */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        memcpy(out, &c0, 4); /* WB_RGBA keeps R in the low byte, as in memory */
#else
        out[0] = (uint8_t)WB_RGBA_R(c0);
        out[1] = (uint8_t)WB_RGBA_G(c0);
        out[2] = (uint8_t)WB_RGBA_B(c0);
        out[3] = 255;
#endif
        return;
    }
    if (same) {
        sr = WB_RGBA_R(c0), sg = WB_RGBA_G(c0), sb = WB_RGBA_B(c0), sa = WB_RGBA_A(c0);
        n = 1;
    } else {
        sr = sg = sb = sa = 0;
        for (int s = 0; s < S; s++) {
            sr += WB_RGBA_R(sp[s]);
            sg += WB_RGBA_G(sp[s]);
            sb += WB_RGBA_B(sp[s]);
            sa += WB_RGBA_A(sp[s]);
        }
        n = (uint32_t)S;
    }
    if (sa == 0) {
        out[0] = out[1] = out[2] = out[3] = 0;
        return;
    }
    uint32_t cr = (sr * 255 + sa / 2) / sa, cg = (sg * 255 + sa / 2) / sa;
    uint32_t cb = (sb * 255 + sa / 2) / sa;
    out[0] = (uint8_t)(cr > 255 ? 255 : cr);
    out[1] = (uint8_t)(cg > 255 ? 255 : cg);
    out[2] = (uint8_t)(cb > 255 ? 255 : cb);
    out[3] = (uint8_t)((sa + n / 2) / n);
}

#endif
