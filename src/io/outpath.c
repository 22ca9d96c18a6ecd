#include "io/outpath.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/sink_pngseq.h"

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

/* ---- inputs spared, stale temporaries swept ------------------------- */

/* A pattern's base name split around its one conversion (%d, %0Nd): the
 * literal text before and after it, %% read as %.  False when the base
 * holds no conversion. */
static bool split_pattern(const char *base, char *pre, char *post, size_t n)
{
    char *o = pre;
    size_t len = 0;
    bool seen = false;
    for (const char *p = base; *p; p++) {
        if (*p == '%' && p[1] == '%') {
            p++;
        } else if (*p == '%' && !seen) {
            while (p[1] >= '0' && p[1] <= '9')
                p++;
            if (p[1] != 'd')
                return false;
            p++;
            o[len] = '\0';
            o = post;
            len = 0;
            seen = true;
            continue;
        }
        if (len + 1 >= n)
            return false;
        o[len++] = *p;
    }
    o[len] = '\0';
    return seen;
}

/* The frame number a directory entry `name` would have as a name of the
 * pattern split into pre/post, or -1 when it is none (the caller confirms
 * by making the name again). */
static int64_t pattern_number(const char *name, const char *pre, const char *post)
{
    size_t lp = strlen(pre), ls = strlen(post), ln = strlen(name);
    if (ln <= lp + ls || strncmp(name, pre, lp) != 0 || strcmp(name + ln - ls, post) != 0)
        return -1;
    char mid[32];
    if (ln - lp - ls >= sizeof mid)
        return -1;
    snprintf(mid, sizeof mid, "%.*s", (int)(ln - lp - ls), name + lp);
    char *end;
    errno = 0;
    long long v = strtoll(mid, &end, 10);
    return errno || *end || v < 0 ? -1 : (int64_t)v;
}

/* The input `path` is, or NULL. */
static const WbInputFile *input_at(const char *path, const WbInputFile *in, size_t n_in)
{
    struct stat a, b;
    if (stat(path, &a) != 0)
        return NULL;
    for (size_t i = 0; i < n_in; i++)
        if (in[i].path && in[i].path[0] && stat(in[i].path, &b) == 0 && a.st_dev == b.st_dev &&
            a.st_ino == b.st_ino)
            return &in[i];
    return NULL;
}

static WbStatus overwrites(const char *what, const char *path, const char *name, int64_t frame,
                           const WbInputFile *hit, WbError *err)
{
    if (!name)
        return wb_error_set(err, WB_E_INPUT, "%s '%s' is the %s '%s': it would be overwritten",
                            what, path, hit->what, hit->path);
    return wb_error_set(err, WB_E_INPUT,
                        "%s '%s' names '%s' (frame %lld), the %s '%s': it would be overwritten",
                        what, path, name, (long long)frame, hit->what, hit->path);
}

WbStatus wb_outpath_spare_inputs(const char *what, const char *path, bool pattern, int64_t first,
                                 int64_t end, const WbInputFile *in, size_t n_in, WbError *err)
{
    const WbInputFile *hit;
    if (!pattern) {
        hit = input_at(path, in, n_in);
        return hit ? overwrites(what, path, NULL, 0, hit, err) : WB_OK;
    }
    char dir[4200], name[4200], pre[1024], post[1024];
    const char *base;
    split_path(path, dir, sizeof dir, &base);
    if (strchr(dir, '%') || !split_pattern(base, pre, post, sizeof pre)) {
        /* A number in the folder part: every name, one by one. */
        for (int64_t f = first; f < end; f++) {
            if (wb_pngseq_name(path, f, name, sizeof name, NULL) != WB_OK)
                return WB_OK;
            if ((hit = input_at(name, in, n_in)))
                return overwrites(what, path, name, f, hit, err);
        }
        return WB_OK;
    }
    /* The names that exist are in one folder: look at its entries rather
     * than at every frame's name (a long range has millions). */
    DIR *d = opendir(dir);
    if (!d)
        return WB_OK;
    WbStatus st = WB_OK;
    struct dirent *e;
    while (!st && (e = readdir(d))) {
        int64_t f = pattern_number(e->d_name, pre, post);
        if (f < first || f >= end || wb_pngseq_name(path, f, name, sizeof name, NULL) != WB_OK)
            continue;
        const char *nb = strrchr(name, '/');
        if (strcmp(nb ? nb + 1 : name, e->d_name) == 0 && (hit = input_at(name, in, n_in)))
            st = overwrites(what, path, name, f, hit, err);
    }
    closedir(d);
    return st;
}

/* A temporary of ours: ".<name>.<pid>.tmp" with a pid that is not running,
 * <name> being `base` (or, with pre/post, a name of the pattern). */
static bool stale_temp(const char *entry, const char *base, const char *pre, const char *post)
{
    size_t n = strlen(entry);
    if (n < 7 || entry[0] != '.' || strcmp(entry + n - 4, ".tmp") != 0)
        return false;
    const char *dot = entry + n - 5;
    while (dot > entry && *dot >= '0' && *dot <= '9')
        dot--;
    if (*dot != '.' || dot == entry + n - 5 || dot - entry - 1 <= 0 || dot - entry - 1 >= 1024)
        return false;
    char name[1024];
    snprintf(name, sizeof name, "%.*s", (int)(dot - entry - 1), entry + 1);
    if (pre ? pattern_number(name, pre, post) < 0 : strcmp(name, base) != 0)
        return false;
    long pid = strtol(dot + 1, NULL, 10);
    return pid > 0 && pid != (long)getpid() && kill((pid_t)pid, 0) != 0 && errno == ESRCH;
}

void wb_outpath_sweep(const char *path, bool pattern)
{
    char dir[4200], pre[1024], post[1024], victim[8400];
    const char *base;
    split_path(path, dir, sizeof dir, &base);
    if (pattern && (strchr(dir, '%') || !split_pattern(base, pre, post, sizeof pre)))
        return;
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)))
        if (stale_temp(e->d_name, base, pattern ? pre : NULL, post)) {
            snprintf(victim, sizeof victim, "%s/%s", dir, e->d_name);
            unlink(victim);
        }
    closedir(d);
}
