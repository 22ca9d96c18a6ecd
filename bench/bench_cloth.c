/* bench_cloth.c — cost of a cloth frame (SPEC 4.3).
 *
 * The reference drape (silk, 1.4 m square falling onto the 28-sphere dress
 * form, 6 substeps × 10 iterations, floor, normals) at 70×70 and 140×140,
 * then the options at 70×70: XPBD, dihedral bending, self-collision.
 * Each case warms up (the cloth reaches the body), then times single frames;
 * it prints the median wall-clock ms/frame (what the anchor reports), its
 * minimum, the median thread CPU time (robust on a shared machine) and the
 * state reached, with a hash of its positions (FNV-1a over x, y, z): a
 * change meant to be bit-identical must keep the hash.
 * The last line is JSON for bench/run.sh.  Peer: ../shared/anchors/
 * cloth_drape.js (the same model in node), run next to this by bench/run.sh.
 * Keeps to a few seconds on an idle machine.
 *
 * `bench_cloth N` runs only the first N cases (1: the 70×70 reference,
 * 2: and 140×140), for repeated side-by-side runs against the anchor on a
 * shared machine; the JSON then carries 0 for the cases not run. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "bench_util.h"
#include "core/hash.h"
#include "sim/cloth.h"

typedef struct Case {
    const char *name;
    int n;
    WbClothSolver solver;
    WbClothBending bending;
    int self;
    int warmup, frames;
} Case;

static double run_case(const Case *c)
{
    WbClothDef d = wb_cloth_default();
    d.nx = d.ny = c->n;
    d.solver = c->solver;
    d.bending = c->bending;
    d.self_collision = c->self != 0;
    WbClothState s;
    WbError err;
    if (wb_cloth_init(&s, &d, &err) != WB_OK) {
        fprintf(stderr, "bench_cloth: %s\n", err.msg);
        exit(1);
    }
    for (int f = 0; f < c->warmup; f++)
        wb_cloth_step(&s, &d, s.time, 1.0f / 60.0f);
    double *t = malloc(sizeof(double) * (size_t)c->frames * 2);
    if (!t)
        exit(1);
    double *cpu = t + c->frames;
    for (int f = 0; f < c->frames; f++) {
        double t0 = wb_bench_clock_ms(CLOCK_MONOTONIC);
        double c0 = wb_bench_clock_ms(CLOCK_THREAD_CPUTIME_ID);
        wb_cloth_step(&s, &d, s.time, 1.0f / 60.0f);
        t[f] = wb_bench_clock_ms(CLOCK_MONOTONIC) - t0;
        cpu[f] = wb_bench_clock_ms(CLOCK_THREAD_CPUTIME_ID) - c0;
    }
    wb_bench_sort(t, c->frames);
    wb_bench_sort(cpu, c->frames);
    double med = t[c->frames / 2];
    float lo = 1e9f, hi = -1e9f;
    for (int p = 0; p < s.n; p++) {
        lo = s.y[p] < lo ? s.y[p] : lo;
        hi = s.y[p] > hi ? s.y[p] : hi;
    }
    uint64_t h = wb_fnv1a(WB_FNV1A_SEED, s.x, sizeof(float) * (size_t)s.n);
    h = wb_fnv1a(h, s.y, sizeof(float) * (size_t)s.n);
    h = wb_fnv1a(h, s.z, sizeof(float) * (size_t)s.n);
    printf("%-30s %4dx%-4d %8.3f ms/frame wall (min %.3f; cpu median %.3f)  %d frames after "
           "%d warm-up, %d lanes;  max stretch %.3f, y %.3f..%.3f, state %016llx\n",
           c->name, c->n, c->n, med, t[0], cpu[c->frames / 2], c->frames, c->warmup, s.lanes,
           (double)wb_cloth_max_stretch(&s), (double)lo, (double)hi, (unsigned long long)h);
    free(t);
    wb_cloth_free(&s);
    return med;
}

int main(int argc, char **argv)
{
    const Case cases[] = {
        {"drape silk PBD 6x10", 70, WB_CLOTH_PBD, WB_CLOTH_BEND_SKIP, 0, 30, 150},
        {"drape silk PBD 6x10", 140, WB_CLOTH_PBD, WB_CLOTH_BEND_SKIP, 0, 10, 30},
        {"drape silk XPBD 6x10", 70, WB_CLOTH_XPBD, WB_CLOTH_BEND_SKIP, 0, 30, 30},
        {"drape silk PBD dihedral", 70, WB_CLOTH_PBD, WB_CLOTH_BEND_DIHEDRAL, 0, 30, 30},
        {"drape silk PBD self-collision", 70, WB_CLOTH_PBD, WB_CLOTH_BEND_SKIP, 1, 30, 30},
    };
    int n_cases = argc > 1 ? atoi(argv[1]) : 5;
    if (n_cases < 1 || n_cases > 5)
        n_cases = 5;
    double ms[5] = {0};
    for (int k = 0; k < n_cases; k++)
        ms[k] = run_case(&cases[k]);
    printf("{\"cloth70_ms\": %.4f, \"cloth140_ms\": %.4f, \"cloth70_xpbd_ms\": %.4f, "
           "\"cloth70_dihedral_ms\": %.4f, \"cloth70_self_ms\": %.4f}\n",
           ms[0], ms[1], ms[2], ms[3], ms[4]);
    return 0;
}
