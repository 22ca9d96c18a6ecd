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
    if (!S_ISDIR(st.st_mode))
        return wb_error_set(err, WB_E_IO, "cannot write '%s': '%s' is not a folder", path, dir);
    if (access(dir, W_OK | X_OK) != 0)
        return wb_error_set(err, WB_E_IO, "cannot write '%s': folder '%s': %s", path, dir,
                            strerror(errno));
    return WB_OK;
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
