#include "io/outpath.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

bool wb_outpath_is_special(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

/* Split path into its folder ("." when none) and base name. */
static void split_path(const char *path, char *dir, size_t n, const char **base)
{
    const char *slash = strrchr(path, '/');
    if (!slash) {
        snprintf(dir, n, ".");
        *base = path;
    } else if (slash == path) {
        snprintf(dir, n, "/");
        *base = slash + 1;
    } else {
        snprintf(dir, n, "%.*s", (int)(slash - path), path);
        *base = slash + 1;
    }
}

WbStatus wb_outpath_temp(const char *path, char *tmp, size_t n, WbError *err)
{
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    int dirlen = slash ? (int)(slash - path + 1) : 0;
    int len = snprintf(tmp, n, "%.*s.%s.%ld.tmp", dirlen, path, base, (long)getpid());
    if (len < 0 || (size_t)len >= n)
        return wb_error_set(err, WB_E_IO, "output path '%s' is too long", path);
    return WB_OK;
}

/* Can `path` be made in folder `dir` (which exists, stat in *st)? */
static WbStatus folder_takes(const char *path, const char *dir, const struct stat *st, WbError *err)
{
    if (!S_ISDIR(st->st_mode))
        return wb_error_set(err, WB_E_IO, "cannot write '%s': '%s' is not a folder", path, dir);
    if (access(dir, W_OK | X_OK) != 0)
        return wb_error_set(err, WB_E_IO, "cannot write '%s': folder '%s': %s", path, dir,
                            strerror(errno));
    return WB_OK;
}

WbStatus wb_outpath_check(const char *path, WbError *err)
{
    struct stat st;
    if (!path[0])
        return wb_error_set(err, WB_E_IO, "empty output path");
    if (path[strlen(path) - 1] == '/')
        return wb_error_set(err, WB_E_IO, "cannot write '%s': it names a folder", path);
    if (stat(path, &st) == 0) {
        if (S_ISDIR(st.st_mode))
            return wb_error_set(err, WB_E_IO, "cannot write '%s': it is a folder", path);
        if (!S_ISREG(st.st_mode)) {
            if (access(path, W_OK) != 0)
                return wb_error_set(err, WB_E_IO, "cannot write '%s': %s", path, strerror(errno));
            return WB_OK;
        }
    }
    char dir[4096];
    const char *base;
    split_path(path, dir, sizeof dir, &base);
    if (!base[0])
        return wb_error_set(err, WB_E_IO, "cannot write '%s': no file name", path);
    if (stat(dir, &st) != 0)
        return wb_error_set(err, WB_E_IO, "cannot write '%s': folder '%s': %s", path, dir,
                            strerror(errno));
    return folder_takes(path, dir, &st, err);
}

/* The folder above `path` in dir[n] (trailing slashes dropped; "." for a
 * bare name, "/" for the root); false when it does not fit. */
static bool parent_folder(const char *path, char *dir, size_t n)
{
    size_t len = strlen(path);
    while (len > 1 && path[len - 1] == '/')
        len--;
    while (len > 0 && path[len - 1] != '/')
        len--;
    if (len == 0)
        return (size_t)snprintf(dir, n, ".") < n;
    while (len > 1 && path[len - 1] == '/')
        len--;
    if (len >= n)
        return false;
    memcpy(dir, path, len);
    dir[len] = '\0';
    return true;
}

WbStatus wb_outpath_check_creatable(const char *path, WbError *err)
{
    char dir[4096], up[4096];
    struct stat st;
    if (!parent_folder(path, dir, sizeof dir))
        return wb_error_set(err, WB_E_IO, "output path '%s' is too long", path);
    if (stat(dir, &st) == 0)
        return wb_outpath_check(path, err);
    /* Walk up to the nearest folder that exists: the missing ones are made
     * there at open. */
    while (stat(dir, &st) != 0) {
        if (errno != ENOENT)
            return wb_error_set(err, WB_E_IO, "cannot write '%s': folder '%s': %s", path, dir,
                                strerror(errno));
        if (!parent_folder(dir, up, sizeof up) || !strcmp(up, dir))
            return wb_error_set(err, WB_E_IO, "cannot write '%s': no folder above it exists", path);
        memcpy(dir, up, strlen(up) + 1);
    }
    return folder_takes(path, dir, &st, err);
}

WbStatus wb_outpath_make_folders(const char *path, size_t *made, WbError *err)
{
    char dir[4096];
    struct stat st;
    *made = 0;
    if (!parent_folder(path, dir, sizeof dir))
        return wb_error_set(err, WB_E_IO, "output path '%s' is too long", path);
    if (stat(dir, &st) == 0)
        return WB_OK;
    /* Make each level from the top: at every '/' past the first character,
     * and the whole folder last. */
    size_t len = strlen(dir);
    for (size_t i = 1; i <= len; i++) {
        if (i < len && dir[i] != '/')
            continue;
        char c = dir[i];
        dir[i] = '\0';
        if (mkdir(dir, 0777) == 0) {
            if (!*made)
                *made = i;
        } else if (errno != EEXIST) {
            int e = errno;
            WbStatus s = wb_error_set(err, WB_E_IO, "cannot write '%s': cannot make folder '%s': %s",
                                      path, dir, strerror(e));
            dir[i] = c;
            wb_outpath_unmake_folders(path, *made);
            *made = 0;
            return s;
        }
        dir[i] = c;
    }
    return WB_OK;
}

void wb_outpath_unmake_folders(const char *path, size_t made)
{
    char dir[4096], up[4096];
    if (!made || !parent_folder(path, dir, sizeof dir))
        return;
    while (strlen(dir) >= made && rmdir(dir) == 0) {
        if (!parent_folder(dir, up, sizeof up) || !strcmp(up, dir))
            break;
        memcpy(dir, up, strlen(up) + 1);
    }
}

WbStatus wb_outpath_commit(const char *tmp, const char *path, WbError *err)
{
    if (rename(tmp, path) != 0) {
        int e = errno;
        unlink(tmp);
        return wb_error_set(err, WB_E_IO, "cannot move '%s' into place as '%s': %s", tmp, path,
                            strerror(e));
    }
    return WB_OK;
}
