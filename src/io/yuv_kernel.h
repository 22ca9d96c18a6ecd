/* yuv_kernel.h — what io/yuv.c and its lane kernels share: the fixed-point
 * coefficients, one chroma sample and one luma row by the scalar (and
 * SSE2) code, and the row-pair kernel's widths.  Only yuv.c and
 * yuv_kernel.inc include this.
 *
 * The row-pair kernel (yuv_kernel.inc) needs byte shuffles, packs and
 * cross-lane permutes that SSE2 lacks, so it is built at 8 and 16 lanes
 * only (yuv_w8.c, yuv_w16.c); width 4 is yuv.c's two-pass baseline.
 */
#ifndef WB_YUV_KERNEL_H
#define WB_YUV_KERNEL_H

#include <stdint.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "core/image.h"

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

/* The SSE2 paths below compute the very same integers as the scalar
 * loops (pmaddwd sums int16 products exactly in int32), four outputs at a
 * time; the scalar loops finish the row. */
#ifdef __SSE2__
/* Sum adjacent int32 lanes of a and b: (a0+a1, a2+a3, b0+b1, b2+b3). */
static inline __m128i hadd_pairs(__m128i a, __m128i b)
{
    __m128 fa = _mm_castsi128_ps(a), fb = _mm_castsi128_ps(b);
    __m128i even = _mm_castps_si128(_mm_shuffle_ps(fa, fb, _MM_SHUFFLE(2, 0, 2, 0)));
    __m128i odd = _mm_castps_si128(_mm_shuffle_ps(fa, fb, _MM_SHUFFLE(3, 1, 3, 1)));
    return _mm_add_epi32(even, odd);
}
#endif

static inline void luma_row(const uint8_t *p, uint8_t *y, int w)
{
    int x = 0;
#ifdef __SSE2__
    /* YG does not fit int16: G enters twice, (R, G)·(YR, YG1) + (G, B)·(YG2, YB)
     * with YG1 + YG2 = YG, from the lanes shuffled to R G G B. */
    const int32_t yg1 = YG / 2, yg2 = YG - YG / 2;
    const __m128i k = _mm_setr_epi16((int16_t)YR, (int16_t)yg1, (int16_t)yg2, (int16_t)YB,
                                     (int16_t)YR, (int16_t)yg1, (int16_t)yg2, (int16_t)YB);
    const __m128i bias = _mm_set1_epi32((16 << 16) + (1 << 15)), z = _mm_setzero_si128();
    for (; x + 4 <= w; x += 4, p += 16) {
        __m128i px = _mm_loadu_si128((const __m128i *)p);
        __m128i lo = _mm_unpacklo_epi8(px, z), hi = _mm_unpackhi_epi8(px, z);
        lo = _mm_shufflehi_epi16(_mm_shufflelo_epi16(lo, _MM_SHUFFLE(2, 1, 1, 0)),
                                 _MM_SHUFFLE(2, 1, 1, 0));
        hi = _mm_shufflehi_epi16(_mm_shufflelo_epi16(hi, _MM_SHUFFLE(2, 1, 1, 0)),
                                 _MM_SHUFFLE(2, 1, 1, 0));
        __m128i sum = hadd_pairs(_mm_madd_epi16(lo, k), _mm_madd_epi16(hi, k));
        __m128i v = _mm_srai_epi32(_mm_add_epi32(sum, bias), 16);
        v = _mm_packs_epi32(v, z);
        v = _mm_packus_epi16(v, z);
        uint32_t out = (uint32_t)_mm_cvtsi128_si32(v);
        memcpy(y + x, &out, 4);
    }
#endif
    for (; x < w; x++, p += 4)
        y[x] = (uint8_t)((YR * p[0] + YG * p[1] + YB * p[2] + (16 << 16) + (1 << 15)) >> 16);
}

/* Chroma sample i from RGBA rows r0 and r1. */
static inline void chroma_one(const uint8_t *r0, const uint8_t *r1, uint8_t *u, uint8_t *v, int w,
                              int i)
{
    int x = 2 * i, xl = x > 0 ? x - 1 : 0, xr = x + 1 < w ? x + 1 : w - 1;
    int32_t s[3];
    for (int c = 0; c < 3; c++)
        s[c] = r0[4 * xl + c] + 2 * r0[4 * x + c] + r0[4 * xr + c] + r1[4 * xl + c] +
               2 * r1[4 * x + c] + r1[4 * xr + c];
    /* s is 8× the filtered value: 16 + 3 fractional bits. */
    u[i] = (uint8_t)((UR * s[0] + UG * s[1] + UB * s[2] + (128 << 19) + (1 << 18)) >> 19);
    v[i] = (uint8_t)((VR * s[0] + VG * s[1] + VB * s[2] + (128 << 19) + (1 << 18)) >> 19);
}

/* Row pairs [j0, j1), columns [x0, x1) (x0 even) of the planes, as
 * yuv.c's region_baseline: the luma and alpha of those pixels and every
 * chroma sample that reads one of them. */
void wb_yuv_pairs_w8(const WbImage *src, uint8_t *const planes[4], const int linesize[4], int j0,
                     int j1, int x0, int x1);
void wb_yuv_pairs_w16(const WbImage *src, uint8_t *const planes[4], const int linesize[4], int j0,
                      int j1, int x0, int x1);

#endif
