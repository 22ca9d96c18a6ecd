#include "io/yuv.h"

#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "core/cpu.h"
#include "io/yuv_kernel.h"

/* Width 4 is the two-pass baseline here (SSE2 where built); the row-pair
 * kernel runs at 8 and 16 lanes (yuv_kernel.inc), picked by core/cpu.h. */

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

/* The baseline: a luma pass over the whole image, then a chroma pass over
 * it again (SSE2 where the build has it). */
static void convert_baseline(const WbImage *src, uint8_t *const planes[4], const int linesize[4])
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

/* Rows [y0, y1) (y0 even; y1 even or h) and columns [x0, x1) (x0 even) of
 * the planes, from the same pixels: the luma and alpha of those pixels
 * and every chroma sample that reads one of them, i.e. samples x0/2 ..
 * x1/2 (whose columns 2i-1 .. 2i+1 reach into the range). */
static void region_baseline(const WbImage *src, uint8_t *const planes[4], const int linesize[4],
                            int y0, int y1, int x0, int x1)
{
    const int w = src->w, h = src->h, cw = (w + 1) / 2;
    for (int y = y0; y < y1; y++) {
        const uint8_t *row = wb_image_row(src, y);
        luma_row(row + 4 * x0, planes[0] + (ptrdiff_t)y * linesize[0] + x0, x1 - x0);
        if (planes[3]) {
            uint8_t *a = planes[3] + (ptrdiff_t)y * linesize[3];
            for (int x = x0; x < x1; x++)
                a[x] = row[4 * x + 3];
        }
    }
    const int i1 = x1 / 2 < cw - 1 ? x1 / 2 : cw - 1;
    for (int j = y0 / 2; j < (y1 + 1) / 2; j++) {
        const uint8_t *r0 = wb_image_row(src, 2 * j);
        const uint8_t *r1 = 2 * j + 1 < h ? wb_image_row(src, 2 * j + 1) : r0;
        uint8_t *u = planes[1] + (ptrdiff_t)j * linesize[1], *v = planes[2] + (ptrdiff_t)j * linesize[2];
        for (int i = x0 / 2; i <= i1; i++)
            chroma_one(r0, r1, u, v, w, i);
    }
}

bool wb_yuv_path_available(WbYuvPath path)
{
    switch (path) {
    case WB_YUV_BASELINE:
        return true;
    case WB_YUV_AVX2:
        return WB_SIMD_WIDE && wb_cpu_has(WB_CPU_AVX2);
    case WB_YUV_AVX512:
        return WB_SIMD_WIDE && wb_cpu_lanes() >= 16;
    case WB_YUV_PATHS:
        break;
    }
    return false;
}

/* The path the sink uses: AVX2 where the CPU runs it.  It stops at 8
 * lanes: in a render the pass waits on memory, and 16 lanes made the
 * whole render slower (README, Speed); bench_yuv times both. */
static WbYuvPath sink_path(void)
{
    return wb_yuv_path_available(WB_YUV_AVX2) ? WB_YUV_AVX2 : WB_YUV_BASELINE;
}

/* Row pairs [j0, j1), columns [x0, x1) through path, which is available;
 * false for the baseline (which the caller runs its own way). */
static bool pairs(WbYuvPath path, const WbImage *src, uint8_t *const planes[4],
                  const int linesize[4], int j0, int j1, int x0, int x1)
{
#if WB_SIMD_WIDE
    if (path == WB_YUV_AVX512) {
        wb_yuv_pairs_w16(src, planes, linesize, j0, j1, x0, x1);
        return true;
    }
    if (path == WB_YUV_AVX2) {
        wb_yuv_pairs_w8(src, planes, linesize, j0, j1, x0, x1);
        return true;
    }
#endif
    (void)path, (void)src, (void)planes, (void)linesize, (void)j0, (void)j1, (void)x0, (void)x1;
    return false;
}

void wb_rgba_to_yuv420_path(WbYuvPath path, const WbImage *src, uint8_t *const planes[4],
                            const int linesize[4])
{
    if (!wb_yuv_path_available(path))
        path = WB_YUV_BASELINE;
    if (!pairs(path, src, planes, linesize, 0, (src->h + 1) / 2, 0, src->w))
        convert_baseline(src, planes, linesize);
}

void wb_rgba_to_yuv420(const WbImage *src, uint8_t *const planes[4], const int linesize[4])
{
    wb_rgba_to_yuv420_path(sink_path(), src, planes, linesize);
}

/* The damage's grid fits src and pairs rows and columns (even tiles). */
static bool damage_usable(const WbImage *src, const WbDamage *d)
{
    return d->tile_w > 0 && d->tile_h > 0 && d->tile_w % 2 == 0 && d->tile_h % 2 == 0 &&
           d->tiles_x == (src->w + d->tile_w - 1) / d->tile_w &&
           d->tiles_y == (src->h + d->tile_h - 1) / d->tile_h;
}

void wb_rgba_to_yuv420_damage_path(WbYuvPath path, const WbImage *src, uint8_t *const planes[4],
                                   const int linesize[4], const WbDamage *damage)
{
    if (damage && damage->kind == WB_DAMAGE_NONE)
        return;
    if (!damage || damage->kind == WB_DAMAGE_ALL || !damage_usable(src, damage)) {
        wb_rgba_to_yuv420_path(path, src, planes, linesize);
        return;
    }
    if (!wb_yuv_path_available(path))
        path = WB_YUV_BASELINE;
    for (int ty = 0; ty < damage->tiles_y; ty++) {
        const int y0 = ty * damage->tile_h;
        const int y1 = y0 + damage->tile_h < src->h ? y0 + damage->tile_h : src->h;
        for (int tx = 0, x0, x1; wb_damage_next_run(damage, ty, src->w, &tx, &x0, &x1);) {
            if (!pairs(path, src, planes, linesize, y0 / 2, (y1 + 1) / 2, x0, x1))
                region_baseline(src, planes, linesize, y0, y1, x0, x1);
        }
    }
}

void wb_rgba_to_yuv420_damage(const WbImage *src, uint8_t *const planes[4], const int linesize[4],
                              const WbDamage *damage)
{
    wb_rgba_to_yuv420_damage_path(sink_path(), src, planes, linesize, damage);
}
