/* photo_fold.c — the fold limit (see photo_fold.h). */
#include "sim/photo_fold.h"

#include <stdlib.h>
#include <string.h>

/* Doubled signed areas of the four corner triangles of the cell whose
 * top-left vertex is a: corners a = (i, j), b = (i+1, j), d = (i+1, j+1),
 * c = (i, j+1) in that order around the cell, each with its two edge
 * neighbours.  The one formula for the limit and the count, so "not below
 * the floor" there means "not flat" here, bit for bit. */
static inline void corners(const float *x, const float *y, size_t a, size_t cols, float out[4])
{
    const float px[4] = {x[a], x[a + 1], x[a + cols + 1], x[a + cols]};
    const float py[4] = {y[a], y[a + 1], y[a + cols + 1], y[a + cols]};
    for (int k = 0; k < 4; k++) {
        int n = (k + 1) & 3, p = (k + 3) & 3;
        float ax = px[n] - px[k], ay = py[n] - py[k];
        float bx = px[p] - px[k], by = py[p] - py[k];
        out[k] = ax * by - ay * bx;
    }
}

/* Levels of the motion a vertex keeps: level/RAMP of its run's motion. */
#define RAMP 2

/* Lower vertex v's level to at most lv (one request of a pass); the first
 * time, remember its stepped position. */
static void request(const WbPhotoState *s, WbPhotoFoldScratch *w, size_t v, uint8_t lv,
                    size_t *top)
{
    if (w->level[v] <= lv)
        return;
    if (w->level[v] == RAMP) {
        w->sx[v] = s->x[v];
        w->sy[v] = s->y[v];
        w->touched[w->n_touched++] = v;
    }
    w->level[v] = lv;
    if (w->stamp[v] != w->pass) {
        w->stamp[v] = w->pass;
        w->list[(*top)++] = v;
    }
}

/* A vertex of a bad triangle keeps nothing of the run; the vertices at grid
 * distance r < RAMP around it keep at most r/RAMP, so the taken-back motion
 * fades out instead of tearing at one vertex (wider ramps held whole
 * patches still). */
static void request_ramp(const WbPhotoState *s, WbPhotoFoldScratch *w, size_t u, size_t cols,
                         size_t *top)
{
    size_t i = u % cols, j = u / cols, r = RAMP - 1;
    size_t i0 = i > r ? i - r : 0, j0 = j > r ? j - r : 0;
    size_t i1 = i + r < cols ? i + r : cols - 1, j1 = j + r < cols ? j + r : cols - 1;
    for (size_t vj = j0; vj <= j1; vj++)
        for (size_t vi = i0; vi <= i1; vi++) {
            size_t di = vi > i ? vi - i : i - vi, dj = vj > j ? vj - j : j - vj;
            request(s, w, vj * cols + vi, (uint8_t)(di > dj ? di : dj), top);
        }
}

/* Judge the cell at top-left vertex a: a triangle at or below 0, or below
 * lim and below half its saved area, is bad, and its vertices go back
 * (request_ramp).  Reads positions only, and levels only ever go down (a
 * minimum), so the cells of a pass may go in any order. */
static void judge_cell(const WbPhotoState *s, WbPhotoFoldScratch *w, size_t a, size_t cols,
                       float lim, size_t *top)
{
    float now[4], was[4];
    corners(s->x, s->y, a, cols, now);
    if (!(now[0] < lim || now[1] < lim || now[2] < lim || now[3] < lim))
        return;
    corners(w->px, w->py, a, cols, was);
    const size_t v[4] = {a, a + 1, a + cols + 1, a + cols};
    for (int k = 0; k < 4; k++) {
        if (!(now[k] < lim && now[k] < 0.5f * was[k]) && now[k] > 0.0f)
            continue;
        request_ramp(s, w, v[k], cols, top);
        request_ramp(s, w, v[(k + 1) & 3], cols, top);
        request_ramp(s, w, v[(k + 3) & 3], cols, top);
    }
}

/* A new pass: stamps older than it no longer count (reset on wrap). */
static void next_pass(WbPhotoFoldScratch *w, size_t n)
{
    if (++w->pass == 0) {
        memset(w->stamp, 0, n * sizeof *w->stamp);
        w->pass = 1;
    }
}

/* Place list[b, e) at their levels: p + (level/RAMP)(stepped - p), and
 * exactly p at level 0. */
static void place(WbPhotoState *s, const WbPhotoFoldScratch *w, size_t b, size_t e)
{
    for (size_t q = b; q < e; q++) {
        size_t v = w->list[q];
        float t = (float)w->level[v] / RAMP;
        s->x[v] = w->level[v] ? w->px[v] + t * (w->sx[v] - w->px[v]) : w->px[v];
        s->y[v] = w->level[v] ? w->py[v] + t * (w->sy[v] - w->py[v]) : w->py[v];
    }
}

/* Levels back to untouched.  Velocities stay as the step left them: a
 * held vertex keeps its spring's phase and moves with its neighbours once
 * the pull eases (taking its velocity away left whole patches jammed). */
static void finish(WbPhotoFoldScratch *w)
{
    for (size_t q = 0; q < w->n_touched; q++)
        w->level[w->touched[q]] = RAMP;
    w->n_touched = 0;
}

/* The doubled rest area of a corner triangle times the floor fraction. */
static float floor_area(const WbPhotoState *s)
{
    size_t cols = (size_t)s->grid + 1;
    float hx = s->rx[1] - s->rx[0], hy = s->ry[cols] - s->ry[0];
    return WB_PHOTO_FOLD_MIN * hx * hy;
}

void wb_photo_fold_save(const WbPhotoState *s, WbPhotoFoldScratch *w)
{
    memcpy(w->px, s->x, s->n * sizeof *w->px);
    memcpy(w->py, s->y, s->n * sizeof *w->py);
}

int64_t wb_photo_fold_limit(WbPhotoState *s, WbPhotoFoldScratch *w)
{
    size_t cols = (size_t)s->grid + 1, grid = (size_t)s->grid;
    float lim = floor_area(s);
    size_t top = 0;
    /* The sign pass also copies the positions as the next run's saved
     * ones (nx, ny); what the limit moves is copied again at the end. */
    if (wb_photo_corner_scan(s, lim, w->nx, w->ny, w->bad_row) > 0) {
        next_pass(w, s->n);
        for (size_t j = 0; j < grid; j++)
            if (w->bad_row[j])
                for (size_t i = 0; i < grid; i++)
                    judge_cell(s, w, j * cols + i, cols, lim, &top);
    }
    /* Each pass places the vertices the last one lowered, then judges the
     * cells around them.  It ends: levels only go down, and with every
     * level at 0 the mesh is the saved one, where nothing is bad. */
    while (top > 0) {
        size_t e = top;
        place(s, w, 0, e);
        size_t *done = w->list;   /* judge around these; list the next */
        w->list = w->next;
        w->next = done;
        next_pass(w, s->n);
        top = 0;
        for (size_t q = 0; q < e; q++) {
            size_t v = done[q], i = v % cols, j = v / cols;
            for (size_t cj = j ? j - 1 : 0; cj <= j && cj < grid; cj++)
                for (size_t ci = i ? i - 1 : 0; ci <= i && ci < grid; ci++)
                    judge_cell(s, w, cj * cols + ci, cols, lim, &top);
        }
    }
    int64_t n = (int64_t)w->n_touched;
    for (size_t q = 0; q < w->n_touched; q++) {
        size_t v = w->touched[q];
        w->nx[v] = s->x[v];
        w->ny[v] = s->y[v];
    }
    finish(w);
    float *t = w->px;
    w->px = w->nx, w->nx = t;
    t = w->py;
    w->py = w->ny, w->ny = t;
    return n;
}

int64_t wb_photo_fold_count(const WbPhotoState *s)
{
    size_t cols = (size_t)s->grid + 1;
    int64_t n = 0;
    for (size_t j = 0; j + 1 < cols; j++)
        for (size_t i = 0; i + 1 < cols; i++) {
            float ar[4];
            corners(s->x, s->y, j * cols + i, cols, ar);
            n += (ar[0] <= 0.0f) + (ar[1] <= 0.0f) + (ar[2] <= 0.0f) + (ar[3] <= 0.0f);
        }
    return n;
}

bool wb_photo_fold_scratch_init(WbPhotoFoldScratch *w, int grid)
{
    size_t n = ((size_t)grid + 1) * ((size_t)grid + 1);
    *w = (WbPhotoFoldScratch){0};
    w->px = malloc(n * sizeof *w->px);
    w->py = malloc(n * sizeof *w->py);
    w->nx = malloc(n * sizeof *w->nx);
    w->ny = malloc(n * sizeof *w->ny);
    w->bad_row = malloc((size_t)grid * sizeof *w->bad_row);
    w->sx = malloc(n * sizeof *w->sx);
    w->sy = malloc(n * sizeof *w->sy);
    w->level = malloc(n * sizeof *w->level);
    w->stamp = calloc(n, sizeof *w->stamp);
    w->list = malloc(n * sizeof *w->list);
    w->next = malloc(n * sizeof *w->next);
    w->touched = malloc(n * sizeof *w->touched);
    bool ok = w->px && w->py && w->nx && w->ny && w->bad_row && w->sx && w->sy && w->level &&
              w->stamp && w->list && w->next && w->touched;
    if (ok) {
        memset(w->level, RAMP, n * sizeof *w->level);
        return true;
    }
    wb_photo_fold_scratch_free(w);
    return false;
}

void wb_photo_fold_scratch_free(WbPhotoFoldScratch *w)
{
    free(w->px);
    free(w->py);
    free(w->nx);
    free(w->ny);
    free(w->bad_row);
    free(w->sx);
    free(w->sy);
    free(w->level);
    free(w->stamp);
    free(w->list);
    free(w->next);
    free(w->touched);
    *w = (WbPhotoFoldScratch){0};
}
