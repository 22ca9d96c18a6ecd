/* bench_photo.c — the photo step at grid 512 (263,169 vertices).
 *
 * Same state and schedule as the numpy anchor (../shared/anchors/
 * wobble_numpy.py --quick): a Gaussian pull of 0.1 at the centre (r = 1/6),
 * k = (2π/0.5)², ζ = 0.3, dt = 1/60; the median of 31 samples of 20 steps,
 * each sample on a freshly pulled state after 3 warm-up steps, every
 * operation timed in turn within each round so all see the same load.  Printed as `name value unit` lines; the last line is
 * one JSON object for bench/run.sh.
 *
 * The floor is a loop that moves the same bytes as the step (reads the six
 * arrays, writes four) with no arithmetic to speak of: the step is memory
 * bound, so step / floor is how close it runs to the machine.
 *
 * run4_* time wb_photo_step_n (four steps in one pass, a 60 fps frame at
 * 240 Hz) per step; frame_cold_* time one such frame from a cold cache, as
 * in a render, single steps against the fused run.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "sim/photo.h"
#include "sim/photo_fold.h"
#include "sim/spring.h"

#define SAMPLES 31
#define INNER 20

static float *gauss_weights(const WbPhotoState *s)
{
    float *w = wb_photo_array_alloc(s->n);
    double r = 1.0 / 6.0;
    for (size_t i = 0; i < s->n; i++) {
        double dx = s->rx[i] - 0.5, dy = s->ry[i] - 0.5;
        w[i] = (float)exp(-(dx * dx + dy * dy) / (2 * r * r));
    }
    return w;
}

static void pull(WbPhotoState *s, const float *w)
{
    for (size_t i = 0; i < s->n; i++) {
        s->x[i] = s->rx[i] + 0.1f * w[i] * (float)M_SQRT1_2;
        s->y[i] = s->ry[i] + 0.1f * w[i] * (float)M_SQRT1_2;
        s->vx[i] = s->vy[i] = 0.0f;
    }
    s->settled = false;
}

/* Built for AVX2 too, like the step (see photo.c), so the floor is as fast
 * as the machine allows. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define CLONES __attribute__((target_clones("avx2", "default")))
#else
#define CLONES
#endif

/* The same traffic as the step: read x, y, vx, vy, rx, ry; write x, y, vx, vy.
 * zero and one come through volatiles so nothing folds away. */
CLONES static void same_bytes_arrays(float *restrict x, float *restrict y, float *restrict vx,
                              float *restrict vy, const float *restrict rx,
                              const float *restrict ry, size_t n, float zero, float one)
{
    for (size_t b = 0; b < n; b += 16)
        for (size_t l = 0; l < 16; l++) {
            size_t i = b + l;
            x[i] = x[i] + rx[i] * zero;
            y[i] = y[i] + ry[i] * zero;
            vx[i] = vx[i] * one;
            vy[i] = vy[i] * one;
        }
}

/* Twice the last-level cache of the machines we run on (32 MB). */
#define EVICT_BYTES ((size_t)64 << 20)

static void evict(unsigned char *buf)
{
    static unsigned char v;
    memset(buf, ++v, EVICT_BYTES);
}

typedef struct Bench {
    WbPhotoState s;
    WbPhotoStep euler, exact;
    float *w, *scratch[6];
    unsigned char *evict;     /* EVICT_BYTES, written to flush the caches */
} Bench;

typedef enum Op {
    OP_EULER, OP_EXACT, OP_EULER_GRAB, OP_EXACT_GRAB, OP_RUN4_EULER, OP_RUN4_EULER_GRAB,
    OP_RUN4_EXACT_GRAB, OP_SAME_BYTES, OP_MEMCPY, OP_COUNT
} Op;

/* run4_*: wb_photo_step_n, four steps per pass (a 60 fps frame at 240 Hz),
 * printed per step like the others. */
static const char *const op_names[OP_COUNT] = {
    "step_euler_moving", "step_exact_moving", "step_euler_grab",
    "step_exact_grab",   "run4_euler_moving", "run4_euler_grab",
    "run4_exact_grab",   "same_bytes_floor",  "memcpy_6_arrays",
};

#define RUN 4

/* One sample of INNER repetitions of op on a freshly pulled, warmed state. */
static double sample_ms(Bench *bn, Op op)
{
    WbPhotoState *s = &bn->s;
    volatile float vz = 0.0f, vo = 1.0f;
    pull(s, bn->w);
    s->grab = op == OP_EULER_GRAB || op == OP_EXACT_GRAB || op == OP_RUN4_EULER_GRAB ||
                      op == OP_RUN4_EXACT_GRAB
                  ? bn->w
                  : NULL;
    const WbPhotoStep *c =
        op == OP_EXACT || op == OP_EXACT_GRAB || op == OP_RUN4_EXACT_GRAB ? &bn->exact : &bn->euler;
    float dd = s->grab ? 1e-4f : 0.0f;
    const float dds[RUN] = {dd, dd, dd, dd};
    bool run = op == OP_RUN4_EULER || op == OP_RUN4_EULER_GRAB || op == OP_RUN4_EXACT_GRAB;
    for (int k = 0; k < 3; k++) /* warm the caches and the branch */
        wb_photo_step(s, c, dd, dd);
    double t0 = wb_bench_now_ns();
    for (int j = 0; j < INNER; j++) {
        if (op == OP_SAME_BYTES) {
            same_bytes_arrays(s->x, s->y, s->vx, s->vy, s->rx, s->ry, (s->n + 15) / 16 * 16,
                              vz, vo);
        } else if (op == OP_MEMCPY) {
            const float *src[6] = {s->x, s->y, s->vx, s->vy, s->rx, s->ry};
            for (int a = 0; a < 6; a++)
                memcpy(bn->scratch[a], src[a], s->n * sizeof(float));
        } else if (run) {
            if (j % RUN == 0)
                wb_photo_step_n(s, c, RUN, dds, dds, NULL);
        } else {
            wb_photo_step(s, c, dd, dd);
        }
    }
    double ms = (wb_bench_now_ns() - t0) / INNER / 1e6;
    s->grab = NULL;
    return ms;
}

int main(void)
{
    static Bench bn;
    WbPhotoState *s = &bn.s;
    WbError err;
    if (wb_photo_state_init(s, 512, 512, 512, &err) != WB_OK) {
        fprintf(stderr, "bench_photo: %s\n", err.msg);
        return 1;
    }
    double k = pow(2 * M_PI / 0.5, 2), dt = 1.0 / 60.0;
    wb_photo_step_coef(&bn.euler, k, 0.3, dt, WB_SPRING_EULER);
    wb_photo_step_coef(&bn.exact, k, 0.3, dt, WB_SPRING_EXACT);
    bn.w = gauss_weights(s);
    for (int a = 0; a < 6; a++)
        bn.scratch[a] = wb_photo_array_alloc(s->n);
    bn.evict = malloc(EVICT_BYTES);
    if (!bn.evict) {
        fprintf(stderr, "bench_photo: out of memory\n");
        return 1;
    }
    /* Interleaved rounds: on a shared machine every op sees the same load. */
    static double all[OP_COUNT][SAMPLES];
    for (int r = 0; r < SAMPLES; r++)
        for (int op = 0; op < OP_COUNT; op++)
            all[op][r] = sample_ms(&bn, (Op)op);
    double med[OP_COUNT];
    for (int op = 0; op < OP_COUNT; op++)
        med[op] = wb_bench_median(all[op], SAMPLES);
    const WbPhotoStep *euler = &bn.euler;

    /* moving check: on a moving state (exits early) and on a still one
     * (scans everything: the cost paid once, when it settles) */
    pull(s, bn.w);
    for (int j = 0; j < 30; j++)
        wb_photo_step(s, euler, 0, 0);
    double smp[SAMPLES];
    int moving = 0;
    for (int r = 0; r < SAMPLES; r++) {
        double t0 = wb_bench_now_ns();
        for (int j = 0; j < INNER; j++)
            moving += wb_photo_moving(s, euler, 1e-4f);
        smp[r] = (wb_bench_now_ns() - t0) / INNER / 1e6;
    }
    double t_check_moving = wb_bench_median(smp, SAMPLES);
    wb_photo_settle(s, 1e-4f);
    int still = 0;
    for (int r = 0; r < SAMPLES; r++) {
        double t0 = wb_bench_now_ns();
        for (int j = 0; j < INNER; j++)
            still += !wb_photo_moving(s, euler, 1e-4f);
        smp[r] = (wb_bench_now_ns() - t0) / INNER / 1e6;
    }
    double t_check_still = wb_bench_median(smp, SAMPLES);

    /* a settled step is a flag test */
    enum { REPS = 1000000 };
    for (int r = 0; r < SAMPLES; r++) {
        double t0 = wb_bench_now_ns();
        for (int j = 0; j < REPS; j++)
            wb_photo_step(s, euler, 0, 0);
        smp[r] = (wb_bench_now_ns() - t0) / REPS;
    }
    double t_settled_ns = wb_bench_median(smp, SAMPLES);

    /* The fold limit on a pulled mesh that folds nowhere: the sign pass
     * that also saves x and y, paid once per fused run of steps. */
    WbPhotoFoldScratch fold;
    if (!wb_photo_fold_scratch_init(&fold, s->grid)) {
        fprintf(stderr, "bench_photo: out of memory\n");
        return 1;
    }
    pull(s, bn.w);
    wb_photo_fold_save(s, &fold);
    int64_t held = 0;
    for (int r = 0; r < SAMPLES; r++) {
        double t0 = wb_bench_now_ns();
        for (int j = 0; j < INNER; j++)
            held += wb_photo_fold_limit(s, &fold);
        smp[r] = (wb_bench_now_ns() - t0) / INNER / 1e6;
    }
    double t_fold = wb_bench_median(smp, SAMPLES);
    wb_photo_fold_scratch_free(&fold);

    /* One 60 fps frame at 240 Hz (four grab steps) from a cold cache, as in
     * a render, where drawing and encoding the frame push the mesh out of
     * the caches between frames: four single steps (one memory pass each)
     * against one fused run (one pass); alternated, each timed alone. */
    double cold[2][SAMPLES];
    s->grab = bn.w;
    for (int r = 0; r < SAMPLES; r++)
        for (int fused = 0; fused < 2; fused++) {
            pull(s, bn.w);
            evict(bn.evict);
            const float dds[RUN] = {1e-4f, 1e-4f, 1e-4f, 1e-4f};
            double t0 = wb_bench_now_ns();
            if (fused)
                wb_photo_step_n(s, &bn.euler, RUN, dds, dds, NULL);
            else
                for (int j = 0; j < RUN; j++)
                    wb_photo_step(s, &bn.euler, dds[j], dds[j]);
            cold[fused][r] = (wb_bench_now_ns() - t0) / 1e6;
        }
    s->grab = NULL;
    double t_cold_steps = wb_bench_median(cold[0], SAMPLES);
    double t_cold_run = wb_bench_median(cold[1], SAMPLES);

    printf("# bench_photo: grid 512 (263169 vertices), float32 SoA, k=%.1f zeta=0.3 dt=1/60, "
           "median of %d x %d steps\n", k, SAMPLES, INNER);
    for (int op = 0; op < OP_COUNT; op++)
        printf("%-24s %8.4f ms\n", op_names[op], med[op]);
    double t_euler = med[OP_EULER], t_exact = med[OP_EXACT], t_floor = med[OP_SAME_BYTES];
    printf("euler_vs_floor           %8.2f x\n", t_euler / t_floor);
    printf("run4_vs_step_euler_grab  %8.2f x\n", med[OP_EULER_GRAB] / med[OP_RUN4_EULER_GRAB]);
    printf("exact_vs_floor           %8.2f x\n", t_exact / t_floor);
    printf("check_moving_state       %8.4f ms  (moving=%s)\n", t_check_moving,
           moving == SAMPLES * INNER ? "true" : "?");
    printf("check_still_state        %8.4f ms  (still=%s)\n", t_check_still,
           still == SAMPLES * INNER ? "true" : "?");
    printf("step_settled             %8.2f ns\n", t_settled_ns);
    printf("fold_limit_clean         %8.4f ms  (held=%lld)\n", t_fold, (long long)held);
    printf("frame_cold_4_steps       %8.4f ms\n", t_cold_steps);
    printf("frame_cold_run4          %8.4f ms\n", t_cold_run);
    printf("run4_vs_steps_cold       %8.2f x\n", t_cold_steps / t_cold_run);
    printf("{\"step_euler_ms\": %.5f, \"step_exact_ms\": %.5f, \"step_euler_grab_ms\": %.5f, "
           "\"step_exact_grab_ms\": %.5f, \"run4_euler_grab_ms\": %.5f, \"floor_ms\": %.5f, \"memcpy_ms\": %.5f, "
           "\"check_moving_ms\": %.5f, \"check_still_ms\": %.5f, \"settled_ns\": %.3f}\n",
           t_euler, t_exact, med[OP_EULER_GRAB], med[OP_EXACT_GRAB], med[OP_RUN4_EULER_GRAB],
           t_floor, med[OP_MEMCPY],
           t_check_moving,
           t_check_still, t_settled_ns);
    wb_photo_array_free(bn.w);
    for (int a = 0; a < 6; a++)
        wb_photo_array_free(bn.scratch[a]);
    free(bn.evict);
    wb_photo_state_free(s);
    return 0;
}
