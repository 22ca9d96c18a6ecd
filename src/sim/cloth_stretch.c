/* cloth_stretch.c — the hard stretch limit and the ordered settling pass.
 *
 * Hard stretch limit: structural links longer than max_stretch × rest are
 * pulled back to exactly that.  A colour-ordered, mass-split pass cannot do
 * it once a whole column hangs over-stretched from a pin (fixing one link
 * re-stretches its neighbours; the excess moves one link per pass — the
 * Jakobsen problem), so the limit is swept in sequence with "follow the
 * leader" weights (Müller et al. 2012, inextensible hair): of a link's two
 * ends, the one fewer grid steps from a pin stays and the other follows;
 * ends equally far (or a cloth with no pins) split the correction by mass,
 * so nothing drifts.  A round sweeps rows of vertical links (one vector
 * loop per row) top to bottom, links along each row left to right, then all
 * of it back; a chain hanging from a pin is shortened in a single sweep.
 * Then the ordered pass (clamp_ordered) makes the limit hold exactly.
 */
#include "sim/cloth_kernels.h"

/* Horizontal links of rows j0 .. j0+nr−1 (nr <= 4), each row in sequence
 * (dir = +1: left to right, −1: back), W at a time and then one by one. */
static void clamp_rows(WbClothState *s, int j0, int nr, float lim, int dir)
{
    const int nx = s->nx, nl = nx - 1;
    const float lim2 = lim * lim;
    int k = 0;
#if WB_SIMD_WIDE
    if (s->lanes == 16)
        k = wb_cloth_v16_clamp_rows(s, j0, nr, lim, dir, k);
    if (s->lanes >= 8)
        k = wb_cloth_v8_clamp_rows(s, j0, nr, lim, dir, k);
#endif
    k = wb_cloth_v4_clamp_rows(s, j0, nr, lim, dir, k);
    for (; k < nl; k++) {
        for (int r = 0; r < nr; r++)
            clamp_link(s, (j0 + r) * nx + (dir > 0 ? k : nl - 1 - k), lim, lim2);
    }
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
int wb_cloth_settle_with(WbClothState *s, int p, const int *nb, const float *lim, int n)
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
    wb_cloth_settle_with(s, p, nb, lim, n);
}

/* The breadth-first order from a single particle (i0, j0) of a grid with
 * no pin and no cut: a particle's settled neighbours are then exactly its
 * one or two neighbours towards (i0, j0), so each quadrant swept row by
 * row away from (i0, j0) settles every particle against the same
 * neighbours, at the same positions, as the search would — the same
 * result without a queue.
 * Settling is a chain: a particle waits for its leader's new position
 * (square roots and divisions), and at 140x140 a third of the sheet is
 * over the limit, moved one particle after the other.  A
 * particle needs only its leader in the row and the one in the row
 * before, so settle_wavefront() takes SETTLE_ROWS rows side by side: in
 * step t, row k of the group does its chunk t − k (chunk 0 is the start
 * column, chunk m >= 1 columns 4m − 3 .. 4m), whose neighbours in the row
 * before were done in step t − 1, and the rows' particles at the same
 * place in their chunks, independent of each other, are settled in the
 * lanes of one vector.  Every particle sees the same neighbours at the
 * same positions as in the row-by-row order: the same bytes. */
#define SETTLE_ROWS 4

/* wb_cloth_settle_with() for nl <= 4 particles p[l] (independent: other rows) that
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
                            moved += wb_cloth_settle_with(s, p, nb, lim, 1);
                    }
                    if (nl)
                        moved += settle_lanes(s, lane, nl, si, sj * nx, lim_h, lim_v);
                }
            }
        }
    }
    return moved;
}

/* Either order gives the same bytes: the row order is quicker when few
 * particles move (the vector test skips most of the sheet, as at 70x70),
 * the wavefront when many do (a third of the sheet at 140x140).  The last
 * pass's count picks. */
static void settle_quadrants(WbClothState *s, int i0, int j0, float lim_h, float lim_v)
{
    if (s->settle_moved * 8 > s->n) {
        s->settle_moved = settle_wavefront(s, i0, j0, lim_h, lim_v);
        return;
    }
#if WB_SIMD_WIDE
    if (s->lanes >= 8) {
        s->settle_moved = wb_cloth_settle_rows8(s, i0, j0, lim_h, lim_v);
        return;
    }
#endif
    s->settle_moved = wb_cloth_settle_rows(s, i0, j0, lim_h, lim_v);
}

static inline void mark_settled(WbClothState *s, int p, int *tail)
{
    s->pin_depth[p] = -s->pin_depth[p] - 1.0f;
    s->queue[(*tail)++] = p;
}

/* The follow-the-leader sweeps (wb_cloth_stretch_limit) split a link's
 * correction by mass wherever no pin leads (the reference drape has
 * none), and a mass-split sequential sweep leaves every link re-stretched
 * by half of its successor's correction: the sheet resting on the head
 * stayed well over the limit after the sweeps, and more rounds converge
 * only slowly (bench/NOTES.md).
 * This pass makes the limit hold: particles are settled one at a time in
 * breadth-first order, each moved to the nearest point within the limit of
 * its already-settled neighbours, and a settled particle never moves
 * again, so every structural link ends within the limit.  The search
 * starts from the pins; with none, from the single highest particle
 * touching a body (the top of the head, which carries the sheet), else
 * from the grid's centre.  Several starts (touching particles all over the
 * body) make fronts meet whose balls need not intersect (measured worse),
 * so only pins, which cannot move anyway, are several.  A piece the
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
        if (top < 0 || top >= n || !(s->w[top] > 0.0f) ||
            !wb_cloth_bodies_touch(s, top, margin, skin))
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
            /* wb_cloth_bodies_touch() is 0 outside the body's bounds (these
             * very compares): most of a sheet above the top of the head is,
             * and no longer goes through it one particle at a time */
            const v4f bx = v4_ld(s->x + p), by = v4_ld(s->y + p), bz = v4_ld(s->z + p);
            cand &= (bx >= lo0) & (bx <= hi0) & (by >= lo1) & (by <= hi1) & (bz >= lo2) &
                    (bz <= hi2);
            if (!V4_ANY(cand))
                continue;
            for (int q = p; q < p + 4; q++) {
                if (s->w[q] > 0.0f &&
                    (top < 0 || s->y[q] > s->y[top] || (s->y[q] == s->y[top] && q < top)) &&
                    wb_cloth_bodies_touch(s, q, margin, skin))
                    top = q;
            }
        }
        for (; p < n; p++) {
            if (s->w[p] > 0.0f &&
                (top < 0 || s->y[p] > s->y[top] || (s->y[p] == s->y[top] && p < top)) &&
                wb_cloth_bodies_touch(s, p, margin, skin))
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

void wb_cloth_stretch_limit(WbClothState *s, const WbClothDef *def, float ratio)
{
    const int nx = s->nx, ny = s->ny;
    const float lim_h = s->rest[FAM_H] * ratio;
    LinkParams pv = {1.0f, 0.0f, s->rest[FAM_V] * ratio, 1, 1};
    for (int round = 0; round < WB_CLOTH_CLAMP_ROUNDS; round++) {
        for (int j = 0; j + 1 < ny; j++)
            wb_cloth_links_contig(s, j * nx, nx, nx, NULL, &pv);
        for (int j = 0; j < ny; j += 4)
            clamp_rows(s, j, ny - j < 4 ? ny - j : 4, lim_h, +1);
        for (int j = ny - 2; j >= 0; j--)
            wb_cloth_links_contig(s, j * nx, nx, nx, NULL, &pv);
        for (int j = 0; j < ny; j += 4)
            clamp_rows(s, j, ny - j < 4 ? ny - j : 4, lim_h, -1);
    }
    clamp_ordered(s, def, lim_h, pv.rest);
}

/* Grid steps (4-neighbour) from each particle to the nearest pinned one, by
 * breadth-first search; a large number when there is no pin.  Run at init
 * and whenever pins change, never in the step. */
void wb_cloth_pin_depth_update(WbClothState *s)
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
