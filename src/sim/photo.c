/* photo.c — the photo mesh step, settle check and snap.
 *
 * Every loop runs over the vertex arrays in blocks of WB_LANES (the arrays
 * are padded to a multiple of it, padding vertices sit at 0 with zero rest
 * and velocity and never move): a fixed-count inner loop is vectorized by the
 * compiler even at -O2 (no scalar epilogue, no alias versioning since every
 * pointer is restrict and 64-byte aligned).
 *
 * One kernel body covers the 2 integrators × {no weights, grab, pins, both};
 * the flags are compile-time constants at each call so every mode is its own
 * straight loop with no per-vertex branches.  The kernel takes a run of
 * steps through the mesh block by block (see WB_BLOCK); a single step is a
 * run of one.
 */
#include "sim/photo.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/spring.h"

#define WB_LANES 16
#define WB_ALIGN 64

/* On x86-64 the step loops are also built for AVX2 and picked at load time:
 * 8 floats per instruction instead of 4.  Only plain IEEE adds, subtracts
 * and multiplies are used (no FMA: -ffp-contract=off, and "avx2" does not
 * enable it), so both versions give the same bits. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define WB_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define WB_CLONES
#endif

static size_t padded(size_t n)
{
    return (n + WB_LANES - 1) / WB_LANES * WB_LANES;
}

#define A(p) ((float *)__builtin_assume_aligned((p), WB_ALIGN))
#define CA(p) ((const float *)__builtin_assume_aligned((p), WB_ALIGN))

bool wb_photo_step_coef(WbPhotoStep *out, double k, double zeta, double dt,
                        WbSpringIntegrator integrator)
{
    double pe[4], px[4];
    wb_spring_euler(k, zeta, dt, pe);
    wb_spring_exact(k, zeta, dt, px);
    *out = (WbPhotoStep){
        .integrator = integrator,
        .dt = (float)dt,
        .inv_dt = (float)(1.0 / dt),
        .kdt = (float)(k * dt),
        .cdt = (float)(wb_spring_c(k, zeta) * dt),
        .m00 = (float)px[0],
        .m01 = (float)px[1],
        .m10 = (float)px[2],
        .m11 = (float)px[3],
        .inv_k = (float)(1.0 / k),
        .k = k,
        .zeta = zeta,
    };
    return integrator == WB_SPRING_EXACT || wb_spring_growth(pe) <= 1.0;
}

float *wb_photo_array_alloc(size_t n)
{
    size_t bytes = padded(n) * sizeof(float);
    bytes = (bytes + WB_ALIGN - 1) / WB_ALIGN * WB_ALIGN;
    float *a = aligned_alloc(WB_ALIGN, bytes ? bytes : WB_ALIGN);
    if (a)
        memset(a, 0, bytes);
    return a;
}

void wb_photo_array_free(float *a)
{
    free(a);
}

WbStatus wb_photo_state_init(WbPhotoState *s, int grid, int img_w, int img_h, WbError *err)
{
    memset(s, 0, sizeof *s);
    if (grid < 1 || grid > 4096)
        return wb_error_set(err, WB_E_INPUT, "photo grid %d is out of range (1..4096)", grid);
    if (img_w < 1 || img_h < 1)
        return wb_error_set(err, WB_E_INPUT, "photo image size %dx%d is empty", img_w, img_h);
    size_t cols = (size_t)grid + 1;
    s->grid = grid;
    s->n = cols * cols;
    float **arrays[] = {&s->x, &s->y, &s->vx, &s->vy, &s->rx, &s->ry};
    for (size_t a = 0; a < sizeof arrays / sizeof arrays[0]; a++) {
        *arrays[a] = wb_photo_array_alloc(s->n);
        if (!*arrays[a]) {
            wb_photo_state_free(s);
            return wb_error_set(err, WB_E_IO, "out of memory for a %d-cell photo grid", grid);
        }
    }
    /* Rest (i/g · W', j/g · H') with W' = W/min, H' = H/min (shorter edge = 1). */
    double m = img_w < img_h ? img_w : img_h;
    double sw = img_w / m, sh = img_h / m;
    for (size_t j = 0; j < cols; j++)
        for (size_t i = 0; i < cols; i++) {
            size_t v = j * cols + i;
            s->rx[v] = (float)((double)i / grid * sw);
            s->ry[v] = (float)((double)j / grid * sh);
        }
    memcpy(s->x, s->rx, s->n * sizeof(float));
    memcpy(s->y, s->ry, s->n * sizeof(float));
    s->settled = true;
    return WB_OK;
}

void wb_photo_state_free(WbPhotoState *s)
{
    if (!s)
        return;
    float *arrays[] = {s->x, s->y, s->vx, s->vy, s->rx, s->ry, s->mask, s->grab, s->pin};
    for (size_t a = 0; a < sizeof arrays / sizeof arrays[0]; a++)
        wb_photo_array_free(arrays[a]);
    memset(s, 0, sizeof *s);
}

void wb_photo_apply_mask(WbPhotoState *s, float *mask)
{
    wb_photo_array_free(s->mask);
    s->mask = mask;
    if (!mask)
        return;
    for (size_t i = 0; i < s->n; i++)
        if (mask[i] == 0.0f) {
            s->x[i] = s->rx[i];
            s->y[i] = s->ry[i];
            s->vx[i] = 0.0f;
            s->vy[i] = 0.0f;
        }
}

/* The spring part of one vertex axis: (x, v) → (xn, vn).
 *   Euler:  v += -k dt d - c dt v ;  x += v dt      (the seed's model)
 *   Exact:  (d, v) ← M (d, v) ;  x = rest + d */
typedef struct Coef {
    float m00, m01, m10, m11, kdt, cdt, dt;
} Coef;

static inline __attribute__((always_inline)) void
spring1(Coef k, bool exact, float x, float v, float r, float *xn, float *vn)
{
    float d = x - r;
    if (exact) {
        float d1 = k.m00 * d + k.m01 * v;
        *vn = k.m10 * d + k.m11 * v;
        *xn = r + d1;
    } else {
        float v1 = v + (-k.kdt * d - k.cdt * v);
        *vn = v1;
        *xn = x + v1 * k.dt;
    }
}

/* Fusing steps.  The vertices are independent oscillators: step j of vertex
 * i reads only vertex i's own state after step j-1.  So running steps
 * j0..n-1 on one block of WB_BLOCK vertices before moving to the next block
 * performs, per vertex, exactly the operations of n - j0 whole-mesh passes
 * in the same order (same floats), while the block stays in L1 between
 * steps: the mesh (6-8 arrays of 1 MB at grid 512) crosses the memory bus
 * once per run instead of once per step.  WB_BLOCK = 256 vertices is 8 KB
 * over eight arrays; measured with bench_photo (frame_cold_*: four grab
 * steps from a cold cache, as in a render), 256 gave 1.44-1.56x over four
 * single passes, 512 and 1024 1.2-1.5x, 4096 (128 KB, L2) 1.2-1.3x. */
#define WB_BLOCK 256

typedef struct Run {
    const float *ddx, *ddy;   /* cursor displacement of each step */
    int j0, n;                /* steps j0..n-1 run */
    bool find_bad;            /* find the first NaN/Inf vertex after the last step */
    int64_t bad;              /* ... here: its index, or -1 */
} Run;

/* Index of the first vertex in [b, e) with a NaN/Inf position or velocity,
 * or -1.  x·0 is 0 for finite x and NaN for NaN or ±Inf, so the common case
 * is one vectorized pass with no branch. */
static inline __attribute__((always_inline)) int64_t
range_nonfinite(const float *restrict x, const float *restrict y, const float *restrict vx,
                const float *restrict vy, size_t b, size_t e)
{
    int bad = 0;
    for (size_t i = b; i < e; i++)
        bad |= !((x[i] * 0.0f + y[i] * 0.0f + vx[i] * 0.0f + vy[i] * 0.0f) == 0.0f);
    if (!bad)
        return -1;
    for (size_t i = b; i < e; i++)
        if (!isfinite(x[i]) || !isfinite(y[i]) || !isfinite(vx[i]) || !isfinite(vy[i]))
            return (int64_t)i;
    return -1;
}

/* One step over the vertices [b0, b1) in chunks of `lanes` (a constant at
 * each call; b1 - b0 is a multiple of it): the inner trip count is a known
 * multiple of the vector width, so no scalar epilogue.  A whole block goes
 * as one chunk (its pointers set up once: 18 % fewer instructions for the
 * Euler step than 16-lane chunks, callgrind), the padded tail block in
 * WB_LANES chunks. */
static inline __attribute__((always_inline)) void
step_range(float *restrict x, float *restrict y, float *restrict vx, float *restrict vy,
           const float *restrict rx, const float *restrict ry, const float *restrict e,
           const float *restrict p, size_t b0, size_t b1, size_t lanes, Coef c, float ddx,
           float ddy, float ux, float uy, bool exact, bool has_e, bool has_p)
{
    for (size_t b = b0; b < b1; b += lanes) {
        for (size_t l = 0; l < lanes; l++) {
            size_t i = b + l;
            float xn, yn, vxn, vyn;
            spring1(c, exact, x[i], vx[i], rx[i], &xn, &vxn);
            spring1(c, exact, y[i], vy[i], ry[i], &yn, &vyn);
            if (!has_e && !has_p) {
                x[i] = xn;
                y[i] = yn;
                vx[i] = vxn;
                vy[i] = vyn;
                continue;
            }
            /* Blend: the grabbed fraction follows the cursor, the pinned
             * fraction holds, the free fraction a keeps its spring step. */
            float ei = has_e ? e[i] : 0.0f;
            float a = 1.0f - ei - (has_p ? p[i] : 0.0f);
            float xo = x[i], yo = y[i];
            x[i] = xo + a * (xn - xo) + ei * ddx;
            y[i] = yo + a * (yn - yo) + ei * ddy;
            vx[i] = a * vxn + ei * ux;
            vy[i] = a * vyn + ei * uy;
        }
    }
}

/* The run's steps, block by block; then, while the block is still in cache,
 * the NaN/Inf scan of its final state (blocks go in index order, so the
 * first bad block holds the first bad vertex). */
static inline __attribute__((always_inline)) void
kernel_arrays(float *restrict x, float *restrict y, float *restrict vx, float *restrict vy,
              const float *restrict rx, const float *restrict ry, const float *restrict e,
              const float *restrict p, size_t count, const WbPhotoStep *k, Run *run,
              bool exact, bool has_e, bool has_p)
{
    const Coef c = {k->m00, k->m01, k->m10, k->m11, k->kdt, k->cdt, k->dt};
    const float inv_dt = k->inv_dt;
    const float *ddx = run->ddx, *ddy = run->ddy;
    const int j0 = run->j0, n = run->n;
    const bool find_bad = run->find_bad;
    int64_t bad = -1;
    for (size_t b0 = 0; b0 < count; b0 += WB_BLOCK) {
        size_t b1 = count - b0 > WB_BLOCK ? b0 + WB_BLOCK : count;
        for (int j = j0; j < n; j++) {
            const float ux = ddx[j] * inv_dt, uy = ddy[j] * inv_dt;
            if (b1 - b0 == WB_BLOCK)
                step_range(x, y, vx, vy, rx, ry, e, p, b0, b1, WB_BLOCK, c, ddx[j], ddy[j], ux,
                           uy, exact, has_e, has_p);
            else
                step_range(x, y, vx, vy, rx, ry, e, p, b0, b1, WB_LANES, c, ddx[j], ddy[j], ux,
                           uy, exact, has_e, has_p);
        }
        if (find_bad && bad < 0)
            bad = range_nonfinite(x, y, vx, vy, b0, b1);
    }
    run->bad = bad;
}

static inline __attribute__((always_inline)) void
kernel(WbPhotoState *s, const WbPhotoStep *k, Run *run, bool exact, bool has_e, bool has_p)
{
    kernel_arrays(A(s->x), A(s->y), A(s->vx), A(s->vy), CA(s->rx), CA(s->ry),
                  has_e ? CA(s->grab) : NULL, has_p ? CA(s->pin) : NULL, padded(s->n), k, run,
                  exact, has_e, has_p);
}

WB_CLONES static void step_euler(WbPhotoState *s, const WbPhotoStep *k, Run *run)
{
    kernel(s, k, run, false, false, false);
}
WB_CLONES static void step_exact(WbPhotoState *s, const WbPhotoStep *k, Run *run)
{
    kernel(s, k, run, true, false, false);
}
WB_CLONES static void step_euler_w(WbPhotoState *s, const WbPhotoStep *k, Run *run)
{
    if (s->grab && s->pin)
        kernel(s, k, run, false, true, true);
    else if (s->grab)
        kernel(s, k, run, false, true, false);
    else
        kernel(s, k, run, false, false, true);
}
WB_CLONES static void step_exact_w(WbPhotoState *s, const WbPhotoStep *k, Run *run)
{
    if (s->grab && s->pin)
        kernel(s, k, run, true, true, true);
    else if (s->grab)
        kernel(s, k, run, true, true, false);
    else
        kernel(s, k, run, true, false, true);
}

int wb_photo_step_n(WbPhotoState *s, const WbPhotoStep *k, int n, const float *ddx,
                    const float *ddy, int64_t *bad)
{
    /* One step skips while settled with no pull; the first pull clears
     * `settled`, and from then on every step runs. */
    int j0 = 0;
    if (s->settled)
        while (j0 < n && !(s->grab && (ddx[j0] != 0.0f || ddy[j0] != 0.0f)))
            j0++;
    if (j0 >= n) {
        if (bad)
            *bad = wb_photo_find_nonfinite(s);
        return 0;
    }
    s->settled = false;
    Run run = {.ddx = ddx, .ddy = ddy, .j0 = j0, .n = n, .find_bad = bad != NULL, .bad = -1};
    bool exact = k->integrator == WB_SPRING_EXACT;
    if (!s->grab && !s->pin) {
        if (exact)
            step_exact(s, k, &run);
        else
            step_euler(s, k, &run);
    } else if (exact) {
        step_exact_w(s, k, &run);
    } else {
        step_euler_w(s, k, &run);
    }
    if (bad)
        *bad = run.bad;
    return n - j0;
}

void wb_photo_step(WbPhotoState *s, const WbPhotoStep *k, float ddx, float ddy)
{
    wb_photo_step_n(s, k, 1, &ddx, &ddy, NULL);
}

/* Velocity test over one block: any |v|² > thr (NaN counts). */
static inline bool block_fast(const float *restrict vx, const float *restrict vy, size_t b,
                              float thr)
{
    int any = 0;
    for (size_t l = 0; l < 256; l++) {
        size_t i = b + l;
        float q = vx[i] * vx[i] + vy[i] * vy[i];
        any |= !(q <= thr);
    }
    return any != 0;
}

/* Energy test over all vertices: any (a d)² + |v|²/k > eps² (NaN counts),
 * a = 1 - e - p the free fraction; stops at the first moving block. */
static inline __attribute__((always_inline)) bool
energy_any(const float *restrict x, const float *restrict y, const float *restrict vx,
           const float *restrict vy, const float *restrict rx, const float *restrict ry,
           const float *restrict e, const float *restrict p, size_t count, float ik, float eps2,
           bool has_e, bool has_p)
{
    for (size_t b = 0; b < count; b += WB_LANES) {
        int any = 0;
        for (size_t l = 0; l < WB_LANES; l++) {
            size_t i = b + l;
            float dx = x[i] - rx[i], dy = y[i] - ry[i];
            float a = 1.0f - (has_e ? e[i] : 0.0f) - (has_p ? p[i] : 0.0f);
            float q = a * a * (dx * dx + dy * dy) + (vx[i] * vx[i] + vy[i] * vy[i]) * ik;
            any |= !(q <= eps2);
        }
        if (any)
            return true;
    }
    return false;
}

WB_CLONES bool wb_photo_moving(const WbPhotoState *s, const WbPhotoStep *k, float eps)
{
    const float *x = CA(s->x), *y = CA(s->y), *vx = CA(s->vx), *vy = CA(s->vy);
    const float *rx = CA(s->rx), *ry = CA(s->ry);
    size_t n = padded(s->n);
    size_t nb = n / 256 * 256;
    float eps2 = eps * eps;
    float vthr = eps2 * (float)k->k;
    float ik = k->inv_k;
    /* 1. speed alone: |v|/ω > eps means the energy amplitude exceeds eps,
     *    and while anything moves this exits within the first moving block. */
    for (size_t b = 0; b < nb; b += 256)
        if (block_fast(vx, vy, b, vthr))
            return true;
    for (size_t i = nb; i < n; i++)
        if (!(vx[i] * vx[i] + vy[i] * vy[i] <= vthr))
            return true;
    /* 2. the whole energy amplitude, displacement included. */
    const float *e = s->grab ? CA(s->grab) : NULL, *p = s->pin ? CA(s->pin) : NULL;
    if (e && p)
        return energy_any(x, y, vx, vy, rx, ry, e, p, n, ik, eps2, true, true);
    if (e)
        return energy_any(x, y, vx, vy, rx, ry, e, NULL, n, ik, eps2, true, false);
    if (p)
        return energy_any(x, y, vx, vy, rx, ry, NULL, p, n, ik, eps2, false, true);
    return energy_any(x, y, vx, vy, rx, ry, NULL, NULL, n, ik, eps2, false, false);
}

void wb_photo_settle(WbPhotoState *s, float eps)
{
    size_t n = padded(s->n);
    memset(s->vx, 0, n * sizeof(float));
    memset(s->vy, 0, n * sizeof(float));
    if (!s->grab && !s->pin) {
        memcpy(s->x, s->rx, n * sizeof(float));
        memcpy(s->y, s->ry, n * sizeof(float));
    } else {
        /* Something holds a deformation: snap only what is within eps of
         * rest, leave held vertices where they are (exact floats, never
         * denormal: they are coordinates, not decaying residues). */
        float *restrict x = A(s->x), *restrict y = A(s->y);
        const float *restrict rx = CA(s->rx), *restrict ry = CA(s->ry);
        for (size_t i = 0; i < n; i++) {
            if (fabsf(x[i] - rx[i]) <= eps && fabsf(y[i] - ry[i]) <= eps) {
                x[i] = rx[i];
                y[i] = ry[i];
            }
        }
    }
    s->settled = true;
}

WB_CLONES int64_t wb_photo_find_nonfinite(const WbPhotoState *s)
{
    const float *restrict x = CA(s->x), *restrict y = CA(s->y);
    const float *restrict vx = CA(s->vx), *restrict vy = CA(s->vy);
    size_t n = padded(s->n);
    for (size_t b = 0; b < n; b += 256) {
        int64_t i = range_nonfinite(x, y, vx, vy, b, n - b > 256 ? b + 256 : n);
        if (i >= 0)
            return i;
    }
    return -1;
}
