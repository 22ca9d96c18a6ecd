/* cloth_kernels_particles.c — the per-particle kernels, per lane width.
 *
 * Passes in which no particle's result depends on another's, W consecutive
 * particles at a time: the body push-out and friction (cloth_bodies.c), the
 * prediction (cloth.c), the stretch limit's row test and its row-order
 * settling (cloth_stretch.c), and the face and vertex normals
 * (cloth_normals.c).  Per lane the operations are those of the scalar code,
 * so the width changes no result.
 */
#include "sim/cloth_kernels.h"

/* Each lane's bucket mask of spheres, for the collision passes below: m[l] =
 * bucket[idx[l]] for the live lanes l, 0 for the others; the gather returns
 * the union of the masks, and has(k) the lanes whose mask holds sphere k.
 * At 4 and 8 lanes the masks are read lane by lane: AVX2's 64-bit gathers
 * take fewer instructions but were slower than this loop.  A dead lane's
 * bucket is not read at all (a branch, which beat loading every lane's
 * bucket and masking it).  Figures in bench/NOTES.md. */
#define DEFINE_LANE_MASKS(VI, PFX, W, ATTR)                                                \
    typedef struct PFX##_Masks {                                                          \
        uint64_t m[W];                                                                     \
    } PFX##_Masks;                                                                        \
    static inline ATTR uint64_t PFX##_gather_masks(const uint64_t *bucket, VI idx, VI live, \
                                                   PFX##_Masks *ms)                       \
    {                                                                                     \
        uint64_t uni = 0;                                                                 \
        for (int l = 0; l < W; l++) {                                                     \
            ms->m[l] = live[l] ? bucket[idx[l]] : 0;                                      \
            uni |= ms->m[l];                                                              \
        }                                                                                 \
        return uni;                                                                       \
    }                                                                                     \
    static inline ATTR VI PFX##_has(const PFX##_Masks *ms, int k)                         \
    {                                                                                     \
        VI h;                                                                             \
        for (int l = 0; l < W; l++)                                                       \
            h[l] = -(int32_t)((ms->m[l] >> k) & 1u);                                      \
        return h;                                                                         \
    }
DEFINE_LANE_MASKS(v4i, v4, 4, NO_TARGET)
#ifdef WB_CLOTH_AVX2
DEFINE_LANE_MASKS(v8i, v8, 8, AVX2)

/* At 16 lanes, two masked gathers of eight 64-bit masks each (a dead lane
 * reads nothing), and has(k) one bit test per half into a mask register:
 * quicker than the lane loop here, more so with the next block's masks
 * looked up before this one's spheres are walked (see PFX_look). */
typedef struct v16_Masks {
    __m512i lo, hi; /* lanes 0-7 and 8-15 */
} v16_Masks;
static inline AVX512 uint64_t v16_gather_masks(const uint64_t *bucket, v16i idx, v16i live,
                                               v16_Masks *ms)
{
    __mmask16 lv = _mm512_test_epi32_mask((__m512i)live, (__m512i)live);
    const __m512i zero = _mm512_setzero_si512();
    ms->lo = _mm512_mask_i32gather_epi64(zero, (__mmask8)lv,
                                         _mm512_castsi512_si256((__m512i)idx), bucket, 8);
    ms->hi = _mm512_mask_i32gather_epi64(zero, (__mmask8)(lv >> 8),
                                         _mm512_extracti64x4_epi64((__m512i)idx, 1), bucket, 8);
    return (uint64_t)_mm512_reduce_or_epi64(_mm512_or_si512(ms->lo, ms->hi));
}
static inline AVX512 v16i v16_has(const v16_Masks *ms, int k)
{
    __m512i bit = _mm512_set1_epi64((long long)(1ull << k));
    __mmask16 h = (__mmask16)(_mm512_test_epi64_mask(ms->lo, bit) |
                              (_mm512_test_epi64_mask(ms->hi, bit) << 8));
    return (v16i)_mm512_maskz_set1_epi32(h, -1);
}
#endif

/* ------------------------------------------------ bodies, lanes of particles
 *
 * The collision passes are per particle (no particle's result depends on
 * another's), so W consecutive particles go together: each lane keeps its
 * own bucket's sphere mask, the spheres of the union of the masks are
 * walked in ascending order (the order of a bucket's pack) and a sphere
 * acts on the lanes whose bucket holds it and which it reaches.  Per lane
 * these are exactly the operations of the one-particle code (push_spheres()
 * and friction_spheres() in cloth_bodies.c: a sphere outside a lane's
 * bucket, or out of its reach, leaves it unchanged), so the result does not
 * depend on the lane width; only the branches go: a sphere no lane reaches
 * costs a test of all lanes at once. */
#define DEFINE_COLLIDE(VF, VI, PFX, W, ATTR, ANY)                                         \
    static inline ATTR VI PFX##_inb(const WbClothState *s, VF x, VF y, VF z)              \
    {                                                                                     \
        return (x >= PFX##_set(s->body_lo[0])) & (x <= PFX##_set(s->body_hi[0])) &        \
               (y >= PFX##_set(s->body_lo[1])) & (y <= PFX##_set(s->body_hi[1])) &        \
               (z >= PFX##_set(s->body_lo[2])) & (z <= PFX##_set(s->body_hi[2]));         \
    }                                                                                     \
    /* Each live lane's bucket mask (0 for the others); returns their union. */           \
    static inline ATTR uint64_t PFX##_masks(const WbClothState *s, VI live, VF x, VF y,   \
                                            PFX##_Masks *m)                               \
    {                                                                                     \
        VI bx = __builtin_convertvector((x - PFX##_set(s->body_lo[0])) *                  \
                                            PFX##_set(s->bucket_inv[0]), VI);             \
        VI by = __builtin_convertvector((y - PFX##_set(s->body_lo[1])) *                  \
                                            PFX##_set(s->bucket_inv[1]), VI);             \
        /* clamped to the grid and made an index, all lanes at once */                    \
        bx &= ~(bx < 0);                                                                  \
        by &= ~(by < 0);                                                                  \
        VI hx = bx > WB_CLOTH_BUCKETS_X - 1, hy = by > WB_CLOTH_BUCKETS_Y - 1;            \
        bx = (bx & ~hx) | (hx & (WB_CLOTH_BUCKETS_X - 1));                                \
        by = (by & ~hy) | (hy & (WB_CLOTH_BUCKETS_Y - 1));                                \
        VI idx = by * WB_CLOTH_BUCKETS_X + bx;                                            \
        return PFX##_gather_masks(s->bucket, idx, live, m);                               \
    }                                                                                     \
    typedef struct PFX##_Look {                                                           \
        PFX##_Masks m;                                                                    \
        uint64_t u; /* union of the live lanes' masks, 0 when none is live */             \
    } PFX##_Look;                                                                         \
    /* the block's sphere masks, looked up one block ahead of its walk: the walk's      \
     * branches (a sphere no lane reaches is skipped) would otherwise stall the          \
     * lookup of the next block behind them */                                           \
    static inline ATTR __attribute__((always_inline)) void PFX##_look(                    \
        const WbClothState *s, int p0, PFX##_Look *lk)                                    \
    {                                                                                     \
        VF x = PFX##_ld(s->x + p0), y = PFX##_ld(s->y + p0), z = PFX##_ld(s->z + p0);     \
        VI live = (PFX##_ld(s->w + p0) > PFX##_set(0.0f)) & PFX##_inb(s, x, y, z);        \
        lk->u = ANY(live) ? PFX##_masks(s, live, x, y, &lk->m) : 0;                       \
    }                                                                                     \
    /* push_spheres() for particles p0 .. p0+W−1; vt holds, per sphere k, its             \
     * centre vt[0..2][k], r + margin vt[3][k] and (r + margin)² vt[4][k], each            \
     * spread over the lanes (the same floats the scalar code computes) */                \
    static inline ATTR __attribute__((always_inline)) void PFX##_push_block(              \
        WbClothState *s, int p0, const VF (*vt)[WB_CLOTH_MAX_SPHERES],                    \
        const PFX##_Look *lk)                                                             \
    {                                                                                     \
        if (!lk->u)                                                                       \
            return;                                                                       \
        VF x = PFX##_ld(s->x + p0), y = PFX##_ld(s->y + p0), z = PFX##_ld(s->z + p0);     \
        const PFX##_Masks *mp = &lk->m;                                                   \
        for (uint64_t u = lk->u; u; u &= u - 1) {                                         \
            int k = __builtin_ctzll(u);                                                   \
            VF cx = vt[0][k], cy = vt[1][k], cz = vt[2][k];                               \
            VF dx = x - cx, dy = y - cy, dz = z - cz;                                     \
            VF d2 = dx * dx + dy * dy + dz * dz;                                          \
            VI hit = d2 < vt[4][k];                                                       \
            if (!ANY(hit))                                                                \
                continue;                                                                 \
            hit &= (d2 > PFX##_set(1e-18f)) & PFX##_has(mp, k);                           \
            VF r = vt[3][k];                                                              \
            VF f = r / PFX##_sqrt(d2);                                                    \
            x = PFX##_sel(hit, cx + dx * f, x);                                           \
            y = PFX##_sel(hit, cy + dy * f, y);                                           \
            z = PFX##_sel(hit, cz + dz * f, z);                                           \
        }                                                                                 \
        PFX##_st(s->x + p0, x);                                                           \
        PFX##_st(s->y + p0, y);                                                           \
        PFX##_st(s->z + p0, z);                                                           \
    }                                                                                     \
    /* friction_spheres() for particles p0 .. p0+W−1 */                                   \
    static inline ATTR __attribute__((always_inline)) void PFX##_friction_block(          \
        WbClothState *s, int p0, const VF (*vt)[WB_CLOTH_MAX_SPHERES],                    \
        float mu, float gdt2, const PFX##_Look *lk)                                       \
    {                                                                                     \
        if (!lk->u)                                                                       \
            return;                                                                       \
        VF x = PFX##_ld(s->x + p0), y = PFX##_ld(s->y + p0), z = PFX##_ld(s->z + p0);     \
        VF px = PFX##_ld(s->px + p0), py = PFX##_ld(s->py + p0), pz = PFX##_ld(s->pz + p0); \
        const VF zero = PFX##_set(0.0f);                                                  \
        VI cont = PFX##_ld(s->w + p0) > zero;                                             \
        PFX##_Look again;                                                                 \
        for (int round = 0; round < 4; round++) {                                         \
            VI hits = cont & ~cont;                                                       \
            if (round > 0) {                                                              \
                VI live = cont & PFX##_inb(s, x, y, z);                                   \
                if (!ANY(live))                                                           \
                    break;                                                                \
                again.u = PFX##_masks(s, live, x, y, &again.m);                           \
                lk = &again;                                                              \
            }                                                                             \
            const PFX##_Masks *mp = &lk->m;                                               \
            for (uint64_t u = lk->u; u; u &= u - 1) {                                     \
                int k = __builtin_ctzll(u);                                               \
                VF cx = vt[0][k], cy = vt[1][k],                                          \
                   cz = vt[2][k];                                                         \
                VF dx = x - cx, dy = y - cy, dz = z - cz;                                 \
                VF d2 = dx * dx + dy * dy + dz * dz;                                      \
                VI reach = d2 < vt[4][k];                                                 \
                if (!ANY(reach))                                                          \
                    continue;                                                             \
                reach &= (d2 > PFX##_set(1e-18f)) & PFX##_has(mp, k);                     \
                VF d = PFX##_sqrt(d2), r = vt[3][k];                                      \
                VF nx = dx / d, ny = dy / d, nz = dz / d;                                 \
                VF depth = r - d;                                                         \
                VI push = reach & (depth > zero);                                         \
                x = PFX##_sel(push, cx + nx * r, x);                                      \
                y = PFX##_sel(push, cy + ny * r, y);                                      \
                z = PFX##_sel(push, cz + nz * r, z);                                      \
                hits |= push;                                                             \
                depth = PFX##_sel(push, depth, zero);                                     \
                /* contact_friction() */                                                  \
                VF vx = x - px, vy = y - py, vz = z - pz;                                 \
                VF vn = vx * nx + vy * ny + vz * nz;                                      \
                VF tx = vx - vn * nx, ty = vy - vn * ny, tz = vz - vn * nz;               \
                VF load = PFX##_set(gdt2) * ny;                                           \
                load = PFX##_sel(load < zero, zero, load);                                \
                VF limit = PFX##_set(WB_CLOTH_STATIC_RATIO * mu) * (load + depth);        \
                VF keep = PFX##_sel(tx * tx + ty * ty + tz * tz <= limit * limit, zero,   \
                                    PFX##_set(1.0f - mu));                                \
                px = PFX##_sel(reach, x - tx * keep, px);                                 \
                py = PFX##_sel(reach, y - ty * keep, py);                                 \
                pz = PFX##_sel(reach, z - tz * keep, pz);                                 \
            }                                                                             \
            cont = hits;                                                                  \
        }                                                                                 \
        PFX##_st(s->x + p0, x);                                                           \
        PFX##_st(s->y + p0, y);                                                           \
        PFX##_st(s->z + p0, z);                                                           \
        PFX##_st(s->px + p0, px);                                                         \
        PFX##_st(s->py + p0, py);                                                         \
        PFX##_st(s->pz + p0, pz);                                                         \
    }                                                                                     \
    /* the whole blocks from particle i on, in one function (a call per block             \
     * costs a share of the passes' instructions), with the sphere table spread over      \
     * the lanes once (the very floats, so the tests read them from memory                \
     * instead of broadcasting each time); both return where they stopped */              \
    static ATTR void PFX##_spread(const WbClothState *s, float (*sph)[5],                 \
                                  VF (*vt)[WB_CLOTH_MAX_SPHERES])                         \
    {                                                                                     \
        for (int k = 0; k < s->n_spheres; k++)                                            \
            for (int c = 0; c < 5; c++)                                                   \
                vt[c][k] = PFX##_set(sph[k][c]);                                          \
    }                                                                                     \
    /* (each block's masks are looked up while the one before is walked) */          \
    static inline ATTR __attribute__((always_inline)) int PFX##_bodies_all(               \
        WbClothState *s, int i, float (*sph)[5], bool friction, float mu, float gdt2)     \
    {                                                                                     \
        VF vt[5][WB_CLOTH_MAX_SPHERES];                                                   \
        PFX##_spread(s, sph, vt);                                                         \
        const VF(*cvt)[WB_CLOTH_MAX_SPHERES] = (const VF(*)[WB_CLOTH_MAX_SPHERES])vt;     \
        PFX##_Look lk[2];                                                                 \
        if (i + W <= s->n)                                                                \
            PFX##_look(s, i, &lk[0]);                                                     \
        for (int c = 0; i + W <= s->n; i += W, c ^= 1) {                                  \
            if (i + 2 * W <= s->n)                                                        \
                PFX##_look(s, i + W, &lk[c ^ 1]);                                         \
            if (friction)                                                                 \
                PFX##_friction_block(s, i, cvt, mu, gdt2, &lk[c]);                        \
            else                                                                          \
                PFX##_push_block(s, i, cvt, &lk[c]);                                      \
        }                                                                                 \
        return i;                                                                         \
    }                                                                                     \
    ATTR int wb_cloth_##PFX##_push_all(WbClothState *s, int i, float (*sph)[5])           \
    {                                                                                     \
        return PFX##_bodies_all(s, i, sph, false, 0.0f, 0.0f);                            \
    }                                                                                     \
    ATTR int wb_cloth_##PFX##_friction_all(WbClothState *s, int i, float (*sph)[5],       \
                                           float mu, float gdt2)                          \
    {                                                                                     \
        return PFX##_bodies_all(s, i, sph, true, mu, gdt2);                               \
    }

DEFINE_COLLIDE(v4f, v4i, v4, 4, NO_TARGET, V4_ANY)
#ifdef WB_CLOTH_AVX2
DEFINE_COLLIDE(v8f, v8i, v8, 8, AVX2, V8_ANY)
DEFINE_COLLIDE(v16f, v16i, v16, 16, AVX512, V16_ANY)
#endif

/* predict() for particles i, i + 1, ... of one row, W at a time (the same
 * operations as its scalar loop, so the same result); returns where it
 * stopped.  Held particles (w <= 0) keep x; every particle gets px = x. */
#define DEFINE_PREDICT(VF, VI, PFX, W, ATTR)                                              \
    ATTR int wb_cloth_##PFX##_predict_row(WbClothState *s, int row0, int i,               \
                                          const float c[9], int wind)                     \
    {                                                                                     \
        const VF zero = PFX##_set(0.0f), damp = PFX##_set(c[0]);                          \
        for (; i + W <= s->nx; i += W) {                                                  \
            int p = row0 + i;                                                             \
            VF x = PFX##_ld(s->x + p), y = PFX##_ld(s->y + p), z = PFX##_ld(s->z + p);    \
            VI move = PFX##_ld(s->w + p) > zero;                                          \
            VF ax = zero, ay = PFX##_set(c[1]), az = zero;                                \
            if (wind) {                                                                   \
                VF gust = PFX##_set(c[5]) +                                               \
                          PFX##_set(0.4f) * (PFX##_set(c[6]) * PFX##_ld(s->wind_cu + i) + \
                                             PFX##_set(c[7]) * PFX##_ld(s->wind_su + i)); \
                ax += PFX##_set(c[2]) * gust;                                             \
                ay += PFX##_set(c[3]) * gust;                                             \
                az += PFX##_set(c[4]) * gust;                                             \
            }                                                                             \
            VF vx = (x - PFX##_ld(s->px + p)) * damp, vy = (y - PFX##_ld(s->py + p)) * damp, \
               vz = (z - PFX##_ld(s->pz + p)) * damp;                                     \
            PFX##_st(s->px + p, x);                                                       \
            PFX##_st(s->py + p, y);                                                       \
            PFX##_st(s->pz + p, z);                                                       \
            PFX##_st(s->x + p, PFX##_sel(move, x + vx + ax, x));                          \
            PFX##_st(s->y + p, PFX##_sel(move, y + vy + ay, y));                          \
            PFX##_st(s->z + p, PFX##_sel(move, z + vz + az, z));                          \
        }                                                                                 \
        return i;                                                                         \
    }
DEFINE_PREDICT(v4f, v4i, v4, 4, NO_TARGET)
#ifdef WB_CLOTH_AVX2
DEFINE_PREDICT(v8f, v8i, v8, 8, AVX2)
DEFINE_PREDICT(v16f, v16i, v16, 16, AVX512)
#endif

/* Rows j0 .. j0+nr−1 (nr <= 4), each in sequence (dir = +1: left to right,
 * −1: back), side by side: rows share no horizontal link, so their
 * sequential chains (a square root and a division per acting link) are
 * independent and overlap.  W links of every row are tested at once
 * first: none over the limit (the usual case) means none of them acts,
 * exactly as the sequential tests would find; otherwise each of the W is
 * taken in turn and tests itself, so the width changes nothing.  Starts at
 * link k (counted from the start of the direction); returns where the whole
 * groups of W end. */
#define DEFINE_CLAMP_ROWS(VF, PFX, W, ATTR, ANY)                                          \
    ATTR int wb_cloth_##PFX##_clamp_rows(WbClothState *s, int j0, int nr, float lim,      \
                                         int dir, int k)                                  \
    {                                                                                     \
        const int nx = s->nx, nl = nx - 1;                                                \
        const float lim2 = lim * lim;                                                     \
        const float *x = s->x, *y = s->y, *z = s->z;                                      \
        for (; k + W <= nl; k += W) {                                                     \
            int over = 0;                                                                 \
            for (int r = 0; r < nr; r++) {                                                \
                int lo = (j0 + r) * nx + (dir > 0 ? k : nl - W - k);                      \
                VF dx = PFX##_ld(x + lo + 1) - PFX##_ld(x + lo),                          \
                   dy = PFX##_ld(y + lo + 1) - PFX##_ld(y + lo),                          \
                   dz = PFX##_ld(z + lo + 1) - PFX##_ld(z + lo);                          \
                over |= ANY((dx * dx + dy * dy + dz * dz) > PFX##_set(lim2));             \
            }                                                                             \
            if (!over)                                                                    \
                continue;                                                                 \
            for (int q = k; q < k + W; q++) {                                             \
                for (int r = 0; r < nr; r++)                                              \
                    clamp_link(s, (j0 + r) * nx + (dir > 0 ? q : nl - 1 - q), lim, lim2); \
            }                                                                             \
        }                                                                                 \
        return k;                                                                         \
    }
DEFINE_CLAMP_ROWS(v4f, v4, 4, NO_TARGET, V4_ANY)
#ifdef WB_CLOTH_AVX2
DEFINE_CLAMP_ROWS(v8f, v8, 8, AVX2, V8_ANY)
DEFINE_CLAMP_ROWS(v16f, v16, 16, AVX512, V16_ANY)
#endif

/* The same order row by row, one particle at a time.  WIDE (AVX2) tests
 * eight particles at once first, then four: the test of a group is exact
 * at any width (none of them moves iff every link to a leader is within the
 * limit), so the width only changes how far one test skips (fewer
 * instructions for the ordered pass with 8). */
#define DEFINE_SETTLE_ROWS(NAME, ATTR, WIDE)                                               \
    ATTR int wb_cloth_##NAME(WbClothState *s, int i0, int j0, float lim_h, float lim_v)   \
    {                                                                                     \
        const int nx = s->nx, ny = s->ny;                                                 \
        const float *x = s->x, *y = s->y, *z = s->z;                                      \
        const float lh2 = lim_h * lim_h, lv2 = lim_v * lim_v;                             \
        int moved = 0;                                                                    \
        for (int q = 0; q < 4; q++) {                                                     \
            const int si = q & 1 ? -1 : 1, sj = q & 2 ? -1 : 1;                           \
            for (int j = j0; j >= 0 && j < ny; j += sj) {                                 \
                if (j == j0) { /* the start row: one leader each, in the row */          \
                    for (int i = i0 + si; i >= 0 && i < nx; i += si) {                    \
                        const int p = j * nx + i, nb[1] = {p - si};                       \
                        const float lim[1] = {lim_h};                                     \
                        moved += wb_cloth_settle_with(s, p, nb, lim, 1);                           \
                    }                                                                     \
                    continue;                                                             \
                }                                                                         \
                for (int i = i0; i >= 0 && i < nx; i += si) {                             \
                    /* particles whose links to their leaders (left or right, and   \
                     * the row before) are all within the limit at once: none of    \
                     * them moves, as settling each in turn would find, so the     \
                     * usual case costs one vector test */                                \
                    WIDE                                                                  \
                    int last = i + 3 * si;                                                \
                    if (i != i0 && last >= 0 && last < nx) {                              \
                        int lo = j * nx + (si > 0 ? i : last), up = lo - sj * nx;         \
                        v4f hx = v4_ld(x + lo + 1 - (si > 0)) - v4_ld(x + lo - (si > 0)), \
                            hy = v4_ld(y + lo + 1 - (si > 0)) - v4_ld(y + lo - (si > 0)), \
                            hz = v4_ld(z + lo + 1 - (si > 0)) - v4_ld(z + lo - (si > 0)), \
                            vx = v4_ld(x + lo) - v4_ld(x + up),                           \
                            vy = v4_ld(y + lo) - v4_ld(y + up),                           \
                            vz = v4_ld(z + lo) - v4_ld(z + up);                           \
                        if (!V4_ANY((hx * hx + hy * hy + hz * hz) > v4_set(lh2)) &&       \
                            !V4_ANY((vx * vx + vy * vy + vz * vz) > v4_set(lv2))) {       \
                            i = last;                                                     \
                            continue;                                                     \
                        }                                                                 \
                    }                                                                     \
                    int p = j * nx + i, nb[2], n = 0;                                     \
                    float lim[2];                                                         \
                    if (i != i0) {                                                        \
                        nb[n] = p - si;                                                   \
                        lim[n++] = lim_h;                                                 \
                    }                                                                     \
                    nb[n] = p - sj * nx;                                                  \
                    lim[n++] = lim_v;                                                     \
                    moved += wb_cloth_settle_with(s, p, nb, lim, n);                               \
                }                                                                         \
            }                                                                             \
        }                                                                                 \
        return moved;                                                                     \
    }
DEFINE_SETTLE_ROWS(settle_rows, NO_TARGET, )
#ifdef WB_CLOTH_AVX2
#define SETTLE_TEST8                                                                      \
    {                                                                                     \
        int last8 = i + 7 * si;                                                           \
        if (i != i0 && last8 >= 0 && last8 < nx) {                                        \
            int lo = j * nx + (si > 0 ? i : last8), up = lo - sj * nx;                    \
            v8f hx = v8_ld(x + lo + 1 - (si > 0)) - v8_ld(x + lo - (si > 0)),             \
                hy = v8_ld(y + lo + 1 - (si > 0)) - v8_ld(y + lo - (si > 0)),             \
                hz = v8_ld(z + lo + 1 - (si > 0)) - v8_ld(z + lo - (si > 0)),             \
                vx = v8_ld(x + lo) - v8_ld(x + up), vy = v8_ld(y + lo) - v8_ld(y + up),   \
                vz = v8_ld(z + lo) - v8_ld(z + up);                                       \
            if (!V8_ANY((hx * hx + hy * hy + hz * hz) > v8_set(lh2)) &&                   \
                !V8_ANY((vx * vx + vy * vy + vz * vz) > v8_set(lv2))) {                   \
                i = last8;                                                                \
                continue;                                                                 \
            }                                                                             \
        }                                                                                 \
    }
DEFINE_SETTLE_ROWS(settle_rows8, AVX2, SETTLE_TEST8)
#endif

/* The inner vertices from the face normals of the quad rows around them.
 * Every triangle is in the sums of its three corners; its face normal is
 * worked out once, W quads at a time, into two rows of scratch (the quad
 * row above a vertex row and the one below it), instead of once per corner
 * (three times the cross products).  A vertex then adds the six values in
 * vertex_normal()'s order, from 0: the same floats, the same sums.  A face
 * that is not cloth is +0 (a sum is never −0, so adding +0 leaves it as
 * vertex_normal() leaves it by not adding).  Normalizing goes W at a time
 * too (one root and one quotient per W vertices instead of per vertex).
 * Row layout of a scratch row, stride nx: t1 = (a, b, d) x, y, z, then
 * t2 = (a, d, c) x, y, z, quad i at index i. */
#define DEFINE_NORMALS(VF, VI, PFX, W, ATTR)                                              \
    static inline ATTR __attribute__((always_inline)) void PFX##_face(                    \
        const WbClothState *s, int p1, int p2, int p3, VF *fx, VF *fy, VF *fz)            \
    {                                                                                     \
        const float *X = s->x, *Y = s->y, *Z = s->z, *w = s->w;                           \
        VF zero = PFX##_set(0.0f);                                                        \
        VI ok = ~((PFX##_ld(w + p1) < zero) | (PFX##_ld(w + p2) < zero) |                 \
                  (PFX##_ld(w + p3) < zero));                                             \
        VF x1 = PFX##_ld(X + p1), y1 = PFX##_ld(Y + p1), z1 = PFX##_ld(Z + p1);           \
        VF ux = PFX##_ld(X + p2) - x1, uy = PFX##_ld(Y + p2) - y1, uz = PFX##_ld(Z + p2) - z1; \
        VF vx = PFX##_ld(X + p3) - x1, vy = PFX##_ld(Y + p3) - y1, vz = PFX##_ld(Z + p3) - z1; \
        *fx = PFX##_sel(ok, uy * vz - uz * vy, zero);                                     \
        *fy = PFX##_sel(ok, uz * vx - ux * vz, zero);                                     \
        *fz = PFX##_sel(ok, ux * vy - uy * vx, zero);                                     \
    }                                                                                     \
    /* quads i, i+W, ... of quad row j into f; returns where it stopped */                \
    ATTR int wb_cloth_##PFX##_face_row(const WbClothState *s, int j, float *f, int i)     \
    {                                                                                     \
        const int nx = s->nx;                                                             \
        for (; i + W <= nx - 1; i += W) {                                                 \
            int a = j * nx + i;                                                           \
            VF fx, fy, fz;                                                                \
            PFX##_face(s, a, a + 1, a + nx + 1, &fx, &fy, &fz);                           \
            PFX##_st(f + i, fx);                                                          \
            PFX##_st(f + nx + i, fy);                                                     \
            PFX##_st(f + 2 * nx + i, fz);                                                 \
            PFX##_face(s, a, a + nx + 1, a + nx, &fx, &fy, &fz);                          \
            PFX##_st(f + 3 * nx + i, fx);                                                 \
            PFX##_st(f + 4 * nx + i, fy);                                                 \
            PFX##_st(f + 5 * nx + i, fz);                                                 \
        }                                                                                 \
        return i;                                                                         \
    }                                                                                     \
    /* inner vertices i, i+W, ... of vertex row j (above: quad row j − 1,          \
     * below: quad row j), summed and normalized; returns where it stopped */             \
    ATTR int wb_cloth_##PFX##_vertex_row(WbClothState *s, int j, const float *up,         \
                                         const float *dn, int i)                          \
    {                                                                                     \
        const int nx = s->nx;                                                             \
        const VF zero = PFX##_set(0.0f), one = PFX##_set(1.0f);                           \
        for (; i + W <= nx - 1; i += W) {                                                 \
            VF n[3];                                                                      \
            for (int c = 0; c < 3; c++) {                                                 \
                const float *u1 = up + c * nx, *u2 = up + (3 + c) * nx;                   \
                const float *d1 = dn + c * nx, *d2 = dn + (3 + c) * nx;                   \
                n[c] = zero + PFX##_ld(u1 + i - 1);                                       \
                n[c] += PFX##_ld(u2 + i - 1);                                             \
                n[c] += PFX##_ld(u2 + i);                                                 \
                n[c] += PFX##_ld(d1 + i - 1);                                             \
                n[c] += PFX##_ld(d1 + i);                                                 \
                n[c] += PFX##_ld(d2 + i);                                                 \
            }                                                                             \
            VF l = PFX##_sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);                   \
            VI ok = l > zero;                                                             \
            VF il = one / PFX##_sel(ok, l, one);                                          \
            int p = j * nx + i;                                                           \
            PFX##_st(s->nrmx + p, PFX##_sel(ok, n[0] * il, n[0]));                        \
            PFX##_st(s->nrmy + p, PFX##_sel(ok, n[1] * il, n[1]));                        \
            PFX##_st(s->nrmz + p, PFX##_sel(ok, n[2] * il, n[2]));                        \
        }                                                                                 \
        return i;                                                                         \
    }
DEFINE_NORMALS(v4f, v4i, v4, 4, NO_TARGET)
#ifdef WB_CLOTH_AVX2
DEFINE_NORMALS(v8f, v8i, v8, 8, AVX2)
DEFINE_NORMALS(v16f, v16i, v16, 16, AVX512)
#endif
