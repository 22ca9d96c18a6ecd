/* cmd_testcard.c — `wobble testcard`: write the built-in test picture. */
#include "cli/cli.h"
#include "io/png.h"
#include "render/testcard.h"

WbStatus wb_cmd_testcard(const WbTestcardOptions *o, WbError *err)
{
    WbImage img;
    WbStatus st = wb_testcard_make(&img, o->width, o->height, o->mask, err);
    if (st)
        return st;
    st = wb_png_write(o->output, &img, false, err);
    wb_image_free(&img);
    return st;
}
