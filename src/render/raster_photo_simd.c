/* raster_photo_simd.c — the photo grid path's AVX2 and AVX-512 kernels:
 * cells classified, set up and walked eight (sixteen) at a time with
 * flat_cell's operations lane by lane, so the bytes are the same as one
 * cell at a time (tests compare both).  See raster_photo.c.
 */
#include "render/raster_photo.h"

#include <math.h>
#include <string.h>

#include "core/cpu.h"

#ifdef WB_RASTER_AVX2
/* compress[m]: the lanes set in the eight-bit mask m in ascending order,
 * one per byte (the rest 0): the permutation that packs those lanes of a
 * vector to its front. */
void wb_photo_compress_table(uint64_t compress[256])
{
    for (int m = 0; m < 256; m++) {
        uint64_t packed = 0;
        int n = 0;
        for (int l = 0; l < 8; l++)
            if (m >> l & 1)
                packed |= (uint64_t)l << (8 * n++);
        compress[m] = packed;
    }
}
#endif

#ifdef WB_RASTER_AVX2
/* Eight cells at a time: flat_cell's arithmetic with one cell per AVX2
 * lane.  At 1080p a cell covers about six pixels, so per-cell setup (box,
 * five edges, two texture planes with a division) outweighs the pixels;
 * done for eight cells at once it nearly vanishes.  Cells v00 + l (l < n,
 * one grid row) with flat triangles d0 (bit l: T0) and d1 (bit l: T1).
 *
 * Every value is flat_cell's, by the same operations: the box (of the drawn
 * triangles), its clip, the biased edge values at its first pixel centre
 * and their steps, the planes at that origin, and (o + gx·dx) + gy·dy at
 * offset (dx, dy).  The lanes walk the offsets of the largest box; a lane
 * takes offset (dx, dy) only inside its own box.  Covered pixels go to the
 * shading queue offset by offset, which is not flat_cell's order (cell by
 * cell): where two cells of the group cover one pixel (the mesh overlaps
 * itself) the last one must win, so then the group gives up.  Returns
 * false, having queued nothing, when it gives up or when the largest box
 * spans more than 32 pixel offsets (the per-lane masks are 32 bits):
 * flat_cell then draws those cells one by one. */
/* Vertices v .. v + 7 of interleaved (x, y) pairs, as an x and a y vector
 * (16 consecutive words: the caller makes sure they exist). */
__attribute__((target("avx2"))) static inline void load8_xy(const int32_t *xy, uint32_t v,
                                                            __m256i *x, __m256i *y)
{
    const __m256i even_odd = _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7);
    const __m256i lo = _mm256_permutevar8x32_epi32(
        _mm256_loadu_si256((const __m256i *)(xy + 2 * (size_t)v)), even_odd);
    const __m256i hi = _mm256_permutevar8x32_epi32(
        _mm256_loadu_si256((const __m256i *)(xy + 2 * (size_t)v + 8)), even_odd);
    *x = _mm256_permute2x128_si256(lo, hi, 0x20);
    *y = _mm256_permute2x128_si256(lo, hi, 0x31);
}

__attribute__((target("avx2"))) static inline int32_t hmin8(__m256i v)
{
    __m128i m = _mm_min_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    m = _mm_min_epi32(m, _mm_shuffle_epi32(m, 0x4E));
    m = _mm_min_epi32(m, _mm_shuffle_epi32(m, 0xB1));
    return _mm_cvtsi128_si32(m);
}

__attribute__((target("avx2"))) static inline int32_t hmax8(__m256i v)
{
    __m128i m = _mm_max_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    m = _mm_max_epi32(m, _mm_shuffle_epi32(m, 0x4E));
    m = _mm_max_epi32(m, _mm_shuffle_epi32(m, 0xB1));
    return _mm_cvtsi128_si32(m);
}

/* aa_triangle_at for eight triangles (all-ones lanes: MSAA only).  Where
 * the box is narrow (at most NARROW_FIX = 2^14 each way) every difference
 * fits 15 bits and the area 30: int32 is exact there; elsewhere the answer
 * is yes whatever the area. */
__attribute__((target("avx2"))) static inline __m256i aa_triangle8(__m256i ax, __m256i ay,
                                                                   __m256i bx, __m256i by,
                                                                   __m256i cx, __m256i cy)
{
    const __m256i narrow = _mm256_set1_epi32(NARROW_FIX);
    const __m256i w = _mm256_sub_epi32(_mm256_max_epi32(_mm256_max_epi32(ax, bx), cx),
                                       _mm256_min_epi32(_mm256_min_epi32(ax, bx), cx));
    const __m256i h = _mm256_sub_epi32(_mm256_max_epi32(_mm256_max_epi32(ay, by), cy),
                                       _mm256_min_epi32(_mm256_min_epi32(ay, by), cy));
    const __m256i wide = _mm256_or_si256(_mm256_cmpgt_epi32(w, narrow), _mm256_cmpgt_epi32(h, narrow));
    const __m256i area = _mm256_sub_epi32(
        _mm256_mullo_epi32(_mm256_sub_epi32(bx, ax), _mm256_sub_epi32(cy, ay)),
        _mm256_mullo_epi32(_mm256_sub_epi32(by, ay), _mm256_sub_epi32(cx, ax)));
    const __m256i flat = _mm256_cmpgt_epi32(area, _mm256_setzero_si256());
    return _mm256_or_si256(wide, _mm256_xor_si256(flat, _mm256_set1_epi32(-1)));
}

/* ~edge_outside for eight edges: all-ones lanes where the edge may show. */
__attribute__((target("avx2"))) static inline __m256i edge_shows8(__m256i px, __m256i py,
                                                                  __m256i qx, __m256i qy,
                                                                  int32_t fw, int32_t fh)
{
    const __m256i z = _mm256_setzero_si256(), w1 = _mm256_set1_epi32(fw - 1),
                  h1 = _mm256_set1_epi32(fh - 1);
    /* on or past a side: both <= 0 (neither > 0), or both >= fw (both > fw − 1) */
    const __m256i left = _mm256_or_si256(_mm256_cmpgt_epi32(px, z), _mm256_cmpgt_epi32(qx, z));
    const __m256i top = _mm256_or_si256(_mm256_cmpgt_epi32(py, z), _mm256_cmpgt_epi32(qy, z));
    const __m256i right = _mm256_and_si256(_mm256_cmpgt_epi32(px, w1), _mm256_cmpgt_epi32(qx, w1));
    const __m256i bottom = _mm256_and_si256(_mm256_cmpgt_epi32(py, h1), _mm256_cmpgt_epi32(qy, h1));
    /* shows: inside every side's test */
    return _mm256_andnot_si256(_mm256_or_si256(right, bottom), _mm256_and_si256(left, top));
}

/* The chunk stage's work for eight cells ci .. ci + 7 of grid row cj (ci + 8
 * <= cols: every vertex read exists): MSAA flags into tri_aa[0..15], the
 * box into box[] (xmin, xmax, ymin, ymax) and, with prev, the moved cells'
 * boxes before and after into moved[] (same order).  False, having done
 * nothing, when a vertex is invalid: the cell-by-cell loop takes them. */
__attribute__((target("avx2"))) bool wb_photo_cells8(const int32_t *xy, const int32_t *prev,
                                                     uint32_t v00, uint32_t v01, uint32_t ci,
                                                     uint32_t cj, uint32_t cols, uint32_t rows,
                                                     int32_t fw, int32_t fh, uint8_t *tri_aa,
                                                     int32_t box[4], int32_t moved[4], bool *aa)
{
    __m256i px[4], py[4];
    load8_xy(xy, v00, &px[0], &py[0]);
    load8_xy(xy, v00 + 1, &px[1], &py[1]);
    load8_xy(xy, v01, &px[2], &py[2]);
    load8_xy(xy, v01 + 1, &px[3], &py[3]);
    const __m256i inv = _mm256_set1_epi32(FIX_INVALID);
    __m256i bad = _mm256_setzero_si256();
    for (int k = 0; k < 4; k++)
        bad = _mm256_or_si256(bad, _mm256_cmpeq_epi32(px[k], inv));
    if (!_mm256_testz_si256(bad, bad))
        return false;
    const __m256i xl = _mm256_min_epi32(_mm256_min_epi32(px[0], px[1]), _mm256_min_epi32(px[2], px[3]));
    const __m256i xh = _mm256_max_epi32(_mm256_max_epi32(px[0], px[1]), _mm256_max_epi32(px[2], px[3]));
    const __m256i yl = _mm256_min_epi32(_mm256_min_epi32(py[0], py[1]), _mm256_min_epi32(py[2], py[3]));
    const __m256i yh = _mm256_max_epi32(_mm256_max_epi32(py[0], py[1]), _mm256_max_epi32(py[2], py[3]));
    box[0] = hmin8(xl);
    box[1] = hmax8(xh);
    box[2] = hmin8(yl);
    box[3] = hmax8(yh);
    /* Border cells whose border edges may show are MSAA (border_shows). */
    const __m256i col = _mm256_add_epi32(_mm256_set1_epi32((int)ci), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    __m256i border = _mm256_or_si256(
        _mm256_and_si256(_mm256_cmpeq_epi32(col, _mm256_setzero_si256()),
                         edge_shows8(px[0], py[0], px[2], py[2], fw, fh)),
        _mm256_and_si256(_mm256_cmpeq_epi32(col, _mm256_set1_epi32((int)cols - 1)),
                         edge_shows8(px[1], py[1], px[3], py[3], fw, fh)));
    if (cj == 0)
        border = _mm256_or_si256(border, edge_shows8(px[0], py[0], px[1], py[1], fw, fh));
    if (cj == rows - 1)
        border = _mm256_or_si256(border, edge_shows8(px[2], py[2], px[3], py[3], fw, fh));
    const __m256i a0 = _mm256_or_si256(border, aa_triangle8(px[0], py[0], px[1], py[1], px[2], py[2]));
    const __m256i a1 = _mm256_or_si256(border, aa_triangle8(px[1], py[1], px[3], py[3], px[2], py[2]));
    /* Bytes a0[l], a1[l] alternating: a 16-bit word per lane, packed. */
    const __m256i one = _mm256_set1_epi32(1);
    const __m256i w = _mm256_or_si256(_mm256_and_si256(a0, one),
                                      _mm256_slli_epi32(_mm256_and_si256(a1, one), 8));
    const __m256i packed = _mm256_permute4x64_epi64(_mm256_packus_epi32(w, _mm256_setzero_si256()), 0x08);
    _mm_storeu_si128((__m128i *)tri_aa, _mm256_castsi256_si128(packed));
    *aa = !_mm256_testz_si256(_mm256_or_si256(a0, a1), _mm256_or_si256(a0, a1));
    moved[0] = moved[2] = INT32_MAX;
    moved[1] = moved[3] = INT32_MIN;
    if (prev) {
        __m256i qx[4], qy[4];
        load8_xy(prev, v00, &qx[0], &qy[0]);
        load8_xy(prev, v00 + 1, &qx[1], &qy[1]);
        load8_xy(prev, v01, &qx[2], &qy[2]);
        load8_xy(prev, v01 + 1, &qx[3], &qy[3]);
        __m256i diff = _mm256_setzero_si256();
        for (int k = 0; k < 4; k++)
            diff = _mm256_or_si256(diff, _mm256_or_si256(_mm256_xor_si256(px[k], qx[k]),
                                                         _mm256_xor_si256(py[k], qy[k])));
        const __m256i still = _mm256_cmpeq_epi32(diff, _mm256_setzero_si256());
        if (_mm256_movemask_ps(_mm256_castsi256_ps(still)) != 0xFF) {
            const __m256i lo = _mm256_set1_epi32(INT32_MAX), hi = _mm256_set1_epi32(INT32_MIN);
            const __m256i oxl = _mm256_min_epi32(_mm256_min_epi32(qx[0], qx[1]), _mm256_min_epi32(qx[2], qx[3]));
            const __m256i oxh = _mm256_max_epi32(_mm256_max_epi32(qx[0], qx[1]), _mm256_max_epi32(qx[2], qx[3]));
            const __m256i oyl = _mm256_min_epi32(_mm256_min_epi32(qy[0], qy[1]), _mm256_min_epi32(qy[2], qy[3]));
            const __m256i oyh = _mm256_max_epi32(_mm256_max_epi32(qy[0], qy[1]), _mm256_max_epi32(qy[2], qy[3]));
            moved[0] = hmin8(_mm256_blendv_epi8(_mm256_min_epi32(xl, oxl), lo, still));
            moved[1] = hmax8(_mm256_blendv_epi8(_mm256_max_epi32(xh, oxh), hi, still));
            moved[2] = hmin8(_mm256_blendv_epi8(_mm256_min_epi32(yl, oyl), lo, still));
            moved[3] = hmax8(_mm256_blendv_epi8(_mm256_max_epi32(yh, oyh), hi, still));
        }
    }
    return true;
}

#ifdef WB_TEX_FX8
/* queue_flush, eight pixels per sample where it can (the same colours:
 * see wb_tex_sampler_fx8), stored in queue order. */
__attribute__((target("avx2"))) static void queue_flush8(ShadeQueue *q, uint32_t *flat,
                                                         const WbTexSampler *ts)
{
    int i = 0;
    for (; i + 8 <= q->n; i += 8) {
        const __m256i c = wb_tex_sampler_fx8(ts, _mm256_loadu_ps(q->u + i), _mm256_loadu_ps(q->v + i));
        store4(flat, q->at + i, _mm256_castsi256_si128(c));
        store4(flat, q->at + i + 4, _mm256_extracti128_si256(c, 1));
    }
    if (i + 4 <= q->n) {
        store4(flat, q->at + i,
               wb_tex_sampler_fx4(ts, _mm_loadu_ps(q->u + i), _mm_loadu_ps(q->v + i)));
        i += 4;
    }
    for (int k = 0; i + k < q->n; k++) {
        q->u[k] = q->u[i + k];
        q->v[k] = q->v[i + k];
        q->at[k] = q->at[i + k];
    }
    q->n -= i;
}
#endif

#ifdef WB_TEX_FX16
/* queue_flush8 sixteen pixels per sample (wb_tex_sampler_fx16: the same
 * colours), stored in queue order; fewer than sixteen wait in the queue
 * for the next flush or the band's queue_drain. */
WB_TEX_AVX512 static void queue_flush16(ShadeQueue *q, uint32_t *flat, const WbTexSampler *ts)
{
    int i = 0;
    for (; i + 16 <= q->n; i += 16) {
        const __m512i c = wb_tex_sampler_fx16(ts, _mm512_loadu_ps(q->u + i), _mm512_loadu_ps(q->v + i));
        store4(flat, q->at + i, _mm512_castsi512_si128(c));
        store4(flat, q->at + i + 4, _mm512_extracti32x4_epi32(c, 1));
        store4(flat, q->at + i + 8, _mm512_extracti32x4_epi32(c, 2));
        store4(flat, q->at + i + 12, _mm512_extracti32x4_epi32(c, 3));
    }
    for (int k = 0; i + k < q->n; k++) {
        q->u[k] = q->u[i + k];
        q->v[k] = q->v[i + k];
        q->at[k] = q->at[i + k];
    }
    q->n -= i;
}
#endif

/* own_pixels_once's check through a bitmap of the group's pixels, 64
 * columns by 32 rows from the leftmost and topmost box (a group reaching
 * past that answers no), for `lanes` lanes of arrays. */
static bool own_pixels_bitmap(const uint32_t *LM, const int32_t *C0, const int32_t *R0,
                              int lanes, int W, int H)
{
    int32_t gx = INT32_MAX, gy = INT32_MAX, gy1 = INT32_MIN;
    for (int l = 0; l < lanes; l++)
        if (LM[l]) {
            gx = C0[l] < gx ? C0[l] : gx;
            gy = R0[l] < gy ? R0[l] : gy;
            gy1 = R0[l] > gy1 ? R0[l] : gy1;
        }
    if (gy > gy1)
        return true; /* no lane covers anything */
    if (gy1 - gy + H > 32)
        return false;
    uint64_t rows[32];
    memset(rows, 0, sizeof *rows * (size_t)(gy1 - gy + H));
    const uint64_t row_mask = ((uint64_t)1 << W) - 1;
    for (int l = 0; l < lanes; l++) {
        if (!LM[l])
            continue;
        const int shift = C0[l] - gx;
        if (shift + W > 64)
            return false;
        uint64_t *row = rows + (R0[l] - gy);
        for (uint64_t bits, m = LM[l]; m; m >>= W, row++) {
            bits = (m & row_mask) << shift;
            if (*row & bits)
                return false;
            *row |= bits;
        }
    }
    return true;
}

/* Is no pixel covered by two lanes?  Lane l covers offset k = dy·W + dx
 * of its box (first pixel c0[l], r0[l]; last c0 + wx, r0 + hy) where bit k
 * of lm[l] is set; the lanes are consecutive cells of a grid row.
 *
 * Lanes two or more apart first: where the mesh runs left to right, every
 * box ends left of the boxes two lanes on, and they cannot share a pixel.
 * Neighbours, whose boxes always meet, then compare masks: lane l + 1's
 * offset (dy, dx) is lane l's (dy + dr, dx + dc), with (dc, dr) the shift
 * between their boxes, so its mask, cut to the columns that stay in the
 * row and shifted by dr·W + dc, meets lane l's exactly where they share a
 * pixel.  A group failing the first test goes through a bitmap of its
 * pixels, 64 columns by 32 rows from the leftmost and topmost box; one
 * reaching past that answers no (the cell-by-cell path draws it then, as
 * it draws overlaps). */
__attribute__((target("avx2"))) static inline __m256i lanes_up(__m256i v, __m256i idx,
                                                                int below, int32_t fill)
{
    /* lane l ← lane idx[l] (idx: l - n, for a shift up by n), then the
     * first `below` lanes ← fill */
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    return _mm256_blendv_epi8(_mm256_permutevar8x32_epi32(v, idx), _mm256_set1_epi32(fill),
                              _mm256_cmpgt_epi32(_mm256_set1_epi32(below), lane));
}

__attribute__((target("avx2"))) static bool own_pixels_once(__m256i lm, __m256i c0, __m256i r0,
                                                            __m256i wx, int W, int H)
{
    const __m256i zero = _mm256_setzero_si256();
    const __m256i dead = _mm256_cmpeq_epi32(lm, zero);
    const __m256i lo = _mm256_blendv_epi8(c0, _mm256_set1_epi32(INT32_MAX), dead);
    __m256i pm = _mm256_blendv_epi8(_mm256_add_epi32(c0, wx), _mm256_set1_epi32(INT32_MIN), dead);
    pm = _mm256_max_epi32(pm, lanes_up(pm, _mm256_setr_epi32(0, 0, 1, 2, 3, 4, 5, 6), 1, INT32_MIN));
    pm = _mm256_max_epi32(pm, lanes_up(pm, _mm256_setr_epi32(0, 0, 0, 1, 2, 3, 4, 5), 2, INT32_MIN));
    pm = _mm256_max_epi32(pm, lanes_up(pm, _mm256_setr_epi32(0, 0, 0, 0, 0, 1, 2, 3), 4, INT32_MIN));
    /* pm[l]: the right end of lanes 0..l; lane l + 2 must start past it. */
    const __m256i ends = lanes_up(pm, _mm256_setr_epi32(0, 0, 0, 1, 2, 3, 4, 5), 2, INT32_MIN);
    if (_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpgt_epi32(lo, ends))) == 0xFF) {
        const __m256i down = _mm256_setr_epi32(1, 2, 3, 4, 5, 6, 7, 7);
        const __m256i lm1 = _mm256_blendv_epi8(_mm256_permutevar8x32_epi32(lm, down), zero,
                                               _mm256_setr_epi32(0, 0, 0, 0, 0, 0, 0, -1));
        const __m256i dc = _mm256_sub_epi32(_mm256_permutevar8x32_epi32(c0, down), c0);
        const __m256i dr = _mm256_sub_epi32(_mm256_permutevar8x32_epi32(r0, down), r0);
        /* Lane l + 1's columns that land in lane l's rows: dx < W - dc
         * (dc >= 0) or dx >= -dc (dc < 0), every row. */
        const __m256i wv = _mm256_set1_epi32(W), one = _mm256_set1_epi32(1);
        const __m256i adc = _mm256_abs_epi32(dc);
        const __m256i n = _mm256_max_epi32(_mm256_sub_epi32(wv, adc), zero);
        __m256i cols = _mm256_sub_epi32(_mm256_sllv_epi32(one, n), one);
        const __m256i neg = _mm256_cmpgt_epi32(zero, dc);
        cols = _mm256_blendv_epi8(cols, _mm256_sllv_epi32(cols, adc), neg);
        uint32_t rep = 0;
        for (int dy = 0; dy < H; dy++)
            rep |= 1u << (dy * W);
        cols = _mm256_mullo_epi32(cols, _mm256_set1_epi32((int)rep));
        const __m256i m = _mm256_and_si256(lm1, cols);
        const __m256i t = _mm256_add_epi32(_mm256_mullo_epi32(dr, wv), dc);
        const __m256i moved = _mm256_blendv_epi8(_mm256_sllv_epi32(m, t),
                                                 _mm256_srlv_epi32(m, _mm256_sub_epi32(zero, t)),
                                                 _mm256_cmpgt_epi32(zero, t));
        const __m256i both = _mm256_and_si256(moved, lm);
        return _mm256_testz_si256(both, both);
    }
    uint32_t LM[8];
    int32_t C0[8], R0[8];
    _mm256_storeu_si256((__m256i *)LM, lm);
    _mm256_storeu_si256((__m256i *)C0, c0);
    _mm256_storeu_si256((__m256i *)R0, r0);
    return own_pixels_bitmap(LM, C0, R0, 8, W, H);
}

/* own_pixels_once on arrays (wb_raster_group_owns_pixels). */
__attribute__((target("avx2"))) static int own_pixels_once_a(const uint32_t mask[8],
                                                             const int32_t c0[8],
                                                             const int32_t r0[8],
                                                             const int32_t wx[8], int W, int H)
{
    return own_pixels_once(_mm256_loadu_si256((const __m256i *)mask),
                           _mm256_loadu_si256((const __m256i *)c0),
                           _mm256_loadu_si256((const __m256i *)r0),
                           _mm256_loadu_si256((const __m256i *)wx), W, H);
}

__attribute__((target("avx2"))) bool wb_photo_group8(Band *b, uint32_t *flat, ShadeQueue *q,
                                                     const Cmd *cmd, const WbTexSampler *ts,
                                                     uint32_t v00, uint32_t v01, int n,
                                                     unsigned d0, unsigned d1)
{
    /* Corners P0 = v00, P1 = v10, P2 = v01, P3 = v11 of each lane's cell,
     * and their texture coordinates.  A full group reads them straight
     * from the interleaved arrays (its last vertex, v01 + 8, exists: it
     * ends the next row's run); a shorter one copies them, idle lanes
     * repeating lane 0. */
    const int32_t *xy = cmd->xy;
    const float *t = cmd->tuv;
    __m256i px[4], py[4];
    __m256 tu[4], tv[4];
    const uint32_t first[4] = {v00, v00 + 1, v01, v01 + 1};
    if (n == 8) {
        const __m256i even_odd = _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7);
        for (int k = 0; k < 4; k++) {
            load8_xy(xy, first[k], &px[k], &py[k]);
            const __m256 ulo = _mm256_permutevar8x32_ps(_mm256_loadu_ps(t + 2 * first[k]), even_odd);
            const __m256 uhi = _mm256_permutevar8x32_ps(_mm256_loadu_ps(t + 2 * first[k] + 8),
                                                        even_odd);
            tu[k] = _mm256_permute2f128_ps(ulo, uhi, 0x20);
            tv[k] = _mm256_permute2f128_ps(ulo, uhi, 0x31);
        }
    } else {
        int32_t X[4][8], Y[4][8];
        float U[4][8], V[4][8];
        for (int l = 0; l < 8; l++) {
            const uint32_t o = (uint32_t)(l < n ? l : 0);
            for (int k = 0; k < 4; k++) {
                X[k][l] = xy[2 * (first[k] + o)];
                Y[k][l] = xy[2 * (first[k] + o) + 1];
                U[k][l] = t[2 * (first[k] + o)];
                V[k][l] = t[2 * (first[k] + o) + 1];
            }
        }
        for (int k = 0; k < 4; k++) {
            px[k] = _mm256_loadu_si256((const __m256i *)X[k]);
            py[k] = _mm256_loadu_si256((const __m256i *)Y[k]);
            tu[k] = _mm256_loadu_ps(U[k]);
            tv[k] = _mm256_loadu_ps(V[k]);
        }
    }
    const __m256i lane_bit = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
    const __m256i zero = _mm256_setzero_si256(), ones = _mm256_set1_epi32(-1);
    const __m256i m0 = _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_set1_epi32((int)d0), lane_bit),
                                          lane_bit);
    const __m256i m1 = _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_set1_epi32((int)d1), lane_bit),
                                          lane_bit);
    /* The box of the drawn triangles: T0 alone leaves out P3, T1 alone P0
     * (flat_cell's one-triangle box). */
    const __m256i only0 = _mm256_andnot_si256(m1, m0), only1 = _mm256_andnot_si256(m0, m1);
    const __m256i ax = _mm256_blendv_epi8(px[0], px[3], only1);
    const __m256i ay = _mm256_blendv_epi8(py[0], py[3], only1);
    const __m256i bx = _mm256_blendv_epi8(px[3], px[0], only0);
    const __m256i by = _mm256_blendv_epi8(py[3], py[0], only0);
    const __m256i xmin = _mm256_min_epi32(_mm256_min_epi32(ax, bx), _mm256_min_epi32(px[1], px[2]));
    const __m256i xmax = _mm256_max_epi32(_mm256_max_epi32(ax, bx), _mm256_max_epi32(px[1], px[2]));
    const __m256i ymin = _mm256_min_epi32(_mm256_min_epi32(ay, by), _mm256_min_epi32(py[1], py[2]));
    const __m256i ymax = _mm256_max_epi32(_mm256_max_epi32(ay, by), _mm256_max_epi32(py[1], py[2]));
    /* pixel_span with no sample offsets: first = ceil((lo - 128) / 256),
     * last = floor((hi - 128) / 256); coordinates are within ±2^28, so the
     * arithmetic shift is the floor division. */
    const __m256i h128 = _mm256_set1_epi32(FIX_HALF);
    __m256i r0 = _mm256_sub_epi32(zero, _mm256_srai_epi32(_mm256_sub_epi32(h128, ymin), 8));
    __m256i r1 = _mm256_srai_epi32(_mm256_sub_epi32(ymax, h128), 8);
    __m256i c0 = _mm256_sub_epi32(zero, _mm256_srai_epi32(_mm256_sub_epi32(h128, xmin), 8));
    __m256i c1 = _mm256_srai_epi32(_mm256_sub_epi32(xmax, h128), 8);
    r0 = _mm256_max_epi32(r0, _mm256_set1_epi32(b->y0));
    r1 = _mm256_min_epi32(r1, _mm256_set1_epi32(b->y1 - 1));
    c0 = _mm256_max_epi32(c0, zero);
    c1 = _mm256_min_epi32(c1, _mm256_set1_epi32(b->w - 1));
    /* Box extents minus one; a lane draws when both are >= 0. */
    const __m256i hy = _mm256_sub_epi32(r1, r0), wx = _mm256_sub_epi32(c1, c0);
    const __m256i live = _mm256_andnot_si256(_mm256_or_si256(hy, wx), _mm256_or_si256(m0, m1));
    const __m256i on = _mm256_srai_epi32(live, 31); /* the lanes that draw */
    int mask_on = _mm256_movemask_ps(_mm256_castsi256_ps(on));
    if (!mask_on)
        return true;
    int32_t HY[8], WX[8];
    _mm256_storeu_si256((__m256i *)HY, _mm256_blendv_epi8(_mm256_set1_epi32(-1), hy, on));
    _mm256_storeu_si256((__m256i *)WX, _mm256_blendv_epi8(_mm256_set1_epi32(-1), wx, on));
    int H = 0, W = 0;
#pragma GCC unroll 8
    for (int l = 0; l < 8; l++) {
        H = HY[l] + 1 > H ? HY[l] + 1 : H;
        W = WX[l] + 1 > W ? WX[l] + 1 : W;
    }
    if (H * W > 32)
        return false;
    const __m256i k256 = _mm256_set1_epi32(FIX_ONE);
    const __m256i X0 = _mm256_add_epi32(_mm256_mullo_epi32(c0, k256), h128);
    const __m256i Y0 = _mm256_add_epi32(_mm256_mullo_epi32(r0, k256), h128);

    /* Edges as in flat_cell: 0 P0→P1, 1 P1→P2 (the diagonal), 2 P2→P0,
     * 3 P1→P3, 4 P3→P2; an undrawn triangle's own edges are -1, steps 0. */
    static const int EP[5][2] = {{0, 1}, {1, 2}, {2, 0}, {1, 3}, {3, 2}};
    __m256i e[5], sx[5], sy[5];
#pragma GCC unroll 5
    for (int k = 0; k < 5; k++) {
        const __m256i dx = _mm256_sub_epi32(px[EP[k][1]], px[EP[k][0]]);
        const __m256i dy = _mm256_sub_epi32(py[EP[k][1]], py[EP[k][0]]);
        __m256i ek = _mm256_sub_epi32(
            _mm256_mullo_epi32(dx, _mm256_sub_epi32(Y0, py[EP[k][0]])),
            _mm256_mullo_epi32(dy, _mm256_sub_epi32(X0, px[EP[k][0]])));
        ek = _mm256_add_epi32(ek, edge_bias8(dx, dy));
        __m256i sxk = _mm256_mullo_epi32(_mm256_sub_epi32(zero, dy), k256);
        __m256i syk = _mm256_mullo_epi32(dx, k256);
        if (k != 1) {
            const __m256i keep = k < 3 ? m0 : m1;
            ek = _mm256_blendv_epi8(ones, ek, keep);
            sxk = _mm256_and_si256(sxk, keep);
            syk = _mm256_and_si256(syk, keep);
        }
        e[k] = ek;
        sx[k] = sxk;
        sy[k] = syk;
    }

    /* Texture planes (tex_planes' operations): T0 = (P0, P1, P2), T1 =
     * (P1, P3, P2). */
    const __m256 inv_fix = _mm256_set1_ps(1.0f / FIX_ONE);
    const __m256 one = _mm256_set1_ps(1.0f);
    __m256 pu[2][3], pv[2][3]; /* o, gx, gy */
    static const int TV[2][3] = {{0, 1, 2}, {1, 3, 2}};
#pragma GCC unroll 2
    for (int tri = 0; tri < 2; tri++) {
        const int ia = TV[tri][0], ib = TV[tri][1], ic = TV[tri][2];
        const __m256 fbx = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_sub_epi32(px[ib], px[ia])), inv_fix);
        const __m256 fby = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_sub_epi32(py[ib], py[ia])), inv_fix);
        const __m256 fcx = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_sub_epi32(px[ic], px[ia])), inv_fix);
        const __m256 fcy = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_sub_epi32(py[ic], py[ia])), inv_fix);
        const __m256 pax = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_sub_epi32(px[ia], X0)), inv_fix);
        const __m256 pay = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_sub_epi32(py[ia], Y0)), inv_fix);
        const __m256 inv = _mm256_div_ps(one, _mm256_sub_ps(_mm256_mul_ps(fbx, fcy),
                                                            _mm256_mul_ps(fby, fcx)));
#pragma GCC unroll 2
        for (int c = 0; c < 2; c++) {
            const __m256 *T = c == 0 ? tu : tv;
            const __m256 va = T[ia], vb = T[ib], vc = T[ic];
            const __m256 dd1 = _mm256_sub_ps(vb, va), dd2 = _mm256_sub_ps(vc, va);
            const __m256 gx = _mm256_mul_ps(
                _mm256_sub_ps(_mm256_mul_ps(dd1, fcy), _mm256_mul_ps(dd2, fby)), inv);
            const __m256 gy = _mm256_mul_ps(
                _mm256_sub_ps(_mm256_mul_ps(dd2, fbx), _mm256_mul_ps(dd1, fcx)), inv);
            const __m256 o = _mm256_sub_ps(_mm256_sub_ps(va, _mm256_mul_ps(gx, pax)),
                                           _mm256_mul_ps(gy, pay));
            __m256 *P = c == 0 ? pu[tri] : pv[tri];
            P[0] = o;
            P[1] = gx;
            P[2] = gy;
        }
    }

    /* Walk the offsets; lane l keeps the ones inside its box and its
     * triangles, noting offset k in bit k of its mask.  The covered lanes
     * of each offset go straight to the queue, packed (compress_table):
     * offset-major order, not flat_cell's cell-major one.  The two store
     * the same pixels, and where no pixel is covered twice the order of
     * the stores cannot matter; own_pixels_once checks that afterwards,
     * and when it fails the group takes back what it queued. */
    const __m256i at0 = _mm256_add_epi32(
        _mm256_mullo_epi32(_mm256_sub_epi32(r0, _mm256_set1_epi32(b->y0)), _mm256_set1_epi32(b->pitch)),
        c0);
    const int qn0 = q->n;
    int qn = qn0;
    __m256i lm = zero;
    int k = 0;
    for (int dy = 0; dy < H; dy++) {
        /* The planes' row terms gy·dy, the same products for the row. */
        const __m256 fy = _mm256_set1_ps((float)dy);
        const __m256 yu0 = _mm256_mul_ps(pu[0][2], fy), yu1 = _mm256_mul_ps(pu[1][2], fy);
        const __m256 yv0 = _mm256_mul_ps(pv[0][2], fy), yv1 = _mm256_mul_ps(pv[1][2], fy);
        const __m256i rowin = _mm256_and_si256(on, _mm256_cmpgt_epi32(_mm256_add_epi32(hy, _mm256_set1_epi32(1)),
                                                                        _mm256_set1_epi32(dy)));
        /* (The five-edge loops are unrolled by hand-held pragma: rolled, gcc
         * keeps ev[] in memory and spends six instructions per edge.) */
        __m256i ev[5];
#pragma GCC unroll 5
        for (int j = 0; j < 5; j++)
            ev[j] = e[j];
        for (int dx = 0; dx < W; dx++, k++) {
            const __m256i in0 = _mm256_cmpgt_epi32(_mm256_or_si256(_mm256_or_si256(ev[0], ev[1]), ev[2]), ones);
            const __m256i in1 = _mm256_srai_epi32(_mm256_andnot_si256(_mm256_or_si256(ev[3], ev[4]), ev[1]), 31);
            const __m256i inx = _mm256_cmpgt_epi32(_mm256_add_epi32(wx, _mm256_set1_epi32(1)), _mm256_set1_epi32(dx));
            const __m256i cov = _mm256_and_si256(_mm256_and_si256(rowin, inx), _mm256_or_si256(in0, in1));
            const int cm = _mm256_movemask_ps(_mm256_castsi256_ps(cov));
            if (cm) {
                const __m256 fx = _mm256_set1_ps((float)dx);
                const __m256 t1 = _mm256_castsi256_ps(in1);
                const __m256 u0 = _mm256_add_ps(_mm256_add_ps(pu[0][0], _mm256_mul_ps(pu[0][1], fx)), yu0);
                const __m256 u1 = _mm256_add_ps(_mm256_add_ps(pu[1][0], _mm256_mul_ps(pu[1][1], fx)), yu1);
                const __m256 w0 = _mm256_add_ps(_mm256_add_ps(pv[0][0], _mm256_mul_ps(pv[0][1], fx)), yv0);
                const __m256 w1 = _mm256_add_ps(_mm256_add_ps(pv[1][0], _mm256_mul_ps(pv[1][1], fx)), yv1);
                const __m256i perm = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)&b->compress[cm]));
                _mm256_storeu_ps(q->u + qn, _mm256_permutevar8x32_ps(_mm256_blendv_ps(u0, u1, t1), perm));
                _mm256_storeu_ps(q->v + qn, _mm256_permutevar8x32_ps(_mm256_blendv_ps(w0, w1, t1), perm));
                _mm256_storeu_si256((__m256i *)(q->at + qn),
                                    _mm256_permutevar8x32_epi32(
                                        _mm256_add_epi32(at0, _mm256_set1_epi32(dy * b->pitch + dx)), perm));
                qn += __builtin_popcount((unsigned)cm);
                lm = _mm256_or_si256(lm, _mm256_and_si256(cov, _mm256_set1_epi32((int)(1u << k))));
            }
#pragma GCC unroll 5
            for (int j = 0; j < 5; j++)
                ev[j] = _mm256_add_epi32(ev[j], sx[j]);
        }
#pragma GCC unroll 5
        for (int j = 0; j < 5; j++)
            e[j] = _mm256_add_epi32(e[j], sy[j]);
    }
    if (!own_pixels_once(lm, c0, r0, wx, W, H)) {
        q->n = qn0;
        return false;
    }
    q->n = qn;
    if (qn >= QUEUE_BATCH) {
#ifdef WB_TEX_FX16
        if (b->wide && wb_tex_sampler_fx8_ok(ts))
            queue_flush16(q, flat, ts);
        else
#endif
#ifdef WB_TEX_FX8
        if (wb_tex_sampler_fx8_ok(ts))
            queue_flush8(q, flat, ts);
        else
#endif
            queue_flush(q, flat, ts);
    }
    return true;
}
#endif

#ifdef WB_TEX_FX16
/* ---- sixteen cells at a time (AVX-512 F, BW, DQ) ------------------------
 *
 * flat_group8 and own_pixels_once on sixteen lanes: the same integer and
 * IEEE operations lane for lane, so the same pixels in the same queue order
 * rules; the lane masks live in mask registers and the covered lanes of an
 * offset are packed by vcompress instead of a permutation table.  Taken
 * where the processor has AVX-512 (Band.wide). */
#define AVX512G __attribute__((target("avx512f,avx512bw,avx512dq")))

/* Vertices v .. v + 15 of interleaved (x, y) pairs (32 words that exist). */
AVX512G static inline void load16_xy(const int32_t *xy, uint32_t v, __m512i *x, __m512i *y)
{
    const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26,
                                           28, 30);
    const __m512i a = _mm512_loadu_si512(xy + 2 * (size_t)v);
    const __m512i b = _mm512_loadu_si512(xy + 2 * (size_t)v + 16);
    *x = _mm512_permutex2var_epi32(a, even, b);
    *y = _mm512_permutex2var_epi32(a, _mm512_add_epi32(even, _mm512_set1_epi32(1)), b);
}

/* lane l <- lane l - n, the first n lanes <- fill */
AVX512G static inline __m512i lanes_up16(__m512i v, int n, int32_t fill)
{
    switch (n) {
    case 1: return _mm512_alignr_epi32(v, _mm512_set1_epi32(fill), 15);
    case 2: return _mm512_alignr_epi32(v, _mm512_set1_epi32(fill), 14);
    case 4: return _mm512_alignr_epi32(v, _mm512_set1_epi32(fill), 12);
    default: return _mm512_alignr_epi32(v, _mm512_set1_epi32(fill), 8);
    }
}

/* own_pixels_once for sixteen lanes (see there). */
AVX512G static bool own_pixels_once16(__m512i lm, __m512i c0, __m512i r0, __m512i wx, int W,
                                      int H)
{
    const __m512i zero = _mm512_setzero_si512();
    const __mmask16 dead = _mm512_cmpeq_epi32_mask(lm, zero);
    const __m512i lo = _mm512_mask_blend_epi32(dead, c0, _mm512_set1_epi32(INT32_MAX));
    __m512i pm = _mm512_mask_blend_epi32(dead, _mm512_add_epi32(c0, wx), _mm512_set1_epi32(INT32_MIN));
    pm = _mm512_max_epi32(pm, lanes_up16(pm, 1, INT32_MIN));
    pm = _mm512_max_epi32(pm, lanes_up16(pm, 2, INT32_MIN));
    pm = _mm512_max_epi32(pm, lanes_up16(pm, 4, INT32_MIN));
    pm = _mm512_max_epi32(pm, lanes_up16(pm, 8, INT32_MIN));
    /* pm[l]: the right end of lanes 0..l; lane l + 2 must start past it. */
    const __m512i ends = lanes_up16(pm, 2, INT32_MIN);
    if (_mm512_cmpgt_epi32_mask(lo, ends) == 0xFFFF) {
        /* lane l <- lane l + 1 (the last lane: 0 masks, its shift unused) */
        const __m512i lm1 = _mm512_alignr_epi32(zero, lm, 1);
        const __m512i dc = _mm512_sub_epi32(_mm512_alignr_epi32(c0, c0, 1), c0);
        const __m512i dr = _mm512_sub_epi32(_mm512_alignr_epi32(r0, r0, 1), r0);
        const __m512i wv = _mm512_set1_epi32(W), one = _mm512_set1_epi32(1);
        const __m512i adc = _mm512_abs_epi32(dc);
        const __m512i n = _mm512_max_epi32(_mm512_sub_epi32(wv, adc), zero);
        __m512i cols = _mm512_sub_epi32(_mm512_sllv_epi32(one, n), one);
        const __mmask16 neg = _mm512_cmplt_epi32_mask(dc, zero);
        cols = _mm512_mask_blend_epi32(neg, cols, _mm512_sllv_epi32(cols, adc));
        uint32_t rep = 0;
        for (int dy = 0; dy < H; dy++)
            rep |= 1u << (dy * W);
        cols = _mm512_mullo_epi32(cols, _mm512_set1_epi32((int)rep));
        const __m512i m = _mm512_and_si512(lm1, cols);
        const __m512i t = _mm512_add_epi32(_mm512_mullo_epi32(dr, wv), dc);
        const __m512i moved = _mm512_mask_blend_epi32(
            _mm512_cmplt_epi32_mask(t, zero), _mm512_sllv_epi32(m, t),
            _mm512_srlv_epi32(m, _mm512_sub_epi32(zero, t)));
        return _mm512_test_epi32_mask(moved, lm) == 0;
    }
    uint32_t LM[16];
    int32_t C0[16], R0[16];
    _mm512_storeu_si512(LM, lm);
    _mm512_storeu_si512(C0, c0);
    _mm512_storeu_si512(R0, r0);
    return own_pixels_bitmap(LM, C0, R0, 16, W, H);
}

/* own_pixels_once16 on arrays (wb_raster_group_owns_pixels). */
AVX512G static int own_pixels_once16_a(const uint32_t mask[16], const int32_t c0[16],
                                       const int32_t r0[16], const int32_t wx[16], int W, int H)
{
    return own_pixels_once16(_mm512_loadu_si512(mask), _mm512_loadu_si512(c0),
                             _mm512_loadu_si512(r0), _mm512_loadu_si512(wx), W, H);
}

/* flat_group8 for up to sixteen consecutive cells of a grid row (bit l of
 * d0, d1 for cell v00 + l). */
AVX512G bool wb_photo_group16(Band *b, uint32_t *flat, ShadeQueue *q, const Cmd *cmd,
                              const WbTexSampler *ts, uint32_t v00, uint32_t v01, int n,
                              unsigned d0, unsigned d1)
{
    const int32_t *xy = cmd->xy;
    const float *t = cmd->tuv;
    __m512i px[4], py[4];
    __m512 tu[4], tv[4];
    const uint32_t first[4] = {v00, v00 + 1, v01, v01 + 1};
    if (n == 16) {
        /* (v01 + 16 ends the next row's run: every word read exists) */
        for (int k = 0; k < 4; k++) {
            load16_xy(xy, first[k], &px[k], &py[k]);
            __m512i u, v;
            load16_xy((const int32_t *)(const void *)t, first[k], &u, &v);
            tu[k] = _mm512_castsi512_ps(u);
            tv[k] = _mm512_castsi512_ps(v);
        }
    } else {
        int32_t X[4][16], Y[4][16];
        float U[4][16], V[4][16];
        for (int l = 0; l < 16; l++) {
            const uint32_t o = (uint32_t)(l < n ? l : 0);
            for (int k = 0; k < 4; k++) {
                X[k][l] = xy[2 * (first[k] + o)];
                Y[k][l] = xy[2 * (first[k] + o) + 1];
                U[k][l] = t[2 * (first[k] + o)];
                V[k][l] = t[2 * (first[k] + o) + 1];
            }
        }
        for (int k = 0; k < 4; k++) {
            px[k] = _mm512_loadu_si512(X[k]);
            py[k] = _mm512_loadu_si512(Y[k]);
            tu[k] = _mm512_loadu_ps(U[k]);
            tv[k] = _mm512_loadu_ps(V[k]);
        }
    }
    const __m512i zero = _mm512_setzero_si512(), ones = _mm512_set1_epi32(-1);
    const __mmask16 m0 = (__mmask16)d0, m1 = (__mmask16)d1;
    const __mmask16 only0 = m0 & (__mmask16)~m1, only1 = m1 & (__mmask16)~m0;
    const __m512i ax = _mm512_mask_blend_epi32(only1, px[0], px[3]);
    const __m512i ay = _mm512_mask_blend_epi32(only1, py[0], py[3]);
    const __m512i bx = _mm512_mask_blend_epi32(only0, px[3], px[0]);
    const __m512i by = _mm512_mask_blend_epi32(only0, py[3], py[0]);
    const __m512i xmin = _mm512_min_epi32(_mm512_min_epi32(ax, bx), _mm512_min_epi32(px[1], px[2]));
    const __m512i xmax = _mm512_max_epi32(_mm512_max_epi32(ax, bx), _mm512_max_epi32(px[1], px[2]));
    const __m512i ymin = _mm512_min_epi32(_mm512_min_epi32(ay, by), _mm512_min_epi32(py[1], py[2]));
    const __m512i ymax = _mm512_max_epi32(_mm512_max_epi32(ay, by), _mm512_max_epi32(py[1], py[2]));
    const __m512i h128 = _mm512_set1_epi32(FIX_HALF);
    __m512i r0 = _mm512_sub_epi32(zero, _mm512_srai_epi32(_mm512_sub_epi32(h128, ymin), 8));
    __m512i r1 = _mm512_srai_epi32(_mm512_sub_epi32(ymax, h128), 8);
    __m512i c0 = _mm512_sub_epi32(zero, _mm512_srai_epi32(_mm512_sub_epi32(h128, xmin), 8));
    __m512i c1 = _mm512_srai_epi32(_mm512_sub_epi32(xmax, h128), 8);
    r0 = _mm512_max_epi32(r0, _mm512_set1_epi32(b->y0));
    r1 = _mm512_min_epi32(r1, _mm512_set1_epi32(b->y1 - 1));
    c0 = _mm512_max_epi32(c0, zero);
    c1 = _mm512_min_epi32(c1, _mm512_set1_epi32(b->w - 1));
    const __m512i hy = _mm512_sub_epi32(r1, r0), wx = _mm512_sub_epi32(c1, c0);
    /* the lanes that draw: a triangle and a box with both extents >= 0 */
    const __mmask16 on = (m0 | m1) & _mm512_cmpge_epi32_mask(_mm512_or_si512(hy, wx), zero);
    if (!on)
        return true;
    const int H = _mm512_mask_reduce_max_epi32(on, hy) + 1;
    const int W = _mm512_mask_reduce_max_epi32(on, wx) + 1;
    if (H * W > 32)
        return false;
    const __m512i k256 = _mm512_set1_epi32(FIX_ONE);
    const __m512i X0 = _mm512_add_epi32(_mm512_mullo_epi32(c0, k256), h128);
    const __m512i Y0 = _mm512_add_epi32(_mm512_mullo_epi32(r0, k256), h128);

    static const int EP[5][2] = {{0, 1}, {1, 2}, {2, 0}, {1, 3}, {3, 2}};
    __m512i e[5], sx[5], sy[5];
#pragma GCC unroll 5
    for (int k = 0; k < 5; k++) {
        const __m512i dx = _mm512_sub_epi32(px[EP[k][1]], px[EP[k][0]]);
        const __m512i dy = _mm512_sub_epi32(py[EP[k][1]], py[EP[k][0]]);
        __m512i ek = _mm512_sub_epi32(_mm512_mullo_epi32(dx, _mm512_sub_epi32(Y0, py[EP[k][0]])),
                                      _mm512_mullo_epi32(dy, _mm512_sub_epi32(X0, px[EP[k][0]])));
        ek = _mm512_mask_add_epi32(ek, edge_bias16(dx, dy), ek, ones);
        __m512i sxk = _mm512_mullo_epi32(_mm512_sub_epi32(zero, dy), k256);
        __m512i syk = _mm512_mullo_epi32(dx, k256);
        if (k != 1) {
            const __mmask16 keep = k < 3 ? m0 : m1;
            ek = _mm512_mask_blend_epi32(keep, ones, ek);
            sxk = _mm512_maskz_mov_epi32(keep, sxk);
            syk = _mm512_maskz_mov_epi32(keep, syk);
        }
        e[k] = ek;
        sx[k] = sxk;
        sy[k] = syk;
    }

    const __m512 inv_fix = _mm512_set1_ps(1.0f / FIX_ONE);
    const __m512 one = _mm512_set1_ps(1.0f);
    __m512 pu[2][3], pv[2][3]; /* o, gx, gy */
    static const int TV[2][3] = {{0, 1, 2}, {1, 3, 2}};
#pragma GCC unroll 2
    for (int tri = 0; tri < 2; tri++) {
        const int ia = TV[tri][0], ib = TV[tri][1], ic = TV[tri][2];
        const __m512 fbx = _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_sub_epi32(px[ib], px[ia])), inv_fix);
        const __m512 fby = _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_sub_epi32(py[ib], py[ia])), inv_fix);
        const __m512 fcx = _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_sub_epi32(px[ic], px[ia])), inv_fix);
        const __m512 fcy = _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_sub_epi32(py[ic], py[ia])), inv_fix);
        const __m512 pax = _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_sub_epi32(px[ia], X0)), inv_fix);
        const __m512 pay = _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_sub_epi32(py[ia], Y0)), inv_fix);
        const __m512 inv = _mm512_div_ps(one, _mm512_sub_ps(_mm512_mul_ps(fbx, fcy),
                                                            _mm512_mul_ps(fby, fcx)));
#pragma GCC unroll 2
        for (int c = 0; c < 2; c++) {
            const __m512 *T = c == 0 ? tu : tv;
            const __m512 va = T[ia], vb = T[ib], vc = T[ic];
            const __m512 dd1 = _mm512_sub_ps(vb, va), dd2 = _mm512_sub_ps(vc, va);
            const __m512 gx = _mm512_mul_ps(
                _mm512_sub_ps(_mm512_mul_ps(dd1, fcy), _mm512_mul_ps(dd2, fby)), inv);
            const __m512 gy = _mm512_mul_ps(
                _mm512_sub_ps(_mm512_mul_ps(dd2, fbx), _mm512_mul_ps(dd1, fcx)), inv);
            const __m512 o = _mm512_sub_ps(_mm512_sub_ps(va, _mm512_mul_ps(gx, pax)),
                                           _mm512_mul_ps(gy, pay));
            __m512 *P = c == 0 ? pu[tri] : pv[tri];
            P[0] = o;
            P[1] = gx;
            P[2] = gy;
        }
    }

    /* The offsets, as in flat_group8; the covered lanes of each packed to
     * the queue's end by vcompress (whole-vector stores: QUEUE_CAP). */
    const __m512i at0 = _mm512_add_epi32(
        _mm512_mullo_epi32(_mm512_sub_epi32(r0, _mm512_set1_epi32(b->y0)), _mm512_set1_epi32(b->pitch)),
        c0);
    const __m512i hy1 = _mm512_add_epi32(hy, _mm512_set1_epi32(1));
    const __m512i wx1 = _mm512_add_epi32(wx, _mm512_set1_epi32(1));
    const int qn0 = q->n;
    int qn = qn0;
    __m512i lm = zero;
    int k = 0;
    for (int dy = 0; dy < H; dy++) {
        const __m512 fy = _mm512_set1_ps((float)dy);
        const __m512 yu0 = _mm512_mul_ps(pu[0][2], fy), yu1 = _mm512_mul_ps(pu[1][2], fy);
        const __m512 yv0 = _mm512_mul_ps(pv[0][2], fy), yv1 = _mm512_mul_ps(pv[1][2], fy);
        const __mmask16 rowin = on & _mm512_cmpgt_epi32_mask(hy1, _mm512_set1_epi32(dy));
        __m512i ev[5];
#pragma GCC unroll 5
        for (int j = 0; j < 5; j++)
            ev[j] = e[j];
        for (int dx = 0; dx < W; dx++, k++) {
            const __mmask16 in0 = _mm512_cmpgt_epi32_mask(
                _mm512_or_si512(_mm512_or_si512(ev[0], ev[1]), ev[2]), ones);
            const __mmask16 in1 = _mm512_movepi32_mask(
                _mm512_andnot_si512(_mm512_or_si512(ev[3], ev[4]), ev[1]));
            const __mmask16 cov =
                rowin & _mm512_cmpgt_epi32_mask(wx1, _mm512_set1_epi32(dx)) & (in0 | in1);
            if (cov) {
                const __m512 fx = _mm512_set1_ps((float)dx);
                const __m512 u0 = _mm512_add_ps(_mm512_add_ps(pu[0][0], _mm512_mul_ps(pu[0][1], fx)), yu0);
                const __m512 u1 = _mm512_add_ps(_mm512_add_ps(pu[1][0], _mm512_mul_ps(pu[1][1], fx)), yu1);
                const __m512 w0 = _mm512_add_ps(_mm512_add_ps(pv[0][0], _mm512_mul_ps(pv[0][1], fx)), yv0);
                const __m512 w1 = _mm512_add_ps(_mm512_add_ps(pv[1][0], _mm512_mul_ps(pv[1][1], fx)), yv1);
                _mm512_storeu_ps(q->u + qn, _mm512_maskz_compress_ps(cov, _mm512_mask_blend_ps(in1, u0, u1)));
                _mm512_storeu_ps(q->v + qn, _mm512_maskz_compress_ps(cov, _mm512_mask_blend_ps(in1, w0, w1)));
                _mm512_storeu_si512(q->at + qn,
                                    _mm512_maskz_compress_epi32(
                                        cov, _mm512_add_epi32(at0, _mm512_set1_epi32(dy * b->pitch + dx))));
                qn += __builtin_popcount((unsigned)cov);
                lm = _mm512_mask_or_epi32(lm, cov, lm, _mm512_set1_epi32((int)(1u << k)));
            }
#pragma GCC unroll 5
            for (int j = 0; j < 5; j++)
                ev[j] = _mm512_add_epi32(ev[j], sx[j]);
        }
#pragma GCC unroll 5
        for (int j = 0; j < 5; j++)
            e[j] = _mm512_add_epi32(e[j], sy[j]);
    }
    if (!own_pixels_once16(lm, c0, r0, wx, W, H)) {
        q->n = qn0;
        return false;
    }
    q->n = qn;
    if (qn >= QUEUE_BATCH) {
        if (wb_tex_sampler_fx8_ok(ts))
            queue_flush16(q, flat, ts);
        else
            queue_flush(q, flat, ts);
    }
    return true;
}
#endif

int wb_raster_group_owns_pixels(int lanes, const uint32_t *mask, const int32_t *c0,
                                const int32_t *r0, const int32_t *wx, int W, int H)
{
#ifdef WB_TEX_FX16
    if (lanes == 16 && wb_tex_sampler_fx16_cpu() && wb_cpu_has(WB_CPU_AVX512DQ))
        return own_pixels_once16_a(mask, c0, r0, wx, W, H);
#endif
#ifdef WB_RASTER_AVX2
    if (lanes == 8 && wb_cpu_has(WB_CPU_AVX2))
        return own_pixels_once_a(mask, c0, r0, wx, W, H);
#endif
    (void)lanes, (void)mask, (void)c0, (void)r0, (void)wx, (void)W, (void)H;
    return -1;
}
