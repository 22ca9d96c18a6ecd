#include "io/yuv.h"

#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
/* The AVX2 path is compiled with a target attribute and picked at run
 * time, so the binary still runs on any x86-64; -DWB_NO_CLONES leaves it
 * out (the baseline alone, as on a CPU without AVX2). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(WB_NO_CLONES)
#define WB_YUV_HAVE_AVX2 1
#include <immintrin.h>
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

/* The AVX2 path: one pass over each pair of rows 2j, 2j+1, reading the
 * source once for both luma rows, the chroma row between them and the
 * alpha rows, 16 columns (8 chroma samples) per step.  Same integers as
 * the scalar code, so the same bytes.  Pixels sit one per int32 lane
 * (R | G<<8 | B<<16 | A<<24), eight per vector.
 *
 * - Luma: the lane masked with 0x00FF00FF is the int16 pair (R, B), a byte
 *   shuffle gives (G, G); pmaddwd with (YR, YB) and (YG1, YG2), where
 *   YG1 + YG2 = YG (YG alone does not fit int16), sums the three exact
 *   products into the int32 lane.
 * - Chroma: the same (R, B) pairs and (G, A) = the lane's 16-bit halves
 *   shifted right by 8, added over the two rows: each 16-bit field is a
 *   column's two-row sum v (<= 510; the fields never carry into each
 *   other).  The even columns E = v[2i] and odd ones O = v[2i+1] are
 *   gathered with a dword shuffle, the odd ones moved on by one sample
 *   with a dword permutation (the previous step's last odd column, or
 *   column 0 on the first step: the edge rule) give Oprev = v[2i-1], and
 *   s = Oprev + 2E + O (<= 2040) is chroma_one's sum in every field.  Then
 *   pmaddwd with (UR, UB) and (UG, 0) gives UR·sR + UB·sB and UG·sG
 *   exactly, likewise V.
 * - The columns after the last whole step of 16 go through the scalar
 *   code. */
#ifdef WB_YUV_HAVE_AVX2
#define AVX2 __attribute__((target("avx2")))

typedef struct {
    __m256i rb_mask, gg_shuf, y_rb, y_gg, y_bias;
    __m256i u_rb, u_ga, v_rb, v_ga, c_bias, prev_perm, out_perm;
    __m128i uv_shuf;
} Avx2Consts;

static inline int32_t pair16(int32_t lo, int32_t hi)
{
    return (int32_t)((uint32_t)hi << 16 | ((uint32_t)lo & 0xFFFF));
}

AVX2 static void avx2_consts(Avx2Consts *k)
{
    const int32_t yg1 = YG / 2, yg2 = YG - YG / 2;
    k->rb_mask = _mm256_set1_epi32(0x00FF00FF);
    k->gg_shuf = _mm256_setr_epi8(1, -1, 1, -1, 5, -1, 5, -1, 9, -1, 9, -1, 13, -1, 13, -1, 1, -1,
                                  1, -1, 5, -1, 5, -1, 9, -1, 9, -1, 13, -1, 13, -1);
    k->y_rb = _mm256_set1_epi32(pair16(YR, YB));
    k->y_gg = _mm256_set1_epi32(pair16(yg1, yg2));
    k->y_bias = _mm256_set1_epi32((16 << 16) + (1 << 15));
    k->u_rb = _mm256_set1_epi32(pair16(UR, UB));
    k->u_ga = _mm256_set1_epi32(pair16(UG, 0));
    k->v_rb = _mm256_set1_epi32(pair16(VR, VB));
    k->v_ga = _mm256_set1_epi32(pair16(VG, 0));
    k->c_bias = _mm256_set1_epi32((128 << 19) + (1 << 18));
    k->prev_perm = _mm256_setr_epi32(7, 0, 5, 2, 1, 4, 3, 6);
    k->out_perm = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    k->uv_shuf = _mm_setr_epi8(0, 1, 8, 9, 2, 3, 10, 11, 4, 5, 12, 13, 6, 7, 14, 15);
}

/* Luma of the eight pixels of px, one per int32 lane (< 256); rb = px's
 * (R, B) pairs. */
AVX2 static inline __m256i luma8(__m256i px, __m256i rb, const Avx2Consts *k)
{
    __m256i gg = _mm256_shuffle_epi8(px, k->gg_shuf);
    __m256i s = _mm256_add_epi32(_mm256_madd_epi16(rb, k->y_rb), _mm256_madd_epi16(gg, k->y_gg));
    return _mm256_srli_epi32(_mm256_add_epi32(s, k->y_bias), 16);
}

/* Bytes from int32 lanes (each < 256): a0, a1 are columns 0-7 and 8-15 of
 * one row, b0, b1 of the other; the low half of the result is the first
 * row's 16 bytes in order, the high half the second's.  The packs work
 * within 128-bit lanes; the dword permutation puts the columns back. */
AVX2 static inline __m256i pack_rows(__m256i a0, __m256i a1, __m256i b0, __m256i b1,
                                     const Avx2Consts *k)
{
    __m256i a = _mm256_packus_epi32(a0, a1), b = _mm256_packus_epi32(b0, b1);
    return _mm256_permutevar8x32_epi32(_mm256_packus_epi16(a, b), k->out_perm);
}

AVX2 static inline void store_rows(uint8_t *d0, uint8_t *d1, __m256i v)
{
    _mm_storeu_si128((__m128i *)d0, _mm256_castsi256_si128(v));
    _mm_storeu_si128((__m128i *)d1, _mm256_extracti128_si256(v, 1));
}

/* The filtered sums s of eight chroma samples from the two-row column sums
 * va (columns 0-7) and vb (8-15), samples in the order 0 1 4 5 | 2 3 6 7.
 * *carry holds the odd columns of the step before, permuted so that its
 * lane 0 is the last one (the caller seeds it with the even columns, whose
 * lane 0 is column 0). */
AVX2 static inline __m256i chroma_sums(__m256i va, __m256i vb, __m256i *carry,
                                       const Avx2Consts *k)
{
    __m256 fa = _mm256_castsi256_ps(va), fb = _mm256_castsi256_ps(vb);
    /* E: columns 0 2 8 10 | 4 6 12 14; O: 1 3 9 11 | 5 7 13 15. */
    __m256i e = _mm256_castps_si256(_mm256_shuffle_ps(fa, fb, _MM_SHUFFLE(2, 0, 2, 0)));
    __m256i o = _mm256_castps_si256(_mm256_shuffle_ps(fa, fb, _MM_SHUFFLE(3, 1, 3, 1)));
    /* Oprev: columns -1 1 7 9 | 3 5 11 13, lane 0 from the carry. */
    __m256i p = _mm256_permutevar8x32_epi32(o, k->prev_perm);
    __m256i oprev = _mm256_blend_epi32(p, *carry, 0x01);
    *carry = p;
    return _mm256_add_epi16(_mm256_add_epi16(e, e), _mm256_add_epi16(o, oprev));
}

/* One pair of rows: the source rows, the plane rows they fill (a0 NULL
 * without alpha), and where the next pair's source and luma rows start
 * (this pair's on the last one), to be fetched ahead. */
typedef struct {
    const uint8_t *r0, *r1;
    uint8_t *y0, *y1, *a0, *a1, *u, *v;
    const uint8_t *next_r0, *next_r1, *next_y0, *next_y1, *next_a0, *next_a1;
} RowPair;

/* Columns x .. x+15 of the row pair: luma, alpha when there, and chroma
 * samples x/2 .. x/2+7.  x is even and x + 16 <= width; carry is
 * chroma_sums' carries, for (R, B) and (G, A); first (x == 0) is a
 * constant after inlining.
 *
 * The prefetches ask for the same columns of the next pair: the source
 * line this step reads (64 bytes per row) and the luma and alpha lines it
 * will write.  Each row spans two 4 KiB pages, where the hardware prefetchers
 * stop, and the pairs are read as two streams a row apart; fetching one
 * pair ahead takes 1080p frames that are not in the cache from about 1.5
 * to 1.1-1.25 ms (bench_yuv).  Source lines are fetched non-temporally:
 * nothing reads them after this pass. */
AVX2 static inline __attribute__((always_inline)) void block16(const RowPair *rp, int x, bool first,
                                                               __m256i carry[2],
                                                               const Avx2Consts *k)
{
    const uint8_t *p0 = rp->r0 + 4 * x, *p1 = rp->r1 + 4 * x;
    uint8_t *y0 = rp->y0, *y1 = rp->y1, *a0 = rp->a0, *a1 = rp->a1, *u = rp->u, *v = rp->v;
    _mm_prefetch((const char *)(rp->next_r0 + 4 * x), _MM_HINT_NTA);
    _mm_prefetch((const char *)(rp->next_r1 + 4 * x), _MM_HINT_NTA);
    __builtin_prefetch(rp->next_y0 + x, 1, 3);
    __builtin_prefetch(rp->next_y1 + x, 1, 3);
    __m256i c00 = _mm256_loadu_si256((const __m256i *)p0);
    __m256i c01 = _mm256_loadu_si256((const __m256i *)(p0 + 32));
    __m256i c10 = _mm256_loadu_si256((const __m256i *)p1);
    __m256i c11 = _mm256_loadu_si256((const __m256i *)(p1 + 32));
    __m256i rb00 = _mm256_and_si256(c00, k->rb_mask), rb01 = _mm256_and_si256(c01, k->rb_mask);
    __m256i rb10 = _mm256_and_si256(c10, k->rb_mask), rb11 = _mm256_and_si256(c11, k->rb_mask);

    store_rows(y0 + x, y1 + x,
               pack_rows(luma8(c00, rb00, k), luma8(c01, rb01, k), luma8(c10, rb10, k),
                         luma8(c11, rb11, k), k));
    if (a0) {
        __builtin_prefetch(rp->next_a0 + x, 1, 3);
        __builtin_prefetch(rp->next_a1 + x, 1, 3);
        store_rows(a0 + x, a1 + x,
                   pack_rows(_mm256_srli_epi32(c00, 24), _mm256_srli_epi32(c01, 24),
                             _mm256_srli_epi32(c10, 24), _mm256_srli_epi32(c11, 24), k));
    }

    /* Two-row column sums: (R, B) and (G, A) per lane. */
    __m256i rba = _mm256_add_epi16(rb00, rb10), rbb = _mm256_add_epi16(rb01, rb11);
    __m256i gaa = _mm256_add_epi16(_mm256_srli_epi16(c00, 8), _mm256_srli_epi16(c10, 8));
    __m256i gab = _mm256_add_epi16(_mm256_srli_epi16(c01, 8), _mm256_srli_epi16(c11, 8));
    if (first) {
        /* Column -1 is column 0. */
        carry[0] = rba;
        carry[1] = gaa;
    }
    __m256i srb = chroma_sums(rba, rbb, &carry[0], k);
    __m256i sga = chroma_sums(gaa, gab, &carry[1], k);
    __m256i uu = _mm256_add_epi32(_mm256_madd_epi16(srb, k->u_rb), _mm256_madd_epi16(sga, k->u_ga));
    __m256i vv = _mm256_add_epi32(_mm256_madd_epi16(srb, k->v_rb), _mm256_madd_epi16(sga, k->v_ga));
    uu = _mm256_srai_epi32(_mm256_add_epi32(uu, k->c_bias), 19);
    vv = _mm256_srai_epi32(_mm256_add_epi32(vv, k->c_bias), 19);
    /* int16 U0 U1 U4 U5 V0 V1 V4 V5 | U2 U3 U6 U7 V2 V3 V6 V7, then bytes,
     * the two lanes' low halves side by side, and U0..U7 V0..V7. */
    __m256i b = _mm256_packus_epi16(_mm256_packs_epi32(uu, vv), _mm256_setzero_si256());
    __m128i uv = _mm256_castsi256_si128(_mm256_permute4x64_epi64(b, _MM_SHUFFLE(2, 0, 2, 0)));
    uv = _mm_shuffle_epi8(uv, k->uv_shuf);
    _mm_storel_epi64((__m128i *)(u + x / 2), uv);
    _mm_storel_epi64((__m128i *)(v + x / 2), _mm_unpackhi_epi64(uv, uv));
}

/* Row pair j's rows and the next pair's, for block16. */
static void row_pair(const WbImage *src, uint8_t *const planes[4], const int linesize[4], int j,
                     RowPair *rp)
{
    const int h = src->h;
    /* An odd last row pairs with itself (the chroma edge rule); its luma
     * and alpha then land twice on the same row, same bytes. */
    const bool pair = 2 * j + 1 < h, more = 2 * j + 2 < h;
    rp->r0 = wb_image_row(src, 2 * j);
    rp->r1 = pair ? wb_image_row(src, 2 * j + 1) : rp->r0;
    rp->y0 = planes[0] + (ptrdiff_t)(2 * j) * linesize[0];
    rp->y1 = pair ? rp->y0 + linesize[0] : rp->y0;
    rp->a0 = rp->a1 = NULL;
    rp->next_a0 = rp->next_a1 = NULL;
    if (planes[3]) {
        rp->a0 = planes[3] + (ptrdiff_t)(2 * j) * linesize[3];
        rp->a1 = pair ? rp->a0 + linesize[3] : rp->a0;
        rp->next_a0 = more ? rp->a1 + linesize[3] : rp->a0;
        rp->next_a1 = 2 * j + 3 < h ? rp->next_a0 + linesize[3] : rp->next_a0;
    }
    rp->u = planes[1] + (ptrdiff_t)j * linesize[1];
    rp->v = planes[2] + (ptrdiff_t)j * linesize[2];
    rp->next_r0 = more ? wb_image_row(src, 2 * j + 2) : rp->r0;
    rp->next_r1 = 2 * j + 3 < h ? wb_image_row(src, 2 * j + 3) : rp->next_r0;
    rp->next_y0 = more ? rp->y1 + linesize[0] : rp->y0;
    rp->next_y1 = 2 * j + 3 < h ? rp->next_y0 + linesize[0] : rp->next_y0;
}

/* Row pairs [j0, j1), columns [x0, x1) (x0 even), as region_baseline:
 * block16 from x0 while whole steps fit, the rest by the scalar code.
 * Starting inside the row, the carry's lane 0 (the only one chroma_sums
 * reads from it) is column x0 - 1's two-row sums. */
AVX2 static void pairs_avx2(const WbImage *src, uint8_t *const planes[4], const int linesize[4],
                            int j0, int j1, int x0, int x1)
{
    Avx2Consts k;
    avx2_consts(&k);
    const int w = src->w, cw = (w + 1) / 2;
    int xb = x0; /* columns [x0, xb) by block16 */
    while (xb + 16 <= x1)
        xb += 16;
    const int i1 = x1 / 2 < cw - 1 ? x1 / 2 : cw - 1;
    for (int j = j0; j < j1; j++) {
        RowPair rp;
        row_pair(src, planes, linesize, j, &rp);
        if (xb > x0) {
            __m256i carry[2];
            if (x0 == 0) {
                block16(&rp, 0, true, carry, &k);
            } else {
                uint32_t p0, p1;
                memcpy(&p0, rp.r0 + 4 * (x0 - 1), 4);
                memcpy(&p1, rp.r1 + 4 * (x0 - 1), 4);
                carry[0] = _mm256_set1_epi32((int)((p0 & 0x00FF00FFu) + (p1 & 0x00FF00FFu)));
                carry[1] = _mm256_set1_epi32((int)((p0 >> 8 & 0x00FF00FFu) + (p1 >> 8 & 0x00FF00FFu)));
                block16(&rp, x0, false, carry, &k);
            }
            for (int x = x0 + 16; x < xb; x += 16)
                block16(&rp, x, false, carry, &k);
        }
        if (xb < x1) {
            luma_row(rp.r0 + 4 * xb, rp.y0 + xb, x1 - xb);
            luma_row(rp.r1 + 4 * xb, rp.y1 + xb, x1 - xb);
            if (rp.a0)
                for (int x = xb; x < x1; x++) {
                    rp.a0[x] = rp.r0[4 * x + 3];
                    rp.a1[x] = rp.r1[4 * x + 3];
                }
        }
        for (int i = xb / 2; i <= i1; i++)
            chroma_one(rp.r0, rp.r1, rp.u, rp.v, w, i);
    }
}

AVX2 static void convert_avx2(const WbImage *src, uint8_t *const planes[4], const int linesize[4])
{
    pairs_avx2(src, planes, linesize, 0, (src->h + 1) / 2, 0, src->w);
}
#endif

bool wb_yuv_path_available(WbYuvPath path)
{
    switch (path) {
    case WB_YUV_BASELINE:
        return true;
    case WB_YUV_AVX2:
#ifdef WB_YUV_HAVE_AVX2
        return __builtin_cpu_supports("avx2");
#else
        return false;
#endif
    }
    return false;
}

void wb_rgba_to_yuv420_path(WbYuvPath path, const WbImage *src, uint8_t *const planes[4],
                            const int linesize[4])
{
#ifdef WB_YUV_HAVE_AVX2
    if (path == WB_YUV_AVX2 && wb_yuv_path_available(WB_YUV_AVX2)) {
        convert_avx2(src, planes, linesize);
        return;
    }
#endif
    (void)path;
    convert_baseline(src, planes, linesize);
}

void wb_rgba_to_yuv420(const WbImage *src, uint8_t *const planes[4], const int linesize[4])
{
    wb_rgba_to_yuv420_path(WB_YUV_AVX2, src, planes, linesize);
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
    const bool avx2 = path == WB_YUV_AVX2 && wb_yuv_path_available(WB_YUV_AVX2);
    (void)avx2;
    for (int ty = 0; ty < damage->tiles_y; ty++) {
        const int y0 = ty * damage->tile_h;
        const int y1 = y0 + damage->tile_h < src->h ? y0 + damage->tile_h : src->h;
        for (int tx = 0, x0, x1; wb_damage_next_run(damage, ty, src->w, &tx, &x0, &x1);) {
#ifdef WB_YUV_HAVE_AVX2
            if (avx2) {
                pairs_avx2(src, planes, linesize, y0 / 2, (y1 + 1) / 2, x0, x1);
                continue;
            }
#endif
            region_baseline(src, planes, linesize, y0, y1, x0, x1);
        }
    }
}

void wb_rgba_to_yuv420_damage(const WbImage *src, uint8_t *const planes[4], const int linesize[4],
                              const WbDamage *damage)
{
    wb_rgba_to_yuv420_damage_path(WB_YUV_AVX2, src, planes, linesize, damage);
}
