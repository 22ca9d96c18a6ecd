/* cloth_kernels_dihedral.c — the dihedral bending kernels, per lane width.
 *
 * The angle and its gradients on lanes (Bridson et al.), the projection of
 * W constraints at once, and the sweep of one colour: quads gathered one by
 * one (short rows) or loaded as segments of two vectors per row they touch
 * (see the kinds in cloth_internal.h).  4 and 8 lanes; 16 are not used here.
 */
#include "sim/cloth_kernels.h"

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
int wb_cloth_v4_dihedral1(const WbClothState *s, const int32_t q[4], float *theta,
                          float g[4][3])
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

/* The segments of a kind's quad (see DIH_D, DIH_H, DIH_V in cloth_internal.h):
 * the rows and columns they start at, and which quad point their even and
 * odd particles are. */
typedef struct DihSeg {
    int dj, di;      /* the segment starts at particle (i0 + di, j + dj) */
    int even, odd;   /* the quad point of its even / odd particles, −1: none */
} DihSeg;
static const DihSeg DIH_SEGS[DIH_KINDS][3] = {
    [DIH_D] = {{0, 0, 0, 2}, {1, 0, 3, 1}, {0, 0, -1, -1}},
    [DIH_H] = {{-1, 0, 3, -1}, {0, 0, 0, 1}, {1, 0, -1, 2}},
    [DIH_V] = {{0, -1, 3, 1}, {1, 0, 0, 2}, {0, 0, -1, -1}},
};

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
    ATTR void wb_cloth_##PFX##_dih_colour(WbClothState *s, int col, float k, float at,     \
                                          bool xpbd)                                       \
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
