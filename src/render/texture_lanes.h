/* texture_lanes.h — wb_tex_sampler_fx4 (texture.h) for the W lanes of
 * core/simd.h, W = 8 or 16: one body, compiled once per width by the lane
 * kernels that include it (*_w8.c: AVX2, *_w16.c: AVX-512, flags from the
 * Makefile).  Every lane gives the same integers as wb_tex_sampler_fx:
 * the same clamp, weights and exact float blend.  Texel indices are 32-bit
 * here: only for textures of fewer than 2^31 texels (wb_tex_sampler_fx8_ok).
 * Include core/simd.h (with WB_W set) first. */
#ifndef WB_TEXTURE_LANES_H
#define WB_TEXTURE_LANES_H

#include "render/texture.h"

#if (WB_W == 8 || WB_W == 16) && WB_SIMD_WIDE
static inline WbI wb_tex_sampler_lanes(const WbTexSampler *t, WbF su, WbF sv)
{
    /* The scalar clamp: NaN and x <= -256 give -256, min(x, hi) else. */
    const WbF low = wb_f_set(-256.0f);
    const WbI gu = su > low, gv = sv > low;
    su = wb_f_select(gu, wb_f_min(su, wb_f_set(t->hx)), low);
    sv = wb_f_select(gv, wb_f_min(sv, wb_f_set(t->hy)), low);
    const WbF half = wb_f_set(512.5f);
    const WbI iu = __builtin_convertvector(su + half, WbI) - 512 + 256;
    const WbI iv = __builtin_convertvector(sv + half, WbI) - 512 + 256;
    WbI x0 = (iu >> 8) - 1, y0 = (iv >> 8) - 1;
    WbI fx = iu & 255;
    const WbI fy = iv & 255;
    /* A clamped column pair (x0 = -1, or x0 >= wm) takes weight 0 on its
     * right texel: see wb_tex_sampler_fx4.  x0, y0 >= -1. */
    const WbI wm = wb_i_set(t->wm), hm = wb_i_set(t->hm);
    fx &= ~((x0 >> 31) | (x0 > wm - 1));
    WbI y1 = y0 + 1;
    x0 = wb_i_min(x0 & ~(x0 >> 31), wm);
    y0 = wb_i_min(y0 & ~(y0 >> 31), hm);
    y1 = wb_i_min(y1, hm);
    const WbI w = wb_i_set((int32_t)t->w);
    /* Texel pairs (a, b) of the top row and (c, d) of the bottom one, 64
     * bits a lane: lanes 0 .. W/2 - 1 in *0, two to a 16-byte group, the
     * rest in *1. */
    WbI p0, p1, q0, q1;
    wb_i_load64_lanes(t->px, y0 * w + x0, &p0, &p1);
    wb_i_load64_lanes(t->px, y1 * w + x0, &q0, &q1);
    /* Per group, the pair of its even lane (lo) or odd lane (hi) as 16-bit
     * channel pairs a.r b.r a.g b.g …; g picks the vector and the parity,
     * sel spreads each lane's weights over the four lanes its pair fills. */
    const WbI pair_lo = wb_i_bytes16(0, -1, 4, -1, 1, -1, 5, -1, 2, -1, 6, -1, 3, -1, 7, -1);
    const WbI pair_hi = wb_i_bytes16(8, -1, 12, -1, 9, -1, 13, -1, 10, -1, 14, -1, 11, -1, 15, -1);
    const WbI wx = (256 - fx) | (fx << 16);
    const WbF wy1 = __builtin_convertvector(fy, WbF), wy0 = __builtin_convertvector(256 - fy, WbF);
    WbI sel0, out;
    for (int l = 0; l < WB_W; l++) {
        sel0[l] = 2 * (l / 4);
        /* packs then packus leave group k with lanes 2k, 2k + 1 of the
         * first half, then of the second: put them back in order */
        const int j = l % (WB_W / 2);
        out[l] = 4 * (j / 2) + 2 * (l / (WB_W / 2)) + (j & 1);
    }
    WbI q[4];
    for (int g = 0; g < 4; g++) {
        const WbI sel = sel0 + (g >> 1) * (WB_W / 2) + (g & 1);
        const WbI top = wb_i_shuffle8(g < 2 ? p0 : p1, (g & 1) ? pair_hi : pair_lo);
        const WbI bot = wb_i_shuffle8(g < 2 ? q0 : q1, (g & 1) ? pair_hi : pair_lo);
        const WbI w_ = wb_i_permute(wx, sel);
        const WbF tf = __builtin_convertvector(wb_i_madd16(top, w_), WbF);
        const WbF bf = __builtin_convertvector(wb_i_madd16(bot, w_), WbF);
        const WbF y0_ = (WbF)wb_i_permute((WbI)wy0, sel), y1_ = (WbF)wb_i_permute((WbI)wy1, sel);
        q[g] = wb_i_srl32(__builtin_convertvector(tf * y0_ + bf * y1_ + 32768.0f, WbI), 16);
    }
    return wb_i_permute(wb_i_packus16(wb_i_packs32(q[0], q[1]), wb_i_packs32(q[2], q[3])), out);
}
#endif

#endif
