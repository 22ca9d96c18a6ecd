/* simd.h — lane types of 4, 8 or 16 floats and int32s, one width per file.
 *
 * The policy, for every kernel with wide versions:
 * - The kernel body is written once, in a `*_kernel.inc` beside its module,
 *   over the lane types and operations here (WbF, WbI, wb_*), and names its
 *   entry points through WB_WNAME(name) (name_w4, name_w8, name_w16).
 * - It is compiled once per width by a two-line file, `foo_w8.c`:
 *       #define WB_W 8
 *       #include "x/foo_kernel.inc"
 *   and the Makefile gives that file its width's target flags (w8: AVX2,
 *   w16: AVX-512 F/BW/DQ; w4 gets none: SSE2 is the x86-64 baseline).  No
 *   target attributes, no target_clones: every function in the file is
 *   built for its width, inline helpers included, by GCC and Clang alike.
 * - The module calls the width that core/cpu.h reports (probed once,
 *   capped by WOBBLE_SIMD), through a small table of entry points.  A
 *   module may stop at 8 when 16 is no faster; it says so where it picks.
 * - Every width gives the same bytes: only IEEE adds, subtracts,
 *   multiplies, divides and square roots per lane, no FMA (-ffp-contract=off
 *   and the w8 flags leave FMA out), no reassociated reductions, and
 *   integer kernels exact at every width.  Tests compare widths byte for
 *   byte.
 * Arithmetic is written with operators on the vector types (GCC and Clang
 * vector extensions); what C cannot say (byte shuffles, packs, cross-lane
 * permutes, movemask) is one small inline per operation in simd_wN.h.
 * Widths 8 and 16 exist on x86-64 only; elsewhere WB_SIMD_WIDE is 0, the
 * w8/w16 files compile to nothing and w4 is plain vector code.
 */
#ifndef WB_SIMD_H
#define WB_SIMD_H

#include <stdint.h>
#include <string.h>

#include "core/cpu.h"

#ifndef WB_W
#error "define WB_W (4, 8 or 16) before including core/simd.h"
#endif

#define WB_WNAME(name) WB_WNAME_(name, WB_W)
#define WB_WNAME_(name, w) WB_WNAME__(name, w)
#define WB_WNAME__(name, w) name##_w##w

/* W float lanes, W int32 lanes (comparison masks: -1 or 0 per lane), and
 * the same bits as unsigned and as 16-bit fields, for shifts. */
typedef float WbF __attribute__((vector_size(4 * WB_W)));
typedef int32_t WbI __attribute__((vector_size(4 * WB_W)));
typedef uint32_t WbU __attribute__((vector_size(4 * WB_W)));
typedef uint16_t WbU16 __attribute__((vector_size(4 * WB_W)));

static inline WbF wb_f_set(float a)
{
    return (WbF){0} + a;
}

static inline WbI wb_i_set(int32_t a)
{
    return (WbI){0} + a;
}

/* Loads and stores of W lanes; the _a forms want 4·W-byte alignment. */
static inline WbF wb_f_load_a(const float *p)
{
    return *(const WbF *)__builtin_assume_aligned(p, 4 * WB_W);
}

static inline void wb_f_store_a(float *p, WbF v)
{
    *(WbF *)__builtin_assume_aligned(p, 4 * WB_W) = v;
}

static inline WbF wb_f_load(const float *p)
{
    WbF v;
    memcpy(&v, p, sizeof v);
    return v;
}

static inline WbI wb_i_load(const void *p)
{
    WbI v;
    memcpy(&v, p, sizeof v);
    return v;
}

/* Per lane: a where the mask m is set, b elsewhere. */
static inline WbF wb_f_select(WbI m, WbF a, WbF b)
{
    return (WbF)(((WbI)a & m) | ((WbI)b & ~m));
}

static inline WbI wb_i_select(WbI m, WbI a, WbI b)
{
    return (a & m) | (b & ~m);
}

/* 0, 1, .. W − 1. */
static inline WbI wb_i_iota(void)
{
    WbI v;
    for (int l = 0; l < WB_W; l++)
        v[l] = l;
    return v;
}

/* The 16 bytes b0 .. b15 in every 16-byte group (for wb_i_shuffle8). */
#define wb_i_bytes16(...) wb_i_groups16_((const int8_t[16]){__VA_ARGS__})
static inline WbI wb_i_groups16_(const int8_t b[16])
{
    WbI v;
    for (int k = 0; k < 4 * WB_W; k += 16)
        memcpy((char *)&v + k, b, 16);
    return v;
}

/* Logical shifts of every 32-bit lane and every 16-bit field. */
#define wb_i_srl32(v, n) ((WbI)((WbU)(v) >> (n)))
#define wb_i_srl16(v, n) ((WbI)((WbU16)(v) >> (n)))

#if WB_W == 4
#include "core/simd_w4.h"
#elif WB_W == 8 && WB_SIMD_WIDE
#include "core/simd_w8.h"
#elif WB_W == 16 && WB_SIMD_WIDE
#include "core/simd_w16.h"
#endif

#endif
