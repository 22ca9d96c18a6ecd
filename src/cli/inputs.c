/* inputs.c — the files a command reads, in one list for the check that no
 * output replaces one of them (io/outpath.h: wb_outpath_spare_inputs). */
#include <string.h>

#include "cli/cli.h"
#include "io/outpath.h"
#include "scene/scene.h"

size_t wb_cli_run_inputs(const WbScene *sc, const char *scene_path, const char *state,
                         WbInputFile *in)
{
    size_t n = 0;
    if (strcmp(scene_path, "-") != 0)
        in[n++] = (WbInputFile){"scene file", scene_path};
    if (sc->kind == WB_KIND_PHOTO) {
        in[n++] = (WbInputFile){"photo.image", sc->photo.image};
        in[n++] = (WbInputFile){"photo.mask", sc->photo.mask};
    }
    if (sc->kind == WB_KIND_JIGGLE)
        in[n++] = (WbInputFile){"jiggle.weights", sc->jiggle.weights};
    if (state)
        in[n++] = (WbInputFile){"--state file", state};
    return n;
}
