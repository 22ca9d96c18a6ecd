/* photo_fold.c — the fold limit (see photo_fold.h). */
#include "sim/photo_fold.h"

#include <stdbool.h>
#include <stddef.h>
#include <math.h>
#include <stdlib.h>

/* Bisection steps for t: the area bound is met to 2^-16 of the pull. */
#define FOLD_BISECT 16

/* Cell sweeps at most: later ones catch cells a neighbour's limit squeezed. */
#define FOLD_SWEEPS 16

/* The four vertices of a cell, their rest, and what the limit blends. */
typedef struct Cell {
    size_t v[4];              /* a = (i, j), b = (i+1, j), d = (i+1, j+1), c = (i, j+1) */
    float dx[4], dy[4];       /* displacement from rest */
    float rx[4], ry[4];
    float mx, my;             /* the common part m */
} Cell;

static float cross(float ax, float ay, float bx, float by)
{
    return ax * by - ay * bx;
}

/* Smallest signed area (doubled) of the four corner triangles of a cell
 * whose corners, in the order a, b, d, c around it, are at (px, py). */
static float min_corner(const float px[4], const float py[4])
{
    float lo = 0.0f;
    for (int k = 0; k < 4; k++) {
        int n = (k + 1) & 3, p = (k + 3) & 3;
        float a = cross(px[n] - px[k], py[n] - py[k], px[p] - px[k], py[p] - py[k]);
        lo = k == 0 || a < lo ? a : lo;
    }
    return lo;
}

/* The smallest corner area of the cell at blend t. */
static float area_at(const Cell *c, float t)
{
    float px[4], py[4];
    for (int k = 0; k < 4; k++) {
        px[k] = c->rx[k] + c->mx + t * (c->dx[k] - c->mx);
        py[k] = c->ry[k] + c->my + t * (c->dy[k] - c->my);
    }
    return min_corner(px, py);
}

/* Limit the cell whose top-left vertex is a; true when it was limited. */
static bool limit_cell(WbPhotoState *s, size_t a, size_t cols, float lim)
{
    Cell c = {.v = {a, a + 1, a + cols + 1, a + cols}};
    bool fixed = false;
    float sx = 0, sy = 0, svx = 0, svy = 0;
    for (int k = 0; k < 4; k++) {
        size_t v = c.v[k];
        c.rx[k] = s->rx[v];
        c.ry[k] = s->ry[v];
        c.dx[k] = s->x[v] - c.rx[k];
        c.dy[k] = s->y[v] - c.ry[k];
        fixed |= s->mask && s->mask[v] == 0.0f;
        sx += c.dx[k], sy += c.dy[k], svx += s->vx[v], svy += s->vy[v];
    }
    if (fixed)
        sx = sy = svx = svy = 0.0f;
    c.mx = 0.25f * sx, c.my = 0.25f * sy;
    if (!(area_at(&c, 1.0f) < lim))
        return false;
    float lo = 0.0f, hi = 1.0f;
    for (int it = 0; it < FOLD_BISECT; it++) {
        float mid = 0.5f * (lo + hi);
        if (area_at(&c, mid) >= lim)
            lo = mid;
        else
            hi = mid;
    }
    float ux = 0.25f * svx, uy = 0.25f * svy;
    for (int k = 0; k < 4; k++) {
        size_t v = c.v[k];
        if (s->mask && s->mask[v] == 0.0f)
            continue;
        s->x[v] = c.rx[k] + c.mx + lo * (c.dx[k] - c.mx);
        s->y[v] = c.ry[k] + c.my + lo * (c.dy[k] - c.my);
        s->vx[v] = ux + lo * (s->vx[v] - ux);
        s->vy[v] = uy + lo * (s->vy[v] - uy);
    }
    return true;
}

/* Corner areas of the cells of row j below lim, counted without a branch
 * per cell (the common case, no cell near folding, is this loop alone). */
static int row_below(const WbPhotoState *s, size_t j, size_t cols, float lim)
{
    const float *x0 = s->x + j * cols, *y0 = s->y + j * cols;
    const float *x1 = x0 + cols, *y1 = y0 + cols;
    int bad = 0;
    for (size_t i = 0; i + 1 < cols; i++) {
        float abx = x0[i + 1] - x0[i], aby = y0[i + 1] - y0[i];
        float acx = x1[i] - x0[i], acy = y1[i] - y0[i];
        float dbx = x0[i + 1] - x1[i + 1], dby = y0[i + 1] - y1[i + 1];
        float dcx = x1[i] - x1[i + 1], dcy = y1[i] - y1[i + 1];
        bad += cross(abx, aby, acx, acy) < lim;   /* corner a: b - a, c - a */
        bad += cross(-dbx, -dby, -abx, -aby) < lim; /* corner b: d - b, a - b */
        bad += cross(dcx, dcy, dbx, dby) < lim;   /* corner d: c - d, b - d */
        bad += cross(-acx, -acy, -dcx, -dcy) < lim; /* corner c: a - c, d - c */
    }
    return bad;
}

/* Order along one grid line: the n positions p[0], p[st], ... (rest spacing
 * h > 0) must keep p[k+1] - p[k] ≥ g = WB_PHOTO_FOLD_MIN·h.  With
 * z_k = p_k - k g that is z non-decreasing; the closest such z (least
 * squares) is the isotonic regression, found by pooling adjacent violators:
 * runs of vertices that overtook each other move together at their mean
 * (and their velocities v along the line take their mean).  A vertex with
 * mask weight 0 stays at rest: it splits the line, and the stretch between
 * two such vertices is regressed alone and clamped between their z (clamping
 * the free regression gives the bounded one).  Lines already in order, and
 * vertices whose place does not change, are not written.  Returns the
 * vertices moved. */
static int64_t order_stretch(float *p, float *v, size_t first, size_t st, size_t k0, size_t k1,
                             double lo, double hi, float g, double *sum, double *vsum, size_t *len)
{
    size_t nb = 0;
    for (size_t k = k0; k < k1; k++) {
        size_t i = first + k * st;
        sum[nb] = (double)p[i] - (double)k * g;
        vsum[nb] = v[i];
        len[nb++] = 1;
        while (nb > 1 && sum[nb - 2] / len[nb - 2] > sum[nb - 1] / len[nb - 1]) {
            sum[nb - 2] += sum[nb - 1];
            vsum[nb - 2] += vsum[nb - 1];
            len[nb - 2] += len[nb - 1];
            nb--;
        }
    }
    int64_t moved = 0;
    for (size_t b = 0, k = k0; b < nb; k += len[b++]) {
        double z = sum[b] / len[b], u = vsum[b] / len[b];
        bool clamped = z < lo || z > hi;
        if (len[b] == 1 && !clamped)
            continue;
        z = z < lo ? lo : z > hi ? hi : z;
        for (size_t q = k; q < k + len[b]; q++) {
            size_t i = first + q * st;
            p[i] = (float)(z + (double)q * g);
            v[i] = clamped ? 0.0f : (float)u;
            moved++;
        }
    }
    return moved;
}

static int64_t order_line(WbPhotoState *s, float *p, float *v, size_t first, size_t st, size_t n,
                          float g, double *sum, double *vsum, size_t *len)
{
    bool ok = true;
    for (size_t k = 0; k + 1 < n && ok; k++)
        ok = !(p[first + (k + 1) * st] - p[first + k * st] < g);
    if (ok)
        return 0;
    int64_t moved = 0;
    double lo = -HUGE_VAL;
    size_t k0 = 0;
    for (size_t k = 0; k <= n; k++) {
        bool fixed = k < n && s->mask && s->mask[first + k * st] == 0.0f;
        if (k < n && !fixed)
            continue;
        double hi = k < n ? (double)p[first + k * st] - (double)k * g : HUGE_VAL;
        if (k > k0)
            moved += order_stretch(p, v, first, st, k0, k, lo, hi, g, sum, vsum, len);
        lo = hi;
        k0 = k + 1;
    }
    return moved;
}

/* Every row in order along x, every column along y (see order_line):
 * this undoes the wide folds a pull makes where it compresses the mesh
 * ahead of it, which cell-by-cell limits would only push along. */
static int64_t order_lines(WbPhotoState *s, double *sum, double *vsum, size_t *len)
{
    size_t cols = (size_t)s->grid + 1;
    float gx = WB_PHOTO_FOLD_MIN * (s->rx[1] - s->rx[0]);
    float gy = WB_PHOTO_FOLD_MIN * (s->ry[cols] - s->ry[0]);
    int64_t moved = 0;
    for (size_t j = 0; j < cols; j++)
        moved += order_line(s, s->x, s->vx, j * cols, 1, cols, gx, sum, vsum, len);
    for (size_t i = 0; i < cols; i++)
        moved += order_line(s, s->y, s->vy, i, cols, cols, gy, sum, vsum, len);
    return moved;
}

/* Doubled rest area of a corner triangle times the bound. */
static float area_bound(const WbPhotoState *s, float frac)
{
    size_t cols = (size_t)s->grid + 1;
    float hx = s->rx[1] - s->rx[0], hy = s->ry[cols] - s->ry[0];
    return frac * hx * hy;
}

int64_t wb_photo_fold_limit(WbPhotoState *s, WbPhotoFoldScratch *w)
{
    size_t cols = (size_t)s->grid + 1;
    float lim = area_bound(s, WB_PHOTO_FOLD_MIN);
    int64_t limited = order_lines(s, w->sum, w->vsum, w->len);
    for (int sweep = 0; sweep < FOLD_SWEEPS; sweep++) {
        int64_t before = limited;
        for (size_t j = 0; j + 1 < cols; j++) {
            if (!row_below(s, j, cols, lim))
                continue;
            for (size_t i = 0; i + 1 < cols; i++)
                limited += limit_cell(s, j * cols + i, cols, lim);
        }
        if (limited == before)
            break;
    }
    return limited;
}

int64_t wb_photo_fold_count(const WbPhotoState *s)
{
    size_t cols = (size_t)s->grid + 1;
    int64_t n = 0;
    for (size_t j = 0; j + 1 < cols; j++) {
        const float *x0 = s->x + j * cols, *y0 = s->y + j * cols;
        for (size_t i = 0; i + 1 < cols; i++) {
            const float px[4] = {x0[i], x0[i + 1], x0[i + cols + 1], x0[i + cols]};
            const float py[4] = {y0[i], y0[i + 1], y0[i + cols + 1], y0[i + cols]};
            for (int k = 0; k < 4; k++) {
                int nx = (k + 1) & 3, p = (k + 3) & 3;
                n += cross(px[nx] - px[k], py[nx] - py[k], px[p] - px[k], py[p] - py[k]) <= 0.0f;
            }
        }
    }
    return n;
}

bool wb_photo_fold_scratch_init(WbPhotoFoldScratch *w, int grid)
{
    size_t n = (size_t)grid + 1;
    w->sum = malloc(n * sizeof *w->sum);
    w->vsum = malloc(n * sizeof *w->vsum);
    w->len = malloc(n * sizeof *w->len);
    if (w->sum && w->vsum && w->len)
        return true;
    wb_photo_fold_scratch_free(w);
    return false;
}

void wb_photo_fold_scratch_free(WbPhotoFoldScratch *w)
{
    free(w->sum);
    free(w->vsum);
    free(w->len);
    w->sum = w->vsum = NULL;
    w->len = NULL;
}
