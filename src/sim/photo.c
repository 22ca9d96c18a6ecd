/* photo.c — the photo mesh: state, step coefficients, settle and snap.
 *
 * The step, the motion test and the NaN scan are lane kernels
 * (photo_kernel.inc, one build per width); this file picks the width and
 * owns everything else.  The kernel takes a run of steps through the mesh
 * block by block; a single step is a run of one.
 */
#include "sim/photo.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/cpu.h"
#include "sim/photo_kernel.h"
#include "sim/spring.h"

/* The loops live in photo_kernel.inc, built at 4, 8 and 16 lanes; each
 * call takes the width core/cpu.h reports. */
#define A(p) ((float *)__builtin_assume_aligned((p), WB_PHOTO_ALIGN))
#define CA(p) ((const float *)__builtin_assume_aligned((p), WB_PHOTO_ALIGN))

static const WbPhotoKernels *kernels(void)
{
#if WB_SIMD_WIDE
    switch (wb_cpu_lanes()) {
    case 16: return &wb_photo_kernels_w16;
    case 8: return &wb_photo_kernels_w8;
    }
#endif
    return &wb_photo_kernels_w4;
}

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
    size_t bytes = wb_photo_padded(n) * sizeof(float);
    bytes = (bytes + WB_PHOTO_ALIGN - 1) / WB_PHOTO_ALIGN * WB_PHOTO_ALIGN;
    float *a = aligned_alloc(WB_PHOTO_ALIGN, bytes ? bytes : WB_PHOTO_ALIGN);
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
    WbPhotoRun run = {.ddx = ddx, .ddy = ddy, .j0 = j0, .n = n, .find_bad = bad != NULL, .bad = -1};
    kernels()->run(s, k, &run);
    if (bad)
        *bad = run.bad;
    return n - j0;
}

void wb_photo_step(WbPhotoState *s, const WbPhotoStep *k, float ddx, float ddy)
{
    wb_photo_step_n(s, k, 1, &ddx, &ddy, NULL);
}

bool wb_photo_moving(const WbPhotoState *s, const WbPhotoStep *k, float eps)
{
    return kernels()->moving(s, k, eps);
}

void wb_photo_settle(WbPhotoState *s, float eps)
{
    size_t n = wb_photo_padded(s->n);
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

int64_t wb_photo_find_nonfinite(const WbPhotoState *s)
{
    return kernels()->find_nonfinite(s);
}

int64_t wb_photo_corner_scan(const WbPhotoState *s, float lim, float *nx, float *ny,
                             uint8_t *bad_row)
{
    return kernels()->corner_scan(s, lim, nx, ny, bad_row);
}
