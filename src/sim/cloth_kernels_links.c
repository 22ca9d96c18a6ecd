/* cloth_kernels_links.c — the distance-link kernels, per lane width.
 *
 * The link sweeps of cloth_links.c (see its design note) a lane's worth of
 * links at a time: the projection itself (PFX_link: PBD, XPBD and the
 * unilateral stretch limit; PFX_flink: the plain PBD share form), then the
 * walks over a family's links — contiguous rows (contig), in-row families
 * (stride2, pairs, and their whole-sheet forms sstride2, spairs) and the
 * row families as one range over the sheet (range_fast).  Each is written
 * once as a macro and instantiated for 4, 8 and 16 lanes.
 */
#include "sim/cloth_kernels.h"

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
    ATTR int wb_cloth_##PFX##_contig(WbClothState *s, int a0, int boff, int count,        \
                                     float *lam, const LinkParams *p)                     \
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

/* Links inside a row whose ends interleave in memory.  A block is 2W
 * consecutive particles q .. q+2W−1; SHUF_A picks the W a ends, SHUF_B the
 * W b ends, SHUF_LO/HI put them back.  Blocks start every 2W particles from
 * `first`; returns where the next block would start.  Links not covered by
 * a full block are left to the narrower width and then the scalar tail. */
#define DEFINE_ROW_INTERLEAVED(NAME, VF, VI, PFX, W, ATTR, SHUF_A, SHUF_B, SHUF_LO, SHUF_HI, \
                               ALIGN, AOFF)                                                 \
    ATTR int wb_cloth_##NAME(WbClothState *s, int row0, int first, int len, float *lam,     \
                             const LinkParams *p)                                           \
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

DEFINE_ROW_INTERLEAVED(v4_stride2, v4f, v4i, v4, 4, NO_TARGET, S2A4, S2B4, S2L4, S2H4, 2,
                       ((v4i){0, 2, 4, 6}))
DEFINE_ROW_INTERLEAVED(v4_pairs, v4f, v4i, v4, 4, NO_TARGET, PRA4, PRB4, PRA4, PRB4, 4,
                       ((v4i){0, 1, 4, 5}))
#ifdef WB_CLOTH_AVX2
DEFINE_ROW_INTERLEAVED(v8_stride2, v8f, v8i, v8, 8, AVX2, S2A8, S2B8, S2L8, S2H8, 2,
                       ((v8i){0, 2, 8, 10, 4, 6, 12, 14}))
DEFINE_ROW_INTERLEAVED(v8_pairs, v8f, v8i, v8, 8, AVX2, PRA8, PRB8, PRA8, PRB8, 4,
                       ((v8i){0, 1, 8, 9, 4, 5, 12, 13}))
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
    ATTR int wb_cloth_##NAME(WbClothState *s, int first, float k_, float rest_, int span)   \
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
         * a row) go through NAME_at, whose column/row bookkeeping for every block    \
         * would be a large share of the instructions. */                               \
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
    ATTR int wb_cloth_##PFX##_range_fast(WbClothState *s, int a0, int boff, int count,    \
                                         float k_, float rest_, int bad, int rev)         \
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
             * per-block bookkeeping was a large share of the instructions) */    \
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
