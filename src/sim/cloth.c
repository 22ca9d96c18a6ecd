/* cloth.c — position-based cloth.  See cloth.h for the model and the stages.
 *
 * Design note: speed comes from the grid, not from tricks in the maths.
 * Every link family of a regular grid splits into a few colours whose links
 * share no particle, and inside one colour the links of a row are adjacent
 * in memory:
 *   vertical   (i,j)-(i,j+1)    a = row j, b = a + nx      rows j even, then odd
 *   diagonal   (i,j)-(i+1,j+1)  a = row j, b = a + nx + 1  rows j even, then odd
 *   diagonal   (i+1,j)-(i,j+1)  a = row j, b = a + nx − 1  rows j even, then odd
 *   bend vert. (i,j)-(i,j+2)    a = row j, b = a + 2nx     rows j mod 4 ∈ {0,1}, {2,3}
 *   horizontal (i,j)-(i+1,j)    a, b interleaved in a row  i even, then odd
 *   bend hor.  (i,j)-(i+2,j)    a, b interleaved in a row  i mod 4 ∈ {0,1}, {2,3}
 * So four links at a time (eight with AVX2, sixteen with AVX-512) are
 * loaded with plain vector
 * loads (or one shuffle for the interleaved ones), projected together and
 * stored back.  Links of one colour are independent, so this is exactly the
 * Gauss–Seidel sweep "colour by colour", in a fixed order: results are
 * deterministic and do not depend on the vector width (the lane kernel and
 * the scalar tail do the same IEEE operations in the same order).
 * The plain PBD solver (the reference) needs no colours for the four row
 * families: any W consecutive links of one are independent (b − a >= nx − 1),
 * so the sequential pass over all its links in index order goes W at a time
 * as one range over the whole sheet (range_plain), up in odd iterations and
 * back down in even ones (a pass one way only pulls the sheet that way: the
 * reference drape crept 5 cm along j in 4 s); only the two in-row families
 * keep their colours.
 *
 * Bodies are spheres in buckets: the body's bounds are cut into a grid of
 * x × y columns, each keeping the spheres that reach into it (a bit mask and
 * a packed copy), so a particle tests a handful of spheres, four at a time,
 * instead of all of them.  The collision passes, the prediction and the
 * stretch limit's row test take W particles at a time (see "bodies, lanes
 * of particles").
 *
 * Where the time goes (70×70 reference drape, AVX2, perf): the plain PBD
 * link sweeps are about three fifths of a frame — the row families ~1.2
 * ns per link, the in-row ones ~2.1 (their shuffles) on the shared 2-core
 * EPYC — then the body passes (push ~12 %, friction ~9 %) and the stretch
 * limit.  An 8-link block is ~23 vector operations around a square root
 * and a division; the samples sit on the instructions waiting for those,
 * so what helps is fewer operations per block (more blocks in flight):
 * the share form with no masses on free rows (PFX_flink), parameters in
 * registers and no λ work, sweeps that run over the whole sheet instead of
 * row by row (no short end block and no restart per row), the moved-back
 * end block done first (a block that reloads what the previous block has
 * just stored waits for the stores), and lane variables kept out of arrays
 * (an array indexed in a loop stays on the stack).  The division cannot go
 * exactly: t = −k·C/d needs d = √(d²) and one quotient; forms with 1/d² in
 * parallel with the root measured no faster here.
 * The sweeps are throughput-bound, not latency- or memory-bound: the link
 * cost is the same ~1.0 ns per link from 40×40 (all in L1) to 140×140, an
 * isolated kernel over independent blocks runs no faster than over chained
 * ones, and sweeping the row families in two colours of independent rows
 * (no chain at all) made a 72×72 frame 14 % slower.  The bookkeeping between
 * blocks is done once per run of blocks (see DEFINE_RANGE_FAST), which cut
 * the sweeps' instructions by a third but their time by much less: the
 * vector arithmetic itself is the floor.  (Measured too: dropping the
 * square root for Jakobsen's first-order form t = −k·(d² − r²)/(d² + r²),
 * which changes the model, saves only ~8 % of a frame.)
 * Ablations of the vertical sweep at 70x70 and 140x140, alternated with the
 * real one in one process (so the shared machine's swings cancel), show no
 * single floor: without the square root and the division it is ~20 %
 * quicker, without the stores of the b ends also ~20 %; the loop of ~43
 * instructions per 8 links runs near the core's issue rate.  Also measured
 * and left out: two phases per batch of 8 independent blocks (all the
 * quotients, then all the updates) 0 to 3 % slower; the diagonals' blocks
 * with their lanes from the column, no branch per row, 3-10 % slower;
 * unrolling the runs by 2, no change.  What did help: blocks whose a ends
 * sit on 32-byte boundaries (see range_plain).
 * Walking the vertical families by columns was measured and left out too.
 * A vertical link only shares a particle with the links above and below it
 * in its column (the skip-one bend: every other row), so strips of 8
 * columns walked top to bottom, the shared row kept in registers, give the
 * same bytes (checked against range_plain with pins, a heavier particle and
 * an inert one, forward and back, 8 to 140 columns) with ~27 instead of ~43
 * instructions per 8 links (callgrind, 140×140).  But each step waits for
 * the one before (root, quotient, update: ~60 cycles), and 2 to 6 strips
 * side by side (from 3 on GCC spills some carried rows) do not hide it:
 * with 3 or 4 strips the vertical sweep was 8–23 % slower at 70×70 and
 * 140×140, the bend 12–36 % (2, 5 or 6 strips: up to 55 %), alternated
 * sweep by sweep in one process, medians and minima.  Bands of two link
 * rows per strip (3 row loads and stores per 2 links, a chain of 2) were
 * 38–56 % slower.  Row order keeps every block independent of the blocks
 * just before it, which this core needs more than fewer loads and stores.
 * What bounds the sweeps is the vector work itself, not the root and the
 * quotient: a kernel with them replaced by rsqrt and a Newton step (other
 * floats, so measured only) made the 70×70 and 140×140 frames no quicker
 * (alternating old and new frame by frame in one process, 300 frames;
 * the harness's own bias, same code both sides, is ~2 %, so each pair was
 * run both ways round).  On this host a row-family block of 8 links costs
 * ~13 cycles (TSC, 70×70, in cache), an in-row block ~19.5 — its twelve
 * shuffles are most of the difference (the same block without them ~13) —
 * and an in-row block interleaved with a row block in one loop costs their
 * sum (14.2k against 14.5k cycles): they share one throughput limit.  Also
 * measured and left out in that round:
 *   - the in-row blocks' a and b ends from four unaligned loads and two
 *     blends per coordinate instead of two loads and two vshufps: the
 *     horizontal sweep 25 % slower, the bend unchanged;
 *   - sphere cells, each bucket cut into 8 slices along z, a cell keeping
 *     the bucket's spheres whose ball (radius + slack) meets it, a lane
 *     going back to its whole bucket once a sphere has pushed it: the same
 *     bytes, half the sphere tests of the push pass (60k -> 29k a frame),
 *     8 % fewer instructions there, but no quicker frames (0.99-1.00): the
 *     pass waits on the lanes' mask loads and its branches, not the tests;
 *   - the ordered pass's rows going straight to the first particle of a
 *     group whose links fail in_ball()'s test: instructions -0.05 %, time
 *     unchanged.
 * What helped: the vertex normals from face rows (each triangle's normal
 * once instead of once per corner, normalized 8 at a time), ~1 % of a
 * 70×70 frame, and the row-order settling testing 8 particles at once,
 * ~0.5 %.  The issue's 20 % is not in this order of operations: it
 * needs less vector work per link, which means other floats.  Two such
 * changes, measured the same way at 70×70 and not made (they change the
 * model, the lead's call): the body push every 5th iteration instead of
 * every 3rd, ~7 % quicker (max stretch 1.126 against 1.133); the ordered
 * pass alone without the follow-the-leader sweeps before it, ~4 % (1.129).
 * Also no quicker at all on that AMD host: a gather of the bucket masks
 * over the live lanes' bits instead of a branch per lane (0.995, within
 * the noise).  On the later Intel host the body passes were a third of a
 * 70×70 frame at 16 lanes, waiting on those lookups; AVX-512 gathers one
 * block ahead took ~10 % off the frame (see v16_gather_masks).
 */
#include "sim/cloth.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/cpu.h"

/* ---------------------------------------------------------------- lanes */

/* The sweeps run on GCC/Clang vector types, 4 lanes (SSE or plain C) or,
 * where the processor has AVX2, 8 lanes, or with AVX-512 16 (the link
 * sweeps, the body passes, the prediction, the stretch test and the
 * normals; the dihedral constraints and the ordered stretch pass stay at
 * 8).  The kernels are written once, as macros over the lane type; every
 * lane does the same IEEE operations as the scalar link1(), so the result
 * is bit-identical for any lane width.
 * What 16 lanes buy on the 2-core Intel Xeon VM (frames alternated with
 * 8 lanes in one process, 70×70 reference drape): ~3.5 % on quiet minutes,
 * 10–15 % on busy ones, ~10 % at 140×140.  A block's square root and
 * division go through one divider either way (16 of each take as long as
 * two rounds of 8, ~10 TSC cycles per 8 links), but that is not what bounds
 * the sweeps: the square root made without the divider (the 14-bit
 * reciprocal-root estimate, a coupled Newton step and a fused residual
 * correction, equal to vsqrtps on all 2^32 floats) made the 70×70 frames
 * 13–15 % SLOWER, alternated both ways round with the real one (.so A/B,
 * 600 frames).  The seven extra multiply-adds cost more than the divider
 * time they free: at 16 lanes the sweeps run at the core's issue rate, as
 * at 8 (see above).  What 16 lanes save is part of that vector work, and
 * the body passes' compares and selects, which become mask registers. */
typedef float v4f __attribute__((vector_size(16)));
typedef int32_t v4i __attribute__((vector_size(16)));

#if defined(__SSE__)
#include <xmmintrin.h>
static inline v4f v4_sqrt(v4f a) { return (v4f)_mm_sqrt_ps((__m128)a); }
#else
static inline v4f v4_sqrt(v4f a)
{
    v4f r = {sqrtf(a[0]), sqrtf(a[1]), sqrtf(a[2]), sqrtf(a[3])};
    return r;
}
#endif

#if defined(__clang__)
#define V4_SHUF(a, b, i0, i1, i2, i3) __builtin_shufflevector(a, b, i0, i1, i2, i3)
#else
#define V4_SHUF(a, b, i0, i1, i2, i3) __builtin_shuffle(a, b, (v4i){i0, i1, i2, i3})
#endif

#define NO_TARGET
#define DEFINE_LANE_HELPERS(VF, VI, PFX, ATTR)                                            \
    static inline ATTR VF PFX##_set(float a) { return (VF){0} + a; }                     \
    static inline ATTR VI PFX##_iset(int32_t a) { return (VI){0} + a; }                  \
    static inline ATTR VF PFX##_ld(const float *p)                                       \
    {                                                                                    \
        VF v;                                                                            \
        memcpy(&v, p, sizeof v);                                                         \
        return v;                                                                        \
    }                                                                                    \
    static inline ATTR void PFX##_st(float *p, VF v) { memcpy(p, &v, sizeof v); }        \
    static inline ATTR VF PFX##_sel(VI m, VF a, VF b)                                    \
    {                                                                                    \
        return (VF)(((VI)a & m) | ((VI)b & ~m));                                         \
    }
DEFINE_LANE_HELPERS(v4f, v4i, v4, NO_TARGET)

/* any lane of a comparison mask set */
#if defined(__SSE__)
#define V4_ANY(m) (_mm_movemask_ps((__m128)(m)) != 0)
#else
#define V4_ANY(m) (((m)[0] | (m)[1] | (m)[2] | (m)[3]) != 0)
#endif

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define WB_CLOTH_AVX2 1
#include <immintrin.h>
#define AVX2 __attribute__((target("avx2")))
typedef float v8f __attribute__((vector_size(32)));
typedef int32_t v8i __attribute__((vector_size(32)));
static inline AVX2 v8f v8_sqrt(v8f a) { return (v8f)_mm256_sqrt_ps((__m256)a); }
DEFINE_LANE_HELPERS(v8f, v8i, v8, AVX2)
#define V8_ANY(m) (_mm256_movemask_ps((__m256)(m)) != 0)
/* 16 lanes where the processor has AVX-512 (F is enough: the kernels are
 * plain arithmetic, compares, selects and two-source shuffles). */
#define WB_CLOTH_AVX512 1
#define AVX512 __attribute__((target("avx512f")))
typedef float v16f __attribute__((vector_size(64)));
typedef int32_t v16i __attribute__((vector_size(64)));
static inline AVX512 v16f v16_sqrt(v16f a) { return (v16f)_mm512_sqrt_ps((__m512)a); }
DEFINE_LANE_HELPERS(v16f, v16i, v16, AVX512)
#define V16_ANY(m) (_mm512_test_epi32_mask((__m512i)(m), (__m512i)(m)) != 0)
#define IOTA16 ((v16i){0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15})
#endif

#define LINK_EPS2 1e-14f /* squared length below which a link has no direction */

/* How one sweep projects a link family.
 *   PBD:   k = stiffness, at = 0          Δλ = −k·C / (wa + wb)
 *   XPBD:  k = 1, at = α/dt²              Δλ = (−C − at·λ) / (wa + wb + at)
 *   clamp: k = 1, at = 0, unilateral      only links longer than rest act */
typedef struct LinkParams {
    float k, at, rest;
    int unilateral;
    int ftl; /* follow the leader: the end nearer a pin (s->pin_depth) does
                not move; ends equally far split by inverse mass */
} LinkParams;

/* The plain projection (PBD, no multiplier, no limit): the fast kernels. */
static bool plain_pbd(const float *lam, const LinkParams *p)
{
    return !lam && !p->unilateral && !p->ftl && p->at == 0.0f;
}

/* A lane's worth of links at once.  n = (b − a)/d, ∇a C = −n, ∇b C = n:
 *   a −= wa·Δλ·n,  b += wb·Δλ·n.
 * One division: σ = Δλ/d = (−k·C − at·λ) / ((wa + wb + at)·d), then the
 * offsets are σ·(b − a) and λ += σ·d.  (sqrt and the division are the
 * latency chain of the sweep; everything else overlaps.) */
#define DEFINE_LINK_KERNEL(VF, VI, PFX, ATTR)                                             \
    static inline ATTR void PFX##_link(VF *ax, VF *ay, VF *az, VF *bx, VF *by, VF *bz,   \
                                       VF wa, VF wb, VF *lam, const LinkParams *p)       \
    {                                                                                    \
        VF dx = *bx - *ax, dy = *by - *ay, dz = *bz - *az;                               \
        VF d2 = dx * dx + dy * dy + dz * dz;                                             \
        VF ws = wa + wb;                                                                 \
        VI ok = (d2 > PFX##_set(LINK_EPS2)) & (ws > PFX##_set(0.0f)) &                   \
                (wa >= PFX##_set(0.0f)) & (wb >= PFX##_set(0.0f)); /* inert: w < 0 */  \
        VF d = PFX##_sqrt(PFX##_sel(ok, d2, PFX##_set(1.0f)));                           \
        VF c = d - PFX##_set(p->rest);                                                   \
        if (p->unilateral)                                                               \
            ok &= c > PFX##_set(0.0f);                                                   \
        VF at = PFX##_set(p->at);                                                        \
        VF den = PFX##_sel(ok, (ws + at) * d, PFX##_set(1.0f));                          \
        VF sg = PFX##_sel(ok, (PFX##_set(-p->k) * c - at * *lam) / den, PFX##_set(0.0f)); \
        *lam += sg * d;                                                                  \
        VF ox = dx * sg, oy = dy * sg, oz = dz * sg;                                     \
        *ax -= wa * ox;                                                                  \
        *ay -= wa * oy;                                                                  \
        *az -= wa * oz;                                                                  \
        *bx += wb * ox;                                                                  \
        *by += wb * oy;                                                                  \
        *bz += wb * oz;                                                                  \
    }
DEFINE_LINK_KERNEL(v4f, v4i, v4, NO_TARGET)
#ifdef WB_CLOTH_AVX2
DEFINE_LINK_KERNEL(v8f, v8i, v8, AVX2)
DEFINE_LINK_KERNEL(v16f, v16i, v16, AVX512)
#endif

/* The plain PBD projection (no multiplier, no limit, no pin-depth weights)
 * that is most of a frame, written with the inverse-mass shares
 * sa = wa/(wa + wb), sb = wb/(wa + wb):
 *   t = −k·C/d,   a −= (sa·t)·(b − a),   b += (sb·t)·(b − a)
 * (the same correction as Δλ = −k·C/(wa + wb), Δx = w·Δλ·n, rounded once
 * less).  The particles of a cloth are free with the one inverse mass
 * 1/mass, pinned (0) or inert (< 0), so on a row of free particles both
 * shares are exactly 1/2 and the kernel needs no masses at all (uni = 1):
 *   h = (−k/2)·C/d,   a −= h·(b − a),   b += h·(b − a)
 * which is bit for bit the general form there: w/(w + w) = 1/2 exactly, and
 * halving commutes with the rounding of the product and the quotient
 * (t is 0 or at least ~k·ulp(rest)/d, far from the subnormals).  General
 * blocks (a pin, a cut, any other mass) take the shares by division.
 * Lanes whose link does not act (not live, no direction; in the general
 * form also ws = 0 or an inert end) get t = 0 and store their particles
 * back unchanged.  negk is −k, or −k/2 for uni. */
#define DEFINE_FAST_KERNEL(VF, VI, PFX, ATTR)                                             \
    static inline ATTR __attribute__((always_inline)) void PFX##_flink(                  \
        VF *ax, VF *ay, VF *az, VF *bx, VF *by, VF *bz, VF wa, VF wb, VI live, VF negk,  \
        VF rest, int uni)                                                                \
    {                                                                                    \
        VF dx = *bx - *ax, dy = *by - *ay, dz = *bz - *az;                               \
        VF d2 = dx * dx + dy * dy + dz * dz;                                             \
        VF zero = PFX##_set(0.0f);                                                       \
        VI ok = (d2 > PFX##_set(LINK_EPS2)) & live;                                      \
        VF ws = wa + wb;                                                                 \
        if (!uni)                                                                        \
            ok &= (ws > zero) & (wa >= zero) & (wb >= zero);                             \
        VF d = PFX##_sqrt(d2);                                                           \
        VF c = d - rest;                                                                 \
        VF t = PFX##_sel(ok, (negk * c) / d, zero);                                      \
        VF ta = t, tb = t;                                                               \
        if (!uni) {                                                                      \
            VF one = PFX##_set(1.0f);                                                    \
            VF wsd = PFX##_sel(ok, ws, one);                                             \
            ta = PFX##_sel(ok, wa / wsd, zero) * t;                                      \
            tb = PFX##_sel(ok, wb / wsd, zero) * t;                                      \
        }                                                                                \
        *ax -= ta * dx;                                                                  \
        *ay -= ta * dy;                                                                  \
        *az -= ta * dz;                                                                  \
        *bx += tb * dx;                                                                  \
        *by += tb * dy;                                                                  \
        *bz += tb * dz;                                                                  \
    }
DEFINE_FAST_KERNEL(v4f, v4i, v4, NO_TARGET)
#ifdef WB_CLOTH_AVX2
DEFINE_FAST_KERNEL(v8f, v8i, v8, AVX2)
DEFINE_FAST_KERNEL(v16f, v16i, v16, AVX512)
#endif

/* The same projection for one link (tails, scalar paths). */
static void link1(WbClothState *s, int a, int b, float *lam, const LinkParams *p)
{
    float dx = s->x[b] - s->x[a], dy = s->y[b] - s->y[a], dz = s->z[b] - s->z[a];
    float d2 = dx * dx + dy * dy + dz * dz;
    float wa = s->w[a], wb = s->w[b];
    if (p->ftl) {
        if (s->pin_depth[a] < s->pin_depth[b])
            wa = 0.0f;
        else if (s->pin_depth[b] < s->pin_depth[a])
            wb = 0.0f;
    }
    float ws = wa + wb;
    if (!(d2 > LINK_EPS2) || !(ws > 0.0f) || !(wa >= 0.0f && wb >= 0.0f))
        return;
    if (p->unilateral && !(d2 > p->rest * p->rest))
        return;
    float d = sqrtf(d2);
    float c = d - p->rest;
    if (p->unilateral && !(c > 0.0f))
        return;
    if (plain_pbd(lam, p)) { /* the share form of PFX_flink, operation for operation */
        float t = (-p->k * c) / d, ta = (wa / ws) * t, tb = (wb / ws) * t;
        s->x[a] -= ta * dx;
        s->y[a] -= ta * dy;
        s->z[a] -= ta * dz;
        s->x[b] += tb * dx;
        s->y[b] += tb * dy;
        s->z[b] += tb * dz;
        return;
    }
    float l = lam ? *lam : 0.0f;
    float sc = (-p->k * c - p->at * l) / ((ws + p->at) * d);
    if (lam)
        *lam = l + sc * d;
    float ox = dx * sc, oy = dy * sc, oz = dz * sc;
    s->x[a] -= wa * ox;
    s->y[a] -= wa * oy;
    s->z[a] -= wa * oz;
    s->x[b] += wb * ox;
    s->y[b] += wb * oy;
    s->z[b] += wb * oz;
}

/* Links a = a0 .. a0+count−1, b = a + boff, all independent, a lane's
 * worth at a time; returns how many were done (count, or 0 when count < W).
 * A short last stretch is done by one block moved back to end at the last
 * link, its lanes for links already done switched off (their inverse
 * masses read as 0, so they load and store their particles unchanged).
 * The stretch limit skips blocks with no link over its length before the
 * square root. */
#define DEFINE_CONTIG(VF, VI, PFX, W, ATTR, IOTA, ANY)                                    \
    static inline ATTR __attribute__((always_inline)) void PFX##_gblock(                  \
        WbClothState *s, int a, int boff, float *lam, const LinkParams *p, VI live)       \
    {                                                                                     \
        float *x = s->x, *y = s->y, *z = s->z, *w = s->w;                                 \
        int b = a + boff;                                                                 \
        VF ax = PFX##_ld(x + a), ay = PFX##_ld(y + a), az = PFX##_ld(z + a);              \
        VF bx = PFX##_ld(x + b), by = PFX##_ld(y + b), bz = PFX##_ld(z + b);              \
        if (p->unilateral) {                                                              \
            VF dx = bx - ax, dy = by - ay, dz = bz - az;                                  \
            if (!ANY((dx * dx + dy * dy + dz * dz) > PFX##_set(p->rest * p->rest)))       \
                return;                                                                   \
        }                                                                                 \
        VF l = lam ? PFX##_ld(lam + a) : PFX##_set(0.0f);                                 \
        VF wa = PFX##_sel(live, PFX##_ld(w + a), PFX##_set(0.0f));                        \
        VF wb = PFX##_sel(live, PFX##_ld(w + b), PFX##_set(0.0f));                        \
        if (p->ftl) {                                                                     \
            VF da = PFX##_ld(s->pin_depth + a), db = PFX##_ld(s->pin_depth + b);          \
            wa = PFX##_sel(da < db, PFX##_set(0.0f), wa);                                 \
            wb = PFX##_sel(db < da, PFX##_set(0.0f), wb);                                 \
        }                                                                                 \
        PFX##_link(&ax, &ay, &az, &bx, &by, &bz, wa, wb, &l, p);                          \
        PFX##_st(x + a, ax);                                                              \
        PFX##_st(y + a, ay);                                                              \
        PFX##_st(z + a, az);                                                              \
        PFX##_st(x + b, bx);                                                              \
        PFX##_st(y + b, by);                                                              \
        PFX##_st(z + b, bz);                                                              \
        if (lam)                                                                          \
            PFX##_st(lam + a, l);                                                         \
    }                                                                                     \
    /* the moved-back last block first: a block that reloads particles the    \
     * previous one has only just stored waits for the stores to complete (no  \
     * store-to-load forwarding across a partial overlap) */                     \
    static ATTR int PFX##_contig(WbClothState *s, int a0, int boff, int count, float *lam, \
                                 const LinkParams *p)                                     \
    {                                                                                     \
        if (count < W)                                                                    \
            return 0;                                                                     \
        const VI all = IOTA >= 0;                                                         \
        int full = count - count % W;                                                     \
        if (full < count)                                                                 \
            PFX##_gblock(s, a0 + count - W, boff, lam, p, all);                           \
        for (int k = 0; k < full; k += W)                                                 \
            PFX##_gblock(s, a0 + k, boff, lam, p,                                         \
                         full < count && k + W > count - W ? (IOTA + k) < count - W : all); \
        return count;                                                                     \
    }
DEFINE_CONTIG(v4f, v4i, v4, 4, NO_TARGET, ((v4i){0, 1, 2, 3}), V4_ANY)
#ifdef WB_CLOTH_AVX2
DEFINE_CONTIG(v8f, v8i, v8, 8, AVX2, ((v8i){0, 1, 2, 3, 4, 5, 6, 7}), V8_ANY)
DEFINE_CONTIG(v16f, v16i, v16, 16, AVX512, IOTA16, V16_ANY)
#endif

/* One plain PBD block: links a .. a+W−1 to b .. b+W−1 (see PFX_flink;
 * uni: every particle of the links is free with the common inverse mass,
 * the masses are not loaded at all). */
#define DEFINE_CONTIG_FAST(VF, VI, PFX, W, ATTR, IOTA)                                    \
    static inline ATTR __attribute__((always_inline)) void PFX##_fblock(                  \
        float *x, float *y, float *z, const float *w, int a, int b, VI live, VF negk,     \
        VF rest, int uni)                                                                 \
    {                                                                                     \
        VF ax = PFX##_ld(x + a), ay = PFX##_ld(y + a), az = PFX##_ld(z + a);              \
        VF bx = PFX##_ld(x + b), by = PFX##_ld(y + b), bz = PFX##_ld(z + b);              \
        VF wa = uni ? PFX##_set(0.0f) : PFX##_ld(w + a);                                  \
        VF wb = uni ? PFX##_set(0.0f) : PFX##_ld(w + b);                                  \
        PFX##_flink(&ax, &ay, &az, &bx, &by, &bz, wa, wb, live, negk, rest, uni);         \
        PFX##_st(x + a, ax);                                                              \
        PFX##_st(y + a, ay);                                                              \
        PFX##_st(z + a, az);                                                              \
        PFX##_st(x + b, bx);                                                              \
        PFX##_st(y + b, by);                                                              \
        PFX##_st(z + b, bz);                                                              \
    }
DEFINE_CONTIG_FAST(v4f, v4i, v4, 4, NO_TARGET, ((v4i){0, 1, 2, 3}))
#ifdef WB_CLOTH_AVX2
DEFINE_CONTIG_FAST(v8f, v8i, v8, 8, AVX2, ((v8i){0, 1, 2, 3, 4, 5, 6, 7}))
DEFINE_CONTIG_FAST(v16f, v16i, v16, 16, AVX512, IOTA16)
#endif

/* A row's worth of row-family links for XPBD and the stretch limit (plain
 * PBD goes over the whole sheet, range_plain). */
static void links_contig(WbClothState *s, int a0, int boff, int count, float *lam,
                         const LinkParams *p)
{
    int k = 0;
#ifdef WB_CLOTH_AVX2
    if (s->lanes == 16)
        k = v16_contig(s, a0, boff, count, lam, p);
    if (s->lanes >= 8)
        k += v8_contig(s, a0 + k, boff, count - k, lam, p);
#endif
    k += v4_contig(s, a0 + k, boff, count - k, lam, p);
    for (; k < count; k++)
        link1(s, a0 + k, a0 + k + boff, lam ? lam + a0 + k : NULL, p);
}

/* Links inside a row whose ends interleave in memory.  A block is 2W
 * consecutive particles q .. q+2W−1; SHUF_A picks the W a ends, SHUF_B the
 * W b ends, SHUF_LO/HI put them back.  Blocks start every 2W particles from
 * `first`; returns where the next block would start.  Links not covered by
 * a full block are left to the narrower width and then the scalar tail. */
#define DEFINE_ROW_INTERLEAVED(NAME, VF, VI, PFX, W, ATTR, SHUF_A, SHUF_B, SHUF_LO, SHUF_HI, \
                               ALIGN, AOFF)                                                 \
    static ATTR int NAME(WbClothState *s, int row0, int first, int len, float *lam,         \
                         const LinkParams *p)                                               \
    {                                                                                       \
        float *arr[3] = {s->x, s->y, s->z};                                                 \
        int q = first, done = -1;                                                           \
        for (;;) {                                                                          \
            int start = q;                                                                  \
            if (q + 2 * W > len) { /* the last, moved-back block (see DEFINE_CONTIG) */     \
                start = len - 2 * W;                                                        \
                start -= (((start - first) % ALIGN) + ALIGN) % ALIGN;                       \
                if (done >= 0 || q + ALIGN / 2 >= len || start < 0)                         \
                    break;                                                                  \
                done = q;                                                                   \
            }                                                                               \
            q = start + 2 * W;                                                              \
            int o = row0 + start;                                                           \
            VF a[3], b[3];                                                                  \
            for (int c = 0; c < 3; c++) {                                                   \
                VF lo = PFX##_ld(arr[c] + o), hi = PFX##_ld(arr[c] + o + W);                \
                a[c] = SHUF_A(lo, hi);                                                      \
                b[c] = SHUF_B(lo, hi);                                                      \
            }                                                                               \
            VF wlo = PFX##_ld(s->w + o), whi = PFX##_ld(s->w + o + W);                      \
            VF wa = SHUF_A(wlo, whi), wb = SHUF_B(wlo, whi);                                \
            if (done >= 0) {                                                                \
                VI fresh = (AOFF + start) >= done;                                          \
                wa = PFX##_sel(fresh, wa, PFX##_set(0.0f));                                 \
                wb = PFX##_sel(fresh, wb, PFX##_set(0.0f));                                 \
            }                                                                               \
            VF la = PFX##_set(0.0f), lb = PFX##_set(0.0f);                                  \
            if (lam) {                                                                      \
                VF llo = PFX##_ld(lam + o), lhi = PFX##_ld(lam + o + W);                    \
                la = SHUF_A(llo, lhi);                                                      \
                lb = SHUF_B(llo, lhi);                                                      \
            }                                                                               \
            PFX##_link(&a[0], &a[1], &a[2], &b[0], &b[1], &b[2], wa, wb, &la, p);           \
            for (int c = 0; c < 3; c++) {                                                   \
                PFX##_st(arr[c] + o, SHUF_LO(a[c], b[c]));                                  \
                PFX##_st(arr[c] + o + W, SHUF_HI(a[c], b[c]));                              \
            }                                                                               \
            if (lam) {                                                                      \
                PFX##_st(lam + o, SHUF_LO(la, lb));                                         \
                PFX##_st(lam + o + W, SHUF_HI(la, lb));                                     \
            }                                                                               \
            if (done >= 0)                                                                  \
                break;                                                                      \
        }                                                                                   \
        return q;                                                                           \
    }

/* (i, i+1) for i = q, q+2, ...: a = even offsets, b = odd */
#define S2A4(l, h) V4_SHUF(l, h, 0, 2, 4, 6)
#define S2B4(l, h) V4_SHUF(l, h, 1, 3, 5, 7)
#define S2L4(a, b) V4_SHUF(a, b, 0, 4, 1, 5)
#define S2H4(a, b) V4_SHUF(a, b, 2, 6, 3, 7)
DEFINE_ROW_INTERLEAVED(v4_stride2, v4f, v4i, v4, 4, NO_TARGET, S2A4, S2B4, S2L4, S2H4, 2,
                       ((v4i){0, 2, 4, 6}))
/* (i, i+2) for i = q, q+1, q+4, q+5, ... */
#define PRA4(l, h) V4_SHUF(l, h, 0, 1, 4, 5)
#define PRB4(l, h) V4_SHUF(l, h, 2, 3, 6, 7)
DEFINE_ROW_INTERLEAVED(v4_pairs, v4f, v4i, v4, 4, NO_TARGET, PRA4, PRB4, PRA4, PRB4, 4,
                       ((v4i){0, 1, 4, 5}))
#ifdef WB_CLOTH_AVX2
/* 8 lanes: the link order inside a vector is free (the links are
 * independent), so the masks keep to 128-bit halves — one vshufps to split,
 * one vunpck{l,h}ps to merge — instead of crossing lanes. */
#define S2A8(l, h) __builtin_shuffle(l, h, (v8i){0, 2, 8, 10, 4, 6, 12, 14})
#define S2B8(l, h) __builtin_shuffle(l, h, (v8i){1, 3, 9, 11, 5, 7, 13, 15})
#define S2L8(a, b) __builtin_shuffle(a, b, (v8i){0, 8, 1, 9, 4, 12, 5, 13})
#define S2H8(a, b) __builtin_shuffle(a, b, (v8i){2, 10, 3, 11, 6, 14, 7, 15})
DEFINE_ROW_INTERLEAVED(v8_stride2, v8f, v8i, v8, 8, AVX2, S2A8, S2B8, S2L8, S2H8, 2,
                       ((v8i){0, 2, 8, 10, 4, 6, 12, 14}))
#define PRA8(l, h) __builtin_shuffle(l, h, (v8i){0, 1, 8, 9, 4, 5, 12, 13})
#define PRB8(l, h) __builtin_shuffle(l, h, (v8i){2, 3, 10, 11, 6, 7, 14, 15})
DEFINE_ROW_INTERLEAVED(v8_pairs, v8f, v8i, v8, 8, AVX2, PRA8, PRB8, PRA8, PRB8, 4,
                       ((v8i){0, 1, 8, 9, 4, 5, 12, 13}))
/* 16 lanes: the same within each 128-bit quarter (vshufps, vunpck{l,h}ps) */
#define S2O16 ((v16i){0, 2, 16, 18, 4, 6, 20, 22, 8, 10, 24, 26, 12, 14, 28, 30})
#define S2A16(l, h) __builtin_shuffle(l, h, S2O16)
#define S2B16(l, h) __builtin_shuffle(l, h, S2O16 + 1)
#define S2L16(a, b) \
    __builtin_shuffle(a, b, (v16i){0, 16, 1, 17, 4, 20, 5, 21, 8, 24, 9, 25, 12, 28, 13, 29})
#define S2H16(a, b) \
    __builtin_shuffle(a, b, (v16i){2, 18, 3, 19, 6, 22, 7, 23, 10, 26, 11, 27, 14, 30, 15, 31})
#define PRO16 ((v16i){0, 1, 16, 17, 4, 5, 20, 21, 8, 9, 24, 25, 12, 13, 28, 29})
#define PRA16(l, h) __builtin_shuffle(l, h, PRO16)
#define PRB16(l, h) __builtin_shuffle(l, h, PRO16 + 2)
DEFINE_ROW_INTERLEAVED(v16_stride2, v16f, v16i, v16, 16, AVX512, S2A16, S2B16, S2L16, S2H16, 2,
                       S2O16)
DEFINE_ROW_INTERLEAVED(v16_pairs, v16f, v16i, v16, 16, AVX512, PRA16, PRB16, PRA16, PRB16, 4,
                       PRO16)
#endif

/* The plain PBD sweep of an in-row family (horizontal links, span 1, or
 * horizontal bend, span 2), one colour, over the whole sheet at once.  The
 * colours go by the index a of a link's first particle: (a, a + 1) with a
 * even, then odd; (a, a + 2) with a mod 4 in {0, 1}, then {2, 3} — links of
 * one colour share no particle, so the sheet is one long "row" of blocks of
 * 2W particles (no restart and no short end block per row).  A lane whose
 * link would leave its row (a in the last `span` columns) is switched off.
 * As in DEFINE_CONTIG the moved-back block that ends the sheet is done
 * first with all its lanes live, then the whole blocks from `first`, the
 * last of them with the lanes the moved-back block already did switched
 * off.  A block skips the masses when the rows it touches are free.
 * Returns where the next block would start (the rounding of the moved-back
 * block to the colour's period can leave a link or two for the narrower
 * width or the scalar tail).  Needs nx >= 2W + 2 (a block reaches into at
 * most one more row). */
#define DEFINE_SHEET_FAST(NAME, VF, VI, PFX, W, ATTR, SHUF_A, SHUF_B, SHUF_LO, SHUF_HI, ALIGN, \
                          AOFF)                                                             \
    static inline ATTR __attribute__((always_inline)) void NAME##_block(                    \
        float *x, float *y, float *z, const float *w, int o, VI live, VF negk, VF rest,     \
        int uni)                                                                            \
    {                                                                                       \
        /* (named variables, not arrays: arrays indexed in a loop stay on the stack; and   \
         * one block per round: two spill registers and are slower here) */                 \
        VF xl = PFX##_ld(x + o), xh = PFX##_ld(x + o + W);                                  \
        VF yl = PFX##_ld(y + o), yh = PFX##_ld(y + o + W);                                  \
        VF zl = PFX##_ld(z + o), zh = PFX##_ld(z + o + W);                                  \
        VF ax = SHUF_A(xl, xh), ay = SHUF_A(yl, yh), az = SHUF_A(zl, zh);                   \
        VF bx = SHUF_B(xl, xh), by = SHUF_B(yl, yh), bz = SHUF_B(zl, zh);                   \
        VF wa = PFX##_set(0.0f), wb = wa;                                                   \
        if (!uni) {                                                                         \
            VF wl = PFX##_ld(w + o), wh = PFX##_ld(w + o + W);                              \
            wa = SHUF_A(wl, wh);                                                            \
            wb = SHUF_B(wl, wh);                                                            \
        }                                                                                   \
        PFX##_flink(&ax, &ay, &az, &bx, &by, &bz, wa, wb, live, negk, rest, uni);           \
        PFX##_st(x + o, SHUF_LO(ax, bx));                                                   \
        PFX##_st(x + o + W, SHUF_HI(ax, bx));                                               \
        PFX##_st(y + o, SHUF_LO(ay, by));                                                   \
        PFX##_st(y + o + W, SHUF_HI(ay, by));                                               \
        PFX##_st(z + o, SHUF_LO(az, bz));                                                   \
        PFX##_st(z + o + W, SHUF_HI(az, bz));                                               \
    }                                                                                       \
    /* block at o: its column col, row row; lanes in the last span columns off */          \
    static inline ATTR __attribute__((always_inline)) void NAME##_at(                       \
        WbClothState *s, int o, int col, int row, VI live, VF negk, VF negkh, VF rest,      \
        int span)                                                                           \
    {                                                                                       \
        const int nx = s->nx;                                                               \
        if (col + 2 * W > nx - span) { /* the block reaches the last span columns */        \
            VI c = AOFF + col; /* a's column, past nx in the next row */                    \
            live &= ((c < nx - span) | (c >= nx)) & (c < 2 * nx - span);                    \
        }                                                                                   \
        if (s->free_rows[row] >= 1 + (col + 2 * W > nx))                                    \
            NAME##_block(s->x, s->y, s->z, s->w, o, live, negkh, rest, 1);                  \
        else                                                                                \
            NAME##_block(s->x, s->y, s->z, s->w, o, live, negk, rest, 0);                   \
    }                                                                                       \
    static ATTR int NAME(WbClothState *s, int first, float k_, float rest_, int span)       \
    {                                                                                       \
        const int nx = s->nx, len = s->n;                                                   \
        if (nx < 2 * W + 2 || first + 2 * W > len)                                          \
            return first;                                                                   \
        const VF negk = PFX##_set(-k_), negkh = PFX##_set(-0.5f * k_),                      \
                 rest = PFX##_set(rest_);                                                   \
        const VI all = AOFF >= 0;                                                           \
        /* (the arrays in locals: the vector stores are memcpy, which could alias  \
         * the state's pointers, so s->x would be reloaded every block) */            \
        float *x = s->x, *y = s->y, *z = s->z;                                              \
        const float *w = s->w;                                                              \
        int nb = (len - first) / (2 * W), q_end = first + nb * 2 * W, mstart = len;         \
        if (q_end + ALIGN / 2 < len) { /* links left: the moved-back block, first */        \
            mstart = len - 2 * W;                                                           \
            mstart -= (mstart - first) % ALIGN;                                             \
            NAME##_at(s, mstart, mstart % nx, mstart / nx, all, negk, negkh, rest, span);   \
        }                                                                                   \
        int col = first % nx, row = first / nx, q = first;                                  \
        const int qlim = q_end < mstart ? q_end : mstart;                                   \
        /* blocks of a free row short of its last span columns need no mask and no    \
         * masses: one compare picks them (fastlim: the last column such a block may   \
         * start at in this row, −1 when the row is not free); the others (about one  \
         * a row) go through NAME_at.  The column/row bookkeeping of every block in   \
         * NAME_at was nearly half the instructions. */                                 \
        int fastlim = s->free_rows[row] >= 1 ? nx - span - 2 * W : -1;                     \
        if (s->free_rows[0] >= s->ny) {                                                     \
            /* every row free (no pin, no cut): every block skips the masses, and the  \
             * blocks from column base on take their lanes from a table by column    \
             * (NAME##_at's mask, without its bookkeeping) */                          \
            const int base = nx - span - 2 * W + 1;                                         \
            VI mt[2 * W + 2];                                                               \
            for (int c = base; c < nx; c++) {                                               \
                VI cl = AOFF + c;                                                           \
                mt[c - base] = ((cl < nx - span) | (cl >= nx)) & (cl < 2 * nx - span);      \
            }                                                                               \
            for (; q + 2 * W <= qlim; q += 2 * W) {                                         \
                if (col < base)                                                             \
                    NAME##_block(x, y, z, w, q, all, negkh, rest, 1);                       \
                else                                                                        \
                    NAME##_block(x, y, z, w, q, mt[col - base], negkh, rest, 1);            \
                col += 2 * W;                                                               \
                if (col >= nx)                                                              \
                    col -= nx, row++;                                                       \
            }                                                                               \
        }                                                                                   \
        for (; q + 2 * W <= qlim; q += 2 * W) {                                             \
            if (col <= fastlim)                                                             \
                NAME##_block(x, y, z, w, q, all, negkh, rest, 1);                           \
            else                                                                            \
                NAME##_at(s, q, col, row, all, negk, negkh, rest, span);                    \
            col += 2 * W;                                                                   \
            if (col >= nx) {                                                                \
                col -= nx, row++;                                                           \
                fastlim = row < s->ny && s->free_rows[row] >= 1 ? nx - span - 2 * W : -1;   \
            }                                                                               \
        }                                                                                   \
        for (; q < q_end; q += 2 * W) {                                                     \
            NAME##_at(s, q, col, row, q + 2 * W > mstart ? (AOFF + q) < mstart : all, negk, \
                      negkh, rest, span);                                                   \
            col += 2 * W;                                                                   \
            if (col >= nx)                                                                  \
                col -= nx, row++;                                                           \
        }                                                                                   \
        return mstart < len ? mstart + 2 * W : q_end;                                       \
    }
DEFINE_SHEET_FAST(v4_sstride2, v4f, v4i, v4, 4, NO_TARGET, S2A4, S2B4, S2L4, S2H4, 2,
                  ((v4i){0, 2, 4, 6}))
DEFINE_SHEET_FAST(v4_spairs, v4f, v4i, v4, 4, NO_TARGET, PRA4, PRB4, PRA4, PRB4, 4,
                  ((v4i){0, 1, 4, 5}))
#ifdef WB_CLOTH_AVX2
DEFINE_SHEET_FAST(v8_sstride2, v8f, v8i, v8, 8, AVX2, S2A8, S2B8, S2L8, S2H8, 2,
                  ((v8i){0, 2, 8, 10, 4, 6, 12, 14}))
DEFINE_SHEET_FAST(v8_spairs, v8f, v8i, v8, 8, AVX2, PRA8, PRB8, PRA8, PRB8, 4,
                  ((v8i){0, 1, 8, 9, 4, 5, 12, 13}))
DEFINE_SHEET_FAST(v16_sstride2, v16f, v16i, v16, 16, AVX512, S2A16, S2B16, S2L16, S2H16, 2,
                  S2O16)
DEFINE_SHEET_FAST(v16_spairs, v16f, v16i, v16, 16, AVX512, PRA16, PRB16, PRA16, PRB16, 4,
                  PRO16)
#endif

/* One colour of an in-row family over the sheet (plain PBD): the widest
 * blocks, then 4-wide ones from where they stopped, then single links. */
static void sheet_plain(WbClothState *s, int span, int colour, const LinkParams *p)
{
    const int nx = s->nx, n = s->n;
    int q = span * colour;
#ifdef WB_CLOTH_AVX2
    if (s->lanes == 16)
        q = span == 1 ? v16_sstride2(s, q, p->k, p->rest, 1) : v16_spairs(s, q, p->k, p->rest, 2);
    if (s->lanes >= 8)
        q = span == 1 ? v8_sstride2(s, q, p->k, p->rest, 1) : v8_spairs(s, q, p->k, p->rest, 2);
#endif
    q = span == 1 ? v4_sstride2(s, q, p->k, p->rest, 1) : v4_spairs(s, q, p->k, p->rest, 2);
    for (int a = q; a + span < n; a++) {
        if ((a / span) % 2 == colour && a % nx < nx - span)
            link1(s, a, a + span, NULL, p);
    }
}

static int row_stride2(WbClothState *s, int row0, int first, int len, float *lam,
                       const LinkParams *p)
{
#ifdef WB_CLOTH_AVX2
    if (s->lanes == 16)
        first = v16_stride2(s, row0, first, len, lam, p);
    if (s->lanes >= 8)
        first = v8_stride2(s, row0, first, len, lam, p);
#endif
    return v4_stride2(s, row0, first, len, lam, p);
}

static int row_pairs(WbClothState *s, int row0, int first, int len, float *lam,
                     const LinkParams *p)
{
#ifdef WB_CLOTH_AVX2
    if (s->lanes == 16)
        first = v16_pairs(s, row0, first, len, lam, p);
    if (s->lanes >= 8)
        first = v8_pairs(s, row0, first, len, lam, p);
#endif
    return v4_pairs(s, row0, first, len, lam, p);
}

enum { FAM_H, FAM_V, FAM_D1, FAM_D2, FAM_BH, FAM_BV };

/* The two colours of a family in one pass over the rows.  The sweep is
 * "colour 0 everywhere, then colour 1 everywhere", but a colour-1 link only
 * has to wait for the colour-0 links that share a particle with it, and
 * must come before none of them: so colour 1 can trail colour 0 by a few
 * rows and the result is the same, bit for bit, while each row is still in
 * a near cache when its second colour comes round: at 140×140 two passes
 * over the positions per family cost a third more than one.  The trail
 * must be long enough for the stores of the colour-0 rows to complete
 * before colour 1 reloads those particles: 3 rows made 70×70 8 % slower;
 * 8 or 16 rows are as fast as two passes there and 20–25 % faster at
 * 140×140. */
#define COLOUR_TRAIL 8 /* rows */

static void row_horizontal(WbClothState *s, int j, int colour, float *lam, const LinkParams *p)
{
    const int nx = s->nx, row0 = j * nx;
    int q = row_stride2(s, row0, colour, nx, lam, p);
    for (int i = q; i + 1 < nx; i += 2)
        link1(s, row0 + i, row0 + i + 1, lam ? lam + row0 + i : NULL, p);
}

/* links within a row never meet another row's: colour 1 of row j − trail
 * after colour 0 of row j */
static void sweep_horizontal(WbClothState *s, float *lam, const LinkParams *p)
{
    if (plain_pbd(lam, p)) {
        sheet_plain(s, 1, 0, p);
        sheet_plain(s, 1, 1, p);
        return;
    }
    for (int j = 0; j < s->ny + COLOUR_TRAIL; j++) {
        if (j < s->ny)
            row_horizontal(s, j, 0, lam, p);
        if (j - COLOUR_TRAIL >= 0)
            row_horizontal(s, j - COLOUR_TRAIL, 1, lam, p);
    }
}

static void row_bend_horizontal(WbClothState *s, int j, int colour, float *lam,
                                const LinkParams *p)
{
    const int nx = s->nx, row0 = j * nx;
    int q = row_pairs(s, row0, 2 * colour, nx, lam, p);
    for (int i = q; i + 2 < nx; i++) {
        if (((i >> 1) & 1) == colour)
            link1(s, row0 + i, row0 + i + 2, lam ? lam + row0 + i : NULL, p);
    }
}

static void sweep_bend_horizontal(WbClothState *s, float *lam, const LinkParams *p)
{
    if (plain_pbd(lam, p)) {
        sheet_plain(s, 2, 0, p);
        sheet_plain(s, 2, 1, p);
        return;
    }
    for (int j = 0; j < s->ny + COLOUR_TRAIL; j++) {
        if (j < s->ny)
            row_bend_horizontal(s, j, 0, lam, p);
        if (j - COLOUR_TRAIL >= 0)
            row_bend_horizontal(s, j - COLOUR_TRAIL, 1, lam, p);
    }
}

static void row_links(WbClothState *s, int fam, int j, int dj, float *lam, const LinkParams *p)
{
    const int nx = s->nx, row0 = j * nx;
    switch (fam) {
    case FAM_V:
    case FAM_BV: links_contig(s, row0, dj * nx, nx, lam, p); break;
    case FAM_D1: links_contig(s, row0, nx + 1, nx - 1, lam, p); break;
    default: links_contig(s, row0 + 1, nx - 1, nx - 1, lam, p); break;
    }
}

/* The plain PBD sweep of a row family (vertical, both diagonals, vertical
 * bend) is one sequential Gauss–Seidel pass over its links in the order of
 * their first particle a (row by row, left to right), taken W links at a
 * time: W consecutive links share no particle (b − a >= nx − 1 >= W), so a
 * block of them projected at once is exactly the sequential pass, for any
 * W.  Unlike the colour order this needs no row structure — no short last
 * block per row, no pass per colour — and a correction travels down the
 * whole sheet in one sweep (as in the reference's list order); rev runs the
 * same pass from the last link back to the first.  Links that
 * do not exist in the range (a diagonal's a in the column it cannot leave
 * by) are lanes switched off: column `bad` of a, or none for bad < 0.
 * A block is done without masses (uni) when every row it touches holds
 * only free particles.  Returns the links done (whole blocks). */
#define DEFINE_RANGE_FAST(VF, VI, PFX, W, ATTR, IOTA)                                     \
    static inline ATTR __attribute__((always_inline)) void PFX##_rblock(                  \
        float *x, float *y, float *z, const float *w, int a, int b, VI live, VF negk,     \
        VF negkh, VF rest, int uni)                                                       \
    {                                                                                     \
        if (uni)                                                                          \
            PFX##_fblock(x, y, z, w, a, b, live, negkh, rest, 1);                         \
        else                                                                              \
            PFX##_fblock(x, y, z, w, a, b, live, negk, rest, 0);                          \
    }                                                                                     \
    /* every row a block from row reaches holds only free particles */                    \
    static inline int PFX##_uni(const int *fr, int ny, int row, int reach)                \
    {                                                                                     \
        return row + reach < ny ? fr[row] > reach : fr[row] >= ny - row;                  \
    }                                                                                     \
    static ATTR int PFX##_range_fast(WbClothState *s, int a0, int boff, int count,        \
                                     float k_, float rest_, int bad, int rev)             \
    {                                                                                     \
        float *x = s->x, *y = s->y, *z = s->z;                                            \
        const float *w = s->w;                                                            \
        const int nx = s->nx, ny = s->ny, *fr = s->free_rows;                             \
        const VF negk = PFX##_set(-k_), negkh = PFX##_set(-0.5f * k_),                    \
                 rest = PFX##_set(rest_);                                                 \
        const VI all = IOTA >= 0;                                                         \
        /* rows a block reaches past its first: its last b is a + boff + W − 1 */         \
        const int reach = (boff + W - 1 + nx - 1) / nx;                                   \
        /* forward: blocks from a0 up; back: from the end down (the links done     \
         * are then the last ones of the range) */                                        \
        const int step = rev ? -W : W, nb = count / W;                                    \
        int a = a0 + (rev ? count - W : 0), left = nb;                                    \
        while (left > 0) {                                                                \
            int col = a % nx, row = a / nx;                                               \
            int uni = PFX##_uni(fr, ny, row, reach);                                      \
            /* lanes at columns col .. col + W − 1 (past nx: the next row); a    \
             * block holding column bad (or bad of the next row) is done alone,  \
             * with those lanes off */                                            \
            if (bad >= 0 && ((bad >= col && bad < col + W) || bad + nx < col + W)) {      \
                VI c = IOTA + col;                                                        \
                PFX##_rblock(x, y, z, w, a, a + boff, (c != bad) & (c != bad + nx), negk, \
                             negkh, rest, uni);                                           \
                a += step;                                                                \
                left--;                                                                   \
                continue;                                                                 \
            }                                                                             \
            /* a run: the blocks after this one that start in the same row and  \
             * hold no bad column share its masses test and need no mask, so    \
             * they go in a loop of loads, the kernel and stores only (the       \
             * per-block bookkeeping was a third of the instructions) */          \
            int run;                                                                      \
            if (!rev) {                                                                   \
                int lim = nx - 1; /* the last column a block of the run may start at */  \
                if (bad >= col)                                                           \
                    lim = bad - W < lim ? bad - W : lim;                                  \
                if (bad >= 0)                                                             \
                    lim = bad + nx - W < lim ? bad + nx - W : lim;                        \
                run = (lim - col) / W + 1;                                                \
            } else {                                                                      \
                int lim = 0; /* the first column a block of the run may start at */      \
                if (bad >= 0 && bad < col)                                                \
                    lim = bad + 1;                                                        \
                run = (col - lim) / W + 1;                                                \
            }                                                                             \
            if (bad < 0) { /* no mask anywhere: on through the rows of the same test */  \
                int r = row;                                                              \
                while (r + (rev ? -1 : 1) >= 0 && r + (rev ? -1 : 1) < ny &&              \
                       PFX##_uni(fr, ny, r + (rev ? -1 : 1), reach) == uni)               \
                    r += rev ? -1 : 1;                                                    \
                run = rev ? (a - r * nx) / W + 1 : ((r + 1) * nx - a + W - 1) / W;        \
            }                                                                             \
            run = run < left ? run : left;                                                \
            left -= run;                                                                  \
            if (uni)                                                                      \
                for (; run > 0; run--, a += step)                                         \
                    PFX##_fblock(x, y, z, w, a, a + boff, all, negkh, rest, 1);           \
            else                                                                          \
                for (; run > 0; run--, a += step)                                         \
                    PFX##_fblock(x, y, z, w, a, a + boff, all, negk, rest, 0);            \
        }                                                                                 \
        return nb * W;                                                                    \
    }
DEFINE_RANGE_FAST(v4f, v4i, v4, 4, NO_TARGET, ((v4i){0, 1, 2, 3}))
#ifdef WB_CLOTH_AVX2
DEFINE_RANGE_FAST(v8f, v8i, v8, 8, AVX2, ((v8i){0, 1, 2, 3, 4, 5, 6, 7}))
DEFINE_RANGE_FAST(v16f, v16i, v16, 16, AVX512, IOTA16)
#endif

static void range_plain(WbClothState *s, int fam, const LinkParams *p, int rev)
{
    const int nx = s->nx, ny = s->ny;
    int a0 = 0, boff = nx, count = (ny - 1) * nx, bad = -1;
    switch (fam) {
    case FAM_BV: boff = 2 * nx, count = (ny - 2) * nx; break;
    case FAM_D1: boff = nx + 1, count = (ny - 1) * nx - 1, bad = nx - 1; break;
    case FAM_D2: boff = nx - 1, count = (ny - 1) * nx, bad = 0; break;
    default: break;
    }
    /* [lo, hi): the links not yet done; a pass back does the range's end
     * first, each narrower width the end of what is left */
    int lo = a0, hi = a0 + count, k = 0;
    /* The blocks start on a multiple of 8 links, so their a ends sit on
     * 32-byte boundaries and only the b ends can cross a cache line: the
     * second diagonal's range starts at 0 (column 0 is its bad column
     * anyway), and a pass back over it first does the links past the last
     * multiple of 8 one by one, so that its blocks line up too (with both
     * ends off the boundary half of its loads and stores crossed a line).
     * Links of one range are done in the same order either way. */
    if (rev && fam == FAM_D2) {
        for (; hi % 8 != 0; hi--) {
            if ((hi - 1) % nx != bad)
                link1(s, hi - 1, hi - 1 + boff, NULL, p);
        }
    }
#ifdef WB_CLOTH_AVX2
    if (s->lanes == 16 && nx - 1 >= 16) {
        k = v16_range_fast(s, lo, boff, hi - lo, p->k, p->rest, bad, rev);
        rev ? (hi -= k) : (lo += k);
    }
    if (s->lanes >= 8 && nx - 1 >= 8) {
        k = v8_range_fast(s, lo, boff, hi - lo, p->k, p->rest, bad, rev);
        rev ? (hi -= k) : (lo += k);
    }
#endif
    if (nx - 1 >= 4) {
        k = v4_range_fast(s, lo, boff, hi - lo, p->k, p->rest, bad, rev);
        rev ? (hi -= k) : (lo += k);
    }
    for (int q = lo; q < hi; q++) {
        int a = rev ? lo + hi - 1 - q : q;
        if (a % nx != bad)
            link1(s, a, a + boff, NULL, p);
    }
}

/* Row families (XPBD; plain PBD goes to range_plain): links from row j to
 * row j + dj, colour (j mod 2dj) / dj (rows alternate for neighbours; pairs
 * of rows for the skip-one bend).
 * A colour-1 link row r touches rows r and r + dj, which colour-0 link rows
 * up to r + dj touch too: it goes once colour 0 has passed r + dj (plus the
 * trail); colour-0 rows still to come start above it, so none of them
 * touches a row it has changed. */
static void sweep_rows(WbClothState *s, int fam, float *lam, const LinkParams *p, int rev)
{
    if (plain_pbd(lam, p)) {
        range_plain(s, fam, p, rev);
        return;
    }
    const int ny = s->ny;
    int dj = fam == FAM_BV ? 2 : 1;
    int period = 2 * dj;
    int next1 = 0; /* the next colour-1 link row to do */
    for (int j = 0; j + dj < ny; j++) {
        if ((j % period) / dj == 0)
            row_links(s, fam, j, dj, lam, p);
        for (; next1 + dj < ny && next1 + dj + COLOUR_TRAIL <= j; next1++) {
            if ((next1 % period) / dj == 1)
                row_links(s, fam, next1, dj, lam, p);
        }
    }
    for (; next1 + dj < ny; next1++) {
        if ((next1 % period) / dj == 1)
            row_links(s, fam, next1, dj, lam, p);
    }
}

/* ---------------------------------------------------------------- dihedral */

static float dot3(const float a[3], const float b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* atan2 by Cephes' atanf (range reduced to |t| <= tan(π/8), a degree-9
 * odd polynomial, relative error ~2e-7), on lanes: only IEEE operations,
 * so every lane width and the one-constraint path agree bit for bit, and
 * no libm call per constraint.  The reduction needs one division:
 *   |y| > 2.414|x|:  π/2 + atan(−|x|/|y|)
 *   |y| > 0.414|x|:  π/4 + atan((|y| − |x|)/(|y| + |x|))
 *   otherwise:             atan(|y|/|x|)
 * then the quadrant from the signs of x and y; atan2(0, 0) = 0. */
#define DEFINE_ATAN2(VF, VI, PFX, ATTR)                                                   \
    static inline ATTR VF PFX##_atan2(VF y, VF x)                                         \
    {                                                                                     \
        const VF zero = PFX##_set(0.0f), pi = PFX##_set(3.14159265358979f);               \
        VF ax = (VF)((VI)x & PFX##_iset(0x7fffffff));                                     \
        VF ay = (VF)((VI)y & PFX##_iset(0x7fffffff));                                     \
        VI big = ay > ax * PFX##_set(2.414213562373095f);                                 \
        VI mid = ay > ax * PFX##_set(0.4142135623730950f);                                \
        VF num = PFX##_sel(big, zero - ax, PFX##_sel(mid, ay - ax, ay));                  \
        VF den = PFX##_sel(big, ay, PFX##_sel(mid, ay + ax, ax));                         \
        VF r0 = PFX##_sel(big, PFX##_set(1.57079632679490f),                              \
                          PFX##_sel(mid, PFX##_set(0.785398163397448f), zero));           \
        den = PFX##_sel(den == zero, PFX##_set(1.0f), den);                               \
        VF t = num / den, z = t * t;                                                      \
        VF poly = ((PFX##_set(8.05374449538e-2f) * z - PFX##_set(1.38776856032e-1f)) * z + \
                   PFX##_set(1.99777106478e-1f)) * z -                                    \
                  PFX##_set(3.33329491539e-1f);                                           \
        VF r = r0 + (poly * z * t + t);                                                   \
        r = PFX##_sel(x < zero, pi - r, r);                                               \
        return PFX##_sel(y < zero, zero - r, r);                                          \
    }
DEFINE_ATAN2(v4f, v4i, v4, NO_TARGET)
#ifdef WB_CLOTH_AVX2
DEFINE_ATAN2(v8f, v8i, v8, AVX2)
#endif

/* Dihedral angle at edge (e0, e1) between the triangles (w0, e0, e1) and
 * (w1, e1, e0) — Bridson, Marino & Fedkiw 2003.  With e = x_e1 − x_e0,
 *   N0 = (w0 − e0) × (w0 − e1),  N1 = (w1 − e1) × (w1 − e0),
 *   θ = atan2((n0 × n1)·ê, n0·n1)   (0 when flat; n = N/|N|),
 * and its gradients (the "bending modes"):
 *   ∇w0 = −|e| N0/|N0|²,  ∇w1 = −|e| N1/|N1|²,
 *   ∇e0 = −[ (w0−e1)·ê N0/|N0|² + (w1−e1)·ê N1/|N1|² ],
 *   ∇e1 = +[ (w0−e0)·ê N0/|N0|² + (w1−e0)·ê N1/|N1|² ].
 * On lanes: p[k][c] is coordinate c of quad point k (e0, e1, w0, w1); the
 * lanes where a triangle or the edge is degenerate come back false (their
 * θ and gradient are not meaningful). */
#define DEFINE_DIHEDRAL(VF, VI, PFX, ATTR)                                                \
    static inline ATTR __attribute__((always_inline)) VI PFX##_dihedral(                  \
        const VF p[4][3], VF *theta, VF g[4][3])                                          \
    {                                                                                     \
        VF e[3], a0[3], a1[3], b0[3], b1[3];                                              \
        for (int c = 0; c < 3; c++) {                                                     \
            e[c] = p[1][c] - p[0][c];                                                     \
            a0[c] = p[2][c] - p[0][c]; /* w0 − e0 */                                      \
            a1[c] = p[2][c] - p[1][c]; /* w0 − e1 */                                      \
            b0[c] = p[3][c] - p[0][c]; /* w1 − e0 */                                      \
            b1[c] = p[3][c] - p[1][c]; /* w1 − e1 */                                      \
        }                                                                                 \
        VF n0[3] = {a0[1] * a1[2] - a0[2] * a1[1], a0[2] * a1[0] - a0[0] * a1[2],         \
                    a0[0] * a1[1] - a0[1] * a1[0]};                                       \
        VF n1[3] = {b1[1] * b0[2] - b1[2] * b0[1], b1[2] * b0[0] - b1[0] * b0[2],         \
                    b1[0] * b0[1] - b1[1] * b0[0]};                                       \
        VF el2 = e[0] * e[0] + e[1] * e[1] + e[2] * e[2];                                 \
        VF l0 = n0[0] * n0[0] + n0[1] * n0[1] + n0[2] * n0[2];                            \
        VF l1 = n1[0] * n1[0] + n1[1] * n1[1] + n1[2] * n1[2];                            \
        VI ok = (el2 > PFX##_set(1e-16f)) & (l0 > PFX##_set(1e-24f)) &                    \
                (l1 > PFX##_set(1e-24f));                                                 \
        const VF one = PFX##_set(1.0f);                                                   \
        el2 = PFX##_sel(ok, el2, one);                                                    \
        l0 = PFX##_sel(ok, l0, one);                                                      \
        l1 = PFX##_sel(ok, l1, one);                                                      \
        VF el = PFX##_sqrt(el2), iel = one / el;                                          \
        VF eh[3] = {e[0] * iel, e[1] * iel, e[2] * iel};                                  \
        /* atan2 ignores a common positive factor, so the normals need no           \
         * normalizing: θ = atan2((N0 × N1)·e, (N0·N1)|e|) */                        \
        VF cx = n0[1] * n1[2] - n0[2] * n1[1], cy = n0[2] * n1[0] - n0[0] * n1[2],        \
           cz = n0[0] * n1[1] - n0[1] * n1[0];                                            \
        *theta = PFX##_atan2(cx * e[0] + cy * e[1] + cz * e[2],                           \
                             (n0[0] * n1[0] + n0[1] * n1[1] + n0[2] * n1[2]) * el);       \
        VF f0 = one / l0, f1 = one / l1;                                                  \
        VF t0e1 = a1[0] * eh[0] + a1[1] * eh[1] + a1[2] * eh[2];                          \
        VF t1e1 = b1[0] * eh[0] + b1[1] * eh[1] + b1[2] * eh[2];                          \
        VF t0e0 = a0[0] * eh[0] + a0[1] * eh[1] + a0[2] * eh[2];                          \
        VF t1e0 = b0[0] * eh[0] + b0[1] * eh[1] + b0[2] * eh[2];                          \
        for (int c = 0; c < 3; c++) {                                                     \
            VF m0 = n0[c] * f0, m1 = n1[c] * f1;                                          \
            g[2][c] = PFX##_set(0.0f) - el * m0;                                          \
            g[3][c] = PFX##_set(0.0f) - el * m1;                                          \
            g[0][c] = PFX##_set(0.0f) - (t0e1 * m0 + t1e1 * m1);                          \
            g[1][c] = t0e0 * m0 + t1e0 * m1;                                              \
        }                                                                                 \
        return ok;                                                                        \
    }
DEFINE_DIHEDRAL(v4f, v4i, v4, NO_TARGET)
#ifdef WB_CLOTH_AVX2
DEFINE_DIHEDRAL(v8f, v8i, v8, AVX2)
#endif

/* One constraint (lane 0 of the 4-lane kernel: the very operations of the
 * sweep).  Returns 0 for a degenerate triangle. */
static int dihedral(const WbClothState *s, const int32_t q[4], float *theta, float g[4][3])
{
    v4f p[4][3], vt, vg[4][3];
    for (int k = 0; k < 4; k++) {
        p[k][0] = v4_set(s->x[q[k]]);
        p[k][1] = v4_set(s->y[q[k]]);
        p[k][2] = v4_set(s->z[q[k]]);
    }
    v4i ok = v4_dihedral((const v4f(*)[3])p, &vt, vg);
    if (!ok[0])
        return 0;
    *theta = vt[0];
    for (int k = 0; k < 4; k++)
        for (int c = 0; c < 3; c++)
            g[k][c] = vg[k][c][0];
    return 1;
}

/* θ − θ_rest into (−π, π]: both angles are in [−π, π], so one turn at most. */
#define DEFINE_WRAP_PI(VF, VI, PFX, ATTR)                                                 \
    static inline ATTR VF PFX##_wrap_pi(VF a)                                             \
    {                                                                                     \
        const VF pi = PFX##_set(3.14159265358979f), tau = PFX##_set(6.28318530717959f);   \
        a = PFX##_sel(a > pi, a - tau, a);                                                \
        return PFX##_sel(a < PFX##_set(0.0f) - pi, a + tau, a);                           \
    }
DEFINE_WRAP_PI(v4f, v4i, v4, NO_TARGET)
#ifdef WB_CLOTH_AVX2
DEFINE_WRAP_PI(v8f, v8i, v8, AVX2)
#endif

/* The projection of W constraints on lanes: points p (e0, e1, w0, w1),
 * their inverse masses wq, rest angles, multipliers lam (XPBD; updated).
 * Returns the lanes that act (live, no inert particle, something to move,
 * no degenerate triangle); for those the new positions go to p, the others
 * keep theirs bit for bit. */
#define DEFINE_DIH_PROJECT(VF, VI, PFX, ATTR)                                             \
    static inline ATTR __attribute__((always_inline)) VI PFX##_dih_project(               \
        VF p[4][3], const VF wq[4], VF rest, VF *lam, VI live, float k, float at,         \
        bool xpbd)                                                                        \
    {                                                                                     \
        const VF zero = PFX##_set(0.0f);                                                  \
        VI inert = zero < zero, movable = inert;                                          \
        for (int v = 0; v < 4; v++) {                                                     \
            inert |= wq[v] < zero;                                                        \
            movable |= wq[v] > zero;                                                      \
        }                                                                                 \
        VF theta, g[4][3];                                                                \
        VI ok = PFX##_dihedral((const VF(*)[3])p, &theta, g) & ~inert & movable & live;   \
        VF cval = PFX##_wrap_pi(theta - rest);                                            \
        VF den = zero;                                                                    \
        for (int v = 0; v < 4; v++)                                                       \
            den += wq[v] * (g[v][0] * g[v][0] + g[v][1] * g[v][1] + g[v][2] * g[v][2]);   \
        ok &= den > PFX##_set(1e-20f);                                                    \
        den = PFX##_sel(ok, den, PFX##_set(1.0f));                                        \
        VF dl;                                                                            \
        if (xpbd)                                                                         \
            dl = (zero - cval - PFX##_set(at) * *lam) / (den + PFX##_set(at));            \
        else                                                                              \
            dl = PFX##_set(-k) * cval / den;                                              \
        dl = PFX##_sel(ok, dl, zero);                                                     \
        *lam += dl;                                                                       \
        for (int v = 0; v < 4; v++) {                                                     \
            VF f = wq[v] * dl;                                                            \
            for (int c = 0; c < 3; c++)                                                   \
                p[v][c] = PFX##_sel(ok, p[v][c] + f * g[v][c], p[v][c]);                  \
        }                                                                                 \
        return ok;                                                                        \
    }
DEFINE_DIH_PROJECT(v4f, v4i, v4, NO_TARGET)
#ifdef WB_CLOTH_AVX2
DEFINE_DIH_PROJECT(v8f, v8i, v8, AVX2)
#endif

/* W constraints c0 .. c0+nl−1 of one colour at once, gathered lane by lane
 * from their stored quads and scattered back (rows too short for the
 * strided blocks below).  Lanes past nl repeat c0 and write nothing. */
#define DEFINE_DIH_BLOCK(VF, VI, PFX, W, ATTR, IOTA)                                      \
    static ATTR void PFX##_dih_block(WbClothState *s, int c0, int nl, float k, float at,  \
                                     bool xpbd)                                           \
    {                                                                                     \
        float P[4][4][W];                                                                 \
        float R[W], L[W];                                                                 \
        int32_t Q[4][W];                                                                  \
        for (int l = 0; l < W; l++) {                                                     \
            int c = c0 + (l < nl ? l : 0);                                                \
            const int32_t *q = s->dih + 4 * c;                                            \
            for (int v = 0; v < 4; v++) {                                                 \
                Q[v][l] = q[v];                                                           \
                P[v][0][l] = s->x[q[v]];                                                  \
                P[v][1][l] = s->y[q[v]];                                                  \
                P[v][2][l] = s->z[q[v]];                                                  \
                P[v][3][l] = s->w[q[v]];                                                  \
            }                                                                             \
            R[l] = s->dih_rest[c];                                                        \
            L[l] = s->dih_lambda[c];                                                      \
        }                                                                                 \
        VF p[4][3], wq[4];                                                                \
        for (int v = 0; v < 4; v++) {                                                     \
            for (int c = 0; c < 3; c++)                                                   \
                p[v][c] = PFX##_ld(P[v][c]);                                              \
            wq[v] = PFX##_ld(P[v][3]);                                                    \
        }                                                                                 \
        VF lam = PFX##_ld(L);                                                             \
        VI ok = PFX##_dih_project(p, wq, PFX##_ld(R), &lam, IOTA < nl, k, at, xpbd);      \
        int32_t OK[W];                                                                    \
        memcpy(OK, &ok, sizeof OK);                                                       \
        for (int v = 0; v < 4; v++)                                                       \
            for (int c = 0; c < 3; c++)                                                   \
                PFX##_st(P[v][c], p[v][c]);                                               \
        PFX##_st(L, lam);                                                                 \
        for (int l = 0; l < nl; l++) {                                                    \
            if (!OK[l])                                                                   \
                continue;                                                                 \
            for (int v = 0; v < 4; v++) {                                                 \
                int32_t q = Q[v][l];                                                      \
                s->x[q] = P[v][0][l];                                                     \
                s->y[q] = P[v][1][l];                                                     \
                s->z[q] = P[v][2][l];                                                     \
            }                                                                             \
            if (xpbd)                                                                     \
                s->dih_lambda[c0 + l] = L[l];                                             \
        }                                                                                 \
    }
DEFINE_DIH_BLOCK(v4f, v4i, v4, 4, NO_TARGET, ((v4i){0, 1, 2, 3}))
#ifdef WB_CLOTH_AVX2
DEFINE_DIH_BLOCK(v8f, v8i, v8, 8, AVX2, ((v8i){0, 1, 2, 3, 4, 5, 6, 7}))
#endif

/* The three kinds of inner edge (build_dihedral), as the grid places their
 * quads around (i, j):
 *   D  the cell's diagonal    e0 (i,j)    e1 (i+1,j+1)  w0 (i+1,j)    w1 (i,j+1)
 *   H  an edge along a row    e0 (i,j)    e1 (i+1,j)    w0 (i+1,j+1)  w1 (i,j−1)
 *   V  an edge along a column e0 (i,j+1)  e1 (i,j)      w0 (i+1,j+1)  w1 (i−1,j)
 * A colour is one kind at one parity of i and of j: two quads of a colour
 * share no particle (they are two columns or two rows apart, and where a
 * row-edge quad reaches into the next quad's rows it does so in the other
 * parity of column).  So the quads of a colour in one row sit at every
 * second column: W of them read 2W consecutive particles of each row they
 * touch, the even ones for one point of the quad and the odd ones for
 * another — "segments", loaded and stored as two vectors each, split and
 * merged by the stride-2 shuffles, instead of gathered particle by
 * particle. */
enum { DIH_D, DIH_H, DIH_V, DIH_KINDS };
#define DIH_COLOURS (4 * DIH_KINDS)
_Static_assert(DIH_COLOURS == WB_CLOTH_DIH_COLOURS, "the state's colour table");
typedef struct DihSeg {
    int dj, di;      /* the segment starts at particle (i0 + di, j + dj) */
    int even, odd;   /* the quad point of its even / odd particles, −1: none */
} DihSeg;
static const DihSeg DIH_SEGS[DIH_KINDS][3] = {
    [DIH_D] = {{0, 0, 0, 2}, {1, 0, 3, 1}, {0, 0, -1, -1}},
    [DIH_H] = {{-1, 0, 3, -1}, {0, 0, 0, 1}, {1, 0, -1, 2}},
    [DIH_V] = {{0, -1, 3, 1}, {1, 0, 0, 2}, {0, 0, -1, -1}},
};

/* The quads of a kind: i in [imin, imax], j in [jmin, jmax]. */
static void dih_kind_range(const WbClothState *s, int kind, int *imin, int *imax, int *jmin,
                           int *jmax)
{
    *imin = kind == DIH_V ? 1 : 0;
    *imax = s->nx - 2;
    *jmin = kind == DIH_H ? 1 : 0;
    *jmax = s->ny - 2;
}

/* First value >= lo with the parity par (0 or 1). */
static int first_of_parity(int lo, int par)
{
    return lo + ((par - lo) % 2 + 2) % 2;
}

/* W quads of one kind in row j at columns i0, i0 + 2, ..., stored as
 * constraints c0 .. c0+W−1; lanes not in live are left as they are.  The
 * shuffles take the lanes in the order CPERM of the constraints (the
 * 8-lane split stays within 128-bit halves), so the rest angles and
 * multipliers are permuted alike. */
#define DEFINE_DIH_ROW(VF, VI, PFX, W, ATTR, SA, SB, SL, SH, CPERM)                        \
    static inline ATTR __attribute__((always_inline)) void PFX##_dih_row_kind(             \
        WbClothState *s, int kind, int j, int i0, int c0, VI live, float k, float at,      \
        bool xpbd)                                                                         \
    {                                                                                      \
        float *arr[4] = {s->x, s->y, s->z, s->w};                                          \
        const int nseg = kind == DIH_H ? 3 : 2;                                            \
        VF lo[3][3], hi[3][3], p[4][3], wq[4];                                             \
        for (int g = 0; g < nseg; g++) {                                                   \
            const DihSeg *sg = &DIH_SEGS[kind][g];                                         \
            const int base = (j + sg->dj) * s->nx + i0 + sg->di;                           \
            for (int c = 0; c < 4; c++) {                                                  \
                VF l = PFX##_ld(arr[c] + base), h = PFX##_ld(arr[c] + base + W);           \
                if (c < 3)                                                                 \
                    lo[g][c] = l, hi[g][c] = h;                                            \
                VF *dst_e = sg->even < 0 ? NULL : c < 3 ? &p[sg->even][c] : &wq[sg->even]; \
                VF *dst_o = sg->odd < 0 ? NULL : c < 3 ? &p[sg->odd][c] : &wq[sg->odd];    \
                if (dst_e)                                                                 \
                    *dst_e = SA(l, h);                                                     \
                if (dst_o)                                                                 \
                    *dst_o = SB(l, h);                                                     \
            }                                                                              \
        }                                                                                  \
        VF rest = CPERM(PFX##_ld(s->dih_rest + c0)), lam = CPERM(PFX##_ld(s->dih_lambda + c0)); \
        PFX##_dih_project(p, wq, rest, &lam, live, k, at, xpbd);                           \
        for (int g = 0; g < nseg; g++) {                                                   \
            const DihSeg *sg = &DIH_SEGS[kind][g];                                         \
            const int base = (j + sg->dj) * s->nx + i0 + sg->di;                           \
            for (int c = 0; c < 3; c++) {                                                  \
                VF e = sg->even < 0 ? SA(lo[g][c], hi[g][c]) : p[sg->even][c];             \
                VF o = sg->odd < 0 ? SB(lo[g][c], hi[g][c]) : p[sg->odd][c];               \
                PFX##_st(arr[c] + base, SL(e, o));                                         \
                PFX##_st(arr[c] + base + W, SH(e, o));                                     \
            }                                                                              \
        }                                                                                  \
        if (xpbd)                                                                          \
            PFX##_st(s->dih_lambda + c0, CPERM(lam));                                      \
    }                                                                                      \
    static ATTR void PFX##_dih_row(WbClothState *s, int kind, int j, int i0, int c0,       \
                                   VI live, float k, float at, bool xpbd)                  \
    {                                                                                      \
        switch (kind) { /* one copy per kind, its segment table constant */                \
        case DIH_D: PFX##_dih_row_kind(s, DIH_D, j, i0, c0, live, k, at, xpbd); break;      \
        case DIH_H: PFX##_dih_row_kind(s, DIH_H, j, i0, c0, live, k, at, xpbd); break;      \
        default: PFX##_dih_row_kind(s, DIH_V, j, i0, c0, live, k, at, xpbd); break;         \
        }                                                                                  \
    }
#define CPERM4(v) (v)
DEFINE_DIH_ROW(v4f, v4i, v4, 4, NO_TARGET, S2A4, S2B4, S2L4, S2H4, CPERM4)
#ifdef WB_CLOTH_AVX2
#define CPERM8(v) __builtin_shuffle(v, (v8i){0, 1, 4, 5, 2, 3, 6, 7})
DEFINE_DIH_ROW(v8f, v8i, v8, 8, AVX2, S2A8, S2B8, S2L8, S2H8, CPERM8)
#endif

/* One colour, row by row: blocks of W quads, the row's last few by one
 * block moved back to end at its last quad (its lanes for quads already
 * done switched off: they are loaded after that block's stores and stored
 * back unchanged); rows with fewer than W quads go through the gathering
 * block.  No two quads of the colour share a particle, so this is the
 * sequential pass over the colour's stored order, for any W. */
#define DEFINE_DIH_COLOUR(VF, VI, PFX, W, ATTR, IOTA, CPERM)                               \
    static ATTR void PFX##_dih_colour(WbClothState *s, int col, float k, float at,         \
                                      bool xpbd)                                           \
    {                                                                                      \
        const int kind = col / 4;                                                          \
        int imin, imax, jmin, jmax;                                                        \
        dih_kind_range(s, kind, &imin, &imax, &jmin, &jmax);                               \
        const int i1 = first_of_parity(imin, col % 2), j1 = first_of_parity(jmin, col / 2 % 2); \
        const int cnt = i1 <= imax ? (imax - i1) / 2 + 1 : 0;                              \
        const VI all = IOTA >= 0;                                                          \
        int c = s->dih_colour[col];                                                        \
        for (int j = j1; j <= jmax && cnt > 0; j += 2, c += cnt) {                         \
            if (cnt < W) {                                                                 \
                PFX##_dih_block(s, c, cnt, k, at, xpbd);                                   \
                continue;                                                                  \
            }                                                                              \
            const int nb = cnt / W;                                                        \
            for (int b = 0; b < nb; b++)                                                   \
                PFX##_dih_row(s, kind, j, i1 + 2 * W * b, c + W * b, all, k, at, xpbd);    \
            if (cnt % W) {                                                                 \
                const int last = c + cnt - W;                                              \
                PFX##_dih_row(s, kind, j, i1 + 2 * (cnt - W), last,                        \
                              CPERM(IOTA) + last >= c + nb * W, k, at, xpbd);               \
            }                                                                              \
        }                                                                                  \
    }
DEFINE_DIH_COLOUR(v4f, v4i, v4, 4, NO_TARGET, ((v4i){0, 1, 2, 3}), CPERM4)
#ifdef WB_CLOTH_AVX2
DEFINE_DIH_COLOUR(v8f, v8i, v8, 8, AVX2, ((v8i){0, 1, 2, 3, 4, 5, 6, 7}), CPERM8)
#endif

static void sweep_dihedral(WbClothState *s, float k, float at, bool xpbd)
{
    for (int col = 0; col < s->n_dih_colours; col++) {
#ifdef WB_CLOTH_AVX2
        if (s->lanes >= 8) {
            v8_dih_colour(s, col, k, at, xpbd);
            continue;
        }
#endif
        v4_dih_colour(s, col, k, at, xpbd);
    }
}

int wb_cloth_dihedral_eval(const WbClothState *s, const int32_t q[4], float *theta,
                           float grad[4][3])
{
    return dihedral(s, q, theta, grad);
}

/* ---------------------------------------------------------------- bodies */

/* The (x, y) cell of a point inside the body bounds. */
static inline int bucket_of(const WbClothState *s, float x, float y)
{
    int bx = (int)((x - s->body_lo[0]) * s->bucket_inv[0]);
    int by = (int)((y - s->body_lo[1]) * s->bucket_inv[1]);
    bx = bx < 0 ? 0 : (bx >= WB_CLOTH_BUCKETS_X ? WB_CLOTH_BUCKETS_X - 1 : bx);
    by = by < 0 ? 0 : (by >= WB_CLOTH_BUCKETS_Y ? WB_CLOTH_BUCKETS_Y - 1 : by);
    return by * WB_CLOTH_BUCKETS_X + bx;
}

/* Spheres are tested four at a time from the bucket's packed copy (padded
 * with spheres no point can reach): a group none of whose spheres reaches
 * the point is skipped; a group with a hit is walked one sphere at a time
 * with the point as it moves.  Since the point only moves at a hit, this is
 * exactly the sequential "push out of each sphere in turn" of the
 * reference, without walking every candidate one by one. */
static inline int group_reaches(const WbClothState *s, int g, float x, float y, float z,
                                float margin, float skin)
{
    v4f dx = v4_set(x) - v4_ld(s->pack_x + g), dy = v4_set(y) - v4_ld(s->pack_y + g),
        dz = v4_set(z) - v4_ld(s->pack_z + g),
        r = (v4_ld(s->pack_r + g) + v4_set(margin)) + v4_set(skin);
    v4i m = (dx * dx + dy * dy + dz * dz) < r * r;
    return (m[0] | m[1] | m[2] | m[3]) != 0;
}

static inline int in_body_bounds(const WbClothState *s, float x, float y, float z)
{
    return x >= s->body_lo[0] && x <= s->body_hi[0] && y >= s->body_lo[1] &&
           y <= s->body_hi[1] && z >= s->body_lo[2] && z <= s->body_hi[2];
}

/* Push (x, y, z) out of every sphere it is in.  Returns the number of hits. */
static int push_spheres(const WbClothState *s, float margin, float *x, float *y, float *z)
{
    if (!in_body_bounds(s, *x, *y, *z))
        return 0;
    int bk = bucket_of(s, *x, *y), hits = 0;
    for (int g = s->pack_start[bk]; g < s->pack_start[bk + 1]; g += 4) {
        if (!group_reaches(s, g, *x, *y, *z, margin, 0.0f))
            continue;
        for (int k = g; k < g + 4; k++) {
            float cx = s->pack_x[k], cy = s->pack_y[k], cz = s->pack_z[k];
            float dx = *x - cx, dy = *y - cy, dz = *z - cz, r = s->pack_r[k] + margin;
            float d2 = dx * dx + dy * dy + dz * dz;
            if (d2 < r * r && d2 > 1e-18f) {
                float f = r / sqrtf(d2);
                *x = cx + dx * f;
                *y = cy + dy * f;
                *z = cz + dz * f;
                hits++;
            }
        }
    }
    return hits;
}

/* Inside the box grown by margin: push out through the nearest face; the
 * face normal goes to n.  Returns the push depth, 0 when outside. */
static float push_box(const WbBox *bx, float margin, float *x, float *y, float *z, float n[3])
{
    float *p[3] = {x, y, z};
    float best = INFINITY;
    int axis = -1;
    float sgn = 1.0f;
    for (int c = 0; c < 3; c++) {
        float d = *p[c] - bx->c[c], h = bx->h[c] + margin;
        float pen = h - fabsf(d);
        if (!(pen > 0.0f))
            return 0.0f;
        if (pen < best) {
            best = pen;
            axis = c;
            sgn = d >= 0.0f ? 1.0f : -1.0f;
        }
    }
    *p[axis] = bx->c[axis] + sgn * (bx->h[axis] + margin);
    n[0] = n[1] = n[2] = 0.0f;
    n[axis] = sgn;
    return best;
}

/* Per sphere, for the lane passes: centre, r = radius + margin and the
 * squared reach (r + skin)² — the very floats push_spheres() and
 * friction_spheres() compute for each test. */
static void sphere_table(const WbClothState *s, float margin, float skin,
                         float sph[WB_CLOTH_MAX_SPHERES][5])
{
    for (int k = 0; k < s->n_spheres; k++) {
        const WbSphere *sp = &s->spheres[k];
        float r = sp->r + margin, rs = r + skin;
        sph[k][0] = sp->x;
        sph[k][1] = sp->y;
        sph[k][2] = sp->z;
        sph[k][3] = r;
        sph[k][4] = rs * rs;
    }
}

/* Each lane's bucket mask of spheres, for the collision passes below: m[l] =
 * bucket[idx[l]] for the live lanes l, 0 for the others; the gather returns
 * the union of the masks, and has(k) the lanes whose mask holds sphere k.
 * At 4 and 8 lanes the masks are read lane by lane: AVX2's 64-bit gathers
 * (two per 8 lanes) take fewer instructions but ~17 cycles each on the AMD
 * cores this was first measured on; the lane loop made the friction pass
 * 6-12 % quicker and the push pass no slower (70x70 and 140x140 drapes).
 * A dead lane's bucket is not read at all (a load of every lane's bucket
 * ANDed with the lane mask was ~8 % slower than the branch). */
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
 * reads nothing), and has(k) one bit test per half into a mask register.
 * On the Intel Xeon (Sapphire Rapids) VM this made 70×70 frames ~4.5 %
 * quicker than the lane loop, and looking up the next block's masks before
 * walking this one's spheres (see PFX_look) another ~3 % (frames alternated
 * in one process, both ways round, 600 frames; the same bytes). */
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
 * these are exactly the operations of the one-particle code below (a sphere
 * outside a lane's bucket, or out of its reach, leaves it unchanged), so the
 * result does not depend on the lane width; only the branches go: a sphere
 * no lane reaches costs a test of all lanes at once. */
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
     * was 4–6 % of the passes' instructions), with the sphere table spread over          \
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
    static ATTR int PFX##_push_all(WbClothState *s, int i, float (*sph)[5])               \
    {                                                                                     \
        return PFX##_bodies_all(s, i, sph, false, 0.0f, 0.0f);                            \
    }                                                                                     \
    static ATTR int PFX##_friction_all(WbClothState *s, int i, float (*sph)[5], float mu, \
                                       float gdt2)                                        \
    {                                                                                     \
        return PFX##_bodies_all(s, i, sph, true, mu, gdt2);                               \
    }

DEFINE_COLLIDE(v4f, v4i, v4, 4, NO_TARGET, V4_ANY)
#ifdef WB_CLOTH_AVX2
DEFINE_COLLIDE(v8f, v8i, v8, 8, AVX2, V8_ANY)
DEFINE_COLLIDE(v16f, v16i, v16, 16, AVX512, V16_ANY)
#endif

static void collide_push(WbClothState *s, const WbClothDef *def)
{
    const float margin = def->margin;
    float sph[WB_CLOTH_MAX_SPHERES][5];
    sphere_table(s, margin, 0.0f, sph);
    int i = 0;
#ifdef WB_CLOTH_AVX2
    if (s->lanes == 16)
        i = v16_push_all(s, i, sph);
    if (s->lanes >= 8)
        i = v8_push_all(s, i, sph);
#endif
    i = v4_push_all(s, i, sph);
    for (; i < s->n; i++) {
        if (!(s->w[i] > 0.0f))
            continue;
        float x = s->x[i], y = s->y[i], z = s->z[i];
        if (push_spheres(s, margin, &x, &y, &z)) {
            s->x[i] = x;
            s->y[i] = y;
            s->z[i] = z;
        }
    }
    /* boxes after the spheres, particle by particle as in the reference */
    for (int b = 0; b < s->n_boxes; b++) {
        for (i = 0; i < s->n; i++) {
            if (!(s->w[i] > 0.0f))
                continue;
            float n[3];
            push_box(&s->boxes[b], margin, &s->x[i], &s->y[i], &s->z[i], n);
        }
    }
}

/* Contact friction on the implicit velocity v = x − x_prev: remove the
 * normal part; keep the tangential part only if it exceeds the static limit
 * μs·(normal load of gravity over the substep + push depth) — Coulomb's
 * cone for a particle resting on the surface — and then scale it by
 * (1 − μ).  Rewrites x_prev so the next prediction carries that velocity. */
static void contact_friction(WbClothState *s, int i, const float n[3], float depth,
                             float mu, float gdt2)
{
    float vx = s->x[i] - s->px[i], vy = s->y[i] - s->py[i], vz = s->z[i] - s->pz[i];
    float vn = vx * n[0] + vy * n[1] + vz * n[2];
    float tx = vx - vn * n[0], ty = vy - vn * n[1], tz = vz - vn * n[2];
    float load = gdt2 * n[1];
    if (load < 0.0f)
        load = 0.0f;
    float limit = WB_CLOTH_STATIC_RATIO * mu * (load + depth);
    float keep = (tx * tx + ty * ty + tz * tz <= limit * limit) ? 0.0f : 1.0f - mu;
    s->px[i] = s->x[i] - tx * keep;
    s->py[i] = s->y[i] - ty * keep;
    s->pz[i] = s->z[i] - tz * keep;
}

/* The final pass.  The interleaved passes have usually put a resting
 * particle exactly on the surface already, so "in contact" means within a
 * thin skin of it, not strictly inside — otherwise friction would almost
 * never act (which is why the reference's cloth slides off the torso). */
static void friction_spheres(WbClothState *s, int i, float margin, float skin, float mu,
                             float gdt2)
{
    /* a push out of one sphere can land inside a neighbour: a few rounds */
    for (int round = 0; round < 4; round++) {
        if (!in_body_bounds(s, s->x[i], s->y[i], s->z[i]))
            break;
        int bk = bucket_of(s, s->x[i], s->y[i]), hits = 0;
        for (int g = s->pack_start[bk]; g < s->pack_start[bk + 1]; g += 4) {
            if (!group_reaches(s, g, s->x[i], s->y[i], s->z[i], margin, skin))
                continue;
            for (int k = g; k < g + 4; k++) {
                float cx = s->pack_x[k], cy = s->pack_y[k], cz = s->pack_z[k];
                float dx = s->x[i] - cx, dy = s->y[i] - cy, dz = s->z[i] - cz;
                float r = s->pack_r[k] + margin, rs = r + skin;
                float d2 = dx * dx + dy * dy + dz * dz;
                if (!(d2 < rs * rs && d2 > 1e-18f))
                    continue;
                float d = sqrtf(d2);
                float n[3] = {dx / d, dy / d, dz / d};
                float depth = r - d;
                if (depth > 0.0f) {
                    s->x[i] = cx + n[0] * r;
                    s->y[i] = cy + n[1] * r;
                    s->z[i] = cz + n[2] * r;
                    hits++;
                } else {
                    depth = 0.0f;
                }
                contact_friction(s, i, n, depth, mu, gdt2);
            }
        }
        if (!hits)
            break;
    }
}

static void collide_friction(WbClothState *s, const WbClothDef *def, float dt)
{
    const float mu = def->fabric.friction, gdt2 = def->gravity * dt * dt;
    const float margin = def->margin, skin = WB_CLOTH_CONTACT_SKIN + 0.1f * margin;
    float sph[WB_CLOTH_MAX_SPHERES][5];
    sphere_table(s, margin, skin, sph);
    int i = 0;
#ifdef WB_CLOTH_AVX2
    if (s->lanes == 16)
        i = v16_friction_all(s, i, sph, mu, gdt2);
    if (s->lanes >= 8)
        i = v8_friction_all(s, i, sph, mu, gdt2);
#endif
    i = v4_friction_all(s, i, sph, mu, gdt2);
    for (; i < s->n; i++) {
        if (s->w[i] > 0.0f)
            friction_spheres(s, i, margin, skin, mu, gdt2);
    }
    if (s->n_boxes == 0)
        return;
    for (i = 0; i < s->n; i++) {
        if (!(s->w[i] > 0.0f))
            continue;
        for (int b = 0; b < s->n_boxes; b++) {
            float n[3], x = s->x[i], y = s->y[i], z = s->z[i];
            float depth = push_box(&s->boxes[b], margin + skin, &x, &y, &z, n);
            if (depth > 0.0f) {
                /* within margin + skin: touching; inside the margin: put it
                 * on the margin surface (the push went skin further) */
                depth -= skin;
                if (depth > 0.0f) {
                    s->x[i] = x - n[0] * skin;
                    s->y[i] = y - n[1] * skin;
                    s->z[i] = z - n[2] * skin;
                }
                contact_friction(s, i, n, depth > 0.0f ? depth : 0.0f, mu, gdt2);
            }
        }
    }
}

static void collide_floor(WbClothState *s, const WbClothDef *def, float dt)
{
    const float n[3] = {0.0f, 1.0f, 0.0f};
    const float fy = def->floor_y, mu = def->fabric.friction, gdt2 = def->gravity * dt * dt;
    const float lim = fy + WB_CLOTH_CONTACT_SKIN;
    const v4f vlim = v4_set(lim);
    const float *py = s->y;
    for (int i0 = 0; i0 < s->n; i0 += 4) {
        /* four at a time off the floor (most of the cloth): skipped at once */
        int i1 = i0 + 4 < s->n ? i0 + 4 : s->n;
        if (i1 == i0 + 4 && !V4_ANY(v4_ld(py + i0) < vlim))
            continue;
        for (int i = i0; i < i1; i++) {
            if (!(s->y[i] < lim && s->w[i] > 0.0f))
                continue;
            float depth = fy - s->y[i];
            depth = depth > 0.0f ? depth : 0.0f;
            s->y[i] = s->y[i] < fy ? fy : s->y[i];
            contact_friction(s, i, n, depth, mu, gdt2);
        }
    }
}

/* ---------------------------------------------------------------- self collision */

static uint32_t cell_hash(int32_t ix, int32_t iy, int32_t iz, int size)
{
    uint32_t h = ((uint32_t)ix * 73856093u) ^ ((uint32_t)iy * 19349663u) ^
                 ((uint32_t)iz * 83492791u);
    return h & (uint32_t)(size - 1);
}

static float self_thickness(const WbClothState *s, const WbClothDef *def)
{
    if (def->thickness > 0.0f)
        return def->thickness;
    float h = s->rest[FAM_H] < s->rest[FAM_V] ? s->rest[FAM_H] : s->rest[FAM_V];
    return 0.6f * h;
}

/* Particles closer than the thickness that are not grid neighbours (more
 * than two steps apart in i or j) are pushed apart to the thickness, split
 * by inverse mass.  The hash is rebuilt by a stable counting sort, so the
 * pair order — and the result — is fixed. */
static void self_collide(WbClothState *s, const WbClothDef *def)
{
    const float th = self_thickness(s, def), inv = 1.0f / th;
    const int size = s->hash_size, nx = s->nx;
    int32_t *start = s->hash_start, *items = s->hash_items, *key = s->hash_key;
    memset(start, 0, sizeof *start * (size_t)(size + 1));
    for (int i = 0; i < s->n; i++) {
        key[i] = (int32_t)cell_hash((int32_t)floorf(s->x[i] * inv), (int32_t)floorf(s->y[i] * inv),
                                    (int32_t)floorf(s->z[i] * inv), size);
        start[key[i] + 1]++;
    }
    for (int k = 0; k < size; k++)
        start[k + 1] += start[k];
    /* fill using the counts as cursors, then restore the starts */
    for (int i = 0; i < s->n; i++)
        items[start[key[i]]++] = i;
    for (int k = size; k > 0; k--)
        start[k] = start[k - 1];
    start[0] = 0;

    for (int i = 0; i < s->n; i++) {
        int32_t cx = (int32_t)floorf(s->x[i] * inv), cy = (int32_t)floorf(s->y[i] * inv),
                cz = (int32_t)floorf(s->z[i] * inv);
        uint32_t seen[27];
        int n_seen = 0;
        int ii = i % nx, ij = i / nx;
        for (int d = 0; d < 27; d++) {
            uint32_t h = cell_hash(cx + d % 3 - 1, cy + (d / 3) % 3 - 1, cz + d / 9 - 1, size);
            int dup = 0;
            for (int u = 0; u < n_seen; u++)
                dup |= seen[u] == h;
            if (dup)
                continue;
            seen[n_seen++] = h;
            for (int e = start[h]; e < start[h + 1]; e++) {
                int q = items[e];
                if (q <= i)
                    continue;
                int di = q % nx - ii, dj = q / nx - ij;
                if (di >= -2 && di <= 2 && dj >= -2 && dj <= 2)
                    continue;
                float dx = s->x[q] - s->x[i], dy = s->y[q] - s->y[i], dz = s->z[q] - s->z[i];
                float d2 = dx * dx + dy * dy + dz * dz;
                float ws = s->w[i] + s->w[q];
                if (!(d2 < th * th) || !(d2 > 1e-18f) || !(ws > 0.0f) || s->w[i] < 0.0f ||
                    s->w[q] < 0.0f)
                    continue;
                float dist = sqrtf(d2);
                float f = (th - dist) / (dist * ws);
                float wi = s->w[i] * f, wq = s->w[q] * f;
                s->x[i] -= dx * wi;
                s->y[i] -= dy * wi;
                s->z[i] -= dz * wi;
                s->x[q] += dx * wq;
                s->y[q] += dy * wq;
                s->z[q] += dz * wq;
            }
        }
    }
}

/* ---------------------------------------------------------------- stages */

/* predict() for particles i, i + 1, ... of one row, W at a time (the same
 * operations as its scalar loop, so the same result); returns where it
 * stopped.  Held particles (w <= 0) keep x; every particle gets px = x. */
#define DEFINE_PREDICT(VF, VI, PFX, W, ATTR)                                              \
    static ATTR int PFX##_predict_row(WbClothState *s, int row0, int i, const float c[9], \
                                      int wind)                                           \
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

/* Verlet prediction: v = (x − x_prev)·damp; x_prev = x; x += v + a·dt².
 * Wind: gust = bias + 0.6 sin(2.1t + 7.5v) + 0.4 sin(0.7t + 4u) over the
 * material coordinates u (along i) and v (along j), metres; the sines are
 * split by angle addition, sin(ωt + φ) = sin ωt cos φ + cos ωt sin φ, over
 * the per-column/per-row tables made at init, so no sine is taken per
 * particle. */
static void predict(WbClothState *s, const WbClothDef *def, double t, float dt)
{
    const WbFabric *f = &def->fabric;
    /* damping is quoted per 1/360 s; rescale to this substep */
    const float damp = powf(f->damping, dt * 360.0f);
    const float dt2 = dt * dt;
    const float gy = -def->gravity * dt2;
    float wx = 0.0f, wy = 0.0f, wz = 0.0f;
    float s1 = 0.0f, c1 = 0.0f, s2 = 0.0f, c2 = 0.0f;
    bool wind = false;
    const float *dir = def->wind.dir;
    float dl = sqrtf(dot3(dir, dir));
    if (def->wind.strength != 0.0f && f->wind_response != 0.0f && dl > 0.0f) {
        float a = def->wind.strength * f->wind_response / f->weight * dt2 / dl;
        wx = dir[0] * a;
        wy = dir[1] * a;
        wz = dir[2] * a;
        s1 = (float)sin(2.1 * t);
        c1 = (float)cos(2.1 * t);
        s2 = (float)sin(0.7 * t);
        c2 = (float)cos(0.7 * t);
        wind = true;
    }
    const int nx = s->nx;
    for (int j = 0; j < s->ny; j++) {
        float gv = wind ? def->wind.bias + 0.6f * (s1 * s->wind_cv[j] + c1 * s->wind_sv[j]) : 0.0f;
        const float c[9] = {damp, gy, wx, wy, wz, gv, s2, c2, 0.0f};
        int i0 = 0;
#ifdef WB_CLOTH_AVX2
        if (s->lanes == 16)
            i0 = v16_predict_row(s, j * nx, i0, c, wind);
        if (s->lanes >= 8)
            i0 = v8_predict_row(s, j * nx, i0, c, wind);
#endif
        i0 = v4_predict_row(s, j * nx, i0, c, wind);
        for (int i = i0; i < nx; i++) {
            int p = j * nx + i;
            float x = s->x[p], y = s->y[p], z = s->z[p];
            if (!(s->w[p] > 0.0f)) { /* pinned or inert: held */
                s->px[p] = x;
                s->py[p] = y;
                s->pz[p] = z;
                continue;
            }
            float ax = 0.0f, ay = gy, az = 0.0f;
            if (wind) {
                float gust = gv + 0.4f * (s2 * s->wind_cu[i] + c2 * s->wind_su[i]);
                ax += wx * gust;
                ay += wy * gust;
                az += wz * gust;
            }
            float vx = (x - s->px[p]) * damp, vy = (y - s->py[p]) * damp,
                  vz = (z - s->pz[p]) * damp;
            s->px[p] = x;
            s->py[p] = y;
            s->pz[p] = z;
            s->x[p] = x + vx + ax;
            s->y[p] = y + vy + ay;
            s->z[p] = z + vz + az;
        }
    }
}

/* ---------------------------------------------------------------- substep */

typedef struct Stiffness {
    LinkParams stretch, shear, bend;
    float dih_k, dih_at;
    bool xpbd, bend_on;
} Stiffness;

/* Per-substep constraint parameters from the fabric.
 * PBD (reference):  K = min(1, 1.2·stiffness), shear 0.35·K, bend = the
 *                   fabric's bend stiffness (or 0.06·K, "auto").
 * XPBD:             E = E0·100^stiffness (N/m); compliance α = 1/E for
 *                   stretch, 1/(0.35E) for shear, 1/(E·kb/K) for skip-one
 *                   bend links, 1/B with B = B0·kb^1.5 (N·m) for dihedral
 *                   angles; α̃ = α/dt². */
static Stiffness stiffness(const WbClothState *s, const WbClothDef *def, float dt)
{
    const WbFabric *f = &def->fabric;
    Stiffness st;
    float K = fminf(1.0f, 1.2f * f->stiffness);
    float kb = f->bend_stiffness == WB_FABRIC_BEND_AUTO ? 0.06f * K : f->bend_stiffness;
    st.xpbd = def->solver == WB_CLOTH_XPBD;
    st.bend_on = kb > 0.0f;
    st.stretch = (LinkParams){K, 0.0f, s->rest[FAM_H], 0, 0};
    st.shear = (LinkParams){0.35f * K, 0.0f, s->rest[FAM_D1], 0, 0};
    st.bend = (LinkParams){kb, 0.0f, s->rest[FAM_BH], 0, 0};
    st.dih_k = kb;
    st.dih_at = 0.0f;
    if (st.xpbd) {
        float idt2 = 1.0f / (dt * dt);
        float E = WB_FABRIC_E0 * powf(100.0f, f->stiffness);
        st.stretch.k = st.shear.k = st.bend.k = 1.0f;
        st.stretch.at = idt2 / E;
        st.shear.at = idt2 / (0.35f * E);
        st.bend.at = K > 0.0f && kb > 0.0f ? idt2 * K / (E * kb) : 0.0f;
        st.dih_at = kb > 0.0f ? idt2 / (WB_FABRIC_B0 * powf(kb, 1.5f)) : 0.0f;
    }
    return st;
}

/* s->free_rows[j] = how many rows from row j on hold only free particles
 * of the common inverse mass 1/mass (no pin, no cut): the plain kernels
 * skip the masses there (see PFX_flink).  Read from w every substep, so a
 * direct write to s->w is seen too. */
static void mark_free_rows(WbClothState *s)
{
    const int nx = s->nx;
    const float wf = 1.0f / s->mass;
    int run = 0;
    for (int j = s->ny - 1; j >= 0; j--) {
        const float *w = s->w + j * nx;
        v4i other = {0, 0, 0, 0};
        int i = 0;
        for (; i + 4 <= nx; i += 4)
            other |= v4_ld(w + i) != v4_set(wf);
        int any = (other[0] | other[1] | other[2] | other[3]) != 0;
        for (; i < nx; i++)
            any |= w[i] != wf;
        run = any ? 0 : run + 1;
        s->free_rows[j] = run;
    }
}

/* rev: the plain PBD row families sweep back (alternate iterations, so the
 * sequential passes pull no way more than the other) */
static void sweep_stretch(WbClothState *s, const Stiffness *st, bool xpbd, int rev)
{
    LinkParams p = st->stretch;
    p.rest = s->rest[FAM_H];
    sweep_horizontal(s, xpbd ? s->lambda[FAM_H] : NULL, &p);
    p.rest = s->rest[FAM_V];
    sweep_rows(s, FAM_V, xpbd ? s->lambda[FAM_V] : NULL, &p, rev);
}

static void sweep_shear(WbClothState *s, const Stiffness *st, bool xpbd, int rev)
{
    sweep_rows(s, FAM_D1, xpbd ? s->lambda[FAM_D1] : NULL, &st->shear, rev);
    sweep_rows(s, FAM_D2, xpbd ? s->lambda[FAM_D2] : NULL, &st->shear, rev);
}

static void sweep_bend(WbClothState *s, const WbClothDef *def, const Stiffness *st, int rev)
{
    if (def->bending == WB_CLOTH_BEND_DIHEDRAL) {
        sweep_dihedral(s, st->dih_k, st->dih_at, st->xpbd);
        return;
    }
    LinkParams p = st->bend;
    p.rest = s->rest[FAM_BH];
    sweep_bend_horizontal(s, st->xpbd ? s->lambda[FAM_BH] : NULL, &p);
    p.rest = s->rest[FAM_BV];
    sweep_rows(s, FAM_BV, st->xpbd ? s->lambda[FAM_BV] : NULL, &p, rev);
}

/* Hard stretch limit: structural links longer than max_stretch × rest are
 * pulled back to exactly that.  A colour-ordered, mass-split pass cannot do
 * it once a whole column hangs over-stretched from a pin (fixing one link
 * re-stretches its neighbours; the excess moves one link per pass — the
 * Jakobsen problem), so the limit is swept in sequence with "follow the
 * leader" weights (Müller et al. 2012, inextensible hair): of a link's two
 * ends, the one fewer grid steps from a pin stays and the other follows;
 * ends equally far (or a cloth with no pins) split the correction by mass,
 * so nothing drifts.  A round sweeps rows of vertical links (one vector
 * loop per row) top to bottom, links along each row left to right, then all
 * of it back; a chain hanging from a pin is shortened in a single sweep. */
/* One row of horizontal links, in order (dir = +1) or back (−1): the
 * sequential part of the limit, kept tight because most links pass the
 * length test and cost only that. */
static inline void clamp_link(WbClothState *s, int a, float lim, float lim2)
{
    float *x = s->x, *y = s->y, *z = s->z;
    const float *w = s->w, *dep = s->pin_depth;
    int b = a + 1;
    float dx = x[b] - x[a], dy = y[b] - y[a], dz = z[b] - z[a];
    float d2 = dx * dx + dy * dy + dz * dz;
    if (!(d2 > lim2))
        return;
    float wa = dep[a] < dep[b] ? 0.0f : w[a], wb = dep[b] < dep[a] ? 0.0f : w[b];
    float ws = wa + wb;
    if (!(ws > 0.0f) || !(wa >= 0.0f && wb >= 0.0f))
        return;
    float d = sqrtf(d2);
    float sg = -(d - lim) / (ws * d);
    x[a] -= wa * sg * dx;
    y[a] -= wa * sg * dy;
    z[a] -= wa * sg * dz;
    x[b] += wb * sg * dx;
    y[b] += wb * sg * dy;
    z[b] += wb * sg * dz;
}

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
    static ATTR int PFX##_clamp_rows(WbClothState *s, int j0, int nr, float lim, int dir, \
                                     int k)                                               \
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

static void clamp_rows(WbClothState *s, int j0, int nr, float lim, int dir)
{
    const int nx = s->nx, nl = nx - 1;
    const float lim2 = lim * lim;
    int k = 0;
#ifdef WB_CLOTH_AVX2
    if (s->lanes == 16)
        k = v16_clamp_rows(s, j0, nr, lim, dir, k);
    if (s->lanes >= 8)
        k = v8_clamp_rows(s, j0, nr, lim, dir, k);
#endif
    k = v4_clamp_rows(s, j0, nr, lim, dir, k);
    for (; k < nl; k++) {
        for (int r = 0; r < nr; r++)
            clamp_link(s, (j0 + r) * nx + (dir > 0 ? k : nl - 1 - k), lim, lim2);
    }
}

/* A particle the ordered pass below starts from: pinned, or touching a body
 * sphere (within margin + skin of it, or inside). */
static int touches_body(const WbClothState *s, int p, float margin, float skin)
{
    float x = s->x[p], y = s->y[p], z = s->z[p];
    if (s->n_spheres == 0 || !in_body_bounds(s, x, y, z))
        return 0;
    int bk = bucket_of(s, x, y);
    for (int g = s->pack_start[bk]; g < s->pack_start[bk + 1]; g += 4) {
        if (group_reaches(s, g, x, y, z, margin, skin))
            return 1;
    }
    return 0;
}

static inline int in_ball(const WbClothState *s, int q, float r, float x, float y, float z)
{
    float dx = x - s->x[q], dy = y - s->y[q], dz = z - s->z[q];
    return dx * dx + dy * dy + dz * dz <= r * r;
}

/* Nearest point of the ball (centre q, radius r) to (x, y, z). */
static void to_ball(const WbClothState *s, int q, float r, float *x, float *y, float *z)
{
    float dx = *x - s->x[q], dy = *y - s->y[q], dz = *z - s->z[q];
    float d2 = dx * dx + dy * dy + dz * dz;
    if (!(d2 > r * r))
        return;
    float f = r / sqrtf(d2);
    *x = s->x[q] + dx * f;
    *y = s->y[q] + dy * f;
    *z = s->z[q] + dz * f;
}

/* Nearest point of the intersection of balls A (centre a, radius ra) and B
 * to p, when neither projection alone lands in the other ball: it lies on
 * the circle where the spheres meet, centre a + t·u (u = (b − a)/d,
 * t = (d² + ra² − rb²)/2d), radius h = √(ra² − t²), towards p's part
 * across u.  Balls that do not meet: the point of the segment a-b that
 * overshoots both by the same fraction. */
static void to_lens(const WbClothState *s, int qa, float ra, int qb, float rb, float *x,
                    float *y, float *z)
{
    float ux = s->x[qb] - s->x[qa], uy = s->y[qb] - s->y[qa], uz = s->z[qb] - s->z[qa];
    float d = sqrtf(ux * ux + uy * uy + uz * uz);
    if (!(d > 0.0f))
        return;
    ux /= d, uy /= d, uz /= d;
    float t = d * ra / (ra + rb), h = 0.0f;
    if (d < ra + rb) {
        t = (d * d + ra * ra - rb * rb) / (2.0f * d);
        h = ra * ra - t * t;
        h = h > 0.0f ? sqrtf(h) : 0.0f;
    }
    float cx = s->x[qa] + ux * t, cy = s->y[qa] + uy * t, cz = s->z[qa] + uz * t;
    float px = *x - cx, py = *y - cy, pz = *z - cz;
    float pu = px * ux + py * uy + pz * uz;
    px -= pu * ux, py -= pu * uy, pz -= pu * uz;
    float pl = sqrtf(px * px + py * py + pz * pz);
    float f = pl > 0.0f ? h / pl : 0.0f;
    *x = cx + px * f;
    *y = cy + py * f;
    *z = cz + pz * f;
}

/* Move particle p (free) into the intersection of the balls of radius lim
 * around its already-settled neighbours (marked by a negative pin_depth).
 * In breadth-first order from one particle a grid particle has at most two
 * settled neighbours, diagonal to each other with a settled common
 * neighbour, so their balls meet (|a − b| <= 2 lim) and the nearest point
 * is exact: one projection, the other, or the circle where they meet.
 * More than two (cut-out holes) fall back to projections in turn. */
static int settle_with(WbClothState *s, int p, const int *nb, const float *lim, int n)
{
    float x = s->x[p], y = s->y[p], z = s->z[p];
    int over = 0;
    for (int k = 0; k < n; k++)
        over |= !in_ball(s, nb[k], lim[k], x, y, z);
    if (!over)
        return 0;
    if (n == 2) {
        float ax = x, ay = y, az = z, bx = x, by = y, bz = z;
        to_ball(s, nb[0], lim[0], &ax, &ay, &az);
        to_ball(s, nb[1], lim[1], &bx, &by, &bz);
        if (in_ball(s, nb[1], lim[1], ax, ay, az))
            x = ax, y = ay, z = az;
        else if (in_ball(s, nb[0], lim[0], bx, by, bz))
            x = bx, y = by, z = bz;
        else
            to_lens(s, nb[0], lim[0], nb[1], lim[1], &x, &y, &z);
    } else {
        for (int k = 0; k < n; k++)
            to_ball(s, nb[k], lim[k], &x, &y, &z);
    }
    s->x[p] = x;
    s->y[p] = y;
    s->z[p] = z;
    return 1;
}

static void settle(WbClothState *s, int p, int i, int j, float lim_h, float lim_v)
{
    const int nx = s->nx;
    int nb[4], n = 0;
    float lim[4];
    if (i > 0 && s->pin_depth[p - 1] < 0.0f) { nb[n] = p - 1; lim[n++] = lim_h; }
    if (i + 1 < nx && s->pin_depth[p + 1] < 0.0f) { nb[n] = p + 1; lim[n++] = lim_h; }
    if (j > 0 && s->pin_depth[p - nx] < 0.0f) { nb[n] = p - nx; lim[n++] = lim_v; }
    if (j + 1 < s->ny && s->pin_depth[p + nx] < 0.0f) { nb[n] = p + nx; lim[n++] = lim_v; }
    settle_with(s, p, nb, lim, n);
}

/* The breadth-first order from a single particle (i0, j0) of a grid with
 * no pin and no cut: a particle's settled neighbours are then exactly its
 * one or two neighbours towards (i0, j0), so each quadrant swept row by
 * row away from (i0, j0) settles every particle against the same
 * neighbours, at the same positions, as the search would — the same
 * result without a queue.
 * Settling is a chain: a particle waits for its leader's new position
 * (square roots and divisions), and at 140x140 a third of the sheet is
 * over the limit, ~45 ns a moved particle one after the other.  A
 * particle needs only its leader in the row and the one in the row
 * before, so settle_wavefront() takes SETTLE_ROWS rows side by side: in
 * step t, row k of the group does its chunk t − k (chunk 0 is the start
 * column, chunk m >= 1 columns 4m − 3 .. 4m), whose neighbours in the row
 * before were done in step t − 1, and the rows' particles at the same
 * place in their chunks, independent of each other, are settled in the
 * lanes of one vector.  Every particle sees the same neighbours at the
 * same positions as in the row-by-row order: the same bytes. */
#define SETTLE_ROWS 4

/* settle_with() for nl <= 4 particles p[l] (independent: other rows) that
 * each have two settled leaders, p − di (in the row, limit lim_h) and
 * p − dj (the row before, lim_v), a lane each: the same operations as the
 * scalar code, lane by lane (both projections, the in-ball tests, the
 * choice), so the same bytes; the rare lanes whose answer is on the circle
 * where the balls meet go to to_lens() one by one. */
static int settle_lanes(WbClothState *s, const int *p, int nl, int di, int dj, float lim_h,
                        float lim_v)
{
    float *x = s->x, *y = s->y, *z = s->z;
    /* spare lanes repeat the first particle, never stored (the vectors are
     * built whole: lanes written one by one to memory and reloaded as a
     * vector would wait for the stores) */
    const int q0 = p[0], q1 = p[nl > 1], q2 = p[(nl > 2) * 2], q3 = p[(nl > 3) * 3];
#define GATHER(arr, o) ((v4f){arr[q0 - (o)], arr[q1 - (o)], arr[q2 - (o)], arr[q3 - (o)]})
    const v4f px = GATHER(x, 0), py = GATHER(y, 0), pz = GATHER(z, 0);
    const v4f ax = GATHER(x, di), ay = GATHER(y, di), az = GATHER(z, di);
    const v4f bx = GATHER(x, dj), by = GATHER(y, dj), bz = GATHER(z, dj);
#undef GATHER
    const v4f ra = v4_set(lim_h), rb = v4_set(lim_v), ra2 = ra * ra, rb2 = rb * rb;
    /* in_ball() and to_ball() against each leader */
    v4f dax = px - ax, day = py - ay, daz = pz - az;
    v4f dbx = px - bx, dby = py - by, dbz = pz - bz;
    v4f d2a = dax * dax + day * day + daz * daz, d2b = dbx * dbx + dby * dby + dbz * dbz;
    v4i outa = d2a > ra2, outb = d2b > rb2;
    if (!V4_ANY(outa | outb))
        return 0;
    v4f fa = ra / v4_sqrt(v4_sel(outa, d2a, v4_set(1.0f)));
    v4f fb = rb / v4_sqrt(v4_sel(outb, d2b, v4_set(1.0f)));
    v4f qax = v4_sel(outa, ax + dax * fa, px), qay = v4_sel(outa, ay + day * fa, py),
        qaz = v4_sel(outa, az + daz * fa, pz);
    v4f qbx = v4_sel(outb, bx + dbx * fb, px), qby = v4_sel(outb, by + dby * fb, py),
        qbz = v4_sel(outb, bz + dbz * fb, pz);
    /* the projection onto A inside B, else the one onto B inside A */
    v4f ex = qax - bx, ey = qay - by, ez = qaz - bz;
    v4f gx = qbx - ax, gy = qby - ay, gz = qbz - az;
    v4i a_in_b = (ex * ex + ey * ey + ez * ez) <= rb2;
    v4i b_in_a = (gx * gx + gy * gy + gz * gz) <= ra2;
    v4f rx = v4_sel(a_in_b, qax, qbx), ry = v4_sel(a_in_b, qay, qby),
        rz = v4_sel(a_in_b, qaz, qbz);
    int moved = 0;
    for (int l = 0; l < nl; l++) {
        if (!(outa[l] | outb[l]))
            continue;
        int q = p[l];
        moved++;
        if (a_in_b[l] | b_in_a[l]) {
            x[q] = rx[l], y[q] = ry[l], z[q] = rz[l];
        } else {
            float lx = px[l], ly = py[l], lz = pz[l];
            to_lens(s, q - di, lim_h, q - dj, lim_v, &lx, &ly, &lz);
            x[q] = lx, y[q] = ly, z[q] = lz;
        }
    }
    return moved;
}

static int settle_wavefront(WbClothState *s, int i0, int j0, float lim_h, float lim_v)
{
    const int nx = s->nx, ny = s->ny;
    const float *x = s->x, *y = s->y, *z = s->z;
    const float lh2 = lim_h * lim_h, lv2 = lim_v * lim_v;
    int moved = 0;
    for (int q = 0; q < 4; q++) {
        const int si = q & 1 ? -1 : 1, sj = q & 2 ? -1 : 1;
        /* columns c = 0 .. ncol−1 at i = i0 + c·si, rows r at j = j0 + r·sj */
        const int ncol = si > 0 ? nx - i0 : i0 + 1, nrow = sj > 0 ? ny - j0 : j0 + 1;
        /* chunk 0 is column 0 (no leader in the row), chunk m >= 1 columns
         * 4m − 3 .. 4m */
        const int nch = 1 + (ncol + 2) / 4;
        for (int r0 = 0; r0 < nrow; r0 += SETTLE_ROWS) {
            const int nr = nrow - r0 < SETTLE_ROWS ? nrow - r0 : SETTLE_ROWS;
            for (int t = 0; t < nch + nr - 1; t++) {
                /* the rows k with 0 <= t − k < nch */
                const int k_lo = t - nch + 1 > 0 ? t - nch + 1 : 0;
                const int k_hi = t < nr - 1 ? t : nr - 1;
                int quiet[SETTLE_ROWS] = {0}, all_quiet = 1;
                for (int k = k_lo; k <= k_hi; k++) {
                    /* four particles whose links to their leaders (left or
                     * right, and the row before) are all within the limit
                     * at once: none of them moves, as settling each in turn
                     * would find, so the usual case costs one vector test */
                    const int m = t - k, r = r0 + k;
                    if (m == 0 || r == 0 || 4 * m >= ncol) {
                        all_quiet = 0;
                        continue;
                    }
                    const int i = i0 + (4 * m - 3) * si, j = j0 + r * sj;
                    const int lo = j * nx + (si > 0 ? i : i - 3), up = lo - sj * nx;
                    const int h0 = lo - (si > 0);
                    v4f hx = v4_ld(x + h0 + 1) - v4_ld(x + h0),
                        hy = v4_ld(y + h0 + 1) - v4_ld(y + h0),
                        hz = v4_ld(z + h0 + 1) - v4_ld(z + h0),
                        vx = v4_ld(x + lo) - v4_ld(x + up), vy = v4_ld(y + lo) - v4_ld(y + up),
                        vz = v4_ld(z + lo) - v4_ld(z + up);
                    quiet[k] = !V4_ANY((hx * hx + hy * hy + hz * hz) > v4_set(lh2)) &&
                               !V4_ANY((vx * vx + vy * vy + vz * vz) > v4_set(lv2));
                    all_quiet &= quiet[k];
                }
                if (all_quiet)
                    continue;
                for (int c4 = 0; c4 < 4; c4++) {
                    int lane[SETTLE_ROWS], nl = 0;
                    for (int k = k_lo; k <= k_hi; k++) {
                        const int m = t - k, c = m ? 4 * m - 3 + c4 : c4, r = r0 + k;
                        if (quiet[k] || c >= ncol || (m == 0 && c4 > 0))
                            continue;
                        const int p = (j0 + r * sj) * nx + i0 + c * si;
                        if (c > 0 && r > 0) { /* two leaders: the rows' lanes at once */
                            lane[nl++] = p;
                            continue;
                        }
                        int nb[1] = {c > 0 ? p - si : p - sj * nx};
                        float lim[1] = {c > 0 ? lim_h : lim_v};
                        if (c > 0 || r > 0)
                            moved += settle_with(s, p, nb, lim, 1);
                    }
                    if (nl)
                        moved += settle_lanes(s, lane, nl, si, sj * nx, lim_h, lim_v);
                }
            }
        }
    }
    return moved;
}


/* The same order row by row, one particle at a time.  WIDE (AVX2) tests
 * eight particles at once first, then four: the test of a group is exact
 * at any width (none of them moves iff every link to a leader is within the
 * limit), so the width only changes how far one test skips: the ordered
 * pass's instructions ~16 % fewer (70×70 drape), ~0.5 % of a frame. */
#define DEFINE_SETTLE_ROWS(NAME, ATTR, WIDE)                                               \
    static ATTR int NAME(WbClothState *s, int i0, int j0, float lim_h, float lim_v)       \
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
                        moved += settle_with(s, p, nb, lim, 1);                           \
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
                    moved += settle_with(s, p, nb, lim, n);                               \
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

/* Either order gives the same bytes: the row order is quicker when few
 * particles move (the vector test skips most of the sheet), the wavefront
 * when many do (at 140x140 a third of the sheet: the ordered pass ~35 %
 * quicker; at 70x70, 4 %, it would be ~40 % slower).  The last pass's
 * count picks. */
static void settle_quadrants(WbClothState *s, int i0, int j0, float lim_h, float lim_v)
{
    if (s->settle_moved * 8 > s->n) {
        s->settle_moved = settle_wavefront(s, i0, j0, lim_h, lim_v);
        return;
    }
#ifdef WB_CLOTH_AVX2
    if (s->lanes >= 8) {
        s->settle_moved = settle_rows8(s, i0, j0, lim_h, lim_v);
        return;
    }
#endif
    s->settle_moved = settle_rows(s, i0, j0, lim_h, lim_v);
}

static inline void mark_settled(WbClothState *s, int p, int *tail)
{
    s->pin_depth[p] = -s->pin_depth[p] - 1.0f;
    s->queue[(*tail)++] = p;
}

/* The sweeps above split a link's correction by mass wherever no pin leads
 * (the reference drape has none), and a mass-split sequential sweep leaves
 * every link re-stretched by half of its successor's correction: the sheet
 * resting on the head stayed ~28 % long after the clamp (70x70; more
 * rounds converge slowly, 16 still leave 13 %), over 2x at 140x140.
 * This pass makes the limit hold: particles are settled one at a time in
 * breadth-first order, each moved to the nearest point within the limit of
 * its already-settled neighbours, and a settled particle never moves
 * again, so every structural link ends within the limit.  The search
 * starts from the pins; with none, from the single highest particle
 * touching a body (the top of the head, which carries the sheet), else
 * from the grid's centre.  Several starts (touching particles all over the
 * body) make fronts meet whose balls need not intersect — measured worse,
 * 1.7x — so only pins, which cannot move anyway, are several.  A piece the
 * search does not reach (cut off by inert particles) starts from its first
 * particle.  pin_depth is the visited mark (negated, restored at the end). */
static void clamp_ordered(WbClothState *s, const WbClothDef *def, float lim_h, float lim_v)
{
    const int nx = s->nx, ny = s->ny, n = s->n;
    const float margin = def->margin, skin = WB_CLOTH_CONTACT_SKIN + 0.1f * margin;
    int head = 0, tail = 0, cut = 0;
    if (s->free_rows[0] < ny) { /* a row with a pin, a cut or another mass */
        for (int p = 0; p < n; p++) {
            if (s->w[p] == 0.0f)
                mark_settled(s, p, &tail);
            cut |= s->w[p] < 0.0f;
        }
    }
    if (tail == 0) {
        /* no pin: from the highest particle touching a body (the top of the
         * head in a drape, which carries the sheet), else from the grid's
         * centre, so a free sheet is pulled towards its middle */
        /* the highest touching particle, the first in index order among equals:
         * the last substep's start, when it still touches, is a starting best
         * (the answer is the same, it only lets the vector test below skip
         * nearly every group at once) */
        int top = s->top_hint;
        if (top < 0 || top >= n || !(s->w[top] > 0.0f) || !touches_body(s, top, margin, skin))
            top = -1;
        const v4f lo0 = v4_set(s->body_lo[0]), hi0 = v4_set(s->body_hi[0]),
                  lo1 = v4_set(s->body_lo[1]), hi1 = v4_set(s->body_hi[1]),
                  lo2 = v4_set(s->body_lo[2]), hi2 = v4_set(s->body_hi[2]);
        int p = 0;
        for (; p + 4 <= n; p += 4) {
            v4i cand = v4_ld(s->w + p) > v4_set(0.0f);
            if (top >= 0)
                cand &= v4_ld(s->y + p) >= v4_set(s->y[top]);
            if (!V4_ANY(cand))
                continue;
            /* touches_body() is 0 outside the body's bounds (in_body_bounds(),
             * the same compares): most of a sheet above the top of the head
             * is, and no longer goes through it one particle at a time */
            const v4f bx = v4_ld(s->x + p), by = v4_ld(s->y + p), bz = v4_ld(s->z + p);
            cand &= (bx >= lo0) & (bx <= hi0) & (by >= lo1) & (by <= hi1) & (bz >= lo2) &
                    (bz <= hi2);
            if (!V4_ANY(cand))
                continue;
            for (int q = p; q < p + 4; q++) {
                if (s->w[q] > 0.0f &&
                    (top < 0 || s->y[q] > s->y[top] || (s->y[q] == s->y[top] && q < top)) &&
                    touches_body(s, q, margin, skin))
                    top = q;
            }
        }
        for (; p < n; p++) {
            if (s->w[p] > 0.0f &&
                (top < 0 || s->y[p] > s->y[top] || (s->y[p] == s->y[top] && p < top)) &&
                touches_body(s, p, margin, skin))
                top = p;
        }
        s->top_hint = top;
        int c = (ny / 2) * nx + nx / 2;
        if (top < 0 && s->w[c] > 0.0f)
            top = c;
        if (top >= 0 && !cut) {
            settle_quadrants(s, top % nx, top / nx, lim_h, lim_v);
            return;
        }
        if (top >= 0)
            mark_settled(s, top, &tail);
    }
    static const int di[4] = {-1, 1, 0, 0}, dj[4] = {0, 0, -1, 1};
    for (int seed = 0;;) {
        while (head < tail) {
            int p = s->queue[head++], i = p % nx, j = p / nx;
            const int nb[4] = {i > 0 ? p - 1 : -1, i + 1 < nx ? p + 1 : -1,
                               j > 0 ? p - nx : -1, j + 1 < ny ? p + nx : -1};
            for (int k = 0; k < 4; k++) {
                int q = nb[k];
                if (q >= 0 && s->w[q] > 0.0f && !(s->pin_depth[q] < 0.0f)) {
                    settle(s, q, i + di[k], j + dj[k], lim_h, lim_v);
                    mark_settled(s, q, &tail);
                }
            }
        }
        /* a piece none of the above reaches (cut off by inert particles) */
        while (seed < n && !(s->w[seed] > 0.0f && !(s->pin_depth[seed] < 0.0f)))
            seed++;
        if (seed >= n)
            break;
        mark_settled(s, seed, &tail);
    }
    for (int k = 0; k < tail; k++) {
        int p = s->queue[k];
        s->pin_depth[p] = -s->pin_depth[p] - 1.0f;
    }
}

static void clamp_stretch(WbClothState *s, const WbClothDef *def, float ratio)
{
    const int nx = s->nx, ny = s->ny;
    const float lim_h = s->rest[FAM_H] * ratio;
    LinkParams pv = {1.0f, 0.0f, s->rest[FAM_V] * ratio, 1, 1};
    for (int round = 0; round < WB_CLOTH_CLAMP_ROUNDS; round++) {
        for (int j = 0; j + 1 < ny; j++)
            links_contig(s, j * nx, nx, nx, NULL, &pv);
        for (int j = 0; j < ny; j += 4)
            clamp_rows(s, j, ny - j < 4 ? ny - j : 4, lim_h, +1);
        for (int j = ny - 2; j >= 0; j--)
            links_contig(s, j * nx, nx, nx, NULL, &pv);
        for (int j = 0; j < ny; j += 4)
            clamp_rows(s, j, ny - j < 4 ? ny - j : 4, lim_h, -1);
    }
    clamp_ordered(s, def, lim_h, pv.rest);
}

/* Grid steps (4-neighbour) from each particle to the nearest pinned one, by
 * breadth-first search; a large number when there is no pin.  Run at init
 * and whenever pins change, never in the step. */
static void update_pin_depth(WbClothState *s)
{
    const int nx = s->nx, ny = s->ny;
    int head = 0, tail = 0;
    for (int p = 0; p < s->n; p++) {
        s->pin_depth[p] = 1e9f;
        if (s->w[p] == 0.0f) {
            s->pin_depth[p] = 0.0f;
            s->queue[tail++] = p;
        }
    }
    while (head < tail) {
        int p = s->queue[head++], i = p % nx, j = p / nx;
        const int nb[4] = {i > 0 ? p - 1 : -1, i + 1 < nx ? p + 1 : -1, j > 0 ? p - nx : -1,
                           j + 1 < ny ? p + nx : -1};
        for (int k = 0; k < 4; k++) {
            if (nb[k] >= 0 && s->w[nb[k]] >= 0.0f &&
                s->pin_depth[nb[k]] > s->pin_depth[p] + 1.0f) {
                s->pin_depth[nb[k]] = s->pin_depth[p] + 1.0f;
                s->queue[tail++] = nb[k];
            }
        }
    }
}

void wb_cloth_substep(WbClothState *s, const WbClothDef *def, double t, float dt)
{
    Stiffness st = stiffness(s, def, dt);
    mark_free_rows(s);
    predict(s, def, t, dt);
    if (st.xpbd) {
        for (int k = 0; k < 6; k++)
            memset(s->lambda[k], 0, sizeof(float) * (size_t)s->n);
        memset(s->dih_lambda, 0, sizeof(float) * (size_t)s->n_dih);
    }
    for (int it = 1; it <= def->iterations; it++) {
        sweep_stretch(s, &st, st.xpbd, it % 2 == 0);
        sweep_shear(s, &st, st.xpbd, it % 2 == 0);
        if (it % 2 == 0 && st.bend_on)
            sweep_bend(s, def, &st, it % 4 == 0);
        if (it % 3 == 0)
            collide_push(s, def);
    }
    if (def->self_collision && s->hash_size > 0)
        self_collide(s, def);
    if (def->max_stretch > 0.0f)
        clamp_stretch(s, def, def->max_stretch);
    collide_friction(s, def, dt);
    if (def->floor)
        collide_floor(s, def, dt);
    s->time = t + dt;
}

void wb_cloth_step(WbClothState *s, const WbClothDef *def, double t, float dt_frame)
{
    int n = def->substeps > 0 ? def->substeps : 1;
    float dt = dt_frame / (float)n;
    for (int k = 0; k < n; k++)
        wb_cloth_substep(s, def, t + (double)dt * k, dt);
    s->time = t + dt_frame;
    wb_cloth_normals(s);
}

int wb_cloth_advance(WbClothState *s, const WbClothDef *def, double frame_delta)
{
    if (!(frame_delta > 0.0) || !isfinite(frame_delta))
        frame_delta = 0.0;
    const double dt = 1.0 / (60.0 * (double)(def->substeps > 0 ? def->substeps : 1));
    s->acc += frame_delta;
    int n = 0;
    /* 1e-6 of a substep of slack: frames of 1/fps add up to whole substeps */
    while (s->acc >= dt * (1.0 - 1e-6)) {
        wb_cloth_substep(s, def, s->time, (float)dt);
        s->acc -= dt;
        n++;
    }
    if (s->acc < 0.0)
        s->acc = 0.0;
    wb_cloth_normals(s);
    return n;
}

/* Face normal (p2 − p1) × (p3 − p1) of one triangle; 0 when a corner is
 * inert (a triangle with an inert corner is not cloth). */
static int face_normal(const WbClothState *s, int p1, int p2, int p3, float f[3])
{
    if (s->w[p1] < 0.0f || s->w[p2] < 0.0f || s->w[p3] < 0.0f)
        return 0;
    const float *X = s->x, *Y = s->y, *Z = s->z;
    float ux = X[p2] - X[p1], uy = Y[p2] - Y[p1], uz = Z[p2] - Z[p1];
    float vx = X[p3] - X[p1], vy = Y[p3] - Y[p1], vz = Z[p3] - Z[p1];
    f[0] = uy * vz - uz * vy;
    f[1] = uz * vx - ux * vz;
    f[2] = ux * vy - uy * vx;
    return 1;
}

/* The unnormalized normal of vertex (i, j): its triangles' face normals
 * summed from 0 in the order a sweep over the quads (row by row, triangle
 * (a, b, d) before (a, d, c)) meets them — quad (i−1, j−1) where the vertex
 * is d (both triangles), (i, j−1) where it is c, (i−1, j) where it is b,
 * (i, j) where it is a (both) — so the sum is the same float whichever way
 * it is computed. */
static void vertex_normal(const WbClothState *s, int i, int j, float n[3])
{
    const int nx = s->nx, ny = s->ny;
    float f[3];
    n[0] = n[1] = n[2] = 0.0f;
#define ADD_FACE(p1, p2, p3)                                                                  \
    do {                                                                                      \
        if (face_normal(s, p1, p2, p3, f))                                                    \
            n[0] += f[0], n[1] += f[1], n[2] += f[2];                                         \
    } while (0)
    if (i > 0 && j > 0) {
        int a = (j - 1) * nx + i - 1;
        ADD_FACE(a, a + 1, a + nx + 1);
        ADD_FACE(a, a + nx + 1, a + nx);
    }
    if (i + 1 < nx && j > 0) {
        int a = (j - 1) * nx + i;
        ADD_FACE(a, a + nx + 1, a + nx);
    }
    if (i > 0 && j + 1 < ny) {
        int a = j * nx + i - 1;
        ADD_FACE(a, a + 1, a + nx + 1);
    }
    if (i + 1 < nx && j + 1 < ny) {
        int a = j * nx + i;
        ADD_FACE(a, a + 1, a + nx + 1);
        ADD_FACE(a, a + nx + 1, a + nx);
    }
#undef ADD_FACE
}

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
    static ATTR int PFX##_face_row(const WbClothState *s, int j, float *f, int i)         \
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
    static ATTR int PFX##_vertex_row(WbClothState *s, int j, const float *up,             \
                                     const float *dn, int i)                              \
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

/* n normalized in place as wb_cloth_normals() does it */
static void normalize3(float *x, float *y, float *z)
{
    float l = sqrtf(*x * *x + *y * *y + *z * *z);
    if (l > 0.0f) {
        float il = 1.0f / l;
        *x *= il;
        *y *= il;
        *z *= il;
    }
}

/* Quad row j's face normals into f (see DEFINE_NORMALS). */
static void face_row(const WbClothState *s, int j, float *f)
{
    const int nx = s->nx;
    int i = 0;
#ifdef WB_CLOTH_AVX2
    if (s->lanes == 16)
        i = v16_face_row(s, j, f, i);
    if (s->lanes >= 8)
        i = v8_face_row(s, j, f, i);
#endif
    i = v4_face_row(s, j, f, i);
    for (; i < nx - 1; i++) {
        int a = j * nx + i;
        float t[3] = {0.0f, 0.0f, 0.0f};
        face_normal(s, a, a + 1, a + nx + 1, t);
        f[i] = t[0], f[nx + i] = t[1], f[2 * nx + i] = t[2];
        t[0] = t[1] = t[2] = 0.0f;
        face_normal(s, a, a + nx + 1, a + nx, t);
        f[3 * nx + i] = t[0], f[4 * nx + i] = t[1], f[5 * nx + i] = t[2];
    }
}

/* Area-weighted vertex normals over the triangles (a, b, d), (a, d, c) of
 * each quad a = (i,j), b = (i+1,j), c = (i,j+1), d = (i+1,j+1); they point
 * along axis_i × axis_j on the flat cloth.  The border vertices one by one
 * (vertex_normal()), the inner ones from the face rows. */
void wb_cloth_normals(WbClothState *s)
{
    const int nx = s->nx, ny = s->ny;
    float *NX = s->nrmx, *NY = s->nrmy, *NZ = s->nrmz;
    float *up = s->face_rows, *dn = s->face_rows + 6 * nx;
    for (int j = 0; j < ny; j++) {
        int i = 0;
        if (j > 0 && j + 1 < ny) {
            if (j == 1)
                face_row(s, 0, up);
            face_row(s, j, dn);
            float n0[3];
            vertex_normal(s, 0, j, n0);
            normalize3(&n0[0], &n0[1], &n0[2]);
            NX[j * nx] = n0[0], NY[j * nx] = n0[1], NZ[j * nx] = n0[2];
            i = 1;
#ifdef WB_CLOTH_AVX2
            if (s->lanes == 16)
                i = v16_vertex_row(s, j, up, dn, i);
            if (s->lanes >= 8)
                i = v8_vertex_row(s, j, up, dn, i);
#endif
            i = v4_vertex_row(s, j, up, dn, i);
            for (; i < nx - 1; i++) {
                int p = j * nx + i;
                float n[3];
                for (int c = 0; c < 3; c++) {
                    const float *u1 = up + c * nx, *u2 = up + (3 + c) * nx;
                    const float *d1 = dn + c * nx, *d2 = dn + (3 + c) * nx;
                    n[c] = 0.0f + u1[i - 1];
                    n[c] += u2[i - 1];
                    n[c] += u2[i];
                    n[c] += d1[i - 1];
                    n[c] += d1[i];
                    n[c] += d2[i];
                }
                normalize3(&n[0], &n[1], &n[2]);
                NX[p] = n[0], NY[p] = n[1], NZ[p] = n[2];
            }
            float *t = up;
            up = dn;
            dn = t;
        }
        for (; i < nx; i++) { /* a border row, or the last column */
            float n[3];
            vertex_normal(s, i, j, n);
            normalize3(&n[0], &n[1], &n[2]);
            int p = j * nx + i;
            NX[p] = n[0], NY[p] = n[1], NZ[p] = n[2];
        }
    }
}

/* ---------------------------------------------------------------- setup */

WbClothDef wb_cloth_default(void)
{
    WbClothDef d;
    memset(&d, 0, sizeof d);
    d.nx = d.ny = 70;
    d.size[0] = d.size[1] = 1.4f;
    d.origin[0] = -0.7f;
    d.origin[1] = 1.95f;
    d.origin[2] = -0.7f;
    d.axis_i[0] = 1.0f;
    d.axis_j[2] = 1.0f;
    d.pin_mode = WB_CLOTH_PIN_NONE;
    d.mannequin = true;
    d.body = wb_mannequin_default();
    d.margin = 0.008f;
    d.fabric = wb_fabric_preset(WB_FABRIC_SILK);
    d.solver = WB_CLOTH_PBD;
    d.bending = WB_CLOTH_BEND_SKIP;
    d.substeps = 6;
    d.iterations = 10;
    d.gravity = 9.81f;
    d.max_stretch = 1.12f;
    d.floor = true;
    d.floor_y = 0.0f;
    d.wind.dir[0] = 1.0f;
    d.wind.bias = 1.0f;
    return d;
}

void wb_cloth_free(WbClothState *s)
{
    float **fl[] = {&s->x, &s->y, &s->z, &s->px, &s->py, &s->pz, &s->nrmx, &s->nrmy,
                    &s->nrmz, &s->w, &s->pin_depth, &s->wind_su, &s->wind_cu, &s->wind_sv, &s->wind_cv,
                    &s->dih_rest, &s->dih_lambda, &s->face_rows};
    for (size_t k = 0; k < sizeof fl / sizeof fl[0]; k++) {
        free(*fl[k]);
        *fl[k] = NULL;
    }
    for (int k = 0; k < 6; k++) {
        free(s->lambda[k]);
        s->lambda[k] = NULL;
    }
    free(s->pack_start);
    free(s->pack_x);
    free(s->pack_y);
    free(s->pack_z);
    free(s->pack_r);
    s->pack_start = NULL;
    s->pack_x = s->pack_y = s->pack_z = s->pack_r = NULL;
    free(s->dih);
    free(s->queue);
    s->queue = NULL;
    free(s->free_rows);
    s->free_rows = NULL;
    free(s->hash_start);
    free(s->hash_items);
    free(s->hash_key);
    s->dih = s->hash_start = s->hash_items = s->hash_key = NULL;
    s->n = s->nx = s->ny = s->n_dih = s->hash_size = 0;
}

static WbStatus validate(const WbClothDef *def, WbError *err)
{
    if (def->nx < 3 || def->ny < 3 || def->nx > WB_CLOTH_MAX_GRID || def->ny > WB_CLOTH_MAX_GRID)
        return wb_error_set(err, WB_E_INPUT, "cloth grid %dx%d is out of range (3..%d per side)",
                            def->nx, def->ny, WB_CLOTH_MAX_GRID);
    if (!(def->size[0] > 0.0f && def->size[1] > 0.0f))
        return wb_error_set(err, WB_E_INPUT, "cloth size must be positive");
    if (def->substeps < 1 || def->substeps > 1000 || def->iterations < 1 || def->iterations > 1000)
        return wb_error_set(err, WB_E_INPUT,
                            "cloth substeps %d / iterations %d out of range (1..1000)",
                            def->substeps, def->iterations);
    if (!(def->margin >= 0.0f) || !(def->max_stretch == 0.0f || def->max_stretch >= 1.0f))
        return wb_error_set(err, WB_E_INPUT,
                            "cloth margin must be >= 0 and max_stretch 0 (off) or >= 1");
    if (def->n_pins < 0 || def->n_pins > WB_CLOTH_MAX_PINS)
        return wb_error_set(err, WB_E_INPUT, "too many cloth pins (max %d)", WB_CLOTH_MAX_PINS);
    for (int k = 0; k < def->n_pins; k++) {
        const WbClothPin *p = &def->pins[k];
        if (p->i < 0 || p->i >= def->nx || p->j < 0 || p->j >= def->ny)
            return wb_error_set(err, WB_E_INPUT, "cloth pin (%d, %d) is outside the %dx%d grid",
                                p->i, p->j, def->nx, def->ny);
    }
    if (def->n_spheres < 0 || def->n_boxes < 0 || def->n_boxes > WB_CLOTH_MAX_BOXES)
        return wb_error_set(err, WB_E_INPUT, "bad obstacle count");
    int total = def->n_spheres + (def->mannequin ? wb_mannequin_sphere_count(&def->body) : 0);
    if (total > WB_CLOTH_MAX_SPHERES)
        return wb_error_set(err, WB_E_INPUT, "%d collision spheres (max %d)", total,
                            WB_CLOTH_MAX_SPHERES);
    for (int k = 0; k < def->n_spheres; k++) {
        if (!(def->spheres[k].r > 0.0f))
            return wb_error_set(err, WB_E_INPUT, "sphere %d: radius must be positive", k);
    }
    for (int k = 0; k < def->n_boxes; k++) {
        const WbBox *b = &def->boxes[k];
        if (!(b->h[0] > 0.0f && b->h[1] > 0.0f && b->h[2] > 0.0f))
            return wb_error_set(err, WB_E_INPUT, "box %d: half extents must be positive", k);
    }
    return wb_fabric_validate(&def->fabric, err);
}

static void build_bodies(WbClothState *s, const WbClothDef *def)
{
    s->n_spheres = 0;
    if (def->mannequin)
        s->n_spheres = wb_mannequin_build(&def->body, s->spheres, WB_CLOTH_MAX_SPHERES);
    for (int k = 0; k < def->n_spheres; k++)
        s->spheres[s->n_spheres++] = def->spheres[k];
    s->n_boxes = def->n_boxes;
    memcpy(s->boxes, def->boxes, sizeof(WbBox) * (size_t)def->n_boxes);
    /* bounds and buckets carry a slack over the margin so a margin raised
     * later by a timeline still finds the spheres */
    const float slack = def->margin + 0.01f;
    for (int c = 0; c < 3; c++) {
        s->body_lo[c] = INFINITY;
        s->body_hi[c] = -INFINITY;
    }
    for (int k = 0; k < s->n_spheres; k++) {
        const WbSphere *sp = &s->spheres[k];
        float c3[3] = {sp->x, sp->y, sp->z}, r = sp->r + slack;
        for (int c = 0; c < 3; c++) {
            s->body_lo[c] = fminf(s->body_lo[c], c3[c] - r);
            s->body_hi[c] = fmaxf(s->body_hi[c], c3[c] + r);
        }
    }
    memset(s->bucket, 0, sizeof s->bucket);
    if (s->n_spheres == 0)
        return;
    s->bucket_inv[0] = (float)WB_CLOTH_BUCKETS_X / (s->body_hi[0] - s->body_lo[0]);
    s->bucket_inv[1] = (float)WB_CLOTH_BUCKETS_Y / (s->body_hi[1] - s->body_lo[1]);
    for (int k = 0; k < s->n_spheres; k++) {
        const WbSphere *sp = &s->spheres[k];
        float r = sp->r + slack;
        int x0 = (int)floorf((sp->x - r - s->body_lo[0]) * s->bucket_inv[0]);
        int x1 = (int)floorf((sp->x + r - s->body_lo[0]) * s->bucket_inv[0]);
        int y0 = (int)floorf((sp->y - r - s->body_lo[1]) * s->bucket_inv[1]);
        int y1 = (int)floorf((sp->y + r - s->body_lo[1]) * s->bucket_inv[1]);
        x0 = x0 < 0 ? 0 : x0;
        y0 = y0 < 0 ? 0 : y0;
        x1 = x1 >= WB_CLOTH_BUCKETS_X ? WB_CLOTH_BUCKETS_X - 1 : x1;
        y1 = y1 >= WB_CLOTH_BUCKETS_Y ? WB_CLOTH_BUCKETS_Y - 1 : y1;
        for (int by = y0; by <= y1; by++)
            for (int bx = x0; bx <= x1; bx++)
                s->bucket[by * WB_CLOTH_BUCKETS_X + bx] |= (uint64_t)1 << k;
    }
}

/* Packed per-bucket sphere copies for the grouped tests: each bucket's spheres
 * in order, padded to a multiple of four with unreachable spheres. */
static bool build_packs(WbClothState *s)
{
    const int nb = WB_CLOTH_BUCKETS_X * WB_CLOTH_BUCKETS_Y;
    s->pack_start = calloc((size_t)nb + 1, sizeof(int32_t));
    if (!s->pack_start)
        return false;
    int total = 0;
    for (int b = 0; b < nb; b++) {
        s->pack_start[b] = total;
        total += (__builtin_popcountll(s->bucket[b]) + 3) & ~3;
    }
    s->pack_start[nb] = total;
    size_t sz = (size_t)(total ? total : 4);
    s->pack_x = malloc(sz * sizeof(float));
    s->pack_y = malloc(sz * sizeof(float));
    s->pack_z = malloc(sz * sizeof(float));
    s->pack_r = malloc(sz * sizeof(float));
    if (!s->pack_x || !s->pack_y || !s->pack_z || !s->pack_r)
        return false;
    for (int b = 0; b < nb; b++) {
        int g = s->pack_start[b];
        for (uint64_t m = s->bucket[b]; m; m &= m - 1) {
            const WbSphere *sp = &s->spheres[__builtin_ctzll(m)];
            s->pack_x[g] = sp->x, s->pack_y[g] = sp->y, s->pack_z[g] = sp->z, s->pack_r[g] = sp->r;
            g++;
        }
        for (; g < s->pack_start[b + 1]; g++)
            s->pack_x[g] = 1e18f, s->pack_y[g] = s->pack_z[g] = s->pack_r[g] = 0.0f;
    }
    return true;
}

/* Inner edges of the triangulation (see wb_cloth_normals), each as
 * {edge end 0, edge end 1, wing 0, wing 1} with the wings ordered so the flat
 * cloth has angle 0, stored colour by colour (see DIH_SEGS: kind, then
 * parity of j, then parity of i), row by row and column by column within a
 * colour — the order the sweep takes them in.  Returns the count. */
static int build_dihedral(WbClothState *s)
{
    const int nx = s->nx;
    int n = 0;
    for (int col = 0; col < DIH_COLOURS; col++) {
        const int kind = col / 4;
        int imin, imax, jmin, jmax;
        dih_kind_range(s, kind, &imin, &imax, &jmin, &jmax);
        s->dih_colour[col] = n;
        for (int j = first_of_parity(jmin, col / 2 % 2); j <= jmax; j += 2) {
            for (int i = first_of_parity(imin, col % 2); i <= imax; i += 2) {
                int a = j * nx + i, b = a + 1, c = a + nx, d = c + 1;
                int32_t *q = s->dih + 4 * n++;
                switch (kind) {
                case DIH_D: q[0] = a, q[1] = d, q[2] = b, q[3] = c; break;
                case DIH_H: q[0] = a, q[1] = b, q[2] = d, q[3] = a - nx; break;
                default: q[0] = c, q[1] = a, q[2] = d, q[3] = a - 1; break;
                }
            }
        }
    }
    s->dih_colour[DIH_COLOURS] = n;
    s->n_dih_colours = DIH_COLOURS;
    return n;
}

/* Zeroed floats on a cache-line boundary (64 bytes), so the vector blocks of
 * the sweeps split across lines no more often than their offsets make them. */
static float *alloc_f(size_t n, bool *ok)
{
    size_t bytes = ((n ? n : 1) * sizeof(float) + 63) & ~(size_t)63;
    float *p = aligned_alloc(64, bytes);
    if (!p)
        *ok = false;
    else
        memset(p, 0, bytes);
    return p;
}

WbStatus wb_cloth_init(WbClothState *s, const WbClothDef *def, WbError *err)
{
    memset(s, 0, sizeof *s);
    WbStatus st = validate(def, err);
    if (st != WB_OK)
        return st;
    const int nx = def->nx, ny = def->ny, n = nx * ny;
    s->nx = nx;
    s->ny = ny;
    s->n = n;
    bool ok = true;
    float **fl[] = {&s->x, &s->y, &s->z, &s->px, &s->py, &s->pz, &s->nrmx, &s->nrmy,
                    &s->nrmz, &s->w, &s->pin_depth};
    for (size_t k = 0; k < sizeof fl / sizeof fl[0]; k++)
        *fl[k] = alloc_f((size_t)n, &ok);
    s->queue = calloc((size_t)n, sizeof(int32_t));
    s->free_rows = calloc((size_t)ny, sizeof(int32_t));
    if (!s->queue || !s->free_rows)
        ok = false;
    for (int k = 0; k < 6; k++)
        s->lambda[k] = alloc_f((size_t)n, &ok);
    s->face_rows = alloc_f((size_t)12 * (size_t)nx, &ok);
    s->wind_su = alloc_f((size_t)nx, &ok);
    s->wind_cu = alloc_f((size_t)nx, &ok);
    s->wind_sv = alloc_f((size_t)ny, &ok);
    s->wind_cv = alloc_f((size_t)ny, &ok);
    size_t max_dih = (size_t)3 * (size_t)n;
    s->dih = calloc(4 * max_dih, sizeof(int32_t));
    s->dih_rest = alloc_f(max_dih, &ok);
    s->dih_lambda = alloc_f(max_dih, &ok);
    if (!s->dih)
        ok = false;
    if (def->self_collision) {
        int size = 1;
        while (size < 2 * n)
            size <<= 1;
        s->hash_size = size;
        s->hash_start = calloc((size_t)size + 1, sizeof(int32_t));
        s->hash_items = calloc((size_t)n, sizeof(int32_t));
        s->hash_key = calloc((size_t)n, sizeof(int32_t));
        if (!s->hash_start || !s->hash_items || !s->hash_key)
            ok = false;
    }
    if (!ok) {
        wb_cloth_free(s);
        return wb_error_set(err, WB_E_IO, "out of memory for a %dx%d cloth", nx, ny);
    }

    float ai[3], aj[3];
    float li = sqrtf(dot3(def->axis_i, def->axis_i)), lj = sqrtf(dot3(def->axis_j, def->axis_j));
    if (!(li > 0.0f && lj > 0.0f)) {
        wb_cloth_free(s);
        return wb_error_set(err, WB_E_INPUT, "cloth axes must be non-zero vectors");
    }
    for (int c = 0; c < 3; c++) {
        ai[c] = def->axis_i[c] / li;
        aj[c] = def->axis_j[c] / lj;
    }
    const float hi = def->size[0] / (float)(nx - 1), hj = def->size[1] / (float)(ny - 1);
    s->rest[FAM_H] = hi;
    s->rest[FAM_V] = hj;
    s->rest[FAM_D1] = s->rest[FAM_D2] = sqrtf(hi * hi + hj * hj);
    s->rest[FAM_BH] = 2.0f * hi;
    s->rest[FAM_BV] = 2.0f * hj;
    s->mass = def->fabric.weight * def->size[0] * def->size[1] / (float)n;
    for (int j = 0; j < ny; j++) {
        for (int i = 0; i < nx; i++) {
            int p = j * nx + i;
            float u = hi * (float)i, v = hj * (float)j;
            s->x[p] = s->px[p] = def->origin[0] + u * ai[0] + v * aj[0];
            s->y[p] = s->py[p] = def->origin[1] + u * ai[1] + v * aj[1];
            s->z[p] = s->pz[p] = def->origin[2] + u * ai[2] + v * aj[2];
            s->w[p] = 1.0f / s->mass;
        }
    }
    for (int i = 0; i < nx; i++) {
        s->wind_su[i] = sinf(4.0f * hi * (float)i);
        s->wind_cu[i] = cosf(4.0f * hi * (float)i);
    }
    for (int j = 0; j < ny; j++) {
        s->wind_sv[j] = sinf(7.5f * hj * (float)j);
        s->wind_cv[j] = cosf(7.5f * hj * (float)j);
    }
    switch (def->pin_mode) {
    case WB_CLOTH_PIN_TOP_EDGE:
        for (int i = 0; i < nx; i++)
            s->w[i] = 0.0f;
        break;
    case WB_CLOTH_PIN_CORNERS:
        s->w[(ny - 1) * nx] = s->w[n - 1] = 0.0f;
        /* fall through */
    case WB_CLOTH_PIN_TOP_CORNERS:
        s->w[0] = s->w[nx - 1] = 0.0f;
        break;
    case WB_CLOTH_PIN_NONE: break;
    }
    for (int k = 0; k < def->n_pins; k++)
        s->w[def->pins[k].j * nx + def->pins[k].i] = 0.0f;

    s->top_hint = -1;
    s->settle_moved = 0;
    s->lanes = 4;
#ifdef WB_CLOTH_AVX2
    if (wb_cpu_has(WB_CPU_AVX2))
        s->lanes = 8;
    if (wb_cpu_has(WB_CPU_AVX512F))
        s->lanes = 16;
#endif
    update_pin_depth(s);
    s->n_dih = build_dihedral(s);
    for (int c = 0; c < s->n_dih; c++) {
        float theta = 0.0f, g[4][3];
        if (dihedral(s, s->dih + 4 * c, &theta, g))
            s->dih_rest[c] = theta;
    }
    build_bodies(s, def);
    if (!build_packs(s)) {
        wb_cloth_free(s);
        return wb_error_set(err, WB_E_IO, "out of memory for the collision lookup");
    }
    wb_cloth_normals(s);
    return WB_OK;
}

bool wb_cloth_set_inert(WbClothState *s, int i, int j)
{
    if (i < 0 || i >= s->nx || j < 0 || j >= s->ny)
        return false;
    int p = j * s->nx + i;
    s->w[p] = WB_CLOTH_INERT;
    s->px[p] = s->x[p];
    s->py[p] = s->y[p];
    s->pz[p] = s->z[p];
    update_pin_depth(s);
    return true;
}

bool wb_cloth_set_pinned(WbClothState *s, int i, int j, bool pinned)
{
    if (i < 0 || i >= s->nx || j < 0 || j >= s->ny)
        return false;
    int p = j * s->nx + i;
    s->w[p] = pinned ? 0.0f : 1.0f / s->mass;
    s->px[p] = s->x[p];
    s->py[p] = s->y[p];
    s->pz[p] = s->z[p];
    update_pin_depth(s);
    return true;
}

void wb_cloth_release_all(WbClothState *s)
{
    for (int p = 0; p < s->n; p++) {
        if (s->w[p] == 0.0f) {
            s->w[p] = 1.0f / s->mass;
            s->px[p] = s->x[p];
            s->py[p] = s->y[p];
            s->pz[p] = s->z[p];
        }
    }
    update_pin_depth(s);
}

float wb_cloth_max_stretch(const WbClothState *s)
{
    float m = 0.0f;
    for (int j = 0; j < s->ny; j++) {
        for (int i = 0; i < s->nx; i++) {
            int a = j * s->nx + i;
            int nb[2] = {i + 1 < s->nx ? a + 1 : -1, j + 1 < s->ny ? a + s->nx : -1};
            for (int k = 0; k < 2; k++) {
                int b = nb[k];
                if (b < 0 || s->w[a] < 0.0f || s->w[b] < 0.0f)
                    continue;
                float dx = s->x[b] - s->x[a], dy = s->y[b] - s->y[a], dz = s->z[b] - s->z[a];
                float r = sqrtf(dx * dx + dy * dy + dz * dz) / s->rest[k == 0 ? FAM_H : FAM_V];
                if (r > m)
                    m = r;
            }
        }
    }
    return m;
}

int wb_cloth_find_nonfinite(const WbClothState *s)
{
    for (int p = 0; p < s->n; p++) {
        if (!isfinite(s->x[p]) || !isfinite(s->y[p]) || !isfinite(s->z[p]))
            return p;
    }
    return -1;
}
