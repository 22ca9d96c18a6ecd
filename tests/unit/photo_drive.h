/* photo_drive.h — the photo tests drive the solver as a scene does: through
 * the photo adapter's drive (run/run_photo.h), which fires the timeline as
 * solver commands.  The tests hold the solver; these helpers find its drive.
 *
 * Header only, everything static (see tmpdir.h): each test file that
 * includes it gets its own copy. */
#ifndef WB_TEST_PHOTO_DRIVE_H
#define WB_TEST_PHOTO_DRIVE_H

#include <criterion/criterion.h>

#include "run/run_photo.h"

#define MAX_DRIVES 8

static WbPhotoDrive *drives[MAX_DRIVES];

static int drive_index(const WbPhotoSim *sim)
{
    for (int i = 0; i < MAX_DRIVES; i++)
        if (drives[i] && wb_photo_drive_sim(drives[i]) == sim)
            return i;
    cr_assert_fail("no drive holds this simulation");
    return -1;
}

/* wb_photo_drive_create, handing back the drive's solver. */
static WbStatus drive_create(WbPhotoSim **out, const WbPhotoDef *def, const WbEvent *events,
                             size_t n, int w, int h, const float *mask, WbError *err)
{
    *out = NULL;
    WbPhotoDrive *d = NULL;
    WbStatus st = wb_photo_drive_create(&d, def, events, n, w, h, mask, err);
    if (st)
        return st;
    for (int i = 0; i < MAX_DRIVES; i++)
        if (!drives[i]) {
            drives[i] = d;
            *out = wb_photo_drive_sim(d);
            return WB_OK;
        }
    cr_assert_fail("more than %d drives", MAX_DRIVES);
    return WB_E_IO;
}

static WbStatus drive_advance(WbPhotoSim *sim, int64_t step, WbError *err)
{
    return wb_photo_drive_advance(drives[drive_index(sim)], step, err);
}

static bool drive_idle(const WbPhotoSim *sim)
{
    return wb_photo_drive_idle(drives[drive_index(sim)]);
}

static void drive_destroy(WbPhotoSim *sim)
{
    int i = drive_index(sim);
    wb_photo_drive_destroy(drives[i]);
    drives[i] = NULL;
}

#endif
