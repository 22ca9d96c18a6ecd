#include "io/yuv.h"

#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

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

static void luma_row(const uint8_t *p, uint8_t *y, int w)
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

/* One chroma row from RGBA rows r0 and r1 (r1 == r0 on an odd last row). */
static void chroma_row(const uint8_t *r0, const uint8_t *r1, uint8_t *u, uint8_t *v, int w)
{
    int cw = (w + 1) / 2;
    int i = 0;
#ifdef __SSE2__
    /* Chroma samples i whose three columns 2i-1..2i+1 are all inside the
     * row (1 <= i, 2i+1 < w), four at a time: the filtered sums s (<= 2040)
     * and the coefficients (|c| < 2^15) are int16, so (s0, s1)·(c0, c1) +
     * (s2, 0)·(c2, 0) by pmaddwd is exact. */
    const __m128i z = _mm_setzero_si128();
    const __m128i ku = _mm_setr_epi16((int16_t)UR, (int16_t)UG, (int16_t)UB, 0, (int16_t)UR,
                                      (int16_t)UG, (int16_t)UB, 0);
    const __m128i kv = _mm_setr_epi16((int16_t)VR, (int16_t)VG, (int16_t)VB, 0, (int16_t)VR,
                                      (int16_t)VG, (int16_t)VB, 0);
    const __m128i bias = _mm_set1_epi32((128 << 19) + (1 << 18));
    const __m128i alpha0 = _mm_setr_epi16(-1, -1, -1, 0, -1, -1, -1, 0);
    /* The first sample (its left column repeats) by the scalar code, then
     * blocks of four. */
    if (cw > 0)
        chroma_one(r0, r1, u, v, w, i++);
    for (; i + 4 <= cw && 2 * (i + 3) + 1 < w; i += 4) {
        /* Pixels 2i-1 .. 2i+7 of both rows: the left, centre and right
         * columns of four samples are pixels 2i-1+2k, 2i+2k, 2i+1+2k. */
        __m128i s[2]; /* per sample pair: R G B 0 sums as int16 */
        for (int h = 0; h < 2; h++) {
            int x = 2 * (i + 2 * h);
            /* pixels x-1, x, x+1 and x+1, x+2, x+3 (samples i+2h, i+2h+1) */
            __m128i a0 = _mm_loadl_epi64((const __m128i *)(r0 + 4 * (x - 1)));  /* x-1, x */
            __m128i a1 = _mm_loadl_epi64((const __m128i *)(r0 + 4 * (x + 1)));  /* x+1, x+2 */
            int32_t q0, q1;
            memcpy(&q0, r0 + 4 * (x + 3), 4);
            memcpy(&q1, r1 + 4 * (x + 3), 4);
            __m128i a2 = _mm_cvtsi32_si128(q0);
            __m128i b0 = _mm_loadl_epi64((const __m128i *)(r1 + 4 * (x - 1)));
            __m128i b1 = _mm_loadl_epi64((const __m128i *)(r1 + 4 * (x + 1)));
            __m128i b2 = _mm_cvtsi32_si128(q1);
            /* 16-bit lanes: [x-1 | x] , [x+1 | x+2], [x+3 | 0], both rows summed. */
            __m128i p01 = _mm_add_epi16(_mm_unpacklo_epi8(a0, z), _mm_unpacklo_epi8(b0, z));
            __m128i p12 = _mm_add_epi16(_mm_unpacklo_epi8(a1, z), _mm_unpacklo_epi8(b1, z));
            __m128i p3 = _mm_add_epi16(_mm_unpacklo_epi8(a2, z), _mm_unpacklo_epi8(b2, z));
            /* left: [x-1 | x+1], centre: [x | x+2], right: [x+1 | x+3] */
            __m128i left = _mm_unpacklo_epi64(p01, p12);
            __m128i centre = _mm_unpackhi_epi64(p01, p12);
            __m128i right = _mm_unpacklo_epi64(p12, p3);
            __m128i sum = _mm_add_epi16(_mm_add_epi16(left, right), _mm_add_epi16(centre, centre));
            s[h] = _mm_and_si128(sum, alpha0);
        }
        __m128i uu = hadd_pairs(_mm_madd_epi16(s[0], ku), _mm_madd_epi16(s[1], ku));
        __m128i vv = hadd_pairs(_mm_madd_epi16(s[0], kv), _mm_madd_epi16(s[1], kv));
        uu = _mm_srai_epi32(_mm_add_epi32(uu, bias), 19);
        vv = _mm_srai_epi32(_mm_add_epi32(vv, bias), 19);
        __m128i uv = _mm_packus_epi16(_mm_packs_epi32(uu, vv), z);
        uint32_t ou = (uint32_t)_mm_cvtsi128_si32(uv);
        uint32_t ov = (uint32_t)_mm_cvtsi128_si32(_mm_srli_si128(uv, 4));
        memcpy(u + i, &ou, 4);
        memcpy(v + i, &ov, 4);
    }
#endif
    for (; i < cw; i++)
        chroma_one(r0, r1, u, v, w, i);
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
