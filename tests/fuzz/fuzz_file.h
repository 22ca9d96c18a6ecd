/* fuzz_file.h — the one temporary file the path-based loaders read.
 *
 * The image, mask and weight-map loaders take a path (FFmpeg and libpng
 * open the file themselves), so each input is written to one file in a
 * private mkdtemp folder under $TMPDIR, rewritten on every run and removed
 * with its folder at exit.  Nothing is written anywhere else.
 */
#ifndef WB_FUZZ_FILE_H
#define WB_FUZZ_FILE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/image_load.h"
#include "io/image_probe.h"
#include "run/runner.h"

static char fuzz_dir[4096];
static char fuzz_path[4200];

static void fuzz_file_cleanup(void)
{
    if (fuzz_path[0])
        unlink(fuzz_path);
    if (fuzz_dir[0])
        rmdir(fuzz_dir);
}

/* Write data to the temporary file (created on first use) and return its
 * path; aborts when the folder or file cannot be written, since every
 * later run would then test nothing. */
static const char *fuzz_file_write(const uint8_t *data, size_t size, const char *name)
{
    if (!fuzz_dir[0]) {
        const char *tmp = getenv("TMPDIR");
        snprintf(fuzz_dir, sizeof fuzz_dir, "%s/wobble-fuzz-XXXXXX", tmp && *tmp ? tmp : "/tmp");
        if (!mkdtemp(fuzz_dir)) {
            perror("fuzz: mkdtemp");
            abort();
        }
        snprintf(fuzz_path, sizeof fuzz_path, "%s/%s", fuzz_dir, name);
        atexit(fuzz_file_cleanup);
    }
    FILE *f = fopen(fuzz_path, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0) {
        perror("fuzz: writing the input file");
        abort();
    }
    return fuzz_path;
}

/* As wobble reads a picture: one over the default --max-pixels is refused
 * from its header (wb_runner_check_pixels) before it is decoded, so a
 * harness skips it too. */
static inline int fuzz_over_max_pixels(const char *path)
{
    int64_t w, h;
    return (wb_image_header_size(path, &w, &h) || wb_image_probe_size(path, &w, &h)) && w > 0 &&
           h > 0 && w > WB_MAX_PIXELS / h;
}

#endif
