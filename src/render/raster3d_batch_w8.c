/* raster3d_batch_w8.c — run_4_rgba_opaque with eight triangles set up per
 * AVX2 vector (see raster3d.c for the stages).  Built with the 8-lane
 * target flags (core/simd.h), so no target attributes here. */
#include "render/raster3d_internal.h"

#if defined(BATCH8) && defined(__AVX2__)
/* ---- eight triangles per vector (AVX2) ---------------------------------------
 *
 * run_4_rgba_opaque's triangles, set up eight at a time: each lane does
 * draw_tri's and raster_tri's integer and float operations for one
 * triangle, in the same order (IEEE single, no FMA; int32 where raster_tri's
 * narrow path uses int32 and where its int64 values provably fit), so a
 * lane's box, edge values, steps and planes are raster_tri's bits.  Then
 * each lane's triangle is drawn from the lane data by the core's narrow
 * loop (tri_walk_narrow4).
 * Lanes raster_tri would not draw by that loop (clipped or wide
 * triangles) are drawn by the one-at-a-time code, in their turn: the
 * triangles are drawn in bin order either way. */

/* One lane's results, laid out for the per-triangle loop. */
typedef struct Lanes8 {
    int32_t v[3][8];           /* corner vertices, counter-clockwise */
    int32_t r0[8], r1[8], c0[8], c1[8];
    int32_t sx[3][8], sy[3][8];
    int32_t ev[3][8][4];       /* edge k at the first pixel's four samples, per lane */
    float dq[8][4];
    float bx[8], by[8], cx[8], cy[8], pax[8], pay[8], inv[8];
    float po[8], pgx[8], pgy[8], qfloor[8];
    float q[3][8];
} Lanes8;

/* Set up bins[0..n) (1 ≤ n ≤ 8) into L.  *fast: lanes to draw from L;
 * *slow: lanes for the one-at-a-time code; other lanes draw nothing
 * (raster_tri returns early for them: zero area or no pixel in the band). */
static void setup8(const Band *b, const TriCtx *tc,
                                                   const Bin *bins, int n, Lanes8 *L,
                                                   unsigned *fast, unsigned *slow)
{
    const EndCtx *ctx = b->ctx;
    const unsigned valid = (1u << n) - 1u;
    const __m256i zero = _mm256_setzero_si256();
    /* Corners: indices, then each vertex's fx, fy, q, out (16 bytes of its
     * Vtx) transposed into lanes (gathers are slow on AMD). */
    int32_t vi[3][8];
    __m128i raw[3][8];
    unsigned clip = 0;
    for (int l = 0; l < 8; l++) {
        /* idle lanes repeat lane 0 */
        const Bin *bn = &bins[l < n ? l : 0];
        clip |= (bn->cmd_flags & TRI_CLIP ? 1u : 0u) << l;
        const uint32_t *f = tc->cmd->m.indices + 3 * (size_t)bn->tri;
        for (int k = 0; k < 3; k++) {
            vi[k][l] = (int32_t)f[k];
            raw[k][l] = _mm_loadu_si128((const __m128i *)(const void *)&tc->vtx[f[k]].fx);
        }
    }
    __m256i vx[3], vy[3], v[3];
    __m256 vq[3];
    for (int k = 0; k < 3; k++) {
        __m256i y[4];
        for (int j = 0; j < 4; j++)
            y[j] = _mm256_inserti128_si256(_mm256_castsi128_si256(raw[k][j]), raw[k][j + 4], 1);
        /* fx fy q out of lanes j | j + 4 → one vector per field */
        const __m256i a = _mm256_unpacklo_epi32(y[0], y[1]), b2 = _mm256_unpacklo_epi32(y[2], y[3]);
        const __m256i c = _mm256_unpackhi_epi32(y[0], y[1]), d = _mm256_unpackhi_epi32(y[2], y[3]);
        vx[k] = _mm256_unpacklo_epi64(a, b2);
        vy[k] = _mm256_unpackhi_epi64(a, b2);
        vq[k] = _mm256_castsi256_ps(_mm256_unpacklo_epi64(c, d));
        v[k] = _mm256_loadu_si256((const __m256i *)vi[k]);
    }
    __m256i v0 = v[0], v1 = v[1], v2 = v[2];
    const __m256i x0 = vx[0], y0 = vy[0];
    __m256i x1 = vx[1], y1 = vy[1], x2 = vx[2], y2 = vy[2];
    const __m256 q0 = vq[0];
    __m256 q1 = vq[1], q2 = vq[2];
    /* The box, and raster_tri's narrow test (wide lanes go the slow way,
     * so below every difference is at most 2^14 and int32 is exact). */
    const __m256i xmin = _mm256_min_epi32(_mm256_min_epi32(x0, x1), x2);
    const __m256i xmax = _mm256_max_epi32(_mm256_max_epi32(x0, x1), x2);
    const __m256i ymin = _mm256_min_epi32(_mm256_min_epi32(y0, y1), y2);
    const __m256i ymax = _mm256_max_epi32(_mm256_max_epi32(y0, y1), y2);
    const __m256i lim = _mm256_set1_epi32(NARROW_FIX);
    const __m256i wide = _mm256_or_si256(_mm256_cmpgt_epi32(_mm256_sub_epi32(xmax, xmin), lim),
                                         _mm256_cmpgt_epi32(_mm256_sub_epi32(ymax, ymin), lim));
    /* Area (|products| ≤ 2^28), and the swap making it counter-clockwise. */
    const __m256i area = _mm256_sub_epi32(
        _mm256_mullo_epi32(_mm256_sub_epi32(x1, x0), _mm256_sub_epi32(y2, y0)),
        _mm256_mullo_epi32(_mm256_sub_epi32(y1, y0), _mm256_sub_epi32(x2, x0)));
    const __m256i sw = _mm256_cmpgt_epi32(zero, area);
    {
        const __m256i tx = x1, ty = y1, tv = v1;
        x1 = _mm256_blendv_epi8(x1, x2, sw);
        x2 = _mm256_blendv_epi8(x2, tx, sw);
        y1 = _mm256_blendv_epi8(y1, y2, sw);
        y2 = _mm256_blendv_epi8(y2, ty, sw);
        v1 = _mm256_blendv_epi8(v1, v2, sw);
        v2 = _mm256_blendv_epi8(v2, tv, sw);
        const __m256 swf = _mm256_castsi256_ps(sw), tq = q1;
        q1 = _mm256_blendv_ps(q1, q2, swf);
        q2 = _mm256_blendv_ps(q2, tq, swf);
    }
    /* pixel_span (|coordinates| < 2^28: the arithmetic shift is the floor
     * division), clamped to the band and the image. */
    __m256i r0 = _mm256_sub_epi32(
        zero, _mm256_srai_epi32(_mm256_sub_epi32(_mm256_set1_epi32(FIX_HALF + ctx->pat.omax_y), ymin), 8));
    __m256i r1 = _mm256_srai_epi32(_mm256_sub_epi32(ymax, _mm256_set1_epi32(FIX_HALF + ctx->pat.omin_y)), 8);
    __m256i c0 = _mm256_sub_epi32(
        zero, _mm256_srai_epi32(_mm256_sub_epi32(_mm256_set1_epi32(FIX_HALF + ctx->pat.omax_x), xmin), 8));
    __m256i c1 = _mm256_srai_epi32(_mm256_sub_epi32(xmax, _mm256_set1_epi32(FIX_HALF + ctx->pat.omin_x)), 8);
    r0 = _mm256_max_epi32(r0, _mm256_set1_epi32(b->y0));
    r1 = _mm256_min_epi32(r1, _mm256_set1_epi32(b->y1 - 1));
    c0 = _mm256_max_epi32(c0, zero);
    c1 = _mm256_min_epi32(c1, _mm256_set1_epi32(b->w - 1));
    const __m256i none = _mm256_or_si256(
        _mm256_or_si256(_mm256_cmpgt_epi32(r0, r1), _mm256_cmpgt_epi32(c0, c1)),
        _mm256_cmpeq_epi32(area, zero));
    const unsigned widem = (unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(wide));
    const unsigned nonem = (unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(none));
    *slow = (clip | widem) & valid;
    *fast = ~(clip | widem | nonem) & valid;
    if (!*fast)
        return;
    /* Planes of q in px relative to corner 0 and the first pixel centre. */
    const __m256i X0 = _mm256_add_epi32(_mm256_slli_epi32(c0, 8), _mm256_set1_epi32(FIX_HALF));
    const __m256i Y0 = _mm256_add_epi32(_mm256_slli_epi32(r0, 8), _mm256_set1_epi32(FIX_HALF));
    const __m256 k = _mm256_set1_ps(1.0f / FIX_ONE);
    const __m256 bx = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_sub_epi32(x1, x0)), k);
    const __m256 by = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_sub_epi32(y1, y0)), k);
    const __m256 cx = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_sub_epi32(x2, x0)), k);
    const __m256 cy = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_sub_epi32(y2, y0)), k);
    const __m256 pax = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_sub_epi32(x0, X0)), k);
    const __m256 pay = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_sub_epi32(y0, Y0)), k);
    const __m256 inv = _mm256_div_ps(_mm256_set1_ps(1.0f),
                                     _mm256_sub_ps(_mm256_mul_ps(bx, cy), _mm256_mul_ps(by, cx)));
    const __m256 d1 = _mm256_sub_ps(q1, q0), d2 = _mm256_sub_ps(q2, q0);
    const __m256 gx = _mm256_mul_ps(_mm256_sub_ps(_mm256_mul_ps(d1, cy), _mm256_mul_ps(d2, by)), inv);
    const __m256 gy = _mm256_mul_ps(_mm256_sub_ps(_mm256_mul_ps(d2, bx), _mm256_mul_ps(d1, cx)), inv);
    const __m256 po = _mm256_sub_ps(_mm256_sub_ps(q0, _mm256_mul_ps(gx, pax)), _mm256_mul_ps(gy, pay));
    const __m256 qmin = _mm256_min_ps(q2, _mm256_min_ps(q0, q1));
    _mm256_storeu_ps(L->qfloor, _mm256_mul_ps(_mm256_set1_ps(0.5f), qmin));
    __m256i a4[4];
    for (int s = 0; s < 4; s++)
        a4[s] = _mm256_castps_si256(
            _mm256_add_ps(_mm256_mul_ps(gx, _mm256_set1_ps(ctx->pat.sx[s])),
                          _mm256_mul_ps(gy, _mm256_set1_ps(ctx->pat.sy[s]))));
    transpose_4x8(a4, (int32_t(*)[4])(void *)L->dq);
    /* Edges k: corner k → corner k + 1 (raster_tri's narrow setup). */
    const __m256i ex[3] = {x0, x1, x2}, ey[3] = {y0, y1, y2};
    for (int e = 0; e < 3; e++) {
        const __m256i px = ex[e], py = ey[e], qx = ex[e == 2 ? 0 : e + 1], qy = ey[e == 2 ? 0 : e + 1];
        const __m256i dx = _mm256_sub_epi32(qx, px), dy = _mm256_sub_epi32(qy, py);
        const __m256i e0 = _mm256_add_epi32(
            _mm256_sub_epi32(_mm256_mullo_epi32(dx, _mm256_sub_epi32(Y0, py)),
                             _mm256_mullo_epi32(dy, _mm256_sub_epi32(X0, px))),
            edge_bias8(dx, dy));
        _mm256_storeu_si256((__m256i *)L->sx[e], _mm256_slli_epi32(_mm256_sub_epi32(zero, dy), 8));
        _mm256_storeu_si256((__m256i *)L->sy[e], _mm256_slli_epi32(dx, 8));
        const __m256 fdx = _mm256_cvtepi32_ps(dx), fdy = _mm256_cvtepi32_ps(dy);
        for (int s = 0; s < 4; s++)
            a4[s] = _mm256_add_epi32(
                e0, _mm256_cvttps_epi32(_mm256_sub_ps(_mm256_mul_ps(fdx, _mm256_set1_ps(ctx->pat.fy[s])),
                                                      _mm256_mul_ps(fdy, _mm256_set1_ps(ctx->pat.fx[s])))));
        transpose_4x8(a4, L->ev[e]);
    }
    _mm256_storeu_si256((__m256i *)L->v[0], v0);
    _mm256_storeu_si256((__m256i *)L->v[1], v1);
    _mm256_storeu_si256((__m256i *)L->v[2], v2);
    _mm256_storeu_si256((__m256i *)L->r0, r0);
    _mm256_storeu_si256((__m256i *)L->r1, r1);
    _mm256_storeu_si256((__m256i *)L->c0, c0);
    _mm256_storeu_si256((__m256i *)L->c1, c1);
    _mm256_storeu_ps(L->bx, bx);
    _mm256_storeu_ps(L->by, by);
    _mm256_storeu_ps(L->cx, cx);
    _mm256_storeu_ps(L->cy, cy);
    _mm256_storeu_ps(L->pax, pax);
    _mm256_storeu_ps(L->pay, pay);
    _mm256_storeu_ps(L->inv, inv);
    _mm256_storeu_ps(L->po, po);
    _mm256_storeu_ps(L->pgx, gx);
    _mm256_storeu_ps(L->pgy, gy);
    _mm256_storeu_ps(L->q[0], q0);
    _mm256_storeu_ps(L->q[1], q1);
    _mm256_storeu_ps(L->q[2], q2);
}

/* run_4_rgba_opaque for a fold command, eight triangles set up at once. */
void wb_raster3d_run_4_rgba_opaque8(Band *b, const TriCtx *tc,
                                                               const Bin *bins, size_t i0,
                                                               size_t i1)
{
    const Cmd *cmd = tc->cmd;
    const size_t stride = 4 * (size_t)cmd->fold_sides;
    /* corner_attr's record: the back face's is the second of two */
    const float *attr[2] = {tc->attr, tc->attr + (cmd->fold_sides == 2 ? 4 : 0)};
    Lanes8 L;
    Shade sh;
    sh.flat = tc->flat;
    sh.opacity = tc->opacity;
    Walk3 w = walk3(b, &sh);
    for (size_t i = i0; i < i1; i += 8) {
        const int n = i1 - i < 8 ? (int)(i1 - i) : 8;
        unsigned fast, slow;
        setup8(b, tc, bins + i, n, &L, &fast, &slow);
        for (unsigned todo = fast | slow; todo; todo &= todo - 1) {
            const int l = __builtin_ctz(todo);
            if (slow >> l & 1u) {
                wb_raster3d_run_4_rgba_opaque(b, tc, bins, i + (size_t)l, i + (size_t)l + 1);
                continue;
            }
            const float *a = attr[bins[i + (size_t)l].cmd_flags & TRI_BACK ? 1 : 0];
            sh.pq = (Plane){L.po[l], L.pgx[l], L.pgy[l]};
            sh.qfloor = L.qfloor[l];
            _mm_storeu_ps(sh.dq, _mm_loadu_ps(L.dq[l]));
            rgba_planes(&sh, a + stride * (size_t)L.v[0][l], a + stride * (size_t)L.v[1][l],
                        a + stride * (size_t)L.v[2][l], L.q[0][l], L.q[1][l], L.q[2][l], L.bx[l],
                        L.by[l], L.cx[l], L.cy[l], L.inv[l], L.pax[l], L.pay[l]);
            __m128i ev[3], sxv[3], syv[3];
            for (int e = 0; e < 3; e++) {
                ev[e] = _mm_loadu_si128((const __m128i *)L.ev[e][l]);
                sxv[e] = _mm_set1_epi32(L.sx[e][l]);
                syv[e] = _mm_set1_epi32(L.sy[e][l]);
            }
            const TriBox t = {.r0 = L.r0[l], .r1 = L.r1[l], .c0 = L.c0[l], .c1 = L.c1[l]};
            tri_walk_narrow4(&t, ev, sxv, syv, b->y0, (size_t)b->w * 4, &w, walk3_row,
                             walk3_pixel, MODE_RGBA, PASS_OPAQUE);
        }
    }
}
#endif

