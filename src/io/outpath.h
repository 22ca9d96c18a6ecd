/* outpath.h — "nothing lost" output paths.
 *
 * A finished output appears at its final path in one rename; until then it
 * is written to `<dir>/.<name>.<pid>.tmp` in the same folder (same file
 * system, so the rename is atomic).  Special files (devices, FIFOs such as
 * /dev/full or /dev/stdout) cannot be renamed onto, so they are written
 * directly.
 */
#ifndef WB_OUTPATH_H
#define WB_OUTPATH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"

/* True when `path` exists and is not a regular file (device, FIFO, socket). */
bool wb_outpath_is_special(const char *path);

/* The temporary name for `path` into tmp[n]; WB_E_IO if it does not fit. */
WbStatus wb_outpath_temp(const char *path, char *tmp, size_t n, WbError *err);

/* Check, without creating anything, that `path` could be written: its
 * folder exists and is writable, and `path` itself is not a folder.  A
 * special file must be writable itself.  Failures are WB_E_IO naming the
 * path and the reason. */
WbStatus wb_outpath_check(const char *path, WbError *err);

/* wb_outpath_check for an output that makes its own folder (a PNG
 * sequence): path's folder may be missing, as long as the nearest folder
 * above it that exists is writable (WB_E_IO naming the path otherwise). */
WbStatus wb_outpath_check_creatable(const char *path, WbError *err);

/* Create the missing folders above `path` (mkdir -p of its folder).  *made
 * is the length of the shallowest folder created, 0 when all existed; pass
 * it to wb_outpath_unmake_folders to take them away again.  WB_E_IO naming
 * the folder on failure (nothing created is left behind). */
WbStatus wb_outpath_make_folders(const char *path, size_t *made, WbError *err);

/* Remove, deepest first, the folders wb_outpath_make_folders(path) created
 * (made > 0), each only if it is empty. */
void wb_outpath_unmake_folders(const char *path, size_t made);

/* A file the run reads: what it is ("the scene file", "photo.image") and
 * its path. */
typedef struct WbInputFile {
    const char *what;
    const char *path;
} WbInputFile;

/* The one check every output goes through before anything is written: it
 * must not be a file the run reads.  `what` names the output in messages
 * ("output", "--stats"); `path` is the output, or with `pattern` a PNG
 * sequence pattern whose names for frames [first, end) are all checked.
 * Files are compared by device and inode (links and other spellings of a
 * name count); a file that does not exist is no one's input.  WB_E_INPUT
 * naming both on a match. */
WbStatus wb_outpath_spare_inputs(const char *what, const char *path, bool pattern, int64_t first,
                                 int64_t end, const WbInputFile *in, size_t n_in, WbError *err);

/* Remove the temporary files (wb_outpath_temp) that runs killed before
 * they could clean up left for `path` (with `pattern`, for any name of the
 * PNG sequence): `.<name>.<pid>.tmp` in its folder whose pid is no longer
 * running.  Best effort, silent. */
void wb_outpath_sweep(const char *path, bool pattern);

/* Rename tmp onto path (WB_E_IO on failure, tmp then removed). */
WbStatus wb_outpath_commit(const char *tmp, const char *path, WbError *err);

#endif
