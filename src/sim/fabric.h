/* fabric.h — the six-parameter fabric model of the cloth solver and its
 * named presets (SPEC 4.3).
 *
 * A fabric is six numbers.  Their units and how the solver uses them:
 *   stiffness       0..1   stretch resistance.  PBD: structural links are
 *                          projected with k = min(1, 1.2·stiffness) per
 *                          iteration, shear with 0.35·k.  XPBD: a 2-D stretch
 *                          modulus E = WB_FABRIC_E0 · 100^stiffness (N/m),
 *                          compliance α = 1/E per link (see cloth.c).
 *   weight          kg/m²  areal density.  Sets the particle masses (XPBD) and
 *                          divides the wind pressure (a = p·response/weight);
 *                          gravity is the same for every fabric.
 *   damping         0..1   share of the velocity kept per 1/360 s (the
 *                          reference's per-substep factor at 6 substeps of a
 *                          60 Hz frame); rescaled to the actual substep as
 *                          damping^(dt/(1/360)), so motion does not change
 *                          with the substep count.
 *   bend_stiffness  0..1   fold resistance.  PBD: k of the bend constraints;
 *                          WB_FABRIC_BEND_AUTO means the reference's generic
 *                          rule "6 % of structural".  XPBD: bending modulus
 *                          B = WB_FABRIC_B0 · bend^1.5 (N·m).
 *   friction        0..1   Coulomb coefficient against bodies and the floor:
 *                          kinetic, the tangential velocity is scaled by
 *                          (1 − friction); static (WB_CLOTH_STATIC_RATIO ×
 *                          friction), a contact whose tangential slip over a
 *                          substep is below μs × (gravity's normal share of
 *                          g·dt² + the push depth) sticks.
 *   wind_response   0..1   how much of the wind pressure the weave catches.
 */
#ifndef WB_FABRIC_H
#define WB_FABRIC_H

#include <stddef.h>

#include "core/error.h"

#define WB_FABRIC_BEND_AUTO (-1.0f) /* bend = 0.06 · structural k (reference rule) */
#define WB_FABRIC_E0 5.0f           /* N/m: XPBD stretch modulus at stiffness 0 */
#define WB_FABRIC_B0 5.0e-3f        /* N·m: XPBD bending modulus at bend 1 */

typedef struct WbFabric {
    const char *name;       /* static string; never freed */
    float stiffness;
    float weight;
    float damping;
    float bend_stiffness;
    float friction;
    float wind_response;
} WbFabric;

typedef enum WbFabricId {
    WB_FABRIC_CHIFFON,
    WB_FABRIC_SILK,
    WB_FABRIC_COTTON,
    WB_FABRIC_WOOL,
    WB_FABRIC_DENIM,
    WB_FABRIC_LEATHER,
    WB_FABRIC_COUNT
} WbFabricId;

/* The preset `id` (0 <= id < WB_FABRIC_COUNT), by value. */
WbFabric wb_fabric_preset(WbFabricId id);

/* Look a preset up by its lower-case name ("silk", ...).  WB_E_INPUT with a
 * message listing the known names when there is none. */
WbStatus wb_fabric_find(const char *name, WbFabric *out, WbError *err);

/* WB_E_INPUT when a parameter is out of its documented range; the message
 * names the parameter. */
WbStatus wb_fabric_validate(const WbFabric *f, WbError *err);

#endif
