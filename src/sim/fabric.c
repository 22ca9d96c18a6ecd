/* fabric.c — fabric presets.
 *
 * The values follow the reference's published ones where it gives them (silk
 * stiffness 0.4 / bend 0.008, denim 0.85 / 0.12, chiffon wind 0.5, denim
 * wind 0.05) and fill the rest with the textile ordering people expect:
 * areal density chiffon < silk < cotton < wool < denim < leather, bending
 * rigidity in the same order (it is what sets the drape coefficient), and
 * friction rising from the slippery filament fabrics to the napped ones.
 */
#include "sim/fabric.h"

#include <string.h>

static const WbFabric presets[WB_FABRIC_COUNT] = {
    /*              stiff  kg/m²  damping bend   fric  wind */
    [WB_FABRIC_CHIFFON] = {"chiffon", 0.30f, 0.04f, 0.990f, 0.004f, 0.15f, 0.50f},
    [WB_FABRIC_SILK]    = {"silk",    0.40f, 0.08f, 0.995f, 0.008f, 0.20f, 0.30f},
    [WB_FABRIC_COTTON]  = {"cotton",  0.60f, 0.15f, 0.990f, 0.040f, 0.40f, 0.20f},
    [WB_FABRIC_WOOL]    = {"wool",    0.70f, 0.30f, 0.985f, 0.080f, 0.50f, 0.10f},
    [WB_FABRIC_DENIM]   = {"denim",   0.85f, 0.40f, 0.980f, 0.120f, 0.60f, 0.05f},
    [WB_FABRIC_LEATHER] = {"leather", 0.95f, 0.80f, 0.980f, 0.250f, 0.70f, 0.03f},
};

WbFabric wb_fabric_preset(WbFabricId id)
{
    if ((int)id < 0 || id >= WB_FABRIC_COUNT)
        id = WB_FABRIC_SILK;
    return presets[id];
}

WbStatus wb_fabric_find(const char *name, WbFabric *out, WbError *err)
{
    for (int i = 0; i < WB_FABRIC_COUNT; i++) {
        if (strcmp(presets[i].name, name) == 0) {
            *out = presets[i];
            return WB_OK;
        }
    }
    return wb_error_set(err, WB_E_INPUT,
                        "unknown fabric '%s' (expected chiffon, silk, cotton, "
                        "wool, denim or leather)", name);
}

static WbStatus range(WbError *err, const char *what, float v, float lo, float hi)
{
    if (!(v >= lo && v <= hi))
        return wb_error_set(err, WB_E_INPUT, "fabric %s %g is out of range [%g, %g]",
                            what, (double)v, (double)lo, (double)hi);
    return WB_OK;
}

WbStatus wb_fabric_validate(const WbFabric *f, WbError *err)
{
    WbStatus st;
    if ((st = range(err, "stiffness", f->stiffness, 0.0f, 1.0f)) != WB_OK) return st;
    if ((st = range(err, "weight", f->weight, 0.005f, 5.0f)) != WB_OK) return st;
    if ((st = range(err, "damping", f->damping, 0.5f, 1.0f)) != WB_OK) return st;
    if (f->bend_stiffness != WB_FABRIC_BEND_AUTO &&
        (st = range(err, "bend stiffness", f->bend_stiffness, 0.0f, 1.0f)) != WB_OK)
        return st;
    if ((st = range(err, "friction", f->friction, 0.0f, 1.0f)) != WB_OK) return st;
    return range(err, "wind response", f->wind_response, 0.0f, 1.0f);
}
