/* cloth_kernels.h — the cloth's vector kernels, one instance per lane width
 * (internal to src/sim/cloth*.c).
 *
 * wb_cloth_vW_* works W lanes at a time and is compiled for the instruction
 * set of that width (cloth_*_wW.c over cloth_*_kernel.inc, see
 * cloth_lanes.h); the 8- and 16-lane ones exist only where WB_SIMD_WIDE is
 * set and may be called only when WbClothState.lanes allows it.  A caller takes the widest width first,
 * then the narrower ones from where it stopped, then its own scalar tail:
 * the functions that return an int return where they stopped (or how many
 * links they did), as their comments in the kernel files say.
 *   cloth_links_kernel.inc     distance links (row, in-row and sheet sweeps)
 *   cloth_dihedral_kernel.inc  dihedral constraints
 *   cloth_particles_kernel.inc per-particle passes: bodies, prediction, the
 *                              stretch limit's row test and settling, normals
 */
#ifndef WB_CLOTH_KERNELS_H
#define WB_CLOTH_KERNELS_H

#include "sim/cloth_internal.h"
#include "sim/cloth_lanes.h"

#define WB_CLOTH_DECLARE_KERNELS(PFX)                                                      \
    int wb_cloth_##PFX##_contig(WbClothState *s, int a0, int boff, int count,              \
                                float *lam, const LinkParams *p);                          \
    int wb_cloth_##PFX##_stride2(WbClothState *s, int row0, int first, int len,            \
                                 float *lam, const LinkParams *p);                         \
    int wb_cloth_##PFX##_pairs(WbClothState *s, int row0, int first, int len,              \
                               float *lam, const LinkParams *p);                           \
    int wb_cloth_##PFX##_sstride2(WbClothState *s, int first, float k_, float rest_,       \
                                  int span);                                               \
    int wb_cloth_##PFX##_spairs(WbClothState *s, int first, float k_, float rest_,         \
                                int span);                                                 \
    int wb_cloth_##PFX##_range_fast(WbClothState *s, int a0, int boff, int count,          \
                                    float k_, float rest_, int bad, int rev);              \
    int wb_cloth_##PFX##_push_all(WbClothState *s, int i, float (*sph)[5]);                \
    int wb_cloth_##PFX##_friction_all(WbClothState *s, int i, float (*sph)[5],             \
                                      float mu, float gdt2);                               \
    int wb_cloth_##PFX##_predict_row(WbClothState *s, int row0, int i, const float c[9],   \
                                     int wind);                                            \
    int wb_cloth_##PFX##_clamp_rows(WbClothState *s, int j0, int nr, float lim, int dir,   \
                                    int k);                                                \
    int wb_cloth_##PFX##_face_row(const WbClothState *s, int j, float *f, int i);          \
    int wb_cloth_##PFX##_vertex_row(WbClothState *s, int j, const float *up,               \
                                    const float *dn, int i);

WB_CLOTH_DECLARE_KERNELS(v4)
void wb_cloth_v4_dih_colour(WbClothState *s, int col, float k, float at, bool xpbd);
/* One dihedral constraint: lane 0 of the 4-lane kernel (the very operations
 * of the sweep), for the rest angles and wb_cloth_dihedral_eval(). */
int wb_cloth_v4_dihedral1(const WbClothState *s, const int32_t q[4], float *theta,
                          float g[4][3]);
/* The ordered stretch pass row by row (cloth_stretch.c), its groups tested
 * 4 particles at a time, or 8 then 4. */
int wb_cloth_settle_rows(WbClothState *s, int i0, int j0, float lim_h, float lim_v);

#if WB_SIMD_WIDE
WB_CLOTH_DECLARE_KERNELS(v8)
WB_CLOTH_DECLARE_KERNELS(v16)
void wb_cloth_v8_dih_colour(WbClothState *s, int col, float k, float at, bool xpbd);
void wb_cloth_v16_dih_colour(WbClothState *s, int col, float k, float at, bool xpbd);
int wb_cloth_settle_rows8(WbClothState *s, int i0, int j0, float lim_h, float lim_v);
#endif

#endif
